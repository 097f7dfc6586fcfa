"""The LENA cross-check of the LTE downlink (validation/lte_downlink_compare.py, issue 41).

The 20-s comparison itself runs under `make validate-lte-downlink`, not here.
These tests check cellaqm's side of it and the page's rendering.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

import lte_downlink_compare as dl  # noqa: E402


def test_the_aligned_sinr_gives_lenas_block_on_cellaqms_bound() -> None:
    sinr = dl.aligned_sinr_db(4395)
    # 9 MHz × 0.6·log2(1 + SINR) = 4395 B × 8 bit / 1 ms.
    assert 9e6 * 0.6 * math.log2(1 + 10 ** (sinr / 10)) == pytest.approx(35_160_000)
    with pytest.raises(ValueError, match="peak efficiency"):
        dl.aligned_sinr_db(5000)


def test_lenas_data_blocks_leave_out_the_status_only_ones() -> None:
    lena = {"dl": {"bytes_per_tti": 4395.0, "data_pdus": 10_000, "status_pdus": 5000}}
    assert dl.data_bytes_per_tti(lena) == pytest.approx(2930.0)
    assert dl.radio_uplink_ms({"ack_delay_ms": {"p50": 24.9}}) == pytest.approx(4.9)


def test_ten_saturated_ues_share_the_cell_under_both_schedulers() -> None:
    import cellaqm

    for scheduler in dl.SCHEDULERS:
        spec = dl.scenario(10, scheduler, "am", dl.aligned_sinr_db(4395), 5.0)
        spec["duration"] = "5s"
        res = cellaqm.run(spec)
        rates = [float(g) for g in res.users["goodput_bps"]]
        assert dl.fairness(rates) > 0.95, (scheduler, rates)
        # The cell's blocks carry 35.16 Mb/s; after slow start and headers most of it is goodput.
        assert 0.8 * 35.16e6 < res.summary["goodput_bps"] < 35.16e6


def test_the_page_section_flags_a_goodput_outside_the_target() -> None:
    def ours(goodput: float) -> dict[str, Any]:
        return {"goodput_bps": goodput, "ue_goodput_bps": [goodput / 2] * 2, "delay_mean_ms": 60.0,
                "delay_p95_ms": 90.0, "rtos": 0, "fast_retransmits": 2, "drops": 300, "wall_s": 0.05,
                "cpu_s": 0.04}

    lena = {"goodput_bps": 28.0e6, "ue_goodput_bps": [14e6, 14e6], "delay_ms": {"mean": 60.0, "p95": 88.0},
            "rtos": 1, "fast_retransmits": 2, "rlc_drops": 380, "wall_s": 8.0, "cpu_s": 6.0,
            "dl": {"tb_bytes": 4395, "mcs": 28, "sinr_db": 46.5, "bytes_per_tti": 4395.0, "blocks": 15000,
                   "data_pdus": 13500, "status_pdus": 1500}}
    case = {"ues": 2, "scheduler": "rr", "rlc": "am", "sinr_db": 19.55, "uplink_ms": 4.9, "lena": lena,
            "cellaqm": ours(33.5e6), "data_sinr_db": 17.56, "cellaqm_data_blocks": ours(29.0e6)}
    page = dl.render({"duration_s": 20, "elapsed_s": 60.0, "cases": [case]})
    main, diag = [line for line in page.splitlines() if line.startswith("| 2, RR, AM")]
    assert "+19.6% ✗" in main and "150× (160×)" in main and "1500 of 15000" in main
    assert "at LENA's data blocks (3956 B/TTI, 17.56 dB)" in diag and "+3.6%" in diag and "✗" not in diag
