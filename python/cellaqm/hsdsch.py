"""``cellaqm reproduce hsdsch-buffer-mgmt``: buffer management for TCP over the
HSDPA shared channel (the HS-DSCH study, simulated in ns-2.27), on the shared
experiment machinery of :mod:`cellaqm.study`.

The study's buffer schemes, in IP packets (:func:`queue`): DT n (tail drop),
DF n (drop-front), RED n (ns-2.27's RED with its drop-front: thresholds n and
4n, limit 8n, instantaneous queue, max_p 1/10, gentle), PDPC n (thresholds
n + 1 and 4n, counter 2n, drop-front) and a reference buffer that never drops.
TCP is ns-2.27's ``tcp-sack1``: its loss recovery and that release's timer defaults (:data:`TCP`).
Scenario 1 puts the schemes in front of a dedicated wired link standing in
for a 3G bearer and measures one 250 kB transfer per buffer size (also on a
faster, shorter link, and RED with a narrower threshold gap). Scenario 2 runs
them at the RNC of the seven-cell HS-DSCH system (``[radio.cells]``) under
the session load and judges them by system goodput per cell, with the
study's paired t-tests (Bonferroni), two-factor ANOVA (scheme × size) and
Tukey comparisons; scenario 3 times one user's 250 kB transfers alone in the
system. The study's 29 stated findings are judged at the end
(:data:`FINDINGS`, rules in docs/hsdsch.md).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional

from cellaqm.findings import Finding, Results, Verdict, compare, fails, holds, inconclusive
from cellaqm.study import Experiment, Run, Study, bars_figure, lines_figure

#: The page that explains the model, the parameters and the experiments.
DOC = "docs/hsdsch.md"

#: TCP as the study ran it: ns-2.27's Agent/TCP/Sack1, its own loss recovery
#: (``recovery = "ns2_sack1"``: pipe_ counts lost packets as in flight, tcp-sack1.cc)
#: with its defaults of that release (tcl/lib/ns-default.tcl, January 2004): 10 ms ticks, a 1 s minimum
#: RTO, 6 s before the first sample, maxrto_ 100 000 s, limited transmit
#: (singledup_ 1), an initial window of 2, 40-byte headers, an ACK per segment
#: (TCPSink/Sack1); segments of 1460 B (the study's 1500-byte packets). The
#: advertised window is set beyond any file, as the study's text implies (a
#: lone user's DT drops at 30–100 packets; the reference buffer "must hold a
#: 2 MB file"). docs/scenario.md shows the same block as a scenario file.
TCP: dict[str, Any] = {"congestion": "reno", "recovery": "ns2_sack1", "mss": "1460B", "header": "40B",
                       "initial_window": 2, "rwnd": 100000, "limited_transmit": True, "delayed_ack": False,
                       "timestamps": False, "rto_formula": "ns2", "timer_tick": "10ms", "rto_min": "1s",
                       "rto_initial": "6s", "rto_max": "100000s", "rto_restart": "always",
                       "restart_after_idle": True}

SCHEMES = ("dt", "df", "red", "pdpc")
LABELS = {"dt": "DT", "df": "DF", "red": "RED", "pdpc": "PDPC", "ref": "reference"}


def queue(scheme: str, n: int, red_gap: int = 4) -> tuple[dict[str, Any], Optional[int]]:
    """The study's scheme ``scheme`` for size ``n`` packets: (queue discipline, buffer limit in packets or None).

    ``red_gap``: RED's t_max as a multiple of t_min (the study: 4; 2 for the narrower gap).
    """
    if scheme == "dt":
        return {"scheme": "tail_drop"}, n
    if scheme == "df":
        return {"scheme": "drop_front"}, n
    if scheme == "red":
        return {"scheme": "red", "thresholds": {"min": n, "max": red_gap * n}, "max_p": 0.1, "gentle": True,
                "w_q": 1.0, "mean_packet": "1500B", "drop": "ns2_front", "ns2": True}, 8 * n
    if scheme == "pdpc":
        # The study's PDPC drops when q > n; its upper threshold 4n bounds the queue, so no limit is needed.
        return {"scheme": "pdpc", "thresholds": {"min": n + 1, "max": 4 * n}, "counter": 2 * n, "drop": "front"}, None
    if scheme == "ref":
        return {"scheme": "tail_drop"}, None
    raise ValueError(f"unknown scheme {scheme!r} (one of {', '.join(LABELS)})")


#: Scenario 1's link (our choice: the study gives none): 384 kb/s, 100 ms one way; and the faster,
#: shorter one of its repeat ("a faster link and other delays", no values; ours: 2 Mb/s, 20 ms).
SLOW = (384e3, 0.1)
FAST = (2e6, 0.02)


def wired(scheme: str, n: int, rate_bps: float = SLOW[0], delay_s: float = SLOW[1], size: str = "250kB",
          red_gap: int = 4) -> dict[str, Any]:
    """Scenario 1: one transfer over a dedicated wired bottleneck managed by ``scheme`` n."""
    q, limit = queue(scheme, n, red_gap)
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
    """Simulates ``run``: scenario 1's drops, transfer time and queuing delay, the system's measures, or the
    RED curve's early-drop fraction."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    if run.options.get("system"):
        run.out = measure_system(run)
    elif run.options.get("red_curve"):
        run.out = red_drop_fraction(run.doc, run.options["arrivals"])
    else:
        res = simulate(run.doc, seed=run.seed)
        s = res.summary
        d = res.downloads
        done = d[d["completion_s"].notna()]
        b = s["bottleneck"]
        drops = float(sum((b.get("drops") or {}).values()))
        events = float(s["fast_retransmits"] + s["rtos"])
        run.out = {
            "drops": drops,
            "transfer_s": float(done["time_s"].mean()) if len(done) else math.nan,
            # The data packets' mean one-way delay less its fixed part: propagation and
            # the transmission of a full packet on the core and the bottleneck links.
            "queue_ms": float(s["delay_ms"]["mean"]) - run.options["fixed_ms"] if s["delay_ms"]["mean"] is not None
            else math.nan,
            "rtos": float(s["rtos"]),
            "drops_per_event": drops / events if events else math.nan,
            "stalled_flows": float(s["stalled_flows"]),
        }
    run.out["wall_s"] = time.perf_counter() - t0
    return run


SIZES = [2, 4, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80]


def wired_runs(quick: bool, reps: int, rate_delay: tuple[float, float] = SLOW) -> list[Run]:
    """Scenario 1 (Figs. 4–5): DT, DF, RED, PDPC at each buffer size; RED replicated (its drops are random)."""
    sizes = [2, 6, 15, 40] if quick else SIZES
    fixed = fixed_delay_ms(*rate_delay)
    runs = []
    for scheme in (*SCHEMES, "ref"):
        for n in sizes if scheme != "ref" else [sizes[0]]:
            for seed in range(1, (reps if scheme == "red" else 1) + 1):
                label = {"scheme": LABELS[scheme], "buffer [packets]": n if scheme != "ref" else "∞"}
                runs.append(Run(label, wired(scheme, n, *rate_delay), seed, {"fixed_ms": fixed}))
    return runs


GAP = "t_max / t_min"


def red_gap_runs(quick: bool, reps: int) -> list[Run]:
    """RED with the study's threshold gap (t_max = 4 t_min) and a narrower one (2 t_min), on scenario 1's link."""
    sizes = [4, 15] if quick else [2, 4, 6, 8, 10, 15, 20, 25, 30]
    fixed = fixed_delay_ms(*SLOW)
    return [Run({GAP: gap, "buffer [packets]": n}, wired("red", n, red_gap=gap), seed, {"fixed_ms": fixed})
            for gap in (4, 2) for n in sizes for seed in range(1, reps + 1)]


# --------------------------------------------------------------------------- RED's drop curve (H27)

#: The study's Figure 1 settings: t_min 5 packets, t_max 3 or 4 t_min, max_p 10% or 100%, gentle.
RED_CURVES = [(5, 15, 0.1), (5, 20, 0.1), (5, 15, 1.0), (5, 20, 1.0)]
SETTING, OCCUPANCY = "t_min, t_max, max_p", "queue [packets]"


def red_curve_runs(quick: bool, reps: int) -> list[Run]:
    """ns-2's RED (w_q = 1) held at each queue length where p_b < 1 (below 2 t_max; below t_max with max_p = 1,
    where gentle's line is flat at 1 and no arrival is ever accepted): the share of arrivals dropped early."""
    runs = []
    for tmin, tmax, max_p in RED_CURVES:
        q = {"scheme": "red", "thresholds": {"min": tmin, "max": tmax}, "max_p": max_p, "gentle": True,
             "w_q": 1.0, "mean_packet": "1500B", "ns2": True}
        for occupancy in range(2, 2 * tmax if max_p < 1 else tmax, 3 if quick else 1):
            runs.append(Run({SETTING: f"{tmin}, {tmax}, {max_p:g}", OCCUPANCY: occupancy}, {**q, "hold": occupancy},
                            1, {"red_curve": True, "arrivals": 4000 if quick else 20000}))
    return runs


def red_drop_fraction(doc: dict[str, Any], arrivals: int) -> dict[str, Any]:
    """Holds a RED queue at ``doc["hold"]`` packets (an accepted arrival is followed by a departure) and counts
    the arrivals it drops, out of ``arrivals``."""
    from cellaqm import queues

    params = {k: v for k, v in doc.items() if k not in ("scheme", "hold")}
    q = queues.make("red", **params)
    now = 0.0
    for _ in range(1000 * doc["hold"]):
        if len(q) >= doc["hold"]:
            break
        now += 1e-3
        q.enqueue(1500, now=now)
    else:
        raise ValueError(f"RED does not let its queue reach {doc['hold']} packets")
    dropped = 0
    for _ in range(arrivals):
        now += 1e-3
        if q.enqueue(1500, now=now).accepted:
            q.dequeue(now=now)
        else:
            dropped += 1
    return {"drop_fraction": dropped / arrivals}


