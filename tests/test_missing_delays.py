"""Packet and datagram delay statistics are missing (null, NaN), not 0, when nothing was measured:
in summary.json, the readable summary, a sweep's rows, its tables and its figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import cellaqm
from cellaqm import plot
from cellaqm.store import flatten
from cellaqm.table import render, table_cells

#: A TCP download or a UDP CBR stream over the same bottleneck.
BASE: dict[str, Any] = {
    "name": "tcp-or-udp",
    "duration": "5s",
    "traffic": {"model": "bulk"},
    "bottleneck": {"rate": "384kbps", "buffer": "30kB"},
}
SWEEP: dict[str, Any] = {
    "base": BASE,
    "replications": 2,
    "factors": {"traffic": {"levels": {"TCP": {"model": "bulk"}, "UDP": {"model": "cbr"}}}},
}
STATS = ("mean", "p50", "p95", "p99", "max")


def test_unmeasured_delays_are_null(tmp_path: Path) -> None:
    tcp = cellaqm.run(BASE)
    assert tcp.summary["delay_ms"]["count"] > 0 and tcp.summary["delay_ms"]["p95"] > 0
    assert tcp.summary["datagrams"]["delay_ms"] == {"count": 0} | {s: None for s in STATS}
    udp = cellaqm.run(BASE, sets=['traffic={model = "cbr"}'])
    assert udp.summary["delay_ms"] == {"count": 0} | {s: None for s in STATS}
    assert udp.summary["datagrams"]["delay_ms"]["p95"] > 0
    tcp.to_dir(tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["datagrams"]["delay_ms"]["p95"] is None
    assert math.isnan(flatten(tcp.summary)["datagrams_delay_ms_p95"])


def test_the_readable_summary_shows_a_dash(cli, tmp_path: Path) -> None:
    path = tmp_path / "udp.json"
    path.write_text(json.dumps({**BASE, "traffic": {"model": "cbr"}}), encoding="utf-8")
    proc = cli("run", path)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[1]: line.split()[2] for line in proc.stdout.splitlines() if line.startswith("delay ")}
    assert rows["p95"] == "—" and rows["samples"] == "0"


def test_tables_and_figures_leave_out_runs_without_a_delay(tmp_path: Path) -> None:
    df = cellaqm.sweep(SWEEP, out=tmp_path / "out", jobs=2)
    by = df.set_index("traffic")
    assert by.loc["UDP", "delay_ms_p95"].isna().all() and (by.loc["TCP", "delay_ms_p95"] > 0).all()
    assert by.loc["TCP", "datagrams_delay_ms_p95"].isna().all()
    c = table_cells(df, "datagrams_delay_ms_p95", rows=["traffic"])
    assert any("2 of 4 runs have no value of datagrams_delay_ms_p95" in n for n in c.notes)
    assert "| TCP | — |" in render(c, "md")
    fig, notes = plot.bar(df, "delay_ms_p95", x="traffic")
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights[0] > 0 and math.isnan(heights[1])
    assert any("no value of delay_ms_p95" in n for n in notes)
    with pytest.raises(plot.TableError, match="nothing to plot"):
        plot.cdf(df, "delay_ms_p95", where={"traffic": "UDP"})
