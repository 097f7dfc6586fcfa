"""Many users on one cell, as a user sees them: `RunResult.users`, `users.csv`,
`summary["cells"]` and the tables `cellaqm run` prints."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import cellaqm

ROOT = Path(__file__).resolve().parent.parent
FOUR = ROOT / "scenarios" / "cells" / "hsdpa-4-bulk.toml"


def test_users_frame_has_one_row_per_user_with_flat_columns():
    res = cellaqm.run(FOUR, sets=["duration=20s"])
    users = res.users
    assert list(users["user"]) == [0, 1, 2, 3]
    for column in ("cell", "flows", "bytes_down", "goodput_bps", "delay_ms_p95", "buffer_mean_queue_bytes",
                   "buffer_queue_bytes_p95", "radio_down_pdus", "rtos"):
        assert column in users.columns, column
    # The users' bytes are the flows' bytes, and the cell's goodput their sum.
    assert users["bytes_down"].sum() == res.flows["bytes_down"].sum()
    cells = res.cells
    assert len(cells) == 1 and cells.loc[0, "users"] == 4 and cells.loc[0, "scheduler"] == "round_robin"
    assert abs(cells.loc[0, "goodput_bps"] - users["bytes_down"].sum() * 8 / 20) < 1e-6
    # Round robin: equal shares, within a few percent.
    share = users["goodput_bps"] / users["goodput_bps"].mean()
    assert share.between(0.97, 1.03).all(), share


def test_drops_per_user_are_columns_and_zero_where_none(tmp_path):
    sets = ["duration=20s", "radio.groups=[{ users = 1, buffer = \"8kB\" }]"]
    res = cellaqm.run(FOUR, sets=sets)
    users = res.users
    assert users.loc[0, "drops_overflow"] > 0
    assert (users.loc[1:, "drops_overflow"] == 0).all()
    assert users["drops_overflow"].sum() == res.summary["drops"]["overflow"]
    res.to_dir(tmp_path)
    back = pd.read_csv(tmp_path / "users.csv")
    assert list(back.columns) == list(users.columns)
    assert (back["bytes_down"] == users["bytes_down"]).all()


def test_a_wired_run_has_users_without_their_own_buffer():
    res = cellaqm.run({"name": "w", "duration": "5s", "traffic": {"model": "bulk", "flows": 2},
                       "bottleneck": {"rate": "1Mbps", "buffer": "30kB"}})
    assert list(res.users["user"]) == [0, 1]
    assert not any(c.startswith("buffer_") for c in res.users.columns)
    assert res.summary["cells"][0]["downlink"] == "wired"


def test_cli_prints_cell_and_user_tables(cli):
    proc = cli("run", FOUR, "--set", "duration=10s")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "cells" in out and "round_robin" in out
    lines = [line.strip() for line in out.splitlines()]
    users = lines[lines.index("users") + 2:]  # after the title and the header
    assert [line.split()[0] for line in users if line] == ["0", "1", "2", "3"]
    # A single-user run keeps its old output: no cell or user table.
    proc = cli("run", ROOT / "scenarios" / "default.toml", "--set", "duration=5s")
    lines = [line.strip() for line in proc.stdout.splitlines()]
    assert "users" not in lines and "cells" not in lines


def test_group_errors_are_one_line_naming_the_group(cli):
    proc = cli("run", FOUR, "--set", "radio.groups=[{ users = 5 }]")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "cellaqm: error: radio.groups[0]: users 0..4 but the traffic has 4 users (0..3)"


def test_a_sweep_keeps_each_runs_users_for_cdfs_over_users(tmp_path, cli):
    from cellaqm.store import Store

    out = tmp_path / "cs"
    df = cellaqm.sweep(ROOT / "sweeps" / "cell-schedulers.toml", out=out, progress=False)
    users = Store(out).users(df["run_id"])
    assert len(users) == len(df) == 9
    assert all(list(u["user"]) == list(range(8)) for u in users.values())
    # The weak channels (users 4..7) get less under max C/I than under round robin.
    def weak(scheduler: str) -> float:
        runs = df[df["radio.hsdpa.scheduler"] == scheduler]["run_id"]
        return sum(users[r].loc[4:, "bytes_down"].sum() for r in runs)
    assert weak("max_ci") < 0.8 * weak("round_robin")
    proc = cli("plot", out, "--kind", "cdf", "--metric", "user_goodput_bps", "--hue", "radio.hsdpa.scheduler")
    assert proc.returncode == 0, proc.stderr
    assert (out / "plots" / "cdf-user_goodput_bps.png").exists()
    proc = cli("plot", out, "--kind", "cdf", "--metric", "user_nonsense")
    assert proc.returncode == 2 and "unknown per-user column 'nonsense'" in proc.stderr
