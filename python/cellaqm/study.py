"""What every study's ``cellaqm reproduce`` shares: experiments of runs, their
tables (mean and 95% Student-t interval over replications), figures, and the
command that runs them (:mod:`cellaqm.engine`: the runs as sweep plans on the
sweep runner, every run kept as a row in the study's store, resumable; each
experiment's ``NAME.csv``, ``NAME.png`` and its section of ``report.md``
written as it finishes).

A study module (``wcdma``, ``lte_uplink``, ``hsdsch``, ``rlc_tcp``, ``dsch``)
builds its scenarios and :class:`Run` lists, measures a run (``measure``:
simulate, keep numbers in ``run.out``; it sees the run's scenario, seed and
options, not its labels: a simulation that several experiments list is run and
measured once) and lists its :class:`Experiment` s in a :class:`Study`.
``run.out`` holds numbers (NaN: no value), text, booleans, and for figures
DataFrames, lists, 1-D arrays or dicts of those; each is kept in the store
(:mod:`cellaqm.rows`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from cellaqm.findings import Finding, Results
from cellaqm.textable import Column, Table


@dataclass
class Run:
    """One simulation of an experiment: its labels (table columns), scenario, seed and what to record."""

    labels: dict[str, Any]
    doc: dict[str, Any]
    seed: int = 1
    #: Study-specific switches for ``measure`` (e.g. record a trace).
    options: dict[str, Any] = field(default_factory=dict)
    out: dict[str, Any] = field(default_factory=dict)


@dataclass
class Experiment:
    name: str
    title: str
    #: The runs for (quick, reps).
    runs: Callable[[bool, int], list[Run]]
    #: Columns the table groups by (the rest are replications), and the measures it shows.
    group: tuple[str, ...]
    measures: tuple[str, ...]
    figure: Callable[[list[Run], list[dict[str, Any]], Path], None]
    note: str = ""
    #: Fills derived columns of the rows (e.g. scaled throughput), if any.
    post: Optional[Callable[[list[dict[str, Any]]], None]] = None
    #: Statistics beyond the table (tests, ANOVA), as Markdown, printed and added to the report.
    analysis: Optional[Callable[[list[Run]], str]] = None


@dataclass
class Comparison:
    """A study's published results beside ours (``Study.published``)."""

    title: str
    #: One line: how close ours are (the report's summary quotes it).
    line: str
    #: ``comparison.csv``: its columns and rows.
    columns: list[str]
    rows: list[dict[str, Any]]
    #: The report's section (without its heading): the table and what follows it.
    markdown: str
    #: The table on a terminal.
    table: Table
    #: Lines printed under the table.
    notes: list[str] = field(default_factory=list)
    #: The study's stated findings judged with it, in a line for the report's summary ("" if none).
    stated: str = ""


