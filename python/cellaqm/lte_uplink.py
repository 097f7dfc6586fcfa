"""``cellaqm reproduce lte-uplink-raqm``: the chapter-7 experiments of Tan (2009),
"Active Queue Management for LTE uplink in eNodeB" (spec: lte-uplink-raqm.md),
on the shared experiment machinery of :mod:`cellaqm.study`.

One UE uploads files over the LTE uplink radio model (docs/lte-uplink.md: 1 ms
TTIs, SR and grants, quantised BSRs, HARQ, in-sequence reassembly); its
1.25 MB RLC buffer is managed at the UE (T-AQM, PDCP discard, DFF) or from
the eNodeB (R-AQM on the BSR delay estimate), or both (combined AQM, T-AQM +
R-AQM). Every experiment of the spec's "figure by figure" list is one entry of
:data:`EXPERIMENTS`: its runs (scenario mappings built here, the single source
of the study's parameters), its table and its figure. Runs go in parallel on
threads over :func:`cellaqm.run`; replication ``r`` uses seed ``r + 1`` in every
case (common random numbers). Deterministic cases (fixed or square-wave rate,
no block errors, fixed file sizes) run once; stochastic ones (HARQ errors, the
realistic radio, small files) ``reps`` times with a 95% Student-t interval.
Each experiment's table and figure are written as soon as its runs finish, so
an interrupted reproduction keeps what it completed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from cellaqm.study import Experiment, Run, Study, bars_figure, figure, lines_figure, save, scale

#: The page that explains the model, the parameters and the experiments.
DOC = "docs/lte-uplink.md"

# --------------------------------------------------------------------------- the study's settings

#: TCP (the spec): SACK, maximum cwnd 2097 kB (= the receive window); our
#: choices where the thesis is silent: MSS 1460 B, IPv4 headers, initial
#: window 2, an ACK per segment, minimum RTO 200 ms (see ``tcp-sensitivity``).
TCP: dict[str, Any] = {"recovery": "sack", "mss": "1460B", "header": "40B", "initial_window": 2,
                       "rwnd": "2097kB", "delayed_ack": False, "rto_min": "200ms"}
#: 20 ms transport network + 40 ms Internet, one way (the spec).
CORE: dict[str, Any] = {"delay": "60ms"}
#: The UE's RLC transmission buffer (the spec).
BUFFER = "1.25MB"

RAQM: dict[str, Any] = {"scheme": "raqm", "min_age": "200ms", "min_inter_drop": "600ms",
                        "lower_drop_threshold": "60kbit"}
TAQM: dict[str, Any] = {"scheme": "taqm", "min_age": "200ms", "min_inter_drop": "600ms",
                        "lower_drop_threshold": 5, "max_age": "800ms"}


@dataclass(frozen=True)
class Scheme:
    label: str
    #: The UE buffer's discipline, its limit (None: unlimited) and R-AQM at the eNodeB (or None).
    queue: dict[str, Any]
    receiver: Optional[dict[str, Any]] = None
    buffer: Optional[str] = BUFFER


SCHEMES: dict[str, Scheme] = {
    "raqm": Scheme("R-AQM", {"scheme": "tail_drop"}, RAQM),
    "taqm": Scheme("T-AQM", TAQM),
    # The standalone threshold is not given: the spec's choice 0.2 s (= minAgeThreshold).
    "pdcp": Scheme("PDCP discard", {"scheme": "pdcp_discard", "delay_threshold": "200ms"}),
    "dff": Scheme("DFF", {"scheme": "dff"}),
    # R-AQM plus PDCP discard with a large threshold (the spec's choice: 1 s).
    "combined": Scheme("combined AQM", {"scheme": "pdcp_discard", "delay_threshold": "1s"}, RAQM),
    "both": Scheme("T-AQM + R-AQM", TAQM, RAQM),
    # The reference of scaled throughput: no drop at all.
    "none": Scheme("unlimited, no AQM", {"scheme": "tail_drop"}, None, None),
}
FOUR = ("raqm", "taqm", "pdcp", "dff")


@dataclass(frozen=True)
class Bandwidth:
    """A bandwidth scenario: its ``[radio.lte]`` rate keys, and its mean rate for run lengths."""

    key: str
    label: str
    lte: dict[str, Any] = field(hash=False)
    mean_bps: float
    #: Stochastic capacity (the realistic radio): replicated.
    random: bool = False


def _rate(bps: float) -> str:
    return f"{bps / 1e6:g}Mbps" if bps >= 1e6 else f"{bps / 1e3:g}kbps"


def fixed(bps: float) -> Bandwidth:
    return Bandwidth(_rate(bps), f"{_rate(bps)} fixed", {"rate": _rate(bps)}, bps)


def square(low: float, high: float, period_s: float) -> Bandwidth:
    """Hold ``high`` for the period, then ``low``, repeating (the spec: high first)."""
    return Bandwidth(f"{_rate(low)}-{_rate(high)}/{period_s:g}s", f"{_rate(low)}↔{_rate(high)}, {period_s:g} s",
                     {"rate": _rate(high), "low_rate": _rate(low), "period": f"{period_s:g}s"}, (low + high) / 2)


def realistic(speed: float) -> Bandwidth:
    """The realistic radio network at ``speed`` m/s; HARQ block errors 10% (the spec's choice)."""
    return Bandwidth(f"realistic-{speed:g}", f"realistic, {speed:g} m/s",
                     {"channel": {"speed": f"{speed:g}m/s"}, "harq": {"bler": 0.1}}, 6e6, random=True)


def down_switch() -> Bandwidth:
    return Bandwidth("10Mbps-0.5Mbps@20s", "10 → 0.5 Mb/s at 20 s",
                     {"rate": "10Mbps", "low_rate": "500kbps", "switch_at": "20s"}, 0.6e6)


IDLE: dict[str, Any] = {"dist": "beta", "a": 3, "b": 2, "min": "5s", "max": "10s"}
SMALL: dict[str, Any] = {"dist": "exponential", "mean": "300kB"}


@dataclass(frozen=True)
class Workload:
    """Files to upload: ``files`` × ``size`` back to back, or small files with idle times."""

    label: str
    files: int
    size_bytes: float
    small: bool = False
    #: A huge flow first (the fairness case): its size; the small files start 10 s later.
    big_bytes: float = 0.0

    def traffic(self) -> list[dict[str, Any]]:
        if self.small:
            small = {"model": "upload", "files": self.files, "size": SMALL, "idle": IDLE}
            if self.big_bytes:
                return [{"model": "upload", "files": 1, "size": f"{self.big_bytes:g}B"},
                        {**small, "first_user": 0, "start": "10s"}]
            return [small]
        return [{"model": "upload", "files": self.files, "size": f"{self.size_bytes:g}B"}]

    def duration(self, bw: Bandwidth) -> float:
        """Long enough for every file at the mean rate, with room for losses and idle times."""
        rate = bw.mean_bps * 0.8
        if self.small:
            share = 2.0 if self.big_bytes else 1.0
            return 10.0 * bool(self.big_bytes) + self.files * (10.0 + 3 * 300e3 * 8 * share / rate) + 60.0
        return self.files * self.size_bytes * 8 / rate * 1.5 + 60.0


def files(n: int, mb: float) -> Workload:
    return Workload(f"{n} × {mb:g} MB", n, mb * 1e6)


def small_files(n: int) -> Workload:
    return Workload(f"{n} small files", n, 300e3, small=True)


def fairness_files(n: int, big_mb: float) -> Workload:
    return Workload(f"{big_mb:g} MB + {n} small files", n, 300e3, small=True, big_bytes=big_mb * 1e6)


def scenario(bw: Bandwidth, scheme: str, work: Workload, *, bler: float = 0.0, bsr_period: str = "20ms",
             receiver: Optional[dict[str, Any]] = None, buffer: Optional[str] = "",
             tcp: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """One case as a scenario mapping (the structure of a TOML file)."""
    s = SCHEMES[scheme]
    lte = {k: (dict(v) if isinstance(v, dict) else v) for k, v in bw.lte.items()}
    lte["bsr_period"] = bsr_period
    if bler:
        lte["harq"] = {**lte.get("harq", {}), "bler": bler}
    rx = receiver if receiver is not None else s.receiver
    if rx:
        lte["receiver"] = dict(rx)
    radio: dict[str, Any] = {"bearer": "lte_uplink", "uplink_queue": dict(s.queue), "lte": lte}
    limit = s.buffer if buffer == "" else buffer
    if limit is not None:
        radio["uplink_buffer"] = limit
    return {
        "name": f"lte-uplink-{bw.key}-{scheme}",
        "description": f"LTE uplink R-AQM study: {bw.label}, {work.label}, {s.label}",
        "duration": f"{work.duration(bw):.0f}s",
        "tcp": {**TCP, **(tcp or {})},
        "traffic": work.traffic(),
        "core": dict(CORE),
        "radio": radio,
    }


# --------------------------------------------------------------------------- runs and their measures


def measure(run: Run) -> Run:
    """Simulates ``run`` and keeps the study's measures (and its series when asked)."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    res = simulate(run.doc, seed=run.seed, trace=run.options.get("trace", False))
    s = res.summary
    d = res.downloads
    up = d[d["kind"] == "upload"]
    done = up[up["completion_s"].notna()]
    out: dict[str, Any] = {"files": len(up), "files_done": len(done), "rtos": float(s["rtos"]),
                           "stalled_flows": float(s["stalled_flows"])}
    if run.options.get("small"):
        # Workloads with idle times: the mean over files of size / transfer time;
        # with a huge flow beside them, over the small files only (source 1).
        smalls = done[done["source"] == done["source"].max()]
        out["throughput_bps"] = float((smalls["bytes"] * 8 / smalls["time_s"]).mean()) if len(smalls) else math.nan
    elif len(done) == len(up) and len(up):
        # Back to back: all files' bytes over first start → last completion.
        out["throughput_bps"] = float(done["bytes"].sum() * 8 / (done["completion_s"].max() - up["request_s"].min()))
    elif len(up):
        # Files left unfinished at the end of the run (TCP stalled by drops and
        # backed-off timeouts): the bytes the server got over the run.
        out["throughput_bps"] = float(s["delivered_bytes"]) * 8 / (float(s["duration_s"]) - float(up["request_s"].min()))
    else:
        out["throughput_bps"] = math.nan
    out["throughput_mbps"] = out["throughput_bps"] / 1e6
    delay = s.get("delay_up_ms") or {}
    out["delay_mean_ms"] = math.nan if delay.get("mean") is None else float(delay["mean"])
    out["delay_max_ms"] = math.nan if delay.get("max") is None else float(delay["max"])
    bsr = s.get("bsr") or {}
    err = bsr.get("error_ms") or {}
    out["error_mean_ms"] = float(err.get("mean") or math.nan)
    out["error_abs_ms"] = float(err.get("mean_abs") or math.nan)
    out["error_p95_ms"] = float(err.get("p95_abs") or math.nan)
    if run.options.get("trace"):
        t = res.trace
        out["trace"] = {name: t[name] for name in ("bsr", "queue", "cwnd", "drops")}
    if run.options.get("occupancy"):
        occ = res.occupancy
        out["occupancy"] = occ[(occ["buffer"] == "uplink") & (occ["unit"] == "bytes")][["value", "time_s"]]
    out["wall_s"] = time.perf_counter() - t0
    run.out = out
    return run


# --------------------------------------------------------------------------- experiments


MEASURE_LABELS = {
    "throughput_mbps": "throughput [Mb/s]",
    "scaled": "scaled throughput",
    "rtos": "RTOs",
    "delay_mean_ms": "mean delay [ms]",
    "delay_max_ms": "max delay [ms]",
    "error_mean_ms": "estimate − true, mean [ms]",
    "error_abs_ms": "|estimate − true|, mean [ms]",
    "error_p95_ms": "|estimate − true|, p95 [ms]",
    "files_done": "files done",
}


def _reps(bw: Bandwidth, work: Workload, bler: float, reps: int) -> range:
    random = bw.random or work.small or bler > 0
    return range(1, (reps if random else 1) + 1)


def _grid(cases: list[tuple[dict[str, Any], Bandwidth, str, Workload, dict[str, Any]]], reps: int) -> list[Run]:
    """Runs for (labels, bandwidth, scheme, workload, scenario options), replicated where random."""
    out = []
    for labels, bw, scheme, work, opts in cases:
        for seed in _reps(bw, work, opts.get("bler", 0.0), reps):
            out.append(Run(dict(labels), scenario(bw, scheme, work, **opts), seed, {"small": work.small}))
    return out


def _pick(quick: bool, full: list[Any], short: list[Any]) -> list[Any]:
    return short if quick else full


def estimator_runs(quick: bool, reps: int) -> list[Run]:
    """§7.1 / Fig. 7.1: no AQM, DFF 375 kB, one 20 MB upload at 5 Mb/s (the spec's choice), HARQ errors 0–50%."""
    work = files(1, 5 if quick else 20)
    cases = [({"HARQ BLER": bler}, fixed(5e6), "dff", work, {"bler": bler, "buffer": "375kB"})
             for bler in (0.0, 0.1, 0.3, 0.5)]
    runs = _grid(cases, reps)
    for r in runs:
        r.options["trace"] = r.seed == 1
    return runs


def min_age_runs(quick: bool, reps: int) -> list[Run]:
    """§7.2.1: R-AQM's minAgeThreshold with minInterDropTime 0.3 s, no lowerDropThreshold, 10 × 10 MB."""
    ages = _pick(quick, [0.05, 0.08, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4], [0.05, 0.2, 0.4])
    bws = [fixed(128e3), fixed(1e6), fixed(5e6), square(1e6, 20e6, 20), square(512e3, 5e6, 5), realistic(0.83)]
    work = files(3, 0.5) if quick else files(10, 10)
    cases = []
    for bw in bws:
        for age in ages:
            rx = {**RAQM, "min_age": f"{age * 1000:g}ms", "min_inter_drop": "300ms", "lower_drop_threshold": "0B"}
            w = files(3, 0.2) if quick and bw.mean_bps < 5e5 else work
            cases.append(({"bandwidth": bw.label, "minAgeThreshold [s]": age}, bw, "raqm", w, {"receiver": rx}))
    return _grid(cases, reps)


def min_inter_drop_runs(quick: bool, reps: int) -> list[Run]:
    """§7.2.2: minInterDropTime with minAgeThreshold 0.2 s, no lowerDropThreshold, 10 × 10 MB (the spec's choice)."""
    gaps = _pick(quick, [0, 0.2, 0.4, 0.6, 0.7, 0.8, 1, 1.5, 2], [0, 0.6, 2])
    bws = [fixed(30e6), fixed(5e6), fixed(1e6), square(1e6, 20e6, 20), square(512e3, 5e6, 5), realistic(0.83)]
    work = files(3, 0.5) if quick else files(10, 10)
    cases = []
    for bw in bws:
        for gap in gaps:
            rx = {**RAQM, "min_inter_drop": f"{gap * 1000:g}ms", "lower_drop_threshold": "0B"}
            cases.append(({"bandwidth": bw.label, "minInterDropTime [s]": gap}, bw, "raqm", work, {"receiver": rx}))
    return _grid(cases, reps)


def lower_drop_runs(quick: bool, reps: int) -> list[Run]:
    """§7.2.3: lowerDropThreshold 10–100 kbit at 36, 128, 512 kb/s; 5 × 2 MB; and the unlimited reference."""
    thresholds = _pick(quick, [10, 15, 30, 45, 60, 80, 100], [10, 60, 100])
    work = files(2, 0.2) if quick else files(5, 2)
    cases = []
    for bps in (36e3, 128e3, 512e3):
        bw = fixed(bps)
        cases.append(({"bandwidth": bw.label, "lowerDropThreshold [kbit]": "reference"}, bw, "none", work, {}))
        for kbit in thresholds:
            rx = {**RAQM, "lower_drop_threshold": f"{kbit}kbit"}
            cases.append(({"bandwidth": bw.label, "lowerDropThreshold [kbit]": kbit}, bw, "raqm", work,
                          {"receiver": rx}))
    return _grid(cases, reps)


FIXED_RATES = [50e6, 30e6, 10e6, 3e6, 1e6, 640e3, 384e3, 128e3]


def schemes_fixed_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.1 / Table 7.5: one 100 MB upload at eight fixed rates, four schemes and the unlimited reference."""
    rates = _pick(quick, FIXED_RATES, [30e6, 3e6, 384e3])
    cases = []
    for bps in rates:
        work = files(1, (0.5 if bps < 1e6 else 5) if quick else 100)
        for scheme in (*FOUR, "none"):
            cases.append(({"bandwidth": fixed(bps).label, "scheme": SCHEMES[scheme].label}, fixed(bps), scheme,
                          work, {}))
    return _grid(cases, reps)


def schemes_small_runs(quick: bool, reps: int) -> list[Run]:
    """Table 7.6: 50 small files (exponential, mean 300 kB) with idle times, eight rates, four schemes."""
    rates = _pick(quick, FIXED_RATES, [30e6, 3e6, 384e3])
    work = small_files(5 if quick else 50)
    cases = [({"bandwidth": fixed(bps).label, "scheme": SCHEMES[s].label}, fixed(bps), s, work, {})
             for bps in rates for s in (*FOUR, "none")]
    return _grid(cases, reps)


def pdcp_trace_runs(quick: bool, reps: int) -> list[Run]:
    """Fig. 7.14: PDCP discard at 3 Mb/s with small files: cwnd, buffer and drops over the first seconds."""
    work = small_files(3 if quick else 10)
    return [Run({"scheme": "PDCP discard"}, scenario(fixed(3e6), "pdcp", work), 1, {"small": True, "trace": True})]


def down_switch_runs(quick: bool, reps: int) -> list[Run]:
    """Figs. 7.15–7.17: the UE buffer after a 10 → 0.5 Mb/s switch at 20 s; one 100 MB upload (the spec's choice)."""
    bw = down_switch()
    work = files(1, 30 if quick else 100)
    runs = []
    for s in ("taqm", "raqm", "combined", "dff"):
        doc = scenario(bw, s, work)
        doc["duration"] = "40s" if quick else "60s"
        runs.append(Run({"scheme": SCHEMES[s].label}, doc, 1, {"trace": True}))
    return runs


SQUARES = [(3e6, 10e6, 2), (128e3, 2e6, 3), (512e3, 1.5e6, 15), (2e6, 20e6, 20)]


def square_wave_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.2 / Figs. 7.18–7.20: four square waves, 10 × 10 MB, five schemes."""
    work = files(3, 0.5) if quick else files(10, 10)
    cases = [({"bandwidth": square(*w).label, "scheme": SCHEMES[s].label}, square(*w), s, work, {})
             for w in SQUARES for s in (*FOUR, "combined")]
    return _grid(cases, reps)


def realistic_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.3 / Table 7.7: the realistic network at 0.83 and 30 m/s, four schemes, 10 × 10 MB (the spec's choice)."""
    work = files(3, 0.5) if quick else files(10, 10)
    cases = [({"bandwidth": realistic(v).label, "scheme": SCHEMES[s].label}, realistic(v), s, work, {})
             for v in (0.83, 30.0) for s in FOUR]
    runs = _grid(cases, reps)
    for r in runs:
        r.options["occupancy"] = r.seed == 1
    return runs


def fairness_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.4 / Fig. 7.24: a 300 MB upload and 10 small files of the same UE; their mean throughput."""
    work = fairness_files(3 if quick else 10, 300)
    rates = [20e6, 3e6, 384e3]
    cases = [({"bandwidth": fixed(bps).label, "scheme": SCHEMES[s].label}, fixed(bps), s, work, {})
             for bps in rates for s in FOUR]
    return _grid(cases, reps)


def bsr_period_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.5 / Tables 7.8–7.9: periodicBSR-Timer 10–100 ms at 20 and 3 Mb/s, four schemes, one 100 MB upload."""
    periods = _pick(quick, [10, 20, 40, 80, 100], [10, 100])
    work = files(1, 5 if quick else 100)
    cases = [({"bandwidth": fixed(bps).label, "BSR period [ms]": p, "scheme": SCHEMES[s].label}, fixed(bps), s,
              work, {"bsr_period": f"{p}ms"})
             for bps in (20e6, 3e6) for p in periods for s in FOUR]
    return _grid(cases, reps)


def taqm_raqm_runs(quick: bool, reps: int) -> list[Run]:
    """§7.3.6 / Table 7.10: R-AQM, T-AQM and both at 30 Mb/s, 3 Mb/s and 384 kb/s, one 100 MB upload."""
    cases = []
    for bps in (30e6, 3e6, 384e3):
        work = files(1, (0.5 if bps < 1e6 else 5) if quick else 100)
        cases += [({"bandwidth": fixed(bps).label, "scheme": SCHEMES[s].label}, fixed(bps), s, work, {})
                  for s in ("raqm", "taqm", "both")]
    return _grid(cases, reps)


#: TCP settings the thesis does not give, and the values tried beside our choice.
TCP_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("baseline", {}),
    ("min RTO 1 s", {"rto_min": "1s"}),
    ("delayed ACKs", {"delayed_ack": True}),
    ("initial window 10", {"initial_window": 10}),
    ("MSS 1400 B", {"mss": "1400B"}),
    ("timestamps", {"timestamps": True}),
]


def tcp_sensitivity_runs(quick: bool, reps: int) -> list[Run]:
    """How much the high-rate results move with each TCP setting the thesis leaves open (one 100 MB upload)."""
    cases = [({"bandwidth": fixed(bps).label, "scheme": SCHEMES[s].label, "TCP": name}, fixed(bps), s,
              files(1, 5 if quick else 100), {"tcp": tcp})
             for bps in (30e6, 3e6) for s in ("raqm", "taqm") for name, tcp in TCP_VARIANTS]
    return _grid(cases, reps)


# --------------------------------------------------------------------------- figures


def estimator_figure(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Fig. 7.1: at each BSR reception, the estimate and the true head-of-line delay (first 20 s)."""
    traced = [r for r in runs if "trace" in r.out]
    fig, axes = figure(len(traced), width=4.2)
    for ax, r in zip(axes, traced):
        b = r.out["trace"]["bsr"]
        b = b[b["time_s"] <= 20]
        ax.plot(b["time_s"], b["true_s"] * 1e3, lw=0.8, label="true")
        ax.plot(b["time_s"], b["estimate_s"] * 1e3, lw=0.8, label="estimate")
        ax.set_title(f"HARQ BLER {r.labels['HARQ BLER']:.0%}")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("head-of-line delay [ms]")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    save(fig, path)


def occupancy_over_time(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Figs. 7.15–7.17 and 7.14: the UE buffer over time, one panel per run (and cwnd where traced)."""
    fig, axes = figure(len(runs), width=4.2)
    for ax, r in zip(axes, runs):
        q = r.out["trace"]["queue"]
        ax.step(q["time_s"], q["bytes"] / 1e3, where="post", lw=0.8, label="UE buffer [kB]")
        c = r.out["trace"]["cwnd"]
        if len(runs) == 1 and len(c):
            ax.step(c["time_s"], c["cwnd_bytes"] / 1e3, where="post", lw=0.8, label="cwnd [kB]")
            drops = r.out["trace"]["drops"]
            ax.plot(drops["time_s"], [0] * len(drops), "x", ms=4, label="drops")
            ax.set_xlim(0, 20)
        ax.set_title(r.labels["scheme"])
        ax.set_xlabel("time [s]")
        ax.set_ylabel("kB")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, path)


def realistic_figure(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Fig. 7.23: CDF of the UE buffer occupancy at 0.83 m/s; beside it throughput and delay per scheme."""
    import numpy as np

    fig, axes = figure(2)
    ax = axes[0]
    for r in runs:
        if "occupancy" in r.out and r.labels["bandwidth"].endswith("0.83 m/s"):
            occ = r.out["occupancy"]
            ax.plot(occ["value"] / 1e3, np.cumsum(occ["time_s"]) / occ["time_s"].sum(), label=r.labels["scheme"])
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("UE buffer [kB]")
    ax.set_ylabel("fraction of time at or below")
    ax.set_title("realistic network, 0.83 m/s")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax = axes[1]
    for r in rows:
        ax.errorbar(r["throughput_mbps"], r["delay_mean_ms"], xerr=r["throughput_mbps_ci"], yerr=r["delay_mean_ms_ci"],
                    marker="o" if "0.83" in r["bandwidth"] else "s", capsize=2,
                    label=f"{r['scheme']}, {r['bandwidth'].split(', ')[1]}")
    ax.set_xlabel("throughput [Mb/s]")
    ax.set_ylabel("mean delay [ms]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
    save(fig, path)


def scaled(rows: list[dict[str, Any]]) -> None:
    """Scaled throughput (the spec): ÷ the throughput of the unlimited buffer at the same bandwidth."""
    scale(rows, "bandwidth", "throughput_mbps", lambda r: r.get("scheme") == SCHEMES["none"].label
          or r.get("lowerDropThreshold [kbit]") == "reference")


THROUGHPUT_RTOS = ("throughput_mbps", "rtos")
THROUGHPUT_DELAY = ("throughput_mbps", "delay_mean_ms", "delay_max_ms")

EXPERIMENTS: list[Experiment] = [
    Experiment("estimator", "Estimated vs true head-of-line delay under HARQ errors (§7.1, Fig. 7.1)",
               estimator_runs, ("HARQ BLER",), ("error_mean_ms", "error_abs_ms", "error_p95_ms", "throughput_mbps"),
               estimator_figure, "5 Mb/s, DFF 375 kB, one 20 MB upload"),
    Experiment("min-age", "R-AQM minAgeThreshold (§7.2.1, Figs. 7.2–7.8, Tables 7.1–7.2)", min_age_runs,
               ("bandwidth", "minAgeThreshold [s]"), (*THROUGHPUT_RTOS, "delay_mean_ms"),
               lines_figure("minAgeThreshold [s]", "bandwidth", THROUGHPUT_RTOS, MEASURE_LABELS),
               "minInterDropTime 0.3 s, no lowerDropThreshold, 10 × 10 MB"),
    Experiment("min-inter-drop", "R-AQM minInterDropTime (§7.2.2, Table 7.3, Figs. 7.9–7.10)", min_inter_drop_runs,
               ("bandwidth", "minInterDropTime [s]"), (*THROUGHPUT_RTOS, "delay_mean_ms"),
               lines_figure("minInterDropTime [s]", "bandwidth", THROUGHPUT_RTOS, MEASURE_LABELS),
               "minAgeThreshold 0.2 s, no lowerDropThreshold, 10 × 10 MB"),
    Experiment("lower-drop", "R-AQM lowerDropThreshold (§7.2.3, Fig. 7.11, Table 7.4)", lower_drop_runs,
               ("bandwidth", "lowerDropThreshold [kbit]"), ("throughput_mbps", "scaled", "rtos", "delay_mean_ms"),
               lines_figure("lowerDropThreshold [kbit]", "bandwidth", ("scaled", "rtos", "delay_mean_ms"), MEASURE_LABELS),
               "minAge 0.2 s, minInterDrop 0.6 s, 5 × 2 MB; scaled = ÷ the unlimited buffer's throughput", scaled),
    Experiment("schemes-fixed", "Schemes at fixed rates, one 100 MB upload (§7.3.1, Fig. 7.12, Table 7.5)",
               schemes_fixed_runs, ("bandwidth", "scheme"), ("throughput_mbps", "scaled", *THROUGHPUT_DELAY[1:], "rtos"),
               bars_figure("bandwidth", "scheme", ("scaled", "delay_mean_ms", "delay_max_ms"), MEASURE_LABELS),
               "scaled = ÷ the unlimited buffer's throughput", scaled),
    Experiment("schemes-small", "Schemes at fixed rates, 50 small files (Fig. 7.13, Table 7.6)", schemes_small_runs,
               ("bandwidth", "scheme"), ("throughput_mbps", "scaled", *THROUGHPUT_DELAY[1:], "rtos"),
               bars_figure("bandwidth", "scheme", ("scaled", "delay_mean_ms", "delay_max_ms"), MEASURE_LABELS),
               "exponential sizes, mean 300 kB; idle 5 s + 5 s·Beta(3, 2); throughput = mean over files", scaled),
    Experiment("pdcp-trace", "PDCP discard at 3 Mb/s with small files (Fig. 7.14)", pdcp_trace_runs, ("scheme",),
               (*THROUGHPUT_DELAY, "rtos"), occupancy_over_time, "cwnd, UE buffer and drops over the first 20 s"),
    Experiment("down-switch", "UE buffer after a 10 → 0.5 Mb/s down-switch at 20 s (Figs. 7.15–7.17)",
               down_switch_runs, ("scheme",), (*THROUGHPUT_DELAY, "rtos"), occupancy_over_time,
               "one 100 MB upload; the figure shows the UE buffer over time"),
    Experiment("square-waves", "Schemes on square-wave rates, 10 × 10 MB (§7.3.2, Figs. 7.18–7.20)",
               square_wave_runs, ("bandwidth", "scheme"), (*THROUGHPUT_DELAY, "rtos"),
               bars_figure("bandwidth", "scheme", THROUGHPUT_DELAY, MEASURE_LABELS)),
    Experiment("realistic", "Schemes in the realistic network (§7.3.3, Figs. 7.21–7.23, Table 7.7)", realistic_runs,
               ("bandwidth", "scheme"), (*THROUGHPUT_DELAY, "rtos"), realistic_figure,
               "HARQ block errors 10%; 10 × 10 MB"),
    Experiment("fairness", "Small files beside a 300 MB upload (§7.3.4, Fig. 7.24)", fairness_runs,
               ("bandwidth", "scheme"), ("throughput_mbps", "delay_mean_ms", "rtos"),
               bars_figure("bandwidth", "scheme", ("throughput_mbps",), MEASURE_LABELS),
               "throughput = the small files' mean (size ÷ transfer time)"),
    Experiment("bsr-period", "BSR period (§7.3.5, Figs. 7.25–7.26, Tables 7.8–7.9)", bsr_period_runs,
               ("bandwidth", "BSR period [ms]", "scheme"), ("throughput_mbps", "delay_mean_ms", "rtos"),
               lines_figure("BSR period [ms]", "scheme", ("throughput_mbps", "delay_mean_ms"), MEASURE_LABELS),
               "one 100 MB upload; the figure pools both rates (see the table)"),
    Experiment("taqm-raqm", "T-AQM, R-AQM and both (§7.3.6, Table 7.10, Figs. 7.27–7.28)", taqm_raqm_runs,
               ("bandwidth", "scheme"), (*THROUGHPUT_DELAY, "rtos"),
               bars_figure("bandwidth", "scheme", THROUGHPUT_DELAY, MEASURE_LABELS), "one 100 MB upload"),
    Experiment("tcp-sensitivity", "TCP settings the thesis leaves open (one 100 MB upload)", tcp_sensitivity_runs,
               ("bandwidth", "scheme", "TCP"), (*THROUGHPUT_DELAY, "rtos"),
               bars_figure("TCP", "scheme", ("throughput_mbps", "delay_mean_ms"), MEASURE_LABELS),
               "baseline = our choices: IW 2, MSS 1460 B, an ACK per segment, min RTO 200 ms; each other row "
               "changes one of them; the figure pools both rates (see the table)"),
]

STUDY = Study("lte-uplink-raqm", "LTE uplink AQM (Tan 2009)", DOC, EXPERIMENTS, measure, MEASURE_LABELS)
