"""Buffer occupancy weighted by time: `RunResult.occupancy`, the summary's time percentiles
(`bottleneck.queue_bytes`), the sweep's occupancy detail files and `cellaqm plot --kind cdf`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import SCENARIO_DICT

import cellaqm
from cellaqm import plot
from cellaqm.store import Store
from cellaqm.table import TableError

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


def test_cdf_is_the_fraction_of_time_at_or_below(sweep_out: Path) -> None:
    df = cellaqm.load_sweep(sweep_out)
    detail = Store(sweep_out).occupancy(df["run_id"])
    fig, notes = plot.cdf(df, "bottleneck_queue_bytes", hue="scheme", occupancy=detail)
    assert notes == []
    ax = fig.axes[0]
    assert ax.get_xlabel() == "bottleneck queue occupancy (kB)" and ax.get_ylabel() == "fraction of time"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"TD", "RED"}
    # TD, pooled over its two runs: the fraction of the time the buffer was empty, and all of it at the max.
    td = pd.concat([detail[r] for r in df[df["scheme"] == "TD"]["run_id"]])
    td = td[(td["buffer"] == "bottleneck") & (td["unit"] == "bytes")]
    xs, ys = lines["TD"].get_xdata(), lines["TD"].get_ydata()
    empty = td[td["value"] == 0]["time_s"].sum() / td["time_s"].sum()
    assert (xs[0], ys[0]) == (0, pytest.approx(empty)) and 0 < empty < 1
    assert xs[-1] == td["value"].max() / 1e3 and ys[-1] == pytest.approx(1.0)
    # RED keeps the queue shorter than tail drop most of the time.
    red = lines["RED"]
    at = lambda line, kb: line.get_ydata()[np.searchsorted(line.get_xdata(), kb, side="right") - 1]  # noqa: E731
    assert at(red, 30) > at(lines["TD"], 30)
    with pytest.raises(TableError, match="no occupancy detail"):
        plot.cdf(df, "bottleneck_queue_packets")


def test_cli_plots_occupancy_cdfs(sweep_out: Path, cli, tmp_path: Path) -> None:
    proc = cli("plot", sweep_out, "--kind", "cdf", "--metric", "bottleneck.queue_bytes", "--hue", "scheme",
               "--out", tmp_path / "occ")
    assert proc.returncode == 0, proc.stderr
    png, svg = tmp_path / "occ.png", tmp_path / "occ.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    text = svg.read_text()
    assert "bottleneck queue occupancy (kB)" in text and "fraction of time" in text
    proc = cli("plot", sweep_out, "--kind", "cdf", "--metric", "uplink_queue_packets")
    assert proc.returncode == 0, proc.stderr
    assert "uplink queue occupancy (packets)" in (sweep_out / "plots" / "cdf-uplink_queue_packets.svg").read_text()
    # The time percentiles are ordinary metrics of the rows: tables and bars.
    proc = cli("table", sweep_out, "--metric", "bottleneck.queue_bytes.p95", "--rows", "scheme", "--vs", "TD")
    assert proc.returncode == 0, proc.stderr
    assert "bottleneck queue p95 over time (kB)" in proc.stdout
    assert not math.isnan(cellaqm.load_sweep(sweep_out)["bottleneck_queue_bytes_p95"].mean())
