"""Benchmark: how soon Ctrl-C stops a run on every shipped radio scenario (issue 39, item 1).

    .venv/bin/python bench/interrupt.py [--only SUBSTRING] [--csv FILE]

For every scenario file under scenarios/ with a ``[radio]`` section, made
endless (``duration`` = 10^6 s), it starts ``cellaqm.run`` in this process
and sends itself SIGINT, in two runs: 0.05 s after the call (as the radio
system is set up: a shipped scenario's set-up takes milliseconds, and the
test suite interrupts a set-up of seconds) and 1.5 s after (in the middle of
the run; a run whose traffic ends sooner, such as one upload, is
interrupted half-way through its wall time instead; one that ends by
itself within 0.1 s, a single download, is run again with a 100 GB file). It measures the wall time from the signal to the
``KeyboardInterrupt`` reaching the caller. Prints one row per directory of
scenarios (the largest time of its files, and which) and the largest overall;
``--csv`` writes every file's two times. Target: under 1 s everywhere (the
run checks its cancel flag before every event; Python looks at its signals
every 0.1 s). Asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

import cellaqm

ROOT = Path(__file__).resolve().parents[1]
ENDLESS = ["duration=1000000s"]
#: A run that ends by itself at once (one download) gets a file this big.
BIG_FILE = ("traffic.size=100GB",)
#: When the signal is sent, seconds after the call: during set-up, during the run.
MOMENTS = {"set-up": 0.05, "running": 1.5}


def radio_scenarios() -> list[Path]:
    return sorted(p for p in (ROOT / "scenarios").rglob("*.toml") if "\n[radio" in "\n" + p.read_text(encoding="utf-8"))


def time_to_stop(path: Path, after: float, sets: tuple[str, ...] = ()) -> float:
    """Seconds from a SIGINT sent ``after`` seconds into ``cellaqm.run(path)`` to the interrupt
    (if the run ends first, the signal is sent half-way through its wall time; if that is
    under 0.05 s, again with a file of 100 GB; NaN if still so)."""
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, interrupt)
    start = time.perf_counter()
    timer.start()
    try:
        cellaqm.run(path, sets=[*ENDLESS, *sets])
    except KeyboardInterrupt:
        return time.perf_counter() - sent[0]
    finally:
        timer.cancel()
    wall = time.perf_counter() - start
    if wall / 2 >= 0.05:
        return time_to_stop(path, wall / 2, sets)
    return math.nan if sets else time_to_stop(path, after, BIG_FILE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only scenario files whose path contains this")
    parser.add_argument("--csv", help="write each file's times here")
    args = parser.parse_args()
    files = [p for p in radio_scenarios() if not args.only or args.only in str(p)]
    rows = []
    for i, path in enumerate(files, 1):
        times = {moment: time_to_stop(path, after) for moment, after in MOMENTS.items()}
        rows.append((path.relative_to(ROOT / "scenarios"), times))
        sys.stderr.write(f"\r{i}/{len(files)} {path.name:<50}")
    sys.stderr.write("\n")
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as out:
            out.write("scenario," + ",".join(f"{m}_s" for m in MOMENTS) + "\n")
            for name, times in rows:
                out.write(f"{name}," + ",".join(f"{times[m]:.3f}" for m in MOMENTS) + "\n")
    groups: dict[str, list] = {}
    for name, times in rows:
        groups.setdefault(str(name.parent), []).append((name, times))
    print(f"| scenarios | files | {' | '.join(f'Ctrl-C {m}, largest s' for m in MOMENTS)} |")
    print("|---|---:|" + "---:|" * len(MOMENTS))
    for group, members in groups.items():
        cells = []
        for m in MOMENTS:
            timed = [r for r in members if not math.isnan(r[1][m])]
            if not timed:
                cells.append("ends by itself within 0.1 s")
                continue
            name, times = max(timed, key=lambda r: r[1][m])
            cells.append(f"{times[m]:.2f} ({name.name})" if len(members) > 1 else f"{times[m]:.2f}")
        print(f"| {group}/ | {len(members)} | {' | '.join(cells)} |")
    worst = max(t for _, times in rows for t in times.values() if not math.isnan(t))
    print(f"\nlargest of {len(rows)} files x {len(MOMENTS)}: {worst:.2f} s (target: under 1 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
