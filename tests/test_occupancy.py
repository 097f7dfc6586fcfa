"""Buffer occupancy weighted by time: `RunResult.occupancy`, the summary's time percentiles
(`bottleneck.queue_bytes`) and the sweep's occupancy detail files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import SCENARIO_DICT

import cellaqm
from cellaqm.store import Store

#: A sweep of two schemes on the shared test scenario, with detail.
SWEEP: dict[str, Any] = {
    "base": SCENARIO_DICT,
    "replications": 2,
    "packets": True,
    "set": {"duration": "20s"},
    "factors": {"scheme": {"path": "bottleneck.queue", "levels": {
        "TD": {"scheme": "tail_drop"},
        "RED": {"scheme": "red", "thresholds": {"min": "10kB", "max": "30kB"}},
    }}},
}


def time_quantile(part: pd.DataFrame, q: float) -> int:
    """The smallest backlog held at or below for a fraction ``q`` of the time."""
    cum = part["time_s"].cumsum().to_numpy()
    return int(part["value"].to_numpy()[np.searchsorted(cum, q * cum[-1] * (1 - 1e-12))])


def test_the_distribution_spans_the_run_and_gives_the_summary_percentiles() -> None:
    res = cellaqm.run(SCENARIO_DICT, seed=3)
    occ = res.occupancy
    assert list(occ.columns) == ["buffer", "unit", "value", "time_s"]
    # The bottleneck and the uplink both have a buffer limit: both are tracked.
    assert set(zip(occ["buffer"], occ["unit"])) == {
        (b, u) for b in ("bottleneck", "uplink") for u in ("bytes", "packets")}
    for (buffer, unit), part in occ.groupby(["buffer", "unit"]):
        link = res.summary[buffer]
        assert part["value"].is_monotonic_increasing and part["value"].is_unique
        assert part["time_s"].sum() == pytest.approx(res.summary["duration_s"], rel=1e-9)
        mean = (part["value"] * part["time_s"]).sum() / part["time_s"].sum()
        assert mean == pytest.approx(link[f"mean_queue_{unit}"], rel=1e-3)
        stats = link[f"queue_{unit}"]
        assert stats == {f"p{q}": time_quantile(part, q / 100) for q in (50, 90, 95, 99)} | {
            "max": int(part["value"].max())}
    assert res.summary["bottleneck"]["queue_bytes"]["p95"] > 10_000


def test_same_seed_same_distribution() -> None:
    a, b = cellaqm.run(SCENARIO_DICT, seed=5), cellaqm.run(SCENARIO_DICT, seed=5)
    pd.testing.assert_frame_equal(a.occupancy, b.occupancy)
    assert not a.occupancy.equals(cellaqm.run(SCENARIO_DICT, seed=6).occupancy)


def test_an_unmanaged_uplink_is_not_tracked(tmp_path: Path) -> None:
    doc = {**SCENARIO_DICT, "uplink": {"rate": "64kbps"}}
    res = cellaqm.run(doc)
    assert set(res.occupancy["buffer"]) == {"bottleneck"}
    assert set(res.summary["uplink"]["queue_bytes"].values()) == {None}
    res.to_dir(tmp_path)
    back = pd.read_csv(tmp_path / "occupancy.csv")
    assert back["time_s"].tolist() == pytest.approx(res.occupancy["time_s"].tolist())


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("occ") / "out"
    cellaqm.sweep(SWEEP, out=out, jobs=2)
    return out


def test_sweep_detail_holds_each_runs_distribution(sweep_out: Path) -> None:
    df = cellaqm.load_sweep(sweep_out)
    detail = Store(sweep_out).occupancy(df["run_id"])
    assert set(detail) == set(df["run_id"])
    row = df.iloc[-1]
    direct = cellaqm.run(json.loads(row["scenario_doc"]), seed=int(row["seed"]))
    pd.testing.assert_frame_equal(detail[row["run_id"]], direct.occupancy, check_dtype=False)
    assert row["bottleneck_queue_bytes_p95"] == direct.summary["bottleneck"]["queue_bytes"]["p95"]

