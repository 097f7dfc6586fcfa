"""Where the HS-DSCH study's transfers lost their time: each candidate model difference alone.

    .venv/bin/python validation/hsdsch_candidates.py                 # every candidate (about 40 CPU min)
    .venv/bin/python validation/hsdsch_candidates.py before ns2-tcp  # some of them
    .venv/bin/python validation/hsdsch_candidates.py --seeds 3 --jobs 2

Each candidate changes the study's scenarios (``cellaqm.hsdsch.system``) in one
way and runs the two designs the decisive findings rest on — long transfers
at a mean wait of 0.3 s under round robin and under max-SIR, the 2 × 4 design
and the reference, 300 s, seeds 1..10 (common random numbers) — then prints,
per candidate: the mean transfer time of DT 4, DF 4, DT 30 and the reference,
the sessions offered, served and lost (mean per run over the nine cases), and
the verdicts of the decisive findings H7, H8 (RR) and H13, H14 (max-SIR) by the
study's own judges (``cellaqm.hsdsch.FINDINGS``). docs/hsdsch.md reports the
outcome ("Where the transfers lost their time").

``before`` is the model as it stood before these changes: the study's TCP
with exact timers and a 20 ms floor, no limited transmit, a 64 KB window,
and the RNC buffer holding each packet until RLC acknowledged it. The
candidates ``ns2-tcp``, ``sent`` and ``window`` each change one of those;
``adopted`` is all three (the study's defaults now); the rest change one
thing more than ``adopted``.
"""

from __future__ import annotations

import argparse
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


BEFORE: list[Change] = [tcp(**BEFORE_TCP, rwnd="65535B"), radio(pdcp_release="acknowledged")]
CANDIDATES: dict[str, tuple[str, list[Change]]] = {
    "before": ("the model before: exact timers, 20 ms floor, 64 KB window, RNC buffer until RLC acknowledges",
               BEFORE),
    "ns2-tcp": ("before + ns-2.27's timers (10 ms ticks, minrto 1 s, 6 s, limited transmit)",
                [*BEFORE, tcp(**NS2_TCP)]),
    "sent": ("before + the RNC buffer counting packets not yet handed to the radio", [*BEFORE, radio(pdcp_release="sent")]),
    "window": ("before + an advertised window beyond any file", [*BEFORE, tcp(rwnd=hsdsch.TCP["rwnd"])]),
    "adopted": ("ns-2.27's timers + buffer until sent + window beyond any file (the defaults now)", []),
    "full-interference": ("adopted + the six other cells sending in every TTI", [cells(interference="full")]),
    "strongest": ("adopted + attachment to the strongest site", [cells(attach="strongest")]),
    "static": ("adopted + users standing still", [cells(speed_max="0km/h")]),
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help=f"candidates (default: all): {', '.join(CANDIDATES)}")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    names = args.names or list(CANDIDATES)
    tasks = [(name, exp, run) for name in names for exp, sched in DESIGNS
             for run in hsdsch.design_runs("long", sched, 0.3, [*hsdsch.DESIGN, hsdsch.REFERENCE], False, args.seeds)]
    with ProcessPoolExecutor(args.jobs) as pool:
        done = list(pool.map(one, tasks))
    group = ("scheme", hsdsch.BUFFER)
    measures = ("goodput_kbps", "sessions_offered", "sessions_served", "sessions_lost", "transfer_s", "cpu_s")
    print("| candidate | RR: transfer DT 4 / DF 4 / DT 30 / ref [s] | sessions offered / served / lost | "
          "max-SIR: transfer DT 4 / DF 4 / DT 30 / ref [s] | sessions offered / served / lost | H7 | H8 | H13 | H14 |")
    print("|---|---|---|---|---|---|---|---|---|")
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
            times = " / ".join(f"{t[c]['transfer_s']:.2f}" for c in ("DT 4", "DF 4", "DT 30", "reference ∞"))
            s = [sum(r[m] for r in rows) / len(rows) for m in ("sessions_offered", "sessions_served", "sessions_lost")]
            cells_ += [times, " / ".join(f"{x:.0f}" for x in s)]
        verdicts = [f.verdict(res).verdict for f in DECISIVE]
        print(f"| {name} | " + " | ".join(cells_ + verdicts) + " |")
        for f in DECISIVE:
            print(f"<!-- {name} {f.id}: {f.verdict(res).evidence} -->")
    print(f"\n{len(done)} runs, {cpu:.0f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
