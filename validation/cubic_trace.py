"""The CUBIC rows' congestion windows in both simulators, side by side (validation/discussion.md §8).

    python validation/cubic_trace.py --ns3-bin build/validation/wired_bottleneck [--out docs/figures]

Runs each CUBIC row of validation/compare.py once more in ns-3 (with
``--trace_cwnd=true``: its cwnd and congestion-state changes on stderr) and in
cellaqm (``trace=True``: the ``cwnd`` table, with W_max and K), plots the two
windows over time (``cubic-vs-ns3-<rate>.png`` in ``--out``) and prints, per
row, the time-weighted mean window of each over the whole run and over the
steady cycles after ``--settle`` seconds, and the number of window reductions
(ns-3: entries into fast recovery or loss; cellaqm: fast retransmits and
timeouts).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402


def mean_window(times: np.ndarray, windows: np.ndarray, lo: float, hi: float) -> float:
    """Time-weighted mean of a step function (value `windows[i]` from `times[i]`) over [lo, hi]."""
    edges = np.clip(np.append(times, hi), lo, hi)
    return float((windows * np.diff(edges)).sum() / (hi - lo))


def ns3_trace(binary: Path, row: dict, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """ns-3's cwnd changes of flow 0 (times, bytes) and its count of window reductions."""
    args = [*compare.ns3_args(row, seed), "--trace_cwnd=true"]
    err = subprocess.run([str(binary), *args], check=True, capture_output=True, text=True).stderr
    t, w, reductions = [], [], 0
    for line in err.splitlines():
        f = line.split()
        if len(f) == 5 and f[3] == "cwnd":
            t.append(float(f[0]))
            w.append(int(f[4]))
        elif len(f) == 5 and f[3] == "state" and f[4] in ("CA_RECOVERY", "CA_LOSS"):
            reductions += 1
    return np.array(t), np.array(w, dtype=float), reductions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ns3-bin", type=Path, default=compare.ROOT / "build" / "validation" / "wired_bottleneck")
    p.add_argument("--out", type=Path, default=compare.ROOT / "docs" / "figures")
    p.add_argument("--settle", type=float, default=15.0, help="seconds before the steady cycles")
    args = p.parse_args(argv)

    import cellaqm
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for row in compare.cubic_rows(full=False):
        hi = float(row["duration_s"])
        nt, nw, n_red = ns3_trace(args.ns3_bin, row, 1)
        res = cellaqm.run(compare.scenario(row, 1), trace=True)
        cw = res.trace["cwnd"]
        cw = cw[cw["dir"] == "down"]
        ct, cwin = cw["time_s"].to_numpy(), cw["cwnd_bytes"].to_numpy(dtype=float)
        c_red = res.summary["fast_retransmits"] + res.summary["rtos"]
        rate = compare.agreement.fmt_rate(row["rate_bps"])
        print(f"{rate}b/s, {row['buffer_bytes'] // 1000} kB: reductions cellaqm {c_red}, ns-3 {n_red}")
        for lo in (0.0, args.settle):
            ours, ref = mean_window(ct, cwin, lo, hi), mean_window(nt, nw, lo, hi)
            print(f"  mean cwnd over [{lo:g}, {hi:g}] s: cellaqm {ours / 1e3:.1f} kB, ns-3 {ref / 1e3:.1f} kB "
                  f"({(ours - ref) / ref:+.1%})")
        fig, ax = plt.subplots(figsize=(8, 3.2))
        ax.step(nt, nw / 1e3, where="post", label="ns-3 TcpCubic", color="tab:orange", lw=0.9)
        ax.step(ct, cwin / 1e3, where="post", label="cellaqm cubic", color="tab:blue", lw=0.9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("congestion window (kB)")
        ax.set_title(f"CUBIC, {rate}b/s, {row['buffer_bytes'] // 1000} kB tail drop, one flow, SACK")
        ax.legend(loc="lower right")
        fig.tight_layout()
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"cubic-vs-ns3-{rate}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"  wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
