"""``cellaqm reproduce umts-dsch-rrm --quick``: the DSCH study's experiments in CI."""

from __future__ import annotations

import csv

import pytest

from cellaqm import dsch
from cellaqm.cli import main
from cellaqm.reproduce import STUDIES


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("dsch")
    assert main(["reproduce", "umts-dsch-rrm", "--quick", "--quiet", "--out", str(out)]) == 0
    return out


def test_quick_system_table(quick):
    rows = list(csv.DictReader((quick / "system.csv").open()))
    by = {(r["web users"], r["φ [%]"]): r for r in rows}
    assert set(by) == {("0", "no web"), ("400", "60"), ("400", "100"), ("600", "60"), ("600", "100")}
    for r in rows:
        for m in ("mean_eta", "p_eta_over_90", "dsch_acceptance", "code_acceptance", "power_acceptance",
                  "load_acceptance", "conversational_sdu_error", "web_sdu_error"):
            assert 0.0 <= float(r[m]) <= 1.5, (m, r[m])
    base = by[("0", "no web")]
    # No web users: nothing asks for the DSCH, and the conversational SDU error is the
    # model check's 1 − 0.99² = 2 % (within 1 %: one 15 s replication of a few thousand SDUs).
    assert float(base["dsch_acceptance"]) == 1.0 or float(base["web_sdu_error"]) == 0.0
    assert abs(float(base["conversational_sdu_error"]) - 0.0199) < 0.01
    # φ bounds the interactive load: at 100 % the cell carries more load than at 60 %, and
    # the conversational users' SDU errors rise with it (interference; the spec's behaviour).
    for load in ("400", "600"):
        low, high = by[(load, "60")], by[(load, "100")]
        assert float(high["mean_eta"]) > float(low["mean_eta"]) + 0.1, load
        assert float(high["conversational_sdu_error"]) > float(low["conversational_sdu_error"]), load
        assert float(low["mean_eta"]) <= 0.6 + 0.05 or float(low["load_acceptance"]) < 0.1, load
    assert (quick / "system.png").stat().st_size > 5000


def test_quick_tcp_table(quick):
    rows = list(csv.DictReader((quick / "tcp.csv").open()))
    assert {(r["TCP"], r["φ [%]"]) for r in rows} == {(a, p) for a in dsch.ARMS for p in ("60", "100")}
    for r in rows:
        assert 0.0 < float(r["goodput_kbps"]) < 256.0, r
        assert float(r["spurious_rtos"]) <= float(r["rtos"])
    assert (quick / "tcp.png").stat().st_size > 5000
    assert "umts-dsch-rrm" in (quick / "report.md").read_text()


def test_quick_eb_n0_sensitivity(quick):
    rows = list(csv.DictReader((quick / "eb-n0.csv").open()))
    assert {(r["conversational Eb/N0 [dB]"], r["φ [%]"]) for r in rows} == {
        (e, p) for e in ("5.0", "2.0") for p in ("60", "100")}
    # A lower target halves a call's share of the load factor: the cell carries less at φ = 60 %.
    by = {(r["conversational Eb/N0 [dB]"], r["φ [%]"]): r for r in rows}
    assert float(by[("2.0", "60")]["mean_eta"]) < float(by[("5.0", "60")]["mean_eta"])


def test_quick_trace_figure(quick):
    rows = list(csv.DictReader((quick / "trace.csv").open()))
    assert [r["φ [%]"] for r in rows] == ["90", "70"]
    assert (quick / "trace.png").stat().st_size > 5000


def test_listed_among_the_studies():
    assert "umts-dsch-rrm" in {s.name for s in STUDIES}
