"""``cellaqm reproduce wcdma-rnc-aqm``: the headline experiment of Lakkakorpi & Cuny (WCNC 2006),
on the shared experiment machinery of :mod:`cellaqm.study`.

Eight bearer × traffic rows (R99 DCH 64k and 384k, HSDPA 500k and 3.6M; web
browsing with 65 kB objects or 250 kB file downloads), advertised window 30
packets, PDCP buffer 100 kB, each under TD, RED, ARED, PDPC, TTLRED1 and
TTLRED2, 1200 s and 6 replications; plus the HSDPA 3.6 Mb/s single-flow
2.5 MB case. For every row and scheme: the 95th-percentile IP packet delay
[ms] and the mean TCP download goodput [kb/s], each with its 95% Student-t
confidence interval over the replications and the change vs TD in %, set
beside the study's published Table I (:mod:`cellaqm.published`) with its five
stated observations judged on both tables.

The scenarios are built here (:func:`scenario`), the single source of the
study's parameters; ``write_scenarios`` writes them as the files under
``scenarios/wcdma/``. Replication ``r`` uses seed ``r + 1`` for every scheme
(common random numbers).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from cellaqm.findings import Results
from cellaqm.study import Comparison, Experiment, Run, Study, save
from cellaqm.textable import Column, Table

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


def write_scenarios(root: os.PathLike[str] | str) -> list[Path]:
    """Write every case of the study: ``root/<scheme>/<bearer>-<traffic>-rwnd<N>-<B>kB.toml``."""
    from cellaqm.reproduce import to_toml

    written = []
    for scheme in SCHEMES:
        for bearer in BEARERS:
            for traffic in ("web", "file"):
                for rwnd in (30, 60):
                    for buf in (30, 100):
                        doc = scenario(bearer, traffic, scheme, rwnd, buf)
                        path = Path(root) / scheme / f"{bearer}-{traffic}-rwnd{rwnd}-{buf}kB.toml"
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_text(to_toml(doc, "Generated by cellaqm.wcdma.write_scenarios: edit wcdma.py, not this file."))
                        written.append(path)
        path = Path(root) / scheme / "hsdpa3600-file2.5M-rwnd30-100kB.toml"
        path.write_text(to_toml(scenario("hsdpa3600", "file2.5M", scheme), "Generated by cellaqm.wcdma.write_scenarios: edit wcdma.py, not this file."))
        written.append(path)
    return written


# --------------------------------------------------------------------------- running


# --------------------------------------------------------------------------- the study


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


#: Run length and replications: the study's (full) and --quick's; the demo's run length.
FULL = (1200.0, 6)
QUICK = (200.0, 2)
DEMO_S = 300.0


def case_runs(cases: list[Case], duration_s: float, reps: int) -> list[Run]:
    """Every (case, scheme), replication ``r`` on seed ``r + 1``."""
    return [Run({"case": c.label, "scheme": SCHEME_LABELS[s]}, scenario(c.bearer, c.traffic, s, duration_s=duration_s),
                seed) for c in cases for s in SCHEMES for seed in range(1, reps + 1)]


def _nan(v: Optional[float], scale: float = 1.0) -> float:
    return math.nan if v is None else float(v) * scale


def measure(run: Run) -> Run:
    """Simulates ``run``: the 95th-percentile IP packet delay (NaN: no packet) and the mean download goodput
    (NaN: no download finished)."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    s = simulate(run.doc, seed=run.seed).summary
    run.out = {"p95_ms": _nan(s["delay_ms"]["p95"]), "goodput_kbps": _nan(s["downloads"]["mean_goodput_bps"], 1e-3),
               "stalled_flows": float(s["stalled_flows"]), "wall_s": time.perf_counter() - t0}
    return run


def versus_td(rows: list[dict[str, Any]], case: str = "case") -> None:
    """Each measure's change vs tail drop (the row with scheme "TD") of the same ``case`` column's value, in %."""
    td = {r[case]: r for r in rows if r["scheme"] == "TD"}
    for r in rows:
        for m in ("p95_ms", "goodput_kbps"):
            ref = td[r[case]][m] if r[case] in td else math.nan
            r[f"{m}_vs_td_pct"] = (r[m] / ref - 1.0) * 100.0 if ref else math.nan


