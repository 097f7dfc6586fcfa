"""``cellaqm reproduce lte-uplink-raqm --quick``: every chapter-7 experiment of the LTE uplink study in CI."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from cellaqm import lte_uplink
from cellaqm.cli import main
from study_csv import by, rows


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("lte")
    assert main(["reproduce", "lte-uplink-raqm", "--quick", "--quiet", "--out", str(out)]) == 0
    return out


def test_every_experiment_writes_its_table_and_figure(quick):
    for exp in lte_uplink.EXPERIMENTS:
        assert rows(quick, exp.name), exp.name
        assert (quick / f"{exp.name}.png").stat().st_size > 5000, exp.name
    report = (quick / "report.md").read_text()
    assert all(f"\n## {exp.title}\n" in report for exp in lte_uplink.EXPERIMENTS)
    assert lte_uplink.DOC in report


def test_the_delay_schemes_cut_the_delay_of_a_full_buffer(quick):
    """Table 7.5's point: at 3 Mb/s the unlimited buffer holds seconds; every AQM keeps the mean well below."""
    fixed = rows(quick, "schemes-fixed")
    ref = by(fixed, bandwidth="3Mbps fixed", scheme="unlimited, no AQM", **{"BSR table": "extended"})
    assert float(ref["scaled"]) == 1.0 and float(ref["delay_mean_ms"]) > 2000
    for scheme in ("R-AQM", "T-AQM", "PDCP discard"):
        r = by(fixed, bandwidth="3Mbps fixed", scheme=scheme, **{"BSR table": "extended"})
        assert float(r["delay_mean_ms"]) < 0.2 * float(ref["delay_mean_ms"]), scheme
        assert float(r["scaled"]) > 0.85, scheme


def test_harq_errors_worsen_the_delay_estimate(quick):
    """Fig. 7.1: the estimator reads bytes delivered in sequence; HARQ errors delay them and the error grows."""
    est = rows(quick, "estimator")
    err = [float(by(est, **{"HARQ BLER": b})["error_abs_ms"]) for b in ("0.0", "0.5")]
    assert err[1] > err[0], err


def test_the_speeds_differ_in_the_realistic_network(quick):
    real = rows(quick, "realistic")
    assert {r["bandwidth"] for r in real} == {"realistic, 0.83 m/s", "realistic, 30 m/s"}
    assert all(float(r["throughput_mbps"]) > 0.5 for r in real)


def test_the_legacy_bsr_table_hides_the_backlog_at_high_rates(quick):
    """With the Rel-8 table every backlog above 150 kB reads as 150 kB; at 30 Mb/s R-AQM's 0.2 s threshold
    (750 kB) is then never reached and it drops nothing that the extended table's R-AQM would not: its mean
    delay is at least the extended table's."""
    fixed = rows(quick, "schemes-fixed")
    delay = {t: float(by(fixed, bandwidth="30Mbps fixed", scheme="R-AQM", **{"BSR table": t})["delay_mean_ms"])
             for t in lte_uplink.BSR_TABLES}
    assert delay["legacy"] >= delay["extended"], delay


def test_every_finding_is_judged_and_reported(quick):
    """The 31 conclusions end the report, each with a verdict; --quick leaves some levels out (not run)."""
    judged = list(csv.DictReader((quick / "findings.csv").open()))
    assert [r["id"] for r in judged] == [f"C{i}" for i in range(1, 32)]
    assert {r["verdict"] for r in judged} <= {"holds", "fails", "inconclusive", "not expressible", "not run"}
    assert any(r["verdict"] != "not run" for r in judged)
    report = (quick / "report.md").read_text()
    assert "## The study's stated findings, judged on this run" in report
    assert all(f"| {r['id']} |" in report for r in judged)


def test_the_earlier_timer_times_out_at_the_end_of_slow_start(quick):
    """slow-start-rto: the earlier timer (per-RTT samples, RFC 6298 RTO) times out at the end of slow start."""
    ss = rows(quick, "slow-start-rto")
    assert all(float(by(ss, bandwidth=b, TCP="earlier timer")["rtos"]) >= 1 for b in ("50Mbps fixed", "10Mbps fixed"))


def test_the_summary_counts_the_timeouts_f_rto_undid():
    """HARQ at 50 % block errors delays blocks past the RTO: the profile's F-RTO finds some of those
    timeouts spurious and undoes them; the summary and the flow rows count them (none without F-RTO)."""
    from cellaqm import run

    def case(tcp=None):
        doc = lte_uplink.scenario(lte_uplink.fixed(5e6), "dff", lte_uplink.files(1, 5), bler=0.5, buffer="375kB",
                                  tcp=tcp)
        return run(doc, seed=1)

    res = case()
    s = res.summary
    assert 1 <= s["rtos_undone"] <= s["rtos"], s
    assert res.flows["rtos_undone"].sum() == s["rtos_undone"]
    assert case({"spurious_rto": "none"}).summary["rtos_undone"] == 0


def test_unknown_experiment_is_one_line(tmp_path, capsys):
    assert main(["reproduce", "lte-uplink-raqm", "--only", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--only: unknown experiment 'nope'" in err, err


def test_only_picks_experiments(tmp_path):
    assert main(["reproduce", "lte-uplink-raqm", "--quick", "--quiet", "--only", "pdcp-trace",
                 "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.csv", "pdcp-trace.csv", "pdcp-trace.png", "report.md",
                                                          "store"]


def test_the_documented_page_exists():
    root = Path(__file__).resolve().parents[1]
    assert (root / lte_uplink.DOC).is_file()
    assert "reproduce lte-uplink-raqm" in (root / lte_uplink.DOC).read_text()
