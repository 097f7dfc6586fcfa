"""The ``cellaqm`` command line.

    cellaqm run FILE [--seed N] [--set KEY.PATH=VALUE ...] [--out DIR] [--json] [--packets] [--trace] [--pcap DIR]
    cellaqm sweep FILE --out DIR [--jobs N] [--backend local|ray] [--resume]   (cli_experiments.py)
    cellaqm table DIR --metric M [--rows F] [--cols F] [--vs LEVEL] [--format md|csv|latex]
    cellaqm plot DIR --metric M [--kind bar|cdf] [--x F] [--hue F]
    cellaqm plot RUNDIR --kind trace [--flow N] [--span START:END]
    cellaqm list queues|traffic|tcp|links|studies [NAME] [--json]   (listing.py, but queues)
    cellaqm check FILE                                            (listing.py)
    cellaqm reproduce STUDY [--quick] [--only E,...] [--out DIR] [--resume] [--backend local|ray] [--set K=V]   (reproduce.py)

Errors in the input (unreadable file, invalid scenario, malformed ``--set``,
bad arguments) print one line ``cellaqm: error: <message>`` on stderr and exit
with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, Optional

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2

_RUN_EPILOG = """\
examples:
  cellaqm run scenarios/default.toml
  cellaqm run scenarios/default.toml --seed 7 --set bottleneck.loss=0.01 --set traffic.flows=4
  cellaqm run scenarios/default.toml --json > summary.json
  cellaqm run scenarios/default.toml --packets --out results/default
  cellaqm run scenarios/default.toml --trace --out results/default
  cellaqm plot results/default --kind trace      # → results/default/plots/trace.png, .svg
  cellaqm run scenarios/default.toml --pcap results/default-pcap
                                                 # server.pcap, bottleneck.pcap, client.pcap
  tshark -r results/default-pcap/server.pcap     # (or Wireshark, tcptrace)

