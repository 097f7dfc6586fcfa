"""`cellaqm list traffic|tcp|links|studies` (the lists are the parsers' registries,
both ways) and `cellaqm check FILE` (scenarios and sweep files, without running)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import cellaqm
from cellaqm import _core
from cellaqm.listing import WHAT, entries
from cellaqm.reproduce import EXPERIMENTS
from test_cli import assert_one_line_error

ROOT = Path(__file__).resolve().parent.parent
BASE = 'duration = "1s"\n[bottleneck]\nrate = "1Mbps"\n'


def test_every_listed_traffic_model_parses_and_no_other() -> None:
    for model in entries("traffic"):
        _core.validate(f'{BASE}[traffic]\nmodel = "{model["name"]}"\n{model["required"]}\n')
        keys = {k["name"]: k for k in model["keys"]}
        resolved = json.loads(_core.resolve(f'{BASE}[traffic]\nmodel = "{model["name"]}"\n{model["required"]}\n'))
        resolved = {k: v for k, v in resolved["traffic"].items() if k != "model"}
        assert set(resolved) <= set(keys), model["name"]
        for name, key in keys.items():  # the defaults are what the run uses; the others are optional
            assert key["default"] == (None if key["required"] else resolved.get(name)), (model["name"], name)
    with pytest.raises(cellaqm.ScenarioError) as err:
        _core.validate(f'{BASE}[traffic]\nmodel = "nope"\n')
    names = ", ".join(m["name"] for m in entries("traffic"))
    assert str(err.value).endswith(f"(use one of {names})")


def test_tcp_keys_are_the_parsers_both_ways() -> None:
    listed = {k["name"]: k for k in entries("tcp")}
    resolved = json.loads(_core.resolve(f'{BASE}[traffic]\nmodel = "bulk"\n'))["tcp"]
    assert set(listed) == set(resolved)
    for name, key in listed.items():
        assert resolved[name] == key["default"], name
        assert key["meaning"] and key["takes"]


def test_links_cover_every_shipped_scenario() -> None:
    names = {link["name"] for link in entries("links")}
    seen = set()
    for path in ROOT.glob("scenarios/**/*.toml"):
        text, fmt = cellaqm.api.read_scenario(path)
        doc = json.loads(_core.resolve(text, fmt, [], cellaqm.api.scenario_dir(path)))
        seen.add(doc["radio"]["bearer"] if "radio" in doc else "wired")
    assert seen == names  # every kind is used by a shipped scenario, and listed


def test_studies_are_the_reproduce_targets(cli: Any) -> None:
    studies = entries("studies")
    assert [s["name"] for s in studies] == list(EXPERIMENTS)
    for s in studies:
        assert s["description"] and s["experiments"] and s["runs"]["full"] > s["runs"]["quick"] > 0
        assert sum(e["runs"]["full"] for e in s["experiments"]) == s["runs"]["full"]
        assert s["simulations"]["full"] <= s["runs"]["full"]
    rlc = next(s for s in studies if s["name"] == "umts-rlc-tcp")
    assert [e["name"] for e in rlc["experiments"]][:2] == ["initial-window", "buffer-tcp"]
    text = cli("list", "studies", "umts-rlc-tcp").stdout
    assert "buffer-tcp" in text and "4,560" in text  # the --only names and the full size
    proc = cli("reproduce", "nope")
    assert_one_line_error(proc, "invalid choice", *EXPERIMENTS)


@pytest.mark.parametrize("what", [w for w in WHAT if w != "queues"])
def test_list_prints_every_entry(cli: Any, what: str) -> None:
    proc = cli("list", what)
    assert proc.returncode == 0, proc.stderr
    for entry in entries(what):
        assert entry["name"] in proc.stdout
    proc = cli("list", what, "--json")
    assert json.loads(proc.stdout) == entries(what)
    first = entries(what)[0]["name"]
    assert [e["name"] for e in json.loads(cli("list", what, first, "--json").stdout)] == [first]
    assert_one_line_error(cli("list", what, "nope"), "unknown", first)


def test_list_traffic_shows_defaults(cli: Any) -> None:
    out = cli("list", "traffic", "web").stdout
    assert '"65kB"' in out and "reading_time" in out
    assert "required" in cli("list", "traffic", "file").stdout


def test_check_every_shipped_file(cli: Any) -> None:
    files = sorted(ROOT.glob("scenarios/**/*.toml")) + sorted(ROOT.glob("sweeps/*.toml"))
    for path in files[:: max(1, len(files) // 12)] + [ROOT / "sweeps" / "buffer-sizes.toml"]:
        proc = cli("check", path)
        assert proc.returncode == 0 and proc.stderr == "", (path, proc.stderr)
        (line,) = proc.stdout.splitlines()
        assert line.startswith(f"{path}: OK (")
    line = cli("check", ROOT / "sweeps" / "buffer-sizes.toml").stdout
    assert "sweep buffer-sizes: 80 runs" in line and "10 replications" in line
    line = cli("check", ROOT / "scenarios" / "default.toml").stdout
    assert "60s, bulk traffic (1 user), bottleneck 384kbps, tail_drop" in line


def test_check_names_a_trace_or_a_schedule(cli: Any, tmp_path: Path) -> None:
    """A trace's summary names its file (with or without an offset), a schedule says "steps"."""
    trace = ROOT / "scenarios" / "traces" / "data" / "Verizon-LTE-short.down"
    rates = {f'{{ trace = "{trace}", offset = "random" }}': "bottleneck trace Verizon-LTE-short.down, ",
             f'{{ trace = "{trace}" }}': "bottleneck trace Verizon-LTE-short.down, ",
             '{ steps = [["0s", "2Mbps"], ["5s", "384kbps"]], repeat = "10s" }': "bottleneck steps, "}
    for rate, summary in rates.items():
        path = tmp_path / "s.toml"
        path.write_text(f'duration = "1s"\n[bottleneck]\nrate = {rate}\n[traffic]\nmodel = "bulk"\n')
        proc = cli("check", path)
        assert proc.returncode == 0 and summary in proc.stdout, (rate, proc.stdout, proc.stderr)


def test_check_errors(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(f'{BASE}[traffic]\nmodel = "bulk"\n[tcp]\nrecovery = "vegas"\n')
    assert_one_line_error(cli("check", bad), str(bad), "tcp.recovery")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f'base = "{ROOT / "scenarios" / "default.toml"}"\n[factors]\n"bottleneck.buffer" = ["20kB", "2xB"]\n')
    assert_one_line_error(cli("check", sweep), "2xB", "bottleneck.buffer")
    assert_one_line_error(cli("check", tmp_path / "missing.toml"), "cannot read")
