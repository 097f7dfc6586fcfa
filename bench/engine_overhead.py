"""What the experiment engine costs per run, outside the simulation (``make bench-engine``).

    .venv/bin/python bench/engine_overhead.py [--runs 2000] [--jobs 1]

A synthetic study whose ``measure`` simulates nothing (it returns six numbers
at once) goes through everything ``cellaqm reproduce`` does around a run:
planning (each run's identity), the sweep runner, the row written into the
experiment's store (one Parquet file, atomically), reading it back, the table,
the report. Its CPU time per run is the engine's overhead; a real run costs
this plus its simulation. The figures: CPU seconds of this process
(``getrusage``: user + system, all threads) per run, and the wall time.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def measure(run: Any) -> Any:
    x = run.doc["x"]
    run.out = {"goodput_kbps": 100.0 + x, "delay_ms": 50.0 * x, "rtos": float(x % 3), "stalled_flows": 0.0,
               "files": 10, "wall_s": 0.0}
    return run


def study(n: int) -> Any:
    from cellaqm.study import Experiment, Run, Study

    def runs(quick: bool, reps: int) -> list[Run]:
        # A scenario of the size of a real one (about 1 kB of JSON), 10 replications per level.
        doc = {"name": "bench", "duration": "600s", "tcp": {"recovery": "sack", "mss": "1460B", "rwnd": "64kB"},
               "traffic": {"model": "file", "size": "2MB"}, "core": {"rate": "100Mbps", "delay": "100ms"},
               "radio": {"bearer": "dch", "buffer_packets": 80, "dch": {"rate": "384kbps", "tti": "10ms"},
                         "rlc": {"pdu_size": "42B", "window": 2047, "poll": {"timer": "110ms"}}}}
        return [Run({"level": i // 10}, {**doc, "x": i // 10}, i % 10 + 1) for i in range(n)]

    def no_figure(*_: Any) -> None:
        pass

    exp = Experiment("bench", "engine overhead", runs, ("level",), ("goodput_kbps", "delay_ms", "rtos"), no_figure)
    return Study("bench", "engine overhead", "docs/experiments.md", [exp], measure, {}, reps=(10, 10))


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    from cellaqm import __version__, engine

    options = argparse.Namespace(demo=False, only=None, quick=False, reps=None, sets=[], duration=None, resume=False,
                                 backend="local", ray_address=None, format="text", quiet=True)
    with tempfile.TemporaryDirectory(prefix="cellaqm-engine-") as tmp:
        import contextlib
        import io

        c0, w0 = cpu(), time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            assert engine.command(study(args.runs), options, args.jobs, Path(tmp)) == 0
        c1, w1 = cpu(), time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):  # --resume: every run is stored already
            assert engine.command(study(args.runs), argparse.Namespace(**{**vars(options), "resume": True}),
                                  args.jobs, Path(tmp)) == 0
        c2, w2 = cpu(), time.perf_counter()
    n = args.runs
    print(f"cellaqm {__version__}: {n} runs of a synthetic study (no simulation), {args.jobs} job(s)")
    print(f"  a reproduction: {1e3 * (c1 - c0) / n:.2f} ms CPU per run ({1e3 * (w1 - w0) / n:.2f} ms wall), "
          f"{c1 - c0:.1f} CPU-s in all")
    print(f"  --resume with every run stored: {1e3 * (c2 - c1) / n:.2f} ms CPU per run "
          f"({1e3 * (w2 - w1) / n:.2f} ms wall)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "python"))
    raise SystemExit(main())
