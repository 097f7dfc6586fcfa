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


#: Columns of a results table that are not metrics of the simulation: the replication,
#: its seed, and the host's timings (they differ between two runs of one seed).
_NOT_METRICS = ("rep", "seed", "wall_s", "sim_seconds_per_wall_second", "events_per_second", "run_wall_s")


def identical_notes(df: pd.DataFrame) -> list[str]:
    """One note per cell of factor levels whose replications (several seeds) gave identical
    results in every metric: nothing random differs between the seeds, so a CI of ±0 there
    measures nothing (a measured trace starts at its beginning in every replication unless
    given ``offset = "random"``)."""
    factors = factor_columns(df)
    metrics = [c for c in df.columns if c not in factors and c not in _NOT_METRICS
               and pd.api.types.is_numeric_dtype(df[c])]
    groups = df.groupby(factors, observed=True, sort=True) if factors else [((), df)]
    notes = []
    for key, part in groups:
        if len(part) < 2 or not metrics or part[metrics].nunique(dropna=False).max() > 1:
            continue
        key = key if isinstance(key, tuple) else (key,)
        cell = ", ".join(f"{f}={level}" for f, level in zip(factors, key)) or "the sweep"
        notes.append(f"the {len(part)} replications of {cell} are identical in every metric: their seeds "
                     "change nothing random, so the CI (±0) says nothing (a measured trace starts at its "
                     "beginning in each: give it offset = \"random\")")
    return notes
