"""Issue 39: Ctrl-C on every radio, memory flat in time, no hangs on hostile
files, replications that vary a measured trace, one run's per-user figure.
One section per item of the issue (the docs' items are in test_docs_standalone.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

import cellaqm
from conftest import _cellaqm_command

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
ENDLESS = "duration=1000000s"

#: Seconds a stop may take here: the runs stop within 0.1 s (bench/interrupt.py measures
#: every shipped radio scenario); the margin is for a loaded machine. Before issue 39 these
#: took 14-20 s (DSCH) and 30 s (set-up of 300 users with fading).
STOP_WITHIN_S = 5.0


def _seconds_to_stop(scenario: Any, after: float, sets: tuple[str, ...] = ()) -> float:
    """Seconds from a SIGINT sent ``after`` seconds into ``cellaqm.run`` to the KeyboardInterrupt."""
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, interrupt)
    # Python's own Ctrl-C handler, as in a terminal: a process started in the background by a
    # non-interactive shell inherits SIGINT ignored, and the signal would never reach the run.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            cellaqm.run(scenario, sets=[ENDLESS, *sets])
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, inherited)
    return time.perf_counter() - sent[0]


# ------------------------------------------------------------------ 1. Ctrl-C on every radio


def test_ctrl_c_stops_a_dsch_run_at_once():
    """The cancel flag was read every 65 536 events; a DSCH frame costs up to a millisecond."""
    assert _seconds_to_stop(SCENARIOS / "dsch" / "tcp-400.toml", after=1.5) < STOP_WITHIN_S


def test_ctrl_c_stops_the_set_up_of_many_users_with_fading():
    """300 DCH users with a fading channel: its set-up took ~90 ms per user, and could not be stopped."""
    doc = tomllib.loads((SCENARIOS / "wcdma" / "td" / "dch384-web-rwnd30-100kB.toml").read_text(encoding="utf-8"))
    doc["traffic"]["users"] = 300
    del doc["radio"]["dch"]["loss"]
    doc["radio"]["dch"]["fading"] = {"mean": 0.1, "doppler": 0.01}
    assert _seconds_to_stop(doc, after=0.5) < STOP_WITHIN_S


def test_ctrl_c_stops_every_radio_kind():
    for path in ["cells/hsdpa-8-web-two-channels.toml", "hsdsch/web-sir.toml", "wcdma/td/hsdpa3600-web-rwnd30-100kB.toml",
                 "lte-uplink/radio/three-ues-pf.toml"]:
        sets = ("traffic.files=1000",) if "lte" in path else ()
        assert _seconds_to_stop(SCENARIOS / path, after=0.5, sets=sets) < STOP_WITHIN_S, path


# ------------------------------------------------------------------ 2. memory: totals only


def test_totals_only_gives_the_same_summary_and_users():
    kept = cellaqm.run(SCENARIOS / "hsdsch" / "web-sir.toml", sets=["duration=10s"])
    lean = cellaqm.run(SCENARIOS / "hsdsch" / "web-sir.toml", sets=["duration=10s"], rows=False)
    wall = ("wall_s", "sim_seconds_per_wall_second", "events_per_second")
    assert {k: v for k, v in kept.summary.items() if k not in wall} == {
        k: v for k, v in lean.summary.items() if k not in wall}
    assert kept.users.equals(lean.users)
    assert len(kept.flows) == kept.summary["flows"] > 100
    with pytest.raises(cellaqm.RowsNotKeptError):
        lean.flows
    with pytest.raises(cellaqm.RowsNotKeptError):
        lean.downloads


def test_flow_rows_reach_python_as_columns_typed_as_before():
    r = cellaqm.run(SCENARIOS / "cells" / "hsdpa-8-web-two-channels.toml", sets=["duration=20s"])
    flows, downloads = r.flows, r.downloads
    assert flows["flow"].tolist() == list(range(len(flows)))
    assert str(flows["rtos"].dtype) == "int64" and str(flows["goodput_bps"].dtype) == "float64"
    assert flows["completion_s"].notna().any() and str(flows["stalled"].dtype) == "bool"
    assert len(downloads) == r.summary["downloads"]["count"] and set(downloads["kind"]) == {"page"}
    head, total = r.flow_head(3)
    assert total == len(flows) and [row["flow"] for row in head] == [0, 1, 2]
    assert head[0]["goodput_bps"] == flows["goodput_bps"].iloc[0]
    flows.loc[0, "rtos"] = 99  # a frame the user may change


# ------------------------------------------------------------------ 4. --pcap


def test_an_unwritable_capture_directory_is_refused_before_the_run(cli, scenario_file: Path, tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    start = time.perf_counter()
    proc = cli("run", scenario_file, "--set", ENDLESS, "--pcap", blocker / "cap")  # would run for days
    assert time.perf_counter() - start < 60
    assert proc.returncode == 1 and "cannot write the pcap files into" in proc.stderr, proc.stderr
    proc = cli("run", scenario_file, "--set", ENDLESS, "--out", blocker / "out")
    assert proc.returncode == 1 and "cannot write" in proc.stderr, proc.stderr


def test_a_capture_failing_after_the_run_keeps_the_results_and_no_partial_file(cli, scenario_file: Path,
                                                                                tmp_path: Path):
    cap, out = tmp_path / "cap", tmp_path / "out"
    (cap / ".bottleneck.pcap.tmp").mkdir(parents=True)  # the bottleneck's file cannot be written
    proc = cli("run", scenario_file, "--set", "duration=2s", "--pcap", cap, "--out", out)
    assert proc.returncode == 1 and "cannot write the pcap files into" in proc.stderr, proc.stderr
    assert json.loads((out / "summary.json").read_text())["flows"] == 2  # the results are kept
    assert sorted(p.name for p in cap.iterdir()) == [".bottleneck.pcap.tmp"]  # no partial capture


def test_one_directory_for_out_and_pcap_never_mixes_runs(cli, scenario_file: Path, tmp_path: Path):
    d = tmp_path / "d"
    assert cli("run", scenario_file, "--set", "duration=2s", "--out", d, "--pcap", d).returncode == 0
    assert {"summary.json", "flows.csv", "server.pcap", "client.pcap"} <= {p.name for p in d.iterdir()}
    assert cli("run", scenario_file, "--set", "duration=3s", "--out", d).returncode == 0
    assert not any(d.glob("*.pcap")), "an earlier run's captures beside this run's results"
    assert cli("run", scenario_file, "--set", "duration=2s", "--pcap", d).returncode == 0
    assert not (d / "summary.json").exists(), "an earlier run's results beside this run's captures"


# ------------------------------------------------------------------ 5. unbounded inputs


def _error(cli, *args: Any) -> str:
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cellaqm: error: "), proc.stderr
    return lines[0]


def test_dsch_user_counts_are_bounded(cli):
    line = _error(cli, "run", SCENARIOS / "dsch" / "tcp-400.toml", "--set", "radio.dsch.web_users=4000000000")
    assert "radio.dsch.web_users: at most 20000" in line


def _trace_scenario(tmp_path: Path, trace: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f'duration = "5s"\n[traffic]\nmodel = "bulk"\n[bottleneck]\nrate = {{ trace = "{trace}" }}\n'
                    'buffer = "100kB"\n', encoding="utf-8")
    return path


def test_a_trace_that_is_a_pipe_or_a_device_is_refused_without_hanging(cli, tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for trace in (fifo, Path("/dev/zero")):
        line = _error(cli, "run", _trace_scenario(tmp_path, str(trace)))
        assert "not a regular file" in line and "bottleneck.rate.trace" in line


def test_a_trace_with_a_huge_line_is_refused(cli, tmp_path: Path):
    (tmp_path / "x.trace").write_text("1\n" + "7" * 10_000 + "\n", encoding="utf-8")
    assert "line 2: longer than 32 characters" in _error(cli, "run", _trace_scenario(tmp_path, "x.trace"))


def test_a_schedule_of_nanosecond_steps_runs_at_once():
    steps = {"steps": [["0s", "2Mbps"], ["1ns", "500kbps"]], "repeat": "3ns"}
    r = cellaqm.run({"duration": "5s", "traffic": {"model": "bulk"},
                     "bottleneck": {"rate": steps, "buffer": "30kB"}})
    assert 0.9e6 < r.summary["goodput_bps"] < 1.0e6  # 1 Mb/s on average, less the headers


def test_deeply_nested_files_are_one_line_errors(cli, tmp_path: Path):
    deep = tmp_path / "deep.toml"
    deep.write_text('base = "x.toml"\nb = ' + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    for command, extra in ((["check"], []), (["sweep"], ["--out", tmp_path / "o"]), (["run"], [])):
        line = _error(cli, *command, deep, *extra)
        assert "nested too deeply" in line or "recursion limit" in line, line


def test_empty_output_directories_are_refused(cli, scenario_file: Path, tmp_path: Path):
    assert "--pcap: an empty directory name" in _error(cli, "run", scenario_file, "--pcap", "")
    assert "--out: an empty directory name" in _error(cli, "run", scenario_file, "--out", "")
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{scenario_file}"\n', encoding="utf-8")
    assert "--out: an empty directory name" in _error(cli, "sweep", sweep, "--out", "")
    assert not any(p.suffix in (".pcap", ".csv", ".json") for p in tmp_path.iterdir())
    with pytest.raises(ValueError, match="empty directory name"):
        cellaqm.run(scenario_file, pcap="")


def test_lte_tti_zero_names_the_tti(cli):
    line = _error(cli, "run", SCENARIOS / "lte-uplink" / "radio" / "drop-tail.toml", "--set", "radio.lte.tti=0s")
    assert "radio.lte.tti: must be positive" in line


def test_dsch_warmup_past_the_end_is_refused(cli):
    line = _error(cli, "run", SCENARIOS / "dsch" / "tcp-400.toml", "--set", "radio.dsch.warmup=300s")
    assert "radio.dsch.warmup: 300 s is not before the end of the run (300 s)" in line


# ------------------------------------------------------------------ 8. replications on a measured trace


def _bulk_on_trace(offset: Any = None) -> dict[str, Any]:
    rate: dict[str, Any] = {"trace": str(SCENARIOS / "traces" / "data" / "Verizon-LTE-short.down")}
    if offset is not None:
        rate["offset"] = offset
    return {"duration": "20s", "traffic": {"model": "bulk"}, "bottleneck": {"rate": rate, "buffer": "200kB"}}


def test_a_random_offset_makes_replications_of_a_trace_differ():
    def goodputs(offset: Any) -> list[float]:
        return [cellaqm.run(_bulk_on_trace(offset), seed=s).summary["goodput_bps"] for s in (1, 2, 3)]

    same = goodputs(None)
    assert same[0] == same[1] == same[2]  # the seeds move nothing: the trace starts at 0 in each
    assert goodputs("0s") == same
    varied = goodputs("random")
    assert len(set(varied)) == 3
    assert varied == goodputs("random")  # per seed, reproducible
    fixed = cellaqm.run(_bulk_on_trace("40s")).summary["goodput_bps"]
    assert fixed != same[0]


def test_a_table_warns_when_replications_are_identical(cli, tmp_path: Path):
    base = tmp_path / "base.toml"
    doc = _bulk_on_trace()
    base.write_text('duration = "5s"\n[traffic]\nmodel = "bulk"\n[bottleneck]\nbuffer = "200kB"\n'
                    f'rate = {{ trace = "{doc["bottleneck"]["rate"]["trace"]}" }}\n', encoding="utf-8")
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{base}"\nreplications = 3\n[factors.buffer]\npath = "bottleneck.buffer"\n'
                     'levels = ["100kB", "200kB"]\n', encoding="utf-8")
    assert cli("sweep", sweep, "--out", tmp_path / "r", "--jobs", "1", "--quiet").returncode == 0
    proc = cli("table", tmp_path / "r", "--metric", "goodput_bps")
    assert proc.returncode == 0
    notes = [line for line in proc.stderr.splitlines() if "identical in every metric" in line]
    assert len(notes) == 2 and 'offset = "random"' in notes[0], proc.stderr


# ------------------------------------------------------------------ 10. one run's users; the demo's verdicts


def test_plot_draws_one_runs_per_user_goodput(cli, tmp_path: Path):
    out = tmp_path / "run"
    assert cli("run", SCENARIOS / "cells" / "hsdpa-8-web-two-channels.toml", "--set", "duration=20s",
               "--out", out).returncode == 0
    proc = cli("plot", out, "--kind", "users")
    assert proc.returncode == 0, proc.stderr
    assert (out / "plots" / "users-goodput_bps.png").stat().st_size > 1000
    assert cli("plot", out, "--kind", "users", "--metric", "delay_ms.p95", "--out", tmp_path / "d.svg").returncode == 0
    assert "unknown per-user column 'nope'" in cli("plot", out, "--kind", "users", "--metric", "nope").stderr


def test_the_demo_judges_no_bearer_it_did_not_run(cli, tmp_path: Path):
    proc = subprocess.run([*_cellaqm_command(), "reproduce", "wcdma-rnc-aqm", "--demo", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "nan" not in proc.stdout.lower()
    assert "not judged: compares rates" in proc.stdout
