"""The LTE uplink study's 31 stated conclusions (Tan 2009, chapter 7), each with the rule it is
judged by and its judge over the tables of :mod:`cellaqm.lte_uplink` (docs/lte-uplink.md,
"The thesis' conclusions, judged": the same rules, written before any outcome was looked at).

How much rests on each (``strength``) is our reading of the thesis: *decisive* for its headline
claims about R-AQM, *strong* for the results its recommendations rest on, *supporting* for the
rest of its tables, *weak* for passing remarks. The study's own BSR table (extended) is the one
judged where an experiment runs several. A rule needing a level that ``--quick`` leaves out
gives ``not run``.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from cellaqm.findings import Finding, Results, Verdict, compare, not_run_when_missing, verdict

# --------------------------------------------------------------------------- reading the tables


class Missing(Exception):
    """A row the rule needs is not in this run's tables."""


def labels() -> Any:
    """The study module (its bandwidth and scheme labels), imported when a judge runs."""
    from cellaqm import lte_uplink

    return lte_uplink


def fx(bps: float) -> str:
    return labels().fixed(bps).label


def sq(low: float, high: float, period: float) -> str:
    return labels().square(low, high, period).label


def real(speed: float) -> str:
    return labels().realistic(speed).label


def sch(key: str) -> str:
    return labels().SCHEMES[key].label


def row(res: Results, exp: str, **match: Any) -> dict[str, Any]:
    """The one row of ``exp`` with ``match`` (the study's BSR table where the experiment has several)."""
    if exp in ("schemes-fixed", "bsr-period"):
        match.setdefault("BSR table", labels().BSR_TABLE)
    found = res.rows(exp, **match)
    if len(found) != 1:
        raise Missing(f"{exp}: no row {', '.join(f'{k} {v}' for k, v in match.items())}")
    return found[0]


def val(res: Results, exp: str, measure: str, **match: Any) -> float:
    return float(row(res, exp, **match)[measure])


def ci(res: Results, exp: str, measure: str, **match: Any) -> tuple[float, float]:
    """Mean and 95% half width (0 for a deterministic case) of ``measure`` in one row."""
    r = row(res, exp, **match)
    half = float(r[measure + "_ci"])
    return float(r[measure]), 0.0 if math.isnan(half) else half


judged = not_run_when_missing(Missing)


def decided(ok: bool, evidence: str) -> Verdict:
    """A rule with no inconclusive band: holds if ``ok``, else fails."""
    return verdict(ok, not ok, evidence)


def f2(x: float) -> str:
    return f"{x:.2f}"


def ms(x: float) -> str:
    return f"{x:,.0f} ms"


