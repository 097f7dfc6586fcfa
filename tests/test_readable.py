"""`cellaqm reproduce STUDY --quick | cat` is readable: at 80 and 200 columns no line is wider than the
width (a word longer than the width aside) and no cell is cut, for every study's tables.

The study runs once (80 columns); ``--resume`` prints its tables again from the store at 200 columns and as
JSON, from which the test rebuilds every cell the text tables must show whole.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cellaqm import findings, study, textable
from cellaqm.reproduce import EXPERIMENTS
from cellaqm.reproduce import study as load


def reproduce(name: str, out: Path, columns: int, *extra: str) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    cmd = [sys.executable, "-m", "cellaqm", "reproduce", name, "--quick", "--out", str(out), "--jobs", "2", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)  # stdout is a pipe
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _nan(row: dict[str, Any]) -> dict[str, Any]:
    return {k: math.nan if v is None else v for k, v in row.items()}


def tables(name: str, printed: str) -> list[textable.Table]:
    """The text tables of a reproduction, rebuilt from its ``--format json`` output."""
    s = load(name)
    exps = {e.name: e for e in [*s.experiments, *([s.demo] if s.demo else [])]}
    out = []
    for line in printed.splitlines():
        t = json.loads(line)
        rows = [_nan(r) for r in t["rows"]]
        if t["table"] in exps:
            out.append(study.text_table(exps[t["table"]], rows, s.labels))
        elif t["table"] == "findings":
            out.append(textable.Table("", findings.text_table([]).columns,
                                      [[r["id"], r["strength"], r["statement"], r["evidence"], r["verdict"]]
                                       for r in rows]))
        else:
            assert t["table"] == "published" and s.published is not None
            from cellaqm.wcdma import comparison_table

            out.append(comparison_table(rows, ""))
    return out


def readable(text: str, width: int, expected: list[textable.Table]) -> None:
    lines = text.splitlines()
    assert "…" not in text
    for line in lines:
        assert len(line) <= width or max(map(len, line.split())) > width, (width, line)
    for t in expected:
        for row in t.rows:
            for col, cell in zip(t.columns, row):
                pieces = cell.split() if col.wrap else [cell]
                for piece in pieces:
                    assert any(piece in line for line in lines), (width, t.title, cell)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_quick_reproduction_through_a_pipe_is_readable_at_80_and_200_columns(name: str, tmp_path: Path) -> None:
    narrow = reproduce(name, tmp_path, 80, "--quiet")
    wide = reproduce(name, tmp_path, 200, "--quiet", "--resume")
    expected = tables(name, reproduce(name, tmp_path, 200, "--quiet", "--resume", "--format", "json"))
    assert len(expected) >= len(load(name).experiments)
    readable(narrow, 80, expected)
    readable(wide, 200, expected)
    assert narrow.count("(part 1 of") >= wide.count("(part 1 of")
