"""`cellaqm table` and `cellaqm plot` on a small stored sweep."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import SCENARIO_TOML
from scipy import stats as st

import cellaqm
from cellaqm.table import TableError, render, table_cells

SWEEP = """\
base = "base.toml"
replications = 4
seed = 2
packets = true

[set]
duration = "3s"

[factors."bottleneck.buffer"]
levels = ["10kB", "50kB", "100kB"]

[factors.scheme]
path = "bottleneck.queue"
levels = { TD = { scheme = "tail_drop" } }

[factors."tcp.recovery"]
levels = ["newreno", "sack"]
labels = ["NR", "SACK"]
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("tp")
    (d / "base.toml").write_text(SCENARIO_TOML, encoding="utf-8")
    (d / "s.toml").write_text(SWEEP, encoding="utf-8")
    cellaqm.sweep(d / "s.toml", out=d / "out", jobs=2)
    return d / "out"


def test_table_cells_are_mean_and_student_t_ci(store: Path) -> None:
    df = cellaqm.load_sweep(store)
    c = table_cells(df, "delay_ms.p95", rows=["bottleneck.buffer"], cols=["tcp.recovery"], vs="NR")
    assert c.metric == "delay_ms_p95" and c.notes == []  # `scheme` has one level: nothing pooled
    assert len(c.cells) == 6
    cell = c.cells[(c.cells["bottleneck.buffer"] == "50kB") & (c.cells["tcp.recovery"] == "SACK")].iloc[0]
    runs = df[(df["bottleneck.buffer"] == "50kB") & (df["tcp.recovery"] == "SACK")]["delay_ms_p95"]
    assert cell["n"] == 4 and cell["mean"] == pytest.approx(runs.mean())
    assert cell["ci_half"] == pytest.approx(st.t.ppf(0.975, 3) * runs.std(ddof=1) / 2)
    ref = c.cells[(c.cells["bottleneck.buffer"] == "50kB") & (c.cells["tcp.recovery"] == "NR")].iloc[0]
    assert math.isnan(ref["pct_vs"])
    assert cell["pct_vs"] == pytest.approx(100 * (cell["mean"] - ref["mean"]) / ref["mean"])
    md = render(c, "md")
    assert "| bottleneck.buffer | NR | SACK |" in md and "(ref)" in md and "±" in md
    assert md.index("10kB") < md.index("50kB") < md.index("100kB")  # the file's level order
    assert "\\begin{tabular}{lrr}" in render(c, "latex")
    csv = render(c, "csv").splitlines()
    assert csv[0] == "metric,bottleneck.buffer,tcp.recovery,n,mean,sd,ci_half,ci_low,ci_high,pct_vs"
    assert len(csv) == 7


def test_table_pools_with_a_note_and_refuses_unknowns(store: Path) -> None:
    df = cellaqm.load_sweep(store)
    c = table_cells(df, "goodput_bps", rows=["bottleneck.buffer"], cols=["scheme"])
    assert any("pooling over factor tcp.recovery" in n for n in c.notes)
    assert set(c.cells["n"]) == {8}
    with pytest.raises(TableError, match="unknown metric 'goodput'"):
        table_cells(df, "goodput")
    with pytest.raises(TableError, match="unknown factor 'queue'"):
        table_cells(df, "goodput_bps", rows=["queue"])
    with pytest.raises(TableError, match="no row or column factor has a level 'RED'"):
        table_cells(df, "goodput_bps", vs="RED")
    w = table_cells(df, "goodput_bps", where={"tcp.recovery": "SACK"})
    assert set(w.cells["n"]) == {4}


def test_cli_table_formats_and_errors(store: Path, cli, tmp_path: Path) -> None:
    proc = cli("table", store, "--metric", "goodput_bps", "--rows", "bottleneck.buffer", "--cols", "tcp.recovery",
               "--vs", "tcp.recovery=NR")
    assert proc.returncode == 0, proc.stderr
    assert "goodput (kb/s), mean ± 95% CI" in proc.stdout and "| 100kB |" in proc.stdout
    out = tmp_path / "t.tex"
    proc = cli("table", store, "--metric", "rtos", "--format", "latex", "-o", out)
    assert proc.returncode == 0 and out.read_text().startswith("\\begin{table}")
    bad = cli("table", store, "--metric", "nope")
    assert bad.returncode == 2 and bad.stderr.startswith("cellaqm: error: unknown metric 'nope'")
    assert bad.stderr.count("\n") == 1


def test_cli_plot_writes_png_and_svg(store: Path, cli, tmp_path: Path) -> None:
    proc = cli("plot", store, "--metric", "goodput_bps", "--x", "bottleneck.buffer", "--hue", "tcp.recovery",
               "--out", tmp_path / "bars")
    assert proc.returncode == 0, proc.stderr
    png, svg = tmp_path / "bars.png", tmp_path / "bars.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    text = svg.read_text()
    assert "<svg" in text and "goodput (kb/s)" in text and "bottleneck.buffer" in text
    proc = cli("plot", store, "--kind", "cdf", "--metric", "packet_delay_ms", "--hue", "bottleneck.buffer",
               "--where", "tcp.recovery=SACK")
    assert proc.returncode == 0, proc.stderr
    cdf_svg = store / "plots" / "cdf-packet_delay_ms.svg"
    assert "one-way packet delay (ms)" in cdf_svg.read_text()
    assert "pooling" not in proc.stderr


def test_plot_api_bar_heights_are_the_cell_means(store: Path) -> None:
    from cellaqm import plot

    df = cellaqm.load_sweep(store)
    fig, _ = plot.bar(df, "goodput_bps", x="bottleneck.buffer", hue="tcp.recovery")
    heights = sorted(p.get_height() for p in fig.axes[0].patches)
    means = sorted(df.groupby(["bottleneck.buffer", "tcp.recovery"], observed=True)["goodput_bps"].mean() / 1e3)
    assert np.allclose(heights, means)
    plot.save(fig, store / "x", ["png"])
    fig, notes = plot.cdf(df, "delay_ms_p95")
    assert any("pooling over factor tcp.recovery" in n for n in notes)
    assert plot.save(fig, store / "c.svg") == [store / "c.svg"]
    with pytest.raises(TableError, match="no packet detail"):
        plot.cdf(df, plot.PACKET_DELAY)


def test_table_of_a_directory_without_a_sweep(tmp_path: Path) -> None:
    from cellaqm.store import Store, StoreError

    with pytest.raises(StoreError, match="not a sweep directory"):
        Store(tmp_path).load()


def test_latex_writes_a_latex_minus_and_markdown_the_unicode_one() -> None:
    import pandas as pd

    df = pd.DataFrame({"scheme": pd.Categorical(["TD", "TD", "A", "A"], ["TD", "A"], ordered=True),
                       "seed": [1, 2, 1, 2], "x_ms": [-2.0, -2.2, -1.0, -1.2]})
    c = table_cells(df, "x_ms", cols=["scheme"], vs="TD")
    latex, md = render(c, "latex"), render(c, "md")
    assert "−" not in latex, "U+2212 has no glyph in pdfLaTeX"
    assert r"$-$2.1 $\pm$ 1.3 (ref)" in latex and r"$-$1.1 $\pm$ 1.3 ($-$47.6\%)" in latex
    assert "−2.1 ± 1.3 (ref)" in md and "−1.1 ± 1.3 (−47.6%)" in md
