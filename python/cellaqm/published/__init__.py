"""Published results of the studies, for side-by-side output (``cellaqm reproduce``).

``wcdma-rnc-aqm-table1.csv``: Table I of Lakkakorpi & Cuny, WCNC 2006, as
printed (advertised window 30 packets, PDCP buffer 100 kB; "1 flow" = 250 kB
files, "4 flows" = web pages). :func:`compare` puts our reproduction next to it.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

#: The WCDMA study's Table I.
WCDMA_TABLE1 = Path(__file__).with_name("wcdma-rnc-aqm-table1.csv")

#: A change vs TD counts for the sign comparison when the study's is at least this large (%).
SIGN_THRESHOLD_PCT = 5.0


def wcdma_table1() -> list[dict[str, Any]]:
    """The published rows: ``case`` (as :class:`cellaqm.wcdma.Case` labels it), ``scheme``, ``p95_ms``, ``goodput_kbps``."""
    with WCDMA_TABLE1.open(encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        rows.append({"case": f"{r['bearer']}, {r['traffic']}", "scheme": r["scheme"],
                     "p95_ms": float(r["p95_ms"]), "goodput_kbps": float(r["goodput_kbps"])})
    return rows


def _change(value: float, td: float) -> float:
    return (value / td - 1.0) * 100.0 if td else math.nan


def compare(ours: list[dict[str, Any]], published: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Our table rows (``case``, ``scheme``, ``p95_ms``, ``goodput_kbps``, ``*_vs_td_pct``) next to the published ones.

    Returns one row per published (case, scheme) that we ran — each metric's
    published value, ours and their ratio, and both changes vs TD — and a
    summary: per metric how many of our values are within 10% and 25% of the
    published ones (and of the tail-drop figures alone), and how many changes
    vs TD agree in sign where the study's change is at least
    :data:`SIGN_THRESHOLD_PCT`.
    """
    mine = {(r["case"], r["scheme"]): r for r in ours}
    pub = {(r["case"], r["scheme"]): r for r in published}
    rows = []
    for (case, scheme), p in pub.items():
        o = mine.get((case, scheme))
        if o is None:
            continue
        row: dict[str, Any] = {"case": case, "scheme": scheme}
        for m in ("p95_ms", "goodput_kbps"):
            row[f"{m}_published"] = p[m]
            row[f"{m}_ours"] = o[m]
            row[f"{m}_ratio"] = o[m] / p[m] if p[m] else math.nan
            row[f"{m}_vs_td_published_pct"] = _change(p[m], pub[(case, "TD")][m])
            row[f"{m}_vs_td_ours_pct"] = o[f"{m}_vs_td_pct"]
        rows.append(row)
    summary: dict[str, Any] = {"cells": len(rows)}
    for m in ("p95_ms", "goodput_kbps"):
        ratios = [r[f"{m}_ratio"] for r in rows]
        td = [r[f"{m}_ratio"] for r in rows if r["scheme"] == "TD"]
        summary[m] = {
            "within_10pct": sum(abs(x - 1) <= 0.10 for x in ratios),
            "within_25pct": sum(abs(x - 1) <= 0.25 for x in ratios),
            "td_within_25pct": sum(abs(x - 1) <= 0.25 for x in td),
            "td": len(td),
        }
    signs = [(r[f"{m}_vs_td_published_pct"], r[f"{m}_vs_td_ours_pct"]) for r in rows if r["scheme"] != "TD"
             for m in ("p95_ms", "goodput_kbps")]
    counted = [(p, o) for p, o in signs if abs(p) >= SIGN_THRESHOLD_PCT and not math.isnan(o)]
    summary["signs_agree"] = sum((p > 0) == (o > 0) for p, o in counted)
    summary["signs_counted"] = len(counted)
    return rows, summary


def summary_line(summary: dict[str, Any]) -> str:
    """One line: closeness per metric, of the tail-drop figures, and the change signs."""
    p, g = summary["p95_ms"], summary["goodput_kbps"]
    n = summary["cells"]
    return (f"vs the published Table I ({n} cells): p95 within 10% {p['within_10pct']}/{n}, within 25% "
            f"{p['within_25pct']}/{n}; goodput within 10% {g['within_10pct']}/{n}, within 25% {g['within_25pct']}/{n}; "
            f"tail-drop figures within 25% {p['td_within_25pct'] + g['td_within_25pct']}/{p['td'] + g['td']}; "
            f"changes vs TD of the same sign {summary['signs_agree']}/{summary['signs_counted']} "
            f"(where the study's is {SIGN_THRESHOLD_PCT:g}% or more)")