AGE, GAP, LOWER, PERIOD = "minAgeThreshold [s]", "minInterDropTime [s]", "lowerDropThreshold [kbit]", "BSR period [ms]"
AGES = (0.05, 0.08, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
GAPS = (0, 0.2, 0.4, 0.6, 0.7, 0.8, 1, 1.5, 2)
KBITS = (10, 15, 30, 45, 60, 80, 100)
PERIODS = (10, 20, 40, 80, 100)
RATES = (50e6, 30e6, 10e6, 3e6, 1e6, 640e3, 384e3, 128e3)
LOW_RATES = (640e3, 384e3, 128e3)
WAVES = ((3e6, 10e6, 2), (128e3, 2e6, 3), (512e3, 1.5e6, 15), (2e6, 20e6, 20))

# --------------------------------------------------------------------------- §7.1–7.2: the estimator and R-AQM's parameters


@judged
def c1(res: Results) -> Verdict:
    errs = [ci(res, "estimator", "error_abs_ms", **{"HARQ BLER": b}) for b in (0.0, 0.1, 0.3, 0.5)]
    signed = [ci(res, "estimator", "error_mean_ms", **{"HARQ BLER": b}) for b in (0.1, 0.3, 0.5)]
    means = [m for m, _ in errs]
    rising = all(b > a for a, b in zip(means, means[1:]))
    above = errs[3][0] - errs[3][1] > means[0]
    below = all(m + h < 0 for m, h in signed)
    text = (f"|error| {', '.join(f'{m:.0f}' for m in means)} ms at 0/10/30/50%; estimate − true "
            f"{', '.join(f'{m:+.0f} ± {h:.0f}' for m, h in signed)} ms at 10/30/50%")
    return verdict(rising and above and below,
                   errs[3][0] + errs[3][1] < means[0] or any(m - h > 0 for m, h in signed), text)


@judged
def c2(res: Results) -> Verdict:
    ok, parts = 0, []
    for bps in (128e3, 1e6, 5e6):
        thr = {a: val(res, "min-age", "throughput_mbps", bandwidth=fx(bps), **{AGE: a}) for a in AGES}
        delay = {a: val(res, "min-age", "delay_mean_ms", bandwidth=fx(bps), **{AGE: a}) for a in AGES}
        best = max(thr.values())
        good = (thr[0.05] < 0.95 * best and all(thr[a] >= 0.9 * best for a in AGES if a >= 0.15)
                and delay[0.4] > 1.2 * delay[0.15])
        ok += good
        parts.append(f"{fx(bps)}: {thr[0.05]:.3g}→{thr[0.15]:.3g}→{thr[0.4]:.3g} Mb/s, delay "
                     f"{delay[0.15]:.0f}→{delay[0.4]:.0f} ms {'✓' if good else '✗'}")
    return decided(ok >= 2, "; ".join(parts))


@judged
def c3(res: Results) -> Verdict:
    low = [val(res, "min-age", "rtos", bandwidth=fx(128e3), **{AGE: a}) for a in AGES]
    high = [val(res, "min-age", "rtos", bandwidth=fx(1e6), **{AGE: a}) for a in AGES]
    ok = min(low) >= 10 and sum(low) >= 3 * sum(high) and sum(low) >= sum(high) + 10
    return decided(ok, f"RTOs per minAge at 128 kb/s {', '.join(f'{x:.0f}' for x in low)}; "
                       f"at 1 Mb/s {', '.join(f'{x:.0f}' for x in high)}")


@judged
def c4(res: Results) -> Verdict:
    bw = sq(512e3, 5e6, 5)
    thr = {a: val(res, "min-age", "throughput_mbps", bandwidth=bw, **{AGE: a}) for a in AGES}
    rtos = {a: val(res, "min-age", "rtos", bandwidth=bw, **{AGE: a}) for a in AGES}
    best = max(thr.values())
    ok = (all(thr[a] < 0.2 * best and rtos[a] >= 50 for a in (0.05, 0.08))
          and all(rtos[a] <= 10 for a in (0.15, 0.2)))
    return decided(ok, ", ".join(f"{a:g} s: {thr[a]:.2f} Mb/s {rtos[a]:.0f} RTOs" for a in (0.05, 0.08, 0.15, 0.2))
                   + f" (best {best:.2f} Mb/s)")


@judged
def c5(res: Results) -> Verdict:
    parts, ok = [], True
    for bw in (sq(1e6, 20e6, 20), sq(512e3, 5e6, 5)):
        thr = {a: val(res, "min-age", "throughput_mbps", bandwidth=bw, **{AGE: a}) for a in AGES}
        good = thr[0.2] >= 0.9 * max(thr.values()) and thr[0.05] < thr[0.2]
        ok &= good
        parts.append(f"{bw}: {thr[0.05]:.2f} / {thr[0.2]:.2f} / best {max(thr.values()):.2f} Mb/s "
                     f"{'✓' if good else '✗'}")
    bw = real(0.83)
    thr = {a: val(res, "min-age", "throughput_mbps", bandwidth=bw, **{AGE: a}) for a in AGES}
    d = compare(res, "min-age", "throughput_mbps", {"bandwidth": bw, AGE: 0.2}, {"bandwidth": bw, AGE: 0.05})
    near = thr[0.2] >= 0.9 * max(thr.values())
    parts.append(f"realistic: 0.2 s vs 0.05 s {d.text(' Mb/s')}, 0.2 s {thr[0.2]:.2f} of best "
                 f"{max(thr.values()):.2f} Mb/s")
    text = "; ".join(parts)
    return verdict(d.sign > 0 and near, not ok or d.sign < 0, text)


@judged
def c6(res: Results) -> Verdict:
    ok, parts = 0, []
    for bps in (30e6, 5e6, 1e6):
        thr = {g: val(res, "min-inter-drop", "throughput_mbps", bandwidth=fx(bps), **{GAP: g}) for g in GAPS}
        rtos = {g: val(res, "min-inter-drop", "rtos", bandwidth=fx(bps), **{GAP: g}) for g in GAPS}
        good = (rtos[0] >= 10 and rtos[0] > rtos[0.6] and thr[0] < 0.8 * thr[0.6]
                and thr[0.6] >= 0.95 * max(thr.values()))
        ok += good
        parts.append(f"{fx(bps)}: gap 0 {thr[0]:.3g} Mb/s {rtos[0]:.0f} RTOs, 0.6 s {thr[0.6]:.3g} Mb/s "
                     f"{rtos[0.6]:.0f} RTOs {'✓' if good else '✗'}")
    return decided(ok >= 2, "; ".join(parts))


@judged
def c7(res: Results) -> Verdict:
    ok, parts = True, []
    for bps in (30e6, 5e6, 1e6):
        d = [val(res, "min-inter-drop", "delay_mean_ms", bandwidth=fx(bps), **{GAP: g}) for g in GAPS]
        good = max(d) - min(d) <= 0.5 * statistics.median(d)
        ok &= good
        parts.append(f"{fx(bps)}: {min(d):.0f}–{max(d):.0f} ms {'✓' if good else '✗'}")
    return decided(ok, "; ".join(parts))


@judged
def c8(res: Results) -> Verdict:
    bw = fx(36e3)
    rtos = {k: val(res, "lower-drop", "rtos", bandwidth=bw, **{LOWER: k}) for k in KBITS}
    scaled = {k: val(res, "lower-drop", "scaled", bandwidth=bw, **{LOWER: k}) for k in KBITS}
    small = sum(rtos[k] >= 10 and scaled[k] < 0.8 for k in (10, 15, 30))
    ok = small >= 2 and all(rtos[k] <= 5 for k in (45, 60, 80, 100))
    return decided(ok, "36 kb/s: " + ", ".join(f"{k} kbit {rtos[k]:.0f} RTOs {scaled[k]:.2f}" for k in KBITS))


@judged
def c9(res: Results) -> Verdict:
    ok, parts = True, []
    for bps in (128e3, 512e3):
        rtos = {k: val(res, "lower-drop", "rtos", bandwidth=fx(bps), **{LOWER: k}) for k in KBITS}
        good = rtos[10] + rtos[15] >= 2 and all(rtos[k] <= 1 for k in (60, 80, 100))
        ok &= good
        parts.append(f"{fx(bps)}: RTOs {', '.join(f'{rtos[k]:.0f}' for k in KBITS)} {'✓' if good else '✗'}")
    return decided(ok, "; ".join(parts) + " (10…100 kbit)")


@judged
def c10(res: Results) -> Verdict:
    ok, parts = True, []
    for bps in (36e3, 128e3, 512e3):
        d = [val(res, "lower-drop", "delay_mean_ms", bandwidth=fx(bps), **{LOWER: k}) for k in KBITS]
        good = d[-1] > d[0] and sum(b > a for a, b in zip(d, d[1:])) >= 4
        ok &= good
        parts.append(f"{fx(bps)}: {d[0]:.0f}→{d[-1]:.0f} ms {'✓' if good else '✗'}")
    at36 = [val(res, "lower-drop", "delay_mean_ms", bandwidth=fx(36e3), **{LOWER: k}) for k in (60, 80)]
    ok &= min(at36) > 1000
    parts.append(f"36 kb/s at 60/80 kbit: {at36[0]:.0f} / {at36[1]:.0f} ms")
    return decided(ok, "; ".join(parts))


# --------------------------------------------------------------------------- §7.3.1: schemes at fixed rates


@judged
def c11(res: Results) -> Verdict:
    cases = [val(res, "schemes-fixed", "scaled", bandwidth=fx(b), scheme=sch(s))
             for b in RATES for s in ("raqm", "taqm", "pdcp")]
    n = sum(x > 0.95 for x in cases)
    return decided(n >= 13, f"{n} of 24 cases above 0.95 (lowest {min(cases):.2f})")


@judged
def c12(res: Results) -> Verdict:
    dff = [val(res, "schemes-fixed", "rtos", bandwidth=fx(b), scheme=sch("dff")) for b in LOW_RATES]
    raqm = [val(res, "schemes-fixed", "rtos", bandwidth=fx(b), scheme=sch("raqm")) for b in LOW_RATES]
    lower = sum(val(res, "schemes-fixed", "scaled", bandwidth=fx(b), scheme=sch("dff"))
                < val(res, "schemes-fixed", "scaled", bandwidth=fx(b), scheme=sch("raqm")) for b in LOW_RATES)
    ok = min(dff) >= 1 and sum(dff) > sum(raqm) and lower >= 2
    return decided(ok, f"RTOs at 640/384/128 kb/s: DFF {'/'.join(f'{x:.0f}' for x in dff)}, R-AQM "
                       f"{'/'.join(f'{x:.0f}' for x in raqm)}; DFF's scaled below R-AQM's at {lower} of 3")


@judged
def c13(res: Results) -> Verdict:
    dff = [val(res, "schemes-fixed", "delay_max_ms", bandwidth=fx(b), scheme=sch("dff")) for b in LOW_RATES]
    aqm = [val(res, "schemes-fixed", "delay_mean_ms", bandwidth=fx(b), scheme=sch(s))
           for b in LOW_RATES for s in ("raqm", "taqm", "pdcp")]
    ok = sum(x >= 10_000 for x in dff) >= 2 and max(aqm) < 1000
    return decided(ok, f"DFF max delay {', '.join(f'{x / 1e3:.1f}' for x in dff)} s at 640/384/128 kb/s; "
                       f"the delay-based schemes' mean at most {max(aqm):.0f} ms")


@judged
def c14(res: Results) -> Verdict:
    n = sum(val(res, "schemes-fixed", "delay_max_ms", bandwidth=fx(b), scheme=sch("pdcp"))
            < min(val(res, "schemes-fixed", "delay_max_ms", bandwidth=fx(b), scheme=sch(s)) for s in ("raqm", "taqm"))
            for b in RATES)
    return decided(n >= 5, f"PDCP's max delay below R-AQM's and T-AQM's at {n} of 8 rates")


@judged
def c15(res: Results) -> Verdict:
    n = sum(val(res, "schemes-fixed", "delay_mean_ms", bandwidth=fx(b), scheme=sch("raqm"))
            > val(res, "schemes-fixed", "delay_mean_ms", bandwidth=fx(b), scheme=sch("taqm")) for b in RATES)
    return decided(n >= 5, f"R-AQM's mean delay above T-AQM's at {n} of 8 rates")


@judged
def c16(res: Results) -> Verdict:
    better = worse = 0
    parts = []
    for b in LOW_RATES:
        s_thr, h_thr = ci(res, "schemes-small", "scaled", bandwidth=fx(b), scheme=sch("dff"))
        s_del, h_del = ci(res, "schemes-small", "delay_mean_ms", bandwidth=fx(b), scheme=sch("dff"))
        one_thr = val(res, "schemes-fixed", "scaled", bandwidth=fx(b), scheme=sch("dff"))
        one_del = val(res, "schemes-fixed", "delay_mean_ms", bandwidth=fx(b), scheme=sch("dff"))
        better += s_thr - h_thr > one_thr and s_del + h_del < one_del
        worse += s_thr + h_thr < one_thr or s_del - h_del > one_del
        parts.append(f"{fx(b)}: scaled {s_thr:.2f} ± {h_thr:.2f} vs {one_thr:.2f}, delay {s_del:.0f} vs {one_del:.0f} ms")
    text = "; ".join(parts)
    return verdict(better >= 2, worse >= 2, text)


@judged
def c17(res: Results) -> Verdict:
    (m10, h10), (m3, h3) = (ci(res, "schemes-small", "scaled", bandwidth=fx(b), scheme=sch("pdcp")) for b in (10e6, 3e6))
    text = f"PDCP scaled with small files: {m10:.2f} ± {h10:.2f} at 10 Mb/s, {m3:.2f} ± {h3:.2f} at 3 Mb/s"
    return verdict(m10 + h10 < 0.95 and m3 + h3 < 0.95 and 0.55 <= m3 <= 0.85,
                   m10 - h10 > 0.95 or m3 - h3 > 0.95 or m3 + h3 < 0.55 or m3 - h3 > 0.85, text)


@judged
def c18(res: Results) -> Verdict:
    cases = [(val(res, exp, "scaled", bandwidth=fx(b), scheme=sch(s)), val(res, exp, "delay_mean_ms", bandwidth=fx(b), scheme=sch(s)))
             for exp in ("schemes-fixed", "schemes-small") for b in RATES for s in ("raqm", "taqm")]
    n = sum(x >= 0.9 and d < 500 for x, d in cases)
    return decided(n > 16, f"{n} of 32 cases at ≥ 0.9 of the reference with a mean delay < 0.5 s")


# --------------------------------------------------------------------------- §7.3.1–7.3.2: down-switch and square waves


@judged
def c19(res: Results) -> Verdict:
    t, r, c = (val(res, "down-switch", "drain_s", scheme=sch(s)) for s in ("taqm", "raqm", "combined"))
    ok = t <= 2 and 2.5 <= r <= 10 and c <= 2
    return decided(ok, f"drain time T-AQM {t:.1f} s, R-AQM {r:.1f} s, combined {c:.1f} s")


@judged
def c20(res: Results) -> Verdict:
    best = slow = 0
    parts = []
    for w in WAVES:
        bw = sq(*w)
        thr = {s: val(res, "square-waves", "throughput_mbps", bandwidth=bw, scheme=sch(s))
               for s in ("raqm", "taqm", "pdcp", "dff", "combined")}
        delay = {s: val(res, "square-waves", "delay_mean_ms", bandwidth=bw, scheme=sch(s)) for s in ("raqm", "taqm", "pdcp", "dff")}
        top = thr["dff"] >= 0.99 * max(v for s, v in thr.items() if s != "dff")
        long = delay["dff"] >= 3 * max(delay[s] for s in ("raqm", "taqm", "pdcp"))
        best += top
        slow += long
        parts.append(f"{bw}: DFF {thr['dff']:.2f} Mb/s {delay['dff']:.0f} ms vs best other "
                     f"{max(v for s, v in thr.items() if s != 'dff'):.2f} Mb/s, "
                     f"{max(delay[s] for s in ('raqm', 'taqm', 'pdcp')):.0f} ms")
    return decided(best >= 3 and slow >= 3, "; ".join(parts))


@judged
def c21(res: Results) -> Verdict:
    bw = sq(128e3, 2e6, 3)
    r, t = (val(res, "square-waves", "delay_max_ms", bandwidth=bw, scheme=sch(s)) for s in ("raqm", "taqm"))
    return decided(r >= 1000 and r > t, f"{bw}: max delay R-AQM {r:.0f} ms, T-AQM {t:.0f} ms")


@judged
def c22(res: Results) -> Verdict:
    bw = sq(2e6, 20e6, 20)
    r, p, t = (val(res, "square-waves", "throughput_mbps", bandwidth=bw, scheme=sch(s)) for s in ("raqm", "pdcp", "taqm"))
    return decided(r < 0.99 * t and p < 0.99 * t, f"{bw}: R-AQM {r:.2f}, PDCP {p:.2f}, T-AQM {t:.2f} Mb/s")


# --------------------------------------------------------------------------- §7.3.3: the realistic network


def realistic_diff(res: Results, measure: str, a: str, b: str, speed: float) -> Any:
    bw = real(speed)
    return compare(res, "realistic", measure, {"bandwidth": bw, "scheme": sch(a)}, {"bandwidth": bw, "scheme": sch(b)})


def ranked(res: Results, measure: str, speed: float) -> list[tuple[float, str]]:
    """The four schemes by their mean ``measure`` at ``speed``, highest first."""
    return sorted(((val(res, "realistic", measure, bandwidth=real(speed), scheme=sch(s)), s)
                   for s in ("raqm", "taqm", "pdcp", "dff")), reverse=True)


@judged
def c23(res: Results) -> Verdict:
    signs, parts = [], []
    for s in ("raqm", "taqm", "pdcp", "dff"):
        d = compare(res, "realistic", "throughput_mbps", {"bandwidth": real(0.83), "scheme": sch(s)},
                    {"bandwidth": real(30), "scheme": sch(s)})
        signs.append(d.sign)
        parts.append(f"{sch(s)} {d.mean:+.2f} ± {d.half:.2f}")
    text = "0.83 − 30 m/s throughput [Mb/s]: " + ", ".join(parts)
    return verdict(signs.count(1) >= 3 and -1 not in signs, signs.count(-1) >= 2, text)


@judged
def c24(res: Results) -> Verdict:
    good, bad, parts = True, False, []
    for v in (0.83, 30):
        thr = realistic_diff(res, "throughput_mbps", "raqm", "taqm", v)
        delay = realistic_diff(res, "delay_mean_ms", "raqm", "taqm", v)
        lo, hi = (thr.mean - thr.half) / thr.base, (thr.mean + thr.half) / thr.base
        d_lo, d_hi = (delay.mean - delay.half) / delay.base, (delay.mean + delay.half) / delay.base
        good &= lo >= -0.1 and hi <= 0.1 and d_hi <= 0.25
        bad |= lo > 0.1 or hi < -0.1 or d_lo > 0.25
        parts.append(f"{v:g} m/s: R-AQM vs T-AQM throughput {thr.text(relative=True)}, delay {delay.text(relative=True)}")
    text = "; ".join(parts)
    return verdict(good, bad, text)


@judged
def c25(res: Results) -> Verdict:
    good, bad, parts = True, False, []
    for v in (0.83, 30):
        for m, what in (("throughput_mbps", "throughput"), ("delay_mean_ms", "delay")):
            order = [s for _, s in ranked(res, m, v)]
            other = order[1] if order[0] == "dff" else order[0]
            d = realistic_diff(res, m, "dff", other, v)  # DFF − the runner-up, or − the scheme above it
            good &= d.sign > 0
            bad |= d.sign < 0
            parts.append(f"{v:g} m/s {what}: DFF − {sch(other)} {d.text()}")
    text = "; ".join(parts)
    return verdict(good, bad, text)


@judged
def c26(res: Results) -> Verdict:
    good, bad, parts = True, False, []
    for v in (0.83, 30):
        order = [s for _, s in ranked(res, "throughput_mbps", v)]
        other = order[-2] if order[-1] == "pdcp" else order[-1]
        d = realistic_diff(res, "throughput_mbps", "pdcp", other, v)  # PDCP − the next lowest, or − the lowest
        rtos = {s: val(res, "realistic", "rtos", bandwidth=real(v), scheme=sch(s)) for s in ("raqm", "taqm", "pdcp", "dff")}
        most = rtos["pdcp"] >= max(rtos.values())
        good &= d.sign < 0 and most
        bad |= d.sign > 0 or not most
        parts.append(f"{v:g} m/s: PDCP − {sch(other)} {d.text(' Mb/s')}; RTOs "
                     + ", ".join(f"{sch(s)} {x:.1f}" for s, x in rtos.items()))
    text = "; ".join(parts)
    return verdict(good, bad, text)


# --------------------------------------------------------------------------- §7.3.4–7.3.6


@judged
def c27(res: Results) -> Verdict:
    good, bad, parts = True, False, []
    for b in (20e6, 3e6):
        dff, half = ci(res, "fairness", "throughput_mbps", bandwidth=fx(b), scheme=sch("dff"))
        aqm = min(val(res, "fairness", "throughput_mbps", bandwidth=fx(b), scheme=sch(s)) for s in ("raqm", "taqm", "pdcp"))
        good &= dff + half < 0.25 * aqm
        bad |= dff > 0.5 * aqm
        parts.append(f"{fx(b)}: DFF {dff:.3f} ± {half:.3f} vs the lowest AQM {aqm:.3f} Mb/s")
    text = "; ".join(parts)
    return verdict(good, bad, text)


@judged
def c28(res: Results) -> Verdict:
    bw = fx(20e6)
    order = sorted(((val(res, "fairness", "throughput_mbps", bandwidth=bw, scheme=sch(s)), s)
                    for s in ("raqm", "taqm", "pdcp", "dff")), reverse=True)
    top, runner = order[0][1], order[1][1]
    a, b = ("pdcp", runner) if top == "pdcp" else (top, "pdcp")
    d = compare(res, "fairness", "throughput_mbps", {"bandwidth": bw, "scheme": sch(a)}, {"bandwidth": bw, "scheme": sch(b)})
    text = f"highest {sch(top)}; {sch(a)} − {sch(b)} {d.text(' Mb/s')}"
    return verdict(top == "pdcp" and d.sign > 0, top != "pdcp" and d.sign > 0, text)


@judged
def c29(res: Results) -> Verdict:
    bw = fx(20e6)
    loss = {s: 1 - val(res, "bsr-period", "throughput_mbps", bandwidth=bw, scheme=sch(s), **{PERIOD: 100})
            / val(res, "bsr-period", "throughput_mbps", bandwidth=bw, scheme=sch(s), **{PERIOD: 10})
            for s in ("raqm", "taqm", "pdcp", "dff")}
    ok = (all(0.10 <= loss[s] <= 0.35 for s in ("taqm", "pdcp")) and loss["raqm"] < 0.10 and loss["dff"] < 0.03)
    return decided(ok, "20 Mb/s, 100 vs 10 ms: " + ", ".join(f"{sch(s)} {-loss[s] * 100:+.0f}%" for s in loss))


@judged
def c30(res: Results) -> Verdict:
    ok, parts = True, []
    for b in (20e6, 3e6):
        d = [val(res, "bsr-period", "delay_mean_ms", bandwidth=fx(b), scheme=sch("raqm"), **{PERIOD: p}) for p in PERIODS]
        good = d[-1] >= 1.2 * d[0] and sum(y > x for x, y in zip(d, d[1:])) >= 3
        ok &= good
        parts.append(f"{fx(b)}: {', '.join(f'{x:.0f}' for x in d)} ms {'✓' if good else '✗'}")
    return decided(ok, "R-AQM mean delay at 10…100 ms: " + "; ".join(parts))


@judged
def c31(res: Results) -> Verdict:
    ok, parts = True, []
    for b in (30e6, 3e6, 384e3):
        both = val(res, "taqm-raqm", "throughput_mbps", bandwidth=fx(b), scheme=sch("both"))
        alone = [val(res, "taqm-raqm", "throughput_mbps", bandwidth=fx(b), scheme=sch(s)) for s in ("taqm", "raqm")]
        ok &= all(abs(both / x - 1) <= 0.1 for x in alone)
        parts.append(f"{fx(b)}: both {both:.3g} vs T-AQM {alone[0]:.3g}, R-AQM {alone[1]:.3g} Mb/s")
    return decided(ok, "; ".join(parts))


# --------------------------------------------------------------------------- the findings

F = Finding
FINDINGS: list[Finding] = [
    F("C1", "strong", "§7.1: the estimate's error grows with the HARQ error rate and mostly lies below the true delay",
      "holds if mean |estimate − true| rises from each HARQ BLER to the next (0, 10, 30, 50%), at 50% its 95% interval "
      "lies above the 0% value, and the mean signed error has its interval below 0 at every BLER > 0; fails if the 50% "
      "|error| interval lies below the 0% value or the signed error is decided positive at a BLER > 0; else inconclusive",
      ("estimator",), c1),
    F("C2", "strong", "§7.2.1: at fixed rates throughput rises with minAgeThreshold, levels off from ~0.15 s, delay keeps "
      "growing",
      "at each of 128 kb/s, 1 and 5 Mb/s: throughput at 0.05 s < 0.95 × the best over minAge, every minAge ≥ 0.15 s ≥ "
      "0.9 × the best, mean delay at 0.4 s > 1.2 × at 0.15 s; holds if all three at ≥ 2 of the 3 rates, else fails",
      ("min-age",), c2),
    F("C3", "supporting", "Table 7.1: at 128 kb/s drops cause RTOs at every minAgeThreshold (tens), far more than at 1 Mb/s",
      "holds if at 128 kb/s RTOs ≥ 10 at every minAge and their sum over minAge ≥ 3 × (and ≥ 10 more than) the sum at "
      "1 Mb/s; else fails", ("min-age",), c3),
    F("C4", "supporting", "Table 7.2: on 512 kb/s ↔ 5 Mb/s (5 s) minAge 0.05–0.08 s collapses throughput with hundreds "
      "of RTOs; 0.15–0.2 s has few RTOs",
      "holds if at 0.05 and 0.08 s throughput < 0.2 × the best minAge's and RTOs ≥ 50, and at 0.15 and 0.2 s RTOs ≤ 10 "
      "(one per file); else fails", ("min-age",), c4),
    F("C5", "strong", "Figs. 7.6/7.8: with varying and realistic bandwidth throughput rises with minAge, ~0.2 s near the best",
      "on 1 ↔ 20 Mb/s (20 s), 512 kb/s ↔ 5 Mb/s (5 s) and realistic 0.83 m/s: throughput at 0.2 s ≥ 0.9 × the best "
      "minAge's (means) and above that at 0.05 s (realistic: the paired difference decided); holds if all; fails if a "
      "square wave fails or the realistic difference is decided negative; else inconclusive", ("min-age",), c5),
    F("C6", "strong", "Table 7.3: minInterDropTime 0 gives many RTOs and a severe throughput loss; recovered by ~0.6 s",
      "at each of 30, 5, 1 Mb/s: RTOs at 0 ≥ 10 and above those at 0.6 s, throughput at 0 < 0.8 × at 0.6 s, throughput at "
      "0.6 s ≥ 0.95 × the best minInterDropTime's; holds if at ≥ 2 of the 3 rates, else fails",
      ("min-inter-drop",), c6),
    F("C7", "supporting", "Fig. 7.10: the TCP delay is about the same whatever the minInterDropTime",
      "at each of 30, 5, 1 Mb/s the mean delays over minInterDropTime span (max − min) at most half their median; "
      "holds if at all three, else fails", ("min-inter-drop",), c7),
    F("C8", "strong", "Table 7.4: at 36 kb/s a lowerDropThreshold ≤ 30 kbit means many RTOs and lost throughput; 45+ kbit few",
      "at 36 kb/s: at ≥ 2 of 10, 15, 30 kbit RTOs ≥ 10 and scaled throughput < 0.8, and at every one of 45, 60, 80, "
      "100 kbit RTOs ≤ 5 (one per file); holds if both, else fails", ("lower-drop",), c8),
    F("C9", "supporting", "Table 7.4: at 128 and 512 kb/s the RTOs of 10–15 kbit vanish by 60 kbit",
      "at each of 128 and 512 kb/s: RTOs at 10 and 15 kbit together ≥ 2, at each of 60, 80, 100 kbit ≤ 1; holds if at "
      "both, else fails", ("lower-drop",), c9),
    F("C10", "supporting", "§7.2.3: the mean delay grows with lowerDropThreshold; at 36 kb/s and 60–80 kbit it is above 1 s",
      "at each of 36, 128, 512 kb/s the mean delay at 100 kbit exceeds that at 10 kbit and rises on ≥ 4 of the 6 steps; "
      "at 36 kb/s it is > 1 s at 60 and 80 kbit; holds if all, else fails", ("lower-drop",), c10),
    F("C11", "decisive", "§7.3.1: one large file, R-AQM, T-AQM and PDCP discard keep > 95% of the optimal throughput in "
      "most cases",
      "holds if the scaled throughput (÷ the unlimited buffer's) is > 0.95 in ≥ 13 of the 24 cases (three schemes × "
      "eight rates), else fails", ("schemes-fixed",), c11),
    F("C12", "strong", "§7.3.1: DFF loses throughput at low rates through buffer-overflow RTOs (2/3/5 vs R-AQM 0/1/1)",
      "holds if DFF has ≥ 1 RTO at each of 640, 384, 128 kb/s, more than R-AQM over the three, and a lower scaled "
      "throughput than R-AQM at ≥ 2 of them; else fails", ("schemes-fixed",), c12),
    F("C13", "strong", "§7.3.1: DFF's delays at low rates reach tens of seconds; the delay-based schemes stay sub-second",
      "holds if DFF's max delay ≥ 10 s at ≥ 2 of 640, 384, 128 kb/s and the mean delay of R-AQM, T-AQM and PDCP is "
      "< 1 s at all three; else fails", ("schemes-fixed",), c13),
    F("C14", "weak", "§7.3.1: PDCP discard has a somewhat smaller (max) delay than R-AQM and T-AQM",
      "holds if PDCP's max delay is below both R-AQM's and T-AQM's at ≥ 5 of the 8 rates, else fails",
      ("schemes-fixed",), c14),
    F("C15", "weak", "§7.3.1: R-AQM usually has a little larger delay than T-AQM (BSRs are discrete)",
      "holds if R-AQM's mean delay is above T-AQM's at ≥ 5 of the 8 rates, else fails", ("schemes-fixed",), c15),
    F("C16", "supporting", "§7.3.1: with small files DFF does better than with one large file at low rates",
      "at each of 640, 384, 128 kb/s: DFF's scaled throughput with small files above and its mean delay below the "
      "one-file values, each decided (the small files' 95% interval excludes the one-file value); holds if both at ≥ 2 "
      "rates; fails if at ≥ 2 rates either is decided the other way; else inconclusive",
      ("schemes-fixed", "schemes-small"), c16),
    F("C17", "supporting", "Fig. 7.13: PDCP discard loses throughput with small files at 10 and 3 Mb/s (~70% at 3 Mb/s)",
      "holds if PDCP's scaled throughput with small files has its interval below 0.95 at 10 and 3 Mb/s and its mean at "
      "3 Mb/s in [0.55, 0.85]; fails if at either rate the interval lies above 0.95 or at 3 Mb/s it lies outside "
      "[0.55, 0.85]; else inconclusive", ("schemes-small",), c17),
    F("C18", "decisive", "§7.3.1: T-AQM and R-AQM keep up to 98% of the optimal throughput with delays < 0.5 s in most "
      "fixed-rate cases",
      "over R-AQM and T-AQM × 8 rates × (one file, small files) = 32 cases: holds if scaled ≥ 0.9 and mean delay < 0.5 s "
      "in more than 16, else fails", ("schemes-fixed", "schemes-small"), c18),
    F("C19", "strong", "Figs. 7.15–7.17: after a down-switch T-AQM drains the buffer in ~1 s, R-AQM in ~5 s; combined AQM "
      "like T-AQM",
      "drain time = from the switch (20 s) until the UE buffer first holds ≤ 12.5 kB (0.2 s at 500 kb/s): holds if "
      "T-AQM ≤ 2 s, R-AQM in [2.5, 10] s and combined ≤ 2 s; else fails", ("down-switch",), c19),
    F("C20", "strong", "§7.3.2: on square waves DFF has the best throughput but a much larger delay",
      "holds if on ≥ 3 of the 4 waves DFF's throughput ≥ 0.99 × the best other scheme's (combined included) and on ≥ 3 "
      "its mean delay ≥ 3 × the largest of R-AQM, T-AQM and PDCP; else fails", ("square-waves",), c20),
    F("C21", "supporting", "Fig. 7.20: R-AQM's max delay is large when the rate swings (~2 s on 128 kb/s ↔ 2 Mb/s)",
      "holds if on 128 kb/s ↔ 2 Mb/s (3 s) R-AQM's max delay is ≥ 1 s and above T-AQM's; else fails",
      ("square-waves",), c21),
    F("C22", "supporting", "§7.3.2: on 2 ↔ 20 Mb/s (20 s) R-AQM and PDCP discard end below T-AQM in throughput",
      "holds if on 2 ↔ 20 Mb/s both R-AQM's and PDCP's throughput are < 0.99 × T-AQM's; else fails",
      ("square-waves",), c22),
    F("C23", "weak", "§7.3.3: the slow UE (0.83 m/s) gets a higher bit rate than the fast one (30 m/s)",
      "per scheme, the throughput difference 0.83 − 30 m/s paired by seed: holds if decided positive for ≥ 3 of the 4 "
      "schemes and negative for none; fails if decided negative for ≥ 2; else inconclusive", ("realistic",), c23),
    F("C24", "decisive", "§7.3.3: in the realistic network R-AQM is as good as T-AQM in throughput and delay",
      "at each speed, R-AQM vs T-AQM paired by seed: the relative throughput difference's interval within ±10% and the "
      "relative mean-delay difference's interval below +25%; holds if at both speeds; fails if at a speed the "
      "throughput interval lies wholly outside ±10% or the delay interval wholly above +25%; else inconclusive",
      ("realistic",), c24),
    F("C25", "supporting", "§7.3.3: in the realistic network DFF has the best throughput and the largest delay",
      "at each speed DFF's mean throughput and mean delay are the highest of the four, each decided (paired) against "
      "the runner-up: holds if at both speeds; fails if at a speed another scheme is decided above DFF in either; "
      "else inconclusive", ("realistic",), c25),
    F("C26", "supporting", "Table 7.7: PDCP discard has the lowest throughput in the realistic network, with more RTOs",
      "at each speed PDCP's mean throughput is the lowest, decided (paired) against the next lowest, and its mean RTO "
      "count the highest: holds if at both speeds; fails if another scheme is decided below PDCP in throughput or "
      "PDCP's RTOs are not the most; else inconclusive", ("realistic",), c26),
    F("C27", "strong", "§7.3.4/Fig. 7.24: DFF locks the new small flows out at 20 and 3 Mb/s",
      "holds if at both rates DFF's small-file throughput (mean + half width) is below a quarter of the lowest AQM's "
      "mean; fails if at either rate DFF's mean exceeds half of it; else inconclusive", ("fairness",), c27),
    F("C28", "supporting", "§7.3.4: at 20 Mb/s PDCP discard gives the new flows the best share",
      "holds if at 20 Mb/s PDCP's small-file throughput is the highest, decided (paired) against the runner-up; fails if "
      "another scheme is decided above it; else inconclusive", ("fairness",), c28),
    F("C29", "strong", "§7.3.5: a longer BSR period costs T-AQM and PDCP ~20% at 20 Mb/s, R-AQM < 10%, DFF nothing",
      "at 20 Mb/s, throughput at a 100 ms vs a 10 ms BSR period: holds if T-AQM and PDCP lose 10–35%, R-AQM < 10% and "
      "DFF < 3%; else fails", ("bsr-period",), c29),
    F("C30", "strong", "Tables 7.8–7.9: R-AQM pays for its robustness with a delay that grows with the BSR period",
      "at each of 20 and 3 Mb/s R-AQM's mean delay at 100 ms is ≥ 1.2 × that at 10 ms and rises on ≥ 3 of the 4 steps; "
      "holds if at both, else fails", ("bsr-period",), c30),
    F("C31", "strong", "§7.3.6/Table 7.10: T-AQM at the UE plus R-AQM at the eNodeB performs about as either alone",
      "holds if at 30 Mb/s, 3 Mb/s and 384 kb/s the throughput of both is within ±10% of T-AQM's and of R-AQM's (6 "
      "comparisons); else fails", ("taqm-raqm",), c31),
]