def red_p_b(q: float, tmin: float, tmax: float, max_p: float) -> float:
    """The study's eq. (1) with gentle RED: p_b = max_p (q − t_min)/(t_max − t_min) between the thresholds,
    rising linearly from max_p to 1 between t_max and 2 t_max."""
    if q < tmin:
        return 0.0
    if q < tmax:
        return max_p * (q - tmin) / (tmax - tmin)
    return min(1.0, max_p + (1 - max_p) * (q - tmax) / tmax)


def wait_rule_fraction(p_b: float) -> float:
    """The long-run share of arrivals dropped at a constant p_b under ns-2's "wait" count rule (p_a = 0 while
    count·p_b < 1, then p_b/(2 − count·p_b), 1 from count·p_b ≥ 2): 1 / the mean spacing between drops."""
    if p_b <= 0:
        return 0.0
    spacing, survive, count = 0.0, 1.0, 1
    while survive > 1e-12:
        spacing += survive
        cp = count * p_b
        p_a = 0.0 if cp < 1 else p_b / (2 - cp) if cp < 2 else 1.0
        survive *= 1 - min(1.0, p_a)
        count += 1
    return 1 / spacing


# --------------------------------------------------------------------------- scenario 2 and 3: the HS-DSCH system

#: The session loads (the study): long transfers (60 users, 250 kB) and web
#: (200 users, Pareto sizes with k = 4.5 kB, shape 1.1, capped at 2 MB: mean
#: about 25 kB after the cap, our choice of reading).
LOADS: dict[str, dict[str, Any]] = {
    "long": {"users": 60, "size": "250kB"},
    "web": {"users": 200, "size": {"dist": "pareto", "scale": "4.5kB", "shape": 1.1, "cap": "2MB"}},
}
SCHEDULERS = {"rr": ("round_robin", "RR"), "sir": ("max_ci", "max-SIR")}


def system(scheme: str, n: int, load: str, scheduler: str, wait_s: float, duration_s: float = 300.0,
           users: Optional[int] = None, loss: float = 0.0, delay_ms: float = 25.0,
           interference: str = "on_air") -> dict[str, Any]:
    """Scenario 2 (and 3 with ``users = 1``): ``scheme`` n at the RNC of the seven-cell HS-DSCH system.

    Sessions arrive every U(0, 2 × ``wait_s``) (our choice) at a random idle user. The RNC buffer counts
    every packet not yet fully handed to the radio (``buffer_holds = "until_fully_sent"``). ``interference``: which
    other cells a user's SIR counts (``"full"``: all, always).
    """
    q, limit = queue(scheme, n)
    radio: dict[str, Any] = {
        "bearer": "hsdpa", "queue": q, "buffer_holds": "until_fully_sent",
        "hsdpa": {"scheduler": SCHEDULERS[scheduler][0], "air_delay": "0ms"},
        "cells": {"layout": "hex7", "radius": "500m", "users_per_tti": 3, "bler": 0.1, "interference": interference},
        "rlc": {"window": 2047},
        # The ACK path: near-ideal (the study's 25 ms is on the core link).
        "uplink": {"rate": "10Mbps", "tti": "2ms", "delay": "0ms"},
    }
    if limit is not None:
        radio["buffer_packets"] = limit
    spec = LOADS[load]
    core: dict[str, Any] = {"rate": "1Gbps", "delay": f"{delay_ms:g}ms"}
    if loss:
        core["loss"] = loss
    return {
        "name": f"hsdsch-{load}-{scheduler}-{scheme}{n}",
        "description": (f"HS-DSCH study: {load} load, {SCHEDULERS[scheduler][1]}, mean wait {wait_s:g} s, "
                        f"{LABELS[scheme]} {n}"),
        "duration": f"{duration_s:g}s",
        "tcp": dict(TCP),
        "traffic": {"model": "sessions", "users": users or spec["users"],
                    "interarrival": {"dist": "uniform", "min": "0s", "max": f"{2 * wait_s * 1e3:g}ms"},
                    "size": spec["size"]},
        "core": core,
        "radio": radio,
    }


def jain(rates: Any) -> float:
    """Jain's fairness index of ``rates``: (Σx)² / (n Σx²); 1 when all are equal, NaN if none."""
    import numpy as np

    x = np.asarray(rates, dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x * x).sum())) if len(x) and (x * x).sum() > 0 else math.nan


def measure_system(run: Run) -> dict[str, Any]:
    """System goodput per cell (the study's metric), sessions, transfer times, the RNC queue per user in a
    session, the per-session rate fairness, and the cells' capacity terms."""
    from cellaqm import run as simulate

    res = simulate(run.doc, seed=run.seed)
    s = res.summary
    d = res.downloads
    done = d[d["completion_s"].notna()]
    sessions = s.get("sessions") or {}
    duration = float(s["duration_s"])
    # Time users spent in a session (finished or not): the RNC buffers' mean backlog over it is the mean
    # queue a user in a session has.
    in_session = float((d["completion_s"].fillna(duration) - d["request_s"]).sum()) if len(d) else 0.0
    queued = float(s["bottleneck"]["mean_queue_packets"]) * duration
    return {
        "goodput_kbps": float(s["goodput_per_cell_bps"]) / 1e3 if s.get("goodput_per_cell_bps") is not None
        else math.nan,
        "sessions_offered": float(sessions.get("offered", 0)),
        "sessions_served": float(sessions.get("served", 0)),
        "sessions_lost": float(sessions.get("lost", 0)),
        "transfer_s": float(done["time_s"].mean()) if len(done) else math.nan,
        "transfer_median_s": float(done["time_s"].median()) if len(done) else math.nan,
        "queue_per_user": queued / in_session if in_session > 0 else math.nan,
        "fairness": jain(done["bytes"] * 8 / done["time_s"]),
        "rtos": float(s["rtos"]),
        "stalled_flows": float(s["stalled_flows"]),
        **capacity_terms(s.get("cells") or [], duration),
    }


#: The formats' rates (the study's table, Mb/s), in the order of ``summary.cells[].mcs_use``.
FORMAT_MBPS = (1.44, 2.88, 4.32, 7.2)


def capacity_terms(cells: list[dict[str, Any]], duration_s: float, tti_s: float = 0.002) -> dict[str, float]:
    """What a cell's goodput is made of, over the seven cells of a run (``summary.cells``).

    ``busy``: share of TTIs on air; ``air_on_kbps``: RLC bytes received per TTI on air (the
    cell's rate while it sends); ``format_mbps``: the mean rate of the formats of the users
    served (each user share counted once); ``mcs<i>``: the formats' shares; ``bler``: blocks
    lost per TTI on air; ``users_tti``: users per new block; ``sir_p5/p50/p95``: the cells'
    mean percentiles of the backlogged users' SIR (dB); ``handovers_s``: handovers per second
    per cell.
    """
    if not cells:
        return {}
    n, ttis = len(cells), duration_s / tti_s
    on_air = sum(c["tti_utilisation"] or 0.0 for c in cells)
    mcs = [sum((c["mcs_use"] or [0] * 4)[i] for c in cells) for i in range(4)]
    shares = [m / max(1, sum(mcs)) for m in mcs]
    sir = [c["sir_db"] for c in cells if c["sir_db"] and c["sir_db"]["samples"]]
    out = {
        "busy": on_air / n,
        "air_on_kbps": sum(c["air_bps"] or 0.0 for c in cells) / max(on_air, 1e-12) / 1e3,
        "format_mbps": sum(sh * r for sh, r in zip(shares, FORMAT_MBPS)),
        "bler": sum(c["blocks_lost"] or 0 for c in cells) / max(on_air * ttis, 1.0),
        "users_tti": sum(c["users_per_tti"] or 0.0 for c in cells) / n,
        "handovers_s": sum(c["handovers_in"] or 0 for c in cells) / n / duration_s,
        **{f"mcs{i}": sh for i, sh in enumerate(shares)},
    }
    for q in ("p5", "p50", "p95"):
        out[f"sir_{q}"] = sum(x[q] for x in sir) / len(sir) if sir else math.nan
    return out


def design_runs(load: str, scheduler: str, wait_s: float, cases: list[tuple[str, int]], quick: bool,
                reps: int) -> list[Run]:
    """Scenario 2 runs of ``cases`` (scheme, size), every case on the same seeds (common random numbers)."""
    duration = 60.0 if quick else 300.0
    runs = []
    for scheme, n in cases:
        for seed in range(1, reps + 1):
            label = {"scheme": LABELS[scheme], "buffer [packets]": n if scheme != "ref" else "∞"}
            runs.append(Run(label, system(scheme, n, load, scheduler, wait_s, duration), seed, {"system": True}))
    return runs


#: The 2 × 4 design of the study's ANOVA, and the reference.
DESIGN = [(s, n) for s in SCHEMES for n in (4, 30)]
REFERENCE = ("ref", 4)
BUFFER = "buffer [packets]"


def frame(runs: list[Run], measure: str) -> Any:
    """``measure`` of each run with its labels and seed, as a DataFrame."""
    import pandas as pd

    return pd.DataFrame([{**r.labels, "seed": r.seed, measure: r.out[measure]} for r in runs])


