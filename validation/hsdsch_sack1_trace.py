"""Why a lone HS-DSCH user's transfers time out under ns-2.27's Sack1 recovery: a packet-level trace.

    .venv/bin/python validation/hsdsch_sack1_trace.py              # the table per scheme and size, and one transfer
    .venv/bin/python validation/hsdsch_sack1_trace.py --seeds 3

The study's scenario 3 on path (a) (one user alone, 25 ms one way, 250 kB = 172
segments per transfer, a session every U(0, 20 s), 300 s; the study's TCP:
``hsdsch.TCP``, recovery ``ns2_sack1``), DT, DF, RED and PDPC at 5–30 packets.
Each run writes its packets as pcap files (the server's sends and the ACKs it
receives with their SACK blocks) and its trace (drops, cwnd). For every
transfer that timed out, the first timeout is classed by what the sender knew
and could send before it:

- *file sent*: when the third duplicate ACK started recovery the whole file
  had already been sent, and the window had lost two or more segments.
  ns-2.27's ``send_much`` sends during recovery only while unsent data remains
  (``t_seqno_ < curseq_``), so it retransmits the first hole (the fast
  retransmit itself, sent from ``dupack_action``) and nothing else; the
  partial ACK of that retransmission restarts the timer, which expires one RTO
  (at least ns-2's 1 s) later;
- *lost retransmission*: a retransmitted segment was dropped again;
- *no fast retransmit*: no recovery before the timeout (too few duplicate
  ACKs, or one refused by ``bugFix_``);
- *other*.

It prints per case: transfers, those with a timeout, the segment of each
transfer's first drop (median), the segments sent when recovery started
(median; 172 = all), and the classes; then the events of the first transfer of
RED 10, seed 1 (drop, send, ACK with its SACK blocks, ``pipe_`` as Sack1 counts
it). docs/hsdsch.md ("Scenario 3") shows the output.
"""

from __future__ import annotations

import argparse
import struct
import sys
import tempfile
from collections import Counter
from pathlib import Path
from statistics import median
from typing import Any

import dpkt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import cellaqm  # noqa: E402
from cellaqm import hsdsch  # noqa: E402

MSS = 1460
CASES = [(s, n) for s in ("dt", "df", "red", "pdpc") for n in (5, 10, 15, 20, 30)]
CLASSES = ("file sent", "lost retransmission", "no fast retransmit", "other")


def segment(seq: int) -> int:
    """The segment number (0, 1, …) of sequence number ``seq`` (data from 1)."""
    return (seq - 1) // MSS


