"""Download metrics per run: missing (not 0) without a finished download, per kind as well as pooled,
and the tables, figures and tests of a sweep where some runs have none."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cellaqm
from cellaqm import plot, stats
from cellaqm.store import flatten
from cellaqm.table import render, table_cells

#: Web users and a session generator over one bottleneck.
MIX: dict[str, Any] = {
    "name": "mix",
    "duration": "40s",
    "traffic": [
        {"model": "web", "users": 2, "reading_time": "2s"},
        {"model": "sessions", "users": 4, "interarrival": {"dist": "exponential", "mean": "2s"}, "size": "100kB"},
    ],
    "core": {"delay": "50ms"},
    "bottleneck": {"rate": "2Mbps", "buffer": "50kB"},
}

#: A sweep where the short runs end before any download finishes.
SWEEP: dict[str, Any] = {
    "base": MIX,
    "replications": 2,
    "factors": {"duration": ["0.3s", "20s"], "bottleneck.queue": [{"scheme": "tail_drop"}, {"scheme": "codel"}]},
}


def nearest_rank(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[max(math.ceil(q * len(v)), 1) - 1]


def test_no_finished_download_is_missing_not_zero(tmp_path: Path) -> None:
    res = cellaqm.run(MIX, sets=["duration=0.3s"])
    d = res.summary["downloads"]
    assert d["count"] > 0 and d["completed"] == 0
    assert d["mean_goodput_bps"] is None
    assert set(d["time_s"].values()) == {None}
    res.to_dir(tmp_path)
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["downloads"]["time_s"]["p95"] is None
    flat = flatten(res.summary)
    assert math.isnan(flat["downloads_time_s_p95"]) and math.isnan(flat["downloads_by_kind_page_mean_goodput_bps"])


def test_downloads_are_reported_per_kind_and_pooled() -> None:
    res = cellaqm.run(MIX, seed=3)
    s, dl = res.summary, res.downloads
    assert set(s["downloads_by_kind"]) == {"page", "session"}
    assert s["downloads"]["count"] == len(dl)
    for kind, block in s["downloads_by_kind"].items():
        mine = dl[dl["kind"] == kind]
        done = mine["time_s"].dropna().tolist()
        assert block["count"] == len(mine) and block["completed"] == len(done) > 3
        assert block["time_s"]["p95"] == pytest.approx(nearest_rank(done, 0.95))
        assert block["mean_goodput_bps"] == pytest.approx(mine["goodput_bps"].mean())
    pages = s["downloads_by_kind"]["page"]["time_s"]["mean"]
    sessions = s["downloads_by_kind"]["session"]["time_s"]["mean"]
    assert pages != pytest.approx(sessions), "the kinds are measured apart"


@pytest.fixture(scope="module")
def sweep_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dl") / "out"
    cellaqm.sweep(SWEEP, out=out, jobs=2)
    return out


@pytest.fixture
def sweep_df(sweep_out: Path):
    return cellaqm.load_sweep(sweep_out)


def test_sweep_rows_carry_the_per_kind_metrics(sweep_df) -> None:
    long = sweep_df[sweep_df["duration"] == "20s"]
    for kind in ("page", "session"):
        col = f"downloads_by_kind_{kind}_time_s_p95"
        assert (long[col] > 0).all(), col
    row = long.iloc[0]
    direct = cellaqm.run(json.loads(row["scenario_doc"]), seed=int(row["seed"])).summary
    assert row["downloads_by_kind_page_time_s_p95"] == direct["downloads_by_kind"]["page"]["time_s"]["p95"]
    short = sweep_df[sweep_df["duration"] == "0.3s"]
    assert short["downloads_time_s_p95"].isna().all() and short["downloads_mean_goodput_bps"].isna().all()
    assert (short["downloads_count"] > 0).all()


def test_table_plot_and_stats_leave_out_runs_without_a_value(sweep_df) -> None:
    c = table_cells(sweep_df, "downloads_time_s_p95", rows=["duration"], cols=["bottleneck.queue"])
    assert any("4 of 8 runs have no value of downloads_time_s_p95" in n for n in c.notes)
    short = c.cells[c.cells["duration"] == "0.3s"]
    assert (short["n"] == 0).all() and short["mean"].isna().all()
    md = render(c, "md")
    assert "| 0.3s | — | — |" in md
    assert "download time p95 (s)" in md

    fig, notes = plot.bar(sweep_df, "downloads_time_s_p95", x="duration", hue="bottleneck.queue")
    assert any("no value of downloads_time_s_p95" in n for n in notes)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert sum(np.isnan(heights)) == 2 and all(h > 0 for h in heights if not np.isnan(h))
    fig, notes = plot.cdf(sweep_df, "downloads_mean_goodput_bps", hue="bottleneck.queue")
    assert any("no value" in n for n in notes)
    with pytest.raises(plot.TableError, match="nothing to plot"):
        plot.cdf(sweep_df, "downloads_time_s_p95", where={"duration": "0.3s"})

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pooling warning: every other factor is in `by`
        out = stats.paired_tests(sweep_df, "downloads_time_s_p95", "bottleneck.queue", by="duration")
    by = {r["duration"]: r for _, r in out.iterrows()}
    assert by["0.3s"]["n_pairs"] == 0 and math.isnan(by["0.3s"]["p"])
    assert by["20s"]["n_pairs"] == 2
    assert len(stats.tukey_hsd(sweep_df, "downloads_time_s_p95", "bottleneck.queue")) == 1


def test_cli_table_and_plot_note_the_runs_without_a_value(sweep_out: Path, cli, tmp_path: Path) -> None:
    proc = cli("table", sweep_out, "--metric", "downloads.time_s.p95", "--rows", "duration", "--format", "latex")
    assert proc.returncode == 0, proc.stderr
    assert "4 of 8 runs have no value" in proc.stderr
    assert "0.3s & — & —" in proc.stdout
    proc = cli("plot", sweep_out, "--metric", "downloads_time_s_p95", "--x", "duration", "--out", tmp_path / "p.svg")
    assert proc.returncode == 0, proc.stderr
    assert "no value" in proc.stderr and "download time p95 (s)" in (tmp_path / "p.svg").read_text()
