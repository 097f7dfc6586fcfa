"""``make reproduce-all``: every ``reproduce`` target (the five studies and the modern-aqm comparison), one after
another, and each one's CPU-seconds.

    .venv/bin/python bench/reproduce_all.py [--quick] [--jobs N] [--out results] [--only STUDY,...] [--resume]

Each study runs as ``cellaqm reproduce STUDY --out OUT/STUDY --jobs N --quiet``
in a child process (its report, tables, figures and store stay in OUT/STUDY).
Its CPU time is the child's user + system time, all its threads, as the
kernel reports it when the child ends (``wait4``); its wall time is measured
around it. The table gives each study's runs and simulations (a run several
experiments list is simulated once), wall time, CPU-seconds and CPU-seconds
per simulation, and the total against the target of the five full
reproductions in 20 minutes on 2 cores (2,400 CPU-seconds). With other jobs
on the machine the wall times grow; the CPU-seconds do not (much).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

#: The five full reproductions on 2 cores in 20 minutes.
TARGET_CPU_S = 2 * 20 * 60


def run(name: str, out: Path, quick: bool, jobs: int, resume: bool) -> tuple[int, float, float]:
    """(exit status, wall s, CPU s) of ``cellaqm reproduce name``."""
    cmd = [sys.executable, "-m", "cellaqm", "reproduce", name, "--out", str(out / name), "--jobs", str(jobs),
           "--quiet", *(["--quick"] if quick else []), *(["--resume"] if resume else [])]
    log = (out / f"{name}.log").open("w")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    from cellaqm import __version__, textable
    from cellaqm.reproduce import STUDIES, sizes

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the --quick reproductions")
    ap.add_argument("--jobs", type=int, default=2, help="parallel runs per study (default 2)")
    ap.add_argument("--out", default="results", help="parent of each study's --out (default results)")
    ap.add_argument("--only", help="these studies (comma-separated)")
    ap.add_argument("--resume", action="store_true", help="pass --resume: finish reproductions in OUT")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [s.strip() for s in args.only.split(",")] if args.only else [t.name for t in STUDIES]
    mode = "quick" if args.quick else "full"
    load = os.getloadavg()[0]
    print(f"cellaqm {__version__}: the {mode} reproductions on {args.jobs} jobs, load average {load:.1f} at start; "
          f"logs in {out}/STUDY.log", flush=True)
    rows, total_cpu, total_wall, failed = [], 0.0, 0.0, 0
    for target in (t for t in STUDIES if t.name in names):
        size = sizes(target)
        status, wall, cpu = run(target.name, out, args.quick, args.jobs, args.resume)
        sims = size["simulations"][mode]
        total_cpu, total_wall, failed = total_cpu + cpu, total_wall + wall, failed + (status != 0)
        rows.append([target.name, f"{size['runs'][mode]:,}", f"{sims:,}", f"{wall:,.0f}", f"{cpu:,.0f}",
                     f"{cpu / sims:.2f}", "ok" if status == 0 else f"exit {status}"])
        print(f"{target.name}: {cpu:,.0f} CPU-s, {wall:,.0f} s wall", flush=True)
    rows.append(["all", "", "", f"{total_wall:,.0f}", f"{total_cpu:,.0f}", "", f"{failed} failed" if failed else ""])
    cols = [textable.Column("study", key=True), *(textable.Column(h, right=True) for h in (
        "runs", "simulations", "wall [s]", "CPU [s]", "CPU [s] per simulation")), textable.Column("status")]
    caption = (f"On 2 cores: {total_cpu / 2 / 60:.1f} min of CPU per core (target for the five full reproductions: "
               f"20 min, {TARGET_CPU_S:,} CPU-s); load average {os.getloadavg()[0]:.1f} at the end")
    print(textable.render(textable.Table(f"cellaqm reproduce, {mode}", cols, rows, {len(rows) - 1}, caption),
                          textable.width()))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
