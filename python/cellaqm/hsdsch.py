"""``cellaqm reproduce hsdsch-buffer-mgmt``: buffer management for TCP over the
HSDPA shared channel (spec: hsdsch-buffer-mgmt.md), on the shared experiment
machinery of :mod:`cellaqm.study`.

The study's buffer schemes, in IP packets (:func:`queue`): DT n (tail drop),
DF n (drop-front), RED n (ns-2.27's RED with its drop-front: thresholds n and
4n, limit 8n, instantaneous queue, max_p 1/10, gentle), PDPC n (its spec's
pseudo-code: thresholds n + 1 and 4n, counter 2n, drop-front) and a reference
buffer that never drops. Scenario 1 puts them in front of a dedicated wired
link standing in for a 3G bearer (the spec's choice: 384 kb/s, 100 ms one
way) and measures one 250 kB transfer per buffer size. Scenario 2 runs them at
the RNC of the seven-cell HS-DSCH system (``[radio.cells]``) under the session
load and judges them by system goodput per cell, with the study's paired
t-tests (Bonferroni), two-factor ANOVA (scheme × size) and Tukey comparisons;
scenario 3 times one user's 250 kB transfers alone in the system.
"""

from __future__ import annotations

import math
import time
from typing import Any, Optional

from cellaqm.study import Experiment, Run, Study, bars_figure, lines_figure

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
    """Simulates ``run``: scenario 1's drops, transfer time and queuing delay, or the system's measures."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    if run.options.get("system"):
        run.out = {**measure_system(run), "wall_s": 0.0}
        run.out["wall_s"] = time.perf_counter() - t0
        return run
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
        "stalled_flows": float(s["stalled_flows"]),
    }
    out["wall_s"] = time.perf_counter() - t0
    run.out = out
    return run


SIZES = [2, 4, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80]


# --------------------------------------------------------------------------- scenario 2 and 3: the HS-DSCH system

#: The session loads (the study): long transfers (60 users, 250 kB) and web
#: (200 users, Pareto sizes with k = 4.5 kB, shape 1.1, capped at 2 MB: mean
#: about 25 kB after the cap, the spec's choice).
LOADS: dict[str, dict[str, Any]] = {
    "long": {"users": 60, "size": "250kB"},
    "web": {"users": 200, "size": {"dist": "pareto", "scale": "4.5kB", "shape": 1.1, "cap": "2MB"}},
}
SCHEDULERS = {"rr": ("round_robin", "RR"), "sir": ("max_ci", "max-SIR")}


def system(scheme: str, n: int, load: str, scheduler: str, wait_s: float, duration_s: float = 300.0,
           users: Optional[int] = None, loss: float = 0.0, delay_ms: float = 25.0) -> dict[str, Any]:
    """Scenario 2 (and 3 with ``users = 1``): ``scheme`` n at the RNC of the seven-cell HS-DSCH system.

    Sessions arrive every U(0, 2 × ``wait_s``) (the spec's choice) at a random idle user.
    """
    q, limit = queue(scheme, n)
    radio: dict[str, Any] = {
        "bearer": "hsdpa", "queue": q,
        "hsdpa": {"scheduler": SCHEDULERS[scheduler][0], "air_delay": "0ms"},
        "cells": {"layout": "hex7", "radius": "500m", "users_per_tti": 3, "bler": 0.1},
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
        "tcp": {**TCP, "rwnd": "65535B"},
        "traffic": {"model": "sessions", "users": users or spec["users"],
                    "interarrival": {"dist": "uniform", "min": "0s", "max": f"{2 * wait_s * 1e3:g}ms"},
                    "size": spec["size"]},
        "core": core,
        "radio": radio,
    }


def measure_system(run: Run) -> dict[str, Any]:
    """System goodput per cell (the study's metric), sessions, the mean transfer time, and the cells' capacity terms."""
    from cellaqm import run as simulate

    res = simulate(run.doc, seed=run.seed)
    s = res.summary
    d = res.downloads
    done = d[d["completion_s"].notna()]
    sessions = s.get("sessions") or {}
    return {
        "goodput_kbps": float(s["goodput_per_cell_bps"]) / 1e3 if s.get("goodput_per_cell_bps") is not None
        else math.nan,
        "sessions_served": float(sessions.get("served", 0)),
        "sessions_lost": float(sessions.get("lost", 0)),
        "transfer_s": float(done["time_s"].mean()) if len(done) else math.nan,
        "transfer_median_s": float(done["time_s"].median()) if len(done) else math.nan,
        "rtos": float(s["rtos"]),
        "stalled_flows": float(s["stalled_flows"]),
        **capacity_terms(s.get("cells") or [], float(s["duration_s"])),
    }


#: The formats' rates (the spec's table, Mb/s), in the order of ``summary.cells[].mcs_use``.
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


def frame(runs: list[Run], measure: str) -> Any:
    import pandas as pd

    return pd.DataFrame([{**r.labels, "seed": r.seed, measure: r.out[measure]} for r in runs])


def anova_text(runs: list[Run]) -> str:
    """The study's two-factor ANOVA (scheme × buffer size, interaction) and Tukey comparisons on system goodput."""
    from cellaqm import stats

    df = frame([r for r in runs if r.labels["scheme"] != LABELS["ref"]], "goodput_kbps")
    if df["seed"].nunique() < 2:
        return "(ANOVA needs two replications or more)\n"
    df["buffer [packets]"] = df["buffer [packets]"].astype(str)
    a = stats.anova2(df, "goodput_kbps", "scheme", "buffer [packets]")
    lines = ["ANOVA of system goodput per cell (scheme × buffer size):", "",
             "| term | df | F | p | η² |", "|---|---:|---:|---:|---:|"]
    for _, r in a.iterrows():
        lines.append(f"| {r['term']} | {r['df']:.0f} | {r['F']:.2f} | {r['p']:.3g} | {r['eta_sq']:.3f} |"
                     if r["term"] != "Residual" else f"| Residual | {r['df']:.0f} | | | {r['eta_sq']:.3f} |")
    t = stats.tukey_hsd(df, "goodput_kbps", ["scheme", "buffer [packets]"])
    sig = t[t["reject"]]
    lines += ["", f"Tukey HSD (95%): {len(sig)} of {len(t)} pairs differ"
              + (":" if len(sig) else "."), ""]
    for _, r in sig.iterrows():
        lines.append(f"- {r['group2']} − {r['group1']}: {r['mean_diff']:+.1f} kb/s "
                     f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], p = {r['p_adj']:.3g}")
    return "\n".join(lines) + "\n"


def versus_reference_text(runs: list[Run]) -> str:
    """Paired t-tests of each case against the reference buffer (Bonferroni), on the common seeds."""
    from cellaqm import stats

    df = frame(runs, "goodput_kbps")
    df["case"] = df["scheme"] + " " + df["buffer [packets]"].astype(str)
    ref = f"{LABELS['ref']} ∞"
    if df["seed"].nunique() < 2:
        return "(paired tests need two replications or more)\n"
    t = stats.paired_tests(df, "goodput_kbps", "case", reference=ref)
    lines = ["Paired t-tests against the reference buffer (Bonferroni):", "",
             "| case | pairs | difference [kb/s] (95% CI) | % | p (Bonferroni) | |", "|---|---:|---:|---:|---:|---|"]
    for _, r in t.iterrows():
        lines.append(f"| {r['level']} | {r['n_pairs']} | {r['mean_diff']:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] "
                     f"| {r['pct_diff']:+.1f} | {r['p_bonferroni']:.3g} | {'differs' if r['significant'] else ''} |")
    return "\n".join(lines) + "\n"


def both(runs: list[Run]) -> str:
    return anova_text(runs) + "\n" + versus_reference_text(runs)


def system_experiment(load: str, scheduler: str, wait_s: float, design: bool, remark: str = "") -> Experiment:
    """Scenario 2 under ``load`` and ``scheduler`` with mean wait ``wait_s``: the 2 × 4 design (``design``,
    with the ANOVA) or DT 4 and DT 30 alone, and the reference (paired t-tests against it)."""
    name = f"{load}-{scheduler}-{wait_s:g}"
    cases = [*(DESIGN if design else [("dt", 4), ("dt", 30)]), REFERENCE]
    analysis = both if design else versus_reference_text
    what = "{DT, DF, RED, PDPC} × {4, 30}" if design else "DT 4 and DT 30 against the reference"
    wait = f"{wait_s:g} s" if wait_s >= 0.1 else f"{wait_s * 1e3:g} ms"
    sessions = "Long transfers" if load == "long" else f"Web, {LOADS[load]['users']} users"
    title = f"{sessions}, {SCHEDULERS[scheduler][1]}, mean wait {wait}: {what}{remark} (scenario 2)"
    return Experiment(
        name, title, lambda quick, reps: design_runs(load, scheduler, wait_s, cases, quick, reps),
        ("scheme", "buffer [packets]"), ("goodput_kbps", "sessions_served", "sessions_lost", "transfer_s", "rtos"),
        bars_figure("buffer [packets]", "scheme", ("goodput_kbps", "transfer_s"), MEASURE_LABELS),
        f"{LOADS[load]['users']} users, {SCHEDULERS[scheduler][1]}, mean waiting time {wait_s:g} s, 300 s "
        "(60 s with --quick); system goodput per cell", analysis=analysis)


def single_user_runs(quick: bool, reps: int) -> list[Run]:
    """Scenario 3: one user alone (every other cell idle), 250 kB transfers, buffer 5–100 packets, three paths.

    A session every U(0, 20 s) gives the user a new random position each time: a 300 s run
    is about 30 transfers (the study's 30 runs per point); ``reps`` runs per point.
    """
    sizes = [5, 20, 100] if quick else [5, 10, 15, 20, 30, 50, 100]
    cases = {"(a) 25 ms": {}, "(b) 75 ms": {"delay_ms": 75.0}, "(c) 25 ms, 1% loss": {"loss": 0.01}}
    runs = []
    for case, opts in cases.items():
        for n in sizes:
            for seed in range(1, reps + 1):
                doc = system("dt", n, "long", "rr", 10.0, 60.0 if quick else 300.0, users=1, **opts)
                runs.append(Run({"path": case, "buffer [packets]": n}, doc, seed, {"system": True}))
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
    "sessions_served": "sessions served",
    "sessions_lost": "sessions lost",
    "transfer_median_s": "median transfer time [s]",
    "drops": "drops per transfer",
    "transfer_s": "transfer time [s]",
    "queue_ms": "mean queuing delay [ms]",
    "rtos": "RTOs",
    "busy": "TTIs on air",
    "air_on_kbps": "rate on air [kb/s]",
}

EXPERIMENTS: list[Experiment] = [
    Experiment("wired", "One dedicated buffer in front of a 384 kb/s wired link (scenario 1, Figs. 4–5)",
               wired_runs, ("scheme", "buffer [packets]"), ("drops", "transfer_s", "queue_ms", "rtos"),
               lines_figure("buffer [packets]", "scheme", ("drops", "transfer_s", "queue_ms"), MEASURE_LABELS),
               "one 250 kB transfer, 100 ms one way; RED replicated, the others deterministic"),
    *(e for scheduler in SCHEDULERS for e in (
        system_experiment("long", scheduler, 0.4, design=False),
        system_experiment("long", scheduler, 0.3, design=True),
        system_experiment("long", scheduler, 0.2, design=True, remark=" (the spec's choice for the highest load)"))),
    *(system_experiment("web", scheduler, wait_s, design=True) for scheduler in SCHEDULERS for wait_s in (0.0175, 0.015)),
    Experiment("load-sweep", "Long transfers, RR, loaded past saturation: where the schemes separate",
               sweep_runs, (OFFERED, "mean wait", "case"),
               ("goodput_kbps", "sessions_lost", "transfer_s", "busy", "air_on_kbps"),
               lines_figure(OFFERED, "case", ("goodput_kbps", "sessions_lost", "transfer_s"), MEASURE_LABELS,
                            logx=True),
               "60 users, 250 kB, mean waiting time 0.4–0.05 s (offered load per cell = 250 kB / wait / 7), "
               "120 s, 3 seeds (--quick: 0.2 and 0.05 s, 60 s, 2 seeds)", analysis=capacity_text),
    Experiment("single-user", "One user alone: median transfer time of 250 kB (scenario 3, Figs. 8–9)",
               single_user_runs, ("path", "buffer [packets]"), ("transfer_median_s", "transfer_s", "rtos"),
               lines_figure("buffer [packets]", "path", ("transfer_median_s",), MEASURE_LABELS),
               "DT n at the RNC, one user with every other cell idle (with wrap-around any cell is the centre); "
               "a session every 10 s on average, each at a new random position; loss on the core link both ways"),
]

STUDY = Study("hsdsch-buffer-mgmt", "Buffer management for TCP over HS-DSCH", DOC, EXPERIMENTS, measure,
              MEASURE_LABELS, reps=(10, 2))

