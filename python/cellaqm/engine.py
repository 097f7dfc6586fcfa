"""One experiment engine: ``cellaqm reproduce`` runs a study's experiments as sweep plans on the sweep runner.

The chosen experiments become plans (:mod:`cellaqm.plan`: ``--set`` applied,
one simulation per distinct scenario, seed and options); the simulations the
store under ``OUT/store`` does not hold yet run on the sweep runner
(:func:`cellaqm.runner.run_entries`: local threads, or Ray), each measured by
the study's ``measure`` and kept as a row in the store of every experiment
that lists it (:mod:`cellaqm.rows`). As soon as all runs of the next
experiment (in the study's order) are stored, its runs' measures are read
back from the store, its table, CSV, figure and analysis are made and
``report.md`` is rewritten (:mod:`cellaqm.report`); so a table is the same
whether the runs ran now, in another session (``--resume``), with another
job count or on Ray. After the last experiment the study's findings are
judged and its published results set beside ours.

Without ``--resume`` the chosen experiments' earlier stores are replaced;
with it, only the runs missing there run (a run stored by another experiment
that lists the same simulation is copied, not rerun).
"""

from __future__ import annotations

import copy
import resource
import shutil
import sys
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

import pyarrow as pa

from cellaqm import rows as stored
from cellaqm.findings import Results, judge_all
from cellaqm.plan import ExperimentPlan, PlanError, StudyPlan, manifest, plan
from cellaqm.progress import StudyProgress, _clock
from cellaqm.report import Output, finish_lines
from cellaqm.store import RESULTS, USERS, Store, write_json_atomic, write_table_atomic
from cellaqm.study import Run, Study, stall_warning, table


# --------------------------------------------------------------------------- in a worker


