"""Result tables: mean ± Student-t confidence interval of a metric per cell, optionally "% vs" a reference level.

:func:`table_cells` computes the cells (a tidy DataFrame); :func:`render`
lays them out like the studies' tables (rows × columns of factor levels) as
Markdown, CSV (tidy, raw units) or LaTeX.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Optional

import pandas as pd

from cellaqm.factors import factor_columns, identical_notes, pooling_notes
from cellaqm.labels import metric_unit, normalize_metric
from cellaqm.stats import cell_stats

FORMATS = ("md", "csv", "latex")


class TableError(ValueError):
    """Bad table request (unknown metric, factor or level); one line naming it."""


@dataclass
class Cells:
    """The cells of a table and how they were laid out."""

    metric: str
    rows: list[str]
    cols: list[str]
    cells: pd.DataFrame
    confidence: float
    vs: Optional[tuple[str, str]] = None
    notes: list[str] = field(default_factory=list)


def check_metric(df: pd.DataFrame, metric: str) -> str:
    col = normalize_metric(metric)
    if col not in df.columns or not pd.api.types.is_numeric_dtype(df[col]) or col in ("rep", "seed"):
        numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c]) and c not in ("rep", "seed")
                   and not isinstance(df[c].dtype, pd.CategoricalDtype)]
        raise TableError(f"unknown metric {metric!r} (metrics: {', '.join(numeric)})")
    return col


def missing_notes(df: pd.DataFrame, col: str) -> list[str]:
    """A note when some runs have no value of ``col`` (NaN, e.g. no download finished): they are left out."""
    n = int(df[col].isna().sum())
    if not n:
        return []
    return [f"{n} of {len(df)} runs have no value of {col} (e.g. no download finished, no packet measured): "
            "left out of the means, CIs and n"]


def apply_where(df: pd.DataFrame, where: Mapping[str, str]) -> pd.DataFrame:
    factors = factor_columns(df)
    for name, level in where.items():
        if name not in factors:
            raise TableError(f"--where {name}={level}: unknown factor {name!r} (factors: {', '.join(factors)})")
        levels = list(df[name].cat.categories)
        if level not in levels:
            raise TableError(f"--where {name}={level}: {name} has no level {level!r} (levels: {', '.join(levels)})")
        df = df[df[name] == level]
        df = df.assign(**{name: df[name].cat.remove_unused_categories()})
    return df


def parse_where(items: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, eq, level = item.partition("=")
        if not eq or not name:
            raise TableError(f"--where {item!r}: expected FACTOR=LEVEL")
        out[name.strip()] = level.strip()
    return out


def layout(df: pd.DataFrame, rows: Sequence[str], cols: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """Fill in default rows/columns; return ``(rows, cols, notes)``.

    Unnamed factors go to the side not given (columns by default: the last
    factor). Factors named on neither side are pooled, with a note.
    """
    factors = factor_columns(df)
    for f in [*rows, *cols]:
        if f not in factors:
            raise TableError(f"unknown factor {f!r} (factors: {', '.join(factors) or 'none'})")
    rows, cols = list(rows), list(cols)
    if set(rows) & set(cols):
        raise TableError(f"factor {sorted(set(rows) & set(cols))[0]!r} is both a row and a column")
    rest = [f for f in factors if f not in rows and f not in cols]
    if not rows and not cols:
        rows, cols = (rest[:-1], rest[-1:]) if len(rest) > 1 else (rest, [])
    elif not cols:
        cols = rest
    elif not rows:
        rows = rest
    return rows, cols, pooling_notes(df, [*rows, *cols])


def _find_vs(vs: str, rows: list[str], cols: list[str], df: pd.DataFrame) -> tuple[str, str]:
    if "=" in vs:
        name, _, level = vs.partition("=")
        candidates = [name]
        if name not in rows + cols:
            raise TableError(f"--vs {vs}: {name!r} is not a row or column factor of the table")
    else:
        level = vs
        candidates = [f for f in cols + rows if level in list(df[f].cat.categories)]
        if not candidates:
            levels = {f: list(df[f].cat.categories) for f in cols + rows}
            raise TableError(f"--vs {vs}: no row or column factor has a level {vs!r} "
                             f"(levels: {'; '.join(f'{k}: ' + ', '.join(v) for k, v in levels.items())})")
    name = candidates[0]
    if level not in list(df[name].cat.categories):
        raise TableError(f"--vs {vs}: {name} has no level {level!r}")
    return name, level


def table_cells(
    df: pd.DataFrame,
    metric: str,
    rows: Sequence[str] = (),
    cols: Sequence[str] = (),
    where: Optional[Mapping[str, str]] = None,
    vs: Optional[str] = None,
    confidence: float = 0.95,
) -> Cells:
    """Mean and CI of ``metric`` per cell of ``rows`` × ``cols``; ``vs`` adds ``pct_vs``."""
    if not 0 < confidence < 1:
        raise TableError(f"confidence must be between 0 and 1, not {confidence}")
    col = check_metric(df, metric)
    df = apply_where(df, where or {})
    rows, cols, notes = layout(df, rows, cols)
    notes += missing_notes(df, col) + identical_notes(df)
    cells = cell_stats(df, col, [*rows, *cols], confidence)
    ref = None
    if vs is not None:
        ref = _find_vs(vs, rows, cols, df)
        name, level = ref
        others = [f for f in [*rows, *cols] if f != name]
        base = cells[cells[name] == level][others + ["mean"]].rename(columns={"mean": "_ref"})
        merged = cells.merge(base, on=others, how="left") if others else cells.assign(_ref=float(base["_ref"].iloc[0]) if len(base) else math.nan)
        cells["pct_vs"] = (100.0 * (merged["mean"] - merged["_ref"]) / merged["_ref"]).to_numpy()
        cells.loc[cells[name] == level, "pct_vs"] = math.nan
    return Cells(metric=col, rows=rows, cols=cols, cells=cells, confidence=confidence, vs=ref, notes=notes)


# --------------------------------------------------------------------------- rendering


def _digits(half_widths: pd.Series, means: pd.Series) -> int:
    """Decimals giving the CI half width two significant digits (0–4)."""
    h = half_widths.dropna()
    h = h[h > 0]
    ref = float(h.median()) if len(h) else float(means.abs().median() or 1) / 100
    if not ref or math.isnan(ref):
        return 1
    return int(min(4, max(0, 1 - math.floor(math.log10(ref)))))


def _fmt(value: float, digits: int) -> str:
    """A number with a true minus sign (U+2212) when negative; '—' for None/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return ("−" if value < 0 else "") + f"{abs(value):,.{digits}f}"


