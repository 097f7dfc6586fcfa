"""The ns-3 program's arguments and cellaqm's scenario state the same TCP (validation/alignment.md; no ns-3 needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))

import compare  # noqa: E402


@pytest.mark.parametrize("sack", [True, False])
def test_limited_transmit_is_off_in_both_simulators(sack: bool) -> None:
    """ns-3's `LimitedTransmit` attribute acts only without SACK; with SACK its socket sends new
    data on duplicate ACKs as cwnd - pipe allows (RFC 6675 §5 (3)) unless the program's
    `--sack_limited_transmit=false` says otherwise (docs/validation.md §7)."""
    row = {**compare.MANY_FLOWS, "sack": sack, "duration_s": 1}
    assert compare.scenario(row, 1)["tcp"]["limited_transmit"] is False
    assert ("--sack_limited_transmit=false" in compare.ns3_args(row, 1)) == sack