def perform(entry: Mapping[str, Any], abandon: Any = None) -> dict[str, Any]:
    """Measure one simulation (the study's ``measure`` on the entry's scenario, seed and options); never raises
    but to abandon the run. Returns ``run_id``, ``out`` (or ``error``), ``users`` (the per-user rows of the
    simulation when it has several users; of each, with a column ``simulation``, if the measure made several;
    else None) and ``run_wall_s``."""
    from cellaqm.api import RunContext, run_context
    from cellaqm.runner import _check

    start = time.perf_counter()
    outcome: dict[str, Any] = {"run_id": entry["run_id"], "users": None}
    context = RunContext(None if abandon is None else (lambda _s, _d: _check(abandon)))
    token = run_context.set(context)
    try:
        run = Run({}, copy.deepcopy(entry["doc"]), entry["seed"], copy.deepcopy(entry["options"]))
        measured = entry["measure"](run)
        outcome["out"] = (measured if measured is not None else run).out
        outcome["users"] = users(context.results)
    except Exception as exc:  # noqa: BLE001 - a failed run is recorded, the reproduction goes on
        outcome["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
        outcome["traceback"] = traceback.format_exc()
    finally:
        run_context.reset(token)
    outcome["run_wall_s"] = time.perf_counter() - start
    return outcome


def users(results: list[Any]) -> Any:
    """The per-user rows of the simulations a measure made (those with several users), or None."""
    import pandas as pd

    several = [(k, r) for k, r in enumerate(results) if r.summary.get("users", 1) > 1]  # the frames cost ms each
    if len(results) == 1:
        return several[0][1].users if several else None
    frames = [r.users.assign(simulation=k) for k, r in several]
    return pd.concat(frames, ignore_index=True) if frames else None


def keep(entry: Mapping[str, Any], outcome: Mapping[str, Any]) -> Optional[str]:
    """Store a simulation's outcome as a row in each experiment store that lists it; return its error or None."""
    error = outcome.get("error")
    split = []
    if error is None:
        try:
            split = [stored.split(outcome["out"], t["factors"]) for t in entry["rows"]]
        except stored.RowError as exc:
            error = f"storing the result failed: {exc}"
    for n, t in enumerate(entry["rows"]):
        store = Store(t["root"])
        if error is not None:
            store.write_failure({"run_id": t["row_id"], "levels": t["levels"], "rep": t["rep"], "seed": entry["seed"]},
                                error)
            continue
        scalars, tables, spec = split[n]
        if outcome.get("users") is not None:
            tables = {**tables, USERS: pa.Table.from_pandas(outcome["users"], preserve_index=False)}
        store.write_run(stored.row(t["row_id"], t["levels"], t["rep"], entry["seed"], scalars, spec, entry["doc"],
                                   entry["options"], outcome["run_wall_s"], entry["version"]), tables)
    return error


# --------------------------------------------------------------------------- the reproduction


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children so far (user + system)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class Reproduction:
    """A study plan run into ``out/store``, each experiment finished in order as its runs are stored."""

    def __init__(self, p: StudyPlan, out: Path, output: Output, resume: bool) -> None:
        self.plan, self.out, self.output, self.resume = p, out, output, resume
        self.root = out / "store"
        self.results = Results()
        self.exps = p.experiments
        self.remaining = [len(ep.runs) for ep in self.exps]
        self.errors: list[list[str]] = [[] for _ in self.exps]
        self.next = 0
        self.run_wall_s = 0.0
        self.slowest: Optional[tuple[float, str, Run]] = None
        self.ran = self.copied = 0
        self.progress: Optional[StudyProgress] = None

    def store(self, ep: ExperimentPlan) -> Store:
        return Store(self.root / ep.name)

    # ------------------------------------------------------------------ before the runs

    def prepare(self) -> tuple[list[dict[str, Any]], int]:
        """Prepare each experiment's store; return the simulations to run and how many are stored already."""
        from cellaqm import __version__

        p = self.plan
        replaced = 0
        done: list[set[str]] = []
        for ep in self.exps:
            d = self.root / ep.name
            if not self.resume and d.exists():
                shutil.rmtree(d)
                replaced += 1
            store = Store(d)
            store.prepare(ep.manifest(p.study, p.mode, p.sets), resume=True)
            done.append(store.finished_ids(verify=self.resume) & set(ep.row_ids))
        write_json_atomic(self.root / "study.json", manifest(p))
        if replaced:
            self.output.say(f"replaced the earlier runs of {replaced} experiment(s) in {self.root} "
                            "(--resume would have kept them)")
        targets: dict[str, list[tuple[int, int]]] = {}
        for i, ep in enumerate(self.exps):
            for j, sid in enumerate(ep.sim_ids):
                targets.setdefault(sid, []).append((i, j))
        entries, stored_now = [], 0
        for sid, where in targets.items():
            missing = [(i, j) for i, j in where if self.exps[i].row_ids[j] not in done[i]]
            for i, j in where:
                if (i, j) not in missing:
                    self.remaining[i] -= 1
            if not missing:
                stored_now += 1
                continue
            entry = self.entry(sid, missing, __version__)
            have = [(i, j) for i, j in where if (i, j) not in missing]
            if have:  # stored by another experiment that lists the same simulation: copy it
                i, j = have[0]
                outcome = stored.outcome(self.store(self.exps[i]), self.exps[i].row_ids[j], self.exps[i].factors)
                self.count(entry, keep(entry, outcome))
                self.copied += 1
                stored_now += 1
            else:
                entries.append(entry)
        return entries, stored_now

    def entry(self, sid: str, where: list[tuple[int, int]], version: str) -> dict[str, Any]:
        i, j = where[0]
        run = self.exps[i].runs[j]
        return {"run_id": sid, "measure": self.plan.study.measure, "doc": run.doc, "seed": run.seed,
                "options": run.options, "version": version,
                "rows": [{"root": str(self.root / self.exps[a].name), "row_id": self.exps[a].row_ids[b],
                          "levels": self.exps[a].levels(self.exps[a].runs[b]), "rep": self.exps[a].reps[b],
                          "factors": self.exps[a].factors, "at": (a, b)} for a, b in where]}

    # ------------------------------------------------------------------ as runs finish

    def count(self, entry: Mapping[str, Any], error: Optional[str]) -> None:
        """A simulation is stored (or failed): count it for every experiment that lists it."""
        for t in entry["rows"]:
            i, j = t["at"]
            self.remaining[i] -= 1
            if error is not None:
                ep = self.exps[i]
                self.errors[i].append(f"{', '.join(f'{k} {v}' for k, v in t['levels'].items())}, seed "
                                      f"{ep.runs[j].seed}: {error}")

    def finish_ready(self) -> None:
        """Finish the experiments, in order, whose runs are all stored."""
        while self.next < len(self.exps) and self.remaining[self.next] == 0:
            self.finish(self.exps[self.next])
            self.next += 1
            if self.progress is not None and self.next < len(self.exps):
                self.progress.naming(self.exps[self.next].name)

    def finish(self, ep: ExperimentPlan) -> None:
        """All runs of ``ep`` are stored: its table, CSV, figure and report section, from the store."""
        if self.progress is not None:
            self.progress.finished(ep.name, len(ep.runs))
        errors = self.errors[self.exps.index(ep)]
        if errors:
            self.output.failures(ep, errors)
            return
        exp, store = ep.experiment, self.store(ep)
        outs, rows_table = stored.read(store, ep.row_ids, ep.factors)
        write_table_atomic(store.root / RESULTS, rows_table)
        for run, rid in zip(ep.runs, ep.row_ids):
            run.out = outs[rid]
        walls = rows_table.column("run_wall_s").to_pylist() if len(ep.runs) else []
        self.run_wall_s += sum(walls)
        for w, run in zip(walls, ep.runs):
            if self.slowest is None or w > self.slowest[0]:
                self.slowest = (w, ep.name, run)
        rows = table(ep.runs, exp.group, exp.measures)
        if exp.post is not None:
            exp.post(rows)
        self.results.add(exp.name, rows, ep.runs)
        self.output.experiment(ep, rows)
        self.output.write_report(self.output.report("(in progress)", done=False))

    # ------------------------------------------------------------------ the whole

    def run(self, jobs: int, backend: str, ray_address: Optional[str], bar: bool, quiet: bool) -> int:
        from cellaqm.runner import run_entries

        p, output = self.plan, self.output
        start, cpu0 = time.perf_counter(), _cpu_s()
        with Store(self.root).lock():
            entries, stored_now = self.prepare()
            sims = len(p.simulations())
            output.header(jobs, backend)
            if stored_now:
                copied = f" ({self.copied} copied from another experiment's store)" if self.copied else ""
                output.say(f"{stored_now} of {sims} simulations are in {self.root} already{copied}; "
                           f"{len(entries)} to run")
            self.progress = StudyProgress(p.study.name, sims - len(entries), sims, bar, sys.stderr, quiet=quiet)
            output.pause = self.progress.pause
            if self.next < len(self.exps):
                self.progress.naming(self.exps[self.next].name)
            by_id = {e["run_id"]: e for e in entries}

            def on_done(sid: str, error: Optional[str]) -> None:
                self.ran += 1
                self.progress.advance()  # type: ignore[union-attr]
                self.count(by_id[sid], error)
                self.finish_ready()

            self.finish_ready()  # the experiments stored already
            try:
                run_entries(entries, perform, keep, jobs, backend, ray_address, "thread", on_done)
            except KeyboardInterrupt:
                self.progress.close()
                output.pause = None
                stored_rows = sum(len(ep.runs) - r for ep, r in zip(self.exps, self.remaining))
                output.say(f"interrupted: {stored_rows} of {p.runs} runs are stored in {self.root}; finish with the "
                           "same command and --resume")
                raise
            finally:
                self.progress.close()
                output.pause = None
        wall, cpu = time.perf_counter() - start, _cpu_s() - cpu0
        return self.conclude(jobs, backend, wall, cpu, stored_now)

    def conclude(self, jobs: int, backend: str, wall: float, cpu: float, stored_now: int) -> int:
        """Findings, the published comparison, warnings and the final report."""
        s, output = self.plan.study, self.output
        comparison = s.published(self.results) if s.published is not None else None
        if comparison is not None:
            output.comparison(comparison)
        judged = judge_all(s.findings, self.results) if s.findings else []
        if judged:
            output.findings(judged)
        if output.stalled:
            output.say(stall_warning(output.stalled, every=False))
        cpu_text = "" if backend == "ray" else f", {cpu:,.1f} CPU-s"
        timing = (f"this session ran {self.ran} simulation(s) in {wall:,.1f} s wall on {jobs} job(s){cpu_text}"
                  + (f" ({stored_now} were in the store already)" if stored_now else "")
                  + f"; the runs' own times sum to {self.run_wall_s:,.1f} s ({_clock(self.run_wall_s)})")
        output.write_report(output.report(timing, judged, comparison))
        output.say(timing[0].upper() + timing[1:])
        if self.slowest is not None:
            w, name, run = self.slowest
            labels = ", ".join(f"{k} {v}" for k, v in run.labels.items())
            output.say(f"slowest run {w:.2f} s ({name}: {labels}, seed {run.seed})")
        output.say(finish_lines(self.out, output.written))
        return 1 if output.failed else 0


# --------------------------------------------------------------------------- command line


def chosen(study: Study, args: Any) -> list[Any]:
    """The experiments ``--only`` names (all by default), or the study's demo with ``--demo``."""
    from cellaqm.cli import UsageError

    if args.demo:
        if study.demo is None:
            raise UsageError(f"{study.name}: --demo: this study has no demo (wcdma-rnc-aqm has)")
        if args.only:
            raise UsageError("--demo and --only do not go together (the demo is one experiment)")
        return [study.demo]
    by_name = study.by_name()
    names = [n.strip() for n in (args.only or ",".join(by_name)).split(",") if n.strip()]
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UsageError(f"--only: unknown experiment {unknown[0]!r} (one of {', '.join(by_name)})")
    return [by_name[n] for n in dict.fromkeys(names)]


def command(study: Study, args: Any, jobs: int, out: Path) -> int:
    """``cellaqm reproduce STUDY`` (see :func:`cellaqm.reproduce.add_parser` for the options)."""
    from cellaqm.cli import UsageError
    from cellaqm.cli_experiments import runner_errors

    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address needs --backend ray")
    experiments = chosen(study, args)
    mode = "demo" if args.demo else "quick" if args.quick else "full"
    reps = args.reps if args.reps is not None else study.reps[1 if args.quick else 0]
    sets = list(args.sets) + ([f"duration={args.duration:g}s"] if args.duration is not None else [])
    try:
        p = plan(study, experiments, mode, reps, sets)
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    bar = sys.stdout.isatty() and sys.stderr.isatty()
    output = Output(p, out, args.format)
    with runner_errors(out):
        return Reproduction(p, out, output, args.resume).run(jobs, args.backend, args.ray_address, bar, args.quiet)
