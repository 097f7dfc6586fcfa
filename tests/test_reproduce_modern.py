"""``cellaqm reproduce modern-aqm --quick``: the studies' schemes beside CoDel, PIE and FQ-CoDel on every bearer."""

from __future__ import annotations

import pytest

from cellaqm import modern_aqm
from cellaqm.cli import main
from study_csv import by, rows


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("modern")
    assert main(["reproduce", "modern-aqm", "--quick", "--quiet", "--out", str(out)]) == 0
    return out


def test_every_bearer_runs_every_scheme_with_both_traffics(quick):
    for exp in modern_aqm.EXPERIMENTS:
        table = rows(quick, exp.name)
        bearer = modern_aqm.BEARERS[exp.name]
        assert [(r["traffic"], r["scheme"]) for r in table] == [
            (t, modern_aqm.SCHEMES[s].label) for t in modern_aqm.TRAFFIC for s in bearer.schemes]
        assert all(0 < float(r["jain"]) <= 1 and float(r["goodput_kbps"]) > 0 for r in table), exp.name
        assert (quick / f"{exp.name}.png").stat().st_size > 5000, exp.name
    assert "R-AQM" in {r["scheme"] for r in rows(quick, "lte-ul")}
    assert "R-AQM" not in {r["scheme"] for r in rows(quick, "hsdpa")}
    report = (quick / "report.md").read_text()
    assert all(f"\n## {exp.title}\n" in report for exp in modern_aqm.EXPERIMENTS)
    assert modern_aqm.DOC in report


def test_codel_removes_the_standing_queue_of_a_bloated_buffer(quick):
    """A 1 MB tail-drop buffer on a 2 Mb/s (mean) measured UMTS link holds seconds of data under bulk TCP;
    CoDel's 5 ms target keeps the delay within a few hundred ms (RFC 8289's point) for a few percent goodput."""
    trace = rows(quick, "umts-trace")
    td, codel = by(trace, traffic="bulk", scheme="TD"), by(trace, traffic="bulk", scheme="CoDel")
    assert float(td["p95_ms"]) > 2000
    assert float(codel["p95_ms"]) < 0.2 * float(td["p95_ms"])
    assert float(codel["goodput_kbps"]) > 0.85 * float(td["goodput_kbps"])


def test_fq_codel_shares_the_flows_of_a_user_fairly(quick):
    """Two bulk flows of one user on the measured LTE link: FQ-CoDel's per-flow queues give each flow its share
    (Jain's index near 1), where one tail-drop queue lets one flow take more."""
    trace = rows(quick, "lte-trace")
    assert float(by(trace, traffic="bulk", scheme="FQ-CoDel")["jain"]) > 0.98
    assert float(by(trace, traffic="bulk", scheme="FQ-CoDel")["jain"]) > float(
        by(trace, traffic="bulk", scheme="TD")["jain"])


def test_codel_empties_the_lte_downlinks_bloated_pdcp_buffers(quick):
    """Four UEs' bulk flows fill their 1.25 MB tail-drop PDCP buffers at the eNodeB (over a second of delay at a
    quarter of a ~33 Mb/s cell each); CoDel, deciding when the RLC takes a packet, keeps the p95 below a fifth of
    TD's for at least 90% of its goodput."""
    dl = rows(quick, "lte-dl")
    td, codel = by(dl, traffic="bulk", scheme="TD"), by(dl, traffic="bulk", scheme="CoDel")
    assert float(td["p95_ms"]) > 800
    assert float(codel["p95_ms"]) < 0.2 * float(td["p95_ms"])
    assert float(codel["goodput_kbps"]) > 0.9 * float(td["goodput_kbps"])


def test_jain_index_by_hand():
    assert modern_aqm.jain([2.0, 2.0, 2.0]) == 1.0
    assert modern_aqm.jain([1.0, 0.0]) == 0.5  # (1)² / (2 · 1)
    assert modern_aqm.jain([1.0, 3.0]) == 16 / 20  # (4)² / (2 · 10)


def test_every_case_is_a_valid_scenario():
    from cellaqm import _core
    from cellaqm.api import json_text

    for b in modern_aqm.BEARERS.values():
        for kind in modern_aqm.TRAFFIC:
            for s in b.schemes:
                _core.validate(json_text(modern_aqm.scenario(b.name, kind, s, 10), "case"), "json")


def test_with_ecn_codel_marks_where_it_would_drop(quick):
    """RFC 3168 / RFC 8289 §5: with ECN-capable flows CoDel and FQ-CoDel mark the packet they would have dropped;
    on the DCH's bulk flows (all ECT, the buffer never full) nothing is dropped and their marks replace the drops."""
    dch = rows(quick, "dch384")
    for scheme in ("CoDel", "FQ-CoDel"):
        plain, ecn = by(dch, traffic="bulk", scheme=scheme), by(dch, traffic="bulk", scheme=f"{scheme} ECN")
        assert float(plain["dropped"]) > 0 and float(plain["marked"]) == 0, scheme
        assert float(ecn["dropped"]) == 0 and float(ecn["marked"]) > 0, scheme
