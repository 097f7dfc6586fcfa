"""Cross-check cellaqm's LTE uplink radio against ns-3's LTE module (LENA), issue 21.

    python validation/lte_compare.py --lena-bin build/validation/lte_uplink

One UE, one bulk TCP upload for 60 s, the study's delays (20 ms transport +
40 ms Internet one way), TCP with SACK, MSS 1460 B, receive window 2097 kB,
a 1.25 MB UE buffer with drop-tail, no HARQ errors (validation/alignment.md,
"LTE uplink", lists every setting on both sides). For each LENA case
(`CASES`) the LENA program runs once; the uplink transport block it grants the
UE every TTI at steady state (its traces) sets cellaqm's radio rate,
TBS × 8 bit / 1 ms (the "same bandwidth"); cellaqm then runs the same upload
in-process, timed as the mean of repeated calls over at least
TIMING_SPAN_S (its first call is kept as the cold time). Targets: goodput within
GOODPUT_TOL of LENA's, cellaqm at least agreement.SPEED_TARGET times faster.

Raw records go to validation/results/lte.json; `render` gives the section of
docs/validation.md that validation/compare.py includes (`--render-only`
re-renders the page).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import agreement  # noqa: E402
from tcp_alignment import MSS, ns3_tcp  # noqa: E402

#: Where the records are kept (compare.py renders them into docs/validation.md).
RESULTS = HERE / "results" / "lte.json"
#: The issue's targets: goodput within 10% of LENA's, ≥ 100× LENA's speed (agreement.SPEED_TARGET).
GOODPUT_TOL = 0.10
#: cellaqm is called again and again for at least this long; the mean call is its wall time.
TIMING_SPAN_S = 2.0
TIMING_MIN_CALLS = 3

DURATION_S = 60
S1U_DELAY_MS = 20  # eNodeB ↔ core transport (the study's 20 ms)
INTERNET_DELAY_MS = 40  # core ↔ server (the study's 40 ms)
IW = 2
RWND = 2_097_000
UE_BUFFER = 1_250_000
PRBS = 25

#: LENA cases: RLC AM (the study's bearer for TCP) and UM (no STATUS PDUs; see the discussion).
CASES = ("am", "um")


def lena_args(rlc: str) -> list[str]:
    return [
        f"--rlc={rlc}",
        "--scheduler=pf",
        f"--prbs={PRBS}",
        f"--rlc_buffer={UE_BUFFER}",
        f"--s1u_delay_ms={S1U_DELAY_MS}",
        f"--internet_delay_ms={INTERNET_DELAY_MS}",
        f"--rwnd={RWND}",
        f"--mss={MSS}",
        f"--iw={IW}",
        "--sack=true",
        f"--duration={DURATION_S}",
    ]


def run_lena(binary: Path, rlc: str) -> dict[str, Any]:
    out = subprocess.run([str(binary), *lena_args(rlc)], check=True, capture_output=True, text=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def radio_rate_bps(lena: dict[str, Any]) -> int:
    """LENA's steady-state uplink radio rate: its transport block every 1 ms TTI."""
    return int(lena["ul"]["tb_bytes"]) * 8 * 1000


def data_tti_share(lena: dict[str, Any]) -> float:
    """The share of LENA's steady-state grants whose block carried data (the others: a STATUS PDU only)."""
    ul = lena["ul"]
    return float(ul["data_pdus"]) / float(ul["steady_grants"])


def scenario(rate_bps: int) -> dict[str, Any]:
    """cellaqm's side: the study's LTE uplink settings with LENA's radio rate (alignment.md, LTE table)."""
    return {
        "name": "lena-validation",
        "duration": f"{DURATION_S}s",
        "seed": 1,
        "tcp": ns3_tcp("reno", True, IW, RWND),
        "traffic": {"model": "upload", "files": 1, "size": "1GB"},
        "core": {"delay": f"{S1U_DELAY_MS + INTERNET_DELAY_MS}ms"},
        "radio": {
            "bearer": "lte_uplink",
            "uplink_buffer": f"{UE_BUFFER}B",
            "uplink_queue": {"scheme": "tail_drop"},
            "lte": {"rate": f"{rate_bps}bps", "scheduler": "proportional_fair", "harq": {"bler": 0}},
        },
    }