def design_stats(df: Any) -> tuple[Any, Any]:
    """The study's two-factor ANOVA (scheme × buffer size, with interaction) and Tukey HSD between the eight
    cases of ``df`` (:func:`frame` of system goodput; the reference is left out); (None, None) with fewer than
    two replications."""
    from cellaqm import stats

    df = df[df["scheme"] != LABELS["ref"]].copy()
    if df["seed"].nunique() < 2:
        return None, None
    df[BUFFER] = df[BUFFER].astype(str)
    return stats.anova2(df, "goodput_kbps", "scheme", BUFFER), stats.tukey_hsd(df, "goodput_kbps", ["scheme", BUFFER])


def anova_text(runs: list[Run]) -> str:
    """The ANOVA and Tukey comparisons of :func:`design_stats`, as Markdown."""
    a, t = design_stats(frame(runs, "goodput_kbps"))
    if a is None:
        return "(ANOVA needs two replications or more)\n"
    lines = ["ANOVA of system goodput per cell (scheme × buffer size):", "",
             "| term | df | F | p | η² |", "|---|---:|---:|---:|---:|"]
    for _, r in a.iterrows():
        lines.append(f"| {r['term']} | {r['df']:.0f} | {r['F']:.2f} | {r['p']:.3g} | {r['eta_sq']:.3f} |"
                     if r["term"] != "Residual" else f"| Residual | {r['df']:.0f} | | | {r['eta_sq']:.3f} |")
    sig = t[t["reject"]]
    lines += ["", f"Tukey HSD (95%): {len(sig)} of {len(t)} pairs differ"
              + (":" if len(sig) else "."), ""]
    for _, r in sig.iterrows():
        lines.append(f"- {r['group2']} − {r['group1']}: {r['mean_diff']:+.1f} kb/s "
                     f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], p = {r['p_adj']:.3g}")
    return "\n".join(lines) + "\n"


def versus_reference(df: Any) -> Any:
    """Paired t-tests of each case of ``df`` (:func:`frame` of system goodput) against the reference buffer
    (Bonferroni), on the common seeds; None with fewer than two replications."""
    from cellaqm import stats

    df = df.copy()
    if df["seed"].nunique() < 2:
        return None
    df["case"] = df["scheme"] + " " + df[BUFFER].astype(str)
    return stats.paired_tests(df, "goodput_kbps", "case", reference=f"{LABELS['ref']} ∞")


def versus_reference_text(runs: list[Run]) -> str:
    t = versus_reference(frame(runs, "goodput_kbps"))
    if t is None:
        return "(paired tests need two replications or more)\n"
    lines = ["Paired t-tests against the reference buffer (Bonferroni):", "",
             "| case | pairs | difference [kb/s] (95% CI) | % | p (Bonferroni) | |", "|---|---:|---:|---:|---:|---|"]
    for _, r in t.iterrows():
        lines.append(f"| {r['level']} | {r['n_pairs']} | {r['mean_diff']:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] "
                     f"| {r['pct_diff']:+.1f} | {r['p_bonferroni']:.3g} | {'differs' if r['significant'] else ''} |")
    return "\n".join(lines) + "\n"


def both(runs: list[Run]) -> str:
    return anova_text(runs) + "\n" + versus_reference_text(runs)


SYSTEM_MEASURES = ("goodput_kbps", "sessions_offered", "sessions_served", "sessions_lost", "transfer_s",
                   "queue_per_user", "users_tti", "fairness", "rtos")


def system_experiment(load: str, scheduler: str, wait_s: float, design: bool, reference: bool = True,
                      remark: str = "") -> Experiment:
    """Scenario 2 under ``load`` and ``scheduler`` with mean wait ``wait_s``: the 2 × 4 design (``design``,
    with the ANOVA) or DT 4 and DT 30 alone, and the reference buffer (paired t-tests against it) where the
    study compares a case with it (``reference``: not at max-SIR's highest load nor with web sessions, where
    it runs the ANOVA alone; the reference's runs there would feed no stated comparison)."""
    name = f"{load}-{scheduler}-{wait_s:g}"
    cases = [*(DESIGN if design else [("dt", 4), ("dt", 30)]), *([REFERENCE] if reference else [])]
    analysis = (both if reference else anova_text) if design else versus_reference_text
    what = "{DT, DF, RED, PDPC} × {4, 30}" if design else "DT 4 and DT 30 against the reference"
    wait = f"{wait_s:g} s" if wait_s >= 0.1 else f"{wait_s * 1e3:g} ms"
    sessions = "Long transfers" if load == "long" else f"Web, {LOADS[load]['users']} users"
    title = f"{sessions}, {SCHEDULERS[scheduler][1]}, mean wait {wait}: {what}{remark} (scenario 2)"
    return Experiment(
        name, title, lambda quick, reps: design_runs(load, scheduler, wait_s, cases, quick, reps),
        ("scheme", BUFFER), SYSTEM_MEASURES,
        bars_figure(BUFFER, "scheme", ("goodput_kbps", "transfer_s"), MEASURE_LABELS),
        f"{LOADS[load]['users']} users, {SCHEDULERS[scheduler][1]}, mean waiting time {wait_s:g} s, 300 s "
        "(60 s with --quick); system goodput per cell" + ("" if reference else "; no reference buffer (the study "
                                                          "runs the ANOVA alone here)"), analysis=analysis)


PATHS = {"(a) 25 ms": {}, "(b) 75 ms": {"delay_ms": 75.0}, "(c) 25 ms, 1% loss": {"loss": 0.01}}
SINGLE_SIZES = [5, 10, 15, 20, 30, 50, 100]


def single_user_runs(quick: bool, reps: int, paths: Optional[dict[str, dict[str, Any]]] = None,
                     interference: str = "on_air") -> list[Run]:
    """Scenario 3: one user alone, DT, DF, RED, PDPC n at its RNC, 250 kB transfers, buffer 5–100 packets.

    A session every U(0, 20 s) gives the user a new random position each time: a 300 s run
    is about 30 transfers (the study's 30 runs per point); ``reps`` runs per point.
    """
    sizes = [5, 20, 100] if quick else SINGLE_SIZES
    runs = []
    for case, opts in (paths or PATHS).items():
        for scheme in SCHEMES:
            for n in sizes:
                for seed in range(1, reps + 1):
                    doc = system(scheme, n, "long", "rr", 10.0, 60.0 if quick else 300.0, users=1,
                                 interference=interference, **opts)
                    runs.append(Run({"path": case, "scheme": LABELS[scheme], BUFFER: n}, doc, seed,
                                    {"system": True}))
    return runs


#: The load sweep: mean waiting times of the long-transfer load (the study's 0.4 and 0.2 s and
#: beyond), the cases where the schemes separate, and the replications (full; --quick: 2 loads, 60 s).
SWEEP_WAITS = (0.4, 0.2, 0.1, 0.05)
SWEEP_CASES = [("dt", 4), ("dt", 30), ("df", 4), REFERENCE]
OFFERED = "offered [kb/s per cell]"


def offered_kbps(load: str, wait_s: float) -> int:
    """A fixed-size load's offered bytes per second per cell: one file every ``wait_s`` on average over 7 cells."""
    size = LOADS[load]["size"]
    assert isinstance(size, str) and size.endswith("kB"), "a fixed size in kB"
    return round(float(size[:-2]) * 8 / wait_s / 7)


def sweep_runs(quick: bool, reps: int) -> list[Run]:
    """Long transfers under RR loaded from the study's 0.4 s to past saturation (0.05 s): where the schemes separate."""
    waits = (0.2, 0.05) if quick else SWEEP_WAITS
    runs = []
    for wait in waits:
        for scheme, n in SWEEP_CASES:
            case = LABELS[scheme] + ("" if scheme == "ref" else f" {n}")
            label = {OFFERED: offered_kbps("long", wait), "mean wait": f"{wait:g} s", "case": case}
            for seed in range(1, min(reps, 3) + 1):
                doc = system(scheme, n, "long", "rr", wait, 60.0 if quick else 120.0)
                runs.append(Run(label, doc, seed, {"system": True}))
    return runs


def capacity_text(runs: list[Run]) -> str:
    """The reference buffer's capacity terms at each load (means over the seeds): what a cell's goodput is made of."""
    ref = [r for r in runs if r.labels["case"] == LABELS["ref"]]
    loads = list(dict.fromkeys(r.labels[OFFERED] for r in ref))
    lines = ["Capacity terms of the seven cells, reference buffer (means over the seeds; `capacity_terms`):", "",
             "| offered [kb/s per cell] | goodput | TTIs on air | rate on air [kb/s] | format rate [Mb/s] "
             "| QPSK 1/4 / 1/2, 16QAM 3/8 / 5/8 | BLER | users per block | SIR p5 / p50 / p95 [dB] "
             "| handovers per s per cell |", "|---:|---:|---:|---:|---:|---|---:|---:|---|---:|"]
    for load in loads:
        rs = [r.out for r in ref if r.labels[OFFERED] == load]

        def m(k: str) -> float:
            return sum(o[k] for o in rs) / len(rs)

        mcs = " / ".join(f"{m(f'mcs{i}'):.2f}" for i in range(4))
        lines.append(f"| {load} | {m('goodput_kbps'):.0f} | {m('busy'):.3f} | {m('air_on_kbps'):.0f} "
                     f"| {m('format_mbps'):.2f} | {mcs} | {m('bler'):.3f} | {m('users_tti'):.2f} "
                     f"| {m('sir_p5'):.1f} / {m('sir_p50'):.1f} / {m('sir_p95'):.1f} | {m('handovers_s'):.2f} |")
    return "\n".join(lines) + "\n"


