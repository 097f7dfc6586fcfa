"""Plain-text tables that fit a width without cutting a cell: for terminals, pipes and logs.

A table has *key* columns (the labels that say which case a row is) and the
other columns (the measures). When the table is wider than the width it is
split by columns: each part repeats the key columns and takes as many of the
others as fit. A column marked ``wrap`` (long text: a finding's statement, a
case label at a narrow width) wraps its cells at spaces to fit. A cell is never
cut; a single word longer than the width is the only thing that may overflow.
:func:`from_markdown` does the same for Markdown text (the studies' analyses):
its tables become text tables, its other lines wrap.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from dataclasses import dataclass, field

#: Spaces between two columns.
GAP = 2
#: The width when neither stdout nor stderr is a terminal and $COLUMNS is unset (a log file).
LOG_WIDTH = 100


@dataclass(frozen=True)
class Column:
    header: str
    #: Right-aligned (numbers) or left-aligned (labels, text).
    right: bool = False
    #: Repeated in every part when the table is split.
    key: bool = False
    #: Its cells may wrap at spaces (otherwise a cell stays on one line).
    wrap: bool = False


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[list[str]]
    #: Indices of rows that start a new section (a rule is drawn above them).
    sections: set[int] = field(default_factory=set)
    caption: str = ""


def width() -> int:
    """The width to print at: $COLUMNS, else the terminal of stdout or (output piped into a pager) stderr,
    else :data:`LOG_WIDTH`."""
    size = shutil.get_terminal_size((0, 0)).columns  # $COLUMNS, else stdout's terminal
    if size <= 0:
        try:
            import os

            size = os.get_terminal_size(sys.stderr.fileno()).columns
        except (OSError, ValueError, AttributeError):
            size = LOG_WIDTH
    return max(size, 20)


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def _wrap(text: str, w: int) -> list[str]:
    return textwrap.wrap(text, w, break_long_words=False, break_on_hyphens=False) or [""]


def _natural(table: Table, i: int) -> int:
    """Column ``i``'s width on one line: its widest cell or its header, whichever is wider."""
    return max([len(table.columns[i].header)] + [len(r[i]) for r in table.rows])


def _narrowest(table: Table, i: int) -> int:
    """The least width column ``i`` can take: its longest word (wrapped columns and headers) or its widest cell."""
    col = table.columns[i]
    cells = [_longest_word(r[i]) if col.wrap else len(r[i]) for r in table.rows]
    return max([_longest_word(col.header), 1] + cells)


def _fit(table: Table, idx: list[int], limit: int, keys: bool = True) -> list[int]:
    """Widths of the columns ``idx`` within ``limit``. From their natural widths, until they fit: the ``wrap``
    columns that are not keys narrow (widest first, never below their longest word), then the other columns'
    headers wrap, then (if ``keys``) the wrapping key columns narrow."""
    budget = limit - GAP * (len(idx) - 1)
    least = [_narrowest(table, i) for i in idx]
    widths = [_natural(table, i) for i in idx]

    def narrow(keys: bool) -> None:
        while sum(widths) > budget:
            shrinkable = [k for k, i in enumerate(idx) if table.columns[i].wrap and table.columns[i].key == keys
                          and widths[k] > least[k]]
            if not shrinkable:
                return
            widths[max(shrinkable, key=lambda k: widths[k])] -= 1

    narrow(keys=False)
    headed = sorted((k for k, i in enumerate(idx) if not table.columns[i].wrap),
                    key=lambda k: _compact(table, idx[k]) - widths[k])
    for k in headed:  # the headers that gain most wrap first
        if sum(widths) <= budget:
            break
        widths[k] = _compact(table, idx[k])
    if keys:
        narrow(keys=True)
    return widths


def _compact(table: Table, i: int) -> int:
    """A column's width with its header wrapped (its widest cell, or its header's longest word)."""
    return max([_narrowest(table, i)] + [len(r[i]) for r in table.rows])


