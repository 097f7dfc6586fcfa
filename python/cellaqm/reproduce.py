"""``cellaqm reproduce STUDY``: the command line of the five studies' reproductions, their registry
(:data:`STUDIES`, which ``cellaqm list studies`` lists with each study's experiments and sizes), and the
TOML writer the studies use for the scenario files they generate (:func:`to_toml`).

Each study is a :class:`cellaqm.study.Study` in its own module; the command
runs it on the experiment engine (:mod:`cellaqm.engine`).
"""

from __future__ import annotations

import argparse
import importlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cellaqm.study import Study


@dataclass(frozen=True)
class Target:
    """A ``cellaqm reproduce`` target: its name, the module whose ``STUDY`` it runs, and what it reproduces."""

    name: str
    module: str
    description: str

    def study(self) -> Study:
        study: Study = importlib.import_module(f"cellaqm.{self.module}").STUDY
        return study


#: Every ``reproduce`` target (the command's choices), in the order of ``cellaqm list studies``.
STUDIES = (
    Target("wcdma-rnc-aqm", "wcdma",
           "Lakkakorpi & Cuny (WCNC 2006): p95 delay and goodput of TD, RED, ARED, PDPC, TTLRED1, TTLRED2 "
           "in the RNC's PDCP buffer, 8 WCDMA bearer x traffic rows + HSDPA 3.6M 2.5 MB, beside the published "
           "Table I (docs/wcdma.md)"),
    Target("lte-uplink-raqm", "lte_uplink",
           "the LTE uplink study's chapter-7 experiments: R-AQM, T-AQM, PDCP discard, DFF and combined AQM "
           "at fixed, square-wave and realistic rates, BSR period, fairness, estimator error (docs/lte-uplink.md)"),
    Target("hsdsch-buffer-mgmt", "hsdsch",
           "the HS-DSCH study: DT, DF, RED and PDPC n as ns-2.27 ran them; scenario 1 (one wired buffer), "
           "scenario 2 (seven HS-DSCH cells, session loads, ANOVA and Tukey), scenario 3 (one user) (docs/hsdsch.md)"),
    Target("umts-rlc-tcp", "rlc_tcp",
           "the RLC-TCP study: TCP over RLC AM on a 384 kb/s DCH with Rayleigh-fading frame errors: initial "
           "window, buffer x Reno/SACK/timestamps, RTT/RTO trace, status prohibit and triggers, limited transmit, "
           "Eifel, RLC window, maxDAT and discards, in-order delivery, drop-tail/RED/ACK delay, what the buffer "
           "counts, occupancy, PDU errors; its 16 findings judged (docs/rlc-tcp.md)"),
    Target("umts-dsch-rrm", "dsch",
           "the DSCH study: 37 UMTS cells whose resource managers serve 250 calls first and web users on the "
           "DSCH up to a load factor phi; Table 3 and Fig. 2 per phi x {400, 600} web users, the users under "
           "test's TCP throughput with SACK+FACK on/off, three readings of the calls' load, a time-sequence "
           "trace, the study's 20 findings judged (docs/dsch.md)"),
    Target("modern-aqm", "modern_aqm",
           "the studies' question asked of today's AQMs: TD, DF, RED, ARED, PDPC, TTLRED1/2, T-AQM, PDCP discard "
           "(and R-AQM on the LTE uplink) beside CoDel, PIE and FQ-CoDel (with and without ECN) on the R99 DCH, "
           "HSDPA, HS-DSCH, LTE uplink (fixed rate and fading) and LTE downlink bearers and two measured traces, bulk and web traffic: goodput, p95 delay, Jain's index, drops "
           "(docs/modern-aqm.md)"),
)
EXPERIMENTS = tuple(s.name for s in STUDIES)


def study(name: str) -> Study:
    return next(t for t in STUDIES if t.name == name).study()


def sizes(target: Target) -> dict[str, Any]:
    """What ``cellaqm list studies`` shows of a study: its experiments (the ``--only`` names) and the runs and
    simulations of its full and ``--quick`` reproductions."""
    from cellaqm.plan import plan

    s = target.study()
    entry: dict[str, Any] = {"name": target.name, "title": s.title, "description": target.description, "doc": s.doc,
                             "replications": {"full": s.reps[0], "quick": s.reps[1]}}
    plans = {mode: plan(s, s.experiments, mode, s.reps[mode == "quick"]) for mode in ("full", "quick")}
    entry["runs"] = {mode: p.runs for mode, p in plans.items()}
    entry["simulations"] = {mode: len(p.simulations()) for mode, p in plans.items()}
    entry["experiments"] = [{"name": full.name, "title": full.experiment.title,
                             "runs": {"full": len(full.runs), "quick": len(quick.runs)}}
                            for full, quick in zip(plans["full"].experiments, plans["quick"].experiments)]
    entry["demo"] = s.demo.name if s.demo is not None else None
    return entry


