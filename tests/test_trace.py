"""Run traces: `cellaqm.run(..., trace=True)`, `RunResult.trace`, `to_dir`, and
`cellaqm run --trace` + `cellaqm plot DIR --kind trace`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cellaqm
from cellaqm import plot
from cellaqm.result import TRACE_COLUMNS, TRACE_TABLES
from cellaqm.table import TableError
from test_cli import assert_one_line_error

#: One bulk flow filling a 30 kB tail-drop buffer (drops and window halvings within seconds).
SETS = ["duration=20s", "bottleneck.buffer=30kB", "bottleneck.loss=0", "tcp.rwnd=1MB", "traffic.flows=1"]


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> cellaqm.RunResult:
    from conftest import SCENARIO_TOML

    path = tmp_path_factory.mktemp("trace") / "s.toml"
    path.write_text(SCENARIO_TOML, encoding="utf-8")
    return cellaqm.run(path, sets=SETS, trace=True)


def test_trace_tables_and_columns(traced: cellaqm.RunResult) -> None:
    assert traced.has_trace
    t = traced.trace
    assert tuple(t) == TRACE_TABLES
    for table, cols in TRACE_COLUMNS.items():
        assert tuple(t[table].columns) == cols, table
        if table in ("bsr", "radio_losses"):
            assert t[table].empty  # no uplink.bsr_period, no [radio]
            continue
        assert len(t[table]) > 0, table
        assert t[table]["time_s"].is_monotonic_increasing, table
        assert t[table]["time_s"].between(0, 20).all(), table
    assert t["cwnd"]["cwnd_bytes"].dtype == np.uint64
    assert set(t["cwnd"]["dir"]) == {"down"}
    assert t["delivered"]["retransmission"].dtype == bool
    assert set(t["drops"]["cause"]) == {"overflow"}
    assert set(t["drops"]["dir"]) == {"down"}


def test_rtt_trace_follows_rfc_6298(traced: cellaqm.RunResult) -> None:
    """One row per sample and per change of the sender's timer (from its first data segment on,
    after the handshake's sample): RTO = max(SRTT + 4·RTTVAR, 200 ms) at every sample, doubled at
    every timeout."""
    r, s = traced.trace["rtt"], traced.summary
    assert set(r["dir"]) == {"down"} and r["time_s"].is_monotonic_increasing
    assert r["srtt_s"].notna().all() and r["rttvar_s"].notna().all() and len(r) > 10
    fresh = r[r["sample_s"].notna()]
    expected = (fresh["srtt_s"] + 4 * fresh["rttvar_s"]).clip(lower=0.2)
    assert (fresh["rto_s"] - expected).abs().max() < 1e-6
    doubled = (r["rto_s"] / r["rto_s"].shift()).round(6).eq(2.0).sum()
    assert doubled == s["rtos"]


def test_trace_agrees_with_the_summary(traced: cellaqm.RunResult) -> None:
    t, s = traced.trace, traced.summary
    assert len(t["drops"]) == sum(s["drops"].values()) > 0
    assert len(t["delivered"]) == s["delay_ms"]["count"]
    assert t["queue"]["bytes"].max() <= 30_000
    assert t["queue"].iloc[0].tolist() == [0.0, 0, 0]
    # ssthresh: NaN until the first reduction, which halves the window, after the first drop.
    cw = t["cwnd"]
    cut = cw["ssthresh_bytes"].notna().idxmax()
    assert cw["ssthresh_bytes"].iloc[:cut].isna().all()
    assert cw["time_s"][cut] >= t["drops"]["time_s"].iloc[0]
    ratio = cw["ssthresh_bytes"][cut] / cw["cwnd_bytes"].iloc[:cut].max()
    assert 0.35 <= ratio <= 0.65
    # Fresh data arrives in sequence order.
    fresh = t["delivered"][~t["delivered"]["retransmission"]]
    assert fresh["seq"].is_monotonic_increasing and fresh["seq"].iloc[0] == 1


def test_cubic_trace_records_w_max_and_k(traced: cellaqm.RunResult, tmp_path: Path) -> None:
    """Reno leaves W_max and K empty; with tcp.congestion = "cubic" the first reduction sets
    ssthresh to 0.7 of the flight (at most the window) and W_max to the window, and K is
    ∛((W_max − cwnd_epoch)/0.4 segments) once congestion avoidance starts (RFC 9438 §4.2, §4.6)."""
    from conftest import SCENARIO_TOML

    reno = traced.trace["cwnd"]
    assert reno["w_max_bytes"].isna().all() and reno["k_s"].isna().all()
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO_TOML, encoding="utf-8")
    # SACK: NewReno's one repair per RTT would keep this flow in recovery (no K) for most of the run.
    cw = cellaqm.run(path, sets=[*SETS, 'tcp.congestion="cubic"', 'tcp.recovery="sack"'], trace=True).trace["cwnd"]
    cut = cw["ssthresh_bytes"].notna().idxmax()
    assert cw["w_max_bytes"].iloc[:cut].isna().all()
    w_max, ssthresh = cw["w_max_bytes"][cut], cw["ssthresh_bytes"][cut]
    assert w_max == cw["cwnd_bytes"].iloc[:cut].max()
    assert ssthresh <= 0.7 * w_max + 1 and ssthresh >= 0.6 * w_max
    # Each congestion avoidance stage: K from W_max and cwnd_epoch, the window before its first ACK
    # (K = 0 and W_max = cwnd_epoch for the stage after a timeout, RFC 9438 §4.8).
    starts = cw.index[cw["k_s"].notna() & cw["k_s"].shift().isna()]
    assert len(starts) >= 2
    for i in starts:
        epoch = cw["cwnd_bytes"][i - 1]
        expected = (max(cw["w_max_bytes"][i] - epoch, 0) / 1460 / 0.4) ** (1 / 3)
        assert cw["k_s"][i] == pytest.approx(expected, abs=1e-3), i  # the columns drop fractions of a byte


def test_congestion_key_is_checked(tmp_path: Path) -> None:
    from conftest import SCENARIO_TOML

    path = tmp_path / "s.toml"
    path.write_text(SCENARIO_TOML, encoding="utf-8")
    with pytest.raises(cellaqm.ScenarioError, match="tcp.congestion"):
        cellaqm.run(path, sets=['tcp.congestion="bic"'])


def test_no_trace_unless_asked_and_the_same_run(traced: cellaqm.RunResult, scenario_file: Path) -> None:
    plain = cellaqm.run(scenario_file, sets=SETS)
    assert not plain.has_trace
    with pytest.raises(cellaqm.TraceNotRecordedError, match="trace=True"):
        plain.trace
    assert plain.deterministic_summary() == traced.deterministic_summary()
    pd.testing.assert_frame_equal(plain.flows, traced.flows)


@pytest.mark.parametrize("parquet", [True, False])
def test_to_dir_writes_the_trace(traced, tmp_path: Path, monkeypatch, parquet: bool) -> None:
    import cellaqm.result

    monkeypatch.setattr(cellaqm.result, "_have_parquet", lambda: parquet)
    written = traced.to_dir(tmp_path)
    ext = "parquet" if parquet else "csv"
    for table in TRACE_TABLES:
        assert tmp_path / "trace" / f"{table}.{ext}" in written
    back = cellaqm.read_trace(tmp_path)
    for table in TRACE_TABLES:
        pd.testing.assert_frame_equal(back[table], traced.trace[table], check_dtype=parquet)


def test_read_trace_without_trace(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="--trace"):
        cellaqm.read_trace(tmp_path)


def test_trace_figure_has_four_labelled_panels(traced) -> None:
    fig, notes = plot.trace(traced.trace, title="t")
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels == ["cwnd (kB)", "queue (kB)", "drops\n(flow)", "delivered sequence (MB)"]
    assert fig.axes[-1].get_xlabel() == "time (s)"
    assert notes == []
    # cwnd drawn in kB: the line's peak is the trace's peak / 1000.
    peak = max(line.get_ydata().max() for line in fig.axes[0].lines)
    assert peak == pytest.approx(traced.trace["cwnd"]["cwnd_bytes"].max() / 1e3)
    fig2, _ = plot.trace(traced.trace, flows=[0], span=(5.0, 10.0))
    assert fig2.axes[-1].get_xlim() == (5.0, 10.0)
    with pytest.raises(TableError, match="flow 7 has no trace data"):
        plot.trace(traced.trace, flows=[7])


def test_cli_run_trace_then_plot(cli, scenario_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    sets = [a for s in SETS for a in ("--set", s)]
    proc = cli("run", scenario_file, *sets, "--trace", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "trace recorded:" in proc.stdout
    assert (out / "trace" / "cwnd.parquet").exists()
    proc = cli("plot", out, "--kind", "trace")
    assert proc.returncode == 0, proc.stderr
    png, svg = out / "plots" / "trace.png", out / "plots" / "trace.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    text = svg.read_text()
    for label in ("<svg", "cwnd (kB)", "queue (kB)", "delivered sequence (MB)", "time (s)", "overflow"):
        assert label in text, label
    proc = cli("plot", out, "--kind", "trace", "--span", "2:8", "--flow", "0", "--out", tmp_path / "z.png")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "z.png").exists() and not (tmp_path / "z.svg").exists()


def test_cli_trace_errors(cli, scenario_file: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    assert cli("run", scenario_file, "--out", plain).returncode == 0
    assert_one_line_error(cli("plot", plain, "--kind", "trace"), "no trace", "--trace")
    assert_one_line_error(cli("plot", plain, "--kind", "trace", "--metric", "goodput_bps"), "--metric")
    assert_one_line_error(cli("plot", plain, "--kind", "trace", "--span", "x"), "--span")
    assert_one_line_error(cli("plot", plain, "--kind", "bar"), "needs --metric")
    assert_one_line_error(cli("plot", plain, "--metric", "goodput_bps", "--span", "1:2"), "--kind trace")


def test_run_help_mentions_trace(cli) -> None:
    proc = cli("run", "--help")
    assert "--trace" in proc.stdout and "--kind trace" in proc.stdout
    proc = cli("plot", "--help")
    assert "trace" in proc.stdout and "--span" in proc.stdout


def test_uplink_trace_shows_bsrs_and_raqm_drops(tmp_path: Path) -> None:
    """scenarios/lte-uplink/raqm.toml: one row per BSR (estimate next to the
    truth), R-AQM's drops as uplink drops of cause receiver, drawn as such."""
    scenario = Path(__file__).resolve().parents[1] / "scenarios" / "lte-uplink" / "raqm.toml"
    r = cellaqm.run(scenario, sets=["duration=30s"], trace=True)
    t, s = r.trace, r.summary
    assert len(t["bsr"]) == s["bsr"]["reports"] > 0
    err = (t["bsr"]["estimate_s"] - t["bsr"]["true_s"]) * 1e3
    assert err.abs().max() == pytest.approx(s["bsr"]["error_ms"]["max_abs"], abs=1e-6)
    up = t["drops"][t["drops"]["dir"] == "up"]
    assert set(up["cause"]) == {"receiver"} and len(up) == s["uplink"]["drops"]["receiver"] > 0
    r.to_dir(tmp_path)
    pd.testing.assert_frame_equal(cellaqm.read_trace(tmp_path)["bsr"], t["bsr"])
    fig, _ = plot.trace(t)
    assert [h.get_label() for h in fig.axes[2].get_legend().legend_handles] == [f"receiver (uplink) ({len(up)})"]
