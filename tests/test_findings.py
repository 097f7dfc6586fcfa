"""The findings machinery: paired and unpaired differences, verdicts, the report table and the stall warning."""

import math

import pytest

from cellaqm import findings
from cellaqm.findings import Finding, Results, compare, holds
from cellaqm.study import Run, stall_warning, stalled_cases


def runs(level: str, values: list[float], seeds: list[int] | None = None) -> list[Run]:
    return [Run({"x": level}, {}, seed, out={"m": v}) for v, seed in zip(values, seeds or range(1, len(values) + 1))]


def results(*groups: list[Run]) -> Results:
    res = Results()
    all_runs = [r for g in groups for r in g]
    res.add("e", [{"x": lvl} for lvl in dict.fromkeys(r.labels["x"] for r in all_runs)], all_runs)
    return res


def test_paired_difference_by_seed_removes_the_seed_variance():
    # b varies a lot between seeds; a is b + 1 on every seed: paired, the difference is exactly 1.
    b = [10.0, 50.0, 90.0, 30.0]
    res = results(runs("a", [v + 1 for v in b]), runs("b", b))
    d = compare(res, "e", "m", {"x": "a"}, {"x": "b"})
    assert d.paired and d.n == 4
    assert d.mean == pytest.approx(1.0) and d.half == pytest.approx(0.0)
    assert d.sign == 1
    assert d.relative == pytest.approx(1.0 / 45.0)


def test_paired_difference_drops_pairs_without_a_value():
    res = results(runs("a", [2.0, math.nan, 4.0]), runs("b", [1.0, 1.0, 2.0]))
    d = compare(res, "e", "m", {"x": "a"}, {"x": "b"})
    assert d.n == 2 and d.mean == pytest.approx(1.5)


def test_unpaired_difference_is_welchs_interval():
    # Different seeds: Welch. a = {1, 3}, b = {10, 14}: difference -10, se = sqrt(2/2 + 8/2) = sqrt(5).
    res = results(runs("a", [1.0, 3.0], [1, 2]), runs("b", [10.0, 14.0], [3, 4]))
    d = compare(res, "e", "m", {"x": "a"}, {"x": "b"})
    assert not d.paired
    assert d.mean == pytest.approx(-10.0)
    # Welch-Satterthwaite dof = 25 / (1 + 16) ; t_0.975 at that dof times sqrt(5).
    from scipy.special import stdtrit

    assert d.half == pytest.approx(float(stdtrit(25 / 17, 0.975)) * math.sqrt(5))
    assert d.sign == 0, "the interval straddles zero with so few runs"


def test_a_finding_whose_experiment_did_not_run_is_not_run_and_one_without_judge_not_expressible():
    res = results(runs("a", [1.0]))
    f = Finding("X1", "strong", "s", "rule", ("other",), lambda r: holds("never"))
    assert f.verdict(res).verdict == findings.NOT_RUN
    g = Finding("X2", "weak", "s", "our model has no such thing", ())
    assert g.verdict(res) == findings.not_expressible("our model has no such thing")
    with pytest.raises(ValueError):
        Finding("X3", "crucial", "s", "r", ())


def test_counts_and_markdown_list_every_finding_with_its_verdict():
    res = results(runs("a", [1.0]))
    fs = [Finding("A", "decisive", "first", "r1", ("e",), lambda r: holds("1 vs 0")),
          Finding("B", "decisive", "second | piped", "r2", ("e",), lambda r: findings.fails("0 vs 1")),
          Finding("C", "weak", "third", "cannot", ())]
    judged = findings.judge_all(fs, res)
    assert findings.counts(judged) == "1 of 3 hold (1 of 2 decisive), 1 fails, 1 not expressible"
    md = findings.markdown(judged)
    assert "| A | decisive | first | r1 | 1 vs 0 | **holds** |" in md
    assert "second \\| piped" in md


def test_the_stall_warning_names_each_case():
    rs = [Run({"maxDAT": 6, "RAN RTT": "60 ms"}, {}, 6, out={"stalled_flows": 1.0}),
          Run({"maxDAT": 6, "RAN RTT": "60 ms"}, {}, 7, out={"stalled_flows": 0.0})]
    cases = stalled_cases("max-dat", rs)
    assert cases == ["max-dat (maxDAT 6, RAN RTT 60 ms, seed 6): 1"]
    assert stall_warning(cases).startswith("warning: 1 run(s) ended with stalled flows")


def test_the_terminal_counts_many_stalled_runs_per_experiment():
    rs = [Run({"case": "DT 4"}, {}, seed, out={"stalled_flows": 2.0}) for seed in range(1, 10)]
    cases = stalled_cases("web-rr", rs) + stalled_cases("load-sweep", rs[:3])
    assert stall_warning(cases, every=False).endswith(": web-rr 9, load-sweep 3 (each run: report.md, section Warning)")
    assert stall_warning(cases[:10], every=False).endswith("web-rr (case DT 4, seed 1): 2; " + "; ".join(
        f"web-rr (case DT 4, seed {s}): 2" for s in range(2, 10)) + "; load-sweep (case DT 4, seed 1): 2")
    assert "load-sweep (case DT 4, seed 3): 2" in stall_warning(cases)


def test_a_run_summary_counts_a_download_stalled_for_good():
    """The bottleneck drops to 1 b/s at 2 s: the download's sender times out again and again."""
    import cellaqm

    doc = {"duration": "120s", "traffic": {"model": "file", "size": "10MB"},
           "bottleneck": {"rate": {"steps": [["0s", "2Mbps"], ["2s", "1bps"]]}, "buffer": "100kB"}}
    s = cellaqm.run(doc).summary
    assert s["stalled_flows"] == 1
    ok = cellaqm.run({**doc, "bottleneck": {"rate": "2Mbps", "buffer": "100kB"}}).summary
    assert ok["stalled_flows"] == 0
