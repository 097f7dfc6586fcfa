"""``cellaqm reproduce wcdma-rnc-aqm``: the headline experiment of Lakkakorpi & Cuny (WCNC 2006).

Eight bearer × traffic rows (R99 DCH 64k and 384k, HSDPA 500k and 3.6M; web
browsing with 65 kB objects or 250 kB file downloads), advertised window 30
packets, PDCP buffer 100 kB, each under TD, RED, ARED, PDPC, TTLRED1 and
TTLRED2, 1200 s and 6 replications; plus the HSDPA 3.6 Mb/s single-flow
2.5 MB case. For every row and scheme: the 95th-percentile IP packet delay
[ms] and the mean TCP download goodput [kb/s], each with its 95% Student-t
confidence interval over the replications and the change vs TD in %.

The scenarios are built here (:func:`scenario`), the single source of the
study's parameters; ``write_scenarios`` writes them as the files under
``scenarios/wcdma/``. Runs go in parallel on threads over :func:`cellaqm.run`
(the core releases the GIL), with replication ``r`` using seed ``r + 1`` for
every scheme (common random numbers). The sweep machinery of
``cellaqm sweep`` stores every run for later analysis; this command only needs
two numbers per run, so it keeps its own small loop.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: The study's schemes, in table order.
SCHEMES = ("td", "red", "ared", "pdpc", "ttlred1", "ttlred2")
SCHEME_LABELS = {"td": "TD", "red": "RED", "ared": "ARED", "pdpc": "PDPC", "ttlred1": "TTLRED1", "ttlred2": "TTLRED2"}

#: RLC timers the study leaves open: Timer_Poll 110 ms, our choice (the RLC study's reference set);
#: Timer_Status_Prohibit 100 ms *calibrated* (docs/wcdma.md, "Calibrated: RLC STATUS timing"): that set's
#: 300 ms keeps RLC-unacknowledged data in the PDCP count for up to 300 ms, which makes every rate-aware AQM
#: lose about 40% goodput on R99 384k files where the study's gain 7-12%; 100 ms does not.
RLC_TIMERS: dict[str, Any] = {"poll": {"timer": "110ms"}, "status": {"prohibit": "100ms"}}


def _dch(label: str, rate: str, tti: str) -> dict[str, Any]:
    """An R99 DCH bearer of ``rate`` and ``tti``: 15 ms one way, the study's 1.5% PDU loss and RLC window 768."""
    # Mean burst length: the study gives only the mean loss (1.5%); 2 PDUs is our choice.
    loss = {"mean": 0.015, "burst": 2.0}
    return {"label": label, "radio": {"bearer": "dch", "dch": {"rate": rate, "tti": tti, "delay": "15ms", "loss": loss},
                                      "rlc": {"window": 768, **RLC_TIMERS}}}


def _hsdpa(label: str, rate: str) -> dict[str, Any]:
    """An HSDPA bearer of ``rate`` (share 0.9, HARQ 0.1 as in every HSDPA case of the study)."""
    # RLC window 2047 (the 12-bit SN maximum): 768 PDUs would cap 3.6 Mb/s near 2.9 Mb/s.
    return {"label": label, "radio": {"bearer": "hsdpa", "hsdpa": {"rate": rate, "share": 0.9, "harq": 0.1},
                                      "rlc": {"window": 2047, **RLC_TIMERS}}}


#: Bearers: label, the [radio] section without buffer/queue.
BEARERS: dict[str, dict[str, Any]] = {
    "dch64": _dch("R99 64k", "64kbps", "20ms"),
    "dch384": _dch("R99 384k", "384kbps", "10ms"),
    "hsdpa500": _hsdpa("HSDPA 500k", "500kbps"),
    "hsdpa3600": _hsdpa("HSDPA 3.6M", "3.6Mbps"),
}

