"""The experiment subcommands of the ``cellaqm`` CLI: ``sweep``, ``table`` and ``plot``.

    cellaqm sweep FILE --out DIR [--jobs N] [--backend local|ray] [--ray-address ADDR] [--resume] [--packets]
    cellaqm table DIR --metric M [--rows F] [--cols F] [--where F=L] [--vs LEVEL] [--format md|csv|latex]
    cellaqm plot DIR --metric M [--kind bar|cdf] [--x F] [--hue F] [--where F=L] [--out PATH]
    cellaqm plot RUNDIR --kind trace [--flow N ...] [--span START:END] [--out PATH]

Bad input prints one line ``cellaqm: error: ...`` and exits 2 (nothing has
run); a sweep whose runs partly failed lists them and exits 1.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Callable, Optional

MAX_FAILURES_SHOWN = 20

_SWEEP_EPILOG = """\
examples:
  cellaqm sweep sweeps/buffer-sizes.toml --out results/buffer-sizes
  cellaqm sweep sweeps/buffer-sizes.toml --out results/buffer-sizes --resume   # after an interruption
  cellaqm sweep sweeps/buffer-sizes.toml --out results/bs-ray --backend ray --jobs 2

Exit status: 0 when every run finished; 1 when some runs failed (listed at the
end; the others are stored) or DIR cannot be written; 2 for a malformed sweep
file or bad option (nothing has run); 130 when interrupted (finished runs are
kept: finish with --resume). See docs/experiments.md.
"""

_TABLE_EPILOG = """\
examples:
  cellaqm table results/buffer-sizes --metric goodput_bps
  cellaqm table results/buffer-sizes --metric delay_ms.p95 --rows bottleneck.buffer --cols tcp.recovery --vs newreno
  cellaqm table results/buffer-sizes --metric rtos --where tcp.recovery=sack --format latex
"""

_PLOT_EPILOG = """\
examples:
  cellaqm plot results/buffer-sizes --metric goodput_bps --x bottleneck.buffer --hue tcp.recovery
  cellaqm plot results/buffer-sizes --kind cdf --metric packet_delay_ms --hue bottleneck.buffer
  cellaqm plot results/buffer-sizes --kind cdf --metric bottleneck_queue_bytes --hue bottleneck.buffer
  cellaqm plot results/buffer-sizes --metric delay_ms_p95 --out figs/delay.svg
  cellaqm run scenarios/default.toml --trace --out results/default && cellaqm plot results/default --kind trace
  cellaqm plot results/default --kind trace --span 10:30 --out figs/trace.png
  cellaqm run scenarios/hsdsch/web-sir.toml --out results/web-sir && cellaqm plot results/web-sir --kind users
  cellaqm plot results/web-sir --kind users --metric delay_ms_p95