--set takes the scenario's TOML key path and a value in the file's syntax,
e.g. bottleneck.buffer=20kB, tcp.recovery=sack, core.delay=100ms.
See docs/scenario.md for every key.
"""


class UsageError(Exception):
    """Bad command-line input; reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _version() -> str:
    try:
        from cellaqm import __version__
    except ImportError:
        return "unknown (extension not built)"
    return __version__


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2**64-1: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cellaqm",
        description="Simulate TCP over a managed buffer in front of a cellular radio link.",
    )
    parser.add_argument("--version", action="version", version=f"cellaqm {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    run = commands.add_parser(
        "run",
        help="run one scenario and print its summary",
        description=(
            "Run one scenario file and print a summary: a header, a table of metrics\n"
            "and a per-flow table (or, with --json, only the summary as JSON).\n\n"
            "Exit status: 0 on success; 2 for bad input (unreadable file, invalid\n"
            "scenario, malformed --set or option), with one 'cellaqm: error: ...' line\n"
            "on stderr; 1 if the --out or --pcap directory cannot be written (checked\n"
            "before the run; if the pcap files fail after it, on a full disk, the\n"
            "summary and --out are written all the same)."
        ),
        epilog=_RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("file", metavar="FILE", help="scenario file (.toml, or .json)")
    run.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="random seed (default: the scenario's own 'seed')",
    )
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one scenario value, e.g. bottleneck.rate=384kbps; repeatable, "
        "applied in order after the file is read",
    )
    run.add_argument(
        "--out",
        metavar="DIR",
        help="also write DIR/summary.json, DIR/flows.csv, DIR/downloads.csv and DIR/occupancy.csv (with --packets "
        "DIR/packets.parquet, with --trace DIR/trace/{cwnd,rtt,queue,drops,delivered,radio_losses,bsr}.parquet; "
        ".csv without pyarrow); DIR is created if needed",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help="print only the summary, as one JSON object on stdout",
    )
    run.add_argument(
        "--packets",
        action="store_true",
        help="record every delivered downlink data packet into --out DIR (needs --out)",
    )
    run.add_argument(
        "--trace",
        action="store_true",
        help="record time series into --out DIR (needs --out; drawn by "
        "'cellaqm plot DIR --kind trace'): "
        "every TCP sender's cwnd and ssthresh at each change, its RTT samples and RTO, the downlink buffer's bytes and "
        "packets at each change, each downlink drop (time, flow, cause) and each data segment "
        "delivered to the client (time, flow, sequence number, retransmission)",
    )
    run.add_argument(
        "--pcap",
        metavar="DIR",
        help="write the run's packets as pcap files DIR/server.pcap (the server's interface), "
        "DIR/bottleneck.pcap (downlink packets entering the managed buffer, uplink packets leaving "
        "for the core) and DIR/client.pcap (the UE's interface), with IPv4/TCP headers (addresses "
        "per user, ports per flow, real sequence and ACK numbers, SACK blocks, timestamps, ECN) "
        "for Wireshark, tshark and tcptrace; DIR is created if needed",
    )
    from cellaqm.listing import WHAT

    lister = commands.add_parser(
        "list",
        help="list everything a scenario can name: queues, traffic, tcp, links, studies",
        description="List what a scenario can name, read from the simulator's own registries:\n"
        "  queues   every queue scheme, then R-AQM, its delay estimator and ACK delay control,\n"
        "           with each one's rule and its parameters' defaults, units and meanings (docs/queues.md)\n"
        "  traffic  the traffic models ([traffic] model = ...) with their keys and defaults\n"
        "  tcp      the [tcp] keys: defaults, values (loss recovery, recovery window, ...) and meanings\n"
        "  links    the wired link and the radio bearer kinds ([radio] bearer = ...)\n"
        "  studies  the 'cellaqm reproduce' targets, what each reproduces and its runtime",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lister.add_argument("what", choices=WHAT, metavar="WHAT", help="one of: " + ", ".join(WHAT))
    lister.add_argument("scheme", nargs="?", metavar="NAME", help="only this entry (e.g. codel, web, recovery, hsdpa)")
    lister.add_argument("--json", action="store_true", help="print the entries as JSON")
    checker = commands.add_parser(
        "check",
        help="validate a scenario or sweep file without running it",
        description="Read and validate a scenario file, or a sweep file (one with a 'base' scenario: its\n"
        "base, every level of every factor and every combination), without running anything.\n\n"
        "Exit status: 0 and 'FILE: OK (one-line summary)' on stdout; 2 and one\n"
        "'cellaqm: error: ...' line naming the key on stderr.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    checker.add_argument("file", metavar="FILE", help="scenario or sweep file (.toml, or .json)")
    from cellaqm.cli_experiments import add_parsers

    add_parsers(commands)
    from cellaqm.reproduce import add_parser as add_reproduce

    add_reproduce(commands)
    return parser


# --------------------------------------------------------------------------- printing


def _num(value: Any, digits: int = 1) -> str:
    """Format a number for a table: thousands separators, fixed digits, '—' for None/NaN."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "∞"
        return f"{value:,.{digits}f}"
    return str(value)


def _scenario_name(summary: dict[str, Any]) -> str:
    for key in ("scenario", "name", "scenario_name"):
        if isinstance(summary.get(key), str):
            return summary[key]
    return "?"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _link_rows(prefix: str, link: dict[str, Any], with_drops: bool) -> list[tuple[str, str, str]]:
    """Rows for a link section of the summary (``bottleneck``, ``uplink``)."""
    rows = []
    if _is_number(link.get("utilisation")):
        rows.append((f"{prefix} utilisation", _num(100.0 * link["utilisation"], 1), "%"))
    if _is_number(link.get("mean_queue_bytes")):
        rows.append((f"{prefix} mean queue", _num(float(link["mean_queue_bytes"]), 0), "bytes"))
    if _is_number(link.get("mean_queue_packets")):
        rows.append((f"{prefix} mean queue", _num(float(link["mean_queue_packets"]), 2), "packets"))
    occupancy = link.get("queue_bytes")
    if isinstance(occupancy, dict):  # time percentiles; null for an unmanaged link
        for stat in ("p50", "p95", "max"):
            if _is_number(occupancy.get(stat)):
                rows.append((f"{prefix} queue {stat} over time", _num(occupancy[stat]), "bytes"))
    if _is_number(link.get("marked")) and link["marked"]:
        rows.append((f"{prefix} ECN marks", _num(link["marked"]), "packets"))
    if with_drops and isinstance(link.get("drops"), dict):
        rows.extend(_drop_rows(f"{prefix} drops", link["drops"]))
    return rows


def _is_link(section: Any) -> bool:
    """Whether a summary section is a link's (``LinkSummary``: utilisation, queue, drops)."""
    return isinstance(section, dict) and {"utilisation", "mean_queue_bytes", "drops"} <= section.keys()


def _drop_rows(label: str, drops: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The total of a drops-by-cause section, then one row per cause."""
    total = sum(v for v in drops.values() if _is_number(v))
    return [(label, _num(total), "packets")] + [(f"  {cause}", _num(count), "packets") for cause, count in drops.items()]


def _delay_rows(label: str, delay: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Rows of a delay section (``delay_ms``, ``delay_up_ms``): mean and percentiles in ms, the sample count."""
    rows = []
    order = ["mean", "p50", "p95", "p99", "max"]
    for stat in order + [k for k in delay if k not in order]:
        if stat == "count":
            rows.append((f"{label} samples", _num(delay[stat]), "packets"))
        elif stat in delay:
            rows.append((f"{label} {stat}", _num(delay[stat]), "ms"))
    return rows


#: Summary sections left out of the table on purpose (they are in --json / summary.json).
_NOT_PRINTED = {"ledger"}
#: Sections left out when their count is zero: section → the count.
_ABSENT_WHEN_ZERO = {"downloads": "count", "sessions": "offered", "datagrams": "sent"}

def _metric_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(metric, value, unit) rows: the known metrics first, then other scalars generically."""
    rows: list[tuple[str, str, str]] = []
    used = {"scenario", "name", "scenario_name", "seed", "duration_s", *_NOT_PRINTED}

    def simple(key: str, label: str, unit: str = "", scale: float = 1.0, digits: int = 1) -> None:
        value = summary.get(key)
        if key in summary:
            used.add(key)
            if _is_number(value) and scale != 1.0:
                value = value * scale
            rows.append((label, _num(value, digits), unit))

    simple("goodput_bps", "goodput", "kb/s", 1e-3)
    simple("mean_flow_goodput_bps", "mean flow goodput", "kb/s", 1e-3)
    simple("goodput_per_cell_bps", "system goodput per cell", "kb/s", 1e-3)
    simple("delivered_bytes", "delivered", "bytes")
    simple("flows", "flows")
    delay = summary.get("delay_ms")
    if isinstance(delay, dict):
        used.add("delay_ms")
        rows.extend(_delay_rows("delay", delay))
    delay_up = summary.get("delay_up_ms")
    if isinstance(delay_up, dict):
        used.add("delay_up_ms")
        if delay_up.get("count"):
            rows.extend(_delay_rows("uplink delay", delay_up))
    drops = summary.get("drops")
    if isinstance(drops, dict):
        used.add("drops")
        rows.extend(_drop_rows("drops", drops))
    simple("rtos", "RTOs")
    simple("spurious_rtos", "spurious RTOs")
    simple("rtos_undone", "RTOs undone")
    simple("fast_retransmits", "fast retransmits")
    simple("retransmitted_bytes", "retransmitted", "bytes")
    # Link sections (`bottleneck`, `uplink`, ...), known by their shape; the first one's
    # drops are the run's `drops` above.
    links = [k for k, v in summary.items() if _is_link(v)]
    for i, key in enumerate(links):
        used.add(key)
        rows.extend(_link_rows(key, summary[key], with_drops=i > 0))
    if isinstance(summary.get("cells"), list):
        used.add("cells")  # a table of their own
    simple("events", "events")
    simple("wall_s", "wall time", "s", digits=3)
    simple("sim_seconds_per_wall_second", "speed", "× real time", digits=0)
    simple("events_per_second", "event rate", "events/s", digits=0)
    # Sections of traffic the run did not have; per-kind downloads of a single kind (= the pooled ones).
    for key, count in _ABSENT_WHEN_ZERO.items():
        if isinstance(summary.get(key), dict) and summary[key].get(count) == 0:
            used.add(key)
    if isinstance(summary.get("downloads_by_kind"), dict) and len(summary["downloads_by_kind"]) < 2:
        used.add("downloads_by_kind")
    from cellaqm.labels import metric_unit
    from cellaqm.result import flatten

    rest = {k: v for k, v in summary.items() if k not in used}
    for column, value in flatten(rest).items():
        if isinstance(value, str) and value.startswith("["):
            continue  # a list (JSON text)
        label, unit, scale = metric_unit(column, [value] if _is_number(value) else None)
        if _is_number(value) and scale != 1.0:
            value = value * scale
        rows.append((label, _num(value, 3 if unit == "s" or not unit else 1), unit))
    return rows


# Known flow columns: (key, header, scale, digits). Unknown keys follow, raw.
_FLOW_COLUMNS = (
    ("flow", "flow", 1, 0),
    ("bytes_delivered", "delivered kB", 1e-3, 1),
    ("goodput_bps", "goodput kb/s", 1e-3, 1),
    ("start_s", "start s", 1, 3),
    ("completion_s", "done s", 1, 3),
    ("rtos", "RTOs", 1, 0),
    ("spurious_rtos", "spurious", 1, 0),
    ("rtos_undone", "undone", 1, 0),
    ("fast_retransmits", "fast rtx", 1, 0),
    ("retransmitted_bytes", "rtx bytes", 1, 0),
)
#: Flow fields left out of the table (they are in flows.csv / RunResult.flows).
_FLOW_NOT_PRINTED = {"segments_sent", "ecn_reductions"}
MAX_FLOW_ROWS = 20

# The per-user table (runs with several users): (column of RunResult.users, header, scale, digits).
_USER_COLUMNS = (
    ("user", "user", 1, 0),
    ("cell", "cell", 1, 0),
    ("flows", "flows", 1, 0),
    ("bytes_down", "down kB", 1e-3, 1),
    ("goodput_bps", "goodput kb/s", 1e-3, 1),
    ("delay_ms_p95", "p95 delay ms", 1, 1),
    ("drops", "drops", 1, 0),
    ("buffer_mean_queue_bytes", "mean buffer B", 1, 0),
    ("rtos", "RTOs", 1, 0),
)
MAX_USER_ROWS = 20
# The per-cell table: (key of summary["cells"], header, scale, digits).
_CELL_COLUMNS = (
    ("cell", "cell", 1, 0),
    ("users", "users", 1, 0),
    ("downlink", "downlink", 1, 0),
    ("scheduler", "scheduler", 1, 0),
    ("goodput_bps", "goodput kb/s", 1e-3, 1),
    ("tti_utilisation", "TTIs used %", 100, 1),
    ("harq_delayed", "HARQ delayed", 1, 0),
)


def _table(title: str, columns: Any, rows: list[dict[str, Any]], limit: int, more: str) -> list[Any]:
    """A rich table of `rows` (dicts) under `columns` (key, header, scale, digits), at most `limit` rows."""
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold", box=None, pad_edge=False,
                  collapse_padding=True)
    for _, head, _, _ in columns:
        table.add_column(head, justify="right", no_wrap=True)
    for rec in rows[:limit]:
        cells = []
        for key, _, scale, digits in columns:
            value = rec.get(key)
            if _is_number(value) and scale != 1:
                value = value * scale
            cells.append(_num(value, digits) if _is_number(value) or value is None else str(value))
        table.add_row(*cells)
    out: list[Any] = ["", table]
    if len(rows) > limit:
        out.append(f"… {len(rows) - limit} more {more}")
    return out


def _user_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of the per-user table: each user's record flattened with ``_`` as in
    :attr:`RunResult.users` (without building that frame), plus its total drops."""
    from cellaqm.result import flatten

    rows = []
    for rec in map(flatten, records):
        rec["drops"] = sum(v for k, v in rec.items() if k.startswith(("drops_", "drops_up_")) and _is_number(v))
        rows.append(rec)
    return rows


def print_human(result: Any, console: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    summary = result.summary
    duration = summary.get("duration_s")
    header = Text()
    header.append("cellaqm ", style="bold")
    header.append(f"scenario {_scenario_name(summary)}", style="bold cyan")
    header.append(f" · seed {summary.get('seed', result.seed)}")
    if isinstance(duration, (int, float)):
        header.append(f" · {float(duration):g} s simulated")
    console.print(header)

    metrics = Table(header_style="bold", box=None, pad_edge=False, collapse_padding=True)
    metrics.add_column("metric")
    metrics.add_column("value", justify="right")
    metrics.add_column("unit")
    for row in _metric_rows(summary):
        metrics.add_row(*row)
    console.print(metrics)

    records, total = result.flow_head(MAX_FLOW_ROWS)
    if records:
        keys: list[str] = []
        for rec in records:
            keys.extend(k for k in rec if k not in keys)
        known = [c for c in _FLOW_COLUMNS if c[0] in keys]
        extra = [
            k for k in keys if k not in {c[0] for c in _FLOW_COLUMNS} and k not in _FLOW_NOT_PRINTED
        ]
        flows = Table(
            title="flows",
            title_justify="left",
            header_style="bold",
            box=None,
            pad_edge=False,
            collapse_padding=True,
        )
        for _, head, _, _ in known:
            flows.add_column(head, justify="right", no_wrap=True)
        for key in extra:
            flows.add_column(key, justify="right")
        for rec in records:
            cells = []
            for key, _, scale, digits in known:
                value = rec.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool) and scale != 1:
                    value = value * scale
                cells.append(_num(value, digits))
            cells.extend(_num(rec.get(k), 3) for k in extra)
            flows.add_row(*cells)
        console.print()
        console.print(flows)
        if total > MAX_FLOW_ROWS:
            console.print(f"… {total - MAX_FLOW_ROWS} more flows (all of them: --out DIR → flows.csv)")
    cells = summary.get("cells") or []
    if len(cells) > 1 or any(c.get("users", 1) > 1 for c in cells):
        for item in _table("cells", _CELL_COLUMNS, cells, MAX_USER_ROWS, "cells (summary.json)"):
            console.print(item)
        for item in _table("users", _USER_COLUMNS, _user_rows(result._user_records), MAX_USER_ROWS,
                           "users (all of them: --out DIR → users.csv)"):
            console.print(item)
    if result.has_packets:
        console.print(f"{len(result.packets):,} packets recorded")
    if result.has_trace:
        t = result.trace
        console.print(
            f"trace recorded: {len(t['cwnd']):,} cwnd samples, {int(t['rtt']['sample_s'].notna().sum()):,} RTT samples, "
            f"{len(t['queue']):,} queue samples, "
            f"{len(t['drops']):,} drops, {len(t['delivered']):,} delivered segments"
            + (f", {len(t['bsr']):,} buffer status reports" if len(t["bsr"]) else "")
        )


# --------------------------------------------------------------------------- commands


def check_out_dir(option: str, path: str, what: str) -> None:
    """Refuse, before any simulation, an output directory that cannot be created or written
    (its results would be lost after the run) or an empty name (it would be the working directory)."""
    if not path:
        raise UsageError(f"{option}: an empty directory name (give a directory, e.g. {option} results/x)")
    import tempfile

    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise OutputError(f"cannot write {what}{path}: {exc.strerror or exc}") from None


def cmd_run(args: argparse.Namespace) -> int:
    import cellaqm

    for option, wanted in (("--packets", args.packets), ("--trace", args.trace)):
        if wanted and not args.out:
            raise UsageError(f"{option} needs --out DIR (the recording is written there)")
    for option, path, what in (("--out", args.out, ""), ("--pcap", args.pcap, "the pcap files into ")):
        if path is not None:
            check_out_dir(option, path, what)
    from cellaqm.progress import RunProgress

    progress = RunProgress(sys.stderr) if sys.stderr.isatty() else None
    capture_error = None
    try:
        result = cellaqm.run(args.file, seed=args.seed, sets=args.sets, packets=args.packets,
                             trace=args.trace, progress=progress, pcap=args.pcap)
    except cellaqm.ScenarioError as exc:
        raise UsageError(str(exc)) from None
    except cellaqm.CaptureError as exc:  # reported after the results are out
        result, capture_error = exc.result, exc
    except OSError as exc:  # the pcap directory, before the run
        raise OutputError(str(exc)) from None
    finally:
        if progress is not None:
            progress.close()
    written = []
    if args.out:
        try:
            written = result.to_dir(args.out)
        except OSError as exc:
            raise OutputError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(json.dumps(result.summary) + "\n")
        sys.stdout.flush()
    else:
        from rich.console import Console

        console = Console(highlight=False)
        print_human(result, console)
        if written or result.pcap_files:
            console.print("wrote " + ", ".join(str(p) for p in [*written, *result.pcap_files]))
    if capture_error is not None:
        raise OutputError(str(capture_error))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from cellaqm import queues

    schemes = queues.catalogue()
    if args.scheme is not None:
        schemes = [s for s in schemes if s.name == args.scheme]
        if not schemes:
            names = ", ".join(s.name for s in queues.catalogue())
            raise UsageError(f"unknown queue scheme {args.scheme!r} (one of {names})")
    if args.json:
        import dataclasses

        sys.stdout.write(json.dumps([dataclasses.asdict(s) for s in schemes], ensure_ascii=False) + "\n")
        return EXIT_OK
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)

    def title(scheme: queues.Scheme) -> str:
        """The name, with where it acts unless it is a buffer scheme."""
        return scheme.name if scheme.acts_at == "buffer" else f"{scheme.name} ({scheme.acts_at})"

    def params_table(with_scheme: bool) -> Table:
        table = Table(header_style="bold", box=None, pad_edge=False)
        if with_scheme:
            table.add_column("scheme", style="bold cyan", no_wrap=True)
        table.add_column("parameter", no_wrap=True)
        table.add_column("default", max_width=24)
        table.add_column("unit", no_wrap=True)
        table.add_column("meaning", ratio=1)
        return table

    if console.width >= 120:  # one table; each scheme's first row gives its rule
        table = params_table(with_scheme=True)
        for scheme in schemes:
            table.add_row(title(scheme), "", "", "", f"[italic]{escape(scheme.rule)}[/italic]")
            for p in scheme.params:
                table.add_row("", p.name, escape(p.default), p.unit, escape(p.meaning))
        console.print(table)
    else:  # narrow terminal: a heading per scheme, then its parameters
        for scheme in schemes:
            console.print(f"[bold cyan]{title(scheme)}[/bold cyan]: [italic]{escape(scheme.rule)}[/italic]")
            if scheme.params:
                table = params_table(with_scheme=False)
                for p in scheme.params:
                    table.add_row(p.name, escape(p.default), p.unit, escape(p.meaning))
                console.print(table)
            console.print()
    return EXIT_OK


class OutputError(Exception):
    """Results could not be written; reported as one line, exit status 1."""


def _fail(message: str, status: int) -> int:
    first_line = " ".join(str(message).split("\n")[0].split()) or "unknown error"
    sys.stderr.write(f"cellaqm: error: {first_line}\n")
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``cellaqm`` console script; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "reproduce":
            from cellaqm.reproduce import command as reproduce

            return reproduce(args)
        if args.command == "list":
            if args.what != "queues":
                from cellaqm.listing import command as list_entries

                return list_entries(args)
            return cmd_list(args)
        if args.command == "check":
            from cellaqm.listing import check_command

            return check_command(args)
        from cellaqm.cli_experiments import COMMANDS

        if args.command in COMMANDS:
            return COMMANDS[args.command](args)
        raise UsageError(f"unknown command {args.command!r}")  # pragma: no cover
    except UsageError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except OutputError as exc:
        return _fail(str(exc), EXIT_FAILURE)
    except BrokenPipeError:
        # e.g. `cellaqm run x.toml --json | head -c 10`: stop quietly, like other tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