def timed_run(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """cellaqm on `spec`, called again and again for at least TIMING_SPAN_S: its first call's
    summary, its timing (mean wall and CPU seconds per call, the calls, the first call's wall
    as the cold time) and its result. Every call must give the same results."""
    import cellaqm

    def call() -> tuple[float, float, Any]:
        t0, c0 = time.perf_counter(), time.process_time()
        res = cellaqm.run(spec)
        return time.perf_counter() - t0, time.process_time() - c0, res

    def results(s: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in s.items() if k not in ("wall_s", "sim_seconds_per_wall_second", "events_per_second")}

    cold, _, res = call()
    first = dict(res.summary)
    walls: list[float] = []
    cpus: list[float] = []
    while len(walls) < TIMING_MIN_CALLS or sum(walls) < TIMING_SPAN_S:
        wall, cpu, s = call()
        walls.append(wall)
        cpus.append(cpu)
        if results(dict(s.summary)) != results(first):
            raise RuntimeError(f"{spec['name']}: repeated cellaqm runs differ")
    timing = {"wall_s": sum(walls) / len(walls), "cpu_s": sum(cpus) / len(cpus), "timed_calls": len(walls),
              "cold_wall_s": cold}
    return first, timing, res


def run_cellaqm(rate_bps: int) -> dict[str, Any]:
    """One upload in cellaqm, timed as the module doc says; every call must give the same results."""
    first, timing, _ = timed_run(scenario(rate_bps))
    lte = first["lte"]
    return {
        "rate_bps": rate_bps,
        "goodput_bps": first["goodput_bps"],
        "delay_mean_ms": first["delay_up_ms"]["mean"],
        "delay_p95_ms": first["delay_up_ms"]["p95"],
        "rtos": first["rtos"],
        "fast_retransmits": first["fast_retransmits"],
        "ue_drops": sum(first["uplink"]["drops"].values()),
        "grants": lte["ue"]["grants"],
        "harq_retransmissions": lte["harq"]["retransmissions"],
        **timing,
    }


def run_all(binary: Path) -> dict[str, Any]:
    started = time.perf_counter()
    cases = []
    for rlc in CASES:
        lena = run_lena(binary, rlc)
        rate = radio_rate_bps(lena)
        ours = run_cellaqm(rate)
        case: dict[str, Any] = {"rlc": rlc, "lena": lena, "cellaqm": ours}
        if rlc == "am":
            # Diagnostic, not the target: the radio rate LENA's AM data actually got (see discussion).
            case["cellaqm_data_ttis"] = run_cellaqm(round(rate * data_tti_share(lena)))
        cases.append(case)
        print(
            f"RLC {rlc.upper()}: TBS {lena['ul']['tb_bytes']} B (MCS {lena['ul']['mcs']}), goodput "
            f"{ours['goodput_bps'] / 1e6:.3f}/{lena['goodput_bps'] / 1e6:.3f} Mb/s, mean delay "
            f"{ours['delay_mean_ms']:.0f}/{lena['delay_ms']['mean']:.0f} ms, wall "
            f"{ours['wall_s']:.3f}/{lena['wall_s']:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    return {"duration_s": DURATION_S, "elapsed_s": time.perf_counter() - started, "cases": cases}


def verdict(ours: float, ref: float, tol: float) -> str:
    rel = agreement.rel_diff(ours, ref)
    return agreement.fmt_pct(rel) + ("" if rel is not None and abs(rel) <= tol else " ✗")


def render(data: dict[str, Any]) -> str:
    """The LTE section of docs/validation.md."""
    lines = [
        "## LTE uplink against ns-3 LENA",
        "",
        f"One UE, one bulk upload, {data['duration_s']} s, `make validate-lte` "
        f"({data['elapsed_s']:.0f} s on this machine; alignment: the LTE table above). "
        "Each cell: cellaqm / LENA (relative difference). ✗: outside the target "
        f"(goodput ±{GOODPUT_TOL:.0%}, speed-up ≥ {agreement.SPEED_TARGET:.0f}×).",
        "",
        "| LENA RLC | TBS / TTI (MCS) | radio rate | goodput (Mb/s) | mean delay (ms) | p95 delay (ms) "
        "| RTOs | fast retx | UE buffer drops | HARQ retx | wall (s) | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in data["cases"]:
        lena, ul = case["lena"], case["lena"]["ul"]
        rows = [("", case["cellaqm"])]
        if "cellaqm_data_ttis" in case:
            rows.append((f" at its data TTIs ({data_tti_share(lena):.1%})", case["cellaqm_data_ttis"]))
        for label, ours in rows:
            speed = lena["wall_s"] / ours["wall_s"]
            lines.append(
                f"| {case['rlc'].upper()}{label} | {ul['tb_bytes']} B ({ul['mcs']}) "
                f"| {agreement.fmt_rate(ours['rate_bps'])}b/s "
                f"| {ours['goodput_bps'] / 1e6:.3f} / {lena['goodput_bps'] / 1e6:.3f} "
                f"({verdict(ours['goodput_bps'], lena['goodput_bps'], GOODPUT_TOL)}) "
                f"| {ours['delay_mean_ms']:.0f} / {lena['delay_ms']['mean']:.0f} "
                f"({agreement.fmt_pct(agreement.rel_diff(ours['delay_mean_ms'], lena['delay_ms']['mean']))}) "
                f"| {ours['delay_p95_ms']:.0f} / {lena['delay_ms']['p95']:.0f} "
                f"| {ours['rtos']} / {lena['rtos']} | {ours['fast_retransmits']} / {lena['fast_retransmits']} "
                f"| {ours['ue_drops']} / {lena['rlc_drops']} | {ours['harq_retransmissions']} / {ul['harq_retx']} "
                f"| {ours['wall_s']:.3f} / {lena['wall_s']:.1f} "
                f"| {speed:.0f}×{'' if speed >= agreement.SPEED_TARGET else ' ✗'} |"
            )
    am = next((c for c in data["cases"] if c["rlc"] == "am"), None)
    if am is not None:
        ul = am["lena"]["ul"]
        lines += [
            "",
            f"LENA's traces at steady state (from 5 s, RLC AM): {ul['steady_grants']} grants in as many TTIs, "
            f"every one {ul['tb_bytes']} B at MCS {ul['mcs']} ({ul['tb_share']:.0%} of them), "
            f"{ul['receptions']} uplink blocks received, {ul['errors']} in error, {ul['harq_retx']} HARQ "
            f"retransmissions; of the UE's blocks {ul['data_pdus']} carried data and {ul['status_pdus']} only a "
            "2-byte RLC STATUS PDU.",
        ]
    discussion = HERE / "lte_discussion.md"
    if discussion.exists():
        lines += ["", discussion.read_text(encoding="utf-8").strip()]
    return "\n".join(lines)


def read_results(path: Path) -> Optional[dict[str, Any]]:
    """A comparison's stored results (None before its first run)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def load(path: Path = RESULTS) -> Optional[dict[str, Any]]:
    return read_results(path)


def run_and_store(description: str, program: str, results: Path, run_all: Callable[[Path], dict[str, Any]],
                  render: Callable[[dict[str, Any]], str], argv: Optional[list[str]]) -> int:
    """A LENA comparison's command line: run every case with the LENA `program`, store and print the table."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lena-bin", type=Path, default=ROOT / "build" / "validation" / program)
    p.add_argument("--results", type=Path, default=results)
    args = p.parse_args(argv)
    data = run_all(args.lena_bin)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(render(data))
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    return run_and_store(__doc__ or "", "lte_uplink", RESULTS, run_all, render, argv)


if __name__ == "__main__":
    sys.exit(main())
