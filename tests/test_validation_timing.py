"""How validation/compare.py times cellaqm against an ns-3 run (no ns-3 needed)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def fake_ns3(walls: list[float], goodputs: list[float]) -> Callable[[Path, dict[str, Any], int], dict[str, Any]]:
    """A stand-in for `compare.run_ns3` whose successive runs take `walls` and deliver `goodputs`."""
    calls = iter(zip(walls, goodputs))

    def run(binary: Path, row: dict[str, Any], seed: int) -> dict[str, Any]:
        wall, goodput = next(calls)
        return {"goodput_bps": goodput, "wall_s": wall, "process_wall_s": wall + 0.02}

    return run


def test_a_short_ns3_run_is_repeated_with_cellaqm_until_the_minimum_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compare, "NS3_SPAN_MIN_S", 0.05)
    monkeypatch.setattr(compare, "run_ns3", fake_ns3([0.01, 0.02] * 10, [1.0] * 20))
    ns3, ours = compare.run_seed(Path("ns3"), ROW, 1)
    # 0.01 + 0.02 + 0.01 + 0.02 reaches 0.05 at the fourth run.
    assert ns3["runs"] == ours["runs"] == 4
    assert ns3["wall_s"] == pytest.approx(0.015)
    assert ns3["process_wall_s"] == pytest.approx(0.035)
    assert ours["timed_calls"] >= 4 * compare.TIMING_MIN_CALLS
    # cellaqm's calls cover the ns-3 runs' time in all.
    assert ours["wall_s"] * ours["timed_calls"] >= 0.06


def test_a_long_ns3_run_is_timed_once_and_repetitions_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compare, "run_ns3", fake_ns3([compare.NS3_SPAN_MIN_S], [1.0]))
    assert compare.run_seed(Path("ns3"), ROW, 1)[0]["runs"] == 1
    n = compare.NS3_MAX_RUNS
    monkeypatch.setattr(compare, "run_ns3", fake_ns3([0.0] * n, [1.0] * n))
    assert compare.run_seed(Path("ns3"), ROW, 1)[0]["runs"] == n


def test_repetitions_must_give_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    n = compare.NS3_MAX_RUNS
    monkeypatch.setattr(compare, "run_ns3", fake_ns3([0.0] * n, [1.0, 2.0] * n))
    with pytest.raises(RuntimeError, match="repeated runs differ"):
        compare.run_seed(Path("ns3"), ROW, 1)


def test_cubic_rows_name_cubic_in_both_simulators() -> None:
    """The CUBIC rows run cellaqm's `congestion = "cubic"` and ns-3's `--congestion=cubic`; the
    other rows keep Reno / NewReno (the key is absent from their rows and their records)."""
    rows = compare.cubic_rows(full=False)
    assert len(rows) == 2 and all(compare.is_cubic(r) for r in rows)
    assert compare.scenario(rows[0], 1)["tcp"]["congestion"] == "cubic"
    assert "--congestion=cubic" in compare.ns3_args(rows[0], 1)
    reno = compare.matrix(False, ["tail_drop"])
    assert [r for r in reno if compare.is_cubic(r)] == rows
    plain = [r for r in reno if not compare.is_cubic(r)]
    assert all("congestion" not in r for r in plain)
    assert compare.scenario(plain[0], 1)["tcp"]["congestion"] == "reno"
    assert "--congestion=newreno" in compare.ns3_args(plain[0], 1)


def test_the_many_flow_rows_join_the_fq_codel_matrix() -> None:
    """Issue 41: FQ-CoDel at 2 Mb/s with 32 flows and 66 packets, with and without SACK, in
    both simulators; they run with the FQ-CoDel queue and render in a table of their own."""
    rows = compare.many_flow_rows(full=False)
    assert [r["sack"] for r in rows] == [True, False] and all(compare.is_many_flows(r) for r in rows)
    spec = compare.scenario(rows[0], 1)
    assert spec["bottleneck"]["buffer_packets"] == 66 and spec["traffic"]["flows"] == 32
    assert {"--flows=32", "--rate=2000000bps", "--queue=fq_codel"} <= set(compare.ns3_args(rows[0], 1))
    assert [r for r in compare.matrix(False, ["fq_codel"]) if compare.is_many_flows(r)] == rows
    assert not [r for r in compare.matrix(False, ["codel"]) if compare.is_many_flows(r)]
