"""``cellaqm reproduce hsdsch-buffer-mgmt --quick``: the HS-DSCH study's experiments in CI."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from cellaqm import hsdsch
from cellaqm.cli import main


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("hsdsch")
    assert main(["reproduce", "hsdsch-buffer-mgmt", "--quick", "--quiet", "--out", str(out)]) == 0
    return out


def test_quick_wired_scenario(quick):
    tmp_path = quick
    rows = list(csv.DictReader((tmp_path / "wired.csv").open()))
    by = {(r["scheme"], r["buffer [packets]"]): r for r in rows}
    ref = by[("reference", "∞")]
    assert float(ref["drops"]) == 0 and float(ref["queue_ms"]) > 500
    # Every scheme's queue stays below the unlimited buffer's at a small size; with the
    # window never limiting, tail drop loses more as slow start overshoots a larger buffer.
    for scheme in ("DT", "DF", "RED", "PDPC"):
        assert float(by[(scheme, "6")]["queue_ms"]) < 0.5 * float(ref["queue_ms"]), scheme
    dt = [float(by[("DT", n)]["drops"]) for n in ("2", "6", "15", "40")]
    assert dt == sorted(dt) and dt[0] < dt[-1], dt
    # Drop-front and the AQMs lose fewer packets than tail drop at 15 packets.
    for scheme in ("DF", "RED", "PDPC"):
        assert float(by[(scheme, "15")]["drops"]) < float(by[("DT", "15")]["drops"]), scheme
    assert (tmp_path / "wired.png").stat().st_size > 5000


def test_quick_system_scenarios(quick):
    """Scenario 2 on the seven-cell system: goodput per cell, sessions, the study's statistics; scenario 3."""
    for exp in hsdsch.EXPERIMENTS:
        assert (quick / f"{exp.name}.csv").is_file() and (quick / f"{exp.name}.png").stat().st_size > 5000, exp.name
    rows = {(r["scheme"], r["buffer [packets]"]): r for r in csv.DictReader((quick / "long-rr-0.3.csv").open())}
    assert set(rows) == {(s, n) for s in ("DT", "DF", "RED", "PDPC") for n in ("4", "30")} | {("reference", "∞")}
    for r in rows.values():
        assert float(r["goodput_kbps"]) > 100 and float(r["sessions_served"]) > 50
        assert float(r["sessions_offered"]) >= float(r["sessions_served"]) + float(r["sessions_lost"])
        assert 0 < float(r["fairness"]) <= 1 and 1 <= float(r["users_tti"]) <= 3
    # A user's RNC queue stays within its buffer; DT 4 loses packets in slow start, so its
    # transfers take longer than with the buffer that never drops.
    assert float(rows[("DT", "4")]["queue_per_user"]) < 4 < float(rows[("DT", "30")]["queue_per_user"]) < 30
    assert float(rows[("DT", "4")]["transfer_s"]) > float(rows[("reference", "∞")]["transfer_s"])
    report = (quick / "report.md").read_text()
    assert report.count("ANOVA of system goodput per cell") == 8
    assert "Paired t-tests against the reference buffer (Bonferroni)" in report
    single = list(csv.DictReader((quick / "single-user.csv").open()))
    assert {r["path"] for r in single} == {"(a) 25 ms", "(b) 75 ms", "(c) 25 ms, 1% loss"}
    assert {r["scheme"] for r in single} == {"DT", "DF", "RED", "PDPC"}
    # A longer path takes longer.
    by = {(r["path"], r["scheme"], r["buffer [packets]"]): float(r["transfer_median_s"]) for r in single}
    assert by[("(b) 75 ms", "DT", "100")] > by[("(a) 25 ms", "DT", "100")]


def test_quick_findings_table(quick):
    """The 29 findings end the report, each with a verdict; RED's drop curve agrees with eq. (1) even quick."""
    rows = list(csv.DictReader((quick / "findings.csv").open()))
    assert [r["id"] for r in rows] == [f"H{i}" for i in range(1, 30)]
    assert {r["verdict"] for r in rows} <= {"holds", "fails", "inconclusive"}
    assert next(r for r in rows if r["id"] == "H27")["verdict"] == "holds"
    assert "The study's stated findings, judged on this run" in (quick / "report.md").read_text()


def test_the_reference_runs_only_where_the_study_compares_with_it():
    """The never-dropping reference: at 0.4 and 0.3 s (both schedulers) and RR's highest load (paired t-tests);
    not at max-SIR's highest load nor with web sessions, where the study runs the ANOVA alone."""
    by = hsdsch.STUDY.by_name()
    for name in ("long-rr-0.4", "long-rr-0.3", "long-rr-0.2", "long-sir-0.4", "long-sir-0.3"):
        assert any(r.labels["scheme"] == "reference" for r in by[name].runs(True, 2)), name
    for name in ("long-sir-0.2", "web-rr-0.0175", "web-rr-0.015", "web-sir-0.0175", "web-sir-0.015"):
        runs = by[name].runs(True, 2)
        assert len(runs) == 16 and all(r.labels["scheme"] != "reference" for r in runs), name


