"""``cellaqm reproduce umts-dsch-rrm``: prioritised radio resource management
on a UMTS downlink shared channel and a TCP user under test (spec:
umts-dsch-rrm.md), on the shared experiment machinery of :mod:`cellaqm.study`.

Every run is the 37-cell DSCH system (``bearer = "dsch"``, docs/dsch.md): 250
conversational users always in a call, 400 or 600 open-loop ETSI web users,
and one TCP user under test in the central cell downloading 500 kB objects on
fresh connections. The resource manager of every cell lets interactive
traffic bring its load factor to at most φ. Measures: the central cell's
Table 3 (mean η, P(η > 90 %), DSCH acceptance and its split by codes / power
/ load), Fig. 2 (SDU error ratio per service, interactive SDU delay scaled to
570 B) and the TCP user's throughput per transfer (unique bytes ÷ connection
duration) and spurious timeouts, with SACK+FACK on and off.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from cellaqm.study import Experiment, Run, Study, figure, lines_figure, save

#: The page that explains the model, the parameters and the experiments.
DOC = "docs/dsch.md"

#: Linux 2.4 TCP as the spec's choices: MSS 530 B, 64 KB receive window,
#: timestamps, min RTO 200 ms, initial RTO 3 s, delayed ACKs, undo of
#: spurious timeouts detected by timestamps (Eifel).
TCP: dict[str, Any] = {"mss": "530B", "rwnd": "64KiB", "timestamps": True, "delayed_ack": True,
                       "rto_min": "200ms", "rto_initial": "3s", "spurious_rto": "eifel"}

#: The two arms of the TCP experiment, each one dict of ``[tcp]`` keys: SACK
#: with FACK (Linux 2.4's ``tcp_fack``), or neither (the spec: NewReno-style recovery).
ARMS: dict[str, dict[str, Any]] = {"SACK+FACK on": {"recovery": "sack", "fack": True},
                                   "SACK+FACK off": {"recovery": "newreno"}}

PHIS = (60, 70, 80, 90, 100)
LOADS = (400, 600)
#: The measured run (the spec's choice: 600 s after a 60 s warm-up) and --quick's.
FULL = (660.0, 60.0)
QUICK = (20.0, 5.0)

MEASURE_LABELS = {
    "mean_eta": "mean η", "p_eta_over_90": "P(η > 90%)", "dsch_acceptance": "DSCH acceptance",
    "code_acceptance": "code acceptance", "power_acceptance": "power acceptance",
    "load_acceptance": "load acceptance", "conversational_sdu_error": "conversational SDU error",
    "web_sdu_error": "interactive SDU error", "web_delay_mean_s": "interactive SDU delay (570 B) [s]",
    "web_delay_sd_s": "its standard deviation [s]", "throughput_kbps": "TCP throughput per transfer [kb/s]",
    "spurious_rtos": "spurious timeouts",
    "goodput_kbps": "TCP goodput over the run [kb/s]", "rtos": "timeouts", "transfers": "transfers completed",
}


def scenario(web_users: int, phi: float, arm: str, duration_s: float, warmup_s: float,
             conversational_eb_n0_db: float = 5.0) -> dict[str, Any]:
    """The study's system with ``web_users`` web users at φ = ``phi`` and the TCP arm ``arm``."""
    return {
        "name": f"dsch-{web_users}-phi{phi:g}",
        "description": f"UMTS DSCH study: 250 calls + {web_users} web users, phi {phi:g}%, {arm}",
        "duration": f"{duration_s:g}s",
        "tcp": {**TCP, **ARMS[arm]},
        # Repeated 500 kB downloads, each on a fresh connection (the spec's choice), 1 s apart.
        "traffic": {"model": "web", "main_size": "500kB", "inlines": 0, "connections": 1, "reading_time": "1s",
                    "request_size": "300B"},
        "core": {"rate": "100Mbps", "delay": "10ms"},
        "radio": {
            "bearer": "dsch", "buffer": "32KiB", "queue": {"scheme": "tail_drop"},
            "dsch": {"phi": phi / 100.0, "web_users": web_users, "conversational_users": 250,
                     "warmup": f"{warmup_s:g}s", "conversational_eb_n0_db": conversational_eb_n0_db},
            # One RLC PDU per 320-bit block payload; at most 4 retransmissions.
            "rlc": {"pdu_size": "40B", "max_dat": 5},
            "uplink": {"rate": "64kbps", "tti": "20ms"},
        },
    }


