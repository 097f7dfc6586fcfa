"""The Python API: cellaqm.run and RunResult."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cellaqm
from cellaqm.result import WALL_TIME_KEYS
from conftest import FLOW_KEYS, SCENARIO_TOML, SUMMARY_KEYS


def test_run_file_returns_dataframes(scenario_file):
    res = cellaqm.run(scenario_file)
    assert isinstance(res, cellaqm.RunResult)
    assert isinstance(res.summary, dict)
    assert SUMMARY_KEYS <= res.summary.keys()
    assert res.seed == 1 == res.summary["seed"]
    assert isinstance(res.flows, pd.DataFrame)
    assert len(res.flows) == 2
    assert FLOW_KEYS <= set(res.flows.columns)
    assert sorted(res.flows["flow"]) == [0, 1] or sorted(res.flows["flow"]) == [1, 2]
    assert "test" in repr(res)


def test_run_accepts_str_path(scenario_file):
    assert cellaqm.run(str(scenario_file)).summary["seed"] == 1


def test_dict_scenario_matches_file(scenario_file, scenario_dict):
    from_file = cellaqm.run(scenario_file, seed=3)
    from_dict = cellaqm.run(scenario_dict, seed=3)
    assert from_dict.deterministic_summary() == from_file.deterministic_summary()
    pd.testing.assert_frame_equal(from_dict.flows, from_file.flows)


def test_dict_scenario_with_sets(scenario_dict):
    res = cellaqm.run(scenario_dict, sets=["duration=3s"])
    assert res.summary["duration_s"] == pytest.approx(3.0)


def test_same_seed_is_deterministic(scenario_file):
    a = cellaqm.run(scenario_file, seed=11, packets=True)
    b = cellaqm.run(scenario_file, seed=11, packets=True)
    assert a.deterministic_summary() == b.deterministic_summary()
    assert set(a.summary) - set(a.deterministic_summary()) <= set(WALL_TIME_KEYS)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.packets, b.packets)


def test_different_seeds_differ(scenario_file):
    # The scenario has 2 % random loss on the bottleneck, so the seed matters.
    a = cellaqm.run(scenario_file, seed=1)
    b = cellaqm.run(scenario_file, seed=2)
    assert a.deterministic_summary() != b.deterministic_summary()


def test_default_seed_is_the_scenarios(scenario_file):
    assert cellaqm.run(scenario_file).deterministic_summary() == (
        cellaqm.run(scenario_file, seed=1).deterministic_summary()
    )


def test_runs_in_threads_match_sequential(scenario_file):
    # The binding releases the GIL during the run; results must not depend on it.
    seeds = [1, 2, 3, 4]
    sequential = [cellaqm.run(scenario_file, seed=s).deterministic_summary() for s in seeds]
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(lambda s: cellaqm.run(scenario_file, seed=s), seeds))
    assert [r.deterministic_summary() for r in threaded] == sequential


def test_packets(scenario_file):
    res = cellaqm.run(scenario_file, packets=True)
    assert res.has_packets
    p = res.packets
    assert isinstance(p, pd.DataFrame)
    assert list(p.columns) == [
        "uid",
        "flow",
        "seq",
        "sent_s",
        "received_s",
        "delay_s",
        "size",
        "retransmission",
    ]
    assert len(p) > 0
    assert p["uid"].dtype == np.uint64
    assert p["retransmission"].dtype == np.bool_
    # Sequence numbers: data starts at 1 (ISN 0); a flow's first delivered segment is its first.
    first = p.groupby("flow")["seq"].first()
    assert (first == 1).all() and (p["seq"] >= 1).all()
    assert (p["delay_s"] >= 0).all()
    assert (p["received_s"] >= p["sent_s"]).all()
    np.testing.assert_allclose(p["delay_s"], p["received_s"] - p["sent_s"], atol=1e-9)
    assert (p["received_s"] <= res.summary["duration_s"] + 1e-9).all()
    assert (p["size"] > 0).all()
    assert set(p["flow"]) <= set(res.flows["flow"])
    p.loc[p.index[0], "delay_s"] = -1.0  # a writable, owned frame


def test_packets_not_requested(scenario_file):
    res = cellaqm.run(scenario_file)
    assert not res.has_packets
    with pytest.raises(cellaqm.PacketsNotRecordedError, match="packets=True"):
        res.packets


def test_to_dir(scenario_file, tmp_path):
    res = cellaqm.run(scenario_file, packets=True)
    written = res.to_dir(tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names[:4] in (
        ["downloads.csv", "flows.csv", "occupancy.csv", "packets.csv"],
        ["downloads.csv", "flows.csv", "occupancy.csv", "packets.parquet"],
    )
    assert "summary.json" in names
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == res.summary
    flows = pd.read_csv(tmp_path / "out" / "flows.csv")
    assert len(flows) == len(res.flows)
    users = pd.read_csv(tmp_path / "out" / "users.csv")
    assert list(users["user"]) == list(res.users["user"]) == list(range(res.summary["users"]))


def test_to_dir_without_packets(scenario_file, tmp_path):
    written = cellaqm.run(scenario_file).to_dir(tmp_path)
    assert sorted(p.name for p in written) == [
        "downloads.csv", "flows.csv", "occupancy.csv", "summary.json", "users.csv"
    ]


def test_downloads_dataframe(tmp_path):
    """Web pages as downloads: one row each, with goodput = bytes / (completion - request)."""
    scenario = {
        "duration": "60s",
        "traffic": {"model": "web", "users": 2, "reading_time": {"dist": "exponential", "mean": "3s"}},
        "core": {"delay": "70ms"},
        "bottleneck": {"rate": "1Mbps", "buffer": "50kB"},
        "uplink": {"rate": "64kbps"},
    }
    res = cellaqm.run(scenario)
    d = res.downloads
    assert list(d.columns[:4]) == ["download", "source", "kind", "user"]
    assert len(d) >= 4 and set(d["kind"]) == {"page"} and set(d["user"]) == {0, 1}
    done = d.dropna(subset=["completion_s"])
    assert len(done) == res.summary["downloads"]["completed"] > 0
    assert ((done["bytes"] * 8 / (done["completion_s"] - done["request_s"]) - done["goodput_bps"]).abs() < 1e-3).all()
    assert abs(done["goodput_bps"].mean() - res.summary["downloads"]["mean_goodput_bps"]) < 1e-6
    res.to_dir(tmp_path)
    assert len(pd.read_csv(tmp_path / "downloads.csv")) == len(d)


# ------------------------------------------------------------------ errors


def test_scenario_error_is_value_error():
    assert issubclass(cellaqm.ScenarioError, ValueError)


def test_missing_file_names_the_file(tmp_path):
    missing = tmp_path / "gone.toml"
    with pytest.raises(cellaqm.ScenarioError, match="gone.toml: cannot read"):
        cellaqm.run(missing)


def test_unknown_key_names_the_key(scenario_dict):
    scenario_dict["bottleneck"]["bogus"] = 1
    with pytest.raises(cellaqm.ScenarioError, match="bogus"):
        cellaqm.run(scenario_dict)


def test_bad_unit_names_the_key(scenario_file):
    with pytest.raises(cellaqm.ScenarioError, match="bottleneck.rate") as info:
        cellaqm.run(scenario_file, sets=["bottleneck.rate=384kps"])
    assert "\n" not in str(info.value)


def test_malformed_set(scenario_file):
    with pytest.raises(cellaqm.ScenarioError, match="key.path=value"):
        cellaqm.run(scenario_file, sets=["bottleneck.rate"])


def test_bad_argument_types(scenario_file):
    with pytest.raises(TypeError):
        cellaqm.run(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        cellaqm.run(scenario_file, seed=-1)
    with pytest.raises(TypeError):
        cellaqm.run(scenario_file, seed=1.5)  # type: ignore[arg-type]


def test_core_rejects_bad_format():
    from cellaqm import _core

    with pytest.raises(ValueError, match="fmt"):
        _core.run(SCENARIO_TOML, "yaml")


# ------------------------------------------------------------------ physics sanity


def test_faster_bottleneck_gives_more_goodput(scenario_file):
    slow = cellaqm.run(scenario_file, sets=["bottleneck.loss=0"])
    fast = cellaqm.run(scenario_file, sets=["bottleneck.loss=0", "bottleneck.rate=2Mbps"])
    assert fast.summary["goodput_bps"] > slow.summary["goodput_bps"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_goodput_bounded_by_bottleneck(scenario_file, seed):
    res = cellaqm.run(scenario_file, seed=seed, sets=["duration=5s"])
    goodput = res.summary["goodput_bps"]
    assert 0 <= goodput <= 384_000 * 1.001
    assert res.summary["seed"] == seed
    assert (res.flows["bytes_delivered"] >= 0).all()
