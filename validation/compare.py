"""Run the validation matrix in cellaqm and ns-3 and write docs/validation.md.

    python validation/compare.py --ns3-bin build/validation/wired_bottleneck [--full] [--seeds N]

Every row is one wired-bottleneck configuration (rate, queue discipline,
buffer, flows, SACK); it runs for several seeds in both simulators, one ns-3
process at a time. cellaqm runs in-process through its Python API, right after
the ns-3 process, called again and again over as much wall time as ns-3 took
(capped at TIMING_SPAN_MAX_S): the first call is timed as cold, the mean of the
others is the speed-up's time, and every call must give the same summary. A
seed whose ns-3 run is short repeats the pair (ns-3, then cellaqm) until ns-3
has run NS3_SPAN_MIN_S in all; every repetition must give the same results.
Raw per-run records go to validation/results/matrix.json (re-render the page
from them with --render-only); the comparison itself is validation/agreement.py.
The page also takes the LTE uplink's and downlink's cross-checks against ns-3
LENA from validation/results/lte.json and lte_downlink.json when they exist
(validation/lte_compare.py, `make validate-lte`; validation/lte_downlink_compare.py,
`make validate-lte-downlink`).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import agreement  # noqa: E402
import lte_compare  # noqa: E402
import lte_downlink_compare  # noqa: E402
from tcp_alignment import HEADER, MSS, ns3_tcp  # noqa: E402

# ---------------------------------------------------------------- the fixed part of every row
CORE_RATE = "100Mbps"
CORE_DELAY_MS = 40
BN_DELAY_MS = 10
IW = 3
RWND = 1_000_000
# RED (classic Floyd & Jacobson settings, stated in both simulators): thresholds
# at 1/6 and 1/2 of the buffer (gentle region up to the full buffer).
RED_MAX_P = 0.1
RED_WQ = 0.002
# CoDel (RFC 8289) and PIE (RFC 8033) defaults, stated in both simulators.
CODEL_TARGET_MS, CODEL_INTERVAL_MS = 5, 100
PIE_TARGET_MS, PIE_TUPDATE_MS, PIE_MAX_BURST_MS = 15, 15, 150
# FQ-CoDel (RFC 8290): Linux's and ns-3's 1024 queues and batch of 64; the quantum
# is ns-3's default, the device MTU (1500 B), stated in both simulators. ns-3
# limits FQ-CoDel in packets only, so its rows' buffer is buffer // 1500 packets.
FQ_FLOWS, FQ_QUANTUM, FQ_DROP_BATCH = 1024, MSS + HEADER, 64

RATES = [64_000, 384_000, 3_600_000, 50_000_000]
QUEUES = ["tail_drop", "red", "codel", "pie", "fq_codel"]
BUFFERS = [30_000, 100_000]
FLOWS = [1, 4]
SACK = [True, False]
#: CUBIC rows (RFC 9438; cellaqm `tcp.congestion = "cubic"`, ns-3 `TcpCubic` without HyStart): one
#: bulk flow, tail drop, SACK, at two BDPs (3.6 Mb/s: 45 kB, 50 Mb/s: 625 kB at the 100-ms base
#: RTT), each with a buffer below its BDP, so that the window's growth after a loss sets the goodput.
CUBIC_ROWS = [(3_600_000, 30_000), (50_000_000, 100_000)]
#: The many-flow row (issue 41): FQ-CoDel at 2 Mb/s with 32 bulk flows and a 100-kB buffer
#: (66 packets), where a flow's share is about five packets a second: with and without SACK.
MANY_FLOWS = {"rate_bps": 2_000_000, "queue": "fq_codel", "buffer_bytes": 100_000, "flows": 32}
#: Its simulated seconds (default, FULL=1).
MANY_FLOWS_DURATION_S = (300, 600)
#: Simulated seconds per rate: long enough for thousands of packets at the slowest
#: rate, short enough for ns-3 at the fastest (default, FULL=1).
DURATION_S = {64_000: (600, 1200), 384_000: (300, 600), 3_600_000: (120, 240), 50_000_000: (60, 120)}


def spacing_s(flows: int, seed: int) -> float:
    """Time between flow starts: 0 for one flow, else drawn per seed (same in both
    simulators) so that the seeds of multi-flow tail-drop rows differ."""
    if flows == 1:
        return 0.0
    return round(random.Random(seed).uniform(0.0, 0.1), 3)


def seeds_for(row: dict[str, Any], n: int) -> list[int]:
    """A single seed where neither simulator draws a random number (one flow, no
    random queue): both are deterministic, more seeds would repeat the same run."""
    deterministic = row["flows"] == 1 and row["queue"] in ("tail_drop", "codel", "fq_codel")
    return [1] if deterministic else list(range(1, n + 1))


def is_cubic(row: dict[str, Any]) -> bool:
    """A CUBIC row (the others, without the key, run Reno / ns-3's NewReno)."""
    return row.get("congestion") == "cubic"


def is_many_flows(row: dict[str, Any]) -> bool:
    """The many-flow row (its flow count is none of the matrix's)."""
    return row["flows"] == MANY_FLOWS["flows"]


def red_thresholds(buffer: int) -> tuple[int, int]:
    return buffer // 6, buffer // 2


def buffer_packets(buffer: int) -> int:
    """The packet limit standing for a byte buffer (FQ-CoDel rows): whole 1500-B packets."""
    return buffer // (MSS + HEADER)


def cellaqm_queue(queue: str, buffer: int) -> dict[str, Any]:
    if queue == "tail_drop":
        return {"scheme": "tail_drop"}
    if queue == "red":
        lo, hi = red_thresholds(buffer)
        return {
            "scheme": "red",
            "thresholds": {"min": f"{lo}B", "max": f"{hi}B"},
            "max_p": RED_MAX_P,
            "w_q": RED_WQ,
            "gentle": True,
            "mean_packet": f"{MSS + HEADER}B",
        }
    if queue == "codel":
        return {
            "scheme": "codel",
            "target": f"{CODEL_TARGET_MS}ms",
            "interval": f"{CODEL_INTERVAL_MS}ms",
            "mtu": f"{MSS + HEADER}B",
        }
    if queue == "pie":
        return {
            "scheme": "pie",
            "target": f"{PIE_TARGET_MS}ms",
            "tupdate": f"{PIE_TUPDATE_MS}ms",
            "max_burst": f"{PIE_MAX_BURST_MS}ms",
            "alpha": 0.125,
            "beta": 1.25,
            "derandomize": False,
            "cap_drop_adjustment": True,
            "mean_packet": f"{MSS + HEADER}B",
        }
    if queue == "fq_codel":
        return {
            "scheme": "fq_codel",
            "flows": FQ_FLOWS,
            "quantum": f"{FQ_QUANTUM}B",
            "target": f"{CODEL_TARGET_MS}ms",
            "interval": f"{CODEL_INTERVAL_MS}ms",
            "mtu": f"{MSS + HEADER}B",
            "drop_batch_size": FQ_DROP_BATCH,
        }
    raise ValueError(queue)


def ns3_queue_args(queue: str, buffer: int) -> list[str]:
    if queue == "red":
        lo, hi = red_thresholds(buffer)
        return [f"--red_min={lo}", f"--red_max={hi}", f"--red_max_p={RED_MAX_P}", f"--red_wq={RED_WQ}"]
    if queue == "codel":
        return [f"--codel_target_ms={CODEL_TARGET_MS}", f"--codel_interval_ms={CODEL_INTERVAL_MS}"]
    if queue == "pie":
        return [
            f"--pie_target_ms={PIE_TARGET_MS}",
            f"--pie_tupdate_ms={PIE_TUPDATE_MS}",
            f"--pie_max_burst_ms={PIE_MAX_BURST_MS}",
        ]
    if queue == "fq_codel":
        return [
            f"--buffer_packets={buffer_packets(buffer)}",
            f"--fq_flows={FQ_FLOWS}",
            f"--fq_quantum={FQ_QUANTUM}",
            f"--fq_drop_batch={FQ_DROP_BATCH}",
            f"--codel_target_ms={CODEL_TARGET_MS}",
            f"--codel_interval_ms={CODEL_INTERVAL_MS}",
        ]
    return []


def scenario(row: dict[str, Any], seed: int) -> dict[str, Any]:
    """The cellaqm scenario of a row (every TCP option stated, see the alignment table)."""
    rate = f"{row['rate_bps']}bps"
    buffer = row["buffer_bytes"]
    limit = {"buffer_packets": buffer_packets(buffer)} if row["queue"] == "fq_codel" else {"buffer": f"{buffer}B"}
    return {
        "name": "ns3-validation",
        "duration": f"{row['duration_s']}s",
        "seed": seed,
        "tcp": ns3_tcp("cubic" if is_cubic(row) else "reno", row["sack"], IW, RWND),
        "traffic": {"model": "bulk", "flows": row["flows"], "start": "0s", "spacing": f"{spacing_s(row['flows'], seed)}s"},
        "core": {"rate": CORE_RATE, "delay": f"{CORE_DELAY_MS}ms"},
        "bottleneck": {
            "rate": rate,
            "delay": f"{BN_DELAY_MS}ms",
            **limit,
            "queue": cellaqm_queue(row["queue"], buffer),
        },
        "uplink": {"rate": rate, "delay": f"{BN_DELAY_MS}ms"},
    }


def ns3_args(row: dict[str, Any], seed: int) -> list[str]:
    return [
        f"--rate={row['rate_bps']}bps",
        f"--up_rate={row['rate_bps']}bps",
        f"--core_rate={CORE_RATE}",
        f"--core_delay_ms={CORE_DELAY_MS}",
        f"--bn_delay_ms={BN_DELAY_MS}",
        f"--queue={row['queue']}",
        f"--buffer={row['buffer_bytes']}",
        f"--flows={row['flows']}",
        f"--spacing_s={spacing_s(row['flows'], seed)}",
        f"--rwnd={RWND}",
        f"--mss={MSS}",
        f"--iw={IW}",
        f"--sack={'true' if row['sack'] else 'false'}",
        # With SACK ns-3 sends new data on duplicate ACKs as cwnd - pipe allows (RFC 6675 §5 (3))
        # whatever its LimitedTransmit attribute says; cellaqm's limited transmit is off (alignment table).
        *(["--sack_limited_transmit=false"] if row["sack"] else []),
        f"--congestion={'cubic' if is_cubic(row) else 'newreno'}",
        "--delayed_ack=false",
        f"--duration={row['duration_s']}",
        f"--seed={seed}",
        *ns3_queue_args(row["queue"], row["buffer_bytes"]),
    ]


def queue_available(queue: str) -> Optional[str]:
    """None if cellaqm accepts the scheme, else the reason it does not."""
    import cellaqm

    row = {"rate_bps": 384_000, "queue": queue, "buffer_bytes": 30_000, "flows": 1, "sack": True, "duration_s": 0.001}
    try:
        cellaqm.run(scenario(row, 1))
    except cellaqm.ScenarioError as exc:
        return str(exc)
    return None


#: How cellaqm is timed (§6 of discussion.md says why). After its first call,
#: right after the ns-3 process (`cold_wall_s`), cellaqm is called again and
#: again for as long as ns-3 ran (at most TIMING_SPAN_MAX_S, at least
#: TIMING_MIN_CALLS calls); the mean of those calls is `wall_s`, the speed-up's.
#: Spread over a span like ns-3's, it averages over the machine's slow and fast
#: stretches as ns-3's single run does. Every call must give the same summary.
TIMING_MIN_CALLS = 3
TIMING_SPAN_MAX_S = 1.0
#: A seed whose ns-3 run is shorter repeats the pair (ns-3, then cellaqm over the
#: same span) until ns-3 has run this long in all, at most NS3_MAX_RUNS times:
#: a 0.1-s run falls in one or two of the machine's stretches, and the pairs
#: spread both simulators over the same mix of them. With 0.5 s (five pairs at
#: 64 kb/s) one such row still read 142x in one run and 95x in the next, on the
#: same code, its ns-3 runs taking the same time in both.
NS3_SPAN_MIN_S = 1.0
NS3_MAX_RUNS = 20
#: Summary fields that are timings, not results.
TIMINGS = ("wall_s", "sim_seconds_per_wall_second", "events_per_second")
#: Fields of a run's record that are timings, not results.
RECORD_TIMINGS = ("wall_s", "process_wall_s", "timed_calls", "cold_wall_s", "core_wall_s", "runs")


def run_cellaqm(row: dict[str, Any], seed: int, span_s: float = 0.0) -> dict[str, Any]:
    """Run a row in cellaqm, timed over `span_s` seconds (ns-3's wall time) as described above."""
    import cellaqm

    spec = scenario(row, seed)  # built outside the timing, as ns-3's arguments are

    def call() -> tuple[float, Any]:
        t0 = time.perf_counter()
        res = cellaqm.run(spec)
        return time.perf_counter() - t0, res

    def results(res: Any) -> dict[str, Any]:
        return {k: v for k, v in res.summary.items() if k not in TIMINGS}

    cold, res = call()
    first = results(res)
    span = min(span_s, TIMING_SPAN_MAX_S)
    walls: list[float] = []
    total = 0.0
    while len(walls) < TIMING_MIN_CALLS or total < span:
        wall, res = call()
        walls.append(wall)
        total += wall
        if results(res) != first:
            raise RuntimeError(f"{row} seed {seed}: repeated cellaqm runs differ")
    s = res.summary
    return {
        "goodput_bps": s["goodput_bps"],
        "delay_mean_ms": s["delay_ms"]["mean"],
        "delay_p95_ms": s["delay_ms"]["p95"],
        "delay_count": s["delay_ms"]["count"],
        "drops": sum(s["drops"].values()),
        "drops_by_cause": s["drops"],
        "rtos": s["rtos"],
        "fast_retransmits": s["fast_retransmits"],
        "utilisation": s["bottleneck"]["utilisation"],
        "wall_s": total / len(walls),
        "timed_calls": len(walls),
        "cold_wall_s": cold,
        "core_wall_s": s["wall_s"],
    }


def run_ns3(binary: Path, row: dict[str, Any], seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    out = subprocess.run([str(binary), *ns3_args(row, seed)], check=True, capture_output=True, text=True)
    process_wall = time.perf_counter() - t0
    d = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "goodput_bps": d["goodput_bps"],
        "delay_mean_ms": d["delay_ms"]["mean"],
        "delay_p95_ms": d["delay_ms"]["p95"],
        "delay_count": d["delay_ms"]["count"],
        "drops": d["drops_total"],
        "drops_by_cause": d["drops"],
        "rtos": d["rtos"],
        "fast_retransmits": d["fast_retransmits"],
        "utilisation": d["bottleneck"]["utilisation"],
        "device_drops": d["device_drops"],
        "wall_s": d["wall_s"],
        "process_wall_s": process_wall,
    }


def outcome(record: dict[str, Any]) -> dict[str, Any]:
    """A run's record without its timings: what must repeat exactly."""
    return {k: v for k, v in record.items() if k not in RECORD_TIMINGS}


def run_seed(binary: Path, row: dict[str, Any], seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One seed of a row in both simulators, timed as described at NS3_SPAN_MIN_S.

    Returns (ns-3's record, cellaqm's record): ns-3's wall time is the mean of
    its runs; cellaqm's the mean of all its timed calls, its cold time the mean
    of its first calls after each ns-3 process."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    while not pairs or (sum(n["wall_s"] for n, _ in pairs) < NS3_SPAN_MIN_S and len(pairs) < NS3_MAX_RUNS):
        ns3 = run_ns3(binary, row, seed)
        pairs.append((ns3, run_cellaqm(row, seed, span_s=ns3["wall_s"])))
    first_ns3, first_ours = pairs[0]
    for ns3, ours in pairs[1:]:
        if outcome(ns3) != outcome(first_ns3) or outcome(ours) != outcome(first_ours):
            raise RuntimeError(f"{row} seed {seed}: repeated runs differ")
    runs = len(pairs)
    calls = sum(o["timed_calls"] for _, o in pairs)
    ns3_rec = {
        **first_ns3,
        "wall_s": sum(n["wall_s"] for n, _ in pairs) / runs,
        "process_wall_s": sum(n["process_wall_s"] for n, _ in pairs) / runs,
        "runs": runs,
    }
    ours_rec = {
        **first_ours,
        "wall_s": sum(o["wall_s"] * o["timed_calls"] for _, o in pairs) / calls,
        "timed_calls": calls,
        "cold_wall_s": sum(o["cold_wall_s"] for _, o in pairs) / runs,
        "runs": runs,
    }
    return ns3_rec, ours_rec


def cubic_rows(full: bool) -> list[dict[str, Any]]:
    return [
        {
            "rate_bps": rate,
            "queue": "tail_drop",
            "buffer_bytes": buffer,
            "flows": 1,
            "sack": True,
            "congestion": "cubic",
            "duration_s": DURATION_S[rate][1 if full else 0],
        }
        for rate, buffer in CUBIC_ROWS
    ]


def many_flow_rows(full: bool) -> list[dict[str, Any]]:
    return [{**MANY_FLOWS, "sack": sack, "duration_s": MANY_FLOWS_DURATION_S[1 if full else 0]} for sack in SACK]


def matrix(full: bool, queues: list[str]) -> list[dict[str, Any]]:
    rows = []
    for rate in RATES:
        for queue in queues:
            for buffer in BUFFERS:
                for flows in FLOWS:
                    for sack in SACK:
                        rows.append(
                            {
                                "rate_bps": rate,
                                "queue": queue,
                                "buffer_bytes": buffer,
                                "flows": flows,
                                "sack": sack,
                                "duration_s": DURATION_S[rate][1 if full else 0],
                            }
                        )
    return (
        rows
        + (cubic_rows(full) if "tail_drop" in queues else [])
        + (many_flow_rows(full) if MANY_FLOWS["queue"] in queues else [])
    )


def run_matrix(args: argparse.Namespace) -> dict[str, Any]:
    queues, missing = [], {}
    for q in args.queues:
        why = queue_available(q)
        if why is None:
            queues.append(q)
        else:
            missing[q] = why
            print(f"skipping {q}: cellaqm does not accept it yet ({why})", file=sys.stderr)
    if args.cubic_only:
        rows = cubic_rows(args.full)
    elif args.many_flows_only:
        rows = many_flow_rows(args.full)
    elif args.sack_only:
        rows = [r for r in matrix(args.full, queues) if r["sack"]]
    else:
        rows = matrix(args.full, queues)
    records: list[dict[str, Any]] = []
    total = sum(len(seeds_for(r, args.seeds)) for r in rows)
    done = 0
    started = time.perf_counter()
    for row in rows:
        for seed in seeds_for(row, args.seeds):
            ns3, ours = run_seed(args.ns3_bin, row, seed)
            records.append({"row": row, "seed": seed, "sim": "ns3", **ns3})
            records.append({"row": row, "seed": seed, "sim": "cellaqm", **ours})
            done += 1
            print(
                f"[{done}/{total} {time.perf_counter() - started:6.0f}s] {row} seed {seed}: "
                f"goodput {ours['goodput_bps'] / 1e6:.3f}/{ns3['goodput_bps'] / 1e6:.3f} Mb/s, "
                f"p95 {ours['delay_p95_ms']:.1f}/{ns3['delay_p95_ms']:.1f} ms, "
                f"wall {ours['wall_s']:.4f}/{ns3['wall_s']:.3f} s ({ns3['runs']}x)",
                file=sys.stderr,
                flush=True,
            )
    return {
        "full": args.full,
        "seeds": args.seeds,
        "missing_queues": missing,
        "elapsed_s": time.perf_counter() - started,
        "records": records,
    }


# ---------------------------------------------------------------- the page


def render_page(data: dict[str, Any], theory_md: Optional[str]) -> str:
    order = {q: i for i, q in enumerate(QUEUES)}
    results = sorted(
        agreement.aggregate(data["records"]),
        key=lambda r: (r.row["rate_bps"], order.get(r.row["queue"], 99), r.row["buffer_bytes"], r.row["flows"], not r.row["sack"]),
    )
    summary = agreement.summarise(results)
    parts = [
        "# Validation against ns-3 and theory",
        "",
        "<!-- Generated by `make validate` (validation/compare.py and validation/theory.py) from "
        "validation/alignment.md, validation/discussion.md and the runs; edit those, not this file. -->",
        "",
        (HERE / "alignment.md").read_text(encoding="utf-8").strip(),
        "",
        "## Results",
        "",
        f"Matrix: {'FULL' if data['full'] else 'default'} "
        f"({'FULL=1' if data['full'] else 'the reduced default; `make validate FULL=1` doubles the durations and runs 5 seeds'}), "
        f"up to {max((len(r.seeds) for r in results), default=0)} seeds per row (one where nothing is random), "
        f"{len(data['records']) // 2} runs per simulator, "
        f"{data['elapsed_s'] / 60:.1f} min in total on this machine. Durations: "
        + ", ".join(
            f"{agreement.fmt_rate(r)}b/s {DURATION_S[r][1 if data['full'] else 0]} s" for r in RATES
        )
        + ".",
        "",
    ]
    parts += [
        "FQ-CoDel rows are limited in packets in both simulators (ns-3's `FqCoDelQueueDisc` takes no "
        "byte limit): the buffer's whole 1500-B packets, "
        + " and ".join(f"{buffer_packets(b)} for {b // 1000} kB" for b in BUFFERS)
        + " (ns-3: one less in the queue disc, plus the device's one-packet slot).",
        "",
    ]
    if data.get("missing_queues"):
        parts += [
            "Left out (cellaqm does not have the scheme yet): "
            + "; ".join(f"`{q}` ({why})" for q, why in data["missing_queues"].items())
            + ".",
            "",
        ]
    parts += [
        "### Summary",
        "",
        agreement.render_summary(summary),
        "- By rate (goodput ok / p95 ok / speed ok, of rows): "
        + "; ".join(
            f"{agreement.fmt_rate(rate)}b/s {sum(r.goodput_ok for r in rs)}/{sum(r.p95_ok for r in rs)}/"
            f"{sum(r.speed_ok for r in rs)} of {len(rs)}"
            for rate in RATES
            if (rs := [r for r in results if r.row["rate_bps"] == rate])
        )
        + ".",
        "- By queue: "
        + "; ".join(
            f"{q} {sum(r.goodput_ok for r in rs)}/{sum(r.p95_ok for r in rs)}/{sum(r.speed_ok for r in rs)} of {len(rs)}"
            for q in QUEUES
            if (rs := [r for r in results if r.row["queue"] == q])
        )
        + ".",
        "",
        "### Side by side",
        "",
        "Each cell: cellaqm / ns-3 (relative difference of cellaqm to ns-3), means over the seeds. "
        "Drops are bottleneck queue drops of all causes; RTOs are retransmission timeouts of all flows. "
        "Speed-up: ns-3 wall time over cellaqm wall time for the same runs. ✗ marks a row outside "
        f"the target (goodput ±{agreement.GOODPUT_TOL:.0%}, p95 delay ±{agreement.P95_TOL:.0%}, "
        f"speed-up ≥ {agreement.SPEED_TARGET:.0f}×).",
        "",
        agreement.render_table([r for r in results if not is_cubic(r.row) and not is_many_flows(r.row)]),
        "",
    ]
    if cubic := [r for r in results if is_cubic(r.row)]:
        parts += [
            "### CUBIC",
            "",
            "cellaqm's CUBIC (`tcp.congestion = \"cubic\"`, RFC 9438) against ns-3's `TcpCubic` without "
            "HyStart (alignment: the CUBIC row of the table above); one bulk flow, tail drop, SACK, the "
            "other settings as in every row. Same cells as above.",
            "",
            agreement.render_table(cubic),
            "",
        ]
    if many := [r for r in results if is_many_flows(r.row)]:
        parts += [
            "### Many flows at a low rate",
            "",
            f"FQ-CoDel at {agreement.fmt_rate(MANY_FLOWS['rate_bps'])}b/s with {MANY_FLOWS['flows']} bulk flows "
            f"and a {MANY_FLOWS['buffer_bytes'] // 1000}-kB buffer ({buffer_packets(MANY_FLOWS['buffer_bytes'])} "
            "packets), with and without SACK, the other settings as in every row; "
            f"{MANY_FLOWS_DURATION_S[1 if data['full'] else 0]} s. Same cells as above; §7 below traces the gap.",
            "",
            agreement.render_table(many),
            "",
        ]
    if (lte := lte_compare.load()) is not None:
        parts += [lte_compare.render(lte), ""]
    if (lte_dl := lte_downlink_compare.load()) is not None:
        parts += [lte_downlink_compare.render(lte_dl), ""]
    discussion = HERE / "discussion.md"
    if discussion.exists():
        parts += [discussion.read_text(encoding="utf-8").strip(), ""]
    if theory_md:
        parts += [theory_md.strip(), ""]
    return "\n".join(parts)


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ns3-bin", type=Path, default=ROOT / "build" / "validation" / "wired_bottleneck")
    p.add_argument("--full", action="store_true", help="longer runs and 5 seeds")
    p.add_argument("--seeds", type=int, default=None, help="seeds per random row (default 3, FULL 5)")
    p.add_argument("--queues", nargs="+", default=QUEUES)
    p.add_argument("--results", type=Path, default=HERE / "results" / "matrix.json")
    p.add_argument("--theory", type=Path, default=HERE / "results" / "theory.md")
    p.add_argument("--page", type=Path, default=ROOT / "docs" / "validation.md")
    p.add_argument("--render-only", action="store_true", help="re-render the page from --results")
    p.add_argument("--append", action="store_true", help="keep --results' runs of the queues not in --queues")
    p.add_argument("--cubic-only", action="store_true", help="run the CUBIC rows only (with --append: keep the others)")
    p.add_argument(
        "--many-flows-only", action="store_true", help="run the many-flow rows only (with --append: keep the others)"
    )
    p.add_argument(
        "--sack-only", action="store_true", help="run the rows with SACK only (with --append: keep the others)"
    )
    args = p.parse_args(argv)
    if args.seeds is None:
        args.seeds = 5 if args.full else 3
    if args.render_only:
        data = json.loads(args.results.read_text(encoding="utf-8"))
    else:
        data = run_matrix(args)
        if args.append and args.results.exists():
            # Keep the earlier runs of the queues not re-run now (e.g. a scheme added later).
            old = json.loads(args.results.read_text(encoding="utf-8"))
            rerun = set(args.queues)

            def kept(r: dict[str, Any]) -> bool:
                if args.cubic_only:
                    return not is_cubic(r["row"])
                if args.many_flows_only:
                    return not is_many_flows(r["row"])
                if args.sack_only:
                    return not r["row"]["sack"] or r["row"]["queue"] not in rerun
                return r["row"]["queue"] not in rerun

            data["records"] = [r for r in old["records"] if kept(r)] + data["records"]
            data["missing_queues"] = {
                q: why for q, why in {**old.get("missing_queues", {}), **data["missing_queues"]}.items()
                if args.cubic_only or args.many_flows_only or args.sack_only or q not in rerun
                or q in data["missing_queues"]
            }
            data["elapsed_s"] += old.get("elapsed_s", 0.0)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(data, indent=1), encoding="utf-8")
    theory_md = args.theory.read_text(encoding="utf-8") if args.theory.exists() else None
    args.page.write_text(render_page(data, theory_md), encoding="utf-8")
    print(f"wrote {args.page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