MEASURE_LABELS = {
    "goodput_kbps": "system goodput per cell [kb/s]",
    "sessions_offered": "sessions offered",
    "sessions_served": "sessions served",
    "sessions_lost": "sessions lost",
    "transfer_median_s": "median transfer time [s]",
    "drops": "drops per transfer",
    "transfer_s": "transfer time [s]",
    "queue_ms": "mean queuing delay [ms]",
    "drops_per_event": "drops per loss event",
    "queue_per_user": "RNC queue per user in a session [packets]",
    "users_tti": "users per TTI",
    "fairness": "session-rate fairness (Jain)",
    "rtos": "RTOs",
    "busy": "TTIs on air",
    "air_on_kbps": "rate on air [kb/s]",
    "drop_fraction": "arrivals dropped early",
}

WIRED_MEASURES = ("drops", "transfer_s", "queue_ms", "rtos", "drops_per_event")
SINGLE_MEASURES = ("transfer_median_s", "transfer_s", "rtos")
PATH_SCHEME = "path, scheme"


def path_scheme(rows: list[dict[str, Any]]) -> None:
    """Names each scenario-3 row's line in the figure: its path and scheme."""
    for r in rows:
        r[PATH_SCHEME] = f"{r['path']}, {r['scheme']}"

EXPERIMENTS: list[Experiment] = [
    Experiment("wired", "One dedicated buffer in front of a 384 kb/s wired link (scenario 1, Figs. 4–5)",
               wired_runs, ("scheme", BUFFER), WIRED_MEASURES,
               lines_figure(BUFFER, "scheme", ("drops", "transfer_s", "queue_ms"), MEASURE_LABELS),
               "one 250 kB transfer, 100 ms one way; RED replicated, the others deterministic"),
    Experiment("wired-fast", "Scenario 1 on a faster, shorter link: 2 Mb/s, 20 ms one way (Section 2.1.3)",
               lambda quick, reps: wired_runs(quick, reps, FAST), ("scheme", BUFFER), WIRED_MEASURES,
               lines_figure(BUFFER, "scheme", ("drops", "transfer_s", "queue_ms"), MEASURE_LABELS),
               "one 250 kB transfer, 2 Mb/s, 20 ms one way (our choice of values); RED replicated"),
    Experiment("red-gap", "RED with a narrower threshold gap on scenario 1's link (Section 2.1.3)",
               red_gap_runs, (GAP, BUFFER), WIRED_MEASURES,
               lines_figure(BUFFER, GAP, ("queue_ms", "drops_per_event", "transfer_s"), MEASURE_LABELS),
               "RED n with t_max = 4n (the study) and 2n, limit 8n; 384 kb/s, 100 ms; 250 kB"),
    Experiment("red-curve", "RED's early drops held at each queue length, Figure 1's settings (eqs. (1)–(2))",
               red_curve_runs, (SETTING, OCCUPANCY), ("drop_fraction",),
               lines_figure(OCCUPANCY, SETTING, ("drop_fraction",), MEASURE_LABELS),
               "ns-2's RED, w_q = 1, gentle, with its count rule; 20 000 arrivals per point (--quick: 4 000)"),
    *(e for scheduler in SCHEDULERS for e in (
        system_experiment("long", scheduler, 0.4, design=False),
        system_experiment("long", scheduler, 0.3, design=True),
        system_experiment("long", scheduler, 0.2, design=True, reference=scheduler == "rr",
                          remark=" (our choice for the highest load)"))),
    *(system_experiment("web", scheduler, wait_s, design=True, reference=False)
      for scheduler in SCHEDULERS for wait_s in (0.0175, 0.015)),
    Experiment("load-sweep", "Long transfers, RR, loaded past saturation: where the schemes separate",
               sweep_runs, (OFFERED, "mean wait", "case"),
               ("goodput_kbps", "sessions_offered", "sessions_lost", "transfer_s", "busy", "air_on_kbps"),
               lines_figure(OFFERED, "case", ("goodput_kbps", "sessions_lost", "transfer_s"), MEASURE_LABELS,
                            logx=True),
               "60 users, 250 kB, mean waiting time 0.4–0.05 s (offered load per cell = 250 kB / wait / 7), "
               "120 s, 3 seeds (--quick: 0.2 and 0.05 s, 60 s, 2 seeds)", analysis=capacity_text),
    Experiment("single-user", "One user alone: median transfer time of 250 kB (scenario 3, Figs. 8–9)",
               single_user_runs, ("path", "scheme", BUFFER), SINGLE_MEASURES,
               lines_figure(BUFFER, PATH_SCHEME, ("transfer_median_s",), MEASURE_LABELS),
               "DT, DF, RED, PDPC n at the RNC, one user with every other cell idle (with wrap-around any cell is "
               "the centre); a session every 10 s on average, each at a new random position; loss on the core "
               "link both ways", post=path_scheme),
    Experiment("single-user-loaded", "One user alone, the other cells sending in every TTI: a varying channel",
               lambda quick, reps: single_user_runs(quick, reps, {"(a) 25 ms": {}}, "full"),
               ("path", "scheme", BUFFER), SINGLE_MEASURES,
               lines_figure(BUFFER, PATH_SCHEME, ("transfer_median_s",), MEASURE_LABELS),
               "as single-user (a), with the six other cells at 10 W in every TTI (interference = \"full\")",
               post=path_scheme),
]


# --------------------------------------------------------------------------- the study's findings
#
# Each rule is stated in docs/hsdsch.md ("The study's findings, and how each is judged"), written
# before the outcome was looked at. Helpers first, then one judge per finding.

def case(s: str) -> dict[str, Any]:
    """Labels of a design case named like "DT 4", "RED 30" or "reference"."""
    if s == "reference":
        return {"scheme": LABELS["ref"], BUFFER: "∞"}
    scheme, n = s.split()
    return {"scheme": scheme, BUFFER: int(n)}


def offered(exp: str) -> float:
    """The offered load per cell of a long-transfer design, kb/s."""
    return float(offered_kbps("long", float(exp.rsplit("-", 1)[1])))


def results_frame(res: Results, exp: str) -> Any:
    """System goodput of the design cases ``exp`` ran and its reference, per seed (as :func:`frame`)."""
    import pandas as pd

    cases = [f"{LABELS[s]} {n}" for s, n in DESIGN] + ["reference"]
    return pd.DataFrame([{**case(c), "seed": seed, "goodput_kbps": v} for c in cases
                         for seed, v in res.values(exp, "goodput_kbps", **case(c)).items()])


def tukey(res: Results, exp: str) -> dict[tuple[str, str], tuple[float, bool]]:
    """Tukey HSD of ``exp``'s 2 × 4 design: (a, b) → (mean of a − mean of b, whether Tukey rejects equality),
    both orders; {} with fewer than two replications."""
    _a, t = design_stats(results_frame(res, exp))
    out: dict[tuple[str, str], tuple[float, bool]] = {}
    if t is None:
        return out
    name = {f"{LABELS[s]} / {n}": f"{LABELS[s]} {n}" for s, n in DESIGN}
    for _, r in t.iterrows():
        a, b = name[r["group1"]], name[r["group2"]]
        out[(b, a)] = (float(r["mean_diff"]), bool(r["reject"]))
        out[(a, b)] = (-float(r["mean_diff"]), bool(r["reject"]))
    return out


def anova_p(res: Results, exp: str) -> dict[str, float]:
    """The ANOVA's p per term (scheme, buffer, interaction) of ``exp``; {} with fewer than two replications."""
    a, _t = design_stats(results_frame(res, exp))
    if a is None:
        return {}
    return {r["term"]: float(r["p"]) for _, r in a.iterrows() if r["term"] != "Residual"}


def vs_reference(res: Results, exp: str) -> dict[str, tuple[float, float, float, bool]]:
    """The paired t-tests against the reference (Bonferroni): case → (mean diff, CI low, CI high, significant)."""
    t = versus_reference(results_frame(res, exp))
    if t is None:
        return {}
    return {r["level"]: (float(r["mean_diff"]), float(r["ci_low"]), float(r["ci_high"]), bool(r["significant"]))
            for _, r in t.iterrows()}


def pairs_hold(pairs: list[tuple[str, str]], t: dict[tuple[str, str], tuple[float, bool]],
               floor: float = 0.0) -> tuple[str, str]:
    """Tukey verdict on "a > b" for every (a, b): "holds" if every pair is rejected with a − b ≥ ``floor``
    (and > 0), "fails" if some pair is rejected with a < b or a decided a − b is below ``floor``,
    else "inconclusive"; and the evidence text."""
    if not t:
        return INCONCLUSIVE_, "fewer than two replications"
    text = "; ".join(f"{a} − {b} {t[(a, b)][0]:+.1f}{'*' if t[(a, b)][1] else ''}" for a, b in pairs)
    against = [(a, b) for a, b in pairs if t[(a, b)][1] and (t[(a, b)][0] < 0 or t[(a, b)][0] < floor)]
    if against:
        return FAILS_, text
    if all(t[(a, b)][1] for a, b in pairs):
        return HOLDS_, text
    return INCONCLUSIVE_, text


HOLDS_, FAILS_, INCONCLUSIVE_ = "holds", "fails", "inconclusive"
VERDICT = {HOLDS_: holds, FAILS_: fails, INCONCLUSIVE_: inconclusive}


def verdict(v: str, text: str) -> Verdict:
    return VERDICT[v](text)


