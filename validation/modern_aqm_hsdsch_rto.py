"""Why CoDel multiplies the timeouts on the HS-DSCH bulk rows of ``cellaqm reproduce modern-aqm``: a trace.

    .venv/bin/python validation/modern_aqm_hsdsch_rto.py               # 120 s, seed 1
    .venv/bin/python validation/modern_aqm_hsdsch_rto.py --seeds 2 --duration 60

The comparison's HS-DSCH bulk case (14 users, two CUBIC flows each, the
comparison's TCP: SACK with RFC 6675's recovery, no limited transmit, no RACK,
200 ms minimum RTO) under tail drop, CoDel, FQ-CoDel and CoDel with ECN, and
CoDel once more with limited transmit (RFC 3042) as a diagnostic (not a
change of the comparison). Each run writes its packets as pcap files and its
trace. Per scheme it prints the loss events (fast retransmits), the timeouts
(and those the summary finds spurious), the buffer's drops and how many came
alone (no other drop of that user's packets at the same instant), and classes
every timeout that followed growth of the window (the first of a series) by the
segment it resent (the first unacknowledged one):

- *dropped, too few duplicate ACKs*: the segment was dropped once and never
  retransmitted before the timeout: fewer than three segments behind it
  reached the receiver (the median window then, in segments, beside it);
- *retransmission dropped*: its fast retransmission was dropped too (RFC 6675
  detects that only by the timer);
- *delayed*: it was not dropped (or its retransmission was not): the
  timer expired while the packet waited (a user not scheduled);
- *other*.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import cellaqm  # noqa: E402
from cellaqm import modern_aqm  # noqa: E402
from hsdsch_sack1_trace import MSS, read_pcap  # noqa: E402

CASES = [("TD", "td", []), ("CoDel", "codel", []), ("FQ-CoDel", "fq_codel", []), ("CoDel ECN", "codel_ecn", []),
         ("CoDel + limited transmit", "codel", ["tcp.limited_transmit=true"])]
CLASSES = ("dropped, too few duplicate ACKs", "retransmission dropped", "delayed", "other")
EPS = 1e-6


def trace(scheme: str, sets: list[str], duration: float, seed: int) -> dict[str, float | Counter[str] | list[float]]:
    """One run of the HS-DSCH bulk case: its counters and its timeouts by class."""
    doc = modern_aqm.scenario("hsdsch", "bulk", scheme, duration)
    with tempfile.TemporaryDirectory() as tmp:
        cap = Path(tmp)
        r = cellaqm.run(doc, seed=seed, trace=True, pcap=cap, sets=sets)
        arrived: dict[tuple[int, int], list[tuple[float, int]]] = defaultdict(list)
        for ts, flow, down, seq, _, payload, _, ipid in read_pcap(cap / "bottleneck.pcap"):
            if down and payload:
                arrived[(flow, ipid)].append((ts, seq))
        sends: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        acks: dict[int, list[tuple[float, int]]] = defaultdict(list)
        for ts, flow, down, seq, ack, payload, _, _ in read_pcap(cap / "server.pcap"):
            if down and payload:
                sends[flow][seq].append(ts)
            elif not down:
                acks[flow].append((ts, ack))
    drops: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    users = dict(zip(r.flows["flow"], r.flows["user"]))
    at_once: Counter[tuple[int, float]] = Counter()  # drops of one user's packets at one instant (one hand-over)
    for d in r.trace["drops"].itertuples():
        seqs = [s for t, s in arrived[(d.flow, d.uid % 65536)] if t <= d.time_s + EPS]
        if d.dir == "down" and seqs:
            drops[d.flow][seqs[-1]].append(d.time_s)
            at_once[(users[d.flow], d.time_s)] += 1
    cwnd = r.trace["cwnd"]
    classes: Counter[str] = Counter()
    windows: list[float] = []
    previous: dict[int, float] = {}
    for c in cwnd.itertuples():
        first = c.cwnd_bytes == MSS and previous.get(c.flow) != MSS
        previous[c.flow] = c.cwnd_bytes
        if not first:
            continue
        t, flow = c.time_s, c.flow
        before = [a for a in acks[flow] if a[0] < t]
        una = before[-1][1] if before else 1
        sent = [x for x in sends[flow].get(una, []) if x < t]
        dropped = [x for x in drops[flow].get(una, []) if x < t]
        if len(sent) == 1 and dropped:
            cls = CLASSES[0]
            w = cwnd[(cwnd["flow"] == flow) & (cwnd["time_s"] <= dropped[0])]["cwnd_bytes"]
            windows.append(float(w.iloc[-1]) / MSS if len(w) else float("nan"))
        elif len(sent) >= 2 and any(x >= sent[-1] - EPS for x in dropped):
            cls = CLASSES[1]
        elif sent:
            cls = CLASSES[2]
        else:
            cls = CLASSES[3]
        classes[cls] += 1
    s = r.summary
    return {"fast_retransmits": float(r.flows["fast_retransmits"].sum()), "rtos": float(s["rtos"]),
            "spurious": float(s["spurious_rtos"]), "drops": float(sum(at_once.values())),
            "in_bursts": float(sum(v for v in at_once.values() if v > 1)), "largest_burst": float(max(at_once.values())),
            "classes": classes, "windows": windows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--duration", type=float, default=120.0)
    args = ap.parse_args(argv)
    print(f"HS-DSCH bulk, {args.duration:g} s, seeds 1..{args.seeds} (totals):\n")
    print("| scheme | fast retransmits | timeouts (spurious) | drops | of them with another of the user's at the same "
          "instant (largest such burst) | drops per fast retransmit | first timeouts: "
          + " | ".join(CLASSES) + " | window at the drop, too few dupACKs (median) |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(CLASSES) + "---:|")
    for label, scheme, sets in CASES:
        tot: dict[str, float] = Counter()
        classes: Counter[str] = Counter()
        windows: list[float] = []
        for seed in range(1, args.seeds + 1):
            one = trace(scheme, sets, args.duration, seed)
            for k in ("fast_retransmits", "rtos", "spurious", "drops", "in_bursts"):
                tot[k] += one[k]  # type: ignore[operator]
            tot["largest_burst"] = max(tot["largest_burst"], one["largest_burst"])  # type: ignore[type-var]
            classes.update(one["classes"])  # type: ignore[arg-type]
            windows += one["windows"]  # type: ignore[operator]
        print(f"| {label} | {tot['fast_retransmits']:.0f} | {tot['rtos']:.0f} ({tot['spurious']:.0f}) | "
              f"{tot['drops']:.0f} | {tot['in_bursts']:.0f} ({tot['largest_burst']:.0f}) | "
              f"{tot['drops'] / max(tot['fast_retransmits'], 1):.1f} | " + " | ".join(str(classes[c]) for c in CLASSES)
              + f" | {median(windows) if windows else float('nan'):.1f} |")


if __name__ == "__main__":
    main()
