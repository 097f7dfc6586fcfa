"""``cellaqm reproduce hsdsch-buffer-mgmt --quick``: the HS-DSCH study's experiments in CI."""

from __future__ import annotations

import csv
from pathlib import Path

from cellaqm import hsdsch
from cellaqm.cli import main


def test_quick_wired_scenario(tmp_path):
    assert main(["reproduce", "hsdsch-buffer-mgmt", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader((tmp_path / "wired.csv").open()))
    by = {(r["scheme"], r["buffer [packets]"]): r for r in rows}
    ref = by[("reference", "∞")]
    assert float(ref["drops"]) == 0 and float(ref["queue_ms"]) > 500
    # Every scheme's queue stays below the unlimited buffer's at a small size, and
    # with a buffer larger than the 44-packet window nothing is dropped.
    for scheme in ("DT", "DF", "RED", "PDPC"):
        assert float(by[(scheme, "6")]["queue_ms"]) < 0.5 * float(ref["queue_ms"]), scheme
        assert float(by[(scheme, "40")]["drops"]) == 0, scheme
    # Drop-front and the AQMs lose fewer packets than tail drop at 15 packets.
    for scheme in ("DF", "RED", "PDPC"):
        assert float(by[(scheme, "15")]["drops"]) < float(by[("DT", "15")]["drops"]), scheme
    assert (tmp_path / "wired.png").stat().st_size > 5000


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
