"""Where the HS-DSCH study's transfers lost their time: each candidate model difference alone.

    .venv/bin/python validation/hsdsch_candidates.py                 # every candidate (about 40 CPU min)
    .venv/bin/python validation/hsdsch_candidates.py before ns2-tcp  # some of them
    .venv/bin/python validation/hsdsch_candidates.py --seeds 3 --jobs 2
    .venv/bin/python validation/hsdsch_candidates.py --capacity      # each candidate's saturated cell

Each candidate changes the study's scenarios (``cellaqm.hsdsch.system``) in one
way and runs the two designs the decisive findings rest on — long transfers
at a mean wait of 0.3 s under round robin and under max-SIR, the 2 × 4 design
and the reference, 300 s, seeds 1..10 (common random numbers) — then prints,
per candidate: the mean transfer time of DT 4, DF 4, DT 30 and the reference,
their timeouts per finished transfer, the sessions offered, served and lost
(mean per run over the nine cases), and
the verdicts of the decisive findings H7, H8 (RR) and H13, H14 (max-SIR) by the
study's own judges (``cellaqm.hsdsch.FINDINGS``). docs/hsdsch.md reports the
outcome ("Where the transfers lost their time").

``before`` is the model as it stood before these changes: the study's TCP
with exact timers and a 20 ms floor, no limited transmit, a 64 KB window,
RFC 6675's SACK recovery, and the RNC buffer holding each packet until RLC
acknowledged it. The candidates ``ns2-tcp``, ``sent`` and ``window`` each
change one of those; ``adopted`` is the study's defaults now (those three and
ns-2.27's Sack1 recovery); ``rfc6675`` is ``adopted`` with RFC 6675's SACK
recovery instead of Sack1's (the defaults before ns-2.27's Sack1 was built);
the rest change one thing more than ``adopted``.

``--capacity`` measures instead what each candidate does to the cells'
capacity: the reference buffer under round robin at a mean wait of 0.05 s
(5.7 Mb/s per cell offered, past saturation), 120 s, seeds 1..3 (at most):
the system goodput per cell, sessions lost, TTIs on air and the backlogged
users' median SIR. The study's goodput differences at a mean wait of 0.3 s
(952 kb/s per cell offered) need its cells saturated there; ours saturate
at about 2.2 Mb/s per cell, and "gap closed" is how much of the way from the
``adopted`` capacity down to 952 kb/s a candidate goes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from cellaqm import hsdsch  # noqa: E402
from cellaqm.findings import Results  # noqa: E402
from cellaqm.study import table  # noqa: E402

Change = Callable[[dict[str, Any]], None]

#: The TCP keys ns-2.27 and the earlier choices differ in.
BEFORE_TCP = {"rto_formula": "rfc", "timer_tick": "0ms", "rto_min": "20ms", "rto_initial": "6s", "rto_max": "60s",
              "limited_transmit": False}
NS2_TCP = {k: hsdsch.TCP[k] for k in BEFORE_TCP}


def tcp(**keys: Any) -> Change:
    return lambda doc: doc["tcp"].update(keys)


def radio(**keys: Any) -> Change:
    return lambda doc: doc["radio"].update(keys)


def cells(**keys: Any) -> Change:
    return lambda doc: doc["radio"]["cells"].update(keys)


def exponential(doc: dict[str, Any]) -> None:
    """Exponential waiting times of the same mean instead of uniform."""
    mean_ms = float(doc["traffic"]["interarrival"]["max"][:-2]) / 2
    doc["traffic"]["interarrival"] = {"dist": "exponential", "mean": f"{mean_ms:g}ms"}


BEFORE: list[Change] = [tcp(**BEFORE_TCP, rwnd="65535B", recovery="sack"), radio(buffer_holds="until_acknowledged")]
CANDIDATES: dict[str, tuple[str, list[Change]]] = {
    "before": ("the model before: exact timers, 20 ms floor, 64 KB window, RNC buffer until RLC acknowledges",
               BEFORE),
    "ns2-tcp": ("before + ns-2.27's timers (10 ms ticks, minrto 1 s, 6 s, limited transmit)",
                [*BEFORE, tcp(**NS2_TCP)]),
    "sent": ("before + the RNC buffer counting packets not yet handed to the radio", [*BEFORE, radio(buffer_holds="until_fully_sent")]),
    "window": ("before + an advertised window beyond any file", [*BEFORE, tcp(rwnd=hsdsch.TCP["rwnd"])]),
    "adopted": ("ns-2.27's timers and Sack1 recovery + buffer until sent + window beyond any file (the defaults now)",
                []),
    "rfc6675": ("adopted with RFC 6675's SACK recovery instead of ns-2.27's Sack1", [tcp(recovery="sack")]),
    "full-interference": ("adopted + the six other cells sending in every TTI", [cells(interference="full")]),
    "strongest": ("adopted + attachment to the strongest site", [cells(attach="strongest")]),
    "static": ("adopted + users standing still", [cells(speed_max="0km/h")]),
    "full-static": ("adopted + both: the other cells always sending, users standing still",
                    [cells(interference="full"), cells(speed_max="0km/h")]),
    "pedestrian": ("adopted + every user at 3 km/h", [cells(speed_min="3km/h", speed_max="3km/h")]),
    "full-pedestrian": ("adopted + the other cells always sending, every user at 3 km/h",
                        [cells(interference="full"), cells(speed_min="3km/h", speed_max="3km/h")]),
    "exponential": ("adopted + exponential waiting times", [exponential]),
    "delayed-acks": ("adopted + ns-2's Sack1/DelAck sink (100 ms)", [tcp(delayed_ack=True, delack_timeout="100ms")]),
}
DESIGNS = [("long-rr-0.3", "rr"), ("long-sir-0.3", "sir")]
DECISIVE = [f for f in hsdsch.FINDINGS if f.id in ("H7", "H8", "H13", "H14")]


def one(task: tuple[str, str, hsdsch.Run]) -> tuple[str, str, hsdsch.Run]:
    name, exp, run = task
    for change in CANDIDATES[name][1]:
        change(run.doc)
    t0 = time.process_time()
    hsdsch.measure(run)
    run.out["cpu_s"] = time.process_time() - t0
    return name, exp, run


#: The study's offered load per cell at a mean wait of 0.3 s, where its cells must have saturated.
STUDY_SATURATED_KBPS = hsdsch.offered_kbps("long", 0.3)


def capacity(names: list[str], seeds: int, jobs: int) -> None:
    """Each candidate's saturated cells (see the module doc)."""
    tasks = [(name, "capacity", hsdsch.Run({}, hsdsch.system("ref", 4, "long", "rr", 0.05, 120.0), seed,
                                           {"system": True}))
             for name in names for seed in range(1, min(seeds, 3) + 1)]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(one, tasks))

    def mean(name: str, key: str) -> float:
        outs = [r.out[key] for n, _e, r in done if n == name]
        return sum(outs) / len(outs)

    base = mean("adopted", "goodput_kbps") if "adopted" in names else math.nan
    print("| candidate | saturated goodput per cell [kb/s] | sessions lost per run | TTIs on air "
          "| backlogged users' SIR p50 [dB] | gap closed |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        c = mean(name, "goodput_kbps")
        closed = (base - c) / (base - STUDY_SATURATED_KBPS)
        print(f"| {name} | {c:.0f} | {mean(name, 'sessions_lost'):.0f} | {mean(name, 'busy'):.3f} "
              f"| {mean(name, 'sir_p50'):.1f} | {100 * closed:.0f}% |")
    print(f"\n{len(done)} runs, {sum(r.out['cpu_s'] for _n, _e, r in done):.0f} CPU s; "
          f"the study's cells saturated at or below {STUDY_SATURATED_KBPS} kb/s per cell")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help=f"candidates (default: all): {', '.join(CANDIDATES)}")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--capacity", action="store_true", help="each candidate's saturated cells instead")
    args = p.parse_args()
    names = args.names or list(CANDIDATES)
    if args.capacity:
        capacity(names, args.seeds, args.jobs)
        return 0
    tasks = [(name, exp, run) for name in names for exp, sched in DESIGNS
             for run in hsdsch.design_runs("long", sched, 0.3, [*hsdsch.DESIGN, hsdsch.REFERENCE], False, args.seeds)]
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(one, tasks))
    group = ("scheme", hsdsch.BUFFER)
    measures = ("goodput_kbps", "sessions_offered", "sessions_served", "sessions_lost", "transfer_s", "rtos", "cpu_s")
    print("| candidate | RR: transfer DT 4 / DF 4 / DT 30 / ref [s] | RTOs per transfer | sessions offered / served / lost | "
          "max-SIR: transfer DT 4 / DF 4 / DT 30 / ref [s] | RTOs per transfer | sessions offered / served / lost "
          "| H7 | H8 | H13 | H14 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cpu = 0.0
    for name in names:
        res = Results()
        cells_ = []
        for exp, _sched in DESIGNS:
            runs = [r for n, e, r in done if n == name and e == exp]
            cpu += sum(r.out["cpu_s"] for r in runs)
            rows = table(runs, group, measures)
            res.add(exp, rows, runs)
            t = {f"{r['scheme']} {r[hsdsch.BUFFER]}": r for r in rows}
            cases = ("DT 4", "DF 4", "DT 30", "reference ∞")
            times = " / ".join(f"{t[c]['transfer_s']:.2f}" for c in cases)
            rtos = " / ".join(f"{t[c]['rtos'] / max(t[c]['sessions_served'], 1):.2f}" for c in cases)
            s = [sum(r[m] for r in rows) / len(rows) for m in ("sessions_offered", "sessions_served", "sessions_lost")]
            cells_ += [times, rtos, " / ".join(f"{x:.0f}" for x in s)]
        verdicts = [f.verdict(res).verdict for f in DECISIVE]
        print(f"| {name} | " + " | ".join(cells_ + verdicts) + " |")
        for f in DECISIVE:
            print(f"<!-- {name} {f.id}: {f.verdict(res).evidence} -->")
    print(f"\n{len(done)} runs, {cpu:.0f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