def worst(*verdicts: str) -> str:
    """fails if any fails, else inconclusive if any is, else holds."""
    return FAILS_ if FAILS_ in verdicts else INCONCLUSIVE_ if INCONCLUSIVE_ in verdicts else HOLDS_


def row_value(res: Results, exp: str, measure: str, **labels: Any) -> float:
    return float(res.row(exp, **labels)[measure])


def wired_series(res: Results, exp: str, scheme: str, measure: str) -> dict[int, float]:
    """Buffer size → ``measure`` (mean over the runs) of ``scheme`` in a scenario-1 experiment."""
    return {int(r[BUFFER]): float(r[measure]) for r in res.rows(exp, scheme=scheme)}


# ----- scenario 1 (H1–H4, H23, H28, H29)


def h1(res: Results) -> Verdict:
    dt = wired_series(res, "wired", "DT", "drops")
    peak = max(dt, key=lambda n: (dt[n], -n))
    text = "DT drops by size: " + ", ".join(f"{n}: {d:.0f}" for n, d in dt.items()) + f"; peak at {peak}"
    largest = max(dt)
    rises = dt[peak] > dt[min(dt)]
    if 20 <= peak <= 60 and rises and dt[largest] < dt[peak]:
        return holds(text)
    return fails(text)


def h2(res: Results) -> Verdict:
    dt = {int(r[BUFFER]): r for r in res.rows("wired", scheme="DT")}
    ref = row_value(res, "wired", "transfer_s", scheme=LABELS["ref"])
    costly = [n for n, r in dt.items() if n >= 40 and r["drops"] > 0 and r["rtos"] >= 1 and r["transfer_s"] >= 1.1 * ref]
    text = (f"DT ≥ 40 packets: " + ", ".join(f"{n}: {r['drops']:.0f} drops, {r['rtos']:.0f} RTOs, {r['transfer_s']:.2f} s"
                                              for n, r in dt.items() if n >= 40) + f"; reference {ref:.2f} s")
    return holds(text) if costly else fails(text)


def h3(res: Results) -> Verdict:
    red = {int(r[BUFFER]): r for r in res.rows("wired", scheme="RED")}
    dt = {int(r[BUFFER]): r for r in res.rows("wired", scheme="DT")}
    sizes = sorted(set(red) & set(dt))
    from cellaqm.stats import mean_ci

    d_mean, d_half, _n, _sd = mean_ci([red[n]["drops"] - dt[n]["drops"] for n in sizes])
    slower = [n for n in sizes if red[n]["transfer_s"] > dt[n]["transfer_s"]]
    queues = {s: sum(float(r["queue_ms"]) for r in res.rows("wired", scheme=s)) / len(res.rows("wired", scheme=s))
              for s in ("DT", "DF", "RED", "PDPC")}
    largest = max(queues, key=lambda s: queues[s])
    text = (f"RED − DT drops {d_mean:+.1f} ± {d_half:.1f} (paired over {len(sizes)} sizes); RED slower at "
            f"{slower or 'no size'}; mean queuing delay " + ", ".join(f"{s} {q:.0f} ms" for s, q in queues.items()))
    fewer = FAILS_ if d_mean - d_half > 0 else HOLDS_ if d_mean + d_half < 0 else INCONCLUSIVE_
    return verdict(worst(fewer, HOLDS_ if slower else FAILS_, HOLDS_ if largest == "RED" else FAILS_), text)


def h4(res: Results) -> Verdict:
    def mean_over(scheme: str, measure: str) -> float:
        rows = [r for r in res.rows("wired", scheme=scheme) if int(r[BUFFER]) <= 40]
        return sum(float(r[measure]) for r in rows) / len(rows)

    drops = {s: mean_over(s, "drops") for s in ("DT", "DF", "RED", "PDPC")}
    times = {s: mean_over(s, "transfer_s") for s in ("DT", "DF", "RED", "PDPC")}
    by_time = sorted(times, key=lambda s: times[s])
    text = ("mean over 2–40 packets: drops " + ", ".join(f"{s} {d:.1f}" for s, d in drops.items())
            + "; transfer " + ", ".join(f"{s} {t:.2f} s" for s, t in times.items()))
    ok = min(drops, key=lambda s: drops[s]) == "PDPC" and by_time[:2] == ["PDPC", "DF"]
    return holds(text) if ok else fails(text)


def h28(res: Results) -> Verdict:
    from cellaqm.stats import mean_ci

    def spreads(exp: str) -> dict[int, float]:
        out = {}
        for n in sorted({int(r[BUFFER]) for r in res.rows(exp) if r[BUFFER] != "∞"}):
            t = [row_value(res, exp, "transfer_s", scheme=s, **{BUFFER: n}) for s in ("DT", "DF", "RED", "PDPC")]
            out[n] = (max(t) - min(t)) / min(t)
        return out

    slow, fast = spreads("wired"), spreads("wired-fast")
    sizes = sorted(set(slow) & set(fast))
    m, h, n, _sd = mean_ci([fast[k] - slow[k] for k in sizes])
    text = (f"spread of the schemes' transfer times, (max − min)/min, mean over sizes: 384 kb/s "
            f"{sum(slow.values()) / len(slow):.2f}, 2 Mb/s {sum(fast.values()) / len(fast):.2f}; "
            f"fast − slow {m:+.2f} ± {h:.2f} (paired over {n} sizes)")
    return holds(text) if m + h < 0 else fails(text) if m - h > 0 else inconclusive(text)


def h29(res: Results) -> Verdict:
    sizes = sorted({int(r[BUFFER]) for r in res.rows("red-gap")})
    out = []
    for measure in ("queue_ms", "drops_per_event"):
        diffs = [compare(res, "red-gap", measure, {GAP: 2, BUFFER: n}, {GAP: 4, BUFFER: n}) for n in sizes]
        mean = sum(d.mean for d in diffs if not math.isnan(d.mean)) / max(1, sum(not math.isnan(d.mean) for d in diffs))
        out.append((measure, mean, [d.sign for d in diffs]))
    (_, dq, sq), (_, dd, sd) = out
    text = (f"narrow (2n) − study's gap (4n), mean over {len(sizes)} sizes: queuing delay {dq:+.0f} ms "
            f"(decided lower at {sq.count(-1)}, higher at {sq.count(1)} sizes), drops per loss event {dd:+.2f} "
            f"(decided higher at {sd.count(1)}, lower at {sd.count(-1)})")
    lower, more = dq < 0 and sq.count(-1) > sq.count(1), dd > 0 and sd.count(1) > sd.count(-1)
    against = (dq > 0 and sq.count(1) > sq.count(-1)) or (dd < 0 and sd.count(-1) > sd.count(1))
    return holds(text) if lower and more else fails(text) if against else inconclusive(text)


# ----- scenario 2 (H5–H18, H24–H26)


def vs_ref_text(t: dict[str, tuple[float, float, float, bool]], level: str) -> str:
    d, lo, hi, sig = t[level]
    return f"{level} − reference {d:+.1f} [{lo:+.1f}, {hi:+.1f}]{' significant' if sig else ''}"


def h5(res: Results) -> Verdict:
    t = vs_reference(res, "long-rr-0.4")
    if not t:
        return inconclusive("fewer than two replications")
    text = vs_ref_text(t, "DT 30") + "; " + vs_ref_text(t, "DT 4") + " (kb/s/cell, paired, Bonferroni)"
    dt30, dt4 = t["DT 30"], t["DT 4"]
    ref_better = HOLDS_ if dt30[3] and dt30[0] < 0 else FAILS_ if dt30[3] else INCONCLUSIVE_
    return verdict(worst(ref_better, FAILS_ if dt4[3] else HOLDS_), text)


def h6(res: Results) -> Verdict:
    p = anova_p(res, "long-rr-0.3")
    if not p:
        return inconclusive("fewer than two replications")
    text = ", ".join(f"{k} p = {v:.3g}" for k, v in p.items())
    return holds(text) if all(v < 0.05 for v in p.values()) else fails(text)


def h7(res: Results) -> Verdict:
    t = tukey(res, "long-rr-0.3")
    others = [f"{LABELS[s]} {n}" for s, n in DESIGN if (s, n) != ("red", 4)]
    v, text = pairs_hold([(o, "RED 4") for o in others], t, floor=0.035 * offered("long-rr-0.3"))
    return verdict(v, text + " (kb/s/cell; * Tukey 95%)")


def h8(res: Results) -> Verdict:
    t = tukey(res, "long-rr-0.3")
    v, text = pairs_hold([(o, "DT 30") for o in ("DF 4", "DT 4", "PDPC 4", "RED 30")], t,
                         floor=0.0075 * offered("long-rr-0.3"))
    return verdict(v, text + " (kb/s/cell; * Tukey 95%)")


def h9(res: Results) -> Verdict:
    v, text = pairs_hold([(o, "PDPC 30") for o in ("DF 4", "PDPC 4", "RED 30")], tukey(res, "long-rr-0.3"))
    return verdict(v, text + " (kb/s/cell; * Tukey 95%)")


def h10(res: Results) -> Verdict:
    t = vs_reference(res, "long-rr-0.3")
    if not t:
        return inconclusive("fewer than two replications")
    return (fails if t["DF 4"][3] else holds)(vs_ref_text(t, "DF 4") + " (kb/s/cell, paired, Bonferroni)")


#: The pairs H7 and H8 rest on (a > b), for H11.
H7_H8_PAIRS = ([(f"{LABELS[s]} {n}", "RED 4") for s, n in DESIGN if (s, n) != ("red", 4)]
               + [(o, "DT 30") for o in ("DF 4", "DT 4", "PDPC 4", "RED 30")])


