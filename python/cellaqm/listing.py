"""``cellaqm list traffic|tcp|links|studies`` and ``cellaqm check FILE``.

The lists come from the registries the parsers use — the core's traffic
models, ``[tcp]`` keys and link kinds (``_core.scenario_catalogue``), the
``reproduce`` targets (:data:`cellaqm.reproduce.STUDIES`, with each
study's experiments and sizes counted from its plans) — so they name
exactly what a scenario can name (``cellaqm list queues`` is ``cli.cmd_list``,
from the queue catalogue).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: What ``cellaqm list`` lists.
WHAT = ("queues", "traffic", "tcp", "links", "studies")


def _default(key: dict[str, Any]) -> str:
    """A key's default as a scenario file writes it; ``required``, or ``absent`` for an optional key."""
    if key.get("required"):
        return "required"
    return "absent" if key["default"] is None else _value(key["default"])


def _value(value: Any) -> str:
    """A value as a scenario file writes it (TOML-like)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def entries(what: str) -> list[dict[str, Any]]:
    """The entries of ``cellaqm list WHAT`` (not ``queues``) as JSON-able dicts."""
    if what == "studies":
        from cellaqm.reproduce import STUDIES, sizes

        return [sizes(s) for s in STUDIES]
    from cellaqm import _core

    return list(_core.scenario_catalogue()[what])


def command(args: Any) -> int:
    """``cellaqm list traffic|tcp|links|studies [NAME] [--json]``."""
    from cellaqm.cli import UsageError

    items = entries(args.what)
    if args.scheme is not None:
        chosen = [e for e in items if e["name"] == args.scheme]
        if not chosen:
            names = ", ".join(e["name"] for e in items)
            raise UsageError(f"unknown {args.what} entry {args.scheme!r} (one of {names})")
        items = chosen
    if args.json:
        sys.stdout.write(json.dumps(items, ensure_ascii=False) + "\n")
        return 0
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)
    table = Table(header_style="bold", box=None, pad_edge=False)
    if args.what == "traffic":
        for head in ("model", "key", "default"):
            table.add_column(head, no_wrap=head != "default")
        for m in items:
            table.add_row(f"[bold cyan]{m['name']}[/bold cyan]", "", f"[italic]{escape(m['does'])}[/italic]")
            for k in m["keys"]:
                table.add_row("", k["name"], escape(_default(k)))
    elif args.what == "tcp":
        for head, wrap in (("key", False), ("default", False), ("takes", True), ("meaning", True)):
            table.add_column(head, no_wrap=not wrap, ratio=2 if head == "meaning" else None)
        for k in items:
            table.add_row(f"[bold cyan]{k['name']}[/bold cyan]", escape(_default(k)), escape(k["takes"]),
                          escape(k["meaning"]))
    elif args.what == "links":
        for head in ("link", "section", "what"):
            table.add_column(head, no_wrap=head != "what")
        for link in items:
            table.add_row(f"[bold cyan]{link['name']}[/bold cyan]", f"[{link['section']}]".replace("[", r"\["),
                          escape(link["what"]))
    else:
        return _studies(items)
    console.print(table)
    if args.what == "traffic":
        console.print(r"required: no default; absent: optional, off unless given. \[traffic] also takes "
                      "name and first_user (docs/scenario.md).")
    return 0


def _studies(items: list[dict[str, Any]]) -> int:
    """Each study: what it reproduces, then its experiments (the ``--only`` names) with their runs, full and
    ``--quick`` (plain text that fits the width: :mod:`cellaqm.textable`)."""
    from cellaqm import textable

    width = textable.width()
    cols = [textable.Column("experiment (--only)", key=True), textable.Column("runs", right=True),
            textable.Column("--quick", right=True), textable.Column("what", wrap=True)]
    for s in items:
        rows = [[e["name"], f"{e['runs']['full']:,}", f"{e['runs']['quick']:,}", e["title"]] for e in s["experiments"]]
        rows.append(["all", f"{s['runs']['full']:,}", f"{s['runs']['quick']:,}",
                     f"{s['simulations']['full']:,} and {s['simulations']['quick']:,} simulations (a run several "
                     f"experiments list is simulated once); {s['replications']['full']} and "
                     f"{s['replications']['quick']} replication(s) where random"])
        if s["demo"]:
            rows.append([f"(--demo: {s['demo']})", "", "", "a small case with its figure"])
        title = f"{s['name']}: {s['title']}. {s['description'][0].upper()}{s['description'][1:]}"
        table = textable.Table(title, cols, rows, {len(s["experiments"])})
        sys.stdout.write(textable.render(table, width) + "\n")
    return 0


def _is_sweep(path: Path) -> bool:
    """Whether ``path`` is a sweep file (it names a ``base`` scenario) rather than a scenario."""
    from cellaqm.sweepfile import SweepError, read_sweep

    try:
        spec, _, _ = read_sweep(path)
    except SweepError:
        return False  # the scenario reader gives the error
    return "base" in spec


def check(path: Path) -> str:
    """Validate a scenario or sweep file without running it; return its one-line summary.

    Raises :class:`cellaqm.ScenarioError` or :class:`cellaqm.sweepfile.SweepError` (one line).
    """
    if _is_sweep(path):
        from cellaqm.sweepfile import load_plan

        plan = load_plan(path)
        factors = ", ".join(f"{f.name} ({len(f.levels)})" for f in plan.factors) or "no factors"
        return (f"sweep {plan.name}: {len(plan.runs)} runs = {factors} x {plan.replications} replications "
                f"of {plan.base}")
    from cellaqm import _core
    from cellaqm.api import read_scenario, scenario_dir

    text, fmt = read_scenario(path)
    doc = json.loads(_core.resolve(text, fmt, [], scenario_dir(path)))
    traffic = doc["traffic"] if isinstance(doc["traffic"], list) else [doc["traffic"]]
    users = sum(t.get("users", t.get("flows", 1)) for t in traffic)
    models = "+".join(t["model"] for t in traffic)
    if "radio" in doc:
        link = f"radio {doc['radio']['bearer']}, {doc['radio']['queue']['scheme']}"
    else:
        b = doc["bottleneck"]
        rate = b["rate"]
        if isinstance(rate, dict):  # a trace (with its offset) or a schedule
            rate = f"trace {Path(rate['trace']).name}" if "trace" in rate else "steps"
        link = f"bottleneck {rate}, {b['queue']['scheme']}"
    return f"scenario {doc['name']}: {doc['duration']}, {models} traffic ({users} user{'s' * (users != 1)}), {link}"


def check_command(args: Any) -> int:
    """``cellaqm check FILE``: ``FILE: OK (summary)`` and exit 0, or the one-line error and exit 2."""
    from cellaqm.api import ScenarioError
    from cellaqm.cli import UsageError
    from cellaqm.sweepfile import SweepError

    try:
        summary = check(Path(args.file))
    except (ScenarioError, SweepError) as exc:
        message = str(exc)
        raise UsageError(message if message.startswith(args.file) else f"{args.file}: {message}") from None
    print(f"{args.file}: OK ({summary})")
    return 0
