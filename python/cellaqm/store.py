"""The results store of a sweep: one Parquet file per finished run, written atomically.

Layout of a sweep directory ``DIR``::

    DIR/sweep.json              the plan: factors and their level order, every run's id, levels, seed
    DIR/sweep.lock              locked by the process running a sweep here (one at a time)
    DIR/runs/<run_id>.parquet   one row per finished run (factors, rep, seed, metrics, wall time, version)
    DIR/detail/<run_id>.packets.parquet     delivered packets of the run (sweeps with packets = true)
    DIR/detail/<run_id>.occupancy.parquet   its buffers' occupancy distributions (same sweeps)
    DIR/detail/<run_id>.users.parquet       one row per user (runs with several users)
    DIR/failed/<run_id>.json    a run that failed: its levels, seed and error
    DIR/results.parquet         all finished runs of the plan in one file, written when a sweep ends

Every file is written to a temporary name in the same directory and renamed
into place (:mod:`cellaqm.files`), so a sweep killed at any moment (Ctrl-C, ``kill -9``) leaves
only complete files: a run is finished exactly when ``runs/<run_id>.parquet``
exists, and ``--resume`` runs the others.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cellaqm.files import atomic_write, remove_temporaries
from cellaqm.result import flatten

MANIFEST = "sweep.json"
#: Held by the process running a sweep in the directory (:meth:`Store.lock`).
LOCK = "sweep.lock"
RUNS = "runs"
DETAIL = "detail"
FAILED = "failed"
RESULTS = "results.parquet"
#: The detail files of a run (sweeps with packets = true): delivered packets
#: (:attr:`cellaqm.RunResult.packets`) and occupancy distributions (:attr:`cellaqm.RunResult.occupancy`).
DETAIL_KINDS = ("packets", "occupancy")
#: The detail file of a run with several users: one row per user (:attr:`cellaqm.RunResult.users`), always kept.
USERS = "users"

#: Columns that measure the host, not the simulation (they differ between identical runs).
WALL_COLUMNS = ("wall_s", "sim_seconds_per_wall_second", "events_per_second", "run_wall_s")


class StoreError(Exception):
    """The directory is not a sweep store, or it holds a different sweep."""




def write_json_atomic(path: Path, value: Any) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(value, fh, indent=1, sort_keys=False)
            fh.write("\n")

    atomic_write(path, write)


#: Parquet options for the one-row file of a run: no compression, dictionary or
#: statistics (they cost milliseconds per file and save nothing on one row).
_ROW_OPTIONS = {"compression": "none", "use_dictionary": False, "write_statistics": False, "store_schema": False}


def write_table_atomic(path: Path, table: pa.Table, lean: bool = False) -> None:
    options = _ROW_OPTIONS if lean else {"compression": "zstd"}
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, **options))


def build_row(
    run: Mapping[str, Any],
    summary: Mapping[str, Any],
    run_wall_s: float,
    version: str,
) -> dict[str, Any]:
    """One results row: run id, factor labels, rep, seed, flattened metrics, wall time, version.

    ``run`` is a run entry of the manifest (``run_id``, ``levels``, ``rep``,
    ``seed``) plus ``scenario_json``. A metric whose name collides with a
    factor is stored as ``<name>_metric``.
    """
    row: dict[str, Any] = {"run_id": run["run_id"]}
    row.update(run["levels"])
    row["rep"] = run["rep"]
    row["seed"] = run["seed"]
    for key, value in flatten({k: v for k, v in summary.items() if k != "seed"}).items():
        row[f"{key}_metric" if key in row else key] = value
    row["run_wall_s"] = run_wall_s
    row["version"] = version
    row["scenario_doc"] = run["scenario_json"]
    return row


class Store:
    """A sweep directory (see the module docstring)."""

    def __init__(self, root: Union[str, os.PathLike[str]]) -> None:
        self.root = Path(root)
        self.runs_dir = self.root / RUNS
        self.detail_dir = self.root / DETAIL
        self.failed_dir = self.root / FAILED

    # ---------------------------------------------------------------- setup

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold ``DIR/sweep.lock`` while a sweep writes here; :class:`StoreError` if another process holds it.

        The lock is an advisory ``flock``: the operating system releases it
        when its holder ends, however it ends.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK
        with open(path, "a+", encoding="utf-8") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                holder = fh.read().strip() or "?"
                raise StoreError(f"{self.root}: another sweep (process {holder}) is writing here; "
                                 "wait for it to end, or choose another output directory") from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            try:
                yield
            finally:
                fh.truncate(0)

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StoreError(f"{self.root}: not a sweep directory (no {MANIFEST})") from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: cannot read: {exc}") from None

    def prepare(self, manifest: Mapping[str, Any], resume: bool) -> None:
        """Create the directories and write the manifest.

        Without ``resume`` the directory must not hold a sweep yet. With it, a
        previous manifest is replaced (finished runs of the new plan are kept,
        whatever else is there is ignored).
        """
        exists = (self.root / MANIFEST).exists() or (self.runs_dir.is_dir() and any(self.runs_dir.iterdir()))
        if exists and not resume:
            raise StoreError(
                f"{self.root} already holds a sweep: pass --resume (resume=True) to finish it, "
                "or choose another output directory"
            )
        for d in (self.root, self.runs_dir, self.failed_dir):
            d.mkdir(parents=True, exist_ok=True)
        if manifest.get("packets"):
            self.detail_dir.mkdir(exist_ok=True)
        self._clean_temporaries()
        write_json_atomic(self.root / MANIFEST, manifest)

    def _clean_temporaries(self) -> None:
        """Remove temporary files left by a killed writer (never complete results)."""
        for d in (self.root, self.runs_dir, self.detail_dir, self.failed_dir):
            remove_temporaries(d)

    # ---------------------------------------------------------------- runs

    def run_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}.parquet"

    def detail_path(self, run_id: str, kind: str = "packets") -> Path:
        """The detail file ``kind`` (one of :data:`DETAIL_KINDS`) of a run."""
        return self.detail_dir / f"{run_id}.{kind}.parquet"

    def finished_ids(self, need_detail: bool = False, verify: bool = False) -> set[str]:
        """Ids of the runs stored in ``runs/`` (with their detail files, if ``need_detail``).

        With ``verify``, a run whose file (or detail file) cannot be read as
        Parquet counts as unfinished (``--resume`` reruns it), which costs a
        read of each file's footer.
        """
        if not self.runs_dir.is_dir():
            return set()
        ids = {p.name[: -len(".parquet")] for p in self.runs_dir.glob("*.parquet") if not p.name.startswith(".")}
        kinds = DETAIL_KINDS if need_detail else ()
        if need_detail:
            ids = {i for i in ids if all(self.detail_path(i, kind).exists() for kind in kinds)}
        if verify:
            ids = {i for i in ids
                   if _readable(self.run_path(i)) and all(_readable(self.detail_path(i, k)) for k in kinds)}
        return ids

    def write_run(self, row: Mapping[str, Any], detail: Optional[Mapping[str, pa.Table]] = None) -> None:
        """Store one finished run, with its detail tables (kind → table) first: a row implies its detail."""
        run_id = str(row["run_id"])
        if detail:
            self.detail_dir.mkdir(exist_ok=True)
            for kind, table in detail.items():
                write_table_atomic(self.detail_path(run_id, kind), table)
        write_table_atomic(self.run_path(run_id), pa.Table.from_pylist([dict(row)]), lean=True)
        failed = self.failed_dir / f"{run_id}.json"
        if failed.exists():
            failed.unlink(missing_ok=True)

    def write_failure(self, run: Mapping[str, Any], error: str) -> None:
        record = {k: run[k] for k in ("run_id", "levels", "rep", "seed")}
        record["error"] = error
        self.failed_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.failed_dir / f"{run['run_id']}.json", record)

    def failures(self, run_ids: Optional[Iterable[str]] = None) -> pd.DataFrame:
        """Failed runs (of ``run_ids`` when given) without a finished result since."""
        wanted = set(run_ids) if run_ids is not None else None
        finished = self.finished_ids()
        records = []
        if self.failed_dir.is_dir():
            for p in sorted(self.failed_dir.glob("*.json")):
                rid = p.stem
                if rid in finished or (wanted is not None and rid not in wanted):
                    continue
                try:
                    rec = json.loads(p.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                records.append(
                    {"run_id": rid, **rec.get("levels", {}), "rep": rec.get("rep"),
                     "seed": rec.get("seed"), "error": rec.get("error", "")}
                )
        return pd.DataFrame.from_records(records)

    # ---------------------------------------------------------------- reading

    def load(self, include_orphans: bool = False) -> pd.DataFrame:
        """All finished runs of the plan as a DataFrame, in plan order.

        Factor columns are ordered categoricals (the sweep file's level
        order). Drop counts absent from a run's summary (no drop of that
        cause) are 0. Runs on disk that the current plan does not list (left
        by an earlier plan) are left out unless ``include_orphans``.
        """
        manifest = self.manifest()
        order = {r["run_id"]: i for i, r in enumerate(manifest["runs"])}
        ids = self.finished_ids()
        if not include_orphans:
            ids &= set(order)
        base = self._read_consolidated(ids)
        have = set(base["run_id"]) if base is not None else set()
        paths = [self.run_path(i) for i in sorted(ids - have, key=lambda i: order.get(i, len(order)))]
        df: pd.DataFrame
        if base is None:
            df = read_rows(paths)
        elif not paths:
            df = base
        else:
            fresh = read_rows(paths)
            df = pa.concat_tables(
                [pa.Table.from_pandas(base, preserve_index=False), pa.Table.from_pandas(fresh, preserve_index=False)],
                promote_options="permissive",
            ).to_pandas()
        if len(df):
            df = df.assign(_order=df["run_id"].map(order).fillna(len(order)))
            df = df.sort_values(["_order", "run_id"], kind="stable").drop(columns="_order")
            df = df.reset_index(drop=True)
        for col in df.columns:
            if "drops_" in col and pd.api.types.is_numeric_dtype(df[col]):
                df[col] = df[col].fillna(0).astype("int64")
        for factor in manifest["factors"]:
            name = factor["name"]
            labels = [lv["label"] for lv in factor["levels"]]
            if name in df.columns:
                df[name] = pd.Categorical(df[name], categories=labels, ordered=True)
            else:
                df[name] = pd.Categorical([], categories=labels, ordered=True)
        return df

    def _read_consolidated(self, ids: set[str]) -> Optional[pd.DataFrame]:
        """The rows of ``results.parquet`` whose runs are still in ``runs/`` (None without it)."""
        path = self.root / RESULTS
        if not path.exists():
            return None
        try:
            df = pq.read_table(path).to_pandas()
        except (OSError, pa.ArrowInvalid):
            return None
        for col in df.columns:  # factor columns come back as categoricals: plain labels here
            if isinstance(df[col].dtype, pd.CategoricalDtype):
                df[col] = df[col].astype(object)
        return df[df["run_id"].isin(ids)]

    def consolidate(self) -> pd.DataFrame:
        """Write ``results.parquet`` (all finished runs of the plan) and return them."""
        df = self.load()
        write_table_atomic(self.root / RESULTS, pa.Table.from_pandas(df, preserve_index=False))
        return df

    def detail(self, run_ids: Iterable[str], kind: str) -> dict[str, pd.DataFrame]:
        """Detail ``kind`` (``packets`` or ``occupancy``) of the given runs that have it."""
        out = {}
        for rid in run_ids:
            p = self.detail_path(rid, kind)
            if p.exists():
                out[rid] = _read_one(p).to_pandas()
        return out

    def packets(self, run_ids: Iterable[str]) -> dict[str, pd.DataFrame]:
        """Delivered packets of the given runs that have them (:attr:`cellaqm.RunResult.packets`)."""
        return self.detail(run_ids, "packets")

    def occupancy(self, run_ids: Iterable[str]) -> dict[str, pd.DataFrame]:
        """Occupancy distributions of the given runs that have them (:attr:`cellaqm.RunResult.occupancy`)."""
        return self.detail(run_ids, "occupancy")

    def users(self, run_ids: Iterable[str]) -> dict[str, pd.DataFrame]:
        """One row per user of the given runs that have several users (:attr:`cellaqm.RunResult.users`)."""
        return self.detail(run_ids, USERS)


def _readable(path: Path) -> bool:
    """Whether ``path``'s Parquet footer can be read."""
    try:
        pq.read_metadata(path)
    except (OSError, pa.ArrowException):
        return False
    return True