def h11(res: Results) -> Verdict:
    t3, t2 = tukey(res, "long-rr-0.3"), tukey(res, "long-rr-0.2")
    if not t2:
        return inconclusive("fewer than two replications")
    v, text = pairs_hold(H7_H8_PAIRS, t2)
    m3 = sum(t3[p][0] for p in H7_H8_PAIRS) / len(H7_H8_PAIRS) if t3 else math.nan
    m2 = sum(t2[p][0] for p in H7_H8_PAIRS) / len(H7_H8_PAIRS)
    df_dt = t2[("DF 30", "DT 4")]
    text = (f"0.2 s: {sum(t2[p][1] and t2[p][0] > 0 for p in H7_H8_PAIRS)} of {len(H7_H8_PAIRS)} pairs decided as "
            f"the study's; mean difference {m2:+.1f} (0.3 s: {m3:+.1f}); DF 30 − DT 4 {df_dt[0]:+.1f}"
            f"{' decided' if df_dt[1] else ''} (kb/s/cell, Tukey 95%)")
    larger = HOLDS_ if m2 > m3 else FAILS_
    return verdict(worst(v, larger, HOLDS_ if df_dt[1] else FAILS_), text)


def h12(res: Results) -> Verdict:
    t = vs_reference(res, "long-sir-0.4")
    if not t:
        return inconclusive("fewer than two replications")
    d = t["DT 30"]
    text = vs_ref_text(t, "DT 30") + " (kb/s/cell, paired, Bonferroni)"
    return holds(text) if d[3] and d[0] < 0 else fails(text) if d[3] else inconclusive(text)


def h13(res: Results) -> Verdict:
    t = tukey(res, "long-sir-0.3")
    df4 = [("DF 4", o) for o in ("DT 30", "RED 4", "RED 30", "PDPC 4", "PDPC 30", "DF 30")]
    dt4 = [("DT 4", o) for o in ("RED 4", "DT 30", "DF 30", "RED 30", "PDPC 30")]
    dt30 = [(f"{LABELS[s]} {n}", "DT 30") for s, n in DESIGN if (s, n) != ("dt", 30)]
    pairs = list(dict.fromkeys(df4 + dt4 + dt30))
    v, text = pairs_hold(pairs, t)
    return verdict(v, text + " (kb/s/cell; * Tukey 95%)")


def h14(res: Results) -> Verdict:
    t = vs_reference(res, "long-sir-0.3")
    if not t:
        return inconclusive("fewer than two replications")
    d, lo, hi, sig = t["DF 4"]
    text = vs_ref_text(t, "DF 4") + f" (kb/s/cell, paired, Bonferroni; half the study's 31: 15.5)"
    if sig and d > 0:
        return holds(text) if d >= 15.5 else fails(text)
    return fails(text) if sig else inconclusive(text)


def h15(res: Results) -> Verdict:
    p, t = anova_p(res, "long-sir-0.2"), tukey(res, "long-sir-0.2")
    if not p:
        return inconclusive("fewer than two replications")
    rejected = sorted({tuple(sorted(k)) for k, (_d, r) in t.items() if r})
    text = ", ".join(f"{k} p = {v:.3g}" for k, v in p.items()) + f"; Tukey pairs differing: {len(rejected)}"
    return holds(text) if all(v >= 0.05 for v in p.values()) and not rejected else fails(text)


WEB = [f"web-{s}-{w:g}" for s in SCHEDULERS for w in (0.0175, 0.015)]


def h16(res: Results) -> Verdict:
    ps = {e: anova_p(res, e) for e in WEB}
    if not all(ps.values()):
        return inconclusive("fewer than two replications")
    alpha = 0.05 / sum(len(p) for p in ps.values())
    smallest = min((v, e, k) for e, p in ps.items() for k, v in p.items())
    text = f"smallest p {smallest[0]:.3g} ({smallest[1]}, {smallest[2]}); Bonferroni level {alpha:.4f}"
    return holds(text) if smallest[0] >= alpha else fails(text)


def goodputs(res: Results, exp: str) -> list[float]:
    """System goodput of every run of ``exp``'s 2 × 4 design cases."""
    return [v for s, n in DESIGN for v in res.values(exp, "goodput_kbps", **case(f"{LABELS[s]} {n}")).values()]


def h17(res: Results) -> Verdict:
    from scipy import stats as st

    verdicts, texts = [], []
    for s in SCHEDULERS:
        web, long_ = goodputs(res, f"web-{s}-0.0175"), goodputs(res, f"long-{s}-0.2")
        t = st.ttest_ind(web, long_, equal_var=False)
        diff = sum(web) / len(web) - sum(long_) / len(long_)
        texts.append(f"{SCHEDULERS[s][1]}: web 17.5 ms − long 0.2 s {diff:+.0f} kb/s/cell (Welch p = {t.pvalue:.2g})")
        verdicts.append(HOLDS_ if t.pvalue < 0.05 and diff > 0 else FAILS_ if t.pvalue < 0.05 else INCONCLUSIVE_)
    return verdict(worst(*verdicts), "; ".join(texts))


def h18(res: Results) -> Verdict:
    verdicts, texts = [], []
    for exp in ("long-rr-0.3", "long-sir-0.3"):
        q = {s: row_value(res, exp, "queue_per_user", **case(f"{s} 30")) for s in ("DT", "DF", "PDPC", "RED")}
        order = [compare(res, exp, "queue_per_user", case(a), case(b)) for a, b in
                 (("PDPC 30", "DT 30"), ("PDPC 30", "DF 30"), ("RED 30", "PDPC 30"))]
        texts.append(f"{exp}: " + ", ".join(f"{s} 30 {v:.1f}" for s, v in q.items()))
        signs = [d.sign for d in order]
        verdicts.append(HOLDS_ if all(x > 0 for x in signs) else FAILS_ if any(x < 0 for x in signs) else INCONCLUSIVE_)
    return verdict(worst(*verdicts), "; ".join(texts) + " (packets per user in a session; paired)")


def h24(res: Results) -> Verdict:
    exps = ["long-rr-0.3", "long-rr-0.2", "long-sir-0.3", "long-sir-0.2"]
    ts = {e: tukey(res, e) for e in exps}
    if not all(ts.values()):
        return inconclusive("fewer than two replications")
    large = {e: ts[e][("DF 30", "DT 30")] for e in exps}
    short = {e: ts[e][("DF 4", "DT 4")] for e in exps}
    text = ("DF 30 − DT 30: " + ", ".join(f"{e} {d:+.1f}{'*' if r else ''}" for e, (d, r) in large.items())
            + "; DF 4 − DT 4: " + ", ".join(f"{e} {d:+.1f}{'*' if r else ''}" for e, (d, r) in short.items())
            + " (kb/s/cell; * Tukey 95%)")
    if any(r and d < 0 for d, r in large.values()) or any(r for _d, r in short.values()):
        return fails(text)
    return holds(text) if any(r and d > 0 for d, r in large.values()) else inconclusive(text)


def h25(res: Results) -> Verdict:
    t = {c: row_value(res, "long-rr-0.3", "transfer_s", **case(c))
         for c in ("DT 4", "DF 4", "PDPC 4", "reference", "DT 30", "DF 30", "RED 4", "RED 30")}
    short, rest = ("DT 4", "DF 4", "PDPC 4", "reference"), ("DT 30", "DF 30", "RED 4", "RED 30")
    text = "mean transfer time: " + ", ".join(f"{c} {v:.2f} s" for c, v in t.items())
    return holds(text) if max(t[c] for c in short) < min(t[c] for c in rest) else fails(text)


def h26(res: Results) -> Verdict:
    exp = "long-sir-0.3"
    verdicts, texts = [], []
    for measure in ("users_tti", "fairness"):
        vals = {n: [v for s in SCHEMES for v in res.values(exp, measure, **case(f"{LABELS[s]} {n}")).values()]
                for n in (4, 30)}
        from scipy import stats as st

        t = st.ttest_rel(vals[4], vals[30])
        diff = sum(vals[4]) / len(vals[4]) - sum(vals[30]) / len(vals[30])
        texts.append(f"{MEASURE_LABELS[measure]}: 4 − 30 {diff:+.3f} (paired over schemes and seeds, p = {t.pvalue:.2g})")
        verdicts.append(HOLDS_ if t.pvalue < 0.05 and diff > 0 else FAILS_ if t.pvalue < 0.05 else INCONCLUSIVE_)
    return verdict(worst(*verdicts), "; ".join(texts))


# ----- RED's curve (H27)


def h27(res: Results) -> Verdict:
    worst_gap, n = 0.0, 0
    for row in res.rows("red-curve"):
        tmin, tmax, max_p = (float(x) for x in row[SETTING].split(", "))
        q = float(row[OCCUPANCY])
        expected = wait_rule_fraction(red_p_b(q, tmin, tmax, max_p)) if q > 1 else 0.0
        gap = abs(float(row["drop_fraction"]) - expected) - (0.1 * expected + 0.002)
        worst_gap, n = max(worst_gap, gap), n + 1
    text = (f"{n} queue lengths over Figure 1's four settings: the early-drop share agrees with eq. (1) and gentle's "
            f"line through ns-2's count rule within 10% + 0.002" + ("" if worst_gap <= 0 else
                                                                    f" except by {worst_gap:.4f}"))
    return holds(text) if worst_gap <= 0 else fails(text)


# ----- scenario 3 (H19–H23)


