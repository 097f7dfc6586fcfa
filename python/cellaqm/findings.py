"""A study's stated findings, each judged on the reproduction at hand.

Every study states conclusions (its authors' words, one testable statement each,
with how much rests on it: decisive, strong, supporting, weak). A study module
lists them as :class:`Finding` s; each carries the rule it is judged by, written
down before the outcome was looked at, and a *judge*: a function of the
reproduction's :class:`Results` (the experiment tables and their runs) that
returns a :class:`Verdict`:

- ``holds``: the reproduction shows what the study states;
- ``fails``: it shows something else (the difference decided, not a tie);
- ``inconclusive``: the comparison the statement rests on is not decided
  (its 95% interval straddles the threshold: too few runs, or a real tie);
- ``not expressible``: our model cannot show it (say why);
- ``not run``: an experiment it needs was left out (``--only``).

Differences between two variants are judged with :func:`compare`: runs of the
two variants with the same seeds are paired (common random numbers remove the
seed-to-seed variance), otherwise Welch's unpaired interval is used. A
difference is *decided* when its 95% interval excludes zero.

Judges build on :func:`compare`, :func:`pooled` (a difference paired over every level
of a factor), :func:`combine` (a per-seed linear combination, e.g. a difference of
differences), :func:`optimum` (the smallest level not decidedly below the best) and
:func:`verdict`.

Never tune a parameter to turn a verdict: a failed finding is reported as
plainly as one that holds, with the model difference believed to cause it in
the study's docs page.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from cellaqm.textable import Column, Table

if TYPE_CHECKING:
    from cellaqm.study import Run

HOLDS, FAILS, INCONCLUSIVE, NOT_EXPRESSIBLE, NOT_RUN = "holds", "fails", "inconclusive", "not expressible", "not run"
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE, NOT_EXPRESSIBLE, NOT_RUN)
STRENGTHS = ("decisive", "strong", "supporting", "weak")


@dataclass(frozen=True)
class Verdict:
    verdict: str
    #: Our numbers behind it, short (e.g. "off −38.2 ± 4.1% vs on, paired, n=20").
    evidence: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")


def holds(evidence: str) -> Verdict:
    return Verdict(HOLDS, evidence)


def fails(evidence: str) -> Verdict:
    return Verdict(FAILS, evidence)


def inconclusive(evidence: str) -> Verdict:
    return Verdict(INCONCLUSIVE, evidence)


def not_expressible(why: str) -> Verdict:
    return Verdict(NOT_EXPRESSIBLE, why)


class Results:
    """What the judges read: each experiment's table rows and runs (only the experiments that ran)."""

    def __init__(self) -> None:
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._runs: dict[str, list[Run]] = {}

    def add(self, experiment: str, rows: list[dict[str, Any]], runs: list[Run]) -> None:
        self._rows[experiment] = rows
        self._runs[experiment] = runs

    def has(self, experiment: str) -> bool:
        return experiment in self._rows

    def rows(self, experiment: str, **labels: Any) -> list[dict[str, Any]]:
        """The table rows of ``experiment`` whose group columns equal ``labels`` (keys with spaces: pass a dict
        with ``**{"RLC buffer [SDUs]": 15}``)."""
        return [r for r in self._rows[experiment] if all(r.get(k) == v for k, v in labels.items())]

    def row(self, experiment: str, **labels: Any) -> dict[str, Any]:
        """The one row of ``experiment`` with ``labels`` (an error if none or several)."""
        found = self.rows(experiment, **labels)
        if len(found) != 1:
            raise KeyError(f"{experiment}: {len(found)} rows with {labels}")
        return found[0]

    def values(self, experiment: str, measure: str, **labels: Any) -> dict[int, float]:
        """``measure`` per seed over the runs of ``experiment`` with ``labels`` (NaN: no value in that run)."""
        return {r.seed: float(r.out[measure]) for r in self._runs[experiment]
                if all(r.labels.get(k) == v for k, v in labels.items()) and measure in r.out}


@dataclass(frozen=True)
class Difference:
    """``a − b`` of a measure: mean, 95% half width, pairs (or the smaller sample), and how it was formed."""

    mean: float
    half: float
    n: int
    paired: bool
    #: The mean of ``b`` (for relative statements); NaN if none.
    base: float

    @property
    def sign(self) -> int:
        """+1 or −1 when the interval excludes zero, 0 when it does not (or cannot be formed)."""
        if math.isnan(self.mean) or math.isnan(self.half) or abs(self.mean) <= self.half:
            return 0
        return 1 if self.mean > 0 else -1

    @property
    def relative(self) -> float:
        """The difference as a fraction of ``b``'s mean."""
        return self.mean / self.base if self.base else math.nan

    def text(self, unit: str = "", relative: bool = False) -> str:
        how = f"{'paired' if self.paired else 'unpaired'}, n={self.n}"
        if relative:
            return f"{self.relative * 100:+.1f} ± {self.half / abs(self.base) * 100:.1f}% ({how})" if self.base \
                else f"— ({how})"
        return f"{self.mean:+.3g} ± {self.half:.2g}{unit} ({how})"


