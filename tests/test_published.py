"""The WCDMA study's published Table I and our reproduction next to it."""

from __future__ import annotations

import math

from cellaqm import published, reproduce


def test_the_published_table_parses_and_every_row_is_a_case_of_ours():
    rows = published.wcdma_table1()
    assert len(rows) == 8 * 6
    ours = {(c.label, reproduce.SCHEME_LABELS[s]) for c in reproduce.HEADLINE for s in reproduce.SCHEMES}
    for r in rows:
        assert (r["case"], r["scheme"]) in ours, r
        assert r["p95_ms"] > 0 and r["goodput_kbps"] > 0
    assert {"case": "R99 64k, file 250 kB", "scheme": "TD", "p95_ms": 5793.0, "goodput_kbps": 60.0} in rows


def _ours(case: str, values: dict[str, tuple[float, float]]) -> list[dict[str, float | str]]:
    """Table rows for `case`: scheme → (p95, goodput), with their changes vs TD."""
    td = values["TD"]
    return [{"case": case, "scheme": s, "p95_ms": p, "goodput_kbps": g,
             "p95_ms_vs_td_pct": (p / td[0] - 1) * 100, "goodput_kbps_vs_td_pct": (g / td[1] - 1) * 100}
            for s, (p, g) in values.items()]


def test_compare_counts_closeness_and_change_signs():
    pub = [{"case": "A", "scheme": "TD", "p95_ms": 1000.0, "goodput_kbps": 100.0},
           {"case": "A", "scheme": "RED", "p95_ms": 800.0, "goodput_kbps": 110.0},
           {"case": "A", "scheme": "PDPC", "p95_ms": 980.0, "goodput_kbps": 90.0}]
    ours = _ours("A", {"TD": (1050.0, 70.0), "RED": (500.0, 65.0), "PDPC": (990.0, 80.0)})
    rows, s = published.compare(ours, pub)
    assert [r["scheme"] for r in rows] == ["TD", "RED", "PDPC"]
    assert math.isclose(rows[0]["p95_ms_ratio"], 1.05) and math.isclose(rows[1]["p95_ms_vs_td_published_pct"], -20.0)
    # p95: TD 1.05, RED 0.625, PDPC 1.01; goodput: TD 0.7, RED 0.59, PDPC 0.89.
    assert s["p95_ms"] == {"within_10pct": 2, "within_25pct": 2, "td_within_25pct": 1, "td": 1}
    assert s["goodput_kbps"] == {"within_10pct": 0, "within_25pct": 1, "td_within_25pct": 0, "td": 1}
    # Study changes of 5% or more: RED p95 -20% (ours -52%: agrees), RED goodput +10% (ours -7%: not),
    # PDPC goodput -10% (ours +14%: not); PDPC p95 -2% is not counted.
    assert (s["signs_agree"], s["signs_counted"]) == (1, 3)
    assert "changes vs TD of the same sign 1/3" in published.summary_line(s)