def medians(res: Results, exp: str, path: str) -> dict[str, dict[int, float]]:
    """scheme → buffer → the mean over the runs of each run's median transfer time."""
    out: dict[str, dict[int, float]] = {}
    for r in res.rows(exp, path=path):
        out.setdefault(r["scheme"], {})[int(r[BUFFER])] = float(r["transfer_median_s"])
    return out


def lowest_everywhere(m: dict[str, dict[int, float]], scheme: str, tolerance: float = 1.05) -> list[int]:
    """The sizes where ``scheme``'s median is NOT within ``tolerance`` of the lowest."""
    return [n for n in m[scheme] if m[scheme][n] > tolerance * min(m[s][n] for s in m)]


def describe(m: dict[str, dict[int, float]]) -> str:
    return "; ".join(f"{s} " + " ".join(f"{v:.2f}" for v in by.values()) for s, by in m.items())


def worse_above(series: dict[int, float], good: tuple[int, ...], large: tuple[int, ...]) -> bool:
    """The medians at every ``large`` size exceed the best of the ``good`` sizes."""
    return min(series[n] for n in large) > min(series[n] for n in good)


def h19(res: Results) -> Verdict:
    m = medians(res, "single-user", "(a) 25 ms")
    lo, hi = min(min(v.values()) for v in m.values()), max(max(v.values()) for v in m.values())
    floor = {n: min(m[s][n] for s in m) for n in SINGLE_SIZES}
    checks = {
        "range": 0.45 <= lo <= 0.9 and 1.5 <= hi <= 3.0,
        "PDPC best": not lowest_everywhere(m, "PDPC"),
        "DT, DF worse above 20": all(worse_above(m[s], (15, 20), (30, 50, 100)) for s in ("DT", "DF")),
        "RED near the floor from 20": all(m["RED"][n] <= 1.1 * floor[n] for n in (20, 30, 50, 100)),
    }
    text = f"medians {lo:.2f}–{hi:.2f} s; " + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in checks.items()) \
        + f" [sizes {SINGLE_SIZES}: {describe(m)}]"
    return holds(text) if all(checks.values()) else fails(text)


def reach(series: dict[int, float], floor: float) -> int:
    """The smallest size from which ``series`` stays within 10% of ``floor`` (10 000 if never)."""
    sizes = sorted(series)
    for i, n in enumerate(sizes):
        if all(series[k] <= 1.1 * floor for k in sizes[i:]):
            return n
    return 10_000


def h20(res: Results) -> Verdict:
    m = medians(res, "single-user", "(b) 75 ms")
    lo, hi = min(min(v.values()) for v in m.values()), max(max(v.values()) for v in m.values())
    reached = {s: reach(m[s], lo) for s in ("PDPC", "DF", "DT")}
    checks = {
        "floor 1.0–1.8 s, worst > 2.5 s": 1.0 <= lo <= 1.8 and hi > 2.5,
        "RED lowest": not lowest_everywhere(m, "RED"),
        "PDPC, DF, DT reach the floor in that order": reached["PDPC"] <= reached["DF"] <= reached["DT"] < 10_000,
    }
    text = f"medians {lo:.2f}–{hi:.2f} s; floor reached at {reached}; " \
        + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in checks.items()) + f" [{describe(m)}]"
    return holds(text) if all(checks.values()) else fails(text)


def h21(res: Results) -> Verdict:
    m = medians(res, "single-user", "(c) 25 ms, 1% loss")
    lo, hi = min(min(v.values()) for v in m.values()), max(max(v.values()) for v in m.values())
    checks = {
        "PDPC lowest at 5 of 7 sizes": len(lowest_everywhere(m, "PDPC")) <= len(SINGLE_SIZES) - 5
        and 0.45 <= min(m["PDPC"].values()) <= 0.9,
        "worst 1.5–3 × best": 1.5 <= hi / lo <= 3.0,
        "DT, DF degrade above 15": all(worse_above(m[s], (10, 15), (50, 100)) for s in ("DT", "DF")),
        "RED improves with size": m["RED"][100] < m["RED"][5],
    }
    text = f"medians {lo:.2f}–{hi:.2f} s; " + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in checks.items()) \
        + f" [{describe(m)}]"
    return holds(text) if all(checks.values()) else fails(text)


def h22(res: Results) -> Verdict:
    bad = []
    for path in PATHS:
        m = medians(res, "single-user", path)
        for s in ("PDPC", "DF", "DT"):
            best = min(m[s].values())
            if max(m[s][10], m[s][15]) > 1.2 * best or m[s][5] <= 1.2 * min(m[s][10], m[s][15]):
                bad.append(f"{s} {path}")
    text = "10–15 packets within 20% of each scheme's best and 5 packets > 1.2 × that, for PDPC, DF, DT on " \
        "(a), (b), (c)" + (f"; not for {', '.join(bad)}" if bad else ": all")
    return fails(text) if bad else holds(text)


def h23(res: Results) -> Verdict:
    from cellaqm.stats import mean_ci

    m = medians(res, "single-user-loaded", "(a) 25 ms")
    d, h, n, _sd = mean_ci([m["DF"][k] - m["PDPC"][k] for k in sorted(m["PDPC"])])
    wired_df, wired_pdpc = (wired_series(res, "wired", s, "transfer_s") for s in ("DF", "PDPC"))
    rel = sum(abs(wired_df[k] - wired_pdpc[k]) for k in wired_pdpc) / sum(wired_pdpc.values())
    text = (f"loaded neighbours: DF − PDPC median {d:+.2f} ± {h:.2f} s (paired over {n} sizes); wired: "
            f"|DF − PDPC| {rel * 100:.0f}% of PDPC's transfer time")
    similar = rel < 0.1
    if d - h > 0 and similar:
        return holds(text)
    return fails(text) if d + h < 0 or (d - h > 0 and not similar) else inconclusive(text)


def guarded(judge: Callable[[Results], Verdict]) -> Callable[[Results], Verdict]:
    """``judge``, or *inconclusive* naming what is missing when a size or case it reads did not run
    (``--quick`` runs fewer)."""
    def run(res: Results) -> Verdict:
        try:
            return judge(res)
        except KeyError as missing:
            return inconclusive(f"a size or case this rule reads did not run (--quick?): {missing}")
    return run