def test_red_curve_by_hand():
    # ns-2's count rule at p_b = 0.05: no drop for counts 1..19, then 0.05/(2 − 0.05 c) for c = 20..39:
    # drops come 20–40 arrivals apart, 1/0.0339 on average; p_b = 1 drops every arrival.
    assert abs(hsdsch.wait_rule_fraction(0.05) - 0.0339) < 1e-4
    assert hsdsch.wait_rule_fraction(1.0) == 1.0 and hsdsch.wait_rule_fraction(0.0) == 0.0
    assert hsdsch.red_p_b(10, 5, 15, 0.1) == 0.05 and hsdsch.red_p_b(4, 5, 15, 0.1) == 0.0
    assert abs(hsdsch.red_p_b(22.5, 5, 15, 0.1) - 0.55) < 1e-12  # gentle: 0.1 + 0.9 × 7.5/15
    assert hsdsch.red_p_b(30, 5, 15, 0.1) == 1.0
    assert hsdsch.jain([1.0, 1.0, 1.0]) == 1.0 and abs(hsdsch.jain([1.0, 0.0]) - 0.5) < 1e-12


def test_quick_load_sweep(quick):
    """The load sweep: the offered loads, every case at each, and the capacity terms under the table."""
    rows = list(csv.DictReader((quick / "load-sweep.csv").open()))
    assert [int(r[hsdsch.OFFERED]) for r in rows] == [1429] * 4 + [5714] * 4  # 250 kB × 8 / wait / 7
    assert {r["case"] for r in rows} == {"DT 4", "DT 30", "DF 4", "reference"}
    low = {r["case"]: r for r in rows if r["mean wait"] == "0.2 s"}
    high = {r["case"]: r for r in rows if r["mean wait"] == "0.05 s"}
    # Below saturation the offered load is carried; past it sessions are lost.
    assert float(low["reference"]["sessions_lost"]) == 0 and float(low["reference"]["goodput_kbps"]) > 1000
    assert float(high["reference"]["sessions_lost"]) > 100
    assert "Capacity terms of the seven cells" in (quick / "report.md").read_text()


def test_capacity_terms_by_hand():
    # Two cells over 10 s (5000 TTIs): on air 40 % and 60 %; 1 Mb/s and 2 Mb/s of RLC bytes received;
    # format shares 1:1:1:1 of QPSK 1/4 … 16QAM 5/8; 100 + 200 blocks lost of 5000 TTIs on air.
    cells = [{"tti_utilisation": 0.4, "air_bps": 1e6, "mcs_use": [1, 1, 0, 0], "blocks_lost": 100,
              "users_per_tti": 1.0, "handovers_in": 10, "sir_db": {"samples": 5, "p5": -4.0, "p50": 2.0, "p95": 9.0}},
             {"tti_utilisation": 0.6, "air_bps": 2e6, "mcs_use": [0, 0, 1, 1], "blocks_lost": 200,
              "users_per_tti": 2.0, "handovers_in": 30, "sir_db": {"samples": 5, "p5": -2.0, "p50": 4.0, "p95": 10.0}}]
    t = hsdsch.capacity_terms(cells, 10.0)
    assert t["busy"] == 0.5
    assert abs(t["air_on_kbps"] - 3000.0) < 1e-9  # 3 Mb/s received over one cell's worth of on-air time
    assert abs(t["format_mbps"] - (1.44 + 2.88 + 4.32 + 7.2) / 4) < 1e-12
    assert [t[f"mcs{i}"] for i in range(4)] == [0.25] * 4
    assert abs(t["bler"] - 300 / 5000) < 1e-12 and t["users_tti"] == 1.5 and t["handovers_s"] == 2.0
    assert (t["sir_p5"], t["sir_p50"], t["sir_p95"]) == (-3.0, 3.0, 9.5)


def test_the_study_s_schemes_are_the_spec_s():
    assert hsdsch.queue("red", 5) == ({"scheme": "red", "thresholds": {"min": 5, "max": 20}, "max_p": 0.1,
                                       "gentle": True, "w_q": 1.0, "mean_packet": "1500B", "drop": "ns2_front",
                                       "ns2": True}, 40)
    assert hsdsch.queue("pdpc", 5) == ({"scheme": "pdpc", "thresholds": {"min": 6, "max": 20}, "counter": 10,
                                        "drop": "front"}, None)
    assert hsdsch.queue("dt", 4) == ({"scheme": "tail_drop"}, 4)


def test_the_documented_page_exists():
    root = Path(__file__).resolve().parents[1]
    assert (root / hsdsch.DOC).is_file()


def test_every_finding_is_judged_by_the_rule_the_docs_state():
    """docs/hsdsch.md lists the study's 29 findings with the rules hsdsch.FINDINGS judges them by."""
    doc = (Path(__file__).resolve().parents[1] / hsdsch.DOC).read_text(encoding="utf-8")
    assert [f.id for f in hsdsch.FINDINGS] == [f"H{i}" for i in range(1, 30)]
    for f in hsdsch.FINDINGS:
        assert f"| {f.id} | {f.strength} | {f.statement} | {f.rule} |" in doc, f.id
        assert f.judge is not None and all(e in {x.name for x in hsdsch.EXPERIMENTS} for e in f.needs), f.id


def test_ns2_27_tcp_profile_is_the_study_s_and_its_scenario_files():
    """docs/scenario.md's ns-2.27 [tcp] block is hsdsch.TCP, and the study's scenario files use it."""
    import re
    import tomllib

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "scenario.md").read_text(encoding="utf-8")
    match = re.search(r"### ns-2\.27 TCP as the HS-DSCH study ran it.*?```toml\n(.*?)```", doc, re.S)
    assert match, "docs/scenario.md shows the ns-2.27 [tcp] block"
    assert tomllib.loads(match.group(1))["tcp"] == hsdsch.TCP
    for name in ("long-rr", "web-sir"):
        scenario = tomllib.loads((root / "scenarios" / "hsdsch" / f"{name}.toml").read_text(encoding="utf-8"))
        assert scenario["tcp"] == hsdsch.TCP, name
        assert scenario["radio"]["buffer_holds"] == "until_fully_sent", name
