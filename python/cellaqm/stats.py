"""Statistics for comparing schemes over replications; every function returns a tidy DataFrame.

- :func:`mean_ci`: mean and Student-t confidence interval of one sample.
- :func:`cell_stats`: :func:`mean_ci` per cell (combination of factor levels).
- :func:`paired_tests`: paired t-tests of every level of a factor against a
  reference level (or all pairs), pairing runs by replication seed, with a
  Bonferroni correction. Under common random numbers (the sweep default)
  replication r of every level saw the same seed, so pairing removes the
  seed-to-seed variance. Sweeps with ``independent = true`` have nothing to
  pair: it raises :class:`UnpairedError`.
- :func:`anova2`: two-factor ANOVA with interaction (statsmodels OLS).
- :func:`tukey_hsd`: Tukey's honest significant differences between the
  levels of a factor (or of a combination of factors).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
import pandas as pd
from scipy.special import stdtr, stdtrit  # Student t CDF and quantile (lighter than scipy.stats)

from cellaqm.factors import pooling_notes


class UnpairedError(ValueError):
    """Runs of different levels share no seed, so a paired test has no pairs (independent sweeps)."""


class PoolingWarning(UserWarning):
    """A test averages over the levels of a factor it was not told to split by."""


def mean_ci(values: Any, confidence: float = 0.95) -> tuple[float, float, int, float]:
    """``(mean, half_width, n, sd)`` of the Student-t CI; NaNs ignored; half width NaN when n < 2."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0, math.nan
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, n, math.nan
    sd = float(x.std(ddof=1))
    half = float(stdtrit(n - 1, 0.5 + confidence / 2) * sd / math.sqrt(n))
    return mean, half, n, sd


def _as_list(factors: Union[None, str, Sequence[str]]) -> list[str]:
    if factors is None:
        return []
    if isinstance(factors, str):
        return [factors]
    return list(factors)