TRAFFIC: dict[str, dict[str, Any]] = {
    "web": {"label": "web", "traffic": {"model": "web", "connections": 4, "main_size": "65kB", "inlines": 3,
                                        "inline_size": "65kB", "reading_time": "6s"}},
    "file": {"label": "file 250 kB", "traffic": {"model": "file_download", "size": "250kB", "reading_time": "6s"}},
    "file2.5M": {"label": "file 2.5 MB", "traffic": {"model": "file_download", "size": "2.5MB", "reading_time": "6s"}},
}

REQUEST = {"dist": "lognormal", "mu": 5.93, "sigma": 0.32}

#: TCP as the study ran it: NewReno, "ns-2 defaults otherwise". ns-2's
#: ``tcl/lib/ns-default.tcl`` (from 2001 through ns-2.35) has ``Agent/TCP set windowInit_ 2``
#: ("default changed on 2001/5/26") with ``windowInitOption_ 1`` (use it as
#: given), so the initial window is 2 segments. Its ``Agent/TCPSink`` ACKs every
#: segment, which is cellaqm's default (``delayed_ack = false``). MSS and header
#: follow the study's MTU 1500 B with 60 B of TCP + IPv6 headers. The RTO before
#: the first RTT sample is ns-2's ``rtxcur_init_``: 6 s in the ns-2 of early 2005
#: the study ran (``ns-default.tcl``: "set rtxcur_init_ 3.0; # Default changed on
#: 2006/01/21"), not cellaqm's 1 s (RFC 6298). The other timer defaults are ns-2's
#: too: ``minrto_ 0.2`` (cellaqm's ``rto_min``), one timed segment per RTT
#: (``rtt_samples = "per_rtt"``), slow-start restart after idle
#: (``slow_start_restart_ true``, cellaqm's ``restart_after_idle``).
TCP: dict[str, Any] = {"recovery": "newreno", "mss": "1440B", "header": "60B", "initial_window": 2,
                       "rto_initial": "6s"}

#: The page that explains the model and the table (printed under it).
DOC = "docs/wcdma.md"


def queue(scheme: str, buffer_kb: int) -> dict[str, Any]:
    """The PDCP queue discipline with the study's parameters for a ``buffer_kb`` buffer."""
    if scheme == "td":
        return {"scheme": "tail_drop"}
    if scheme == "red":
        th = {"min": "10kB", "max": "30kB"} if buffer_kb <= 30 else {"min": "33.3kB", "max": "100kB"}
        return {"scheme": "red", "thresholds": th, "max_p": 0.1, "gentle": True, "w_q": 1.0}
    if scheme == "ared":
        return {"scheme": "ared", "thresholds": {"delay": "0.5s", "floor": "7500B", "ratio": 3.0}, "max_p": 0.1}
    if scheme == "pdpc":
        return {"scheme": "pdpc", "thresholds": {"delay": "0.5s", "floor": "7500B", "ratio": 3.0}, "counter": 20}
    if scheme == "ttlred1":
        return {"scheme": "ttlred1", "low_th": "250ms", "high_th": "1500ms", "max_p": 0.1}
    if scheme == "ttlred2":
        return {"scheme": "ttlred2", "low_th": "500ms", "high_th": "3s", "max_p": 0.1, "scan": "10ms"}
    raise ValueError(f"unknown scheme {scheme!r} (one of {', '.join(SCHEMES)})")


def scenario(bearer: str, traffic: str, scheme: str, rwnd: int = 30, buffer_kb: int = 100,
             duration_s: float = 1200.0) -> dict[str, Any]:
    """One case of the study as a scenario mapping (the structure of the TOML files)."""
    b, t = BEARERS[bearer], TRAFFIC[traffic]
    radio = {k: (dict(v) if isinstance(v, dict) else v) for k, v in b["radio"].items()}
    radio["buffer"] = f"{buffer_kb}kB"
    radio["queue"] = queue(scheme, buffer_kb)
    radio["uplink"] = {"rate": "64kbps", "tti": "20ms", "delay": "15ms"}
    return {
        "name": f"wcdma-{bearer}-{traffic}-rwnd{rwnd}-{buffer_kb}kB-{scheme}",
        "description": (f"WCDMA RNC AQM study: {b['label']}, {t['label']}, rwnd {rwnd} packets, "
                        f"PDCP buffer {buffer_kb} kB, {SCHEME_LABELS[scheme]}"),
        "duration": f"{duration_s:g}s",
        "seed": 1,
        "tcp": {**TCP, "rwnd": rwnd},
        "traffic": {**t["traffic"], "request_size": REQUEST},
        "core": {"rate": "100Mbps", "delay": "70ms"},
        "radio": radio,
    }