def _block(table: Table, idx: list[int], widths: list[int]) -> list[str]:
    """The lines of the table's columns ``idx`` at ``widths``: headers, a rule, the rows (sections ruled)."""
    cols = [table.columns[i] for i in idx]

    def line(cells: list[list[str]]) -> list[str]:
        height = max(len(c) for c in cells)
        out = []
        for j in range(height):
            parts = []
            for c, w, col in zip(cells, widths, cols):
                text = c[j] if j < len(c) else ""
                parts.append(text.rjust(w) if col.right else text.ljust(w))
            out.append((" " * GAP).join(parts).rstrip())
        return out

    def cell(text: str, w: int, wrap: bool) -> list[str]:
        return _wrap(text, w) if (wrap and len(text) > w) else [text]

    heads = [cell(c.header, w, True) for c, w in zip(cols, widths)]
    top = max(len(h) for h in heads)
    heads = [[""] * (top - len(h)) + h for h in heads]  # headers sit on the rule
    rule = (" " * GAP).join("─" * w for w in widths)
    lines = line(heads) + [rule]
    rows = [[cell(r[i], w, table.columns[i].wrap) for i, w in zip(idx, widths)] for r in table.rows]
    tall = any(len(c) > 1 for r in rows for c in r)
    for n, r in enumerate(rows):
        if n and (n in table.sections or tall):
            lines.append(rule if n in table.sections else "")
        lines += line(r)
    return lines


def render(table: Table, limit: int) -> str:
    """``table`` as text no wider than ``limit`` where its words allow: in parts if it must be split."""
    keys = [i for i, c in enumerate(table.columns) if c.key]
    rest = [i for i, c in enumerate(table.columns) if not c.key]
    parts: list[list[int]] = []
    if sum(_fit(table, keys + rest, limit, keys=False)) + GAP * (len(keys + rest) - 1) <= limit or not rest:
        parts = [keys + rest]
    else:  # split: the keys at their width, then as many of the others as fit beside them
        room = limit - (sum(_natural(table, i) + GAP for i in keys))
        current: list[int] = []
        for i in rest:
            if current and sum(_compact(table, j) + GAP for j in current + [i]) - GAP > room:
                parts.append(keys + current)
                current = []
            current.append(i)
        parts.append(keys + current)
    out = _wrap(table.title, limit) if table.title else []
    for n, idx in enumerate(parts):
        if len(parts) > 1:
            names = ", ".join(table.columns[i].header for i in idx if not table.columns[i].key)
            out += [""] + _wrap(f"(part {n + 1} of {len(parts)}: {names})", limit)
        out += _block(table, idx, _fit(table, idx, limit))
    if table.caption:
        out += _wrap(table.caption, limit)
    return "\n".join(out) + "\n"


def _markdown_table(lines: list[str], limit: int) -> str:
    """A GitHub Markdown table (header, ``|---|`` rule, rows) as a text table; ``---:`` columns right-aligned."""
    def cells(line: str) -> list[str]:
        parts = line.strip().strip("|").replace("\\|", "\0").split("|")
        return [p.strip().replace("\0", "|").replace("**", "") for p in parts]

    head, rule, rows = cells(lines[0]), cells(lines[1]), [cells(x) for x in lines[2:]]
    n = len(head)
    cols = [Column(h, right=rule[k].endswith(":") if k < len(rule) else False, wrap=True) for k, h in enumerate(head)]
    rows = [(r + [""] * n)[:n] for r in rows]
    return render(Table("", cols, rows), limit).lstrip("\n")


def from_markdown(text: str, limit: int) -> str:
    """Markdown as plain text within ``limit``: its tables as text tables, other lines wrapped at spaces (a
    line's indentation, or its list marker, indents what wraps)."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("|") and i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: "):
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(_markdown_table(lines[i:j], limit).rstrip("\n"))
            i = j
            continue
        indent = len(line) - len(line.lstrip())
        marker = line.lstrip()[:2] if line.lstrip()[:2] in ("- ", "* ") else ""
        out.append(textwrap.fill(line, limit, subsequent_indent=" " * (indent + len(marker)),
                                 break_long_words=False, break_on_hyphens=False) if line.strip() else "")
        i += 1
    return "\n".join(out) + "\n"
