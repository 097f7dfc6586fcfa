"""The UMTS RLC-TCP study's reference scenario and its signalling counters (umts-rlc-tcp.md)."""

from __future__ import annotations

from pathlib import Path

import cellaqm

REFERENCE = Path(__file__).resolve().parents[1] / "scenarios" / "rlc-tcp" / "reference.toml"


def test_reference_scenario_downloads_its_file_with_signalling_counters():
    s = cellaqm.run(str(REFERENCE), sets=["duration=120s"]).summary
    r = s["radio"]
    assert s["downloads"]["completed"] == 1
    # 2 MB over 384 kb/s with 10% frame errors: below 0.9 x 384 kb/s, well above half of it.
    assert 190e3 < s["downloads"]["mean_goodput_bps"] < 0.9 * 384e3
    assert r["statuses_per_100_pdus"] == 100 * r["statuses"] / r["data_pdus_received"]
    assert r["down_slots"] == 120 * 100 * 12  # 120 s of 10 ms TTIs x 12 PDUs
    assert r["frame_utilisation"] == r["down_pdus"] / r["down_slots"]
    # Whole frames are lost: the lost PDUs are about 10% of those sent.
    assert 0.05 < r["down_pdus_lost"] / r["down_pdus"] < 0.2


def test_hsdpa_has_no_frame_utilisation():
    s = cellaqm.run({"name": "h", "duration": "5s", "traffic": {"model": "bulk"},
                     "radio": {"bearer": "hsdpa", "hsdpa": {}}}).summary
    assert s["radio"]["down_slots"] == 0 and s["radio"]["frame_utilisation"] is None
    assert s["radio"]["statuses_per_100_pdus"] > 0