def compare(results: Results, experiment: str, measure: str, a: dict[str, Any], b: dict[str, Any]) -> Difference:
    """``measure`` of the runs labelled ``a`` minus those labelled ``b``: paired by seed when both have the same
    seeds (runs without a value dropped pairwise), else Welch's interval."""
    from scipy.special import stdtrit

    from cellaqm.stats import mean_ci

    va, vb = results.values(experiment, measure, **a), results.values(experiment, measure, **b)
    base = mean_ci(list(vb.values()))[0] if vb else math.nan
    if va and set(va) == set(vb):
        diffs = [va[s] - vb[s] for s in sorted(va) if not (math.isnan(va[s]) or math.isnan(vb[s]))]
        mean, half, n, _sd = mean_ci(diffs)
        return Difference(mean, half, n, True, base)
    xa = [v for v in va.values() if not math.isnan(v)]
    xb = [v for v in vb.values() if not math.isnan(v)]
    ma, _ha, na, sa = mean_ci(xa)
    mb, _hb, nb, sb = mean_ci(xb)
    if na < 2 or nb < 2:
        return Difference(ma - mb, math.nan, min(na, nb), False, base)
    se2a, se2b = sa * sa / na, sb * sb / nb
    se = math.sqrt(se2a + se2b)
    dof = (se2a + se2b) ** 2 / ((se2a ** 2 / (na - 1) if na > 1 else 0) + (se2b ** 2 / (nb - 1) if nb > 1 else 0)) \
        if se > 0 else float(na + nb - 2)
    return Difference(ma - mb, float(stdtrit(dof, 0.975)) * se, min(na, nb), False, base)


@dataclass(frozen=True)
class Finding:
    """One stated conclusion of a study and how we judge it."""

    id: str
    strength: str
    #: The statement, short (the study's words condensed).
    statement: str
    #: How it is judged from the tables, stated before the outcome was looked at.
    rule: str
    #: The experiments (``--only`` names) the judge reads; empty when it reads none.
    needs: tuple[str, ...]
    #: The judge; None for a statement our model cannot express (``rule`` says why).
    judge: Optional[Callable[[Results], Verdict]] = None

    def __post_init__(self) -> None:
        if self.strength not in STRENGTHS:
            raise ValueError(f"{self.id}: strength {self.strength!r} is not one of {', '.join(STRENGTHS)}")

    def verdict(self, results: Results) -> Verdict:
        if self.judge is None:
            return not_expressible(self.rule)
        missing = [e for e in self.needs if not results.has(e)]
        if missing:
            return Verdict(NOT_RUN, f"needs {', '.join(missing)}")
        return self.judge(results)


# --------------------------------------------------------------------------- helpers for judges

def combine(res: Results, exp: str, measure: str, terms: list[tuple[float, dict[str, Any]]]) -> Difference:
    """Σ coefficient × ``measure`` of the labelled runs, per seed (paired), as a :class:`Difference`
    (base: the mean of the last term's runs)."""
    from cellaqm.stats import mean_ci

    per = [res.values(exp, measure, **labels) for _, labels in terms]
    common = set.intersection(*(set(p) for p in per)) if per else set()
    vals = [sum(c * p[s] for (c, _), p in zip(terms, per)) for s in sorted(common)]
    vals = [v for v in vals if not math.isnan(v)]
    base = mean_ci(list(per[-1].values()))[0] if per and per[-1] else math.nan
    mean, half, n, _sd = mean_ci(vals)
    return Difference(mean, half, n, True, base)


def pooled(res: Results, exp: str, measure: str, a: dict[str, Any], b: dict[str, Any], over: str,
           levels: list[Any]) -> Difference:
    """``a − b`` paired by (level of ``over``, seed) over all ``levels``: one difference pooled over a
    factor (e.g. every buffer size), each level's runs paired with the same seed's."""
    from cellaqm.stats import mean_ci

    diffs, base = [], []
    for lv in levels:
        va, vb = res.values(exp, measure, **{over: lv, **a}), res.values(exp, measure, **{over: lv, **b})
        diffs += [va[s] - vb[s] for s in sorted(set(va) & set(vb)) if not (math.isnan(va[s]) or math.isnan(vb[s]))]
        base += list(vb.values())
    mean, half, n, _sd = mean_ci(diffs)
    return Difference(mean, half, n, True, mean_ci(base)[0] if base else math.nan)


def mean_of(res: Results, exp: str, measure: str, labels: dict[str, Any]) -> float:
    """The mean of ``measure`` over the runs with ``labels`` (NaN values left out)."""
    from cellaqm.stats import mean_ci

    return mean_ci(list(res.values(exp, measure, **labels).values()))[0]