def cell_stats(
    df: pd.DataFrame, metric: str, by: Union[str, Sequence[str]], confidence: float = 0.95
) -> pd.DataFrame:
    """One row per cell of ``by``: the levels, ``n``, ``mean``, ``sd``, ``ci_half``, ``ci_low``, ``ci_high``.

    Cells follow the factors' level order (categoricals) and empty cells are left out.
    """
    by = _as_list(by)
    rows = []
    if by:
        groups = df.groupby(by, observed=True, sort=True)
    else:
        groups = [((), df)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        mean, half, n, sd = mean_ci(part[metric], confidence)
        rows.append({**dict(zip(by, key)), "n": n, "mean": mean, "sd": sd, "ci_half": half,
                     "ci_low": mean - half, "ci_high": mean + half})
    out = pd.DataFrame.from_records(rows, columns=[*by, "n", "mean", "sd", "ci_half", "ci_low", "ci_high"])
    for f in by:
        if isinstance(df[f].dtype, pd.CategoricalDtype):
            out[f] = pd.Categorical(out[f], categories=df[f].cat.categories, ordered=True)
    return out


def paired_tests(
    df: pd.DataFrame,
    metric: str,
    factor: str,
    reference: Optional[str] = None,
    by: Union[None, str, Sequence[str]] = None,
    pair_on: str = "seed",
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Paired t-tests between levels of ``factor``, within each cell of ``by``.

    Runs are paired on ``pair_on`` (the replication seed: under common random
    numbers replication r has the same seed at every level). With
    ``reference`` every other level is compared with it, else all pairs are.
    The Bonferroni correction multiplies each p-value by the number of
    comparisons made (all cells together), capped at 1. Runs without a value
    of ``metric`` (NaN) are left out of their pairs. Factors in neither
    ``factor`` nor ``by`` are pooled (runs of one seed averaged over their
    levels), with a :class:`PoolingWarning`.

    Raises :class:`UnpairedError` when no two runs of levels compared share a
    ``pair_on`` value: a sweep run with ``independent = true`` gives every run
    its own seed. Pairing such runs on the replication index instead would
    not be valid: replication r of two levels saw different random numbers,
    so their differences keep the seed-to-seed variance the pairing is meant
    to remove and the paired t-test's variance estimate would be wrong.
    Compare them unpaired (:func:`tukey_hsd`, :func:`anova2`) or rerun the
    sweep with common random numbers.

    Returns one row per comparison: the ``by`` levels, ``level``,
    ``reference``, ``n_pairs``, ``mean_diff`` (level − reference), its CI
    (``ci_low``, ``ci_high``), ``pct_diff`` (vs the reference mean), ``t``,
    ``p``, ``p_bonferroni`` and ``significant`` (p_bonferroni < alpha).
    """
    by = _as_list(by)
    levels = list(df[factor].cat.categories) if isinstance(df[factor].dtype, pd.CategoricalDtype) \
        else list(pd.unique(df[factor]))
    if reference is not None and reference not in levels:
        raise ValueError(f"{factor} has no level {reference!r} (levels: {', '.join(map(str, levels))})")
    pairs = [(lv, reference) for lv in levels if lv != reference] if reference is not None \
        else [(b, a) for a, b in itertools.combinations(levels, 2)]
    for note in pooling_notes(df, [factor, *by], hint="add {factor} to `by` or select one of its levels"):
        warnings.warn(note, PoolingWarning, stacklevel=2)
    rows = []
    comparable = shared = 0  # comparisons with runs of both levels; of those, with a common pair_on value
    groups = df.groupby(by, observed=True, sort=True) if by else [((), df)]
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = part.pivot_table(index=pair_on, columns=factor, values=metric, aggfunc="mean", observed=True)
        for level, ref in pairs:
            keys = [set(part.loc[part[factor] == lv, pair_on]) for lv in (level, ref)]
            if not (keys[0] and keys[1]):
                continue
            comparable += 1
            shared += bool(keys[0] & keys[1])
            # A level whose runs all lack a value of the metric has no column: no pairs.
            both = wide[[level, ref]].dropna() if {level, ref} <= set(wide.columns) \
                else pd.DataFrame(columns=[level, ref], dtype=float)
            diff = (both[level] - both[ref]).to_numpy(dtype=float)
            mean, half, n, sd = mean_ci(diff, confidence)
            if n >= 2 and sd > 0:
                t = mean / (sd / math.sqrt(n))
                p = float(2 * stdtr(n - 1, -abs(t)))
            elif n >= 2:  # identical differences: no variance
                t = math.inf if mean != 0 else math.nan
                p = 0.0 if mean != 0 else 1.0
            else:
                t, p = math.nan, math.nan
            ref_mean = float(both[ref].mean()) if n else math.nan
            rows.append({**dict(zip(by, key)), "level": level, "reference": ref, "n_pairs": n,
                         "mean_diff": mean, "ci_low": mean - half, "ci_high": mean + half,
                         "pct_diff": 100.0 * mean / ref_mean if ref_mean else math.nan,
                         "t": t, "p": p})
    if comparable and not shared:
        raise UnpairedError(
            f"no run of one level of {factor} shares its {pair_on} with a run of another level: "
            "the sweep gave every run its own seed (independent = true), so there is nothing to pair. "
            "Pairing on the replication index instead would not be valid: replication r of two levels "
            "saw different random numbers, so their difference keeps the seed-to-seed variance. "
            "Compare the levels unpaired (stats.tukey_hsd, stats.anova2) or rerun with independent = false")
    out = pd.DataFrame.from_records(
        rows, columns=[*by, "level", "reference", "n_pairs", "mean_diff", "ci_low", "ci_high", "pct_diff", "t", "p"])
    m = int(out["p"].notna().sum())
    out["p_bonferroni"] = np.minimum(out["p"] * max(m, 1), 1.0)
    out["significant"] = out["p_bonferroni"] < alpha
    return out


def _formula_name(name: str) -> str:
    return f'Q("{name}")'


def anova2(df: pd.DataFrame, metric: str, a: str, b: str, typ: int = 2) -> pd.DataFrame:
    """Two-factor ANOVA with interaction: ``metric ~ a * b``.

    Returns one row per term (``a``, ``b``, ``a:b``, ``Residual``) with
    ``sum_sq``, ``df``, ``F``, ``p`` and ``eta_sq`` (share of the total sum of squares).
    """
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    data = pd.DataFrame({"y": df[metric].astype(float), "A": df[a].astype(str), "B": df[b].astype(str)}).dropna()
    model = smf.ols("y ~ C(A) * C(B)", data=data).fit()
    table = anova_lm(model, typ=typ)
    names = {"C(A)": a, "C(B)": b, "C(A):C(B)": f"{a}:{b}", "Residual": "Residual"}
    out = pd.DataFrame({
        "term": [names.get(i, i) for i in table.index],
        "sum_sq": table["sum_sq"].to_numpy(),
        "df": table["df"].to_numpy(),
        "F": table["F"].to_numpy(),
        "p": table["PR(>F)"].to_numpy(),
    })
    out["eta_sq"] = out["sum_sq"] / out["sum_sq"].sum()
    return out


def tukey_hsd(df: pd.DataFrame, metric: str, factors: Union[str, Sequence[str]], alpha: float = 0.05) -> pd.DataFrame:
    """Tukey HSD between the levels of ``factors`` (several: their combinations, joined with ' / ').

    Returns one row per pair: ``group1``, ``group2``, ``mean_diff`` (group2 −
    group1), ``p_adj``, ``ci_low``, ``ci_high``, ``reject``.
    """
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    factors = _as_list(factors)
    data = df.dropna(subset=[metric])
    groups = data[factors].astype(str).agg(" / ".join, axis=1)
    # Groups in the sweep's level order (factor columns are ordered categoricals), given to
    # statsmodels as codes: it sorts the groups it is given.
    order = list(groups[data.sort_values(factors, kind="stable").index].unique())
    codes = groups.map({g: i for i, g in enumerate(order)}).to_numpy()
    res = pairwise_tukeyhsd(data[metric].astype(float).to_numpy(), codes, alpha=alpha)
    names = [order[int(c)] for c in res.groupsunique]
    first, second = np.triu_indices(len(names), 1)  # statsmodels' order of the pairs
    return pd.DataFrame({
        "group1": [names[i] for i in first],
        "group2": [names[j] for j in second],
        "mean_diff": np.asarray(res.meandiffs, dtype=float),
        "p_adj": np.asarray(res.pvalues, dtype=float),
        "ci_low": np.asarray(res.confint, dtype=float)[:, 0],
        "ci_high": np.asarray(res.confint, dtype=float)[:, 1],
        "reject": np.asarray(res.reject, dtype=bool),
    })