# --------------------------------------------------------------------------- scenario files


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def to_toml(doc: dict[str, Any], header: str = "") -> str:
    """A scenario mapping as TOML: scalars first, then one table per section (nested tables as sub-tables)."""
    lines = [f"# {line}" for line in header.splitlines()]

    def table(prefix: str, d: dict[str, Any]) -> None:
        subs = {k: v for k, v in d.items() if isinstance(v, dict) and k not in ("queue", "loss", "request_size", "thresholds")}
        lines.append(f"\n[{prefix}]")
        for k, v in d.items():
            if k not in subs:
                lines.append(f"{k} = {_toml_value(v)}")
        for k, v in subs.items():
            table(f"{prefix}.{k}", v)

    for k, v in doc.items():
        if not isinstance(v, dict):
            lines.append(f"{k} = {_toml_value(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            table(k, v)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- command line


def _positive(kind: type) -> Any:
    """An argparse type: a number of ``kind`` above zero (0 would otherwise read as "not given")."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not (value > 0 and math.isfinite(value)):
            what = "integer" if kind is int else "number"
            raise argparse.ArgumentTypeError(f"expected a positive {what}, got {text!r}")
        return value

    return parse


_DESCRIPTION = """\
Run a study's experiments and print, and write as CSV, PNG and report.md, each
experiment's table (mean and 95% confidence interval over the replications),
the study's stated findings judged on this run and, for wcdma-rnc-aqm, the
published Table I beside ours. 'cellaqm list studies' lists each study's
experiments (the --only names) and the runs of its full and --quick versions.

The runs go through the sweep runner into a store under --out: OUT/store/
EXPERIMENT/ holds one Parquet row per run (its labels, seed and measures), read
by 'cellaqm table OUT/store/EXPERIMENT --metric M' and 'cellaqm plot'. A run
that several experiments list is simulated once. --resume finishes an
interrupted reproduction: only the runs missing from the store run, and the
tables are the same as an uninterrupted run's (the same seeds give the same
tables whatever --jobs or --backend). Without --resume the chosen experiments'
earlier runs in OUT/store are replaced.

Tables fit the width ($COLUMNS, or the terminal): one too wide is split by
columns, long labels wrap; nothing is cut. Off a terminal a progress line per
experiment goes to stderr.

wcdma-rnc-aqm: 8 bearer x traffic rows + the HSDPA 3.6 Mb/s 2.5 MB case, x TD,
RED, ARED, PDPC, TTLRED1, TTLRED2; 1200 s, 6 replications (--quick: 200 s, 2);
--demo: one bearer, 300 s runs, with its figure.
lte-uplink-raqm: the chapter-7 experiments of the LTE uplink study (R-AQM's
parameters; R-AQM, T-AQM, PDCP discard, DFF and combined AQM at fixed, square-wave
and realistic rates; BSR period; fairness; estimator error; TCP sensitivity);
5 replications where random (--quick: smaller files, fewer points, 1).
hsdsch-buffer-mgmt: the HS-DSCH study's buffer schemes (DT, DF, RED and PDPC n,
in packets, as ns-2.27 ran them): scenario 1, one buffer before a 384 kb/s wired
link; scenario 2, the seven-cell HS-DSCH system under session loads, system
goodput per cell with paired t-tests, ANOVA and Tukey; scenario 3, one user's
transfer times (10 replications; --quick: 60 s, 2); the load sweep.
umts-rlc-tcp: TCP over RLC AM on a 384 kb/s DCH with fading (2 MB downloads):
initial window x packet size, buffer x Reno/SACK/timestamps, the RTT/RTO trace
(Fig. 3), slow start, status prohibit and STATUS triggers, limited transmit, the
Eifel response, RLC window x RAN RTT and x channel, maxDAT and discard bursts,
in-order delivery, drop-tail/RED/ACK delay, what the buffer counts, occupancy,
PDU errors; its 16 findings judged; 20 replications (--quick: 2, fewer levels).
umts-dsch-rrm: the DSCH study's 37-cell system, phi 60-100% x {400, 600} web users
(+ no web users): the central cell's load factor, acceptance, SDU errors, delay and
the web users' demand; the users under test's TCP throughput with SACK+FACK on/off;
660 s runs, 10 replications; three readings of the calls' load; one transfer's
time-sequence trace; the 20 findings judged (--quick: 60 s, phi 60 and 100%, 1).
modern-aqm: not a study: the studies' schemes beside CoDel, PIE and FQ-CoDel
(each with and without ECN) on every bearer (R99 DCH, HSDPA, HS-DSCH, LTE uplink
fixed and fading, LTE downlink) and two measured traces, bulk and web traffic, CUBIC + SACK;
120 s, 5 replications (--quick: 30 s, 1).

