"""cellaqm's TCP as the ns-3 validation programs run it (validation/alignment.md), shared by
compare.py (the wired matrix) and lte_compare.py (the LENA cross-check)."""

from __future__ import annotations

from typing import Any

#: Payload and TCP/IPv4 header bytes of a full segment on both sides.
MSS = 1460
HEADER = 40


def ns3_tcp(congestion: str, sack: bool, iw: int, rwnd: int) -> dict[str, Any]:
    """cellaqm's ``[tcp]`` aligned with ns-3's TCP (validation/alignment.md): PRR, an ACK per
    segment, no timestamps, no limited transmit, 200 ms minimum RTO, RFC 6582 §4 timer restarts,
    an RTT sample per ACK."""
    return {
        "congestion": congestion,
        "recovery": "sack" if sack else "newreno",
        "recovery_window": "prr",
        "mss": f"{MSS}B",
        "header": f"{HEADER}B",
        "initial_window": iw,
        "rwnd": f"{rwnd}B",
        "delayed_ack": False,
        "limited_transmit": False,
        "timestamps": False,
        "rto_min": "200ms",
        "rto_initial": "1s",
        "rto_max": "60s",
        "ecn": False,
        "rto_restart": "impatient",
        "rtt_samples": "per_ack",
    }