FINDINGS = [
    Finding("H1", "supporting", "Dedicated buffer: DT drops more per transfer as the buffer grows to about 40 "
            "packets; beyond, drops fall (but come late).",
            "wired: holds if DT's drops peak at a buffer of 20–60 packets, exceed those at 2 packets, and are lower "
            "at 80 than at the peak; fails otherwise (when the drops come is not judged)", ("wired",), guarded(h1)),
    Finding("H2", "supporting", "With large DT buffers the few late drops are costly: a timeout, noticeably "
            "longer transfers.",
            "wired: holds if at some DT size ≥ 40 packets the transfer drops, times out at least once and takes "
            "≥ 1.1 × the reference's time; fails otherwise", ("wired",), guarded(h2)),
    Finding("H3", "strong", "RED drops fewer than DT but is not always faster; RED has the largest average "
            "queue of all schemes.",
            "wired: RED − DT drops over the sizes (paired over sizes, 95% CI) below 0, RED slower than DT at some "
            "size, and RED's mean queuing delay over the sizes the largest of the four: holds if all three, fails "
            "if any is decided against", ("wired",), guarded(h3)),
    Finding("H4", "strong", "Dedicated buffer: PDPC fewest losses and shortest transfers, DF close behind.",
            "wired, sizes 2–40: holds if PDPC has the fewest mean drops and the shortest mean transfer time and DF "
            "the second shortest; fails otherwise", ("wired",), guarded(h4)),
    Finding("H5", "strong", "RR, 0.4 s: the reference beats DT 30 slightly (1.6–9.8 kb/s/cell); DT 4 equals the "
            "reference.",
            "long-rr-0.4, the study's paired t-tests (Bonferroni): holds if DT 30 is significantly below the "
            "reference and DT 4 not significantly different; fails if DT 30 is significantly above or DT 4 "
            "differs; inconclusive if DT 30 does not differ", ("long-rr-0.4",), guarded(h5)),
    Finding("H6", "supporting", "RR, 0.3 s: ANOVA finds scheme, size and interaction significant.",
            "long-rr-0.3, the study's two-factor ANOVA: holds if all three terms have p < 0.05, fails otherwise",
            ("long-rr-0.3",), guarded(h6)),
    Finding("H7", "decisive", "RR, 0.3 s: RED 4 by far the lowest; every other case beats it by 57–107 kb/s/cell "
            "(7–10% of the offered load).",
            "long-rr-0.3, Tukey HSD (95%): holds if every other case is above RED 4, each pair decided and each "
            "difference ≥ 3.5% of the offered load (half the study's 7%); fails if a pair is decided the other "
            "way or decided below that; inconclusive otherwise", ("long-rr-0.3",), guarded(h7)),
    Finding("H8", "decisive", "RR, 0.3 s: DF 4, DT 4, PDPC 4 and RED 30 beat DT 30 (by 14–22 kb/s/cell, "
            "1.5–2.4% of offered).",
            "long-rr-0.3, Tukey HSD: holds if each of the four is above DT 30, decided, by ≥ 0.75% of the offered "
            "load (half the study's 1.5%); fails if a pair is decided the other way or below that; else "
            "inconclusive", ("long-rr-0.3",), guarded(h8)),
    Finding("H9", "strong", "RR, 0.3 s: DF 4, PDPC 4 and RED 30 slightly beat PDPC 30.",
            "long-rr-0.3, Tukey HSD: holds if each is above PDPC 30 and decided; fails if one is decided below; "
            "else inconclusive", ("long-rr-0.3",), guarded(h9)),
    Finding("H10", "strong", "RR, 0.3 s: DF 4 is not distinguishable from the reference.",
            "long-rr-0.3, paired t-test (Bonferroni): holds if DF 4 − reference is not significant, fails if it is",
            ("long-rr-0.3",), guarded(h10)),
    Finding("H11", "supporting", "RR, higher load (0.2 s): the same pairs stay significant with larger "
            "differences; DF 30 vs DT 4 becomes significant.",
            "long-rr-0.2, Tukey HSD: holds if every pair of H7 and H8 is decided in the study's direction, their "
            "mean difference exceeds that at 0.3 s, and DF 30 − DT 4 is decided; fails if a pair is decided the "
            "other way, the mean difference is not larger, or DF 30 − DT 4 is not decided; else inconclusive",
            ("long-rr-0.3", "long-rr-0.2"), guarded(h11)),
    Finding("H12", "strong", "SIR, 0.4 s: the reference beats DT 30 slightly (0.85–4.3 kb/s/cell).",
            "long-sir-0.4, paired t-test (Bonferroni): holds if DT 30 is significantly below the reference, fails "
            "if significantly above, else inconclusive", ("long-sir-0.4",), guarded(h12)),
    Finding("H13", "decisive", "SIR, 0.3 s: DF 4 beats all but DT 4; DT 4 beats RED 4 and every 30-packet case; "
            "DT 30 is the worst.",
            "long-sir-0.3, Tukey HSD: holds if all 15 pairs (DF 4 over DT 30, RED 4, RED 30, PDPC 4, PDPC 30, "
            "DF 30; DT 4 over RED 4 and the four 30s; every case over DT 30) are decided in that direction; fails "
            "if any is decided the other way; else inconclusive", ("long-sir-0.3",), guarded(h13)),
    Finding("H14", "decisive", "SIR, 0.3 s: avoiding all losses costs goodput: DF 4 beats the reference by 31–41 "
            "kb/s/cell (3.3–4.3%).",
            "long-sir-0.3, paired t-test (Bonferroni): holds if DF 4 is significantly above the reference by ≥ 15.5 "
            "kb/s/cell (half the study's 31); fails if significantly below, or above by less; else inconclusive",
            ("long-sir-0.3",), guarded(h14)),
    Finding("H15", "strong", "SIR, highest load: the scheduler dominates; no configuration differs.",
            "long-sir-0.2: holds if the ANOVA finds no term with p < 0.05 and Tukey no differing pair; fails "
            "otherwise", ("long-sir-0.2",), guarded(h15)),
    Finding("H16", "strong", "Web (Pareto) sessions: neither size, scheme nor interaction matters, at either "
            "load.",
            "the four web designs (RR and max-SIR, 17.5 and 15 ms; the study's scheduler is not stated): holds if no "
            "ANOVA term has p below 0.05/12 (Bonferroni over the 12 tests), fails otherwise",
            tuple(WEB), guarded(h16)),
    Finding("H17", "weak", "Mean system goodput is higher with the web load than with 250 kB transfers.",
            "per scheduler, the design cases' goodput at web 17.5 ms vs long 0.2 s (Welch): holds if web is "
            "significantly higher under both, fails if significantly lower under either, else inconclusive",
            ("web-rr-0.0175", "web-sir-0.0175", "long-rr-0.2", "long-sir-0.2"), guarded(h17)),
    Finding("H18", "supporting", "At 30 packets: passive queues shortest, PDPC 30 between, RED 30 longest (RED "
            "often first drops at a larger queue).",
            "long-rr-0.3 and long-sir-0.3, the mean RNC queue per user in a session (paired by seed): holds if PDPC "
            "30 is above DT 30 and DF 30 and RED 30 above PDPC 30, all decided, in both; fails if one is decided "
            "the other way; else inconclusive (where RED first drops is not judged)",
            ("long-rr-0.3", "long-sir-0.3"), guarded(h18)),
    Finding("H19", "strong", "Single user, 25 ms: medians 0.6–2.0 s; PDPC best everywhere; DT, DF good to 15–20 "
            "packets, worse above; RED reaches the minimum from 15–20.",
            "single-user (a): holds if the medians span about 0.6–2.0 s (lowest 0.45–0.9, highest 1.5–3.0), "
            "PDPC's is within 5% of the lowest at every size, DT's and DF's at 30, 50 and 100 exceed their best at "
            "15–20, and RED's from 20 on is within 10% of the lowest; fails otherwise", ("single-user",), guarded(h19)),
    Finding("H20", "strong", "Single user, 75 ms: floor about 1.3 s, worst > 3 s; RED lowest everywhere; others "
            "reach the floor as the buffer grows (PDPC, then DF, then DT).",
            "single-user (b): holds if the lowest median is 1.0–1.8 s and the highest > 2.5 s, RED's is within 5% "
            "of the lowest at every size, and the sizes from which PDPC, DF and DT stay within 10% of the floor "
            "come in that order; fails otherwise", ("single-user",), guarded(h20)),
    Finding("H21", "strong", "Single user, 1% loss: PDPC lowest (about 0.6 s), worst about twice; DT, DF good "
            "at 10–15 and degrade above; RED improves with size.",
            "single-user (c): holds if PDPC is within 5% of the lowest at ≥ 5 of 7 sizes with its best 0.45–0.9 s, "
            "the worst median is 1.5–3 × the best, DT's and DF's at 50 and 100 exceed their best at 10–15, and "
            "RED's at 100 is below its 5; fails otherwise", ("single-user",), guarded(h21)),
    Finding("H22", "strong", "10–15 packets give stable, near-best single-user performance for PDPC, DF, DT in "
            "all three cases; smaller buffers keep the window too small.",
            "single-user: holds if for PDPC, DF and DT on (a), (b) and (c) the medians at 10 and 15 are within 20% "
            "of the scheme's best and the median at 5 exceeds 1.2 × the better of them; fails otherwise",
            ("single-user",), guarded(h22)),
    Finding("H23", "supporting", "PDPC outperforms DF over the varying-capacity HS-DSCH; on the fixed-rate "
            "dedicated buffer they are similar.",
            "single-user-loaded (a lone user whose channel varies: the other cells always sending): DF − PDPC "
            "median over the sizes (paired over sizes, 95% CI) above 0, and on wired |DF − PDPC| transfer time "
            "< 10% of PDPC's: holds if both; fails if DF is decided faster or the wired gap is ≥ 10%; else "
            "inconclusive", ("single-user-loaded", "wired"), guarded(h23)),
    Finding("H24", "strong", "Drop-from-front beats drop-from-tail for large passive buffers; for short buffers "
            "the dropping policy makes no significant difference.",
            "long-{rr,sir}-{0.3,0.2}, Tukey HSD: holds if DF 30 is above DT 30, decided, in at least one design "
            "and never decided below, and DF 4 vs DT 4 is decided in none; fails if DF 30 is decided below DT 30 "
            "or DF 4 vs DT 4 is decided somewhere; else inconclusive",
            ("long-rr-0.3", "long-rr-0.2", "long-sir-0.3", "long-sir-0.2"), guarded(h24)),
    Finding("H25", "supporting", "Under RR, PDPC and the short passive buffers, and the reference, give the "
            "shortest average transfer times.",
            "long-rr-0.3: holds if the mean transfer times of DT 4, DF 4, PDPC 4 and the reference are all below "
            "those of DT 30, DF 30, RED 4 and RED 30; fails otherwise", ("long-rr-0.3",), guarded(h25)),
    Finding("H26", "weak", "Under max-SIR short buffers raise statistical multiplexing and even out unfairness "
            "(the authors' explanation of H13).",
            "long-sir-0.3: users per TTI and the Jain index of the sessions' rates with 4 packets vs 30 (paired "
            "over schemes and seeds, t-test): holds if both are significantly higher with 4, fails if either is "
            "significantly lower, else inconclusive", ("long-sir-0.3",), guarded(h26)),
    Finding("H27", "strong", "RED drop probability follows eqs. (1)–(2) with Figure 1's settings; gentle RED "
            "rises linearly from max_p to 1 between t_max and 2 t_max.",
            "red-curve: holds if at every queue length of the four settings the share of arrivals RED drops "
            "agrees with eq. (1) (and gentle's line) through ns-2's count rule within 10% + 0.002; fails otherwise",
            ("red-curve",), guarded(h27)),
    Finding("H28", "supporting", "Dedicated buffer: a faster link with shorter delays recovers faster, so the "
            "schemes' drop patterns matter less for transfer time.",
            "wired vs wired-fast: the spread of the four schemes' transfer times at each size, (max − min)/min, "
            "lower on the fast link (paired over sizes, 95% CI): holds if decided lower, fails if decided higher, "
            "else inconclusive", ("wired", "wired-fast"), guarded(h28)),
    Finding("H29", "weak", "Narrowing RED's threshold gap lowers its queueing delay but risks dropping several "
            "packets of one window.",
            "red-gap, t_max = 2n vs 4n (paired by seed at each size): holds if the mean queuing delay is lower "
            "and the drops per loss event higher (each on average over the sizes, and decided at more sizes than "
            "against); fails if either goes the other way; else inconclusive", ("red-gap",), guarded(h29)),
]

STUDY = Study("hsdsch-buffer-mgmt", "Buffer management for TCP over HS-DSCH", DOC, EXPERIMENTS, measure,
              MEASURE_LABELS, reps=(10, 2), findings=FINDINGS)