def levels(res: Results, exp: str, column: str, **fixed: Any) -> list[Any]:
    """The levels of ``column`` in ``exp``'s table (rows with ``fixed``), in table order."""
    return list(dict.fromkeys(r[column] for r in res.rows(exp, **fixed)))


def complete(res: Results, exp: str, measure: str, labels: dict[str, Any]) -> bool:
    """Whether every run with ``labels`` has a value of ``measure`` (e.g. every download finished)."""
    values = res.values(exp, measure, **labels).values()
    return bool(values) and not any(math.isnan(v) for v in values)


def optimum(res: Results, exp: str, x: str, fixed: dict[str, Any], measure: str) -> tuple[Any, Any]:
    """(the smallest level of ``x`` whose ``measure`` (higher is better) is not decidedly below the best
    level's, the best level), among the rows with ``fixed``; a level where some run has no value (a download
    that did not finish) ranks below every level where all have one."""
    xs = [lv for lv in levels(res, exp, x) if res.rows(exp, **{x: lv, **fixed})]
    xs = [lv for lv in xs if complete(res, exp, measure, {x: lv, **fixed})] or xs
    best = max(xs, key=lambda lv: mean_of(res, exp, measure, {x: lv, **fixed}))
    for lv in xs:
        if lv == best or compare(res, exp, measure, {x: lv, **fixed}, {x: best, **fixed}).sign >= 0:
            return lv, best
    return best, best


def needs_levels(res: Results, exp: str, column: str, wanted: list[Any]) -> Optional[Verdict]:
    """An inconclusive verdict if ``exp`` lacks a level the rule reads (``--quick`` runs fewer)."""
    have = set(levels(res, exp, column))
    missing = [w for w in wanted if w not in have]
    return inconclusive(f"{exp} lacks {column} {', '.join(map(str, missing))} (--quick runs fewer levels)") \
        if missing else None


def not_run_when_missing(*errors: type[Exception]) -> Callable[[Callable[[Results], Verdict]], Callable[[Results], Verdict]]:
    """A judge that reports a row it reads missing (one of ``errors``; ``--quick`` runs fewer levels) as not run."""

    def wrap(judge: Callable[[Results], Verdict]) -> Callable[[Results], Verdict]:
        @functools.wraps(judge)
        def judged(res: Results) -> Verdict:
            try:
                return judge(res)
            except errors as missing:
                return Verdict(NOT_RUN, f"not in this run: {missing}")

        return judged

    return wrap


def verdict(ok: bool, bad: bool, text: str) -> Verdict:
    """``fails`` if ``bad``, else ``holds`` if ``ok``, else ``inconclusive``, with ``text`` as the evidence."""
    return fails(text) if bad else holds(text) if ok else inconclusive(text)


def judge_all(findings: list[Finding], results: Results) -> list[tuple[Finding, Verdict]]:
    return [(f, f.verdict(results)) for f in findings]


def counts(judged: list[tuple[Finding, Verdict]]) -> str:
    """"7 of 16 hold (2 of 4 decisive), 5 fail, 3 inconclusive, 1 not expressible"."""
    total = len(judged)
    tally = {v: sum(1 for _, x in judged if x.verdict == v) for v in VERDICTS}
    decisive = [x for f, x in judged if f.strength == "decisive"]
    head = f"{tally[HOLDS]} of {total} hold"
    if decisive:
        head += f" ({sum(1 for x in decisive if x.verdict == HOLDS)} of {len(decisive)} decisive)"
    return ", ".join([head] + [f"{tally[v]} {v}" for v in VERDICTS[1:] if tally[v]])


#: The heading of the findings table.
TITLE = "The study's stated findings, judged on this run"


def markdown(judged: list[tuple[Finding, Verdict]]) -> str:
    """The report's findings section: counts, then id, strength, statement, rule, our evidence, verdict."""
    lines = [f"## {TITLE}", "", counts(judged) + ".", "",
             "| id | strength | statement | judged by | our evidence | verdict |", "|---|---|---|---|---|---|"]
    for f, v in judged:
        cells = [f.id, f.strength, f.statement, f.rule, v.evidence, f"**{v.verdict}**"]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def text_table(judged: list[tuple[Finding, Verdict]]) -> Table:
    """The findings table for a terminal: long cells wrap (never cut), whatever the width."""
    cols = [Column("id", key=True), Column("strength", key=True), Column("statement", key=True, wrap=True),
            Column("our evidence", key=True, wrap=True), Column("verdict", key=True, wrap=True)]
    return Table(TITLE, cols, [[f.id, f.strength, f.statement, v.evidence, v.verdict] for f, v in judged],
                 set(range(1, len(judged))), counts(judged))


def write_csv(judged: list[tuple[Finding, Verdict]], path: Path) -> None:
    import csv

    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "strength", "statement", "rule", "evidence", "verdict"])
        for fd, v in judged:
            w.writerow([fd.id, fd.strength, fd.statement, fd.rule, v.evidence, v.verdict])