def _read_one(path: Path) -> pa.Table:
    """A stored Parquet file; :class:`StoreError` naming it if it is corrupt."""
    try:
        return pq.ParquetFile(path).read(use_threads=False)
    except (OSError, pa.ArrowException) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise StoreError(f"{path}: corrupt or unreadable ({reason}); delete it, or rerun it with "
                         "cellaqm sweep FILE --out DIR --resume") from None


#: Run files read and combined at a time by :func:`read_rows`.
READ_BATCH = 500


def read_rows(paths: Iterable[Path]) -> pd.DataFrame:
    """Concatenate one-row run files (columns may differ between runs: missing → null).

    The files are read in batches of :data:`READ_BATCH`, each combined into one
    contiguous table before the next is read: thousands of one-row tables held
    at once cost about 140 kB each (their buffers and chunk metadata), the
    combined rows a few hundred bytes.
    """
    paths = list(paths)
    if not paths:
        return pd.DataFrame({"run_id": pd.Series([], dtype=object)})
    from concurrent.futures import ThreadPoolExecutor

    batches = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        for i in range(0, len(paths), READ_BATCH):
            tables = list(pool.map(_read_one, paths[i:i + READ_BATCH]))
            batches.append(pa.concat_tables(tables, promote_options="permissive").combine_chunks())
            del tables
    return pa.concat_tables(batches, promote_options="permissive").to_pandas()


def users_table(records: list[dict[str, Any]]) -> pa.Table:
    """The per-user rows of a run (:func:`cellaqm.result.users_frame`) as a pyarrow table."""
    from cellaqm.result import users_frame

    return pa.Table.from_pandas(users_frame(records), preserve_index=False)


def columns_table(columns: Mapping[str, Any]) -> pa.Table:
    """A pyarrow table from the core's columns (name → numpy array or list of str)."""
    return pa.table({name: pa.array(values) for name, values in columns.items()})