"""


def _int_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}: {text!r}")
        return value

    return parse


def add_parsers(commands: Any) -> None:
    """Add ``sweep``, ``table`` and ``plot`` to the CLI's subparsers."""
    fmt = argparse.RawDescriptionHelpFormatter
    sw = commands.add_parser(
        "sweep",
        help="run a sweep of scenarios × factors × replications into a results directory",
        description=(
            "Run every run of a sweep file (factors, replications, seeds: see docs/experiments.md)\n"
            "and store each finished run in DIR as it finishes. The whole file is checked\n"
            "before the first run starts."
        ),
        epilog=_SWEEP_EPILOG,
        formatter_class=fmt,
    )
    sw.add_argument("file", metavar="FILE", help="sweep file (.toml)")
    sw.add_argument("--out", required=True, metavar="DIR", help="results directory (created if needed)")
    sw.add_argument("--jobs", type=_int_at_least(1), metavar="N", help="parallel runs (default: all cores)")
    sw.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local threads (default) or a Ray cluster")
    sw.add_argument("--ray-address", metavar="ADDR",
                    help="connect to this Ray cluster (default: start a local one with --jobs CPUs)")
    sw.add_argument("--executor", choices=("thread", "process"), default="thread",
                    help="local backend: run in threads (default, measured faster) or worker processes")
    sw.add_argument("--resume", action="store_true",
                    help="finish the sweep already in DIR: run only the runs missing there")
    sw.add_argument("--packets", action="store_true",
                    help="keep every run's delivered packets and buffer occupancy distributions "
                         "(DIR/detail/, for packet-delay and queue-occupancy CDFs)")
    sw.add_argument("--dry-run", action="store_true", help="check the file and list the plan; run nothing")
    sw.add_argument("--quiet", action="store_true", help="no progress bar")

    tb = commands.add_parser(
        "table",
        help="table of a metric: mean ± 95%% CI per cell of factor levels",
        description=(
            "Print a table of one metric over the finished runs in DIR: mean ± Student-t\n"
            "confidence interval per cell (rows × columns of factor levels), optionally\n"
            "with the % difference from a reference level (--vs)."
        ),
        epilog=_TABLE_EPILOG,
        formatter_class=fmt,
    )
    _common(tb)
    tb.add_argument("--rows", action="append", default=[], metavar="FACTOR",
                    help="row factor(s), repeatable or comma-separated (default: the factors not in --cols)")
    tb.add_argument("--cols", action="append", default=[], metavar="FACTOR",
                    help="column factor(s) (default: the last factor, or those not in --rows)")
    tb.add_argument("--vs", metavar="LEVEL", help="add %% vs this level (or FACTOR=LEVEL) of a row/column factor")
    tb.add_argument("--format", choices=("md", "csv", "latex"), default="md", help="output format (default md)")
    tb.add_argument("--confidence", type=float, default=0.95, metavar="C", help="CI level (default 0.95)")
    tb.add_argument("--digits", type=_int_at_least(0), metavar="N", help="decimals (default: from the CI widths)")
    tb.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")

    pl = commands.add_parser(
        "plot",
        help="bar chart with CI whiskers, or CDF, of a metric; or one run's trace (PNG/SVG)",
        description=(
            "Draw a figure of the runs in DIR: bars (mean ± CI per level of --x, grouped by\n"
            "--hue) or CDFs per level of --hue (packet_delay_ms and the queue occupancy,\n"
            "bottleneck_queue_bytes / _packets and uplink_queue_bytes / _packets, need a\n"
            "sweep run with --packets). With --kind trace, DIR is the output directory of\n"
            "one run recorded with 'cellaqm run FILE --trace --out DIR': cwnd, queue, drops\n"
            "and delivered sequence numbers against time. With --kind users, DIR is the\n"
            "output directory of one run ('cellaqm run FILE --out DIR'): a bar per user of\n"
            "a column of its users.csv (--metric, default goodput_bps). Writes PATH.png and\n"
            "PATH.svg (or just PATH if it ends in .png/.svg)."
        ),
        epilog=_PLOT_EPILOG,
        formatter_class=fmt,
    )
    _common(pl, metric_required=False)
    pl.add_argument("--kind", choices=("bar", "cdf", "trace", "users"), default="bar",
                    help="figure kind (default bar; trace: one run's time series, no --metric; "
                         "users: one run's per-user column, --metric default goodput_bps)")
    pl.add_argument("--x", metavar="FACTOR", help="bar: factor on the x axis (default: the first)")
    pl.add_argument("--hue", metavar="FACTOR", help="factor of the bar groups / CDF lines (default: the next)")
    pl.add_argument("--confidence", type=float, default=0.95, metavar="C", help="CI level (default 0.95)")
    pl.add_argument("--out", metavar="PATH",
                    help="output path, .png, .svg or .pdf (default DIR/plots/KIND-METRIC, png and svg)")
    pl.add_argument("--image-format", action="append", choices=("png", "svg", "pdf"), metavar="png|svg|pdf",
                    help="image formats when PATH has no extension (default png and svg); repeatable")
    pl.add_argument("--title", help="figure title")
    pl.add_argument("--flow", dest="flows", action="append", type=int, metavar="N",
                    help="trace: draw this flow; repeatable (default: the first 8 flows with data)")
    pl.add_argument("--span", metavar="START:END",
                    help="trace: only this time span in seconds, e.g. 10:30, 10: or :30")


def _common(p: argparse.ArgumentParser, metric_required: bool = True) -> None:
    p.add_argument("dir", metavar="DIR", help="results directory of a sweep"
                   + ("" if metric_required else " (--kind trace, users: of one run)"))
    p.add_argument("--metric", required=metric_required, metavar="M",
                   help="metric column, e.g. goodput_bps, delay_ms_p95 (or delay_ms.p95)"
                   + ("" if metric_required else "; required for bar and cdf"))
    p.add_argument("--where", action="append", default=[], metavar="FACTOR=LEVEL",
                   help="only runs at this level; repeatable")


def _split(items: list[str]) -> list[str]:
    return [x.strip() for item in items for x in item.split(",") if x.strip()]


def _note(text: str) -> None:
    sys.stderr.write(f"cellaqm: note: {text}\n")


