"""``cellaqm reproduce modern-aqm``: the five studies' question asked of today's AQMs.

Which buffer management lets TCP fill a cellular bearer without bufferbloat?
Every seed scheme of the studies — tail drop (TD), drop-from-front (DF), RED,
ARED, PDPC, TTLRED1 and TTLRED2 (the WCDMA study's parameters), T-AQM and PDCP
discard (the LTE uplink study's), R-AQM where it applies (the LTE uplink) —
beside CoDel (RFC 8289), PIE (RFC 8033) and FQ-CoDel (RFC 8290) with their
RFCs' defaults, each also with ECN (RFC 3168), in the managed buffer of each radio bearer cellaqm models and
of two measured traces, under today's TCP (CUBIC with SACK, initial window 10).

One experiment per bearer; each runs bulk traffic (every user two long flows)
and web traffic (the WCDMA study's HTTP/1.0 pages; on the LTE uplink, the LTE
study's small files) under every scheme, with ``reps`` replications (seed ``r``
for every scheme: common random numbers). Measures: goodput (bulk: all flows
together; web: the mean download's), the 95th-percentile delay of the packets
through the managed buffer's direction, Jain's fairness index (bulk: over the
flows; web: over the users' mean download goodputs) and the shares of packets
the buffer dropped and ECN-marked. docs/modern-aqm.md describes the cases and what they show.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cellaqm import lte_uplink, wcdma
from cellaqm.study import Experiment, Run, Study, save

DOC = "docs/modern-aqm.md"

#: Today's TCP (our choice: Linux's defaults since 2.6.39 / 3.x): CUBIC, SACK, initial window 10, MSS 1460 B;
#: a receive window that never limits (the buffer does).
TCP: dict[str, Any] = {"congestion": "cubic", "recovery": "sack", "initial_window": 10, "mss": "1460B",
                       "header": "40B", "rwnd": "8MB"}

#: Full and ``--quick``: simulated seconds per run, replications.
FULL, QUICK = (120.0, 5), (30.0, 1)


def _seed_scheme(name: str) -> Callable[[int], dict[str, Any]]:
    """A WCDMA-study scheme with that study's parameters for a buffer of the given kB."""
    return lambda buffer_kb: wcdma.queue(name, buffer_kb)


@dataclass(frozen=True)
class Scheme:
    label: str
    #: The managed buffer's discipline for a buffer of ``buffer_kb`` kB.
    queue: Callable[[int], dict[str, Any]]
    #: R-AQM at the eNodeB (the LTE uplink only).
    receiver: dict[str, Any] | None = None
    #: ECN: the scheme marks ECT packets instead of dropping them, and TCP negotiates ECN (RFC 3168).
    ecn: bool = False


SCHEMES: dict[str, Scheme] = {
    "td": Scheme("TD", _seed_scheme("td")),
    "df": Scheme("DF", lambda kb: {"scheme": "drop_front"}),
    "red": Scheme("RED", _seed_scheme("red")),
    "ared": Scheme("ARED", _seed_scheme("ared")),
    "pdpc": Scheme("PDPC", _seed_scheme("pdpc")),
    "ttlred1": Scheme("TTLRED1", _seed_scheme("ttlred1")),
    "ttlred2": Scheme("TTLRED2", _seed_scheme("ttlred2")),
    "taqm": Scheme("T-AQM", lambda kb: dict(lte_uplink.TAQM)),
    "pdcp": Scheme("PDCP discard", lambda kb: {"scheme": "pdcp_discard", "delay_threshold": "200ms"}),
    "raqm": Scheme("R-AQM", lambda kb: {"scheme": "tail_drop"}, lte_uplink.RAQM),
    "codel": Scheme("CoDel", lambda kb: {"scheme": "codel"}),
    "pie": Scheme("PIE", lambda kb: {"scheme": "pie"}),
    "fq_codel": Scheme("FQ-CoDel", lambda kb: {"scheme": "fq_codel"}),
    "codel_ecn": Scheme("CoDel ECN", lambda kb: {"scheme": "codel", "ecn": True}, ecn=True),
    "pie_ecn": Scheme("PIE ECN", lambda kb: {"scheme": "pie", "ecn": True}, ecn=True),
    "fq_codel_ecn": Scheme("FQ-CoDel ECN", lambda kb: {"scheme": "fq_codel", "ecn": True}, ecn=True),
}


