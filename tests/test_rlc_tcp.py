"""The UMTS RLC-TCP study's reference scenario and its signalling counters (umts-rlc-tcp.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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


def _fig3(timestamps: bool, fer: float = 0.2) -> cellaqm.RunResult:
    """The study's Fig. 3 setting: 20% frame errors both ways (``fer``), bursty (f_d·T 0.01), Reno."""
    from cellaqm import rlc_tcp

    doc = rlc_tcp.scenario([rlc_tcp.fer(fer), rlc_tcp.setter("tcp.timestamps", timestamps),
                            rlc_tcp.setter("duration", "60s")])
    return cellaqm.run(doc, seed=3, trace=True)


@pytest.mark.parametrize("timestamps, fer", [(False, 0.2), (True, 0.1)])
def test_rtt_trace_follows_rfc_6298_from_its_own_samples(timestamps, fer):
    """Every row of the RTT trace: a new sample moves SRTT, RTTVAR and the RTO by RFC 6298
    (in integer nanoseconds, as the core computes; RTO = SRTT + max(G, 4·RTTVAR) with the
    reference's 10 ms clock granularity G, clamped to [200 ms, 60 s]); a row without a sample is
    a timeout's back-off: the RTO doubles (up to 60 s), SRTT stays. Without timestamps at 20%
    frame errors some timeouts back off; with timestamps (a sample per ACK) on the reference
    channel RTTVAR decays in a long good period until G is the larger term."""
    t = _fig3(timestamps, fer).trace["rtt"]
    t = t[t["dir"] == "down"]
    assert len(t) > 30
    ns = lambda s: round(s * 1e9)  # noqa: E731
    g = 10_000_000
    srtt = rttvar = None
    rto = 1_000_000_000  # RFC 6298 (2.1)
    backoffs = floored = 0
    for row in t.itertuples():
        if not np.isnan(row.sample_s):
            r = ns(row.sample_s)
            if srtt is None:
                srtt, rttvar = r, r // 2
            else:
                rttvar = (3 * rttvar + abs(srtt - r)) // 4
                srtt = (7 * srtt + r) // 8
            floored += 4 * rttvar < g
            rto = min(max(srtt + max(g, 4 * rttvar), 200_000_000), 60_000_000_000)
            assert (ns(row.srtt_s), ns(row.rttvar_s)) == (srtt, rttvar)
        else:
            rto = min(2 * rto, 60_000_000_000)
            backoffs += 1
        assert ns(row.rto_s) == rto, row
    assert backoffs > 0 or timestamps, "20% frame errors in bursts: some timeouts"
    assert (floored > 0) == timestamps, floored


def test_timestamps_sample_every_ack_without_one_per_round_trip():
    with_ts = _fig3(True).trace["rtt"]
    without = _fig3(False).trace["rtt"]
    count = lambda t: int(t[t["dir"] == "down"]["sample_s"].notna().sum())  # noqa: E731
    # A timed segment per round trip (Karn) against one sample per ACK: many times more.
    assert count(with_ts) > 5 * count(without) > 0


def test_radio_loss_trace_counts_the_lost_pdus():
    r = _fig3(False)
    losses, radio = r.trace["radio_losses"], r.summary["radio"]
    down = losses[losses["dir"] == "down"]
    assert int(down["pdus"].sum()) == radio["down_pdus_lost"] > 0
    # Frame errors: a TTI loses all the PDUs it carried, at most 12.
    assert down["pdus"].between(1, 12).all() and len(losses[losses["dir"] == "up"]) > 0
    assert losses["time_s"].is_monotonic_increasing


@pytest.mark.parametrize("setting, fragments", [
    ('radio.buffer_holds="until_done"', ["radio.buffer_holds:", '"until_acknowledged", "until_sent", "until_fully_sent"']),
    ('radio.rlc.status.missing_pdu="always"', ["radio.rlc.status.missing_pdu:", '"new_gap" or "while_gap"']),
    ('radio.dch.fading.errors="bit"', ["radio.dch.fading.errors:", '"frame" or "pdu"']),
    ('radio.rlc.status.epc="0ms"', ["radio.rlc.status.epc: must be positive"]),
])
def test_the_open_point_keys_refuse_a_bad_value_naming_the_key(cli, setting, fragments):
    from test_cli import assert_one_line_error

    assert_one_line_error(cli("run", REFERENCE, "--set", setting), *fragments)


def _reference(*changes) -> dict:
    from cellaqm import rlc_tcp

    return cellaqm.run(rlc_tcp.scenario([*changes, rlc_tcp.setter("duration", "90s")]), seed=2).summary


def test_until_sent_the_buffer_counts_only_what_rlc_has_not_taken():
    """The same 30-SDU drop-tail buffer: counting SDUs until RLC has them acknowledged, a fade
    (nothing acknowledged) fills it with what RLC carries and it overflows; counting the
    unsent ones only, it overflows far less and its mean occupancy is lower."""
    from cellaqm import rlc_tcp

    acked = _reference(rlc_tcp.setter("radio.buffer_packets", 30))
    sent = _reference(rlc_tcp.setter("radio.buffer_packets", 30), rlc_tcp.setter("radio.buffer_holds", "until_sent"))
    assert acked["drops"]["overflow"] > 3 * sent["drops"].get("overflow", 0)
    assert acked["bottleneck"]["mean_queue_packets"] > sent["bottleneck"]["mean_queue_packets"]
    assert acked["bottleneck"]["queue_packets"]["max"] == 30


def test_status_while_a_gap_persists_follows_the_prohibit_timer():
    """Missing-PDU detection on every PDU while a gap persists: the STATUS count falls as the
    prohibit timer grows; on new gaps only it hardly depends on it."""
    from cellaqm import rlc_tcp

    def statuses(trigger, prohibit):
        s = _reference(rlc_tcp.setter("radio.rlc.status.missing_pdu", trigger),
                       rlc_tcp.setter("radio.rlc.status.prohibit", prohibit))
        return s["radio"]["statuses"]

    assert statuses("while_gap", "0ms") > 3 * statuses("while_gap", "300ms")
    assert statuses("new_gap", "0ms") < 1.5 * statuses("new_gap", "300ms")