def _load(path: str):
    import json
    from pathlib import Path

    from cellaqm.cli import UsageError
    from cellaqm.store import Store, StoreError

    study = Path(path) / "store" / "study.json"
    if study.is_file():  # the output of `cellaqm reproduce`: one store per experiment
        names = [e["store"] for e in json.loads(study.read_text(encoding="utf-8"))["experiments"]]
        raise UsageError(f"{path} is a study's output (cellaqm reproduce): give one experiment's store, "
                         f"{path}/STORE with STORE one of {', '.join(names)}")
    try:
        df = Store(path).load()
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    if not len(df):
        raise UsageError(f"{path}: no finished runs yet")
    return df


@contextlib.contextmanager
def runner_errors(out: Any) -> Iterator[None]:
    """The sweep runner's errors as the CLI's: another process writing in ``out``, a store of another plan or
    Ray missing or unreachable are usage errors (status 2); ``out`` not writable an output error (status 1)."""
    from cellaqm.cli import OutputError, UsageError
    from cellaqm.store import StoreError

    try:
        yield
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    except RuntimeError as exc:  # e.g. Ray missing or unreachable
        raise UsageError(str(exc)) from None


def cmd_sweep(args: argparse.Namespace) -> int:
    from rich.console import Console

    from cellaqm.cli import EXIT_FAILURE, EXIT_OK, UsageError
    from cellaqm.runner import run_plan
    from cellaqm.store import Store
    from cellaqm.sweepfile import SweepError, load_plan

    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address needs --backend ray")
    if not args.out:
        raise UsageError("--out: an empty directory name (give a directory, e.g. --out results/x)")
    try:
        plan = load_plan(args.file, packets=True if args.packets else None)
    except SweepError as exc:
        raise UsageError(str(exc)) from None
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.dry_run:
        out = sys.stdout
        out.write(f"sweep {plan.name}: {len(plan.runs)} runs = "
                  + " × ".join([str(len(f.levels)) for f in plan.factors] + [f"{plan.replications} replications"])
                  + f", seeds {'independent' if plan.independent else f'{plan.seed}+r (common random numbers)'}\n")
        for f in plan.factors:
            out.write(f"  {f.name} ({', '.join(f.paths)}): {', '.join(f.labels)}\n")
        done = Store(args.out).finished_ids() & {r.run_id for r in plan.runs}
        out.write(f"{len(done)} already finished in {args.out}\n")
        return EXIT_OK
    with runner_errors(args.out):
        report = run_plan(plan, args.out, jobs=args.jobs, backend=args.backend, resume=args.resume,
                          ray_address=args.ray_address, executor=args.executor,
                          progress=not args.quiet and console.is_terminal)
    failed = len(report.failures)
    if report.interrupted:
        console.print(f"interrupted: {report.finished} of {report.total} runs finished and stored in {args.out}; "
                      f"finish with: cellaqm sweep {args.file} --out {args.out} --resume")
        raise KeyboardInterrupt
    line = (f"sweep {plan.name}: {report.total} runs, {report.ran} run now"
            + (f", {report.skipped} already finished" if report.skipped else "")
            + f", {failed} failed, {report.wall_s:.1f} s → {args.out}")
    console.print(line)
    if failed:
        factor_names = plan.factor_names
        for _, row in report.failures.head(MAX_FAILURES_SHOWN).iterrows():
            levels = ", ".join(f"{f}={row[f]}" for f in factor_names if f in row)
            console.print(f"  failed {row['run_id']} ({levels}{', ' if levels else ''}rep {row['rep']}, "
                          f"seed {row['seed']}): {row['error']}", markup=False)
        if failed > MAX_FAILURES_SHOWN:
            console.print(f"  … {failed - MAX_FAILURES_SHOWN} more in {args.out}/failed/")
        return EXIT_FAILURE
    return EXIT_OK


