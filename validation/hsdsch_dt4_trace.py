"""Why DT 4–5 collapsed into timeouts on the HS-DSCH system: a trace of one lone user.

    .venv/bin/python validation/hsdsch_dt4_trace.py

One user alone in the seven cells (the study's scenario 3), DT 5 at the RNC,
TCP as the model had it before (exact timers, 20 ms floor, 64 KB window, RFC 6675 recovery), one
120 s run with about a dozen 250 kB transfers. Run twice: with the RNC buffer
counting each packet until RLC acknowledges it (``buffer_holds =
"until_acknowledged"``, the model before) and until its last PDU is sent
(``"until_fully_sent"``, the study's rule). For every packet the buffer drops, the trace says how many
of the packets the buffer counted at that instant had already reached the UE
(delivered, waiting only for RLC's STATUS to release them): with
"until_acknowledged" the five places are mostly taken by packets already across the
air, so the buffer drops while the radio idles. docs/hsdsch.md ("DT 4
collapsing into timeouts") shows the output.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import cellaqm  # noqa: E402
from cellaqm import hsdsch  # noqa: E402

BEFORE_TCP = {"rto_formula": "rfc", "timer_tick": "0ms", "rto_min": "20ms", "rto_max": "60s",
              "limited_transmit": False, "rwnd": "65535B", "recovery": "sack"}


def trace(holds: str, n: int = 5, seed: int = 1) -> None:
    doc = hsdsch.system("dt", n, "long", "rr", 10.0, 120.0, users=1)
    doc["tcp"].update(BEFORE_TCP)
    doc["radio"]["buffer_holds"] = holds
    r = cellaqm.run(doc, seed=seed, trace=True, packets=True)
    s = r.summary
    pk = r.packets  # data packets received by the UE: uid, sent_s (left the server), received_s
    drops = r.trace["drops"]
    queue = r.trace["queue"]
    cwnd = r.trace["cwnd"]
    core_s = 0.025 + 1500 * 8 / 1e9  # a packet reaches the RNC 25 ms (and 12 µs at 1 Gb/s) after leaving the server
    delivered_at = pk.groupby("uid")["received_s"].min()
    arrived_at = pk.groupby("uid")["sent_s"].min() + core_s
    d = r.downloads
    done = d[d["completion_s"].notna()]
    print(f"### DT {n}, buffer_holds = \"{holds}\": {len(done)} transfers, median {done['time_s'].median():.2f} s, "
          f"{s['rtos']} RTOs, {len(drops)} drops")
    print()
    print("| drop at [s] | cwnd [segments] | packets counted | of which already at the UE |")
    print("|---:|---:|---:|---:|")
    at_ue_all = []
    for i, row in enumerate(drops.itertuples()):
        t = row.time_s
        counted = int(queue[queue["time_s"] <= t]["packets"].iloc[-1]) if (queue["time_s"] <= t).any() else 0
        # The buffer releases in order, so it counts the newest `counted` packets that reached the RNC by t.
        inside = arrived_at[(arrived_at <= t)]
        newest = inside.sort_values().index[-counted:] if counted else []
        at_ue_counted = int((delivered_at.reindex(newest) <= t).sum()) if counted else 0
        at_ue_all.append(at_ue_counted)
        w = cwnd[cwnd["time_s"] <= t]["cwnd_bytes"]
        if i < 12:
            print(f"| {t:.3f} | {w.iloc[-1] / 1460 if len(w) else float('nan'):.1f} | {counted} | {at_ue_counted} |")
    share = sum(1 for x in at_ue_all if x > 0) / max(1, len(at_ue_all))
    print()
    print(f"At {share * 100:.0f}% of the {len(at_ue_all)} drops at least one counted packet was already at the UE "
          f"(mean {sum(at_ue_all) / max(1, len(at_ue_all)):.1f} of the {n} places).")
    print()


if __name__ == "__main__":
    for holds in ("until_acknowledged", "until_fully_sent"):
        trace(holds)
