"""Benchmark: process start-up of the ``cellaqm`` command (issue 27, item 1).

    .venv/bin/python bench/startup.py [--repeat 20]

Starts each command below as a new process ``--repeat`` times and prints its
wall time (minimum and median; the target is the minimum under 0.1 s: on a
machine shared with other work the median includes waiting for a core) and
the CPU time the process used (user + system, median), then which of the heavy
packages (numpy, pandas, pyarrow, matplotlib, scipy, rich) each command
imports. The commands: bare ``python -c pass`` (the floor), ``cellaqm
--version``, ``cellaqm run SCENARIO --json`` and ``cellaqm run SCENARIO``
(text), with SCENARIO scenarios/wired-bulk.toml for 1 simulated second (a few
ms of simulation). Prints figures; asserts nothing. The ``cellaqm`` script is
the one beside this interpreter (``make build`` installs it); PYTHONPATH is
passed on, so another checkout's python/ can be timed with the same script.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELLAQM = str(Path(sys.executable).parent / "cellaqm")
SCENARIO = [str(ROOT / "scenarios" / "wired-bulk.toml"), "--set", "duration=1s"]
HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy", "rich")

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "cellaqm --version": [CELLAQM, "--version"],
    "cellaqm run --json": [CELLAQM, "run", *SCENARIO, "--json"],
    "cellaqm run (text)": [CELLAQM, "run", *SCENARIO],
}

#: Runs the CLI in-process with the given arguments, then prints the heavy packages it imported.
PROBE = (
    "import sys, contextlib, io\n"
    "from cellaqm.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(sys.argv[1:])\n"
    "    except SystemExit:\n"  # --version exits through argparse
    "        pass\n"
    f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules) or '-')\n"
)


def time_process(argv: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heavy_imports(argv: list[str]) -> str:
    if argv[0] != CELLAQM:
        return ""
    out = subprocess.run([sys.executable, "-c", PROBE, *argv[1:]], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20, help="processes per command")
    args = ap.parse_args()
    print(f"{'command':<22} {'wall min':>9} {'wall median':>12} {'CPU median':>11}  heavy packages imported")
    for name, argv in COMMANDS.items():
        time_process(argv)  # warm the file cache
        runs = [time_process(argv) for _ in range(args.repeat)]
        walls = [w for w, _ in runs]
        cpus = [c for _, c in runs]
        print(
            f"{name:<22} {min(walls) * 1e3:7.1f} ms {statistics.median(walls) * 1e3:9.1f} ms "
            f"{statistics.median(cpus) * 1e3:8.1f} ms  {heavy_imports(argv)}",
            flush=True,
        )
    print(f"({args.repeat} processes each; PYTHONPATH={os.environ.get('PYTHONPATH', '')!r}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
