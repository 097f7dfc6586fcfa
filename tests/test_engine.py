"""The experiment engine (cellaqm.engine): a study's experiments as sweep plans into a store, resumable.

A synthetic study (a measure that simulates nothing) checks the store round
trip, failures, shared runs and the output formats in-process; the RLC study's
quick runs check kill -9 and --resume, Ray, and `cellaqm table` on a study's store.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cellaqm import engine, findings, plan, rlc_tcp, wcdma
from cellaqm.cli import main
from cellaqm.study import Experiment, Run, Study, lines_figure
from cellaqm.store import Store

# --------------------------------------------------------------------------- a synthetic study

MEASURED: list[dict[str, Any]] = []


def measure(run: Run) -> Run:
    """Echoes the scenario: no simulation. Fails where the scenario says so."""
    MEASURED.append({"labels": dict(run.labels), "seed": run.seed, "doc": run.doc})
    if run.doc.get("fail"):
        raise RuntimeError(f"asked to fail at x = {run.doc['x']}")
    x = run.doc["x"]
    run.out = {"y": x * 10.0 + run.seed, "odd": bool(run.seed % 2), "count": int(x), "nan": math.nan,
               "stalled_flows": float(x == 3.0),
               "name": f"x{x}", "none": None,
               "frame": pd.DataFrame({"t": [0.5, 1.5], "v": [x, x + 1], "s": ["a", "b"]}),
               "series": {"t": [0.0, 0.25 * x], "a": np.arange(3, dtype=np.float64) * x, "end_s": 0.5 * x}}
    return run


def xs(values: list[float], fail: float | None = None) -> Any:
    def runs(quick: bool, reps: int) -> list[Run]:
        return [Run({"x": v}, {"x": v, **({"fail": True} if v == fail else {})}, seed)
                for v in values for seed in range(1, reps + 1)]
    return runs


def synthetic(fail: float | None = None) -> Study:
    labels = {"y": "y [units]"}
    figure = lines_figure("x", None, ("y",), labels)
    exps = [Experiment("first", "The first experiment", xs([0.05, 1.0, 2.0]), ("x",), ("y", "count", "nan"), figure),
            Experiment("second", "The second, sharing two levels", xs([1.0, 2.0, 3.0], fail), ("x",), ("y",), figure)]
    return Study("synthetic", "A synthetic study", "docs/experiments.md", exps, measure, labels, reps=(3, 2))


def options(**kw: Any) -> argparse.Namespace:
    base = dict(demo=False, only=None, quick=True, reps=None, sets=[], duration=None, resume=False, backend="local",
                ray_address=None, format="text", quiet=True)
    return argparse.Namespace(**{**base, **kw})


def test_rows_round_trip_every_kind_of_measure(tmp_path: Path, capsys: Any) -> None:
    MEASURED.clear()
    study = synthetic()
    assert engine.command(study, options(), 2, tmp_path) == 0
    # 3 + 3 levels x 2 seeds, two levels shared: 8 simulations for 12 runs; the measure never sees the labels.
    assert len(MEASURED) == 8 and all(m["labels"] == {} for m in MEASURED)
    out = capsys.readouterr().out
    assert "2 experiments, 12 runs (8 simulations: 4 runs shared between experiments)" in out
    ep = plan.plan(study, study.experiments, "quick", 2).experiments[0]
    from cellaqm import rows

    outs, _ = rows.read(Store(tmp_path / "store" / "first"), ep.row_ids, ep.factors)
    first = outs[ep.row_ids[0]]  # x = 0.05, seed 1
    assert first["y"] == 0.05 * 10 + 1 and first["odd"] is True and first["count"] == 0 and first["name"] == "x0.05"
    assert math.isnan(first["nan"]) and "none" not in first
    pd.testing.assert_frame_equal(first["frame"], pd.DataFrame({"t": [0.5, 1.5], "v": [0.05, 1.05], "s": ["a", "b"]}))
    assert first["series"]["t"] == [0.0, 0.0125] and first["series"]["a"].tolist() == [0.0, 0.05, 0.1]
    assert first["series"]["end_s"] == 0.025  # a scalar entry of a dict: kept in the row's detail
    # Levels print as given (0.05, not 0.1) in the table, the CSV and the store.
    table = list(csv.DictReader((tmp_path / "first.csv").open()))
    assert [r["x"] for r in table] == ["0.05", "1.0", "2.0"] and table[0]["y"] == "2.0"
    assert re.search(r"^0\.05 +2 ", out, re.M) and not re.search(r"^0\.1 +2 ", out, re.M)
    df = Store(tmp_path / "store" / "first").load()
    assert list(df["x"].cat.categories) == ["0.05", "1.0", "2.0"] and len(df) == 6
    assert {"run_id", "rep", "seed", "y", "count", "run_wall_s", "version", "scenario_doc", "options"} <= set(df.columns)
    assert json.loads(df["scenario_doc"][0]) == {"x": 0.05}
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# A synthetic study: cellaqm reproduce synthetic (quick)\n\n## Summary\n")
    assert report.index("## The first experiment") > report.index("- How long:")


def test_a_failed_run_leaves_its_experiment_without_a_table_and_resume_reruns_it(tmp_path: Path, capsys: Any) -> None:
    MEASURED.clear()
    assert engine.command(synthetic(fail=3.0), options(), 1, tmp_path) == 1
    out = capsys.readouterr().out
    assert "experiment second: 2 of 6 runs failed, so it has no table" in out
    assert "RuntimeError: asked to fail at x = 3.0" in out
    assert (tmp_path / "first.csv").exists() and not (tmp_path / "second.csv").exists()
    assert "2 of 6 runs failed" in (tmp_path / "report.md").read_text()
    MEASURED.clear()
    assert engine.command(synthetic(), options(resume=True), 1, tmp_path) == 0
    assert [m["doc"]["x"] for m in MEASURED] == [3.0, 3.0]  # only the failed runs ran again
    assert len(list(csv.DictReader((tmp_path / "second.csv").open()))) == 3


def test_resume_copies_a_shared_run_another_experiment_stored(tmp_path: Path, capsys: Any) -> None:
    study = synthetic()
    assert engine.command(study, options(), 1, tmp_path) == 0
    first = (tmp_path / "first.csv").read_text()
    for p in (tmp_path / "store" / "second" / "runs").glob("*.parquet"):
        p.unlink()
    MEASURED.clear()
    assert engine.command(study, options(resume=True), 1, tmp_path) == 0
    assert [m["doc"]["x"] for m in MEASURED] == [3.0, 3.0]  # x = 1 and 2 were copied from the first experiment
    assert "(4 copied from another experiment's store)" in capsys.readouterr().out
    assert (tmp_path / "first.csv").read_text() == first


def test_without_resume_the_chosen_experiments_store_is_replaced(tmp_path: Path) -> None:
    study = synthetic()
    assert engine.command(study, options(), 1, tmp_path) == 0
    MEASURED.clear()
    assert engine.command(study, options(only="second"), 1, tmp_path) == 0
    assert len(MEASURED) == 6
    assert (tmp_path / "store" / "first" / "results.parquet").exists()  # not chosen: kept


@pytest.mark.parametrize("fmt", ["md", "csv", "json"])
def test_formats_keep_stdout_for_the_tables(tmp_path: Path, capsys: Any, fmt: str) -> None:
    assert engine.command(synthetic(), options(format=fmt), 1, tmp_path) == 0
    cap = capsys.readouterr()
    assert "synthetic (quick)" in cap.err and "synthetic (quick)" not in cap.out
    if fmt == "json":
        tables = [json.loads(line) for line in cap.out.splitlines() if line.strip()]
        assert [t["table"] for t in tables] == ["first", "second"]
        assert tables[0]["rows"][0]["x"] == 0.05 and tables[0]["rows"][0]["nan"] is None
    elif fmt == "csv":
        assert cap.out.startswith("# first: The first experiment\nx,runs,y,y_ci,y_n,")
    else:
        assert "## The first experiment" in cap.out and "| x | runs | y [units] |" in cap.out


def test_the_findings_then_the_stall_warning_end_the_output_and_the_report(tmp_path: Path, capsys: Any) -> None:
    def grows(res: findings.Results) -> findings.Verdict:
        d = findings.compare(res, "second", "y", {"x": 3.0}, {"x": 1.0})
        return findings.verdict(d.sign > 0, d.sign < 0, d.text())

    stated = [findings.Finding("S1", "strong", "y grows with x.", "y at x 3 − at x 1, paired, decided above 0",
                               ("second",), grows)]
    study = dataclasses.replace(synthetic(), findings=stated)
    assert engine.command(study, options(), 1, tmp_path) == 0
    out = capsys.readouterr().out
    warning = "warning: 2 run(s) ended with stalled flows"  # x = 3, seeds 1 and 2
    assert out.index("The second, sharing two levels") < out.index(findings.TITLE) < out.index(warning)
    assert out.index("S1") > out.index(findings.TITLE) and "holds" in out[out.index(findings.TITLE):]
    assert "second (x 3.0, seed 1): 1" in out[out.index(warning):]
    report = (tmp_path / "report.md").read_text()
    assert "- The study's stated findings: 1 of 1 hold (judged at the end of this report)." in report
    assert report.index("## The second") < report.index(f"## {findings.TITLE}") < report.index("## Warning")
    assert report.rstrip().splitlines()[-1].startswith(warning)


def test_off_a_terminal_a_progress_line_per_experiment(tmp_path: Path, capsys: Any) -> None:
    assert engine.command(synthetic(), options(quiet=False), 1, tmp_path) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("synthetic: first done, 6 runs (") and "elapsed)" in err[0]
    assert err[1].startswith("synthetic: second done, 6 runs (8 of 8 simulations")


def test_labels_that_merge_cases_or_print_alike_are_refused() -> None:
    def merged(quick: bool, reps: int) -> list[Run]:
        return [Run({"x": 1}, {"x": 1}, 1), Run({"x": 1}, {"x": 2}, 2)]

    def alike(quick: bool, reps: int) -> list[Run]:
        return [Run({"x": 1}, {"x": 1}, 1), Run({"x": "1"}, {"x": 2}, 1)]

    for runs, message in ((merged, "the row (x 1) holds runs of different scenarios (seeds 1 and 2)"),
                          (alike, "x levels 1 and '1' both print as '1'")):
        study = Study("s", "S", "d", [Experiment("e", "E", runs, ("x",), ("y",), lines_figure("x", None, ("y",), {}))],
                      measure, {})
        with pytest.raises(plan.PlanError, match=message.replace("(", r"\(").replace(")", r"\)")):
            plan.plan(study, study.experiments, "quick", 1)


# --------------------------------------------------------------------------- --set


def sets_plan(study: Study, names: str, *sets: str) -> plan.StudyPlan:
    chosen = [study.by_name()[n] for n in names.split(",")]
    return plan.plan(study, chosen, "quick", 2, list(sets))


def test_set_changes_every_case_and_their_identity() -> None:
    before = sets_plan(rlc_tcp.STUDY, "in-order")
    after = sets_plan(rlc_tcp.STUDY, "in-order", "radio.dch.fading.mean=0.05", "tcp.rwnd=32kB")
    for r in after.experiments[0].runs:
        assert r.doc["radio"]["dch"]["fading"]["mean"] == 0.05 and r.doc["tcp"]["rwnd"] == "32kB"
    assert not set(before.simulations()) & set(after.simulations())


def test_set_under_a_bearer_section_goes_to_that_bearer_s_cases() -> None:
    p = sets_plan(wcdma.STUDY, "table", "radio.dch.loss.burst=5.0", "radio.rlc.status.prohibit=300ms")
    for r in p.experiments[0].runs:
        radio = r.doc["radio"]
        assert radio["rlc"]["status"]["prohibit"] == "300ms"
        assert (radio["dch"]["loss"]["burst"] == 5.0) if radio["bearer"] == "dch" else "dch" not in radio


@pytest.mark.parametrize("names, item, message", [
    ("status-prohibit", "radio.rlc.status.prohibit=200ms", "experiment status-prohibit varies what it sets"),
    ("in-order", "radio.hsdpa.share=0.5", "applies to no case of experiment in-order (a hsdpa key; its cases are dch)"),
    ("in-order", "tcp.rwnd=fast", "--set tcp.rwnd=fast: experiment in-order (in-order delivery on): tcp.rwnd"),
    ("in-order", "nonsense", "--set 'nonsense': expected key.path=value"),
])
def test_a_set_that_does_not_apply_is_an_error_naming_the_experiment(names: str, item: str, message: str) -> None:
    with pytest.raises(plan.PlanError) as err:
        sets_plan(rlc_tcp.STUDY, names, item)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_set_the_wired_cases_refuse_names_them(tmp_path: Path, capsys: Any) -> None:
    assert main(["reproduce", "hsdsch-buffer-mgmt", "--quick", "--quiet", "--only", "wired", "--set",
                 "radio.rlc.window=64", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "experiment wired (scheme DT, buffer [packets] 2)" in err and "--only" in err


# --------------------------------------------------------------------------- a real study: kill -9, resume, Ray

SUBSET = ["--only", "buffer-tcp,status-prohibit,in-order"]


def reproduce(out: Path, *extra: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "cellaqm", "reproduce", "umts-rlc-tcp", "--quick", *SUBSET, "--out", str(out), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: Any) -> Path:
    out = tmp_path_factory.mktemp("rlc-whole")
    proc = reproduce(out, "--jobs", "2", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out


def same_report(a: Path, b: Path) -> None:
    """The reports agree but for the timing line; every table is the same file."""
    def text(p: Path) -> list[str]:
        return [line for line in (p / "report.md").read_text().splitlines() if not line.startswith("- How long:")]

    assert text(a) == text(b)
    for f in sorted(a.glob("*.csv")):
        assert f.read_bytes() == (b / f.name).read_bytes(), f.name


def row_files(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in (out / "store").glob("*/runs/*.parquet")}


def test_kill_9_midway_then_resume_repeats_no_run_and_gives_the_same_report(tmp_path: Path,
                                                                            uninterrupted: Path) -> None:
    cmd = [sys.executable, "-m", "cellaqm", "reproduce", "umts-rlc-tcp", "--quick", *SUBSET, "--out", str(tmp_path),
           "--jobs", "1", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(row_files(tmp_path)) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = row_files(tmp_path)
    total = sum(1 for _ in (uninterrupted / "store").glob("*/runs/*.parquet"))
    assert 4 <= len(before) < total, "killed midway"
    resumed = reproduce(tmp_path, "--jobs", "1", "--resume", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    after = row_files(tmp_path)
    assert len(after) == total and all(after[k] == v for k, v in before.items())  # no stored run written again
    assert "already; " in resumed.stdout
    same_report(uninterrupted, tmp_path)


def test_the_same_study_on_ray_gives_the_same_tables(tmp_path: Path, uninterrupted: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (make build installs it when pip can)")
    proc = reproduce(tmp_path, "--backend", "ray", "--jobs", "2", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "on Ray" in proc.stdout
    same_report(uninterrupted, tmp_path)


def test_a_study_s_rows_are_read_back_by_cellaqm_table(uninterrupted: Path, capsys: Any) -> None:
    store = uninterrupted / "store" / "buffer-tcp"
    df = Store(store).load()
    assert len(df) == 12 and set(df["TCP"].cat.categories) == {"reno", "reno+ts", "sack"}
    assert main(["table", str(store), "--metric", "goodput_kbps", "--rows", "RLC buffer [SDUs]", "--cols", "TCP"]) == 0
    text = capsys.readouterr().out
    rows = {(r["RLC buffer [SDUs]"], r["TCP"]): float(r["goodput_kbps"])
            for r in csv.DictReader((uninterrupted / "buffer-tcp.csv").open())}
    assert f"{rows[('80', 'reno')]:.0f}" in text.replace(",", "")
    assert main(["table", str(uninterrupted), "--metric", "goodput_kbps"]) == 2
    err = capsys.readouterr().err
    assert "a study's output" in err and "store/buffer-tcp" in err


def test_a_shared_simulation_has_a_row_in_each_experiment_store(uninterrupted: Path) -> None:
    status = {p.stem for p in (uninterrupted / "store" / "status-prohibit" / "runs").glob("*.parquet")}
    in_order = {p.stem for p in (uninterrupted / "store" / "in-order" / "runs").glob("*.parquet")}
    assert len(status & in_order) == 2  # status prohibit 300 ms = in-order delivery on (the reference), 2 seeds
    assert "20 runs (18 simulations: 2 runs shared between experiments)" in (uninterrupted / "report.md").read_text()


def test_a_run_with_several_users_keeps_their_rows(tmp_path: Path, capsys: Any) -> None:
    """The HS-DSCH system's 60 users: per-user rows beside each run's row, read by cellaqm plot's CDF."""
    assert main(["reproduce", "hsdsch-buffer-mgmt", "--quick", "--quiet", "--only", "long-rr-0.4", "--reps", "1",
                 "--out", str(tmp_path)]) == 0
    store = Store(tmp_path / "store" / "long-rr-0.4")
    df = store.load()
    users = store.users(df["run_id"])
    assert len(users) == 3 and all(len(u) == 60 and "goodput_bps" in u.columns for u in users.values())
    assert main(["plot", str(store.root), "--kind", "cdf", "--metric", "user_goodput_bps", "--hue", "scheme",
                 "--out", str(tmp_path / "users.png")]) == 0
    assert (tmp_path / "users.png").stat().st_size > 1000
