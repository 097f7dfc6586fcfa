"""What bounds a lone user's RNC queue on the HS-DSCH system, and how much its channel varies.

    .venv/bin/python validation/hsdsch_lone_user.py [--seeds 3]

The study's scenario 3 (one user alone, path (a): 25 ms one way, 250 kB
transfers, a session every U(0, 20 s) at a new random position), DT, DF and
PDPC n at the RNC and the reference buffer, 300 s per run, with the other
cells idle (the study's reading, `single-user`) and sending in every TTI
(`interference = "full"`, `single-user-loaded`). Per case, over the
transfers of all seeds: the median transfer time, the peak of the RNC queue
during each transfer (median and largest, from the run's queue trace), drops
and timeouts per transfer, and the share of the user's blocks at each format.
docs/hsdsch.md ("Large buffers never cost anything") shows the output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import cellaqm  # noqa: E402
from cellaqm import hsdsch  # noqa: E402

CASES = [("dt", 15), ("dt", 20), ("dt", 30), ("dt", 50), ("dt", 100), ("df", 50), ("pdpc", 50), ("ref", 4)]


def lone_user(scheme: str, n: int, interference: str, seeds: int) -> str:
    """One Markdown row: ``scheme`` n for a lone user on path (a), ``seeds`` runs of 300 s."""
    peaks, times, drops, rtos, mcs = [], [], 0, 0, np.zeros(4)
    for seed in range(1, seeds + 1):
        doc = hsdsch.system(scheme, n, "long", "rr", 10.0, 300.0, users=1, interference=interference)
        r = cellaqm.run(doc, seed=seed, trace=True)
        queue, done = r.trace["queue"], r.downloads[r.downloads["completion_s"].notna()]
        for t in done.itertuples():
            during = queue[(queue["time_s"] >= t.request_s) & (queue["time_s"] <= t.completion_s)]["packets"]
            peaks.append(int(during.max()) if len(during) else 0)
        times += list(done["time_s"])
        drops += len(r.trace["drops"])
        rtos += r.summary["rtos"]
        for c in r.summary["cells"]:
            mcs += np.array(c["mcs_use"] or [0] * 4)
    name = "reference" if scheme == "ref" else f"{hsdsch.LABELS[scheme]} {n}"
    shares = " / ".join(f"{100 * m / mcs.sum():.1f}" for m in mcs)
    return (f"| {name} | {len(times)} | {np.median(times):.2f} | {np.median(peaks):.0f} / {max(peaks)} "
            f"| {drops / len(times):.1f} | {rtos / len(times):.2f} | {shares} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="300 s runs per case (default 3)")
    args = ap.parse_args()
    for interference, what in (("on_air", "the other cells idle (`single-user`)"),
                               ("full", "the other cells sending in every TTI (`single-user-loaded`)")):
        print(f"**A lone user, path (a), {what}**, {args.seeds} runs of 300 s per case")
        print()
        print("| case | transfers | median transfer [s] | RNC queue peak per transfer: median / largest [packets] "
              "| drops per transfer | timeouts per transfer | blocks at QPSK 1/4 / 1/2, 16QAM 3/8 / 5/8 [%] |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for scheme, n in CASES:
            print(lone_user(scheme, n, interference, args.seeds), flush=True)
        print()


if __name__ == "__main__":
    main()
