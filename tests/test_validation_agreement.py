"""The comparison code of the ns-3 validation (validation/agreement.py); no ns-3, no cellaqm run."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))

import agreement  # noqa: E402

ROW = {"rate_bps": 384_000, "queue": "red", "buffer_bytes": 30_000, "flows": 4, "sack": True, "duration_s": 300}


def rec(sim: str, seed: int, goodput: float, p95: float, wall: float, row: dict = ROW, **kw: float) -> dict:
    return {
        "row": dict(row),
        "seed": seed,
        "sim": sim,
        "goodput_bps": goodput,
        "delay_mean_ms": kw.get("mean", 100.0),
        "delay_p95_ms": p95,
        "drops": kw.get("drops", 10),
        "rtos": kw.get("rtos", 0),
        "wall_s": wall,
    }


def test_rel_diff() -> None:
    assert agreement.rel_diff(105.0, 100.0) == pytest.approx(0.05)
    assert agreement.rel_diff(90.0, 100.0) == pytest.approx(-0.10)
    assert agreement.rel_diff(0.0, 0.0) == 0.0
    assert agreement.rel_diff(3.0, 0.0) is None


def test_aggregate_averages_over_common_seeds_then_compares() -> None:
    records = [
        rec("cellaqm", 1, 100.0, 200.0, 0.01),
        rec("cellaqm", 2, 110.0, 220.0, 0.01),
        rec("ns3", 1, 100.0, 200.0, 1.0),
        rec("ns3", 2, 100.0, 200.0, 3.0),
        rec("ns3", 3, 500.0, 900.0, 5.0),  # seed 3 has no cellaqm run: left out
    ]
    [r] = agreement.aggregate(records)
    assert r.seeds == [1, 2]
    assert r.cellaqm["goodput_bps"] == pytest.approx(105.0)
    assert r.ns3["goodput_bps"] == pytest.approx(100.0)
    # The relative difference is of the seed means, not the mean of per-seed differences.
    assert r.rel["goodput_bps"] == pytest.approx(0.05)
    assert r.rel["delay_p95_ms"] == pytest.approx(0.05)
    assert r.speedup == pytest.approx(4.0 / 0.02)
    assert r.goodput_ok and r.p95_ok and r.speed_ok


def test_targets_and_rows_are_separate() -> None:
    other = dict(ROW, sack=False)
    records = [
        rec("cellaqm", 1, 106.0, 200.0, 0.1),
        rec("ns3", 1, 100.0, 200.0, 5.0),
        rec("cellaqm", 1, 100.0, 112.0, 0.01, row=other),
        rec("ns3", 1, 100.0, 100.0, 5.0, row=other),
    ]
    a, b = agreement.aggregate(records)
    assert a.row["sack"] is True and b.row["sack"] is False
    assert not a.goodput_ok and a.p95_ok and not a.speed_ok  # 6% off, 50× only
    assert b.goodput_ok and not b.p95_ok and b.speed_ok  # p95 12% off
    s = agreement.summarise([a, b])
    assert (s.rows, s.goodput_ok, s.p95_ok, s.speed_ok) == (2, 1, 1, 1)
    assert s.worst_goodput is not None and s.worst_goodput[0] == pytest.approx(0.06)
    assert s.worst_p95 is not None and s.worst_p95[1]["sack"] is False


def test_zero_reference_is_not_a_pass() -> None:
    [r] = agreement.aggregate([rec("cellaqm", 1, 5.0, 1.0, 0.1), rec("ns3", 1, 0.0, 1.0, 1.0)])
    assert r.rel["goodput_bps"] is None and not r.goodput_ok


def test_render_table_and_summary() -> None:
    results = agreement.aggregate(
        [rec("cellaqm", 1, 0.36e6, 700.0, 0.01, rtos=2), rec("ns3", 1, 0.34e6, 700.0, 1.0, rtos=20)]
    )
    table = agreement.render_table(results)
    lines = table.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("| rate | queue | buffer | flows | SACK | seeds | goodput Mb/s")
    assert "| 384k | red | 30 kB | 4 | on | 1 |" in lines[2]
    assert "0.36 / 0.34 (+5.9%) ✗" in lines[2]  # goodput outside ±5%
    assert "700 / 700 (+0.0%) |" in lines[2]
    assert "2 / 20" in lines[2] and "100×" in lines[2]
    summary = agreement.render_summary(agreement.summarise(results))
    assert "Goodput within 5% of ns-3: 0/1 rows" in summary
    assert "median 100×" in summary
    assert "cold" not in summary  # no first-call timings recorded


def test_cold_first_calls_are_reported_beside_the_speed_up() -> None:
    records = [
        {**rec("cellaqm", 1, 100.0, 200.0, 0.01), "cold_wall_s": 0.02},
        {**rec("cellaqm", 2, 100.0, 200.0, 0.01), "cold_wall_s": 0.03},
        rec("ns3", 1, 100.0, 200.0, 1.0),
        rec("ns3", 2, 100.0, 200.0, 1.5),
    ]
    [r] = agreement.aggregate(records)
    assert r.speedup == pytest.approx(2.5 / 0.02)
    assert r.cold_speedup == pytest.approx(2.5 / 0.05)
    assert r.speed_ok  # the target reads the warm calls
    assert "125× (50×)" in agreement.render_table([r])
    summary = agreement.render_summary(agreement.summarise([r]))
    assert "median 125×" in summary and "cold, reported, not the target's measure): median 50×, lowest 50×" in summary
    # A record without the first call's time leaves the cold speed-up out.
    [partial] = agreement.aggregate([rec("cellaqm", 1, 100.0, 200.0, 0.01), *records[1:]])
    assert math.isnan(partial.cold_speedup) and partial.speedup == pytest.approx(2.5 / 0.02)


def test_formatting_helpers() -> None:
    assert agreement.fmt_rate(64_000) == "64k"
    assert agreement.fmt_rate(3_600_000) == "3.6M"
    assert agreement.fmt_rate(50_000_000) == "50M"
    assert agreement.fmt_pct(None) == "n/a"
    assert agreement.fmt_pct(-0.123) == "-12.3%"
    assert agreement.fmt_num(math.nan) == "–"
