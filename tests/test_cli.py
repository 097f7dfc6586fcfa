"""The `cellaqm` command line, run as a subprocess like a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import cellaqm
from conftest import FLOW_KEYS, SUMMARY_KEYS


def assert_one_line_error(proc, *fragments: str) -> str:
    """Exit 2, nothing on stdout, exactly one `cellaqm: error: ...` line on stderr."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    (line,) = lines
    assert line.startswith("cellaqm: error: "), line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


# ------------------------------------------------------------------ bad input


def test_unknown_key_in_set(cli, scenario_file):
    proc = cli("run", scenario_file, "--set", "bottleneck.nonsense=1")
    assert_one_line_error(proc, "nonsense")


def test_unknown_key_in_file(cli, scenario_file):
    scenario_file.write_text(
        scenario_file.read_text().replace("[core]\n", "[core]\nbogus_key = 3\n"), encoding="utf-8"
    )
    proc = cli("run", scenario_file)
    assert_one_line_error(proc, "bogus_key")


def test_bad_unit(cli, scenario_file):
    proc = cli("run", scenario_file, "--set", "bottleneck.rate=384kps")
    assert_one_line_error(proc, "bottleneck.rate", "kps")


def test_bad_unit_in_file(cli, scenario_file):
    scenario_file.write_text(
        scenario_file.read_text().replace('delay = "70ms"', 'delay = "70 parsecs"'), encoding="utf-8"
    )
    proc = cli("run", scenario_file)
    assert_one_line_error(proc, "core.delay")


def test_missing_file(cli, tmp_path):
    missing = tmp_path / "no-such-scenario.toml"
    proc = cli("run", missing)
    assert_one_line_error(proc, "no-such-scenario.toml", "cannot read")


def test_unreadable_file_is_a_directory(cli, tmp_path):
    proc = cli("run", tmp_path)
    assert_one_line_error(proc, str(tmp_path), "cannot read")