def read_pcap(path: Path) -> list[tuple[float, int, bool, int, int, int, list[tuple[int, int]], int]]:
    """(time, flow, downlink, seq, ack, payload bytes, SACK blocks, IP id) of every TCP packet in ``path``."""
    rows = []
    with open(path, "rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            tcp = ip.data
            if not isinstance(tcp, dpkt.tcp.TCP):
                continue
            down = tcp.sport == 80
            sack = []
            for kind, data in dpkt.tcp.parse_opts(tcp.opts):
                if kind == dpkt.tcp.TCP_OPT_SACK:
                    sack = [struct.unpack(">II", data[i:i + 8]) for i in range(0, len(data), 8)]
            payload = ip.len - ip.hl * 4 - tcp.off * 4
            rows.append((float(ts), (tcp.dport if down else tcp.sport) - 1024, down, tcp.seq, tcp.ack, payload, sack, ip.id))
    return rows


def run(scheme: str, n: int, seed: int, cap: Path) -> tuple[Any, dict[int, list[tuple[str, float, Any]]]]:
    """One 300 s lone-user run; per flow its events in time order: ("send", t, (segment, retransmission)),
    ("ack", t, (next segment expected, SACK blocks in segments)), ("drop", t, segment), ("cwnd", t, segments),
    ("rto", t, 1.0)."""
    doc = hsdsch.system(scheme, n, "long", "rr", 10.0, 300.0, users=1)
    r = cellaqm.run(doc, seed=seed, trace=True, pcap=cap)
    arrived: dict[int, list[tuple[float, int]]] = {}  # IP id -> (time, seq) of each arrival at the RNC buffer
    for ts, _, down, seq, _, payload, _, ipid in read_pcap(cap / "bottleneck.pcap"):
        if down and payload:
            arrived.setdefault(ipid, []).append((ts, seq))
    events: dict[int, list[tuple[str, float, Any]]] = {}
    sent: dict[int, set[int]] = {}
    for ts, flow, down, seq, ack, payload, sack, _ in read_pcap(cap / "server.pcap"):
        ev = events.setdefault(flow, [])
        if down and payload:
            k = segment(seq)
            ev.append(("send", ts, (k, k in sent.setdefault(flow, set()))))
            sent[flow].add(k)
        elif not down:
            ev.append(("ack", ts, (segment(ack), [(segment(a), segment(b)) for a, b in sack])))
    for d in r.trace["drops"].itertuples():
        seqs = [s for t, s in arrived.get(d.uid % 65536, []) if t <= d.time_s + 1e-9]
        events.setdefault(d.flow, []).append(("drop", d.time_s, segment(seqs[-1])))
    for c in r.trace["cwnd"].itertuples():
        kind = "rto" if c.cwnd_bytes == MSS else "cwnd"  # the initial window is 2: 1 segment only after a timeout
        events.setdefault(c.flow, []).append((kind, c.time_s, c.cwnd_bytes / MSS))
    order = {"drop": 0, "ack": 1, "cwnd": 2, "rto": 2, "send": 3}
    for ev in events.values():
        ev.sort(key=lambda e: (e[1], order[e[0]]))
    return r, events


def first_timeout(ev: list[tuple[str, float, Any]]) -> dict[str, Any]:
    """The first drop, what recovery found, and the class of the flow's first timeout (if any)."""
    last = max(e[2][0] for e in ev if e[0] == "send")
    rto = next((e[1] for e in ev if e[0] == "rto"), None)
    before = [e for e in ev if rto is None or e[1] < rto]
    drops = [e for e in before if e[0] == "drop"]
    out: dict[str, Any] = {"first_drop": drops[0][2] if drops else None, "rto": rto}
    fr = next((e for e in before if e[0] == "send" and e[2][1]), None)
    retransmitted = {e[2][0] for e in before if e[0] == "send" and e[2][1]}
    # A drop after the fast retransmit of a segment retransmitted by then is a lost retransmission.
    lost_retransmission = fr is not None and any(d[1] > fr[1] and d[2] in retransmitted for d in drops)
    if fr is not None:
        out["sent_at_fr"] = 1 + max(e[2][0] for e in before if e[0] == "send" and e[1] <= fr[1])
        out["holes"] = len({d[2] for d in drops if d[2] < out["sent_at_fr"] and (d[1] <= fr[1] or d[2] not in
                                                                               retransmitted)})
    if rto is None:
        return out
    if fr is None:
        out["class"] = "no fast retransmit"
    elif lost_retransmission:
        out["class"] = "lost retransmission"
    elif out["sent_at_fr"] == last + 1 and out["holes"] >= 2:
        out["class"] = "file sent"
    else:
        out["class"] = "other"
    return out


def table(seeds: int) -> None:
    print("| case | transfers | with a timeout | first drop at segment (median) | segments sent at the fast "
          "retransmit (median, of 172) | segments lost in that window (median) | " + " | ".join(CLASSES) + " |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(CLASSES))
    for scheme, n in CASES:
        rows = []
        for seed in range(1, seeds + 1):
            with tempfile.TemporaryDirectory() as tmp:
                _, events = run(scheme, n, seed, Path(tmp))
            rows += [first_timeout(ev) for ev in events.values() if any(e[0] == "send" for e in ev)]
        timed_out = [r for r in rows if r["rto"] is not None]
        firsts = [r["first_drop"] for r in rows if r["first_drop"] is not None]
        at_fr = [r["sent_at_fr"] for r in rows if "sent_at_fr" in r]
        holes = [r["holes"] for r in rows if "holes" in r]
        classes = Counter(r["class"] for r in timed_out)
        print(f"| {hsdsch.LABELS[scheme]} {n} | {len(rows)} | {len(timed_out)} | "
              f"{median(firsts) if firsts else '–'} | {median(at_fr) if at_fr else '–'} | {median(holes) if holes else '–'} | "
              + " | ".join(str(classes.get(c, 0)) for c in CLASSES) + " |")


def transfer(scheme: str = "red", n: int = 10, seed: int = 1, flow: int = 0) -> None:
    """The events of one transfer from its first drop to its first timeout, runs of the same event merged,
    with Sack1's ``pipe_`` (outstanding − 3 at the fast retransmit, −1 per ACK, −2 per partial ACK)."""
    with tempfile.TemporaryDirectory() as tmp:
        _, events = run(scheme, n, seed, Path(tmp))
    ev = events[flow]
    first = next(e[1] for e in ev if e[0] == "drop")
    rows: list[list[Any]] = []  # [first time, last time, event, first segment, last segment, count, note]

    def add(t: float, event: str, seg: Any, note: str = "", merge: bool = True) -> None:
        last = rows[-1] if rows else None
        if merge and last and last[2] == event and event != "dropped at the RNC":
            last[1], last[4], last[5], last[6] = t, seg, last[5] + 1, note or last[6]
        else:
            rows.append([t, t, event, seg, seg, 1, note])

    sent_max, last_ack, pipe, recover, cwnd = 0, 0, None, 0, 0.0
    for kind, t, x in ev:
        if kind == "send" and not x[1]:
            sent_max = max(sent_max, x[0] + 1)
        if kind == "ack" and pipe is None:
            last_ack = max(last_ack, x[0])
        if kind == "cwnd":
            cwnd = x
        if t < first or kind == "cwnd":
            continue
        if kind == "drop":
            add(t, "dropped at the RNC", x)
        elif kind == "send" and x[1] and pipe is None:
            pipe, recover = sent_max - last_ack - 3, sent_max
            add(t, "fast retransmit", x[0], f"{sent_max} of 172 sent, {last_ack} acknowledged: pipe_ = {pipe}",
                merge=False)
        elif kind == "send":
            add(t, "retransmit" if x[1] else "send (slow start: two per ACK)", x[0])
        elif kind == "ack" and pipe is not None and x[0] < recover:
            partial = x[0] > last_ack
            pipe -= 2 if partial else 1
            sack = f"SACKed up to {max(b for _, b in x[1])}" if x[1] else ""
            if partial:
                last_ack = x[0]
                add(t, "partial ACK", x[0], f"pipe_ {pipe}; {sack}; the timer restarts", merge=False)
            else:
                add(t, "duplicate ACK", x[0], f"pipe_ down to {pipe}, cwnd {cwnd:.0f}; {sack}")
        elif kind == "rto":
            add(t, "timeout", "", "", merge=False)
            break
    print(f"\n{hsdsch.LABELS[scheme]} {n}, seed {seed}, transfer {flow} (segments 0–171) from its first drop to its "
          "first timeout:\n")
    print("| time [s] | event | segment | note |")
    print("|---|---|---|---|")
    for t0, t1, event, s0, s1, count, note in rows:
        when = f"{t0:.3f}" if count == 1 else f"{t0:.3f}–{t1:.3f}"
        seg = f"{s0}" if count == 1 or s0 == s1 else f"{s0}–{s1}"
        what = event if count == 1 else f"{event} ×{count}"
        print(f"| {when} | {what} | {seg} | {note} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args(argv)
    table(args.seeds)
    transfer()


if __name__ == "__main__":
    main()