def cmd_table(args: argparse.Namespace) -> int:
    from cellaqm.cli import EXIT_OK, OutputError, UsageError
    from cellaqm.table import TableError, parse_where, render, table_cells

    df = _load(args.dir)
    try:
        cells = table_cells(df, args.metric, rows=_split(args.rows), cols=_split(args.cols),
                            where=parse_where(args.where), vs=args.vs, confidence=args.confidence)
        text = render(cells, args.format, args.digits)
    except TableError as exc:
        raise UsageError(str(exc)) from None
    for note in cells.notes:
        _note(note)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise OutputError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        sys.stderr.write(f"wrote {args.output}\n")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from cellaqm import plot
    from cellaqm.cli import UsageError
    from cellaqm.labels import normalize_metric
    from cellaqm.store import Store, StoreError
    from cellaqm.table import TableError, parse_where

    if args.kind == "trace":
        return _plot_trace(args)
    if args.kind == "users":
        return _plot_users(args)
    if args.flows or args.span:
        raise UsageError("--flow and --span are for --kind trace")
    if not args.metric:
        raise UsageError(f"--kind {args.kind} needs --metric M")
    df = _load(args.dir)
    try:
        where = parse_where(args.where)
        if args.kind == "bar":
            fig, notes = plot.bar(df, args.metric, x=args.x, hue=args.hue, where=where,
                                  confidence=args.confidence, title=args.title)
        else:
            if args.x and args.hue:
                raise TableError("a CDF has one grouping factor: give --hue (or --x), not both")
            metric = normalize_metric(args.metric)
            kind = plot.detail_kind(metric)
            detail = {kind: Store(args.dir).detail(df["run_id"], kind)} if kind else {}
            fig, notes = plot.cdf(df, metric, hue=args.hue or args.x, where=where, title=args.title, **detail)
    except (TableError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    return _save_figure(fig, notes, args, f"{args.kind}-{normalize_metric(args.metric)}")


def _save_figure(fig: Any, notes: list[str], args: argparse.Namespace, name: str) -> int:
    """Prints the figure's notes and writes it to ``--out`` (default DIR/plots/NAME) in each format."""
    from pathlib import Path

    from cellaqm import plot
    from cellaqm.cli import EXIT_OK, OutputError, UsageError
    from cellaqm.table import TableError

    for note in notes:
        _note(note)
    out = args.out or str(Path(args.dir) / "plots" / name)
    try:
        written = plot.save(fig, out, args.image_format or plot.IMAGE_FORMATS)
    except TableError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    sys.stderr.write("wrote " + ", ".join(map(str, written)) + "\n")
    return EXIT_OK


def _span(text: str) -> tuple[Optional[float], Optional[float]]:
    from cellaqm.cli import UsageError

    start, sep, end = text.partition(":")
    try:
        if not sep:
            raise ValueError
        lo = float(start) if start.strip() else None
        hi = float(end) if end.strip() else None
    except ValueError:
        raise UsageError(f"--span {text!r}: expected START:END in seconds, e.g. 10:30") from None
    if lo is not None and hi is not None and hi <= lo:
        raise UsageError(f"--span {text!r}: END must be after START")
    return lo, hi


def _plot_trace(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from cellaqm import plot
    from cellaqm.cli import UsageError
    from cellaqm.result import read_trace
    from cellaqm.table import TableError

    for option in ("metric", "x", "hue"):
        if getattr(args, option):
            raise UsageError(f"--kind trace draws one run: --{option} does not apply")
    if args.where:
        raise UsageError("--kind trace draws one run: --where does not apply")
    span = _span(args.span) if args.span else None
    try:
        tables = read_trace(args.dir)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # unreadable table files
        raise UsageError(f"{args.dir}: cannot read the trace: {exc}") from None
    summary_path = Path(args.dir) / "summary.json"
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{summary_path}: cannot read ({getattr(exc, 'strerror', None) or exc}): "
                         "not the directory of a complete run") from None
    delivered = summary.get("delay_ms", {}).get("count")
    if delivered != len(tables["delivered"]):
        raise UsageError(f"{args.dir}: the trace is not of the run in summary.json ({len(tables['delivered'])} "
                         f"delivered segments traced, {delivered} in the summary); rerun with --trace")
    title = args.title
    if title is None:
        title = f"{summary.get('scenario', '?')} · seed {summary.get('seed', '?')}"
    try:
        fig, notes = plot.trace(tables, flows=args.flows, span=span, title=title)
    except TableError as exc:
        raise UsageError(str(exc)) from None
    return _save_figure(fig, notes, args, "trace")


def _plot_users(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    import pandas as pd

    from cellaqm import plot
    from cellaqm.cli import UsageError
    from cellaqm.table import TableError

    for option in ("x", "hue", "flows", "span"):
        if getattr(args, option):
            raise UsageError(f"--kind users draws one run's users: --{option.rstrip('s')} does not apply")
    if args.where:
        raise UsageError("--kind users draws one run's users: --where does not apply")
    path = Path(args.dir) / "users.csv"
    try:
        users = pd.read_csv(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror or exc}): not the --out directory of a run "
                         "(cellaqm run FILE --out DIR)") from None
    title = args.title
    if title is None:
        try:
            summary = json.loads((Path(args.dir) / "summary.json").read_text(encoding="utf-8"))
            title = f"{summary.get('scenario', '?')} · seed {summary.get('seed', '?')}"
        except (OSError, ValueError):
            title = None
    metric = args.metric or plot.USERS_METRIC
    try:
        fig, notes = plot.users(users, metric, title=title)
    except TableError as exc:
        raise UsageError(str(exc)) from None
    return _save_figure(fig, notes, args, f"users-{metric}")


COMMANDS = {"sweep": cmd_sweep, "table": cmd_table, "plot": cmd_plot}
