"""Sweep files: planning, seeds, run identity, validation before any run, the API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import SCENARIO_TOML

import cellaqm
from cellaqm.store import WALL_COLUMNS, Store, flatten
from cellaqm.sweepfile import SweepError, level_label, load_plan

SWEEP_TOML = """\
name = "t"
base = "base.toml"
replications = 3
seed = 5

[set]
duration = "4s"

[factors]
"bottleneck.buffer" = ["10kB", "50kB"]
"tcp.recovery" = ["newreno", "sack"]
"""


@pytest.fixture
def sweep_dir(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(SCENARIO_TOML, encoding="utf-8")
    (tmp_path / "s.toml").write_text(SWEEP_TOML, encoding="utf-8")
    return tmp_path


def write_sweep(d: Path, text: str) -> Path:
    p = d / "bad.toml"
    p.write_text(text, encoding="utf-8")
    return p


def deterministic(df: pd.DataFrame) -> pd.DataFrame:
    drop = [c for c in (*WALL_COLUMNS, "version") if c in df.columns]
    return df.drop(columns=drop).reset_index(drop=True)


# --------------------------------------------------------------------------- planning


def test_plan_is_the_cartesian_product_with_common_random_numbers(sweep_dir: Path) -> None:
    plan = load_plan(sweep_dir / "s.toml")
    assert plan.factor_names == ["bottleneck.buffer", "tcp.recovery"]
    assert len(plan.runs) == 2 * 2 * 3
    # replication r uses seed 5 + r at every level
    for r in plan.runs:
        assert r.seed == 5 + r.rep
        assert r.scenario["duration"] == "4s"
        assert r.scenario["bottleneck"]["buffer"] == r.levels["bottleneck.buffer"]
        assert r.scenario["tcp"]["recovery"] == r.levels["tcp.recovery"]
    assert len({r.run_id for r in plan.runs}) == len(plan.runs)


def test_independent_seeds_differ_between_levels_and_are_stable(sweep_dir: Path) -> None:
    text = SWEEP_TOML.replace("seed = 5", "seed = 5\nindependent = true")
    p = write_sweep(sweep_dir, text)
    plan = load_plan(p)
    seeds = [r.seed for r in plan.runs]
    assert len(set(seeds)) == len(seeds)
    assert seeds == [r.seed for r in load_plan(p).runs]


def test_run_id_is_a_hash_of_resolved_scenario_and_seed(sweep_dir: Path) -> None:
    a = load_plan(sweep_dir / "s.toml")
    # Same runs spelled differently (nested tables, other factor order) → same identities.
    other = SWEEP_TOML.replace(
        '[factors]\n"bottleneck.buffer" = ["10kB", "50kB"]\n"tcp.recovery" = ["newreno", "sack"]\n',
        '[factors.tcp]\nrecovery = ["newreno", "sack"]\n[factors.bottleneck]\nbuffer = ["10kB", "50kB"]\n',
    )
    assert other != SWEEP_TOML
    b = load_plan(write_sweep(sweep_dir, other))
    assert {r.run_id for r in a.runs} == {r.run_id for r in b.runs}
    # A different seed or value → a different identity.
    c = load_plan(write_sweep(sweep_dir, SWEEP_TOML.replace("seed = 5", "seed = 6")))
    assert len({r.run_id for r in a.runs} & {r.run_id for r in c.runs}) == 2 * 2 * 2  # reps 1,2 of a = reps 0,1 of c


def test_labelled_table_levels_and_zip_groups(sweep_dir: Path) -> None:
    text = """