def plot(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """p95 delay against goodput, one point per scheme (with CI bars), one panel per case, three to a row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r["case"] for r in rows))
    ncols = min(3, len(cases))
    nrows = math.ceil(len(cases) / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows), squeeze=False)
    axes = grid.ravel()
    for ax, case in zip(axes, cases):
        for r in (r for r in rows if r["case"] == case):
            ax.errorbar(r["goodput_kbps"], r["p95_ms"],
                        xerr=None if math.isnan(r["goodput_kbps_ci"]) else r["goodput_kbps_ci"],
                        yerr=None if math.isnan(r["p95_ms_ci"]) else r["p95_ms_ci"], fmt="o", capsize=3,
                        label=r["scheme"])
        ax.set_title(case, fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[len(cases):]:
        ax.set_visible(False)
    axes[0].legend(fontsize=7)
    fig.supxlabel("mean download goodput [kb/s]")
    fig.supylabel("95th percentile IP packet delay [ms]")
    save(fig, path)


MEASURE_LABELS = {"p95_ms": "p95 IP delay [ms]", "p95_ms_vs_td_pct": "p95 vs TD", "goodput_kbps": "goodput [kb/s]",
                  "goodput_kbps_vs_td_pct": "goodput vs TD"}
MEASURES = ("p95_ms", "p95_ms_vs_td_pct", "goodput_kbps", "goodput_kbps_vs_td_pct")
NOTE = ("rwnd 30 packets, PDCP buffer 100 kB; p95: 95th-percentile IP packet delay; goodput: mean TCP download "
        f"goodput; vs TD: change from tail drop. What the model is and why some rows tie (the HSDPA 3.6M rows: the "
        f"uplink's ACK clock): see {DOC}")


def _table_runs(quick: bool, reps: int) -> list[Run]:
    return case_runs(HEADLINE, (QUICK if quick else FULL)[0], reps)


def _demo_runs(quick: bool, reps: int) -> list[Run]:
    return case_runs(DEMO, DEMO_S, reps)


TABLE = Experiment("table", "Table I: p95 IP packet delay and download goodput, every bearer x traffic and scheme",
                   _table_runs, ("case", "scheme"), MEASURES, plot,
                   "1200 s x 6 replications (--quick: 200 s x 2); " + NOTE, versus_td)
DEMO_EXPERIMENT = Experiment("demo", "Every scheme on one WCDMA bearer (R99 384k, web), 300 s runs", _demo_runs,
                             ("case", "scheme"), MEASURES, plot, NOTE, versus_td)

# --------------------------------------------------------------------------- next to the published table

#: Columns of ``comparison.csv``: per metric the published value, ours, their ratio and both changes vs TD.
COMPARISON_COLUMNS = ["case", "scheme"] + [
    f"{m}_{k}" for m in ("p95_ms", "goodput_kbps")
    for k in ("published", "ours", "ratio", "vs_td_published_pct", "vs_td_ours_pct")
]


def _fmt(x: float, digits: int = 0) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.{digits}f}"


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:+.1f}%"


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


def comparison_table(rows: list[dict[str, Any]], line: str) -> Table:
    """The comparison on a terminal: study / ours side by side per metric."""
    cols = [Column("case", key=True, wrap=True), Column("scheme", key=True)] + [
        Column(h, right=True) for h in ("p95 [ms] study / ours", "ratio", "p95 vs TD study / ours",
                                        "goodput [kb/s] study / ours", "ratio", "goodput vs TD study / ours")]
    cells, sections = [], set()
    for n, r in enumerate(rows):
        if n and r["case"] != rows[n - 1]["case"]:
            sections.add(n)
        row = [r["case"], r["scheme"]]
        for m, digits in (("p95_ms", 0), ("goodput_kbps", 1)):
            row += [f"{_fmt(r[f'{m}_published'], digits)} / {_fmt(r[f'{m}_ours'], digits)}", f"{r[f'{m}_ratio']:.2f}",
                    f"{_pct(r[f'{m}_vs_td_published_pct'])} / {_pct(r[f'{m}_vs_td_ours_pct'])}"]
        cells.append(row)
    return Table("Next to the published Table I (study / ours)", cols, cells, sections, line)


def published(results: Results) -> Optional[Comparison]:
    """Our Table I beside the study's, with its five stated observations judged on both."""
    from cellaqm import published as pub
    from cellaqm.published import observations as obs

    ran = [e.name for e in (TABLE, DEMO_EXPERIMENT) if results.has(e.name)]  # the demo: one bearer's rows
    if not ran:
        return None
    rows = results.rows(ran[0])
    compared, summary = pub.compare(rows, pub.wcdma_table1())
    if not compared:
        return None
    line = pub.summary_line(summary)
    stated = obs.observations(compared, rows, [b["label"] for b in BEARERS.values()])
    notes = ["The study's stated observations, on its Table I and on ours:", *obs.lines(stated)]
    held = (f"its five stated observations: {sum(o.study.holds is True for o in stated)} hold on its Table I, "
            f"{sum(o.ours.holds is True for o in stated)} on ours (below)")
    return Comparison("Next to the published Table I", line, COMPARISON_COLUMNS, compared,
                      comparison_markdown(compared, line) + "\n" + obs.markdown(stated), comparison_table(compared, line),
                      notes, held)


STUDY = Study("wcdma-rnc-aqm", "WCDMA RNC AQM (Lakkakorpi & Cuny, WCNC 2006)", DOC, [TABLE], measure, MEASURE_LABELS,
              reps=(FULL[1], QUICK[1]), published=published, demo=DEMO_EXPERIMENT)
