"""Figures of a sweep (matplotlib, written as PNG and/or SVG).

- :func:`bar`: mean of a metric per level of ``x`` (grouped by ``hue``) with
  Student-t confidence-interval whiskers.
- :func:`cdf`: empirical CDFs per level of ``hue``: of the one-way delay of
  every delivered packet (``packet_delay_ms``, from the per-run detail files
  of a sweep run with ``packets = true``), or of any metric across runs.

The simulator core does not record time series (cwnd, queue bytes over
time) yet, so there is no trace figure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional, Union

import numpy as np
import pandas as pd

from cellaqm.labels import axis_label, metric_unit
from cellaqm.table import TableError, apply_where, check_metric, factor_columns
from cellaqm.stats import cell_stats

PACKET_DELAY = "packet_delay_ms"
KINDS = ("bar", "cdf")
IMAGE_FORMATS = ("png", "svg")


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
    notes = []
    for f in factors:
        if f not in (x, hue):
            levels = df[f].cat.remove_unused_categories().cat.categories
            if len(levels) > 1:
                notes.append(f"pooling over factor {f} (levels {', '.join(map(str, levels))}); "
                             f"use --where {f}=LEVEL to pick one")
    return x, hue, notes


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


def _ecdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.sort(values[~np.isnan(values)])
    return v, np.arange(1, v.size + 1) / max(v.size, 1)


def cdf(
    df: pd.DataFrame,
    metric: str,
    hue: Optional[str] = None,
    where: Optional[Mapping[str, str]] = None,
    packets: Optional[Mapping[str, pd.DataFrame]] = None,
    title: Optional[str] = None,
):
    """Empirical CDF per level of ``hue``: of every packet's delay, or of a metric across runs.

    ``metric`` is :data:`PACKET_DELAY` (needs ``packets``: run id → packet
    DataFrame, see :meth:`cellaqm.store.Store.packets`) or a metric column.
    Returns ``(figure, notes)``.
    """
    plt = _pyplot()
    where = dict(where or {})
    df = apply_where(df, where)
    if metric != PACKET_DELAY:
        metric = check_metric(df, metric)
    hue, _, notes = _pick(df, hue, None, two=False)
    fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
    levels = list(df[hue].cat.remove_unused_categories().cat.categories) if hue else [None]
    if metric == PACKET_DELAY:
        if not packets:
            raise TableError("no packet detail in this sweep: run it with packets = true "
                             "(sweep file) or cellaqm sweep --packets")
        xlabel = "one-way packet delay (ms)"
        scale = 1.0
    else:
        _, _, scale = metric_unit(metric, df[metric])
        xlabel = axis_label(metric, df[metric])
    drawn = 0
    for lv in levels:
        part = df if lv is None else df[df[hue] == lv]
        if metric == PACKET_DELAY:
            assert packets is not None
            chunks = [packets[r]["delay_s"].to_numpy(dtype=float) * 1e3 for r in part["run_id"] if r in packets]
            values = np.concatenate(chunks) if chunks else np.array([])
        else:
            values = part[metric].to_numpy(dtype=float) * scale
        if values.size == 0:
            continue
        xs, ys = _ecdf(values)
        ax.step(xs, ys, where="post", label=None if lv is None else str(lv))
        drawn += 1
    if not drawn:
        raise TableError("nothing to plot: no runs (or no packet detail) match")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of packets" if metric == PACKET_DELAY else "fraction of runs")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    if hue:
        ax.legend(title=hue, fontsize="small", title_fontsize="small")
    what = "CDF over all delivered packets of all runs" if metric == PACKET_DELAY else "CDF over runs"
    ax.set_title(title or _title(df, where, what), fontsize="medium")
    return fig, notes


def save(fig, path: Union[str, os.PathLike[str]], formats: Sequence[str] = IMAGE_FORMATS) -> list[Path]:
    """Write ``fig``: to ``path`` if it ends in .png/.svg, else to ``path.<fmt>`` for each format."""
    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower().lstrip(".") in IMAGE_FORMATS:
        targets = [path]
    else:
        bad = [f for f in formats if f not in IMAGE_FORMATS]
        if bad:
            raise TableError(f"image format must be png or svg, not {bad[0]!r}")
        targets = [path.with_name(path.name + f".{f}") for f in formats]
    for t in targets:
        fig.savefig(t, dpi=150)
    plt.close(fig)
    return targets
