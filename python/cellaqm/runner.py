"""Running a sweep: every run of the plan that is not finished yet, on local threads or processes, or on Ray.

The simulator core releases the GIL for the whole run, so worker threads
simulate in parallel; each thread then stores its own result. ``bench/
sweep_scaling.py`` compares threads with worker processes (threads are the
default: see docs/experiments.md for the figures).
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import pandas as pd

from cellaqm import _core
from cellaqm.result import core_column
from cellaqm.store import DETAIL_KINDS, USERS, Store, build_row, columns_table, users_table
from cellaqm.sweepfile import SweepLike, SweepPlan, load_plan

BACKENDS = ("local", "ray")
EXECUTORS = ("thread", "process")


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# --------------------------------------------------------------------------- one run


def execute(task: Mapping[str, Any], abandon: Optional[threading.Event] = None) -> dict[str, Any]:
    """Simulate one run; never raises, but :class:`_Abandoned` once ``abandon`` is set.
    ``task``: run_id, scenario_json, seed, packets.

    Returns ``run_id``, ``summary`` (a dict; or ``error``), ``run_wall_s`` and,
    when ``packets`` (the detail) is asked for, ``packets`` and ``occupancy``
    (column name → numpy array or list of str; else None), and for a run with
    several users ``users`` (one dict per user; else None).
    """
    start = time.perf_counter()
    out: dict[str, Any] = {"run_id": task["run_id"], "packets": None, "occupancy": None, "users": None}
    try:
        raw = _core.run(task["scenario_json"], "json", int(task["seed"]), [], bool(task["packets"]),
                        progress=None if abandon is None else lambda _s, _d: _check(abandon), rows=False)
        out["summary"] = raw["summary"]
        if len(raw.get("users", [])) > 1:
            out["users"] = raw["users"]  # one row per user, kept for runs with several
        if raw.get("packets") is not None:
            out["packets"] = {name: core_column(value) for name, value in raw["packets"].items()}
            out["occupancy"] = {name: core_column(value) for name, value in raw["occupancy"].items()}
    except Exception as exc:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        out["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
        out["traceback"] = traceback.format_exc()
    out["run_wall_s"] = time.perf_counter() - start
    return out


def _check(abandon: threading.Event) -> None:
    if abandon.is_set():
        raise _Abandoned


def store_outcome(store: Store, entry: Mapping[str, Any], outcome: Mapping[str, Any], version: str) -> Optional[str]:
    """Write a run's result (or its failure); return the error, or None."""
    if "error" in outcome:
        store.write_failure(entry, outcome["error"])
        return str(outcome["error"])
    try:
        row = build_row(entry, outcome["summary"], outcome["run_wall_s"], version)
        detail = {kind: columns_table(outcome[kind]) for kind in DETAIL_KINDS if outcome.get(kind) is not None}
        if outcome.get("users"):
            detail[USERS] = users_table(outcome["users"])
        store.write_run(row, detail)
    except OSError:
        raise  # the store cannot be written: stop the sweep
    except Exception as exc:  # noqa: BLE001
        error = f"storing the result failed: {type(exc).__name__}: {exc}"
        store.write_failure(entry, error)
        return error
    return None


def keep_sweep_outcome(root: str, version: str, entry: Mapping[str, Any], outcome: Mapping[str, Any]) -> Optional[str]:
    """:func:`store_outcome` into the store at ``root`` (a picklable ``keep`` for :func:`run_entries`)."""
    return store_outcome(Store(root), entry, outcome, version)


#: Runs one entry in a worker: ``work(entry, abandon)`` returns its outcome (it never raises).
Work = Callable[[Mapping[str, Any], Optional[threading.Event]], dict[str, Any]]
#: Stores an entry's outcome; returns the run's error, or None.
Keep = Callable[[Mapping[str, Any], Mapping[str, Any]], Optional[str]]


def _job(work: Work, keep: Keep, entry: Mapping[str, Any],
         abandon: Optional[threading.Event] = None) -> tuple[str, Optional[str]]:
    """Run and store one entry (in a worker thread or process); give up if ``abandon`` is set."""
    return entry["run_id"], keep(entry, work(entry, abandon))


# --------------------------------------------------------------------------- progress