base = "base.toml"
[set]
duration = "2s"
[factors.scheme]
path = "bottleneck.queue"
levels = { TD = { scheme = "tail_drop" } }
[factors."tcp.initial_window"]
levels = [1, 3]
labels = ["IW1", "IW3"]
[zip.bearer]
"bottleneck.rate" = ["384kbps", "3.6Mbps"]
"bottleneck.buffer" = ["20kB", "100kB"]
labels = ["R99", "HSDPA"]
"""
    plan = load_plan(write_sweep(sweep_dir, text))
    assert plan.factor_names == ["scheme", "tcp.initial_window", "bearer"]
    assert [f.labels for f in plan.factors] == [["TD"], ["IW1", "IW3"], ["R99", "HSDPA"]]
    hsdpa = [r for r in plan.runs if r.levels["bearer"] == "HSDPA"]
    assert all(r.scenario["bottleneck"]["rate"] == "3.6Mbps" and r.scenario["bottleneck"]["buffer"] == "100kB"
               for r in hsdpa)
    assert all(r.scenario["bottleneck"]["queue"] == {"scheme": "tail_drop"} for r in plan.runs)
    assert level_label({"scheme": "red", "min": "20kB"}) == "red(min=20kB)"


# --------------------------------------------------------------------------- validation before any run


@pytest.mark.parametrize(
    ("body", "culprit"),
    [
        ('[factors]\n"bottleneck.rtae" = ["1Mbps"]\n', "bottleneck.rtae"),
        ('[factors]\n"bottleneck.buffer" = []\n', "empty level list"),
        ('[factors]\n"bottleneck.buffer" = ["20kB", "lots"]\n', "level 'lots'"),
        ('[factors]\n"bottleneck.queue" = [{ scheme = "no_such_scheme" }]\n', "no_such_scheme"),
        ('[factors]\n"tcp.recovery" = ["sack", "sack"]\n', "duplicate level 'sack'"),
        ('[zip.z]\n"bottleneck.rate" = ["1Mbps", "2Mbps"]\n"bottleneck.buffer" = ["20kB"]\n', "different lengths"),
        ('[factors]\n"bottleneck.buffer" = ["20kB"]\n[zip.z]\n"bottleneck.buffer" = ["30kB"]\n', "both set"),
        ('[factors]\n"tcp.recovery" = "sack"\n', "expected a list of levels"),
        ('[set]\n"core.delay" = "soon"\n', "core.delay"),
        ('replications = 0\n', "replications"),
        ('colour = "red"\n', "unknown key 'colour'"),
    ],
)
def test_malformed_sweep_fails_before_any_run_naming_the_culprit(sweep_dir: Path, body: str, culprit: str) -> None:
    p = write_sweep(sweep_dir, 'base = "base.toml"\n' + body)
    with pytest.raises(SweepError) as info:
        cellaqm.sweep(p, out=sweep_dir / "out")
    assert culprit in str(info.value)
    assert "\n" not in str(info.value)
    assert not (sweep_dir / "out").exists()


@pytest.mark.parametrize(
    ("body", "culprit"),
    [
        ('[factors]\n"bottleneck.rtae" = ["1Mbps"]\n', "bottleneck.rtae"),
        ('[factors]\n"bottleneck.buffer" = ["20kB", "lots"]\n', "level 'lots'"),
    ],
)
def test_cli_malformed_sweep_is_one_line_exit_2(sweep_dir: Path, cli, body: str, culprit: str) -> None:
    p = write_sweep(sweep_dir, 'base = "base.toml"\n[factors]\n"tcp.recovery" = ["reno"]\n' + body.replace("[factors]\n", ""))
    proc = cli("sweep", p, "--out", sweep_dir / "out")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cellaqm: error: ") and culprit in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (sweep_dir / "out" / "runs").exists() or not any((sweep_dir / "out" / "runs").iterdir())


def test_missing_base_and_bad_combination(sweep_dir: Path) -> None:
    with pytest.raises(SweepError, match="base"):
        load_plan(write_sweep(sweep_dir, 'base = "nope.toml"\n'))
    with pytest.raises(SweepError, match="base"):
        load_plan(write_sweep(sweep_dir, "replications = 2\n"))


# --------------------------------------------------------------------------- running


def test_sweep_api_returns_one_row_per_run_with_flat_metrics(sweep_dir: Path) -> None:
    df = cellaqm.sweep(sweep_dir / "s.toml", out=sweep_dir / "out", jobs=2)
    assert len(df) == 12
    for col in ("run_id", "bottleneck.buffer", "tcp.recovery", "rep", "seed", "goodput_bps", "delay_ms_p95",
                "bottleneck_utilisation", "wall_s", "version", "scenario_doc"):
        assert col in df.columns, col
    assert list(df["bottleneck.buffer"].cat.categories) == ["10kB", "50kB"]
    assert df["version"].iloc[0] == cellaqm.__version__
    # A stored row equals a direct run of the resolved scenario with the same seed.
    row = df.iloc[5]
    direct = cellaqm.run(json.loads(row["scenario_doc"]), seed=int(row["seed"]))
    flat = flatten(direct.deterministic_summary())
    for key, value in flat.items():
        if key in ("seed", "scenario"):
            continue
        assert row[key] == pytest.approx(value, nan_ok=True), key
    # Same seeds → identical metrics across repeated sweeps (threads vs processes too).
    again = cellaqm.sweep(sweep_dir / "s.toml", out=None, jobs=2, executor="process")
    pd.testing.assert_frame_equal(deterministic(df), deterministic(again))
    # Under common random numbers, replication r of every level has the same seed.
    assert df.groupby("rep", observed=True)["seed"].nunique().eq(1).all()


def test_failed_runs_are_recorded_and_the_sweep_goes_on(sweep_dir: Path, monkeypatch, cli) -> None:
    import cellaqm.runner as runner

    real = runner._core.run

    def flaky(text, fmt, seed, sets, packets, **kwargs):  # fail replication 1 (seed 6) everywhere
        if seed == 6:
            raise RuntimeError("simulated failure")
        return real(text, fmt, seed, sets, packets, **kwargs)

    monkeypatch.setattr(runner._core, "run", flaky)
    with pytest.warns(RuntimeWarning, match="4 of 12 runs failed"):
        df = cellaqm.sweep(sweep_dir / "s.toml", out=sweep_dir / "out", jobs=2)
    assert len(df) == 8
    failures = df.attrs["failures"]
    assert len(failures) == 4 and set(failures["seed"]) == {6}
    assert failures["error"].str.contains("simulated failure").all()
    monkeypatch.setattr(runner._core, "run", real)
    # --resume runs exactly the failed ones, then nothing is missing.
    proc = cli("sweep", sweep_dir / "s.toml", "--out", sweep_dir / "out", "--resume")
    assert proc.returncode == 0, proc.stderr
    assert "4 run now, 8 already finished, 0 failed" in proc.stderr
    assert len(Store(sweep_dir / "out").load()) == 12
    assert len(Store(sweep_dir / "out").failures()) == 0


def test_cli_sweep_lists_failures_and_exits_1(sweep_dir: Path, monkeypatch, capsys) -> None:
    import cellaqm.runner as runner
    from cellaqm.cli import main

    real = runner._core.run

    def flaky(text, fmt, seed, sets, packets, **kwargs):
        if seed == 7 and '"sack"' in text:
            raise RuntimeError("core panicked: boom")
        return real(text, fmt, seed, sets, packets, **kwargs)

    monkeypatch.setattr(runner._core, "run", flaky)
    status = main(["sweep", str(sweep_dir / "s.toml"), "--out", str(sweep_dir / "o"), "--jobs", "2"])
    err = capsys.readouterr().err
    assert status == 1, err
    assert "12 runs, 12 run now, 2 failed" in err
    assert err.count("  failed ") == 2
    assert "tcp.recovery=sack, rep 2, seed 7): RuntimeError: core panicked: boom" in err
    assert len(list((sweep_dir / "o" / "failed").glob("*.json"))) == 2


def test_cli_sweep_refuses_an_existing_store_and_dry_runs(sweep_dir: Path, cli) -> None:
    assert cli("sweep", sweep_dir / "s.toml", "--out", sweep_dir / "o", "--quiet").returncode == 0
    proc = cli("sweep", sweep_dir / "s.toml", "--out", sweep_dir / "o")
    assert proc.returncode == 2 and "--resume" in proc.stderr
    dry = cli("sweep", sweep_dir / "s.toml", "--out", sweep_dir / "o", "--dry-run")
    assert dry.returncode == 0 and "12 runs" in dry.stdout and "12 already finished" in dry.stdout


def test_sweep_paths_are_set_by_the_same_code_as_set(tmp_path: Path) -> None:
    """A path into a [[traffic]] list works in a factor and in [set], as with --set, with --set's errors."""
    base = SCENARIO_TOML.replace('[traffic]\nmodel = "bulk"\nflows = 2\n',
                                 '[[traffic]]\nmodel = "bulk"\n[[traffic]]\nmodel = "web"\nusers = 2\n')
    (tmp_path / "base.toml").write_text(base, encoding="utf-8")
    sweep = {"base": str(tmp_path / "base.toml"), "set": {"duration": "3s", "traffic.0.flows": 2},
             "factors": {"traffic.1.users": [1, 3]}}
    plan = load_plan(sweep)
    assert [r.scenario["traffic"][1]["users"] for r in plan.runs] == [1, 3]
    assert all(r.scenario["traffic"][0]["flows"] == 2 for r in plan.runs)
    df = cellaqm.sweep(sweep, jobs=2)
    assert list(df["users"]) == [3, 5]
    for path, value in (("traffic.5.users", 3), ("duration.x", 1), ("a..b", 1)):
        with pytest.raises(cellaqm.ScenarioError) as direct:
            cellaqm.run(tmp_path / "base.toml", sets=[f"{path}={value}"])
        for spec in ({**sweep, "factors": {path: [value]}}, {**sweep, "set": {path: value}}):
            with pytest.raises(SweepError) as info:
                load_plan(spec)
            assert str(info.value).endswith(": " + str(direct.value)), (str(info.value), str(direct.value))
