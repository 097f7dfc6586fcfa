"""``cellaqm reproduce hsdsch-buffer-mgmt``: buffer management for TCP over the
HSDPA shared channel (spec: hsdsch-buffer-mgmt.md), on the shared experiment
machinery of :mod:`cellaqm.study`.

The study's buffer schemes, in IP packets (:func:`queue`): DT n (tail drop),
DF n (drop-front), RED n (ns-2.27's RED with its drop-front: thresholds n and
4n, limit 8n, instantaneous queue, max_p 1/10, gentle), PDPC n (its spec's
pseudo-code: thresholds n + 1 and 4n, counter 2n, drop-front) and a reference
buffer that never drops. Scenario 1 puts them in front of a dedicated wired
link standing in for a 3G bearer (the spec's choice: 384 kb/s, 100 ms one
way) and measures one 250 kB transfer per buffer size.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Optional

from cellaqm.study import Experiment, Run, Study, lines_figure

#: The page that explains the model, the parameters and the experiments.
DOC = "docs/hsdsch.md"

#: TCP as the study ran it: ns-2.27 SACK (tcp-sack1), 1500-byte packets; the
#: spec's choices where it is silent: advertised window 64 KB (44 segments),
#: initial window 2, an ACK per segment, initial RTO 6 s, and no RTO floor
#: beyond ns-2's two 10 ms ticks (20 ms).
TCP: dict[str, Any] = {"recovery": "sack", "mss": "1460B", "header": "40B", "initial_window": 2, "rwnd": 44,
                       "delayed_ack": False, "rto_min": "20ms", "rto_initial": "6s"}

SCHEMES = ("dt", "df", "red", "pdpc")
LABELS = {"dt": "DT", "df": "DF", "red": "RED", "pdpc": "PDPC", "ref": "reference"}


def queue(scheme: str, n: int) -> tuple[dict[str, Any], Optional[int]]:
    """The study's scheme ``scheme`` for size ``n`` packets: (queue discipline, buffer limit in packets or None)."""
    if scheme == "dt":
        return {"scheme": "tail_drop"}, n
    if scheme == "df":
        return {"scheme": "drop_front"}, n
    if scheme == "red":
        return {"scheme": "red", "thresholds": {"min": n, "max": 4 * n}, "max_p": 0.1, "gentle": True, "w_q": 1.0,
                "mean_packet": "1500B", "drop": "ns2_front", "ns2": True}, 8 * n
    if scheme == "pdpc":
        # The spec drops when q > n; its upper threshold 4n bounds the queue, so no limit is needed.
        return {"scheme": "pdpc", "thresholds": {"min": n + 1, "max": 4 * n}, "counter": 2 * n, "drop": "front"}, None
    if scheme == "ref":
        return {"scheme": "tail_drop"}, None
    raise ValueError(f"unknown scheme {scheme!r} (one of {', '.join(LABELS)})")


def wired(scheme: str, n: int, rate_bps: float = 384e3, delay_s: float = 0.1, size: str = "250kB") -> dict[str, Any]:
    """Scenario 1: one transfer over a dedicated wired bottleneck managed by ``scheme`` n."""
    q, limit = queue(scheme, n)
    rate, delay = f"{rate_bps / 1e3:g}kbps", f"{delay_s * 1e3:g}ms"
    bottleneck: dict[str, Any] = {"rate": rate, "delay": delay, "queue": q}
    if limit is not None:
        bottleneck["buffer_packets"] = limit
    return {
        "name": f"hsdsch-wired-{scheme}{n}",
        "description": f"HS-DSCH study scenario 1: {LABELS[scheme]} {n}, {rate}, {delay} one way, one {size} transfer",
        "duration": "600s",
        "tcp": dict(TCP),
        "traffic": {"model": "file", "size": size},
        "core": {"rate": "100Mbps", "delay": "0ms"},
        "bottleneck": bottleneck,
        "uplink": {"rate": "100Mbps", "delay": delay},
    }


def fixed_delay_ms(rate_bps: float, delay_s: float, core_bps: float = 100e6) -> float:
    """A full 1500-byte packet's one-way delay through an empty core link and bottleneck, ms."""
    return (delay_s + 1500 * 8 / rate_bps + 1500 * 8 / core_bps) * 1e3


def measure(run: Run) -> Run:
    """Simulates ``run``: drops per transfer, transfer time, mean queuing delay and goodput."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    res = simulate(run.doc, seed=run.seed)
    s = res.summary
    d = res.downloads
    done = d[d["completion_s"].notna()]
    b = s["bottleneck"]
    out: dict[str, Any] = {
        "drops": float(sum((b.get("drops") or {}).values())),
        "transfer_s": float(done["time_s"].mean()) if len(done) else math.nan,
        # The data packets' mean one-way delay less its fixed part: propagation and
        # the transmission of a full packet on the core and the bottleneck links.
        "queue_ms": float(s["delay_ms"]["mean"]) - run.options["fixed_ms"] if s["delay_ms"]["mean"] is not None
        else math.nan,
        "rtos": float(s["rtos"]),
    }
    out["wall_s"] = time.perf_counter() - t0
    run.out = out
    return run


SIZES = [2, 4, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80]


def wired_runs(quick: bool, reps: int) -> list[Run]:
    """Scenario 1 (Figs. 4–5): DT, DF, RED, PDPC at each buffer size; RED replicated (its drops are random)."""
    sizes = [2, 6, 15, 40] if quick else SIZES
    runs = []
    for scheme in (*SCHEMES, "ref"):
        for n in sizes if scheme != "ref" else [sizes[0]]:
            for seed in range(1, (reps if scheme == "red" else 1) + 1):
                label = {"scheme": LABELS[scheme], "buffer [packets]": n if scheme != "ref" else "∞"}
                runs.append(Run(label, wired(scheme, n), seed, {"fixed_ms": fixed_delay_ms(384e3, 0.1)}))
    return runs


MEASURE_LABELS = {
    "drops": "drops per transfer",
    "transfer_s": "transfer time [s]",
    "queue_ms": "mean queuing delay [ms]",
    "rtos": "RTOs",
}

EXPERIMENTS: list[Experiment] = [
    Experiment("wired", "One dedicated buffer in front of a 384 kb/s wired link (scenario 1, Figs. 4–5)",
               wired_runs, ("scheme", "buffer [packets]"), ("drops", "transfer_s", "queue_ms", "rtos"),
               lines_figure("buffer [packets]", "scheme", ("drops", "transfer_s", "queue_ms"), MEASURE_LABELS),
               "one 250 kB transfer, 100 ms one way; RED replicated, the others deterministic"),
]

STUDY = Study("hsdsch-buffer-mgmt", "Buffer management for TCP over HS-DSCH", DOC, EXPERIMENTS, measure,
              MEASURE_LABELS, reps=(10, 2))


def command(args: Any, jobs: int, out: Path) -> int:
    from cellaqm import study

    return study.command(STUDY, args, jobs, out)