# --------------------------------------------------------------------------- scenario files


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def to_toml(doc: dict[str, Any], header: str = "") -> str:
    """A scenario mapping as TOML: scalars first, then one table per section (nested tables as sub-tables)."""
    lines = [f"# {line}" for line in header.splitlines()]

    def table(prefix: str, d: dict[str, Any]) -> None:
        subs = {k: v for k, v in d.items() if isinstance(v, dict) and k not in ("queue", "loss", "request_size", "thresholds")}
        lines.append(f"\n[{prefix}]")
        for k, v in d.items():
            if k not in subs:
                lines.append(f"{k} = {_toml_value(v)}")
        for k, v in subs.items():
            table(f"{prefix}.{k}", v)

    for k, v in doc.items():
        if not isinstance(v, dict):
            lines.append(f"{k} = {_toml_value(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            table(k, v)
    return "\n".join(lines) + "\n"


def write_scenarios(root: os.PathLike[str] | str) -> list[Path]:
    """Write every case of the study: ``root/<scheme>/<bearer>-<traffic>-rwnd<N>-<B>kB.toml``."""
    written = []
    for scheme in SCHEMES:
        for bearer in BEARERS:
            for traffic in ("web", "file"):
                for rwnd in (30, 60):
                    for buf in (30, 100):
                        doc = scenario(bearer, traffic, scheme, rwnd, buf)
                        path = Path(root) / scheme / f"{bearer}-{traffic}-rwnd{rwnd}-{buf}kB.toml"
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_text(to_toml(doc, "Generated by cellaqm.reproduce.write_scenarios: edit reproduce.py, not this file."))
                        written.append(path)
        path = Path(root) / scheme / "hsdpa3600-file2.5M-rwnd30-100kB.toml"
        path.write_text(to_toml(scenario("hsdpa3600", "file2.5M", scheme), "Generated by cellaqm.reproduce.write_scenarios: edit reproduce.py, not this file."))
        written.append(path)
    return written


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Case:
    bearer: str
    traffic: str

    @property
    def label(self) -> str:
        return f"{BEARERS[self.bearer]['label']}, {TRAFFIC[self.traffic]['label']}"


#: The headline table's rows, then the 2.5 MB case.
HEADLINE = [Case(b, t) for b in BEARERS for t in ("web", "file")] + [Case("hsdpa3600", "file2.5M")]
#: What ``make run`` shows: one WCDMA bearer, every scheme.
DEMO = [Case("dch384", "web")]


def mean_ci(values: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean and Student-t half width (NaN with fewer than two values)."""
    from cellaqm.stats import mean_ci as _mean_ci

    mean, half, _n, _sd = _mean_ci(values, confidence)
    return mean, half


def _kbps(bps: Optional[float]) -> float:
    """kb/s; NaN when there is no value (no download finished: null in the summary)."""
    return math.nan if bps is None else float(bps) / 1e3


def sets_for(bearer: str, sets: tuple[str, ...]) -> list[str]:
    """The ``--set`` overrides that apply to ``bearer``'s cases: those under ``radio.dch`` only to the
    R99 bearers, under ``radio.hsdpa`` only to HSDPA, every other key to every case."""
    kind = BEARERS[bearer]["radio"]["bearer"]
    return [x for x in sets if not any(x.startswith(f"radio.{k}.") for k in ("dch", "hsdpa") if k != kind)]


def _one(case: Case, scheme: str, seed: int, duration_s: float, sets: tuple[str, ...] = ()) -> dict[str, Any]:
    from cellaqm import run

    t0 = time.perf_counter()
    res = run(scenario(case.bearer, case.traffic, scheme, duration_s=duration_s), seed=seed,
              sets=sets_for(case.bearer, sets))
    s = res.summary
    return {
        "case": case, "scheme": scheme, "seed": seed,
        "p95_ms": math.nan if s["delay_ms"]["p95"] is None else float(s["delay_ms"]["p95"]),  # null: no packet
        "goodput_kbps": _kbps(s["downloads"]["mean_goodput_bps"]),
        "stalled_flows": s["stalled_flows"],
        "wall_s": time.perf_counter() - t0,
    }


def run_parallel(fn: Callable[[T], R], tasks: list[T], label: str, jobs: int, progress: bool = True) -> list[R]:
    """``fn`` over ``tasks`` on ``jobs`` threads (the core releases the GIL), with a progress bar; results in any order."""
    import concurrent.futures as cf

    out: list[R] = []
    bar = None
    if progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                       transient=True)
        bar.start()
        task_id = bar.add_task("runs", total=len(tasks))
    try:
        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            for f in cf.as_completed([pool.submit(fn, t) for t in tasks]):
                out.append(f.result())
                if bar is not None:
                    bar.advance(task_id)
    finally:
        if bar is not None:
            bar.stop()
    return out


def run_all(cases: list[Case], reps: int, duration_s: float, jobs: int, progress: bool = True,
            sets: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every (case, scheme, replication) in parallel, with ``sets`` (see :func:`sets_for`); results in any order."""
    tasks = [(c, s, r + 1) for c in cases for s in SCHEMES for r in range(reps)]
    return run_parallel(lambda t: _one(*t, duration_s, sets), tasks, "wcdma-rnc-aqm", jobs, progress)


def table(results: list[dict[str, Any]], cases: list[Case]) -> list[dict[str, Any]]:
    """One row per (case, scheme): means, CI half widths, change vs TD in %."""
    rows = []
    for case in cases:
        by = {s: [r for r in results if r["case"] == case and r["scheme"] == s] for s in SCHEMES}
        td = {m: mean_ci([r[m] for r in by["td"]])[0] for m in ("p95_ms", "goodput_kbps")}
        for s in SCHEMES:
            row: dict[str, Any] = {"case": case.label, "scheme": SCHEME_LABELS[s], "runs": len(by[s])}
            for m in ("p95_ms", "goodput_kbps"):
                mean, half = mean_ci([r[m] for r in by[s]])
                row[m] = mean
                row[m + "_ci"] = half
                row[m + "_vs_td_pct"] = (mean / td[m] - 1.0) * 100.0 if td[m] else math.nan
            rows.append(row)
    return rows


COLUMNS = ["case", "scheme", "runs", "p95_ms", "p95_ms_ci", "p95_ms_vs_td_pct", "goodput_kbps", "goodput_kbps_ci",
           "goodput_kbps_vs_td_pct"]


def _fmt(x: float, digits: int = 0) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:+.1f}%"


def markdown(rows: list[dict[str, Any]], title: str) -> str:
    lines = [f"# {title}", "",
             "| case | scheme | p95 IP delay [ms] (95% CI) | vs TD | goodput [kb/s] (95% CI) | vs TD |",
             "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['scheme']} | {_fmt(r['p95_ms'])} ± {_fmt(r['p95_ms_ci'])} | {_pct(r['p95_ms_vs_td_pct'])} "
                     f"| {_fmt(r['goodput_kbps'], 1)} ± {_fmt(r['goodput_kbps_ci'], 1)} | {_pct(r['goodput_kbps_vs_td_pct'])} |")
    return "\n".join(lines) + "\n"


def print_table(rows: list[dict[str, Any]], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title)
    for name, justify in [("case", "left"), ("scheme", "left"), ("p95 \\[ms]", "right"), ("±CI", "right"),
                          ("vs TD", "right"), ("goodput \\[kb/s]", "right"), ("±CI", "right"), ("vs TD", "right")]:
        t.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    prev = None
    for r in rows:
        if prev is not None and r["case"] != prev:
            t.add_section()
        prev = r["case"]
        t.add_row(r["case"], r["scheme"], _fmt(r["p95_ms"]), _fmt(r["p95_ms_ci"]), _pct(r["p95_ms_vs_td_pct"]),
                  _fmt(r["goodput_kbps"], 1), _fmt(r["goodput_kbps_ci"], 1), _pct(r["goodput_kbps_vs_td_pct"]))
    t.caption = "p95: 95th-percentile IP packet delay; goodput: mean TCP download goodput; ±CI: 95% Student-t half width"
    Console(width=max(Console().width, 110)).print(t)


def plot(rows: list[dict[str, Any]], path: Path) -> Path:
    """p95 delay against goodput, one point per scheme (with CI bars), one panel per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r["case"] for r in rows))
    fig, axes = plt.subplots(1, len(cases), figsize=(5.0 * len(cases), 4.0), squeeze=False)
    for ax, case in zip(axes[0], cases):
        for r in (r for r in rows if r["case"] == case):
            ax.errorbar(r["goodput_kbps"], r["p95_ms"], xerr=r["goodput_kbps_ci"] if not math.isnan(r["goodput_kbps_ci"]) else None,
                        yerr=r["p95_ms_ci"] if not math.isnan(r["p95_ms_ci"]) else None, fmt="o", capsize=3, label=r["scheme"])
        ax.set_title(case)
        ax.set_xlabel("mean download goodput [kb/s]")
        ax.set_ylabel("95th percentile IP packet delay [ms]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- next to the published table

#: Columns of ``comparison.csv``: per metric the published value, ours, their ratio and both changes vs TD.
COMPARISON_COLUMNS = ["case", "scheme"] + [
    f"{m}_{k}" for m in ("p95_ms", "goodput_kbps")
    for k in ("published", "ours", "ratio", "vs_td_published_pct", "vs_td_ours_pct")
]


def comparison_markdown(rows: list[dict[str, Any]], line: str) -> str:
    lines = ["| case | scheme | p95 [ms] study | ours | ratio | vs TD study | ours | goodput [kb/s] study | ours | ratio "
             "| vs TD study | ours |", "|---|---|" + "---:|" * 10]
    for r in rows:
        cells = []
        for m, digits in (("p95_ms", 0), ("goodput_kbps", 1)):
            cells += [_fmt(r[f"{m}_published"], digits), _fmt(r[f"{m}_ours"], digits), f"{r[f'{m}_ratio']:.2f}",
                      _pct(r[f"{m}_vs_td_published_pct"]), _pct(r[f"{m}_vs_td_ours_pct"])]
        lines.append(f"| {r['case']} | {r['scheme']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{line}\n"


def print_comparison(rows: list[dict[str, Any]], line: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="next to the published Table I (study / ours)")
    for name in ("case", "scheme", "p95 \\[ms]", "ratio", "vs TD", "goodput \\[kb/s]", "ratio", "vs TD"):
        t.add_column(name, justify="left" if name in ("case", "scheme") else "right", no_wrap=True)
    prev = None
    for r in rows:
        if prev is not None and r["case"] != prev:
            t.add_section()
        prev = r["case"]
        t.add_row(r["case"], r["scheme"],
                  f"{_fmt(r['p95_ms_published'])} / {_fmt(r['p95_ms_ours'])}", f"{r['p95_ms_ratio']:.2f}",
                  f"{_pct(r['p95_ms_vs_td_published_pct'])} / {_pct(r['p95_ms_vs_td_ours_pct'])}",
                  f"{_fmt(r['goodput_kbps_published'], 1)} / {_fmt(r['goodput_kbps_ours'], 1)}",
                  f"{r['goodput_kbps_ratio']:.2f}",
                  f"{_pct(r['goodput_kbps_vs_td_published_pct'])} / {_pct(r['goodput_kbps_vs_td_ours_pct'])}")
    t.caption = line
    Console(width=max(Console().width, 150)).print(t)


# --------------------------------------------------------------------------- command line

@dataclass(frozen=True)
class Target:
    """A ``cellaqm reproduce`` target, as ``cellaqm list studies`` shows it."""

    name: str
    description: str
    #: Wall time of the full run and of ``--quick``, as measured in the study's doc.
    runtime: str


#: Every ``reproduce`` target (the command's choices).
STUDIES = (
    Target("wcdma-rnc-aqm",
           "Lakkakorpi & Cuny (WCNC 2006): p95 delay and goodput of TD, RED, ARED, PDPC, TTLRED1, TTLRED2 "
           "in the RNC's PDCP buffer, 8 WCDMA bearer x traffic rows + HSDPA 3.6M 2.5 MB (docs/wcdma.md)",
           "about 15 s on 2 cores (1200 s x 6 replications); --quick a few seconds (200 s x 2)"),
    Target("lte-uplink-raqm",
           "the LTE uplink study's 14 chapter-7 experiments: R-AQM, T-AQM, PDCP discard, DFF and combined AQM "
           "at fixed, square-wave and realistic rates, BSR period, fairness, estimator error (docs/lte-uplink.md)",
           "about 2 min on 2 cores (654 runs); --quick about 10 s (172 runs)"),
    Target("hsdsch-buffer-mgmt",
           "the HS-DSCH study: DT, DF, RED and PDPC n as ns-2.27 ran them; scenario 1 (one wired buffer), "
           "scenario 2 (seven HS-DSCH cells, session loads, ANOVA and Tukey), scenario 3 (one user) (docs/hsdsch.md)",
           "about 9 min on 2 cores (1 208 runs, 1 066 CPU s / 2); --quick about 20 s (211 runs)"),
    Target("umts-rlc-tcp",
           "the RLC-TCP study: TCP over RLC AM on a 384 kb/s DCH with Rayleigh-fading frame errors: initial "
           "window, buffer x Reno/SACK/timestamps, RTT/RTO trace, status prohibit and triggers, limited transmit, "
           "Eifel, RLC window, maxDAT and discards, in-order delivery, drop-tail/RED/ACK delay, what the buffer "
           "counts, occupancy, PDU errors; its 16 findings judged (docs/rlc-tcp.md)",
           "about 3.5 min on 2 cores (4 560 runs, 400 CPU s, 20 replications); --quick 10-20 s (98 runs)"),
    Target("umts-dsch-rrm",
           "the DSCH study: 37 UMTS cells whose resource managers serve 250 calls first and web users on the "
           "DSCH up to a load factor phi; Table 3 and Fig. 2 per phi x {400, 600} web users, a TCP user's "
           "throughput with SACK+FACK on/off, an Eb/N0 sensitivity, a time-sequence trace (docs/dsch.md)",
           "about 18 min on 2 cores (187 runs); --quick about 6 s (15 runs)"),
)
EXPERIMENTS = tuple(s.name for s in STUDIES)


def _positive(kind: type) -> Any:
    """An argparse type: a number of ``kind`` above zero (0 would otherwise read as "not given")."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not (value > 0 and math.isfinite(value)):
            what = "integer" if kind is int else "number"
            raise argparse.ArgumentTypeError(f"expected a positive {what}, got {text!r}")
        return value

    return parse


def add_parser(commands: Any) -> None:
    p = commands.add_parser(
        "reproduce",
        help="run a study's headline experiment and print its table",
        description=(
            "Run a study's headline experiment in parallel and print, and write as CSV and\n"
            "Markdown, its table with 95% confidence intervals and changes vs tail drop.\n\n"
            "wcdma-rnc-aqm: 8 bearer x traffic rows + the HSDPA 3.6 Mb/s 2.5 MB case, x TD,\n"
            "RED, ARED, PDPC, TTLRED1, TTLRED2; 1200 s, 6 replications (--quick: 200 s, 2).\n\n"
            "lte-uplink-raqm: the 14 chapter-7 experiments of the LTE uplink study (R-AQM's\n"
            "parameters; R-AQM, T-AQM, PDCP discard, DFF and combined AQM at fixed, square-wave\n"
            "and realistic rates; BSR period; fairness; estimator error; TCP sensitivity), a\n"
            "table (CSV) and a figure (PNG) each, and report.md; 5 replications where random\n"
            "(--quick: smaller files, fewer points, 1 replication; --only NAME[,NAME] picks).\n\n"
            "hsdsch-buffer-mgmt: the HS-DSCH study's buffer schemes (DT, DF, RED and PDPC n,\n"
            "in packets, as ns-2.27 ran them): scenario 1, one buffer before a 384 kb/s wired\n"
            "link; scenario 2, the seven-cell HS-DSCH system under session loads, system\n"
            "goodput per cell with paired t-tests, ANOVA and Tukey; scenario 3, one user's\n"
            "transfer times (10 replications; --quick: 60 s, 2); load-sweep, goodput and lost\n"
            "sessions against the load up to past saturation (3 seeds).\n\n"
            "umts-rlc-tcp: TCP over RLC AM on a 384 kb/s DCH with fading (2 MB downloads):\n"
            "initial window x packet size, buffer x Reno/SACK/timestamps, the RTT/RTO trace (Fig. 3),\n"
            "slow start, status prohibit and STATUS triggers, limited transmit, the Eifel response,\n"
            "RLC window x RAN RTT and x channel, maxDAT and discard bursts, in-order delivery,\n"
            "drop-tail/RED/ACK delay, what the buffer counts, occupancy, PDU errors; a table (CSV)\n"
            "and a figure (PNG) each, and report.md ending with the study's 16 findings judged;\n"
            "20 replications (--quick: 2 replications, 1-2 levels per factor).\n\n"
            "umts-dsch-rrm: the DSCH study's 37-cell system, phi 60-100% x {400, 600} web users\n"
            "(+ no web users): the central cell's load factor, acceptance, SDU errors and delay;\n"
            "the TCP user's throughput with SACK+FACK on/off; 660 s runs, 5 replications;\n"
            "the conversational Eb/N0 sensitivity; one transfer's time-sequence trace\n"
            "(--quick: 20 s, phi 60 and 100%, 1 replication; --only system,tcp,eb-n0,trace picks).\n\n"
            "--duration and --demo apply to wcdma-rnc-aqm only (the other studies set their runs'\n"
            "lengths)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("experiment", choices=EXPERIMENTS, metavar="EXPERIMENT", help="one of: " + ", ".join(EXPERIMENTS))
    p.add_argument("--quick", action="store_true", help="short version for CI (wcdma-rnc-aqm: 200 s, 2 replications; lte-uplink-raqm: smaller files, "
                   "fewer points, 1 replication; hsdsch-buffer-mgmt: 60 s runs, 2 replications; umts-rlc-tcp: 2 "
                   "replications, fewer levels; umts-dsch-rrm: 20 s runs, 2 values of phi, 1 replication)")
    p.add_argument("--demo", action="store_true", help="one WCDMA bearer (R99 384k, web), every scheme, 300 s, 4 replications, with a plot")
    p.add_argument("--duration", type=_positive(float), metavar="S", help="simulated seconds per run (overrides the preset)")
    p.add_argument("--reps", type=_positive(int), metavar="N", help="replications (overrides the preset)")
    p.add_argument("--out", metavar="DIR", help="where to write the tables and figures (default: results/EXPERIMENT)")
    p.add_argument("--only", metavar="NAMES", help="lte-uplink-raqm, hsdsch-buffer-mgmt, umts-rlc-tcp, umts-dsch-rrm: only these experiments "
                   "(comma-separated; the list is in the study's docs page and in the error for a wrong name)")
    p.add_argument("--jobs", type=_positive(int), metavar="N", help="parallel runs (default: all cores)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", dest="sets",
                   help="wcdma-rnc-aqm: override a scenario value in every case (a sensitivity run), e.g. "
                        "radio.rlc.status.prohibit=300ms; keys under radio.dch apply to the R99 rows only, "
                        "under radio.hsdpa to the HSDPA rows only; repeatable")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def command(args: argparse.Namespace) -> int:
    from cellaqm.cli import OutputError, UsageError
    from cellaqm.runner import default_jobs
    from cellaqm.study import write_csv

    if args.sets and args.experiment != "wcdma-rnc-aqm":
        raise UsageError("--set: only with wcdma-rnc-aqm")
    jobs = args.jobs if args.jobs is not None else default_jobs()
    out = Path(args.out or f"results/{args.experiment}")
    try:
        out.mkdir(parents=True, exist_ok=True)  # before the runs: a bad --out fails at once
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    if args.experiment != "wcdma-rnc-aqm":
        from cellaqm import dsch, hsdsch, lte_uplink, rlc_tcp, study

        studies = {s.name: s for s in (lte_uplink.STUDY, hsdsch.STUDY, rlc_tcp.STUDY, dsch.STUDY)}
        return study.command(studies[args.experiment], args, jobs, out)
    if args.only is not None:
        raise UsageError("--only applies to lte-uplink-raqm, hsdsch-buffer-mgmt, umts-rlc-tcp and umts-dsch-rrm")
    duration, reps, cases = 1200.0, 6, HEADLINE
    if args.quick:
        duration, reps = 200.0, 2
    if args.demo:
        duration, reps, cases = 300.0, 4, DEMO
    duration = args.duration if args.duration is not None else duration
    reps = args.reps if args.reps is not None else reps
    t0 = time.perf_counter()
    from cellaqm.api import ScenarioError, check_sets

    try:
        sets = tuple(check_sets(args.sets))
        results = run_all(cases, reps, duration, jobs, progress=not args.quiet, sets=sets)
    except ScenarioError as exc:  # a --set key or value the scenarios refuse
        raise UsageError(str(exc) if str(exc).startswith("--set") else f"--set: {exc}") from None
    wall = time.perf_counter() - t0
    rows = table(results, cases)
    title = f"WCDMA RNC AQM (Lakkakorpi & Cuny 2006): rwnd 30, PDCP 100 kB, {duration:g} s x {reps} replications"
    if sets:
        title += " with " + ", ".join(sets)
    print_table(rows, title)
    print(f"What the model is and why some rows tie (the HSDPA 3.6M rows: the uplink's ACK clock): see {DOC}")
    try:
        write_csv(rows, COLUMNS, out / "table.csv", digits=3)
        (out / "table.md").write_text(markdown(rows, title))
        written = [out / "table.csv", out / "table.md"]
        from cellaqm import published

        compared, summary = published.compare(rows, published.wcdma_table1())
        if compared:
            from cellaqm.published import observations as obs

            line = published.summary_line(summary)
            print_comparison(compared, line)
            stated = obs.observations(compared, rows, [b["label"] for b in BEARERS.values()])
            print("The study's stated observations, on its Table I and on ours:")
            print("\n".join(obs.lines(stated)))
            write_csv(compared, COMPARISON_COLUMNS, out / "comparison.csv", digits=3)
            (out / "comparison.md").write_text(comparison_markdown(compared, line) + "\n" + obs.markdown(stated))
            written += [out / "comparison.csv", out / "comparison.md"]
        if args.demo:
            written.append(plot(rows, out / "plot.png"))
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    stalled = [f"{r['case'].label}, {SCHEME_LABELS[r['scheme']]}, seed {r['seed']}: {r['stalled_flows']}"
               for r in results if r["stalled_flows"]]
    if stalled:
        from cellaqm.study import stall_warning

        print(stall_warning(stalled))
    slowest = max(results, key=lambda r: r["wall_s"])
    print(f"{len(results)} runs in {wall:.1f} s wall on {jobs} jobs; slowest run {slowest['wall_s']:.2f} s "
          f"({slowest['case'].label}, {SCHEME_LABELS[slowest['scheme']]}, seed {slowest['seed']})")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0
