"""Benchmark: many flows at low rates, cellaqm against ns-3 (issue 27, item 4).

    .venv/bin/python bench/many_flows.py [--ns3-bin build/validation/wired_bottleneck] [--calls 5]

Two rows outside the validation matrix, where the cost per event is highest:
RED at 1 Mb/s with 16 flows, and FQ-CoDel at 2 Mb/s with 32 flows (1024
queues, 67 packets: its overflow drops from the fattest queue). Both are the
matrix's wired bottleneck (validation/compare.py, every alignment the same)
with core delay 30 ms, bottleneck delay 20 ms, flows started 0.1 s apart,
SACK, 300 s. Each row runs once in ns-3 (build it with ``make validate`` or
validation/ns3/build.sh) and ``--calls`` times in cellaqm, in this process;
prints both wall times (cellaqm: the mean of the calls), the speed-up, the
core's events and ns per event, and both simulators' goodput and p95 delay.
Without ns-3 it prints cellaqm's figures alone. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

import compare  # noqa: E402

CORE_DELAY_MS, BN_DELAY_MS, SPACING_S = 30, 20, 0.1
ROWS = {
    "RED, 1 Mb/s, 16 flows": {
        "rate_bps": 1_000_000, "queue": "red", "buffer_bytes": 100_000, "flows": 16, "sack": True, "duration_s": 300,
    },
    "FQ-CoDel, 2 Mb/s, 32 flows": {
        "rate_bps": 2_000_000, "queue": "fq_codel", "buffer_bytes": 67 * 1500, "flows": 32, "sack": True,
        "duration_s": 300,
    },
}


def scenario(row: dict[str, Any]) -> dict[str, Any]:
    """The matrix's scenario of `row` with this benchmark's delays and spacing."""
    spec = compare.scenario(row, 1)
    spec["core"]["delay"] = f"{CORE_DELAY_MS}ms"
    spec["bottleneck"]["delay"] = spec["uplink"]["delay"] = f"{BN_DELAY_MS}ms"
    spec["traffic"]["spacing"] = f"{SPACING_S}s"
    return spec


def ns3_args(row: dict[str, Any]) -> list[str]:
    """The matrix's ns-3 arguments of `row` with this benchmark's delays and spacing (later ones win)."""
    return [
        *compare.ns3_args(row, 1),
        f"--core_delay_ms={CORE_DELAY_MS}",
        f"--bn_delay_ms={BN_DELAY_MS}",
        f"--spacing_s={SPACING_S}",
    ]


def main() -> None:
    import cellaqm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-bin", type=Path, default=ROOT / "build" / "validation" / "wired_bottleneck")
    ap.add_argument("--calls", type=int, default=5, help="cellaqm calls per row (timed: their mean)")
    args = ap.parse_args()
    have_ns3 = args.ns3_bin.exists()
    if not have_ns3:
        print(f"no ns-3 program at {args.ns3_bin}: cellaqm alone")
    for name, row in ROWS.items():
        spec = scenario(row)
        walls = []
        for _ in range(args.calls):
            t0 = time.perf_counter()
            res = cellaqm.run(spec)
            walls.append(time.perf_counter() - t0)
        wall = sum(walls) / len(walls)
        s = res.summary
        line = (
            f"{name:<28} cellaqm {wall * 1e3:7.1f} ms, {s['events']:,} events, "
            f"{s['wall_s'] / s['events'] * 1e9:4.1f} ns/event, goodput {s['goodput_bps'] / 1e6:.3f} Mb/s, "
            f"p95 {s['delay_ms']['p95']:.0f} ms"
        )
        if have_ns3:
            out = subprocess.run([str(args.ns3_bin), *ns3_args(row)], check=True, capture_output=True, text=True)
            d = json.loads(out.stdout.strip().splitlines()[-1])
            line += (
                f" | ns-3 {d['wall_s']:6.2f} s, goodput {d['goodput_bps'] / 1e6:.3f} Mb/s, "
                f"p95 {d['delay_ms']['p95']:.0f} ms | speed-up {d['wall_s'] / wall:5.0f}x"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