def test_invalid_toml(cli, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x\n[tcp\n', encoding="utf-8")
    assert_one_line_error(cli("run", path))


def test_invalid_toml_gives_line_and_column(cli, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('duration = "10s"\nname = "x\n', encoding="utf-8")
    assert_one_line_error(cli("run", path), "not valid TOML at line 2, column")


#: (--set, fragments of the one error line): the key and the expected form, no Rust type names.
BAD_VALUES = [
    ("tcp.rwnd=-5", ("tcp.rwnd: expected a packet count like 30, or a size like", "got -5")),
    ("tcp.rwnd=abc", ("tcp.rwnd: expected a packet count like 30", 'got "abc"')),
    ("tcp.rwnd=30kbps", ("tcp.rwnd: expected a packet count like 30", 'got "30kbps"')),
    ("tcp.rwnd=1.5", ("tcp.rwnd: expected a packet count like 30", "got 1.5")),
    ("tcp=3", ("tcp: expected a table [tcp], got 3",)),
    ("bottleneck.buffer_packets=-3", ("bottleneck.buffer_packets: expected a whole number ≥ 0",)),
    ("tcp.initial_window=2.5", ("tcp.initial_window: expected a whole number ≥ 0", "got 2.5")),
    ("seed=-3", ("seed: expected a whole number ≥ 0, got -3",)),
    ("bottleneck.buffer_packets=0", ("bottleneck.buffer_packets: a zero-sized buffer",)),
    ("bottleneck.buffer=1000B", ("bottleneck.buffer: 1kB cannot hold one full-sized packet of 1500B",)),
    ("uplink.buffer=1kB", ("uplink.buffer: 1kB cannot hold one full-sized packet",)),
    ("tcp.rto_initial=100ms", ("tcp.rto_initial: must lie between tcp.rto_min",)),
    ('tcp.rto_formula="ns2"', ('tcp.timer_tick: rto_formula = "ns2" counts time in ticks',)),
    ('tcp.rto_formula="ns3"', ("tcp.rto_formula", "ns3")),
    ("duration=100000000000s", ("duration: a duration must be at most 9223372036s",)),
    ("core.delay=100000000000s", ("core.delay: a duration must be at most",)),
    ("bottleneck.rate=20000Gbps", ("bottleneck.rate: a rate must be between 1bps and 10000Gbps",)),
    ('uplink.receiver={ scheme = "raqm" }', ("uplink.receiver: R-AQM needs uplink.bsr_period",)),
    ("bottleneck.bsr_period=20ms", ("bottleneck.bsr_period: only [uplink] sends Buffer Status Reports",)),
    ('uplink.receiver={ scheme = "red" }', ('uplink.receiver.scheme: unknown scheme "red" (one of raqm)',)),
    ("uplink.bsr_period=0s", ("uplink.bsr_period: must be positive",)),
]


@pytest.mark.parametrize("bad,fragments", BAD_VALUES, ids=[b for b, _ in BAD_VALUES])
def test_bad_value_names_key_and_expected_form(cli, scenario_file, bad, fragments):
    line = assert_one_line_error(cli("run", scenario_file, "--set", bad), *fragments)
    for rust in ("struct", "u32", "u64", "untagged", "variant"):
        assert rust not in line, line


@pytest.mark.parametrize("option", ["--packets", "--trace"])
def test_recording_needs_out(cli, scenario_file, option):
    assert_one_line_error(cli("run", scenario_file, option), f"{option} needs --out DIR")


@pytest.mark.parametrize("bad", ["no-equals-sign", "=384kbps"])
def test_malformed_set(cli, scenario_file, bad):
    proc = cli("run", scenario_file, "--set", bad)
    assert_one_line_error(proc, bad)


@pytest.mark.parametrize("bad", ["abc", "-1", "1.5"])
def test_bad_seed(cli, scenario_file, bad):
    assert_one_line_error(cli("run", scenario_file, "--seed", bad), "--seed")


def test_unknown_option(cli, scenario_file):
    assert_one_line_error(cli("run", scenario_file, "--frobnicate"), "--frobnicate")


def test_no_command(cli):
    assert_one_line_error(cli())


# ------------------------------------------------------------------ help and version


def test_help_describes_options(cli):
    top = cli("--help")
    assert top.returncode == 0
    assert "run" in top.stdout and "--version" in top.stdout
    proc = cli("run", "--help")
    assert proc.returncode == 0
    for option in ("FILE", "--seed", "--set", "--out", "--json", "--packets"):
        assert option in proc.stdout, option


def test_version(cli):
    proc = cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"cellaqm {cellaqm.__version__}"


# ------------------------------------------------------------------ start-up

#: Packages that `cellaqm --version` and `cellaqm run` (JSON or text) must not import:
#: they cost most of a short run's process time (bench/startup.py, issue 27).
HEAVY_PACKAGES = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy")


@pytest.mark.parametrize("args", [["--version"], ["run", "{scenario}", "--json"], ["run", "{scenario}"]])
def test_version_and_run_import_no_heavy_package(scenario_file, args):
    """The CLI's main() in a fresh interpreter, then the heavy packages found in sys.modules."""
    import subprocess
    import sys

    argv = [a.format(scenario=scenario_file) for a in args]
    probe = (
        "import sys, contextlib, io\n"
        "from cellaqm.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(sys.argv[1:])\n"
        "    except SystemExit:\n"  # --version exits through argparse
        "        pass\n"
        f"print(sorted(m for m in {HEAVY_PACKAGES!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", (argv, proc.stdout)


# ------------------------------------------------------------------ successful runs


def test_json_summary(cli, scenario_file):
    proc = cli("run", scenario_file, "--json", "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    summary = json.loads(lines[0])
    assert isinstance(summary, dict)
    assert SUMMARY_KEYS <= summary.keys(), SUMMARY_KEYS - summary.keys()
    assert summary["seed"] == 5
    assert summary["duration_s"] == pytest.approx(10.0)
    assert "test" in summary.values()  # the scenario's name
    assert {"mean", "p50", "p95", "p99", "max"} <= summary["delay_ms"].keys()


def test_duration_is_exact(cli, scenario_file):
    proc = cli("run", scenario_file, "--json", "--set", "duration=60s")
    assert proc.returncode == 0, proc.stderr
    assert '"duration_s": 60.0,' in proc.stdout


def test_json_uses_scenario_seed_by_default(cli, scenario_file):
    proc = cli("run", scenario_file, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["seed"] == 1


def test_set_is_applied(cli, scenario_file):
    base = json.loads(cli("run", scenario_file, "--json").stdout)
    proc = cli("run", scenario_file, "--json", "--set", "duration=4s")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["duration_s"] == pytest.approx(4.0)
    assert base["duration_s"] == pytest.approx(10.0)


def test_human_output(cli, scenario_file):
    proc = cli("run", scenario_file)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "scenario test" in out
    assert "seed 1" in out
    for word in ("goodput", "kb/s", "delay p95", "ms", "RTOs", "utilisation", "events", "flows"):
        assert word in out, word


def test_out_writes_files(cli, scenario_file, tmp_path):
    out = tmp_path / "results" / "run1"
    proc = cli("run", scenario_file, "--out", out)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= summary.keys()
    flows = pd.read_csv(out / "flows.csv")
    assert len(flows) == 2
    assert FLOW_KEYS <= set(flows.columns)
    assert not list(out.glob("packets.*"))


def test_out_with_packets(cli, scenario_file, tmp_path):
    out = tmp_path / "with-packets"
    proc = cli("run", scenario_file, "--out", out, "--packets", "--json")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # still only the summary on stdout
    (packets_file,) = list(out.glob("packets.*"))
    if packets_file.suffix == ".csv":
        packets = pd.read_csv(packets_file)
    else:
        packets = pd.read_parquet(packets_file)
    assert len(packets) > 0
    assert {"flow", "sent_s", "received_s", "delay_s", "size"} <= set(packets.columns)


def test_out_unwritable(cli, scenario_file, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    proc = cli("run", scenario_file, "--out", blocker / "sub")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("cellaqm: error: cannot write")
    assert len(proc.stderr.splitlines()) == 1


def test_scenario_json_file(cli, tmp_path, scenario_dict):
    path = tmp_path / "test.json"
    path.write_text(json.dumps(scenario_dict), encoding="utf-8")
    proc = cli("run", path, "--json")
    assert proc.returncode == 0, proc.stderr
    assert SUMMARY_KEYS <= json.loads(proc.stdout).keys()


def test_python_dash_m(tmp_path, scenario_file):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "cellaqm", "run", str(scenario_file), "--json"],
        capture_output=True,
        text=True,
        cwd=Path(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["seed"] == 1
