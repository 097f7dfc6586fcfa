"""Benchmark: what a `cellaqm.run` call costs outside the simulation itself.

    .venv/bin/python bench/call_overhead.py [--calls 300] [--scenario FILE [--set key=value ...]]

For each call it takes the call's wall time and the core's own clock of the run
(`summary["wall_s"]`: from building the network to the end of the event loop),
and prints their means and the difference: parsing and validating the scenario,
the summary statistics after the run, and building the Python objects. Short
runs are where it matters: for a 1-ms run it is the share printed last. It
also times parsing and validation alone (`cellaqm._core.validate`). Prints
figures; asserts nothing. By default it runs the validation matrix's 64 kb/s,
100 kB, four-flow, SACK RED row (seed 1, about 1 ms per run), the figures
docs/validation.md §6 quotes; the scenario goes in as a dict, as the matrix's does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Union

import cellaqm
from cellaqm import _core
from cellaqm.api import read_scenario

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

from compare import scenario as matrix_scenario  # noqa: E402

#: The validation matrix's row that the default runs.
DEFAULT_ROW = {"rate_bps": 64_000, "queue": "red", "buffer_bytes": 100_000, "flows": 4, "sack": True, "duration_s": 600}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300, help="timed calls (default 300)")
    ap.add_argument("--scenario", help="scenario file (default: the matrix row above)")
    ap.add_argument("--set", dest="sets", action="append", default=[], help="override, as the CLI's --set")
    args = ap.parse_args()
    spec: Union[str, dict[str, Any]] = args.scenario or matrix_scenario(DEFAULT_ROW, 1)
    sets = args.sets

    cellaqm.run(spec, sets=sets)  # warm up: code, allocator, caches
    calls, cores = [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        res = cellaqm.run(spec, sets=sets)
        calls.append(time.perf_counter() - t0)
        cores.append(res.summary["wall_s"])
    text, fmt = read_scenario(spec)
    parses = []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        _core.validate(text, fmt, sets)
        parses.append(time.perf_counter() - t0)

    us = 1e6
    call, core = statistics.mean(calls), statistics.mean(cores)
    outside = [c - k for c, k in zip(calls, cores)]
    print(json.dumps({"scenario": args.scenario or DEFAULT_ROW, "sets": sets, "calls": args.calls}))
    print(f"call                 {call * us:9.1f} us (mean)")
    print(f"run (core's clock)   {core * us:9.1f} us (mean)")
    print(f"outside the run      {statistics.mean(outside) * us:9.1f} us mean, "
          f"{statistics.median(outside) * us:.1f} us median")
    print(f"  of which parsing   {statistics.median(parses) * us:9.1f} us (median, validation included)")
    print(f"share of the call    {statistics.mean(outside) / call:9.1%}")


if __name__ == "__main__":
    main()