@dataclass
class Study:
    """A ``reproduce`` target: its experiments, how a run is measured, and how measures are named."""

    name: str
    title: str
    doc: str
    experiments: list[Experiment]
    measure: Callable[[Run], Run]
    labels: dict[str, str]
    #: Replications of random cases (full, quick).
    reps: tuple[int, int] = (5, 1)
    #: The study's stated conclusions with their judges (:mod:`cellaqm.findings`), judged after the experiments.
    findings: list[Finding] = field(default_factory=list)
    #: The study's published results set beside ours, from the experiment tables (None: none transcribed).
    published: Optional[Callable[[Results], Optional[Comparison]]] = None
    #: What ``--demo`` runs instead of the experiments: a small case with its figure (None: no demo).
    demo: Optional[Experiment] = None

    def by_name(self) -> dict[str, Experiment]:
        return {e.name: e for e in self.experiments}


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and 95% Student-t half width of the non-NaN values (NaN, NaN if none; half NaN with one)."""
    from cellaqm.stats import mean_ci as _mean_ci

    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return math.nan, math.nan
    mean, half, _n, _sd = _mean_ci(vals, 0.95)
    return mean, half


def table(runs: list[Run], group: tuple[str, ...], measures: tuple[str, ...]) -> list[dict[str, Any]]:
    """One row per group (in run order): each measure's mean, 95% CI half width and number of runs with a
    value (``_n``: a NaN, e.g. a transfer that did not finish, is no value) over the replications.

    Measures a run does not have (derived ones, filled by the experiment's ``post``) are left out.
    """
    order: dict[tuple[Any, ...], list[Run]] = {}
    for r in runs:
        order.setdefault(tuple(r.labels[g] for g in group), []).append(r)
    rows = []
    for key, rs in order.items():
        row: dict[str, Any] = dict(zip(group, key))
        row["runs"] = len(rs)
        for m in measures:
            if m in rs[0].out:
                values = [float(r.out[m]) for r in rs]
                row[m], row[m + "_ci"] = mean_ci(values)
                row[m + "_n"] = sum(not math.isnan(v) for v in values)
        rows.append(row)
    return rows


def scale(rows: list[dict[str, Any]], by: str, measure: str, reference: Callable[[dict[str, Any]], bool],
          name: str = "scaled") -> None:
    """``name`` = each row's ``measure`` ÷ that of the reference row with the same ``by`` value."""
    refs = {r[by]: r[measure] for r in rows if reference(r)}
    for r in rows:
        ref = refs.get(r[by], math.nan)
        r[name] = r[measure] / ref if ref else math.nan
        r[name + "_ci"] = r[measure + "_ci"] / ref if ref else math.nan


def level(value: Any) -> str:
    """A label cell, as given (``0.05`` stays ``0.05``; the store and the CSV write it the same way)."""
    from cellaqm.sweepfile import level_label

    return level_label(value)


def fmt(x: Any, measure: str = "") -> str:
    """A cell: measures at their precision (counts to 0.1, delays and times in ms to 1, ratios to 0.001, changes
    in % to 0.1 with their sign, rates to 3 digits)."""
    if not isinstance(x, float):
        return str(x)
    if math.isnan(x):
        return "—"
    if measure.endswith("_pct"):
        return f"{x:+.1f}%"
    if abs(x) < 1e-9:
        return "0"
    if measure.startswith(("rtos", "files", "drops", "sessions")):
        return f"{x:.1f}"
    if measure.startswith(("delay", "error")) or measure.endswith("_ms"):
        return f"{x:,.0f}" if abs(x) >= 10 else f"{x:.1f}"
    if measure.startswith("scaled"):
        return f"{x:.3f}"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def columns(rows: list[dict[str, Any]], group: tuple[str, ...], measures: tuple[str, ...]) -> list[str]:
    """The CSV's columns: the group, ``runs``, and per measure its mean, CI half width and runs with a value."""
    return [*group, "runs"] + [c for m in measures for c in (m, m + "_ci", m + "_n") if rows and c in rows[0]]


def counted(row: dict[str, Any], measure: str) -> str:
    """" (n/N runs)" when only n of the row's N runs have a value of ``measure``, else ""."""
    n = row.get(measure + "_n", row["runs"])
    return "" if n == row["runs"] else f" ({n}/{row['runs']} runs)"


def markdown(exp: Experiment, rows: list[dict[str, Any]], labels: dict[str, str]) -> str:
    """The experiment's section of ``report.md``: its title, note and table (a ``|`` in a cell escaped)."""
    cols = [c for c in columns(rows, exp.group, exp.measures) if not c.endswith("_n")]
    names = [labels.get(c, "± 95% CI" if c.endswith("_ci") else c) for c in cols]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [f"## {exp.title}", "", f"`{exp.name}`" + (f": {exp.note}" if exp.note else ""), "", line(names),
             "|" + "---|" * len(cols)]
    for r in rows:
        lines.append(line([(level(r.get(c, "")) if c in exp.group else fmt(r.get(c, ""), c))
                           + (counted(r, c) if c in exp.measures else "") for c in cols]))
    return "\n".join(lines) + "\n"


def measure_cell(r: dict[str, Any], m: str) -> str:
    """``mean ± CI`` of a measure (the CI when there is one), with " (n/N runs)" when some runs have no value."""
    ci = r.get(m + "_ci", math.nan)
    return fmt(r[m], m) + ("" if math.isnan(ci) else f" ± {fmt(ci, m)}") + counted(r, m)


def text_table(exp: Experiment, rows: list[dict[str, Any]], labels: dict[str, str]) -> Table:
    """The experiment's table for a terminal (:mod:`cellaqm.textable`): labels as given, then each measure."""
    measures = [m for m in exp.measures if rows and m in rows[0]]
    cols = [Column(c, key=True, wrap=True) for c in exp.group] + [Column("runs", right=True, key=True)]
    cols += [Column(labels.get(m, m), right=True) for m in measures]
    first = exp.group[0]
    sections = {n for n in range(1, len(rows)) if rows[n][first] != rows[n - 1][first]}
    cells = [[level(r[c]) for c in exp.group] + [str(r["runs"])] + [measure_cell(r, m) for m in measures]
             for r in rows]
    return Table(f"{exp.title} ({exp.name})", cols, cells, sections, exp.note)


def write_csv(rows: list[dict[str, Any]], cols: list[str], path: Path, digits: int = 4,
              exact: tuple[str, ...] = ()) -> None:
    """The ``cols`` of ``rows`` as CSV, numbers rounded to ``digits`` decimals (but the ``exact`` columns:
    labels, written as given)."""
    import csv

    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(v, digits) if isinstance(v, float) and k not in exact else v)
                        for k, v in r.items()})


# --------------------------------------------------------------------------- figures


