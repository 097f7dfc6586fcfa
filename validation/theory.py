"""Theory checks of cellaqm, written as the "Theory" section of docs/validation.md.

    python validation/theory.py --out validation/results/theory.md

1. Mathis et al. (1997): bulk Reno/NewReno/SACK goodput under independent random
   loss p (`bottleneck.loss`) vs MSS/RTT · sqrt(3/2) / sqrt(p), and vs the
   Padhye et al. (1998) formula that adds timeouts.
2. Tail-drop utilisation of one long-lived flow vs buffer/BDP, against the
   fluid sawtooth model (window between (BDP+B)/2 and BDP+B).
3. M/D/1 queueing delay: Poisson UDP arrivals of fixed-size packets
   (`model = "cbr"`, `arrivals = "poisson"`) vs the Pollaczek–Khinchine mean wait.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import cellaqm

MSS = 1460
HEADER = 40
SEEDS = (1, 2, 3)


def tcp(recovery: str) -> dict[str, Any]:
    return {
        "recovery": recovery,
        "mss": f"{MSS}B",
        "header": f"{HEADER}B",
        "initial_window": 3,
        "rwnd": "8MB",
        "delayed_ack": False,
        "timestamps": False,
        "rto_min": "200ms",
        "rto_initial": "1s",
    }


def mean(xs: list[float]) -> float:
    return math.fsum(xs) / len(xs)


# ---------------------------------------------------------------- 1. Mathis


def mathis_bps(rtt_s: float, p: float) -> float:
    return MSS * 8 / rtt_s * math.sqrt(1.5) / math.sqrt(p)


def padhye_bps(rtt_s: float, p: float, rto_s: float) -> float:
    """PFTK full model without the window limit, b = 1 (no delayed ACK)."""
    b = 1
    denom = rtt_s * math.sqrt(2 * b * p / 3) + rto_s * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    return MSS * 8 / denom


def mathis_section() -> list[str]:
    rate = "100Mbps"
    core_delay_ms, bn_delay_ms = 45, 5
    rtt = 2 * (core_delay_ms + bn_delay_ms) / 1000 + (MSS + HEADER) * 8 / 100e6 * 2 + 2 * HEADER * 8 / 100e6
    losses = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05]
    lines = [
        "### Mathis formula: goodput under random loss",
        "",
        f"One bulk flow, {rate} core and bottleneck (never the limit here), base RTT "
        f"{rtt * 1000:.1f} ms, no buffer limit, independent loss probability p on every packet "
        "crossing the bottleneck (`bottleneck.loss`), 300 s, seeds "
        f"{', '.join(map(str, SEEDS))} averaged. Mathis: MSS/RTT · √(3/2) / √p (periodic loss, "
        "no timeouts, no delayed ACK); PFTK: Padhye et al.'s model with timeouts (RTO = 200 ms, "
        "the minimum, since the RTT is below it). Ratio = simulated / formula.",
        "",
        "| p | Mathis Mb/s | PFTK Mb/s | Reno Mb/s (÷Mathis, ÷PFTK) | NewReno Mb/s (÷Mathis, ÷PFTK) | SACK Mb/s (÷Mathis, ÷PFTK) |",
        "|---|---|---|---|---|---|",
    ]
    worst_pftk = worst_mathis = 0.0
    for p in losses:
        m = mathis_bps(rtt, p)
        pf = padhye_bps(rtt, p, 0.2)
        cells = [f"{p:g}", f"{m / 1e6:.3f}", f"{pf / 1e6:.3f}"]
        for rec in ("reno", "newreno", "sack"):
            g = mean(
                [
                    cellaqm.run(
                        {
                            "name": "mathis",
                            "duration": "300s",
                            "tcp": tcp(rec),
                            "traffic": {"model": "bulk", "flows": 1},
                            "core": {"rate": rate, "delay": f"{core_delay_ms}ms"},
                            "bottleneck": {"rate": rate, "delay": f"{bn_delay_ms}ms", "loss": p},
                            "uplink": {"rate": rate, "delay": f"{bn_delay_ms}ms"},
                        },
                        seed=s,
                    ).summary["goodput_bps"]
                    for s in SEEDS
                ]
            )
            if p <= 0.01:
                worst_pftk = max(worst_pftk, abs(g / pf - 1))
                worst_mathis = max(worst_mathis, abs(g / m - 1))
            cells.append(f"{g / 1e6:.3f} ({g / m:.2f}, {g / pf:.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Reading: at small p the simulated goodput follows the 1/√p law with a constant close to "
        "Mathis's √(3/2) (derived for periodic loss; random loss changes it somewhat). As p grows, "
        "timeouts take over and the simulated goodput falls below Mathis and towards PFTK, which "
        f"models them. Largest |simulated/Mathis − 1| for p ≤ 0.01: {worst_mathis:.0%}; "
        f"largest |simulated/PFTK − 1| for p ≤ 0.01: {worst_pftk:.0%}.",
        "",
    ]
    return lines


# ---------------------------------------------------------------- 2. utilisation vs buffer


def sawtooth_utilisation(b: float) -> float:
    """Fluid model of one AIMD flow (halving) with buffer b·BDP: the window falls
    to (1+b)/2·BDP after each loss and grows one MSS per RTT back to (1+b)·BDP."""
    if b >= 1:
        return 1.0
    low = (1 + b) / 2
    t1 = 1 - low  # window below the BDP: RTT constant, link partly idle
    u1 = (low + 1) / 2
    t2 = ((1 + b) ** 2 - 1) / 2  # window above the BDP: link busy, RTT growing
    return (t1 * u1 + t2) / (t1 + t2)


def utilisation_section() -> list[str]:
    rate_bps = 10e6
    core_delay_ms, bn_delay_ms = 45, 5
    rtt = 2 * (core_delay_ms + bn_delay_ms) / 1000
    bdp = rate_bps * rtt / 8
    ratios = [0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5]
    lines = [
        "### Tail-drop utilisation vs buffer/BDP",
        "",
        f"One bulk NewReno and one SACK flow, 10 Mb/s bottleneck, base RTT {rtt * 1000:.0f} ms "
        f"(BDP {bdp / 1000:.0f} kB), tail-drop buffer B, 600 s (the initial slow start included). "
        "Fluid model: the window saws between (BDP+B)/2 and BDP+B; below the BDP the link is "
        "partly idle (U = 3/4 at B = 0, 1 from B = BDP).",
        "",
        "| B/BDP | buffer kB | model U | NewReno U | SACK U |",
        "|---|---|---|---|---|",
    ]
    worst = 0.0
    for r in ratios:
        buf = int(r * bdp)
        model = sawtooth_utilisation(r)
        cells = [f"{r:g}", f"{buf / 1000:.1f}", f"{model:.3f}"]
        for rec in ("newreno", "sack"):
            u = cellaqm.run(
                {
                    "name": "utilisation",
                    "duration": "600s",
                    "tcp": tcp(rec),
                    "traffic": {"model": "bulk", "flows": 1},
                    "core": {"rate": "100Mbps", "delay": f"{core_delay_ms}ms"},
                    "bottleneck": {"rate": "10Mbps", "delay": f"{bn_delay_ms}ms", "buffer": f"{buf}B"},
                    "uplink": {"rate": "10Mbps", "delay": f"{bn_delay_ms}ms"},
                }
            ).summary["bottleneck"]["utilisation"]
            worst = max(worst, abs(u - model))
            cells.append(f"{u:.3f} ({u - model:+.3f})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Largest |simulated − model|: {worst:.3f}. The model ignores slow start, recovery "
        "episodes and the discreteness of the window; utilisation counts link busy time "
        "(headers and retransmissions included).",
        "",
    ]
    return lines


#: M/D/1 setting: 1000-byte IP packets (972 B payload + 28 B UDP/IP) at a 1 Mb/s bottleneck.
MD1_RATE = 1e6
MD1_PAYLOAD, MD1_PACKET = 972, 1000
MD1_DELAY_MS, MD1_CORE_RATE = 10.0, 10e9
MD1_SECONDS = 2000


def md1_row(rho: float) -> dict[str, float]:
    """Mean wait of Poisson UDP packets at load `rho`, averaged over the seeds, and M/D/1's."""
    waits, counts = [], []
    for seed in SEEDS:
        s = cellaqm.run(
            {
                "name": f"md1-{rho}",
                "duration": f"{MD1_SECONDS}s",
                "traffic": {
                    "model": "cbr",
                    "rate": f"{rho * MD1_RATE * MD1_PAYLOAD / MD1_PACKET}bps",
                    "packet": f"{MD1_PAYLOAD}B",
                    "arrivals": "poisson",
                },
                "core": {"rate": f"{MD1_CORE_RATE}bps", "delay": f"{MD1_DELAY_MS}ms"},
                "bottleneck": {"rate": f"{MD1_RATE}bps"},
            },
            seed=seed,
        ).summary
        d = s["datagrams"]["delay_ms"]
        fixed_ms = MD1_DELAY_MS + 1e3 * 8 * MD1_PACKET / MD1_RATE + 1e3 * 8 * MD1_PACKET / MD1_CORE_RATE
        waits.append(d["mean"] - fixed_ms)
        counts.append(d["count"])
    mu = MD1_RATE / (8 * MD1_PACKET)
    return {
        "rho": rho,
        "packets": sum(counts) / len(counts),
        "simulated_ms": sum(waits) / len(waits),
        "theory_ms": 1e3 * rho / (2 * mu * (1 - rho)),
    }


