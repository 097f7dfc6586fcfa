"""The factors of a results table: which columns they are, and which a view pools over.

In a sweep's DataFrame (:func:`cellaqm.load_sweep`) every factor is an
ordered categorical column. A table, figure or test that splits the runs by
some factors averages over the levels of the others; :func:`pooling_notes`
says so, once per pooled factor with more than one level.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd


def factor_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]


def pooling_notes(df: pd.DataFrame, used: Iterable[str], hint: str = "use --where {factor}=LEVEL to pick one") -> list[str]:
    """One note per factor not in ``used`` that has several levels in ``df``, ending with ``hint``."""
    used = set(used)
    notes = []
    for f in factor_columns(df):
        if f not in used:
            levels = df[f].cat.remove_unused_categories().cat.categories
            if len(levels) > 1:
                notes.append(f"pooling over factor {f} (levels {', '.join(map(str, levels))}); "
                             + hint.format(factor=f))
    return notes
