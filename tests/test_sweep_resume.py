"""A sweep killed with SIGKILL halfway, then resumed, ends with exactly the runs of an
uninterrupted sweep and identical metrics."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import cellaqm
from cellaqm.store import WALL_COLUMNS, Store

ROOT = Path(__file__).resolve().parents[1]

# Runs of some tens of milliseconds (8 flows through 100 Mb/s), so that a kill lands mid-sweep.
SWEEP = f"""\
base = "{ROOT / 'scenarios' / 'default.toml'}"
replications = 8
seed = 3

[set]
duration = "4s"
"bottleneck.rate" = "100Mbps"
"uplink.rate" = "1Gbps"
"core.rate" = "1Gbps"
"traffic.flows" = 8
"tcp.rwnd" = "4MB"
"bottleneck.loss" = 0.001

[factors]
"bottleneck.buffer" = ["300kB", "1MB"]
"tcp.recovery" = ["newreno", "sack"]
"""
TOTAL = 2 * 2 * 8


def _command() -> list[str]:
    script = Path(sys.executable).with_name("cellaqm")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cellaqm"]


def _finished(out: Path) -> int:
    runs = out / "runs"
    return len([p for p in runs.glob("*.parquet") if not p.name.startswith(".")]) if runs.is_dir() else 0


def _deterministic(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in (*WALL_COLUMNS, "version") if c in df.columns]).reset_index(drop=True)


def test_sigkill_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [*_command(), "sweep", str(sweep), "--out", str(out), "--jobs", "2", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    try:
        while _finished(out) < TOTAL // 4 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the sweep ended before it could be killed: make its runs longer"
    at_kill = _finished(out)
    assert 0 < at_kill < TOTAL, f"kill landed at {at_kill} of {TOTAL} runs, not halfway"

    # Every stored run file is complete (readable); leftovers are temporaries only.
    store = Store(out)
    partial = store.load()
    assert len(partial) == at_kill

    resumed = subprocess.run(
        [*_command(), "sweep", str(sweep), "--out", str(out), "--resume", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{TOTAL - at_kill} run now, {at_kill} already finished, 0 failed" in resumed.stderr
    assert not list((out / "runs").glob(".*.tmp")), "temporaries left after resume"

    full = cellaqm.sweep(sweep, out=tmp_path / "full", jobs=2)
    after = store.load()
    assert sorted(after["run_id"]) == sorted(full["run_id"])
    assert len(after) == TOTAL
    pd.testing.assert_frame_equal(_deterministic(after), _deterministic(full))
    # Runs stored before the kill kept their results untouched (same row as the uninterrupted sweep).
    merged = partial[["run_id", "goodput_bps", "delay_ms_p95"]].merge(
        full[["run_id", "goodput_bps", "delay_ms_p95"]], on="run_id", suffixes=("_k", "_f"))
    assert len(merged) == at_kill
    assert (merged["goodput_bps_k"] == merged["goodput_bps_f"]).all()


def test_resume_ignores_stray_temporaries_and_orphans(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP.replace("replications = 8", "replications = 1"), encoding="utf-8")
    out = tmp_path / "o"
    first = cellaqm.sweep(sweep, out=out, jobs=2)
    # A writer killed mid-write leaves only a temporary (never a partial result).
    (out / "runs" / ".deadbeef.parquet.x.tmp").write_bytes(b"PAR1 half a file")
    # An earlier plan's run stays on disk but is not part of this sweep's results.
    orphan = next((out / "runs").glob("*.parquet"))
    (out / "runs" / "0000000000000000.parquet").write_bytes(orphan.read_bytes())
    again = cellaqm.sweep(sweep, out=out, jobs=2, resume=True)
    assert len(again) == len(first) == 4
    assert not list((out / "runs").glob(".*.tmp"))
    with pytest.raises(Exception, match="already holds a sweep"):
        cellaqm.sweep(sweep, out=out)


def test_ctrl_c_stops_keeps_finished_runs_and_says_how_to_resume(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [*_command(), "sweep", str(sweep), "--out", str(out), "--jobs", "2", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 120
    while _finished(out) < TOTAL // 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, err
    stored = _finished(out)
    assert 0 < stored < TOTAL
    assert f"interrupted: {stored} of {TOTAL} runs finished and stored" in err
    assert "--resume" in err and err.rstrip().endswith("cellaqm: error: interrupted")
    assert len(Store(out).load()) == stored
