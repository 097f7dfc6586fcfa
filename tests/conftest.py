"""Shared fixtures: a small, fast scenario (as TOML text and as the same dict) and a CLI runner."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

#: A short single-bottleneck scenario with random loss, so the seed matters.
SCENARIO_TOML = """\
name = "test"
duration = "10s"
seed = 1

[tcp]
recovery = "newreno"
mss = "1460B"
header = "40B"
initial_window = 3
rwnd = 30
delayed_ack = false
timestamps = false
rto_min = "200ms"

[traffic]
model = "bulk"
flows = 2

[core]
rate = "100Mbps"
delay = "70ms"

[bottleneck]
rate = "384kbps"
delay = "0ms"
buffer = "100kB"
loss = 0.02
queue = { scheme = "tail_drop" }

[uplink]
rate = "64kbps"
delay = "0ms"
buffer = "100kB"
"""

#: The same scenario as a dict (what `tomllib.loads(SCENARIO_TOML)` gives).
SCENARIO_DICT: dict[str, Any] = {
    "name": "test",
    "duration": "10s",
    "seed": 1,
    "tcp": {
        "recovery": "newreno",
        "mss": "1460B",
        "header": "40B",
        "initial_window": 3,
        "rwnd": 30,
        "delayed_ack": False,
        "timestamps": False,
        "rto_min": "200ms",
    },
    "traffic": {"model": "bulk", "flows": 2},
    "core": {"rate": "100Mbps", "delay": "70ms"},
    "bottleneck": {
        "rate": "384kbps",
        "delay": "0ms",
        "buffer": "100kB",
        "loss": 0.02,
        "queue": {"scheme": "tail_drop"},
    },
    "uplink": {"rate": "64kbps", "delay": "0ms", "buffer": "100kB"},
}

#: Keys the summary must have (the core's contract).
SUMMARY_KEYS = {
    "seed",
    "duration_s",
    "goodput_bps",
    "delay_ms",
    "rtos",
    "fast_retransmits",
    "spurious_rtos",
    "rtos_undone",
    "retransmitted_bytes",
    "drops",
    "bottleneck",
    "events",
    "wall_s",
    "sim_seconds_per_wall_second",
}

#: Keys every flow record must have.
FLOW_KEYS = {
    "flow",
    "bytes_delivered",
    "goodput_bps",
    "start_s",
    "completion_s",
    "rtos",
    "fast_retransmits",
    "spurious_rtos",
    "rtos_undone",
    "retransmitted_bytes",
}


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "test.toml"
    path.write_text(SCENARIO_TOML, encoding="utf-8")
    return path


@pytest.fixture
def scenario_dict() -> dict[str, Any]:
    return copy.deepcopy(SCENARIO_DICT)


def _cellaqm_command() -> list[str]:
    """The installed console script next to this interpreter (the venv's), else `python -m cellaqm`."""
    script = Path(sys.executable).with_name("cellaqm")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "cellaqm"]


@pytest.fixture
def cli(tmp_path: Path):
    """Run the `cellaqm` command; returns the CompletedProcess (text mode)."""

    def run(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
        return subprocess.run(
            [*_cellaqm_command(), *map(str, args)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=300,
        )

    return run
