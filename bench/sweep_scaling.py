"""Sweep benchmark: throughput scaling 1 → N jobs (threads vs processes) and the store's per-run overhead.

    .venv/bin/python bench/sweep_scaling.py [--long-runs 6] [--short-runs 200] [--jobs 2]

Prints figures (runs per second, ratios, milliseconds per run); it asserts nothing.
Targets (issue 6): ≥ 1.8× from 1 to 2 jobs for runs of a second or more;
store overhead < 5 ms per run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from cellaqm import __version__
from cellaqm.runner import default_jobs, execute, run_plan, store_outcome
from cellaqm.store import Store
from cellaqm.sweepfile import load_plan

ROOT = Path(__file__).resolve().parents[1]
BASE = str(ROOT / "scenarios" / "default.toml")

#: ~1 s of wall time per run on a 2020s core: 8 flows through 100 Mb/s for 200 simulated seconds.
LONG = {
    "duration": "200s",
    "bottleneck.rate": "100Mbps",
    "bottleneck.buffer": "1MB",
    "uplink.rate": "1Gbps",
    "core.rate": "1Gbps",
    "traffic.flows": 8,
    "tcp.rwnd": "4MB",
}
#: A few milliseconds per run.
SHORT = {"duration": "10s", "bottleneck.loss": 0.01, "traffic.flows": 2}


def plan(fixed: dict, runs: int):
    return load_plan({"name": "bench", "base": BASE, "set": fixed, "replications": runs})


REPEAT = 2


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def throughput(fixed: dict, runs: int, jobs: int, executor: str) -> tuple[float, float, float]:
    """(runs per second, mean core wall seconds per run, CPU cores busy) of a whole sweep, store included.

    Best of REPEAT sweeps: the machine may be shared, and the best is the least disturbed.
    "CPU cores busy" is the sweep's CPU time (worker processes included) over its wall
    time: about 1 for one job, about 2 when two jobs really run in parallel.
    """
    p = plan(fixed, runs)
    best = (0.0, 0.0, 0.0)
    for _ in range(REPEAT):
        with tempfile.TemporaryDirectory() as out:
            cpu = _cpu()
            start = time.perf_counter()
            report = run_plan(p, out, jobs=jobs, executor=executor, progress=False)
            elapsed = time.perf_counter() - start
            cpu = _cpu() - cpu
            assert report.ran == runs and not len(report.failures), report
            df = Store(out).load()
        best = max(best, (runs / elapsed, float(df["wall_s"].mean()), cpu / elapsed))
    return best


def store_overhead(runs: int) -> tuple[float, float, float]:
    """(median wall, mean wall, median CPU) milliseconds to turn one outcome into a row and store it atomically."""
    p = plan(SHORT, runs)
    with tempfile.TemporaryDirectory() as out:
        store = Store(out)
        store.prepare(p.manifest(), resume=False)
        times, cpus = [], []
        for r in p.runs:
            entry = {"run_id": r.run_id, "levels": r.levels, "rep": r.rep, "seed": r.seed,
                     "scenario_json": r.scenario_json(), "packets": False}
            outcome = execute(entry)
            start, cpu = time.perf_counter(), time.thread_time()
            assert store_outcome(store, entry, outcome, __version__) is None
            times.append(time.perf_counter() - start)
            cpus.append(time.thread_time() - cpu)
    ms = [t * 1e3 for t in times]
    return statistics.median(ms), statistics.fmean(ms), statistics.median(c * 1e3 for c in cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--long-runs", type=int, default=6, help="runs per long sweep (default 6)")
    ap.add_argument("--short-runs", type=int, default=200, help="runs per short sweep (default 200)")
    ap.add_argument("--jobs", type=int, default=max(2, default_jobs()), help="parallel jobs to compare with 1")
    args = ap.parse_args()
    n = args.jobs
    results: dict[str, float] = {}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cellaqm {__version__}: {default_jobs()} usable cores, load average {load:.2f} at start; "
          f"comparing 1 and {n} jobs (best of {REPEAT})")

    for kind, fixed, runs in (("long", LONG, args.long_runs), ("short", SHORT, args.short_runs)):
        one, per_run, busy = throughput(fixed, runs, 1, "thread")
        print(f"{kind} runs (core wall {per_run * 1e3:.1f} ms/run), 1 job: {one:.2f} runs/s "
              f"({busy:.2f} CPU cores busy)")
        results[f"{kind}_1"] = one
        for executor in ("thread", "process"):
            rate, _, busy = throughput(fixed, runs, n, executor)
            results[f"{kind}_{n}_{executor}"] = rate
            print(f"  {n} jobs, {executor:8}: {rate:8.2f} runs/s   speed-up {rate / one:.2f}×   "
                  f"({busy:.2f} CPU cores busy)")

    median, mean, cpu = store_overhead(args.short_runs)
    print(f"store overhead per run (flatten + Parquet row + atomic rename): median {median:.2f} ms, "
          f"mean {mean:.2f} ms wall; median {cpu:.2f} ms CPU")
    results["store_ms_cpu_median"] = cpu
    results["store_ms_median"] = median
    results["store_ms_mean"] = mean
    print(json.dumps({k: round(v, 3) for k, v in results.items()}))


if __name__ == "__main__":
    main()
