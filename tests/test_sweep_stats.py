"""Statistics helpers: CI coverage, paired t-tests with Bonferroni, two-factor ANOVA, Tukey HSD."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from cellaqm.stats import anova2, cell_stats, mean_ci, paired_tests, tukey_hsd


@pytest.mark.parametrize("n", [3, 10])
def test_ci_covers_the_true_mean_95_percent_of_1000_normal_trials(n: int) -> None:
    rng = np.random.default_rng(12345 + n)
    mu, sigma, trials = 7.0, 2.0, 1000
    covered = 0
    for _ in range(trials):
        mean, half, count, _ = mean_ci(rng.normal(mu, sigma, n))
        assert count == n
        covered += mean - half <= mu <= mean + half
    # Binomial(1000, 0.95): sd ≈ 6.9 trials; ±3.5 sd. A normal-quantile (z) interval would
    # cover only ≈ 88% at n = 3 and fail this.
    assert 926 <= covered <= 974, covered


def test_mean_ci_edge_cases_and_known_value() -> None:
    assert math.isnan(mean_ci([])[0])
    mean, half, n, _ = mean_ci([5.0])
    assert (mean, n) == (5.0, 1) and math.isnan(half)
    mean, half, n, sd = mean_ci([1.0, 2.0, 3.0, 4.0, float("nan")])
    assert n == 4 and mean == 2.5
    assert half == pytest.approx(st.t.ppf(0.975, 3) * sd / 2)


def _frame(rng: np.random.Generator, effect: float, reps: int = 12) -> pd.DataFrame:
    rows = []
    for rep in range(reps):
        seed_effect = rng.normal(0, 5)  # shared by all levels of replication rep (common random numbers)
        for scheme, shift in (("TD", 0.0), ("A", effect), ("B", 0.0)):
            for buf in ("small", "large"):
                rows.append({"scheme": scheme, "buffer": buf, "rep": rep, "seed": 100 + rep,
                             "y": 50 + shift + (3 if buf == "large" else 0) + seed_effect + rng.normal(0, 0.5)})
    df = pd.DataFrame(rows)
    df["scheme"] = pd.Categorical(df["scheme"], ["TD", "A", "B"], ordered=True)
    df["buffer"] = pd.Categorical(df["buffer"], ["small", "large"], ordered=True)
    return df


def test_paired_tests_find_the_real_difference_with_bonferroni() -> None:
    df = _frame(np.random.default_rng(1), effect=2.0)
    out = paired_tests(df, "y", "scheme", reference="TD", by="buffer")
    assert list(out.columns[:3]) == ["buffer", "level", "reference"]
    assert len(out) == 4  # 2 levels × 2 buffers
    assert (out["p_bonferroni"] == np.minimum(out["p"] * 4, 1)).all()
    a = out[out["level"] == "A"]
    b = out[out["level"] == "B"]
    assert a["significant"].all() and (a["mean_diff"].between(1.3, 2.7)).all()
    assert not b["significant"].any()
    # Pairing removes the seed effect: an unpaired test on the same data sees nothing.
    small = df[df["buffer"] == "small"]
    unpaired = st.ttest_ind(small[small.scheme == "A"]["y"], small[small.scheme == "TD"]["y"]).pvalue
    assert unpaired > a[a["buffer"] == "small"]["p"].iloc[0]
    # All pairs when no reference.
    assert len(paired_tests(df, "y", "scheme", by="buffer")) == 6
    with pytest.raises(ValueError, match="no level 'X'"):
        paired_tests(df, "y", "scheme", reference="X")


def test_anova2_and_tukey_return_tidy_frames() -> None:
    df = _frame(np.random.default_rng(2), effect=8.0)  # ANOVA does not block on the seed: a clear effect
    table = anova2(df, "y", "scheme", "buffer")
    assert list(table["term"]) == ["scheme", "buffer", "scheme:buffer", "Residual"]
    p = dict(zip(table["term"], table["p"]))
    assert p["scheme"] < 0.01 and p["buffer"] < 0.05
    tk = tukey_hsd(df, "y", "scheme")
    assert set(tk.columns) == {"group1", "group2", "mean_diff", "p_adj", "ci_low", "ci_high", "reject"}
    assert len(tk) == 3
    ab = tk[(tk.group1 == "TD") & (tk.group2 == "A")]  # the level order
    assert ab["reject"].iloc[0] and ab["mean_diff"].iloc[0] == pytest.approx(8, abs=3)
    assert len(tukey_hsd(df, "y", ["scheme", "buffer"])) == 15


def test_cell_stats_keeps_level_order() -> None:
    df = _frame(np.random.default_rng(3), effect=1.0, reps=4)
    cells = cell_stats(df, "y", ["scheme", "buffer"])
    assert list(cells["scheme"].astype(str)) == ["TD", "TD", "A", "A", "B", "B"]
    assert (cells["n"] == 4).all()
    assert list(cells["ci_high"] - cells["ci_low"]) == pytest.approx(list(2 * cells["ci_half"]))


def test_paired_tests_refuse_independent_runs_and_warn_when_pooling() -> None:
    from cellaqm.stats import PoolingWarning, UnpairedError

    df = _frame(np.random.default_rng(4), effect=2.0, reps=4)
    with pytest.warns(PoolingWarning, match="pooling over factor buffer"):
        assert len(paired_tests(df, "y", "scheme", reference="TD")) == 2
    independent = df.assign(seed=np.arange(len(df)))  # independent = true: every run its own seed
    with pytest.raises(UnpairedError, match="independent = true.*replication index.*not be valid"):
        paired_tests(independent, "y", "scheme", reference="TD", by="buffer")