def md1_section() -> list[str]:
    rows = [md1_row(rho) for rho in (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)]
    lines = [
        "### M/D/1 queueing delay",
        "",
        f"Poisson arrivals of {MD1_PACKET}-byte IP packets (UDP, `model = \"cbr\"`, "
        f"`arrivals = \"poisson\"`) into a {MD1_RATE / 1e6:g} Mb/s bottleneck without a "
        f"buffer limit, {MD1_SECONDS} s, seeds {', '.join(map(str, SEEDS))} averaged. The wait is "
        "the mean one-way delay less propagation and serialisation (the core link runs at "
        f"{MD1_CORE_RATE / 1e9:g} Gb/s, so only the bottleneck queues). M/D/1 "
        "(Pollaczek–Khinchine, deterministic service): W = ρ/(2μ(1−ρ)), μ = "
        f"{MD1_RATE / (8 * MD1_PACKET):g} packets/s.",
        "",
        "| ρ | packets per run | simulated wait ms | M/D/1 ms | ratio |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['rho']:g} | {r['packets']:,.0f} | {r['simulated_ms']:.3f} | {r['theory_ms']:.3f} "
            f"| {r['simulated_ms'] / r['theory_ms']:.3f} |"
        )
    worst = max(abs(r["simulated_ms"] / r["theory_ms"] - 1) for r in rows if r["rho"] <= 0.8)
    lines += [
        "",
        f"Largest |simulated/M/D/1 − 1| for ρ ≤ 0.8: {100 * worst:.1f}%. At heavy load the mean "
        "converges slowly (long, correlated busy periods), so the higher rows carry more "
        "sampling error for the same run length.",
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "theory.md")
    args = p.parse_args(argv)
    lines = ["## Theory", "", "Generated by validation/theory.py (cellaqm only).", ""]
    lines += mathis_section()
    lines += utilisation_section()
    lines += md1_section()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