@dataclass(frozen=True)
class Bearer:
    """A bearer (or a measured link) with its managed buffer: how to place a scheme and the traffic on it."""

    name: str
    title: str
    #: Users of the bulk and of the web case.
    users: tuple[int, int]
    #: The managed buffer's size, kB.
    buffer_kb: int
    #: The scenario without traffic, tcp and the buffer's discipline: ``doc(queue, receiver)``.
    build: Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]
    #: The managed buffer sits in the UE (uploads) rather than in front of the downlink.
    upload: bool = False
    #: The schemes it runs (R-AQM only where an eNodeB reads BSRs).
    schemes: tuple[str, ...] = tuple(s for s in SCHEMES if s != "raqm")


def _wcdma(bearer: str) -> Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]:
    """A bearer of the WCDMA study as that study builds it (100 kB PDCP buffer, 70 ms core), ``queue`` in it."""

    def build(queue: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
        doc = wcdma.scenario(bearer, "file", "td")
        return {"core": doc["core"], "radio": {**doc["radio"], "queue": queue}}

    return build


def _hsdsch(queue: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
    from cellaqm import hsdsch

    doc = hsdsch.system("dt", 30, "long", "rr", 0.3)
    radio = {k: v for k, v in doc["radio"].items() if k != "buffer_packets"}
    radio.update(buffer="100kB", queue=queue)
    return {"core": doc["core"], "radio": radio}


def _lte_uplink(rate: dict[str, Any]) -> Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]:
    """The LTE uplink study's radio with ``rate`` (a fixed cell rate, or each UE's own fading channel)."""

    def build(queue: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
        lte: dict[str, Any] = {**rate, "scheduler": "proportional_fair", "ues_per_tti": 1, "bsr_period": "20ms",
                               "bsr_table": lte_uplink.BSR_TABLE}
        if receiver:
            lte["receiver"] = dict(receiver)
        return {"core": dict(lte_uplink.CORE), "radio": {"bearer": "lte_uplink", "uplink_buffer": lte_uplink.BUFFER,
                                                         "uplink_queue": queue, "lte": lte}}

    return build


#: The LTE downlink's cell (docs/lte-downlink.md): 9 MHz, each UE on its own Rayleigh-fading channel walking at
#: 3 m/s in a 500 m cell, proportional fair over up to 4 UEs per TTI, RLC AM, HARQ at 10 %, ACKs 10 ms up (our choice).
LTE_DOWNLINK: dict[str, Any] = {"bandwidth": "9MHz", "scheduler": "proportional_fair", "ues_per_tti": 4, "rlc": "am",
                                "uplink_delay": "10ms", "harq": {"bler": 0.1},
                                "channel": {"speed": "3m/s", "cell_radius": "500m", "carrier": "2GHz"}}


def _lte_downlink(queue: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
    """The LTE downlink with ``queue`` in each UE's PDCP buffer at the eNodeB (the LTE study's 1.25 MB and core)."""
    return {"core": dict(lte_uplink.CORE), "radio": {"bearer": "lte_downlink", "buffer": lte_uplink.BUFFER,
                                                     "queue": queue, "lte_downlink": LTE_DOWNLINK}}


#: The measured traces (Mahimahi format), in the repository.
TRACES = Path(__file__).resolve().parents[2] / "scenarios" / "traces" / "data"


def _trace(name: str) -> Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]:
    def build(queue: dict[str, Any], receiver: dict[str, Any] | None) -> dict[str, Any]:
        down, up = TRACES / f"{name}.down", TRACES / f"{name}.up"
        if not down.is_file():
            raise FileNotFoundError(f"{down}: the measured traces come with a clone of the repository")
        return {"core": {"rate": "1Gbps", "delay": "10ms"},
                "bottleneck": {"rate": {"trace": str(down)}, "delay": "10ms", "buffer": "1MB", "queue": queue},
                "uplink": {"rate": {"trace": str(up)}, "delay": "10ms", "buffer": "1MB"}}

    return build


BEARERS: dict[str, Bearer] = {b.name: b for b in (
    Bearer("dch384", "R99 DCH 384 kb/s with RLC AM (the WCDMA study's bearer)", (1, 1), 100, _wcdma("dch384")),
    Bearer("hsdpa", "HSDPA 3.6 Mb/s cell, round robin (the WCDMA study's HSDPA bearer)", (4, 8), 100, _wcdma("hsdpa3600")),
    Bearer("hsdsch", "HS-DSCH, seven cells, round robin (the HS-DSCH study's system)", (14, 30), 100, _hsdsch),
    Bearer("lte-ul", "LTE uplink 10 Mb/s cell, proportional fair (the LTE uplink study's radio)", (3, 3), 1250,
           _lte_uplink({"rate": "10Mbps"}), upload=True, schemes=tuple(SCHEMES)),
    Bearer("lte-ul-fading", "LTE uplink, each UE on its own fading channel at 0.83 m/s, proportional fair (the LTE "
           "uplink study's realistic radio)", (3, 3), 1250,
           _lte_uplink({"channel": {"speed": "0.83m/s"}, "harq": {"bler": 0.1}}), upload=True,
           schemes=tuple(SCHEMES)),
    Bearer("lte-dl", "LTE downlink, each UE on its own fading channel at 3 m/s, proportional fair (docs/lte-downlink.md)",
           (4, 8), 1250, _lte_downlink),
    Bearer("umts-trace", "Measured T-Mobile UMTS link, driving (Mahimahi trace, 2.0 Mb/s mean down)", (1, 4), 1000,
           _trace("TMobile-UMTS-driving")),
    Bearer("lte-trace", "Measured Verizon LTE link (Mahimahi trace)", (1, 4), 1000, _trace("Verizon-LTE-short")),
)}

TRAFFIC = ("bulk", "web")


def traffic(bearer: Bearer, kind: str) -> list[dict[str, Any]]:
    """Bulk: two long flows per user (the second 1 s later); web: HTTP/1.0 pages (uploads: small files)."""
    users = bearer.users[0 if kind == "bulk" else 1]
    if kind == "bulk":
        if bearer.upload:
            return [{"model": "upload", "users": users, "files": 1, "size": "10GB", "first_user": 0, "name": n,
                     **({"start": "1s"} if n == "bulk2" else {})} for n in ("bulk1", "bulk2")]
        return [{"model": "bulk", "flows": users, "first_user": 0, "name": n, **({"start": "1s"} if n == "bulk2" else {})}
                for n in ("bulk1", "bulk2")]
    if bearer.upload:
        return [{"model": "upload", "users": users, "files": 1000, "size": lte_uplink.SMALL, "idle": lte_uplink.IDLE}]
    return [{**wcdma.TRAFFIC["web"]["traffic"], "users": users, "request_size": wcdma.REQUEST,
             "start": {"dist": "uniform", "min": "0s", "max": "6s"}}]


def scenario(bearer: str, kind: str, scheme: str, duration_s: float) -> dict[str, Any]:
    """One case as a scenario mapping (the structure of a TOML file)."""
    b, s = BEARERS[bearer], SCHEMES[scheme]
    doc = b.build(s.queue(b.buffer_kb), s.receiver)
    return {"name": f"modern-aqm-{bearer}-{kind}-{scheme}",
            "description": f"modern AQM comparison: {b.title}, {kind}, {s.label}",
            "duration": f"{duration_s:g}s", "tcp": {**TCP, "ecn": s.ecn}, "traffic": traffic(b, kind), **doc}


# --------------------------------------------------------------------------- a run's measures


def jain(values: Any) -> float:
    """Jain's fairness index: (Σx)² / (n Σx²); 1 when all are equal, NaN if none."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(x.sum() ** 2 / (len(x) * (x * x).sum())) if len(x) and (x * x).sum() > 0 else math.nan


def measure(run: Run) -> Run:
    """Simulates ``run``: goodput, p95 delay of the managed direction, Jain's index and the drop share."""
    from cellaqm import run as simulate

    t0 = time.perf_counter()
    res = simulate(run.doc, seed=run.seed)
    s = res.summary
    upload = run.options["upload"]
    if run.options["kind"] == "bulk":
        flows = res.flows
        goodput = float(flows["goodput_bps"].sum())
        fairness = jain(flows["goodput_bps"])
    else:
        d = res.downloads
        done = d[d["completion_s"].notna()]
        goodput = float((done["bytes"] * 8 / done["time_s"]).mean()) if len(done) else math.nan
        fairness = jain((done["bytes"] * 8 / done["time_s"]).groupby(done["user"]).mean()) if len(done) else math.nan
    delay = s["delay_up_ms" if upload else "delay_ms"] or {}
    buffer = s["uplink" if upload else "bottleneck"]
    drops, sent = float(sum((buffer.get("drops") or {}).values())), float(buffer.get("packets_sent") or 0)
    arrived = drops + sent
    run.out = {"goodput_kbps": goodput / 1e3, "p95_ms": math.nan if delay.get("p95") is None else float(delay["p95"]),
               "jain": fairness, "dropped": 100 * drops / arrived if arrived else math.nan,
               "marked": 100 * float(buffer.get("marked") or 0) / arrived if arrived else math.nan,
               "rtos": float(s["rtos"]), "stalled_flows": float(s["stalled_flows"]),
               "wall_s": time.perf_counter() - t0}
    return run


# --------------------------------------------------------------------------- experiments

MEASURES = ("goodput_kbps", "goodput_kbps_vs_td_pct", "p95_ms", "p95_ms_vs_td_pct", "jain", "dropped", "marked",
            "rtos")
MEASURE_LABELS = {"goodput_kbps": "goodput [kb/s]", "goodput_kbps_vs_td_pct": "goodput vs TD",
                  "p95_ms": "p95 delay [ms]", "p95_ms_vs_td_pct": "p95 vs TD", "jain": "Jain's index",
                  "dropped": "dropped [%]", "marked": "ECN-marked [%]",
                  "rtos": "RTOs"}
#: The schemes of today (drawn filled in the figures; the studies' seed schemes hollow).
MODERN = ("codel", "pie", "fq_codel", "codel_ecn", "pie_ecn", "fq_codel_ecn")


def bearer_runs(bearer: Bearer) -> Callable[[bool, int], list[Run]]:
    def runs(quick: bool, reps: int) -> list[Run]:
        duration = (QUICK if quick else FULL)[0]
        return [Run({"traffic": kind, "scheme": SCHEMES[s].label}, scenario(bearer.name, kind, s, duration), seed,
                    {"upload": bearer.upload, "kind": kind})
                for kind in TRAFFIC for s in bearer.schemes for seed in range(1, reps + 1)]

    return runs


def figure(runs: list[Run], rows: list[dict[str, Any]], path: Path) -> None:
    """Per traffic: goodput against p95 delay (log scale), one point per scheme with its 95% intervals; below,
    Jain's index per scheme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modern = {SCHEMES[s].label for s in MODERN}
    fig, axes = plt.subplots(2, len(TRAFFIC), figsize=(5.2 * len(TRAFFIC), 7.0), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 2]})
    for col, kind in enumerate(TRAFFIC):
        mine = [r for r in rows if r["traffic"] == kind]
        ax = axes[0][col]
        for n, r in enumerate(mine):
            colour = plt.get_cmap("tab20")(n % 20)
            ax.errorbar(r["p95_ms"], r["goodput_kbps"], xerr=_ci(r, "p95_ms"), yerr=_ci(r, "goodput_kbps"),
                        fmt="o", ms=7, capsize=2, color=colour, mfc=colour if r["scheme"] in modern else "white",
                        label=r["scheme"])
        ax.set_xscale("log")
        ax.set_title(f"{kind}: {'all flows' if kind == 'bulk' else 'mean download'}", fontsize=9)
        ax.set_xlabel("p95 delay through the managed buffer [ms]")
        ax.set_ylabel("goodput [kb/s]")
        ax.grid(alpha=0.3, which="both")
        bars = axes[1][col]
        bars.bar(range(len(mine)), [r["jain"] for r in mine], yerr=[_ci(r, "jain") or 0 for r in mine],
                 color=[plt.get_cmap("tab20")(n % 20) for n in range(len(mine))])
        bars.set_xticks(range(len(mine)), [r["scheme"] for r in mine], rotation=60, fontsize=7)
        bars.set_ylim(0, 1.05)
        bars.set_ylabel("Jain's index")
        bars.grid(alpha=0.3, axis="y")
    axes[0][0].legend(fontsize=6, ncol=2)
    fig.suptitle("filled: CoDel, PIE, FQ-CoDel (with and without ECN); hollow: the studies' schemes", fontsize=8)
    save(fig, path)


def _ci(row: dict[str, Any], measure: str) -> float | None:
    ci = row.get(measure + "_ci", math.nan)
    return None if math.isnan(ci) else ci


NOTE = ("two long flows per user (bulk) or HTTP/1.0 pages (web; small files on the LTE uplink); CUBIC + SACK, IW 10; "
        "goodput: bulk all flows together, web the mean download; p95: the delay through the managed buffer's "
        "direction; Jain's index: bulk over flows, web over the users' mean download goodputs; vs TD: change from "
        f"tail drop. See {DOC}")

def versus_td(rows: list[dict[str, Any]]) -> None:
    wcdma.versus_td(rows, "traffic")


EXPERIMENTS = [Experiment(b.name, b.title, bearer_runs(b), ("traffic", "scheme"), MEASURES, figure,
                          f"{b.users[0]} users (bulk), {b.users[1]} (web), buffer {b.buffer_kb} kB; " + NOTE, versus_td)
               for b in BEARERS.values()]

STUDY = Study("modern-aqm", "The studies' question asked of CoDel, PIE and FQ-CoDel", DOC, EXPERIMENTS, measure,
              MEASURE_LABELS, reps=(FULL[1], QUICK[1]))