def measure(run: Run) -> Run:
    """Simulates ``run``: the central cell's measures and the TCP user's transfers."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    res = simulate(run.doc, seed=run.seed, trace=bool(run.options.get("trace")))
    s = res.summary
    d = res.downloads
    warmup = run.options.get("warmup_s", 0.0)
    done = d[d["completion_s"].notna() & (d["request_s"] >= warmup)]
    out: dict[str, Any] = {k: float(v) for k, v in s["dsch"].items() if k in MEASURE_LABELS}
    # tcptrace's throughput: unique bytes over the connection's duration, per transfer.
    out["throughput_kbps"] = float((done["bytes"] * 8 / done["time_s"]).mean() / 1e3) if len(done) else math.nan
    out["transfers"] = float(len(done))
    out["goodput_kbps"] = float(s["goodput_bps"]) / 1e3
    out["rtos"] = float(s["rtos"])
    out["spurious_rtos"] = float(s["spurious_rtos"])
    out["stalled_flows"] = float(s["stalled_flows"])
    if run.options.get("trace"):
        out["_trace"] = one_transfer(res, warmup)
    out["wall_s"] = time.perf_counter() - t0
    run.out = out
    return run


def one_transfer(res: Any, warmup: float) -> dict[str, list[float]]:
    """The first transfer after the warm-up: its delivered segments (time, MB, retransmission) and its
    timeouts (the server's window falling to one segment: an RTO; the summary tells how many were spurious)."""
    tr = res.trace
    seg = tr["delivered"]
    later = seg[seg["time_s"] >= warmup]
    if not len(later):
        return {"t": [], "seq": [], "retx": [], "rto": []}
    flow = int(later["flow"].iloc[0])
    mine = seg[seg["flow"] == flow]
    cw = tr["cwnd"]
    rto = cw[(cw["flow"] == flow) & (cw["dir"] == "down") & (cw["cwnd_bytes"] <= 530)]["time_s"]
    return {"t": mine["time_s"].tolist(), "seq": (mine["seq"] / 1e6).tolist(),
            "retx": mine["retransmission"].astype(float).tolist(), "rto": rto.tolist()}


def trace_runs(quick: bool, reps: int) -> list[Run]:
    """Fig. 4: one transfer's time-sequence trace, 400 web users, SACK+FACK on, φ 90 % and 70 % (seed 1)."""
    dur, warm = _times(quick)
    return [Run({"φ [%]": phi}, scenario(400, phi, "SACK+FACK on", dur, warm), 1, {"warmup_s": warm, "trace": True})
            for phi in (90, 70)]


def trace_figure(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Delivered sequence against time per φ, retransmissions as crosses, timeouts as vertical lines."""
    fig, axes = figure(len(runs), width=6.0)
    for ax, r in zip(axes, runs):
        tr = r.out["_trace"]
        t0 = tr["t"][0] if tr["t"] else 0.0
        fresh = [(t - t0, s) for t, s, x in zip(tr["t"], tr["seq"], tr["retx"]) if not x]
        again = [(t - t0, s) for t, s, x in zip(tr["t"], tr["seq"], tr["retx"]) if x]
        ax.scatter([p[0] for p in fresh], [p[1] for p in fresh], s=2, label="delivered")
        ax.scatter([p[0] for p in again], [p[1] for p in again], s=14, marker="x", label="retransmission")
        for k, t in enumerate(tr["rto"]):
            ax.axvline(t - t0, color="red", alpha=0.4, lw=0.8, label="timeout" if k == 0 else None)
        ax.set_title(f"φ = {r.labels['φ [%]']} %: {r.out['spurious_rtos']:.0f} of {r.out['rtos']:.0f} "
                     "timeouts in the run spurious", fontsize=8)
        ax.set_xlabel("time since the transfer began [s]")
        ax.set_ylabel("sequence [MB]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    save(fig, path)


def _times(quick: bool) -> tuple[float, float]:
    return QUICK if quick else FULL


def system_runs(quick: bool, reps: int) -> list[Run]:
    """Table 3 and Fig. 2: φ × load (+ the no-web baseline), SACK on, the same seeds everywhere."""
    dur, warm = _times(quick)
    phis = (60, 100) if quick else PHIS
    runs = [Run({"web users": 0, "φ [%]": "no web"}, scenario(0, 100, "SACK+FACK on", dur, warm), seed,
                {"warmup_s": warm}) for seed in range(1, reps + 1)]
    for load in LOADS:
        for phi in phis:
            for seed in range(1, reps + 1):
                doc = scenario(load, phi, "SACK+FACK on", dur, warm)
                runs.append(Run({"web users": load, "φ [%]": phi}, doc, seed, {"warmup_s": warm}))
    return runs


def tcp_runs(quick: bool, reps: int) -> list[Run]:
    """Fig. 3: the TCP user's throughput against φ per load, both arms on the same seeds."""
    dur, warm = _times(quick)
    phis = (60, 100) if quick else PHIS
    loads = (400,) if quick else LOADS
    return [Run({"web users": load, "TCP": arm, "φ [%]": phi}, scenario(load, phi, arm, dur, warm), seed,
                {"warmup_s": warm})
            for load in loads for arm in ARMS for phi in phis for seed in range(1, reps + 1)]


def eb_n0_runs(quick: bool, reps: int) -> list[Run]:
    """The spec's sensitivity to its placeholder targets: the conversational Eb/N0 target 5 dB against 2 dB,
    400 web users, φ 60/80/100 %, SACK+FACK on, the same seeds."""
    dur, warm = _times(quick)
    phis = (60, 100) if quick else (60, 80, 100)
    return [Run({"conversational Eb/N0 [dB]": eb, "φ [%]": phi},
                scenario(400, phi, "SACK+FACK on", dur, warm, conversational_eb_n0_db=eb), seed, {"warmup_s": warm})
            for eb in (5.0, 2.0) for phi in phis for seed in range(1, reps + 1)]


def tcp_figure(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Throughput against φ: one panel per load, one line per arm."""
    loads = list(dict.fromkeys(r["web users"] for r in rows))
    fig, axes = figure(len(loads))
    for ax, load in zip(axes, loads):
        for arm in ARMS:
            pts = [r for r in rows if r["web users"] == load and r["TCP"] == arm]
            ax.errorbar([r["φ [%]"] for r in pts], [r["throughput_kbps"] for r in pts],
                        yerr=[0 if math.isnan(r["throughput_kbps_ci"]) else r["throughput_kbps_ci"] for r in pts],
                        marker="o", capsize=2, label=arm)
        ax.set_title(f"{load} web users", fontsize=9)
        ax.set_xlabel("φ [%]")
        ax.set_ylabel(MEASURE_LABELS["throughput_kbps"])
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    save(fig, path)


EXPERIMENTS: list[Experiment] = [
    Experiment("system", "The central base station per φ (Table 3, Fig. 2)", system_runs, ("web users", "φ [%]"),
               ("mean_eta", "p_eta_over_90", "dsch_acceptance", "code_acceptance", "power_acceptance",
                "load_acceptance", "conversational_sdu_error", "web_sdu_error", "web_delay_mean_s",
                "web_delay_sd_s"),
               lines_figure("φ [%]", "web users", ("conversational_sdu_error", "web_sdu_error", "web_delay_mean_s"),
                            MEASURE_LABELS),
               "250 conversational users; the baseline row has no web users; the TCP user with SACK+FACK"),
    Experiment("tcp", "The TCP user under test: throughput per transfer against φ (Fig. 3)", tcp_runs,
               ("web users", "TCP", "φ [%]"), ("throughput_kbps", "goodput_kbps", "transfers", "rtos", "spurious_rtos"),
               tcp_figure,
               "500 kB downloads on fresh connections, 1 s apart"),
    Experiment("eb-n0", "Sensitivity: the conversational Eb/N0 target, 400 web users", eb_n0_runs,
               ("conversational Eb/N0 [dB]", "φ [%]"),
               ("mean_eta", "dsch_acceptance", "conversational_sdu_error", "web_sdu_error", "goodput_kbps",
                "throughput_kbps", "spurious_rtos"),
               lines_figure("φ [%]", "conversational Eb/N0 [dB]",
                            ("conversational_sdu_error", "web_sdu_error", "goodput_kbps"), MEASURE_LABELS),
               "the spec's targets are placeholders; 2 dB halves a call's share of the load factor"),
    Experiment("trace", "Time-sequence trace of one transfer, 400 web users, SACK+FACK on (Fig. 4)", trace_runs,
               ("φ [%]",), ("throughput_kbps", "rtos", "spurious_rtos"), trace_figure,
               "the first transfer after the warm-up, seed 1; red lines: the server's timeouts"),
]

STUDY = Study("umts-dsch-rrm", "Prioritised RRM on a UMTS DSCH and TCP", DOC, EXPERIMENTS, measure,
              MEASURE_LABELS, reps=(5, 1))


def command(args: Any, jobs: int, out: Path) -> int:
    from cellaqm import study

    return study.command(STUDY, args, jobs, out)