def figure(ncols: int, width: float = 5.0, height: float = 3.6) -> tuple[Any, Any]:
    """A row of ``ncols`` panels (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
    return fig, axes[0]


def save(fig: Any, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def lines_figure(x: str, series: Optional[str], measures: tuple[str, ...], labels: dict[str, str],
                 logx: bool = False) -> Callable[..., None]:
    """Each measure against ``x``, one line per ``series`` value (one line if None), with CI bars.

    A numeric ``x`` is drawn at its values (rows with another ``x``, such as a reference, are left
    out); if no row has a numeric ``x``, its levels are drawn evenly spaced, in row order.
    """

    def draw(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
        fig, axes = figure(len(measures))
        levels = list(dict.fromkeys(r[x] for r in rows))
        spaced = not any(numeric(v) for v in levels)
        for ax, m in zip(axes, measures):
            for name in dict.fromkeys(r[series] if series else None for r in rows):
                pts = [r for r in rows if (r[series] if series else None) == name and (spaced or numeric(r[x]))]
                ax.errorbar([levels.index(r[x]) if spaced else r[x] for r in pts], [r[m] for r in pts],
                            yerr=[0 if math.isnan(r[m + "_ci"]) else r[m + "_ci"] for r in pts],
                            marker="o", capsize=2, label=None if name is None else str(name))
            if spaced:
                ax.set_xticks(range(len(levels)), [str(v) for v in levels])
            ax.set_xlabel(x)
            ax.set_ylabel(labels.get(m, m))
            if logx:
                ax.set_xscale("log")
            ax.grid(alpha=0.3)
        if series:
            axes[0].legend(fontsize=7, title=series)
        save(fig, path)

    return draw


def bars_figure(x: str, series: str, measures: tuple[str, ...], labels: dict[str, str]) -> Callable[..., None]:
    """Grouped bars: ``x`` groups, one bar per ``series`` value, one panel per measure."""

    def draw(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
        fig, axes = figure(len(measures), width=max(5.0, 0.9 * len({r[x] for r in rows}) + 2))
        for ax, m in zip(axes, measures):
            draw_bars(ax, rows, x, series, m)
            ax.set_ylabel(labels.get(m, m))
        axes[0].legend(fontsize=7)
        save(fig, path)

    return draw


def draw_bars(ax: Any, rows: list[dict[str, Any]], x: str, series: str, m: str) -> None:
    """Grouped bars of measure ``m`` on ``ax``: ``x`` groups, one bar per ``series`` value, with CI bars."""
    xs = list(dict.fromkeys(r[x] for r in rows))
    names = list(dict.fromkeys(r[series] for r in rows))
    w = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        pts = {r[x]: r for r in rows if r[series] == name}
        ys = [pts[v][m] if v in pts else math.nan for v in xs]
        es = [0 if v not in pts or math.isnan(pts[v][m + "_ci"]) else pts[v][m + "_ci"] for v in xs]
        ax.bar([j + i * w for j in range(len(xs))], ys, w, yerr=es, capsize=2, label=str(name))
    ax.set_xticks([j + w * (len(names) - 1) / 2 for j in range(len(xs))])
    ax.set_xticklabels([str(v) for v in xs], rotation=30, ha="right", fontsize=7)
    ax.grid(alpha=0.3, axis="y")


# --------------------------------------------------------------------------- command line


def stalled_cases(experiment: str, runs: list[Run]) -> list[str]:
    """The runs of ``experiment`` that ended with a stalled flow (``stalled_flows`` > 0), as "name (labels, seed)"."""
    return [f"{experiment} ({', '.join(f'{k} {v}' for k, v in r.labels.items())}, seed {r.seed}): "
            f"{r.out['stalled_flows']:.0f}" for r in runs if r.out.get("stalled_flows", 0) > 0]


def stall_warning(cases: list[str], every: bool = True) -> str:
    """One line naming every case where a flow stalled: its means leave that flow's unfinished transfer out.

    With ``every`` false and more than ten cases, the runs are counted per experiment instead (the
    terminal's form: the report lists each run).
    """
    head = (f"warning: {len(cases)} run(s) ended with stalled flows (data outstanding, nothing new acknowledged "
            f"over 3+ timeouts; their unfinished transfers are not in the means): ")
    if every or len(cases) <= 10:
        return head + "; ".join(cases)
    per = Counter(case.split(" (", 1)[0] for case in cases)
    return head + ", ".join(f"{name} {n}" for name, n in per.items()) + " (each run: report.md, section Warning)"


def writing(out: Path, write: Callable[[], Any]) -> None:
    """Runs ``write`` (files into ``out``); an OS error becomes the CLI's one-line output error."""
    from cellaqm.cli import OutputError

    try:
        write()
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None


def command(study: Study, args: Any, jobs: int, out: Path) -> int:
    """``cellaqm reproduce STUDY``: the chosen experiments (``--only``) on the experiment engine."""
    from cellaqm import engine

    return engine.command(study, args, jobs, out)
