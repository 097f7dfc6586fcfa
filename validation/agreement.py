"""Comparison logic of the ns-3 validation: relative differences, averaging
over seeds, agreement checks and the Markdown table of docs/validation.md.

Pure Python (no cellaqm, no ns-3) so that `tests/test_validation_agreement.py`
checks it quickly inside `make test`.

A *record* is one run of one simulator::

    {"row": {...parameters without the seed...}, "seed": 3, "sim": "cellaqm" or "ns3",
     "goodput_bps": ..., "delay_mean_ms": ..., "delay_p95_ms": ..., "drops": ...,
     "rtos": ..., "wall_s": ...}

cellaqm's records may also carry ``cold_wall_s``: its first call after the
ns-3 process (``wall_s`` is then the mean of the calls after it, spread over a
span like ns-3's run; with ``runs`` > 1 the seed repeated the pair and both
times are means over the repetitions; validation/compare.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

#: The metrics compared on every row, in table order.
METRICS = ("goodput_bps", "delay_mean_ms", "delay_p95_ms", "drops", "rtos")

#: Agreement targets (issue 7): |relative difference| of the seed means.
GOODPUT_TOL = 0.05
P95_TOL = 0.10
#: Speed target: ns-3 wall time over cellaqm wall time.
SPEED_TARGET = 100.0


def rel_diff(ours: float, ref: float) -> Optional[float]:
    """(ours − ref) / ref; 0 when both are 0; None when only the reference is 0."""
    if ref == 0:
        return 0.0 if ours == 0 else None
    return (ours - ref) / ref


def row_key(row: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A hashable, order-independent key for a row's parameters."""
    return tuple(sorted(row.items()))


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else float("nan")


@dataclass
class RowResult:
    """One row of the matrix: both simulators' metrics averaged over the seeds both ran."""

    row: dict[str, Any]
    seeds: list[int]
    cellaqm: dict[str, float]
    ns3: dict[str, float]
    rel: dict[str, Optional[float]] = field(default_factory=dict)
    #: ns-3 wall time over cellaqm wall time (ratio of the seed sums).
    speedup: float = float("nan")
    #: The same over cellaqm's first call after each ns-3 process (NaN if not recorded).
    cold_speedup: float = float("nan")

    @property
    def goodput_ok(self) -> bool:
        r = self.rel.get("goodput_bps")
        return r is not None and abs(r) <= GOODPUT_TOL

    @property
    def p95_ok(self) -> bool:
        r = self.rel.get("delay_p95_ms")
        return r is not None and abs(r) <= P95_TOL

    @property
    def speed_ok(self) -> bool:
        return self.speedup >= SPEED_TARGET


def aggregate(records: Iterable[Mapping[str, Any]]) -> list[RowResult]:
    """Groups records by row, keeps the seeds both simulators ran, averages each metric
    over them per simulator and computes the relative differences (cellaqm vs ns-3).

    Rows keep the order in which they first appear.
    """
    by_row: dict[tuple, dict[str, dict[int, Mapping[str, Any]]]] = {}
    rows: dict[tuple, dict[str, Any]] = {}
    for rec in records:
        key = row_key(rec["row"])
        rows.setdefault(key, dict(rec["row"]))
        by_row.setdefault(key, {"cellaqm": {}, "ns3": {}})[rec["sim"]][int(rec["seed"])] = rec
    out = []
    for key, sims in by_row.items():
        seeds = sorted(set(sims["cellaqm"]) & set(sims["ns3"]))
        if not seeds:
            continue
        avg = {
            sim: {m: mean([float(sims[sim][s][m]) for s in seeds]) for m in (*METRICS, "wall_s")}
            for sim in ("cellaqm", "ns3")
        }
        res = RowResult(row=rows[key], seeds=seeds, cellaqm=avg["cellaqm"], ns3=avg["ns3"])
        res.rel = {m: rel_diff(res.cellaqm[m], res.ns3[m]) for m in METRICS}
        res.speedup = speedup(sims, seeds, "wall_s")
        res.cold_speedup = speedup(sims, seeds, "cold_wall_s")
        out.append(res)
    return out


def speedup(sims: Mapping[str, Mapping[int, Mapping[str, Any]]], seeds: Sequence[int], key: str) -> float:
    """ns-3's wall time over cellaqm's `key` time, summed over the seeds; NaN if a record lacks it."""
    if any(key not in sims["cellaqm"][s] for s in seeds):
        return float("nan")
    ours = math.fsum(float(sims["cellaqm"][s][key]) for s in seeds)
    ref = math.fsum(float(sims["ns3"][s]["wall_s"]) for s in seeds)
    return ref / ours if ours > 0 else float("inf")


@dataclass
class Summary:
    rows: int
    goodput_ok: int
    p95_ok: int
    speed_ok: int
    median_speedup: float
    min_speedup: float
    median_cold_speedup: float
    min_cold_speedup: float
    worst_goodput: Optional[tuple[float, dict[str, Any]]]
    worst_p95: Optional[tuple[float, dict[str, Any]]]


