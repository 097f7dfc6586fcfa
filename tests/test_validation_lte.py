"""The LENA cross-check of the LTE uplink (validation/lte_compare.py, issue 21).

The 60-s comparison itself runs under `make validate-lte`, not here. These
tests check cellaqm's side of it always, and LENA's side with a short run
only when the LENA program has been built (`make validate-lte` builds it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

import lte_compare  # noqa: E402

LENA_BIN = ROOT / "build" / "validation" / "lte_uplink"
needs_lena = pytest.mark.skipif(
    not LENA_BIN.exists(), reason=f"the LENA program is not built ({LENA_BIN}; `make validate-lte` builds it)"
)


def lena_record(**ul: Any) -> dict[str, Any]:
    return {"ul": {"tb_bytes": 2292, "steady_grants": 1000, "data_pdus": 900, **ul}}


def test_the_radio_rate_is_one_transport_block_per_millisecond() -> None:
    assert lte_compare.radio_rate_bps(lena_record()) == 18_336_000
    assert lte_compare.data_tti_share(lena_record()) == pytest.approx(0.9)


def test_cellaqm_accepts_the_scenario_and_a_saturated_ue_gets_every_tti() -> None:
    import cellaqm

    spec = lte_compare.scenario(18_336_000)
    spec["duration"] = "10s"
    s = cellaqm.run(spec).summary
    lte = s["lte"]
    assert lte["harq"]["retransmissions"] == 0
    # Once slow start has filled the UE buffer (about 2.2 s) the UE is granted in every TTI.
    assert lte["ttis_with_grants"] >= 0.75 * lte["ttis"]
    # The bytes granted are the radio rate's, less the TTIs before the connection's first data.
    assert lte["ue"]["granted_bytes"] == pytest.approx(2292 * lte["ue"]["grants"], rel=0.01)


def test_the_page_section_flags_a_goodput_outside_the_target() -> None:
    ours = {"rate_bps": 18_336_000, "goodput_bps": 17.4e6, "delay_mean_ms": 431.0, "delay_p95_ms": 450.0,
            "rtos": 0, "fast_retransmits": 1, "ue_drops": 415, "harq_retransmissions": 0, "wall_s": 0.2}
    lena = {"goodput_bps": 15.7e6, "delay_ms": {"mean": 480.0, "p95": 500.0}, "rtos": 0, "fast_retransmits": 1,
            "rlc_drops": 431, "wall_s": 40.0,
            "ul": {"tb_bytes": 2292, "mcs": 28, "harq_retx": 0, "steady_grants": 55000, "tb_share": 1.0,
                   "receptions": 59101, "errors": 0, "data_pdus": 49500, "status_pdus": 5500}}
    page = lte_compare.render({"duration_s": 60, "elapsed_s": 100.0, "cases": [
        {"rlc": "am", "lena": lena, "cellaqm": ours, "cellaqm_data_ttis": {**ours, "goodput_bps": 15.72e6}}]})
    am, diag = [line for line in page.splitlines() if line.startswith("| AM")]
    assert "+10.8% ✗" in am and "200×" in am
    assert "at its data TTIs (90.0%)" in diag and "✗" not in diag


@needs_lena
@pytest.mark.parametrize("rlc", lte_compare.CASES)
def test_lena_grants_one_constant_block_every_tti_without_harq(rlc: str) -> None:
    import json
    import subprocess

    args = [arg for arg in lte_compare.lena_args(rlc) if not arg.startswith("--duration")]
    out = subprocess.run([str(LENA_BIN), *args, "--duration=3", "--start_s=0.1", "--steady_after_s=2.3"],
                         check=True, capture_output=True, text=True)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    ul = d["ul"]
    # Once the slow-start overshoot has filled the UE buffer (about 2.2 s after the start) a grant
    # (nearly) every TTI.
    assert (ul["tb_bytes"], ul["mcs"], ul["tb_share"], ul["tb_sizes"]) == (2292, 28, 1.0, 1)
    assert ul["steady_tti_share"] >= 0.9
    assert ul["errors"] == 0 and ul["harq_retx"] == 0
    if rlc == "um":
        assert ul["status_pdus"] == 0
    else:
        # RLC AM answers the downlink's polls with a STATUS PDU, at most one per t-StatusProhibit (10 ms).
        assert 0 < ul["status_pdus"] <= ul["steady_grants"] / 10 + 1
