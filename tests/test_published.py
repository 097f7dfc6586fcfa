"""The WCDMA study's published Table I and our reproduction next to it."""

from __future__ import annotations

import math

from cellaqm import published, wcdma


def test_the_published_table_parses_and_every_row_is_a_case_of_ours():
    rows = published.wcdma_table1()
    assert len(rows) == 8 * 6
    ours = {(c.label, wcdma.SCHEME_LABELS[s]) for c in wcdma.HEADLINE for s in wcdma.SCHEMES}
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


def _table(values: dict[str, dict[str, tuple[float, float]]]) -> list[dict[str, float | str]]:
    return [r for case, v in values.items() for r in _ours(case, v)]


def test_the_stated_observations_are_computed_from_the_tables():
    """A worked example: two bearers, two rows each (and a 2.5 MB row of ours), every figure by hand."""
    from cellaqm.published import observations as obs

    schemes = ("TD", "RED", "ARED", "PDPC", "TTLRED1", "TTLRED2")

    def case(p95: tuple[float, ...], gp: tuple[float, ...]) -> dict[str, tuple[float, float]]:
        return dict(zip(schemes, zip(p95, gp)))

    study = _table({
        # Low rate: AQMs cut p95 by 0, 50, 50, 48, 50% (file) and 0, 50, 50, 50, 50% (web); goodput -10% each.
        "Lo, file 250 kB": case((1000, 1000, 500, 500, 520, 500), (100, 90, 90, 90, 90, 90)),
        "Lo, web": case((1000, 1000, 500, 500, 500, 500), (100, 90, 90, 90, 90, 90)),
        # High rate: nothing moves but RED's goodput (-10% on the file row).
        "Hi, file 250 kB": case((100,) * 6, (100, 90, 100, 100, 100, 100)),
        "Hi, web": case((100,) * 6, (100,) * 6),
    })
    pub = [{"case": r["case"], "scheme": r["scheme"], "p95_ms": r["p95_ms"], "goodput_kbps": r["goodput_kbps"]}
           for r in study]
    ours = _table({
        # Ours: TTLRED1 keeps the web row's delay (1000 vs 500: +100%), AQMs raise goodput on the low rate by 20%.
        "Lo, file 250 kB": case((1000, 500, 500, 500, 500, 500), (100, 120, 120, 120, 120, 120)),
        "Lo, web": case((1000, 500, 500, 500, 1000, 500), (100, 120, 120, 120, 120, 120)),
        "Hi, file 250 kB": case((100,) * 6, (100,) * 6),
        "Hi, web": case((100,) * 6, (100,) * 6),
        # RED loses 30% on the biggest file at the highest rate (and nothing on the 250 kB files).
        "Hi, file 2.5 MB": case((100,) * 6, (100, 70, 100, 100, 100, 100)),
    })
    compared, _ = published.compare(ours, pub)
    o = obs.observations(compared, ours, ["Lo", "Hi"])
    assert [x.statement for x in o] == list(obs.STATEMENTS)
    # 1. Study: mean AQM p95 change at Lo = (0-50-50-48-50 + 0-50-50-50-50)/10 = -39.8%, at Hi 0%; goodput -10%.
    assert o[0].study.holds and "Lo -39.8%, Hi +0.0%; goodput at Lo -10.0%" in o[0].study.figures
    # Ours: p95 (-50*5 - 50*4 + 0)/10 = -45%; goodput +20%: holds (|+20| < |-45|).
    assert o[0].ours.holds and "Lo -45.0%" in o[0].ours.figures and "goodput at Lo +20.0%" in o[0].ours.figures
    # 2. Study: goodput changes -10 x 10 at Lo, -10 (RED, Hi file) and 0 x 9 at Hi: mean -5.5%, none raises it.
    assert o[1].study.holds and "mean AQM goodput change -5.5%; 0/20 cells" in o[1].study.figures
    # Ours: +20 x 10 and 0 x 10: mean +10%, 10/20 cells raise it.
    assert not o[1].ours.holds and "+10.0%; 10/20 cells +5% or more (largest +20.0%" in o[1].ours.figures
    # 3. Study (250 kB at Hi): RED -10%, the lowest; ours uses the 2.5 MB row: RED -30%.
    assert o[2].study.holds and o[2].study.figures == "goodput vs TD on Hi, file 250 kB: RED -10.0% (lowest: RED -10.0%)"
    assert o[2].ours.holds and o[2].ours.figures.endswith("; Hi, file 2.5 MB: RED -30.0% (lowest: RED -30.0%)")
    # 4. Study: RED's mean p95 change (0+0+0+0)/4 = 0% (goodput (-10-10-10+0)/4 = -7.5%), every other AQM's
    # below it (TTLRED1 (-48-50)/4 = -24.5%).
    assert o[3].study.holds and "RED +0.0% / -7.5%" in o[3].study.figures and "TTLRED1 -24.5%" in o[3].study.figures
    # Ours: RED -25%, TTLRED1 (-50+0)/4 = -12.5%: RED cuts more than TTLRED1, so it does not hold.
    assert not o[3].ours.holds and "TTLRED1 -12.5%" in o[3].ours.figures
    # 5. The study's TTLRED1 never stands 5% above the others (520 vs 500 ms: 4%); ours does on the low-rate web row.
    assert not o[4].study.holds and o[4].study.figures.endswith("0/4 rows")
    assert o[4].ours.holds and "1/4 rows: Lo, web (1,000 vs 500 ms)" in o[4].ours.figures
    text = "\n".join(obs.lines(o))
    assert '1. "AQM\'s main benefit is lower delay at low rates"' in text and "ours:  does not hold" in text
    assert obs.markdown(o).count("\n") == 2 + 5
