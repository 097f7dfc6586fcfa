"""The Ray backend gives the same result table as the local backend (local Ray instance, 2 CPUs)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import SCENARIO_TOML

import cellaqm
from cellaqm.store import WALL_COLUMNS
from cellaqm.table import render, table_cells

SWEEP = """\
base = "base.toml"
replications = 3
seed = 11
packets = true

[set]
duration = "3s"

[factors]
"bottleneck.buffer" = ["10kB", "50kB"]
"tcp.recovery" = ["newreno", "sack"]
"""


def _ray_or_skip():
    try:
        import ray
    except ImportError:
        pytest.skip("Ray is not installed (pip install 'cellaqm[ray]'); the Ray backend is untested here")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # noqa: BLE001 - any start-up failure means: cannot test here
        pytest.skip(f"a local Ray instance cannot start on this machine: {type(exc).__name__}: {exc}")
    return ray


def test_ray_and_local_backends_give_identical_tables(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(SCENARIO_TOML, encoding="utf-8")
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    local = cellaqm.sweep(sweep, out=tmp_path / "local", jobs=2)
    ray = _ray_or_skip()
    try:
        remote = cellaqm.sweep(sweep, out=tmp_path / "ray", backend="ray", jobs=2)
    finally:
        ray.shutdown()
    drop = [c for c in (*WALL_COLUMNS, "version") if c in local.columns]
    pd.testing.assert_frame_equal(local.drop(columns=drop), remote.drop(columns=drop))
    for metric in ("goodput_bps", "delay_ms_p95", "rtos"):
        a = render(table_cells(local, metric, vs="newreno"), "csv")
        b = render(table_cells(remote, metric, vs="newreno"), "csv")
        assert a == b
    # Packet detail files came back from the Ray workers too.
    assert len(list((tmp_path / "ray" / "detail").glob("*.packets.parquet"))) == len(local)
