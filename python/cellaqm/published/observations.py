"""The WCDMA study's stated observations, checked on the study's Table I and on ours.

Lakkakorpi & Cuny (WCNC 2006) draw five conclusions from their figures. Each is
restated here as a computable test on a table of (case, scheme) rows (95th
percentile delay, mean goodput, both changes vs TD) and evaluated twice: on the
published Table I and on our reproduction. A statement "holds" on a table when:

1. *AQM's main benefit is lower delay at low rates*: averaged over both traffic
   rows and the five AQMs, the p95 change vs TD on the lowest-rate bearer is a
   cut of more than 10 %, larger than on the highest-rate bearer, and larger
   than the goodput change there (in size).
2. *With large enough buffers AQM does not raise goodput* (the table's 100 kB
   buffer): the mean goodput change of the AQM cells vs TD is not positive.
   The count of cells raising it by 5 % or more and the largest rise are shown.
3. *Static RED may lower goodput at high rates with big files*: on the
   largest file at the highest rate, RED's goodput change is a loss of 5 % or
   more and the lowest of the schemes (every file row at that rate is shown).
   Table I has only the 250 kB files (the study's 2.5 MB figure is not
   transcribed), so its side is decided on 250 kB.
4. *ARED, PDPC and TTLRED best*: averaged over the rows, RED cuts the p95 least
   of the five AQMs (each of ARED, PDPC, TTLRED1, TTLRED2 cuts it more).
5. *TTLRED for incoming packets can give higher delays (no burst protection)*:
   on at least one row TTLRED1's p95 is 5 % or more above that of every other
   rate- or delay-aware AQM (ARED, PDPC, TTLRED2).
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Any, Optional

AQMS = ("RED", "ARED", "PDPC", "TTLRED1", "TTLRED2")
#: The schemes that know the rate or the delay (statement 5 compares TTLRED1 with the others).
AWARE = ("ARED", "PDPC", "TTLRED2")


@dataclass(frozen=True)
class Row:
    """One (case, scheme) cell of a table: values and changes vs TD in %."""

    case: str
    scheme: str
    p95: float
    goodput: float
    p95_change: float
    goodput_change: float

    @property
    def bearer(self) -> str:
        return self.case.split(", ")[0]


@dataclass(frozen=True)
class Verdict:
    """A statement evaluated on one table: whether it holds (None: the table has not what
    it needs, such as a run of one bearer) and the figures that decide it."""

    holds: Optional[bool]
    figures: str


@dataclass(frozen=True)
class Observation:
    statement: str
    study: Verdict
    ours: Verdict


def _mean(xs: list[float]) -> float:
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.fmean(xs) if xs else math.nan


def _by_bearer(rows: list[Row], bearer: str, field: str) -> float:
    return _mean([getattr(r, field) for r in rows if r.bearer == bearer and r.scheme in AQMS])


def low_rate_delay(rows: list[Row], bearers: list[str]) -> Verdict:
    bearers = [b for b in bearers if any(r.bearer == b for r in rows)]  # those in the table (--demo: one)
    if len(bearers) < 2:
        return Verdict(None, f"compares rates: needs two bearers or more, this table has {', '.join(bearers)}")
    low, high = bearers[0], bearers[-1]
    p95 = {b: _by_bearer(rows, b, "p95_change") for b in bearers}
    gp_low = _by_bearer(rows, low, "goodput_change")
    holds = p95[low] < -10.0 and p95[low] < p95[high] and abs(gp_low) < abs(p95[low])
    per = ", ".join(f"{b} {p95[b]:+.1f}%" for b in bearers)
    return Verdict(holds, f"mean AQM p95 change {per}; goodput at {low} {gp_low:+.1f}%")


def no_goodput_gain(rows: list[Row]) -> Verdict:
    changes = [r.goodput_change for r in rows if r.scheme in AQMS and not math.isnan(r.goodput_change)]
    mean = _mean(changes)
    raised = sum(c >= 5.0 for c in changes)
    top = max(rows, key=lambda r: r.goodput_change if r.scheme in AQMS else -math.inf)
    return Verdict(mean <= 0.0, f"mean AQM goodput change {mean:+.1f}%; {raised}/{len(changes)} cells +5% or more "
                                f"(largest {top.goodput_change:+.1f}%, {top.scheme} on {top.case})")


def file_bytes(case: str) -> float:
    """The file size a case label names ("HSDPA 3.6M, file 2.5 MB" -> 2.5e6)."""
    m = re.search(r"file ([0-9.]+) (kB|MB)", case)
    if m is None:
        raise ValueError(f"no file size in {case!r}")
    return float(m.group(1)) * {"kB": 1e3, "MB": 1e6}[m.group(2)]


def red_big_files(rows: list[Row], bearers: list[str]) -> Verdict:
    cases = sorted({r.case for r in rows if r.bearer == bearers[-1] and ", file" in r.case}, key=file_bytes)
    if not cases:
        return Verdict(None, "no file row at the highest rate")
    figures, holds = [], False
    for case in cases:
        row = {r.scheme: r for r in rows if r.case == case}
        red = row["RED"].goodput_change
        lowest = min(row.values(), key=lambda r: r.goodput_change)
        figures.append(f"{case}: RED {red:+.1f}% (lowest: {lowest.scheme} {lowest.goodput_change:+.1f}%)")
        holds = red <= -5.0 and lowest.scheme == "RED"  # the verdict is the largest file's
    return Verdict(holds, "goodput vs TD on " + "; ".join(figures))


def aware_schemes_best(rows: list[Row]) -> Verdict:
    p95 = {s: _mean([r.p95_change for r in rows if r.scheme == s]) for s in AQMS}
    gp = {s: _mean([r.goodput_change for r in rows if r.scheme == s]) for s in AQMS}
    holds = all(p95[s] < p95["RED"] for s in AQMS if s != "RED")
    return Verdict(holds, "mean p95 / goodput change: " + ", ".join(f"{s} {p95[s]:+.1f}% / {gp[s]:+.1f}%" for s in AQMS))


def ttlred1_higher_delay(rows: list[Row]) -> Verdict:
    cases = list(dict.fromkeys(r.case for r in rows))
    found = []
    for case in cases:
        row = {r.scheme: r for r in rows if r.case == case}
        if "TTLRED1" not in row or not all(s in row for s in AWARE):
            continue
        other = max(row[s].p95 for s in AWARE)
        if row["TTLRED1"].p95 >= 1.05 * other:
            found.append(f"{case} ({row['TTLRED1'].p95:,.0f} vs {other:,.0f} ms)")
    return Verdict(bool(found), "TTLRED1 p95 5% or more above ARED, PDPC and TTLRED2 on " +
                   (f"{len(found)}/{len(cases)} rows: " + "; ".join(found) if found else f"0/{len(cases)} rows"))


STATEMENTS = (
    "AQM's main benefit is lower delay at low rates",
    "with large enough buffers AQM does not raise goodput",
    "static RED may lower goodput at high rates with big files",
    "ARED, PDPC and TTLRED best",
    "TTLRED for incoming packets can give higher delays (no burst protection)",
)


def _evaluate(rows: list[Row], file_rows: list[Row], bearers: list[str]) -> list[Verdict]:
    return [low_rate_delay(rows, bearers), no_goodput_gain(rows), red_big_files(file_rows, bearers),
            aware_schemes_best(rows), ttlred1_higher_delay(rows)]


def observations(compared: list[dict[str, Any]], ours: list[dict[str, Any]], bearers: list[str]) -> list[Observation]:
    """The five statements on the published table and on ours.

    ``compared``: :func:`cellaqm.published.compare`'s rows; ``ours``: our whole
    table (it may hold cases the study's table lacks, like the 2.5 MB files,
    which statement 3 uses); ``bearers``: the bearer labels from the lowest
    rate to the highest.
    """
    study = [Row(r["case"], r["scheme"], r["p95_ms_published"], r["goodput_kbps_published"],
                 r["p95_ms_vs_td_published_pct"], r["goodput_kbps_vs_td_published_pct"]) for r in compared]
    table = [Row(r["case"], r["scheme"], r["p95_ms"], r["goodput_kbps"], r["p95_ms_vs_td_pct"],
                 r["goodput_kbps_vs_td_pct"]) for r in ours]
    cases = {r.case for r in study}
    mine = [r for r in table if r.case in cases]
    return [Observation(s, a, b) for s, a, b in zip(STATEMENTS, _evaluate(study, study, bearers),
                                                    _evaluate(mine, table, bearers))]


def _word(v: Verdict) -> str:
    return {True: "holds", False: "does not hold", None: "not judged"}[v.holds]


def lines(obs: list[Observation]) -> list[str]:
    """One line per statement and table: the verdict and its figures."""
    out = []
    for i, o in enumerate(obs, 1):
        out.append(f'{i}. "{o.statement}"')
        out.append(f"   study: {_word(o.study)}: {o.study.figures}")
        out.append(f"   ours:  {_word(o.ours)}: {o.ours.figures}")
    return out


def markdown(obs: list[Observation]) -> str:
    """The statements as a Markdown table: verdict and figures on the study's table and on ours."""
    rows = ["| the study's observation | study's Table I | ours |", "|---|---|---|"]
    for o in obs:
        rows.append(f"| {o.statement} | {_word(o.study)}: {o.study.figures} | {_word(o.ours)}: {o.ours.figures} |")
    return "\n".join(rows) + "\n"
