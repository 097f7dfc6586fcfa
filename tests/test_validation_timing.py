"""How validation/compare.py times cellaqm against an ns-3 run (no ns-3 needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))

import compare  # noqa: E402

ROW = {"rate_bps": 64_000, "queue": "tail_drop", "buffer_bytes": 30_000, "flows": 1, "sack": True, "duration_s": 20}


def test_calls_fill_the_span_of_the_ns3_run_and_their_mean_is_the_wall_time() -> None:
    r = compare.run_cellaqm(ROW, 1, span_s=0.05)
    assert r["timed_calls"] >= compare.TIMING_MIN_CALLS
    # The calls after the first cover the span: their mean times their number reaches it.
    assert r["wall_s"] * r["timed_calls"] >= 0.05
    assert r["cold_wall_s"] > 0


def test_a_short_ns3_run_still_gets_the_minimum_number_of_calls() -> None:
    r = compare.run_cellaqm(ROW, 1, span_s=0.0)
    assert r["timed_calls"] == compare.TIMING_MIN_CALLS


def test_the_span_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compare, "TIMING_SPAN_MAX_S", 0.02)
    r = compare.run_cellaqm(ROW, 1, span_s=60.0)  # a minute-long ns-3 run is not matched
    assert r["wall_s"] * r["timed_calls"] < 0.05