Exit status: 0 when every run finished; 1 when some runs failed (their
experiments have no table; --resume reruns them) or OUT cannot be written; 2
for a bad option or --set (nothing has run); 130 when interrupted (the runs
finished so far are kept: finish with --resume)."""

_EPILOG = """\
examples:
  cellaqm reproduce wcdma-rnc-aqm --quick
  cellaqm reproduce umts-dsch-rrm --out results/dsch            # about 930 CPU-s, 8 min on 2 free cores
  cellaqm reproduce umts-dsch-rrm --out results/dsch --resume   # after an interruption
  cellaqm reproduce umts-rlc-tcp --only in-order,status-prohibit --set radio.dch.fading.mean=0.05
  cellaqm reproduce hsdsch-buffer-mgmt --quick --backend ray --jobs 2
  cellaqm reproduce lte-uplink-raqm --quick --format csv > tables.csv
  cellaqm table results/dsch/store/tcp --metric throughput_kbps --rows 'φ [%]' --cols TCP
"""


def add_parser(commands: Any) -> None:
    p = commands.add_parser("reproduce", help="run a study's experiments: tables, figures, findings, report.md",
                            description=_DESCRIPTION, epilog=_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", choices=EXPERIMENTS, metavar="STUDY", help="one of: " + ", ".join(EXPERIMENTS))
    p.add_argument("--quick", action="store_true", help="the short version for CI: fewer levels, replications and "
                   "shorter runs (the sizes: cellaqm list studies)")
    p.add_argument("--demo", action="store_true",
                   help="wcdma-rnc-aqm: one bearer (R99 384k, web), every scheme, 300 s runs, with its figure")
    p.add_argument("--only", metavar="NAMES",
                   help="only these experiments (comma-separated; cellaqm list studies lists them)")
    p.add_argument("--reps", type=_positive(int), metavar="N",
                   help="replications of the random cases (overrides the study's)")
    p.add_argument("--set", action="append", default=[], metavar="KEY.PATH=VALUE", dest="sets",
                   help="a sensitivity run: set a scenario value in every case of the chosen experiments, as "
                        "'cellaqm run --set' does, e.g. radio.rlc.status.prohibit=300ms (a key under radio.dch, "
                        "radio.hsdpa, radio.lte or radio.dsch goes to the cases of that bearer only); an experiment "
                        "it does not apply to, or that varies it, is an error naming it; repeatable")
    p.add_argument("--duration", type=_positive(float), metavar="S",
                   help="simulated seconds of every run (the same as --set duration=Ss)")
    p.add_argument("--out", metavar="DIR", help="where to write the tables, figures, report.md and the store "
                   "(default: results/STUDY)")
    p.add_argument("--resume", action="store_true",
                   help="finish the reproduction in --out: run only the runs missing from its store")
    p.add_argument("--jobs", type=_positive(int), metavar="N", help="parallel runs (default: all cores)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local threads (default) or a Ray cluster (pip install ray)")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="connect to this Ray cluster (default: start a local one with --jobs CPUs)")
    p.add_argument("--format", choices=("text", "md", "csv", "json"), default="text",
                   help="the tables on stdout: text (default; fits the width), md (Markdown), csv, or json (one "
                        "object per table and line); with md, csv and json the other lines go to stderr")
    p.add_argument("--quiet", action="store_true", help="no progress bar or progress lines")


def command(args: argparse.Namespace) -> int:
    from cellaqm.cli import OutputError
    from cellaqm.runner import default_jobs
    from cellaqm.study import command as run_study

    jobs = args.jobs if args.jobs is not None else default_jobs()
    out = Path(args.out or f"results/{args.experiment}")
    try:
        out.mkdir(parents=True, exist_ok=True)  # before the runs: a bad --out fails at once
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    return run_study(study(args.experiment), args, jobs, out)