class _Progress:
    def __init__(self, name: str, total: int, enabled: bool) -> None:
        self.done = 0
        self.failed = 0
        self._bar = None
        if enabled and total:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs · [red]{task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._bar.add_task(name, total=total, failed=0)
            self._bar.start()

    def advance(self, failed: bool) -> None:
        self.done += 1
        self.failed += int(failed)
        if self._bar is not None:
            self._bar.update(self._task, advance=1, failed=self.failed)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


# --------------------------------------------------------------------------- backends


class _Abandoned(BaseException):
    """Raised in a worker thread's run when a second Ctrl-C abandons the runs in flight."""


def _ignore_sigint() -> None:
    """Worker processes leave Ctrl-C to the sweep's own process (see :func:`_run_local`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _CtrlC:
    """Counts Ctrl-Cs while local runs are in flight, instead of raising :class:`KeyboardInterrupt` wherever the
    main thread happens to be: a second Ctrl-C that lands while the first one is being handled is still counted.

    Only the main thread can catch signals; elsewhere the count stays 0 and Ctrl-C is left to Python.
    """

    def __init__(self) -> None:
        self.count = 0
        self._previous: Any = None

    def __enter__(self) -> "_CtrlC":
        import signal

        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._press)
        return self

    def _press(self, _signum: int, _frame: Any) -> None:
        self.count += 1

    def __exit__(self, *_exc: object) -> None:
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


#: How often the sweep's thread looks for a Ctrl-C while it waits for runs (seconds).
_POLL_S = 0.2


def _run_local(
    entries: list[dict[str, Any]],
    work: Work,
    keep: Keep,
    jobs: int,
    executor: str,
    on_done: Callable[[str, Optional[str]], None],
) -> None:
    """Run and keep ``entries`` on ``jobs`` threads or processes (each worker keeps its own outcome).

    A first Ctrl-C lets the runs in flight finish (and be stored), saying so;
    a second one abandons them (``--resume`` reruns them). Either way
    :class:`KeyboardInterrupt` is raised once the workers have stopped.
    """
    if jobs == 1:
        for entry in entries:
            on_done(*_job(work, keep, entry))
        return
    abandon = threading.Event()
    pool: cf.Executor
    if executor == "process":
        import multiprocessing as mp

        pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("forkserver"),
                                      initializer=_ignore_sigint)
    else:
        pool = cf.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="cellaqm-run")
    # Keep a bounded window in flight so that Ctrl-C stops quickly and memory stays flat.
    window = max(4 * jobs, 8)
    pending: set[cf.Future[tuple[str, Optional[str]]]] = set()
    it: Any = iter(entries)
    # Threads watch `abandon`; worker processes (which cannot share it) are terminated instead.
    stop = None if executor == "process" else abandon
    try:
        with _CtrlC() as ctrl_c:
            while not ctrl_c.count:
                while len(pending) < window:
                    nxt = next(it, None)
                    if nxt is None:
                        break
                    pending.add(pool.submit(_job, work, keep, nxt, stop))
                if not pending:
                    return
                finished, pending = cf.wait(pending, timeout=_POLL_S, return_when=cf.FIRST_COMPLETED)
                for fut in finished:
                    on_done(*fut.result())
            pending = {fut for fut in pending if not fut.cancel()}
            sys.stderr.write(f"cellaqm: finishing {len(pending)} runs in flight… (Ctrl-C again to abandon them; "
                             "--resume reruns them)\n")
            while pending and ctrl_c.count < 2:
                finished, pending = cf.wait(pending, timeout=_POLL_S, return_when=cf.FIRST_COMPLETED)
                for fut in finished:
                    if not fut.exception():
                        on_done(*fut.result())
            if pending:
                abandon.set()
                if executor == "process":
                    for proc in list(getattr(pool, "_processes", {}).values()):  # no public way to stop a worker
                        proc.terminate()
        raise KeyboardInterrupt
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_ray(
    entries: list[dict[str, Any]],
    work: Work,
    keep: Keep,
    jobs: Optional[int],
    address: Optional[str],
    on_done: Callable[[str, Optional[str]], None],
) -> None:
    """Run ``entries`` on Ray workers; the driver keeps each outcome as it arrives."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray backend needs Ray: pip install 'cellaqm[ray]' (or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=jobs or default_jobs(), **kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=2)(work)
        by_ref: dict[Any, dict[str, Any]] = {}
        cpus = int(ray.cluster_resources().get("CPU", 1))
        window = max(4 * cpus, 8)
        it: Any = iter(entries)
        while True:
            while len(by_ref) < window:
                entry = next(it, None)
                if entry is None:
                    break
                by_ref[remote.remote(entry, None)] = entry
            if not by_ref:
                break
            ready, _ = ray.wait(list(by_ref), num_returns=1)
            for ref in ready:
                entry = by_ref.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a worker crashed: record it, go on
                    outcome = {"run_id": entry["run_id"], "error": f"ray: {type(exc).__name__}: {exc}".splitlines()[0]}
                on_done(entry["run_id"], keep(entry, outcome))
    finally:
        if started:
            ray.shutdown()


def run_entries(entries: list[dict[str, Any]], work: Work, keep: Keep, jobs: Optional[int], backend: str,
                ray_address: Optional[str], executor: str, on_done: Callable[[str, Optional[str]], None]) -> None:
    """Run every entry (a dict with at least ``run_id``) with ``work`` and store its outcome with ``keep``, on
    local threads or processes or on Ray; ``on_done(run_id, error)`` in this thread after each.

    ``work`` and ``keep`` are module-level functions (or partials of them) so that worker processes and
    Ray can run them. Raises :class:`KeyboardInterrupt` after Ctrl-C, once the workers have stopped.
    """
    if not entries:
        return
    if backend == "ray":
        _run_ray(entries, work, keep, jobs, ray_address, on_done)
    else:
        _run_local(entries, work, keep, jobs or default_jobs(), executor, on_done)


# --------------------------------------------------------------------------- the sweep


@dataclass
class SweepReport:
    """What :func:`run_plan` did."""

    total: int
    skipped: int
    ran: int
    failures: pd.DataFrame = field(default_factory=pd.DataFrame)
    wall_s: float = 0.0
    interrupted: bool = False
    finished: int = 0  # runs of the plan stored in the directory at the end


def run_plan(
    plan: SweepPlan,
    out: Union[str, os.PathLike[str]],
    jobs: Optional[int] = None,
    backend: str = "local",
    resume: bool = False,
    ray_address: Optional[str] = None,
    executor: str = "thread",
    progress: bool = True,
) -> SweepReport:
    """Run every run of ``plan`` not yet finished in ``out``; store each as it finishes."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    store = Store(out)
    with store.lock():
        return _run_locked(plan, store, jobs, backend, resume, ray_address, executor, progress)


def _run_locked(plan: SweepPlan, store: Store, jobs: Optional[int], backend: str, resume: bool,
                ray_address: Optional[str], executor: str, progress: bool) -> SweepReport:
    """:func:`run_plan` once the store is locked."""
    from cellaqm import __version__

    store.prepare(plan.manifest(), resume=resume)
    done = store.finished_ids(need_detail=plan.packets, verify=resume)
    entries = [
        {
            "run_id": r.run_id,
            "levels": r.levels,
            "rep": r.rep,
            "seed": r.seed,
            "scenario_json": r.scenario_json(),
            "packets": plan.packets,
        }
        for r in plan.runs
        if r.run_id not in done
    ]
    report = SweepReport(total=len(plan.runs), skipped=len(plan.runs) - len(entries), ran=0)
    bar = _Progress(plan.name, len(entries), progress)

    def on_done(_run_id: str, error: Optional[str]) -> None:
        report.ran += 1
        bar.advance(error is not None)

    start = time.perf_counter()
    try:
        run_entries(entries, execute, functools.partial(keep_sweep_outcome, str(store.root), __version__),
                    jobs, backend, ray_address, executor, on_done)
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        bar.close()
        report.wall_s = time.perf_counter() - start
    report.failures = store.failures(r.run_id for r in plan.runs)
    report.finished = len(store.finished_ids() & {r.run_id for r in plan.runs})
    if not report.interrupted:
        store.consolidate()
    return report


def sweep(
    sweep: SweepLike,
    out: Optional[Union[str, os.PathLike[str]]] = None,
    jobs: Optional[int] = None,
    backend: str = "local",
    resume: bool = False,
    ray_address: Optional[str] = None,
    packets: Optional[bool] = None,
    progress: bool = False,
    executor: str = "thread",
) -> pd.DataFrame:
    """Run a sweep and return one row per finished run (the CLI's ``cellaqm sweep``).

    Args:
        sweep: a sweep file (TOML, see docs/experiments.md) or a dict of the same structure.
        out: the results directory; ``None`` runs in a temporary directory removed afterwards.
        jobs: parallel runs (default: all cores; Ray: the local cluster's CPUs).
        backend: ``"local"`` or ``"ray"``.
        resume: finish a sweep already in ``out``: run only the runs missing there.
        ray_address: connect to this Ray cluster (default: start a local one).
        packets: keep every run's delivered packets (overrides the file's ``packets``).
        progress: show a progress bar on stderr.
        executor: local runs in ``"thread"``s (default) or worker ``"process"``es.

    Returns:
        A DataFrame: ``run_id``, one categorical column per factor (level
        labels, in the file's order), ``rep``, ``seed``, every summary metric
        flattened (``delay_ms_p95``, ``drops_overflow``, ...), ``wall_s``,
        ``run_wall_s``, ``version`` and ``scenario_doc`` (the resolved
        scenario as JSON). ``df.attrs["failures"]`` is a DataFrame of the
        runs that failed (with their ``error``); a warning is issued if any did.

    Raises:
        SweepError: the sweep file is malformed (nothing has run).
        StoreError: ``out`` already holds a sweep and ``resume`` is false.
    """
    plan = load_plan(sweep, packets=packets)
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="cellaqm-sweep-")
        out = tmp
    try:
        report = run_plan(plan, out, jobs=jobs, backend=backend, resume=resume,
                          ray_address=ray_address, executor=executor, progress=progress)
        if report.interrupted:
            raise KeyboardInterrupt
        df = Store(out).load()
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    df.attrs["failures"] = report.failures
    if len(report.failures):
        warnings.warn(f"{len(report.failures)} of {report.total} runs failed (see df.attrs['failures'])",
                      RuntimeWarning, stacklevel=2)
    return df


def load(out: Union[str, os.PathLike[str]]) -> pd.DataFrame:
    """The finished runs of the sweep stored in ``out`` (same columns as :func:`sweep` returns)."""
    return Store(out).load()
