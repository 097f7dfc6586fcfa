"""Trace-driven links from Python: trace paths relative to the scenario file (runs, sweeps), errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_cli import assert_one_line_error

import cellaqm
from cellaqm.sweepfile import load_plan

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "scenarios" / "traces"


def test_a_scenario_file_reads_its_trace_relative_to_itself(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # not the scenario's directory
    s = cellaqm.run(TRACES / "lte-short.toml", sets=["duration=5s"]).summary
    assert s["goodput_bps"] > 1e6
    # The bottleneck carried at most what the trace's opportunities offered: its utilisation is that share.
    assert 0 < s["bottleneck"]["utilisation"] <= 1


def test_a_dict_reads_its_trace_relative_to_the_current_directory(monkeypatch):
    doc = {"duration": "2s", "traffic": {"model": "bulk"},
           "bottleneck": {"rate": {"trace": "data/Verizon-LTE-short.down"}, "buffer": "100kB"}}
    monkeypatch.chdir(TRACES)
    assert cellaqm.run(doc).summary["bottleneck"]["packets_sent"] > 0
    monkeypatch.chdir(ROOT)
    with pytest.raises(cellaqm.ScenarioError, match=r"^bottleneck\.rate\.trace: data/Verizon-LTE-short\.down: cannot read"):
        cellaqm.run(doc)


def test_a_stepped_rate_from_python():
    doc = {"duration": "4s", "traffic": {"model": "bulk"},
           "bottleneck": {"rate": {"steps": [["0s", "1Mbps"], ["1s", "4Mbps"]], "repeat": "2s"}, "buffer": "100kB"}}
    s = cellaqm.run(doc).summary
    assert s["goodput_bps"] < 2.5e6  # the mean of the square wave
    doc["bottleneck"]["rate"]["repeat"] = "1s"
    with pytest.raises(cellaqm.ScenarioError, match=r"^bottleneck\.rate\.repeat: must be later than the last step"):
        cellaqm.run(doc)


def test_sweep_runs_carry_absolute_trace_paths_from_the_files_that_name_them(tmp_path):
    plan = load_plan(ROOT / "sweeps" / "traces.toml")
    assert len(plan.runs) == 2 * 4 * 5
    for run in plan.runs:
        for link in ("bottleneck", "uplink"):
            path = Path(run.scenario[link]["rate"]["trace"])
            assert path.is_absolute() and path.is_file(), path
    # A level's relative path is relative to the sweep file, the base's to the base file.
    (tmp_path / "sub").mkdir()
    shutil.copy(TRACES / "data" / "Verizon-LTE-short.up", tmp_path / "here.up")
    base = (TRACES / "lte-short.toml").read_text(encoding="utf-8")
    base = base.replace("data/Verizon-LTE-short.down", "../here.up").replace("data/Verizon-LTE-short.up", "../here.up")
    (tmp_path / "sub" / "base.toml").write_text(base, encoding="utf-8")
    (tmp_path / "s.toml").write_text(
        'base = "sub/base.toml"\n[set]\nduration = "2s"\n'
        '[factors]\n"uplink.rate" = [{ trace = "here.up" }, "1Mbps"]\n', encoding="utf-8")
    plan = load_plan(tmp_path / "s.toml")
    assert plan.runs[0].scenario["bottleneck"]["rate"]["trace"] == str(tmp_path / "sub" / ".." / "here.up")
    assert plan.runs[0].scenario["uplink"]["rate"]["trace"] == str(tmp_path / "here.up")
    assert plan.runs[1].scenario["uplink"]["rate"] == "1Mbps"


def test_cli_names_a_missing_trace(cli, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[traffic]\nmodel = "bulk"\n[bottleneck]\nrate = { trace = "gone.down" }\n',
                        encoding="utf-8")
    proc = cli("run", scenario)
    assert_one_line_error(proc, "bottleneck.rate.trace", "gone.down", "cannot read")
