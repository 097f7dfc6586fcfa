"""Figures of a sweep (matplotlib, written as PNG and/or SVG).

- :func:`bar`: mean of a metric per level of ``x`` (grouped by ``hue``) with
  Student-t confidence-interval whiskers.
- :func:`cdf`: empirical CDFs per level of ``hue``: of the one-way delay of
  every delivered packet (``packet_delay_ms``) or of a buffer's occupancy
  weighted by time (``bottleneck_queue_bytes``, ...: :func:`occupancy_metric`), both
  from the per-run detail files of a sweep run with ``packets = true``; or of
  any metric across runs.
- :func:`trace`: the time series of one run recorded with ``--trace``
  (``cellaqm run FILE --trace --out DIR``): congestion windows, buffer
  occupancy, drops and delivered sequence numbers against time.
- :func:`users`: one run's per-user rows (``users.csv`` of ``cellaqm run FILE
  --out DIR``): a bar per user of a column (goodput by default), coloured by cell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional, Union

import numpy as np
import pandas as pd

from cellaqm.labels import axis_label, metric_unit, normalize_metric
from cellaqm.factors import factor_columns, identical_notes, pooling_notes
from cellaqm.table import TableError, apply_where, check_metric, missing_notes
from cellaqm.stats import cell_stats

PACKET_DELAY = "packet_delay_ms"
#: Occupancy CDF metrics are ``<buffer>_queue_<unit>``: a buffer of the runs' occupancy detail
#: (:attr:`cellaqm.RunResult.occupancy`: ``bottleneck``, ``uplink``, ...) in ``bytes`` or ``packets``.
OCCUPANCY_UNITS = ("bytes", "packets")


def occupancy_metric(metric: str) -> Optional[tuple[str, str]]:
    """(buffer, unit) of an occupancy CDF metric (``bottleneck_queue_bytes``), or None."""
    buffer, sep, unit = metric.rpartition("_queue_")
    return (buffer, unit) if sep and buffer and unit in OCCUPANCY_UNITS else None
KINDS = ("bar", "cdf", "trace", "users")
#: The per-user column drawn by :func:`users` unless told another.
USERS_METRIC = "goodput_bps"
#: Flows drawn in a trace figure when none are chosen (the first ones with data).
TRACE_MAX_FLOWS = 8
#: Time bins across a trace panel: a series with more points than a few per bin
#: is thinned to each bin's first, lowest, highest and last point (the figure is
#: about 1,100 pixels wide, so nothing visible is lost).
TRACE_BINS = 2000
#: Scatter series with more points than this are rasterised in vector formats.
TRACE_RASTER_POINTS = 1000
#: The formats a figure is written in when its path has no extension.
IMAGE_FORMATS = ("png", "svg")
#: Every format :func:`save` writes (by the path's extension, or asked for).
SAVE_FORMATS = ("png", "svg", "pdf")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _pick(
    df: pd.DataFrame, x: Optional[str], hue: Optional[str], two: bool = True
) -> tuple[Optional[str], Optional[str], list[str]]:
    factors = factor_columns(df)
    for f in (x, hue):
        if f is not None and f not in factors:
            raise TableError(f"unknown factor {f!r} (factors: {', '.join(factors) or 'none'})")
    rest = [f for f in factors if f not in (x, hue)]
    if x is None and rest:
        x = rest.pop(0)
    if two and hue is None and rest and x is not None:
        hue = rest.pop(0)
    return x, hue, pooling_notes(df, [f for f in (x, hue) if f is not None])


def _title(df: pd.DataFrame, where: Mapping[str, str], extra: str = "") -> str:
    parts = [extra] if extra else []
    parts += [f"{k} = {v}" for k, v in where.items()]
    return " · ".join(parts)


def bar(
    df: pd.DataFrame,
    metric: str,
    x: Optional[str] = None,
    hue: Optional[str] = None,
    where: Optional[Mapping[str, str]] = None,
    confidence: float = 0.95,
    title: Optional[str] = None,
):
    """Bar chart of the mean of ``metric`` with CI whiskers. Returns ``(figure, notes)``."""
    plt = _pyplot()
    col = check_metric(df, metric)
    where = dict(where or {})
    df = apply_where(df, where)
    x, hue, notes = _pick(df, x, hue)
    notes += missing_notes(df, col) + identical_notes(df)
    by = [f for f in (x, hue) if f is not None]
    cells = cell_stats(df, col, by, confidence)
    label, unit, scale = metric_unit(col, cells["mean"])
    xs = list(df[x].cat.remove_unused_categories().cat.categories) if x else [col]
    hues = list(df[hue].cat.remove_unused_categories().cat.categories) if hue else [None]
    fig, ax = plt.subplots(figsize=(max(4.5, 1.0 + 0.6 * len(xs) * len(hues)), 3.6), layout="constrained")
    width = 0.8 / len(hues)
    pos = np.arange(len(xs))
    for j, h in enumerate(hues):
        sub = cells if h is None else cells[cells[hue] == h]
        means, halves = [], []
        for xv in xs:
            row = sub if x is None else sub[sub[x] == xv]
            means.append(float(row["mean"].iloc[0]) * scale if len(row) else np.nan)
            halves.append(float(row["ci_half"].iloc[0]) * scale if len(row) else np.nan)
        yerr = np.nan_to_num(np.array(halves), nan=0.0)
        ax.bar(pos + (j - (len(hues) - 1) / 2) * width, means, width * 0.95, yerr=yerr, capsize=3,
               label=None if h is None else str(h), error_kw={"elinewidth": 1})
    ax.set_xticks(pos, [str(v) for v in xs])
    ax.set_xlabel(x if x else "")
    ax.set_ylabel(f"{label} ({unit})" if unit else label)
    if hue:
        ax.legend(title=hue, fontsize="small", title_fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title or _title(df, where, f"mean ± {confidence:.0%} CI"), fontsize="medium")
    return fig, notes


#: A CDF over users: ``user_<column>`` of the runs' per-user rows (``user_goodput_bps``, ``user_delay_ms_p95``).
USER_PREFIX = "user_"


def detail_kind(metric: str) -> Optional[str]:
    """The detail files a CDF of ``metric`` reads (``packets``, ``occupancy``, ``users``), or None (the runs' rows)."""
    if metric == PACKET_DELAY:
        return "packets"
    if metric.startswith(USER_PREFIX):
        return "users"
    return "occupancy" if occupancy_metric(metric) else None


def _ecdf(values: np.ndarray, weights: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the fraction of the total weight (default: 1 each) at or below each."""
    order = np.argsort(values, kind="stable")
    w = np.ones(values.size) if weights is None else weights[order]
    return values[order], np.cumsum(w) / max(w.sum(), 1e-300)


def _occupancy(tables: list[pd.DataFrame], buffer: str, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """The backlogs of ``buffer`` in ``unit`` held in these runs and the total time at each."""
    rows = [t[(t["buffer"] == buffer) & (t["unit"] == unit)] for t in tables]
    if not rows:
        return np.array([]), np.array([])
    pooled = pd.concat(rows).groupby("value", sort=True)["time_s"].sum()
    return pooled.index.to_numpy(dtype=float), pooled.to_numpy(dtype=float)


def cdf(
    df: pd.DataFrame,
    metric: str,
    hue: Optional[str] = None,
    where: Optional[Mapping[str, str]] = None,
    packets: Optional[Mapping[str, pd.DataFrame]] = None,
    title: Optional[str] = None,
    occupancy: Optional[Mapping[str, pd.DataFrame]] = None,
    users: Optional[Mapping[str, pd.DataFrame]] = None,
):
    """Empirical CDF per level of ``hue``: of every packet's delay, of a buffer's occupancy, of a metric across users, or across runs.

    ``metric`` is :data:`PACKET_DELAY` (needs ``packets``: run id → packet
    DataFrame, see :meth:`cellaqm.store.Store.packets`), one of
    :func:`occupancy_metric` (needs ``occupancy``: run id → occupancy DataFrame,
    :meth:`cellaqm.store.Store.occupancy`; the CDF is the fraction of the
    time of all the level's runs the buffer held at most that backlog),
    ``user_<column>`` (needs ``users``: run id → per-user rows,
    :meth:`cellaqm.store.Store.users`; every user of every run of the level
    counts once: fairness) or a metric column. Returns ``(figure, notes)``.
    """
    plt = _pyplot()
    where = dict(where or {})
    df = apply_where(df, where)
    kind = detail_kind(metric)
    if kind is None:
        metric = check_metric(df, metric)
    hue, _, notes = _pick(df, hue, None, two=False)
    detail = {"packets": packets, "occupancy": occupancy, "users": users}.get(kind or "")
    if kind is None:
        notes += missing_notes(df, metric)
    elif not detail and kind == "users":
        raise TableError("no per-user rows in this sweep: they are kept for runs with several users")
    elif not detail:
        raise TableError(f"no {'packet' if kind == 'packets' else 'occupancy'} detail in this sweep: "
                         "run it with packets = true (sweep file) or cellaqm sweep --packets")
    levels = list(df[hue].cat.remove_unused_categories().cat.categories) if hue else [None]
    curves = []
    for lv in levels:
        part = df if lv is None else df[df[hue] == lv]
        weights = None
        if kind is not None:
            assert detail is not None
            tables = [detail[r] for r in part["run_id"] if r in detail]
            if kind == "packets":
                values = np.concatenate([t["delay_s"].to_numpy(dtype=float) * 1e3 for t in tables] or [np.array([])])
            elif kind == "users":
                column = metric[len(USER_PREFIX):]
                missing = [t for t in tables if column not in t.columns]
                if missing:
                    raise TableError(f"unknown per-user column {column!r} (columns: {', '.join(missing[0].columns)})")
                values = np.concatenate([t[column].to_numpy(dtype=float) for t in tables] or [np.array([])])
            else:
                buffer_unit = occupancy_metric(metric)
                assert buffer_unit is not None
                values, weights = _occupancy(tables, *buffer_unit)
        else:
            values = part[metric].to_numpy(dtype=float)
        keep = ~np.isnan(values)
        if keep.any():
            curves.append((lv, values[keep], None if weights is None else weights[keep]))
    if not curves:
        runs = "no run" if kind is None else f"no run with {kind} detail"
        raise TableError(f"nothing to plot: {runs} matches with a value of {metric}")
    if kind == "packets":
        xlabel, scale = "one-way packet delay (ms)", 1.0
    else:
        observed = np.concatenate([c[1] for c in curves])
        # An occupancy's unit follows its largest backlog (the buffer may be empty most of the time).
        sized = [observed.max()] if kind == "occupancy" else observed
        named = metric[len(USER_PREFIX):] if kind == "users" else metric
        _, _, scale = metric_unit(named, sized)
        xlabel = ("per user: " if kind == "users" else "") + axis_label(named, sized)
    fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
    for lv, values, weights in curves:
        xs, ys = _ecdf(values * scale, weights)
        ax.step(xs, ys, where="post", label=None if lv is None else str(lv))
    ax.set_xlabel(xlabel)
    ylabel, what = {
        "packets": ("fraction of packets", "CDF over all delivered packets of all runs"),
        "occupancy": ("fraction of time", "time-weighted CDF over all runs"),
        "users": ("fraction of users", "CDF over the users of all runs"),
    }.get(kind or "", ("fraction of runs", "CDF over runs"))
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    if hue:
        ax.legend(title=hue, fontsize="small", title_fontsize="small")
    ax.set_title(title or _title(df, where, what), fontsize="medium")
    return fig, notes


def users(df: pd.DataFrame, metric: str = USERS_METRIC, title: Optional[str] = None):
    """A bar per user of one run's per-user column ``metric`` (:attr:`cellaqm.RunResult.users`,
    or ``users.csv``), in user order, coloured by cell when the users are in several, with
    the mean across users as a line. Returns ``(figure, notes)``."""
    plt = _pyplot()
    col = normalize_metric(metric)
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and c not in ("user", "cell")]
    if col not in numeric:
        raise TableError(f"unknown per-user column {metric!r} (columns: {', '.join(numeric)})")
    if not len(df):
        raise TableError("nothing to plot: the run has no user rows")
    df = df.sort_values("user")
    values = df[col].to_numpy(dtype=float)
    label, unit, scale = metric_unit(col, values)
    cells = df["cell"].to_numpy() if "cell" in df.columns else np.zeros(len(df), dtype=int)
    several = len(set(cells.tolist())) > 1
    colors = [f"C{int(c) % 10}" if several else "C0" for c in cells]
    fig, ax = plt.subplots(figsize=(min(14.0, max(4.5, 0.9 + 0.18 * len(df))), 3.6), layout="constrained")
    ax.bar(np.arange(len(df)), values * scale, 0.8, color=colors)
    mean = float(np.nanmean(values)) * scale
    ax.axhline(mean, color="0.3", linewidth=1, linestyle="--", label=f"mean over users {mean:,.1f}")
    if several:
        from matplotlib.patches import Patch

        handles = [Patch(color=f"C{int(c) % 10}", label=f"cell {int(c)}") for c in sorted(set(cells.tolist()))]
        ax.add_artist(ax.legend(handles=handles[:10], fontsize="small", loc="upper left", ncols=min(5, len(handles))))
    users = df["user"].astype(int).tolist()
    step = max(1, len(users) // 25)
    ax.set_xticks(np.arange(len(users))[::step], [str(u) for u in users[::step]])
    ax.set_xlabel("user")
    ax.set_ylabel(f"{label} ({unit})" if unit else label)
    ax.legend(fontsize="small", loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title or f"{label} per user", fontsize="medium")
    return fig, missing_notes(df, col)


def trace(
    tables: Mapping[str, pd.DataFrame],
    flows: Optional[Sequence[int]] = None,
    span: Optional[tuple[Optional[float], Optional[float]]] = None,
    title: Optional[str] = None,
):
    """Four panels of one run's trace against time (s), like the studies' trace figures.

    ``tables`` is :attr:`cellaqm.RunResult.trace` or :func:`cellaqm.read_trace`
    of a run directory. Panels: congestion window (kB) per flow (ssthresh
    dotted when one flow is drawn), buffer occupancy (kB), drops (markers per
    flow, by cause; uplink drops marked so) and delivered sequence numbers (MB; retransmissions
    marked). ``flows``: the flows to draw (default: the first
    :data:`TRACE_MAX_FLOWS` that sent data); ``span``: ``(start, end)`` seconds.
    Dense series are thinned to what the figure's pixels can show (:func:`thin`)
    and dense scatters rasterised, so that the figure of a long run stays a few
    MB and draws in seconds. Returns ``(figure, notes)``.
    """
    plt = _pyplot()
    missing = [t for t in ("cwnd", "queue", "drops", "delivered") if t not in tables]
    if missing:
        raise TableError(f"trace tables missing: {', '.join(missing)}")
    cwnd, queue, drops, delivered = (tables[t] for t in ("cwnd", "queue", "drops", "delivered"))
    notes: list[str] = []
    start, end = span if span is not None else (None, None)

    def within(df: pd.DataFrame) -> pd.DataFrame:
        keep = np.ones(len(df), dtype=bool)
        if start is not None:
            keep &= df["time_s"].to_numpy() >= start
        if end is not None:
            keep &= df["time_s"].to_numpy() <= end
        return df[keep]

    with_data = sorted(set(cwnd["flow"].astype(int)) | set(delivered["flow"].astype(int)))
    if flows is None:
        chosen = with_data[:TRACE_MAX_FLOWS]
        if len(with_data) > TRACE_MAX_FLOWS:
            notes.append(f"drawing flows {chosen[0]}–{chosen[-1]} of {len(with_data)} with data; "
                         "choose others with --flow")
    else:
        chosen = [int(f) for f in flows]
        unknown = [f for f in chosen if f not in with_data]
        if unknown:
            raise TableError(f"flow {unknown[0]} has no trace data (flows with data: "
                             f"{_ranges(with_data) or 'none'})")
    if not chosen:
        raise TableError("nothing to plot: the trace has no TCP data (no flow sent any)")
    colors = {f: f"C{i % 10}" for i, f in enumerate(chosen)}
    lo = start if start is not None else 0.0
    hi = end if end is not None else max(
        [float(t["time_s"].max()) for t in (cwnd, queue, drops, delivered) if len(t)] or [1.0])

    def dense(n: int) -> bool:
        return n > TRACE_RASTER_POINTS

    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(7.5, 8.5), layout="constrained",
                             gridspec_kw={"height_ratios": [3, 2, 1.4, 3]})
    ax_cwnd, ax_queue, ax_drops, ax_seq = axes

    # cwnd per flow (and direction): a step function held until the next change.
    cw = within(cwnd)
    for f in chosen:
        part = cw[cw["flow"] == f]
        for d, style in (("down", "-"), ("up", "--")):
            rows = thin(part[part["dir"] == d], "cwnd_bytes", lo, hi)
            if not len(rows):
                continue
            label = f"flow {f}" + (" (uplink)" if d == "up" else "")
            ax_cwnd.step(rows["time_s"], rows["cwnd_bytes"].to_numpy(dtype=float) / 1e3, where="post",
                         color=colors[f], linestyle=style, linewidth=1, label=label)
            if len(chosen) == 1 and d == "down":
                ss = rows["ssthresh_bytes"].to_numpy(dtype=float) / 1e3
                if np.isfinite(ss).any():
                    ax_cwnd.step(rows["time_s"], ss, where="post", color="0.4", linestyle=":",
                                 linewidth=1, label="ssthresh")
    ax_cwnd.set_ylabel("cwnd (kB)")
    ax_cwnd.set_ylim(bottom=0)
    if ax_cwnd.lines:
        ax_cwnd.legend(fontsize="x-small", ncol=min(4, max(1, len(ax_cwnd.lines))), loc="upper right")

    # Buffer occupancy.
    q = thin(within(queue), "bytes", lo, hi)
    ax_queue.step(q["time_s"], q["bytes"].to_numpy(dtype=float) / 1e3, where="post", color="C0", linewidth=1)
    ax_queue.set_ylabel("queue (kB)")
    ax_queue.set_ylim(bottom=0)

    # Drops: one marker per dropped packet at its flow's row, shaped by cause (and direction).
    dr = within(drops)
    dr = dr[dr["flow"].isin(chosen)]
    markers = ("x", "+", "1", "|", "2", "3")
    kinds = dr["cause"].astype(str) + np.where(dr["dir"].astype(str) == "up", " (uplink)", "")
    for i, kind in enumerate(sorted(kinds.unique())):
        rows = dr[kinds == kind]
        label = f"{kind} ({len(rows)})"
        rows = pd.concat([thin(rows[rows["flow"] == f], "flow", lo, hi) for f in chosen])
        ax_drops.scatter(rows["time_s"], rows["flow"], marker=markers[i % len(markers)],
                         c=[colors[int(f)] for f in rows["flow"]], s=22, linewidths=1,
                         label=label, rasterized=dense(len(rows)))
    if len(dr):
        ax_drops.legend(fontsize="x-small", loc="upper right")
    else:
        ax_drops.text(0.5, 0.5, "no drops", transform=ax_drops.transAxes, ha="center", va="center",
                      color="0.4", fontsize="small")
    ax_drops.set_ylabel("drops\n(flow)")
    ax_drops.set_yticks(chosen if len(chosen) <= 8 else chosen[:: max(1, len(chosen) // 8)])
    ax_drops.set_ylim(min(chosen) - 0.7, max(chosen) + 0.7)

    # Delivered sequence numbers (time–sequence plot); retransmissions marked.
    dl = within(delivered)
    for f in chosen:
        rows = dl[dl["flow"] == f]
        fresh = thin(rows[~rows["retransmission"].astype(bool)], "seq", lo, hi)
        again = thin(rows[rows["retransmission"].astype(bool)], "seq", lo, hi)
        ax_seq.scatter(fresh["time_s"], fresh["seq"].to_numpy(dtype=float) / 1e6, s=2, color=colors[f],
                       linewidths=0, label=f"flow {f}", rasterized=dense(len(fresh)))
        if len(again):
            ax_seq.scatter(again["time_s"], again["seq"].to_numpy(dtype=float) / 1e6, s=14, marker="x",
                           color=colors[f], linewidths=0.8, rasterized=dense(len(again)))
    if dl["retransmission"].astype(bool).any():
        ax_seq.scatter([], [], s=14, marker="x", color="0.3", linewidths=0.8, label="retransmission")
        ax_seq.legend(fontsize="x-small", loc="upper left", markerscale=2)
    ax_seq.set_ylabel("delivered sequence (MB)")
    ax_seq.set_ylim(bottom=0)
    ax_seq.set_xlabel("time (s)")

    for ax in axes:
        ax.grid(alpha=0.3)
        ax.set_axisbelow(True)
    ax_seq.set_xlim(lo, max(hi, lo + 1e-3))
    fig.suptitle(title or "trace", fontsize="medium")
    return fig, notes


def thin(df: pd.DataFrame, column: str, lo: float, hi: float, bins: int = TRACE_BINS) -> pd.DataFrame:
    """The rows of ``df`` (sorted by ``time_s``) to draw: all if few, else in each of
    ``bins`` time bins over ``[lo, hi]`` the first, last, lowest and highest of ``column``."""
    if len(df) <= 4 * bins:
        return df
    t = df["time_s"].to_numpy(dtype=float)
    y = df[column].to_numpy(dtype=float)
    b = np.clip(((t - lo) / max(hi - lo, 1e-12) * bins).astype(np.int64), 0, bins - 1)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    ends = np.r_[starts[1:], len(b)] - 1
    keep = [starts, ends]
    for reduce in (np.minimum, np.maximum):
        extreme = np.repeat(reduce.reduceat(y, starts), np.diff(np.r_[starts, len(y)]))
        hits = np.flatnonzero(y == extreme)
        keep.append(hits[np.unique(b[hits], return_index=True)[1]])
    return df.iloc[np.unique(np.concatenate(keep))]


def _ranges(values: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` → ``"0–2, 5"``."""
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def save(fig, path: Union[str, os.PathLike[str]], formats: Sequence[str] = IMAGE_FORMATS) -> list[Path]:
    """Write ``fig``: to ``path`` if it ends in .png/.svg/.pdf, else to ``path.<fmt>`` for each format."""
    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower().lstrip(".") in SAVE_FORMATS:
        targets = [path]
    else:
        bad = [f for f in formats if f not in SAVE_FORMATS]
        if bad:
            raise TableError(f"image format must be png, svg or pdf, not {bad[0]!r}")
        targets = [path.with_name(path.name + f".{f}") for f in formats]
    for t in targets:
        fig.savefig(t, dpi=150)
    plt.close(fig)
    return targets
