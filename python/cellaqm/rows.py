"""A study run in its experiment's store, and back: what ``measure`` put in ``run.out``.

The row (``OUT/store/<experiment>/runs/<row_id>.parquet``) holds the run's
labels as the tables print them, ``rep``, ``seed``, every scalar of
``run.out`` under its own name (numbers, booleans, text; ``None`` means "no
value" and is left out), ``run_wall_s`` (the measure call's wall time),
``version``, ``scenario_doc`` (the scenario as JSON:
``cellaqm.run(json.loads(row.scenario_doc), seed=row.seed)`` repeats the
simulation) and ``options`` (JSON). A measure that is not a scalar goes to a
detail file beside the row, ``detail/<row_id>.out.<name>[.<entry>].parquet``,
and ``detail`` (JSON) names them:

- a pandas DataFrame (e.g. a buffer occupancy distribution) → one file;
- a list or a 1-D numpy array → one column ``value``;
- a dict of those (e.g. the trace tables of a run) → one file per entry; a
  scalar entry of the dict (e.g. the time the trace ends) is kept in
  ``detail`` itself.

A simulation with several users also keeps its per-user rows,
``detail/<row_id>.users.parquet`` (the columns of ``users.csv``, as a sweep
keeps them: ``cellaqm plot --kind cdf --metric user_goodput_bps`` reads them).

:func:`read` turns the rows back into ``out`` dicts, value for value; the
tables, figures and findings of a reproduction are always built from them,
so a resumed reproduction gives what an uninterrupted one gives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from cellaqm.plan import RESERVED
from cellaqm.store import USERS, Store, _read_one
from cellaqm.sweepfile import canonical_json

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class RowError(ValueError):
    """A measure's output cannot be stored (a name clash, a value of an unknown kind)."""


def _kind(value: Any) -> str:
    import numpy as np
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return "frame"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return "array"
    raise RowError(f"a {type(value).__name__} (store a number, text, a DataFrame, a list, a 1-D array or a dict "
                   "of those)")


def _table(value: Any, kind: str) -> pa.Table:
    if kind == "frame":
        return pa.Table.from_pandas(value, preserve_index=False)
    return pa.table({"value": pa.array(list(value) if kind == "list" else value)})


def _scalar(value: Any) -> Any:
    """A Python scalar for ``value`` (numpy's as their Python value), or None if it is not one."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    return value if isinstance(value, (bool, int, float, str)) else None


def split(out: Mapping[str, Any], taken: Sequence[str]) -> tuple[dict[str, Any], dict[str, pa.Table], dict[str, Any]]:
    """``out`` → (scalars, detail tables by file kind, the detail's description); ``taken``: names in use."""
    scalars: dict[str, Any] = {}
    tables: dict[str, pa.Table] = {}
    spec: dict[str, Any] = {}
    for name, value in out.items():
        if name in taken or name in RESERVED:
            raise RowError(f"the measure {name!r} has the name of a label or of a column every row has")
        if value is None:
            continue
        s = _scalar(value)
        if s is not None:
            scalars[name] = s
            continue
        if not _NAME.match(name):
            raise RowError(f"the measure {name!r}: a table or series needs a name of letters, digits, _ and -")
        try:
            if isinstance(value, Mapping):
                spec[name] = {}
                for entry, v in value.items():
                    if not _NAME.match(str(entry)):
                        raise RowError(f"entry {entry!r}: a name of letters, digits, _ and - is needed")
                    if _scalar(v) is not None:
                        spec[name][entry] = {"scalar": _scalar(v)}
                        continue
                    spec[name][entry] = _kind(v)
                    tables[f"out.{name}.{entry}"] = _table(v, spec[name][entry])
            else:
                spec[name] = _kind(value)
                tables[f"out.{name}"] = _table(value, spec[name])
        except (RowError, pa.ArrowException) as exc:
            raise RowError(f"the measure {name!r}: {exc}") from None
    return scalars, tables, spec


def row(row_id: str, levels: Mapping[str, str], rep: int, seed: int, scalars: Mapping[str, Any],
        spec: Mapping[str, Any], doc: Mapping[str, Any], options: Mapping[str, Any], run_wall_s: float,
        version: str) -> dict[str, Any]:
    """The stored row of one run of an experiment."""
    out: dict[str, Any] = {"run_id": row_id, **levels, "rep": rep, "seed": seed, **scalars,
                           "run_wall_s": run_wall_s, "version": version, "scenario_doc": canonical_json(doc),
                           "options": canonical_json(options)}
    if spec:
        out["detail"] = json.dumps(spec, sort_keys=True)
    return out


def _restore(table: pa.Table, kind: str) -> Any:
    if kind == "frame":
        return table.to_pandas()
    column = table.column("value")
    return column.to_pylist() if kind == "list" else column.to_numpy()


def read(store: Store, row_ids: Sequence[str], factors: Sequence[str]) -> tuple[dict[str, dict[str, Any]], pa.Table]:
    """Each row's ``out`` (row id → measures, detail files read back), and the rows as one table in order."""
    paths = [store.run_path(r) for r in row_ids]
    with ThreadPoolExecutor(max_workers=4) as pool:
        tables = list(pool.map(_read_one, paths))
    combined = pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})
    skip = set(factors) | set(RESERVED)
    outs: dict[str, dict[str, Any]] = {}
    for rid, t in zip(row_ids, tables):
        (values,) = t.to_pylist()
        out = {k: v for k, v in values.items() if k not in skip and v is not None}
        for name, kind in json.loads(values.get("detail") or "{}").items():
            if isinstance(kind, dict):
                out[name] = {e: k["scalar"] if isinstance(k, dict) else
                             _restore(_read_one(store.detail_path(rid, f"out.{name}.{e}")), k)
                             for e, k in kind.items()}
            else:
                out[name] = _restore(_read_one(store.detail_path(rid, f"out.{name}")), kind)
        outs[rid] = out
    return outs, combined


def outcome(store: Store, row_id: str, factors: Sequence[str]) -> dict[str, Any]:
    """A stored run as the outcome of running it again (its measures, per-user rows and wall time), to copy
    into another experiment's store that lists the same simulation."""
    outs, table = read(store, [row_id], factors)
    users = store.detail_path(row_id, USERS)
    return {"run_id": row_id, "out": outs[row_id], "run_wall_s": table.column("run_wall_s")[0].as_py(),
            "users": _read_one(users).to_pandas() if users.exists() else None}