def summarise(results: Sequence[RowResult]) -> Summary:
    def worst(metric: str) -> Optional[tuple[float, dict[str, Any]]]:
        cands = [(abs(v), r.row) for r in results if (v := r.rel.get(metric)) is not None]
        return max(cands, key=lambda c: c[0]) if cands else None

    def median_and_min(values: Iterable[float]) -> tuple[float, float]:
        v = sorted(x for x in values if not math.isnan(x))
        return (v[len(v) // 2], v[0]) if v else (float("nan"), float("nan"))

    median_speedup, min_speedup = median_and_min(r.speedup for r in results)
    median_cold, min_cold = median_and_min(r.cold_speedup for r in results)
    return Summary(
        rows=len(results),
        goodput_ok=sum(r.goodput_ok for r in results),
        p95_ok=sum(r.p95_ok for r in results),
        speed_ok=sum(r.speed_ok for r in results),
        median_speedup=median_speedup,
        min_speedup=min_speedup,
        median_cold_speedup=median_cold,
        min_cold_speedup=min_cold,
        worst_goodput=worst("goodput_bps"),
        worst_p95=worst("delay_p95_ms"),
    )


# ---------------------------------------------------------------- rendering


def fmt_rate(bps: float) -> str:
    """64000 → '64k', 3.6e6 → '3.6M'."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.4g}{unit}"
    return f"{bps:.4g}"


def fmt_pct(r: Optional[float]) -> str:
    if r is None:
        return "n/a"
    return f"{r * 100:+.1f}%"


def fmt_num(x: float, digits: int = 3) -> str:
    if math.isnan(x):
        return "–"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def pair(ours: float, ref: float, rel: Optional[float], scale: float = 1.0, flag: str = "") -> str:
    return f"{fmt_num(ours / scale)} / {fmt_num(ref / scale)} ({fmt_pct(rel)}){flag}"


#: Columns describing a row (in the table, before the metrics), and how to show them.
ROW_COLUMNS = (
    ("rate_bps", "rate", fmt_rate),
    ("queue", "queue", str),
    ("buffer_bytes", "buffer", lambda b: f"{b / 1000:g} kB"),
    ("flows", "flows", str),
    ("sack", "SACK", lambda s: "on" if s else "off"),
)


def render_table(results: Sequence[RowResult]) -> str:
    """The side-by-side Markdown table: cellaqm / ns-3 (relative difference) per metric."""
    head = [label for _, label, _ in ROW_COLUMNS] + [
        "seeds",
        "goodput Mb/s",
        "mean delay ms",
        "p95 delay ms",
        "drops",
        "RTOs",
        "speed-up (cold)",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [show(r.row[k]) for k, _, show in ROW_COLUMNS]
        cells.append(str(len(r.seeds)))
        cells.append(
            pair(r.cellaqm["goodput_bps"], r.ns3["goodput_bps"], r.rel["goodput_bps"], 1e6, "" if r.goodput_ok else " ✗")
        )
        cells.append(pair(r.cellaqm["delay_mean_ms"], r.ns3["delay_mean_ms"], r.rel["delay_mean_ms"]))
        cells.append(
            pair(r.cellaqm["delay_p95_ms"], r.ns3["delay_p95_ms"], r.rel["delay_p95_ms"], 1.0, "" if r.p95_ok else " ✗")
        )
        cells.append(pair(r.cellaqm["drops"], r.ns3["drops"], r.rel["drops"]))
        cells.append(f"{fmt_num(r.cellaqm['rtos'])} / {fmt_num(r.ns3['rtos'])}")
        cold = "" if math.isnan(r.cold_speedup) else f" ({r.cold_speedup:.0f}×)"
        cells.append(f"{r.speedup:.0f}×" + ("" if r.speed_ok else " ✗") + cold)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_summary(s: Summary) -> str:
    def where(w: Optional[tuple[float, dict[str, Any]]]) -> str:
        if w is None:
            return "n/a"
        value, row = w
        desc = ", ".join(f"{label} {show(row[k])}" for k, label, show in ROW_COLUMNS if k in row)
        return f"{value * 100:.1f}% ({desc})"

    return "\n".join(
        [
            f"- Rows compared: {s.rows}.",
            f"- Goodput within {GOODPUT_TOL:.0%} of ns-3: {s.goodput_ok}/{s.rows} rows; "
            f"largest difference {where(s.worst_goodput)}.",
            f"- p95 delay within {P95_TOL:.0%} of ns-3: {s.p95_ok}/{s.rows} rows; "
            f"largest difference {where(s.worst_p95)}.",
            f"- Speed: cellaqm ≥ {SPEED_TARGET:.0f}× faster than ns-3 on {s.speed_ok}/{s.rows} rows; "
            f"median {s.median_speedup:.0f}×, lowest {s.min_speedup:.0f}×.",
        ]
        + (
            []
            if math.isnan(s.median_cold_speedup)
            else [
                f"- Speed of cellaqm's first call after each ns-3 process (cold, reported, not the "
                f"target's measure): median {s.median_cold_speedup:.0f}×, lowest {s.min_cold_speedup:.0f}×."
            ]
        )
    )