def _cell_text(row: pd.Series, scale: float, digits: int, fmt: str, with_vs: bool) -> str:
    pm = r"$\pm$" if fmt == "latex" else "±"
    mean = _fmt(row["mean"] * scale, digits)
    text = mean if math.isnan(row["ci_half"]) else f"{mean} {pm} {_fmt(row['ci_half'] * scale, digits)}"
    if with_vs:
        pct = row.get("pct_vs", math.nan)
        if not (isinstance(pct, float) and math.isnan(pct)):
            sign = "+" if pct >= 0 else "−"
            pct_text = f"{sign}{abs(pct):.1f}" + (r"\%" if fmt == "latex" else "%")
            text += f" ({pct_text})"
        elif fmt != "csv":
            text += " (ref)"
    # pdfLaTeX has no glyph for U+2212: math-mode minus instead.
    return text.replace("−", "$-$") if fmt == "latex" else text


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                 ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        text = text.replace(a, b) if a != "\\" else text.replace(a, b)
    return text


def caption(c: Cells) -> str:
    label, unit, _ = metric_unit(c.metric, c.cells["mean"])
    ns = sorted(set(int(n) for n in c.cells["n"]))
    n_text = f"n = {ns[0]}" if len(ns) == 1 else f"n = {ns[0]}–{ns[-1]}"
    text = f"{c.metric}: {label}{f' ({unit})' if unit else ''}, mean ± {c.confidence:.0%} CI (Student t, {n_text} runs per cell)"
    if c.vs:
        text += f"; % vs {c.vs[0]} = {c.vs[1]}"
    return text


def render(c: Cells, fmt: str = "md", digits: Optional[int] = None) -> str:
    """The table as text: ``md`` (Markdown), ``csv`` (tidy, one row per cell, raw units) or ``latex``."""
    if fmt not in FORMATS:
        raise TableError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    cells = c.cells
    if fmt == "csv":
        out = cells.copy()
        out.insert(0, "metric", c.metric)
        return out.to_csv(index=False)
    _, _, scale = metric_unit(c.metric, cells["mean"])
    d = digits if digits is not None else _digits(cells["ci_half"] * scale, cells["mean"] * scale)
    with_vs = c.vs is not None
    cells = cells.assign(_text=[_cell_text(r, scale, d, fmt, with_vs) for _, r in cells.iterrows()])

    def key(frame: pd.DataFrame, names: list[str]) -> pd.Series:
        if not names:
            return pd.Series([c.metric] * len(frame), index=frame.index)
        return frame[names].astype(str).agg(" / ".join, axis=1)

    row_keys = cells[c.rows].drop_duplicates() if c.rows else pd.DataFrame(index=[0])
    col_labels = list(dict.fromkeys(key(cells, c.cols)))
    lookup = {(rk, ck): t for rk, ck, t in zip(key(cells, c.rows) if c.rows else [""] * len(cells),
                                               key(cells, c.cols), cells["_text"])}
    # Without row factors there is one row of cells and no column of row labels.
    header = [*c.rows, *col_labels]
    body = []
    for _, r in row_keys.iterrows():
        rk = " / ".join(str(r[f]) for f in c.rows) if c.rows else ""
        body.append([*(str(r[f]) for f in c.rows), *(lookup.get((rk, ck), "—") for ck in col_labels)])
    if c.cols:
        top = " / ".join(c.cols)
    else:
        top = ""
    if fmt == "md":
        lines = [caption(c), ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(["---"] * len(c.rows) + ["---:"] * len(col_labels)) + "|")
        lines.extend("| " + " | ".join(row) + " |" for row in body)
        if top:
            lines.append("")
            lines.append(f"Columns: {top}.")
        return "\n".join(lines) + "\n"
    # latex
    nrow = len(c.rows)
    lines = [r"\begin{table}[ht]", r"\centering",
             r"\caption{" + _latex_escape(caption(c)).replace(r"±", r"$\pm$") + "}",
             r"\begin{tabular}{" + "l" * nrow + "r" * len(col_labels) + "}", r"\hline"]
    if top:
        lines.append(" & " * nrow + r"\multicolumn{" + str(len(col_labels)) + "}{c}{" + _latex_escape(top) + r"} \\")
    lines.append(" & ".join(_latex_escape(h) for h in header) + r" \\")
    lines.append(r"\hline")
    for row in body:
        cells_tex = [_latex_escape(x) for x in row[:nrow]] + row[nrow:]
        lines.append(" & ".join(cells_tex) + r" \\")
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
