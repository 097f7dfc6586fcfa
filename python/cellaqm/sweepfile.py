"""Sweep files: a base scenario, factors, replications and seeds → the list of runs.

A sweep file is TOML (or the same structure as a dict)::

    name = "buffer-sizes"              # optional, default: the file's stem
    base = "../scenarios/default.toml" # scenario file, relative to the sweep file (or an inline table)
                                       # (a link's rate = { trace = "f" }: f relative to the file that names it)
    replications = 10                  # runs per factor combination
    seed = 1                           # base seed (default: the base scenario's `seed`, else 1)
    independent = false                # false: common random numbers, replication r uses seed + r
    packets = false                    # also keep every run's delivered packets and occupancy (detail files)

    [set]                              # fixed overrides for every run (--set paths)
    duration = "20s"

    [factors]                          # cartesian product; key = --set path, value = levels
    "bottleneck.buffer" = ["20kB", "50kB", "100kB"]
    "tcp.recovery" = ["newreno", "sack"]

    [factors.scheme]                   # long form: a named factor with labelled levels
    path = "bottleneck.queue"
    levels = { TD = { scheme = "tail_drop" }, DF = { scheme = "drop_front" } }

    [zip.bearer]                       # zipped group: paths vary together, one factor
    "bottleneck.rate" = ["384kbps", "3.6Mbps"]
    "bottleneck.buffer" = ["20kB", "100kB"]
    labels = ["R99", "HSDPA"]

:func:`load_plan` checks everything — every level of every factor and every
combination is parsed by the simulator core — before anything runs, and
raises :class:`SweepError` naming the culprit.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from cellaqm import _core

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

SweepLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: Columns every run row has besides its factors and metrics; a factor may not use these names.
RESERVED_COLUMNS = ("run_id", "rep", "seed", "run_wall_s", "version", "scenario_doc")

_TOP_KEYS = {"name", "description", "base", "replications", "seed", "independent", "packets",
             "set", "factors", "zip"}
_LONG_KEYS = {"levels", "labels", "path"}
_U63 = 2**63 - 1


class SweepError(ValueError):
    """The sweep file is malformed; the message is one line naming the culprit."""


@dataclass(frozen=True)
class Level:
    """One level of a factor: a label and the ``(path, value)`` pairs it sets."""

    label: str
    values: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Factor:
    """A factor: ``kind`` is ``"product"`` (one path) or ``"zip"`` (several paths together)."""

    name: str
    kind: str
    paths: tuple[str, ...]
    levels: tuple[Level, ...]

    @property
    def labels(self) -> list[str]:
        return [lv.label for lv in self.levels]


@dataclass(frozen=True)
class RunSpec:
    """One run of the sweep: its factor levels, replication, seed and resolved scenario."""

    run_id: str
    index: int
    levels: dict[str, str]
    rep: int
    seed: int
    scenario: dict[str, Any]

    def scenario_json(self) -> str:
        return canonical_json(self.scenario)


@dataclass
class SweepPlan:
    name: str
    source: str
    base: str
    factors: list[Factor]
    replications: int
    seed: int
    independent: bool
    packets: bool
    runs: list[RunSpec] = field(default_factory=list)
    spec: dict[str, Any] = field(default_factory=dict)

    @property
    def factor_names(self) -> list[str]:
        return [f.name for f in self.factors]

    def manifest(self) -> dict[str, Any]:
        """What ``DIR/sweep.json`` records: enough to read the store back in order."""
        return {
            "name": self.name,
            "source": self.source,
            "base": self.base,
            "replications": self.replications,
            "seed": self.seed,
            "independent": self.independent,
            "packets": self.packets,
            "factors": [
                {
                    "name": f.name,
                    "kind": f.kind,
                    "paths": list(f.paths),
                    "levels": [{"label": lv.label, "values": dict(lv.values)} for lv in f.levels],
                }
                for f in self.factors
            ],
            "runs": [
                {"run_id": r.run_id, "levels": r.levels, "rep": r.rep, "seed": r.seed}
                for r in self.runs
            ],
            "spec": self.spec,
        }


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_id(scenario: Mapping[str, Any], seed: int) -> str:
    """The run's identity: a hash of the resolved scenario and the seed."""
    digest = hashlib.sha256(canonical_json({"scenario": scenario, "seed": seed}).encode())
    return digest.hexdigest()[:16]


def level_label(value: Any) -> str:
    """A readable label for a level value: ``20kB``, ``3``, ``red(max=60kB,min=20kB)``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        items = dict(value)
        head = str(items.pop("scheme", "")) if isinstance(items.get("scheme"), str) else ""
        inner = ",".join(f"{k}={level_label(v)}" for k, v in items.items())
        if head:
            return f"{head}({inner})" if inner else head
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(level_label(v) for v in value) + "]"
    return str(value)


# --------------------------------------------------------------------------- reading


def read_sweep(sweep: SweepLike) -> tuple[dict[str, Any], str, Path]:
    """Return ``(spec dict, source name, directory relative paths are resolved against)``."""
    if isinstance(sweep, Mapping):
        return copy.deepcopy(dict(sweep)), "<dict>", Path.cwd()
    if isinstance(sweep, (str, os.PathLike)):
        path = Path(sweep)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SweepError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise SweepError(f"{path}: cannot read: not UTF-8 text ({exc.reason})") from None
        try:
            if path.suffix.lower() == ".json":
                spec = json.loads(text)
            else:
                spec = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise SweepError(f"{path}: not valid TOML/JSON: {exc}") from None
        except RecursionError:
            raise SweepError(f"{path}: not valid TOML/JSON: arrays or tables nested too deeply") from None
        if not isinstance(spec, dict):
            raise SweepError(f"{path}: expected a table at the top level")
        return spec, str(path), path.parent
    raise TypeError(f"sweep must be a path or a dict, not {type(sweep).__name__}")


def anchor_traces(doc: dict[str, Any], where: Path) -> dict[str, Any]:
    """``doc`` with each link's relative trace path (``rate = { trace = "f" }``) joined to ``where``.

    A trace is relative to the file that names it; the runs' scenarios are
    JSON documents that may run anywhere (other processes, Ray workers), so
    they carry absolute paths.
    """
    for link in ("core", "bottleneck", "uplink"):
        table = doc.get(link)
        rate = table.get("rate") if isinstance(table, Mapping) else None
        trace = rate.get("trace") if isinstance(rate, Mapping) else None
        if isinstance(trace, str) and not Path(trace).is_absolute():
            doc = copy.deepcopy(doc)
            doc[link]["rate"]["trace"] = str((where / trace).absolute())
    return doc


def _read_base(base: Any, where: Path) -> tuple[dict[str, Any], str]:
    if isinstance(base, Mapping):
        return anchor_traces(copy.deepcopy(dict(base)), where), "<inline base>"
    if not isinstance(base, str) or not base:
        raise SweepError("base: expected the path of a scenario file (or an inline table)")
    path = Path(base)
    if not path.is_absolute():
        path = where / path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepError(f"base: {path}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SweepError(f"base: {path}: not valid TOML/JSON: {exc}") from None
    return anchor_traces(doc, path.parent) if isinstance(doc, dict) else doc, str(path)


# --------------------------------------------------------------------------- factors


def _flat_paths(table: Mapping[str, Any], prefix: str, stop: set[str]) -> list[tuple[str, Any]]:
    """Flatten nested tables into ``(dotted path, value)`` pairs.

    A table holding any key of ``stop`` is a leaf (the long form of a factor).
    """
    out: list[tuple[str, Any]] = []
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping) and not (stop & set(value)):
            if not value:
                raise SweepError(f"{path}: empty table (expected a list of levels)")
            out.extend(_flat_paths(value, path, stop))
        else:
            out.append((path, value))
    return out


def _jsonable(value: Any, where: str) -> Any:
    try:
        canonical_json(value)
    except (TypeError, ValueError):
        raise SweepError(f"{where}: value {value!r} cannot be used (dates and times are not scenario values)") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise SweepError(f"{where}: value {value!r} is not a finite number")
    return value


def _unique_labels(name: str, labels: list[str], values: list[Any], given: bool) -> None:
    """Refuse empty or repeated labels (``given``: written in the file, else made from the values) and repeated values."""
    canon = [canonical_json(v) for v in values]
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        if not isinstance(label, str) or not label:
            raise SweepError(f"factor {name}: label {label!r} must be a non-empty string")
        j = seen.setdefault(label, i)
        if j == i:
            continue
        if canon[j] == canon[i]:
            raise SweepError(f"factor {name}: duplicate level {label!r}")
        if given:
            raise SweepError(f"factor {name}: duplicate label {label!r} (levels {j + 1} and {i + 1})")
        raise SweepError(f"factor {name}: levels {values[j]!r} and {values[i]!r} both read {label!r}; "
                         "give the factor labels")
    for i, c in enumerate(canon):
        j = canon.index(c)
        if j != i:
            raise SweepError(f"factor {name}: levels {labels[j]!r} and {labels[i]!r} are the same value")


def _product_factor(key: str, value: Any) -> Factor:
    where = f"factor {key}"
    if isinstance(value, Mapping):
        unknown = set(value) - _LONG_KEYS
        if unknown:
            raise SweepError(f"{where}: unknown key {sorted(unknown)[0]!r} (expected levels, labels, path)")
        path = value.get("path", key)
        if not isinstance(path, str):
            raise SweepError(f"{where}: path: expected a key path like 'bottleneck.buffer', got {path!r}")
        raw = value.get("levels")
        if isinstance(raw, Mapping):
            if "labels" in value:
                raise SweepError(f"{where}: 'labels' goes with a list of levels, not a table of them")
            labels = list(raw.keys())
            values = list(raw.values())
            given = True
        elif isinstance(raw, list):
            values = raw
            written = value.get("labels")
            given = written is not None
            if written is None:
                labels = [level_label(v) for v in values]
            elif not isinstance(written, list) or len(written) != len(values):
                raise SweepError(f"{where}: 'labels' must be a list as long as 'levels' ({len(values)})")
            else:
                labels = written
        else:
            raise SweepError(f"{where}: 'levels' must be a list (or a table label → value)")
        name = key
    elif isinstance(value, list):
        path = key
        values = value
        labels = [level_label(v) for v in values]
        given = False
        name = key
    else:
        raise SweepError(f"{where}: expected a list of levels, got {value!r}")
    if not values:
        raise SweepError(f"{where}: empty level list")
    values = [_jsonable(v, f"{where}") for v in values]
    labels = [str(lb) if not isinstance(lb, str) else lb for lb in labels]
    _unique_labels(name, labels, values, given)
    levels = tuple(Level(lb, ((path, v),)) for lb, v in zip(labels, values))
    return Factor(name=name, kind="product", paths=(path,), levels=levels)


def _zip_factor(name: str, table: Any) -> Factor:
    where = f"zip {name}"
    if not isinstance(table, Mapping) or not table:
        raise SweepError(f"{where}: expected a table of key paths → lists of values")
    labels = table.get("labels")
    given = labels is not None
    columns = [(p, v) for p, v in _flat_paths({k: v for k, v in table.items() if k != "labels"}, "", set())]
    if not columns:
        raise SweepError(f"{where}: no key paths")
    lengths = set()
    for path, values in columns:
        if not isinstance(values, list):
            raise SweepError(f"{where}: {path}: expected a list of values, got {values!r}")
        if not values:
            raise SweepError(f"{where}: {path}: empty level list")
        lengths.add(len(values))
    if len(lengths) != 1:
        raise SweepError(f"{where}: the lists have different lengths ({sorted(lengths)}); zipped lists must be equally long")
    n = lengths.pop()
    rows = [tuple((p, _jsonable(vals[i], f"{where}: {p}")) for p, vals in columns) for i in range(n)]
    if labels is None:
        labels = ["/".join(level_label(v) for _, v in row) for row in rows]
    elif not isinstance(labels, list) or len(labels) != n:
        raise SweepError(f"{where}: 'labels' must be a list as long as the zipped lists ({n})")
    labels = [str(lb) if not isinstance(lb, str) else lb for lb in labels]
    _unique_labels(name, labels, [dict(r) for r in rows], given)
    return Factor(
        name=name,
        kind="zip",
        paths=tuple(p for p, _ in columns),
        levels=tuple(Level(lb, row) for lb, row in zip(labels, rows)),
    )


def _check_overlaps(owners: list[tuple[str, str]]) -> None:
    """No path may be set by two factors (or one be inside another)."""
    for (p1, f1), (p2, f2) in itertools.combinations(owners, 2):
        if p1 == p2 or p1.startswith(p2 + ".") or p2.startswith(p1 + "."):
            if f1 == f2:
                raise SweepError(f"factor {f1}: sets {p1} and {p2}, which overlap")
            raise SweepError(f"factors {f1} and {f2} both set {p1 if len(p1) <= len(p2) else p2}")


# --------------------------------------------------------------------------- resolving


def set_path(doc: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``doc`` with ``path`` set to ``value`` by the core's ``--set`` code.

    Every path that works in ``cellaqm run --set`` (``traffic.1.users`` in a
    ``[[traffic]]`` list, ...) works here, with the same error messages.
    """
    try:
        return json.loads(_core.set_path(canonical_json(doc), path, canonical_json(value)))
    except _core.ScenarioError as exc:
        raise SweepError(str(exc)) from None


def _validate(doc: dict[str, Any], what: str) -> None:
    try:
        _core.validate(canonical_json(doc), "json", [])
    except _core.ScenarioError as exc:
        raise SweepError(f"{what}: {exc}") from None


def _int(spec: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SweepError(f"{key}: expected an integer between {low} and {high}, got {value!r}")
    return value


def _bool(spec: Mapping[str, Any], key: str, default: bool) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise SweepError(f"{key}: expected true or false, got {value!r}")
    return value


def _independent_seed(base_seed: int, level_values: list[Any], rep: int) -> int:
    digest = hashlib.sha256(canonical_json([base_seed, level_values, rep]).encode()).digest()
    return int.from_bytes(digest[:8], "little") & _U63


def load_plan(sweep: SweepLike, packets: Optional[bool] = None) -> SweepPlan:
    """Read and check a sweep; return every run it asks for. Raises :class:`SweepError`."""
    spec, source, where = read_sweep(sweep)
    prefix = f"{source}: " if source != "<dict>" else "sweep: "
    try:
        return _plan(spec, source, where, packets)
    except SweepError as exc:
        raise SweepError(prefix + str(exc)) from None


def _plan(spec: dict[str, Any], source: str, where: Path, packets: Optional[bool]) -> SweepPlan:
    unknown = set(spec) - _TOP_KEYS
    if unknown:
        raise SweepError(f"unknown key {sorted(unknown)[0]!r} (expected one of {', '.join(sorted(_TOP_KEYS))})")
    if "base" not in spec:
        raise SweepError("base: missing (the scenario file the sweep varies)")
    base_doc, base_name = _read_base(spec["base"], where)
    if not isinstance(base_doc, dict):
        raise SweepError(f"base: {base_name}: expected a table")
    name = spec.get("name", Path(source).stem if source != "<dict>" else "sweep")
    if not isinstance(name, str) or not name:
        raise SweepError(f"name: expected a non-empty string, got {name!r}")
    replications = _int(spec, "replications", 1, 1, 1_000_000)
    base_seed_default = base_doc.get("seed", 1)
    seed = _int(spec, "seed", base_seed_default if isinstance(base_seed_default, int) else 1, 0, _U63)
    independent = _bool(spec, "independent", False)
    record_packets = _bool(spec, "packets", False) if packets is None else bool(packets)

    fixed = spec.get("set", {})
    if not isinstance(fixed, Mapping):
        raise SweepError("set: expected a table of key paths → values")
    _validate(base_doc, f"base {base_name}")
    for path, value in _flat_paths(fixed, "", set()):
        what = f"set {path} = {level_label(value)}"
        try:
            base_doc = anchor_traces(set_path(base_doc, path, _jsonable(value, f"set {path}")), where)
        except SweepError as exc:
            raise SweepError(f"{what}: {exc}") from None
        _validate(base_doc, what)

    factors: list[Factor] = []
    raw_factors = spec.get("factors", {})
    if not isinstance(raw_factors, Mapping):
        raise SweepError("factors: expected a table of key paths → lists of levels")
    for key, value in _flat_paths(raw_factors, "", _LONG_KEYS):
        factors.append(_product_factor(key, value))
    raw_zip = spec.get("zip", {})
    if not isinstance(raw_zip, Mapping):
        raise SweepError("zip: expected tables [zip.NAME] of key paths → lists of values")
    for zname, table in raw_zip.items():
        factors.append(_zip_factor(zname, table))

    names = [f.name for f in factors]
    for f in factors:
        if f.name in RESERVED_COLUMNS:
            raise SweepError(f"factor {f.name}: the name is reserved (pick another)")
        if names.count(f.name) > 1:
            raise SweepError(f"factor {f.name}: defined twice")
    _check_overlaps([(p, f.name) for f in factors for p in f.paths])

    # Every level on its own, so that a bad value is named precisely ...
    for f in factors:
        for lv in f.levels:
            try:
                doc = _resolve(base_doc, [lv], where)
            except SweepError as exc:
                raise SweepError(f"factor {f.name}, level {lv.label!r}: {exc}") from None
            _validate(doc, f"factor {f.name}, level {lv.label!r}")

    plan = SweepPlan(
        name=name,
        source=source,
        base=base_name,
        factors=factors,
        replications=replications,
        seed=seed,
        independent=independent,
        packets=record_packets,
        spec=json.loads(canonical_json(spec)) if _is_json(spec) else {},
    )
    # ... then every combination (interactions), and the runs.
    seen: dict[str, RunSpec] = {}
    index = 0
    for combo in itertools.product(*(f.levels for f in factors)):
        doc = _resolve(base_doc, combo, where)
        labels = {f.name: lv.label for f, lv in zip(factors, combo)}
        if len(factors) > 1:
            _validate(doc, "combination " + ", ".join(f"{k}={v}" for k, v in labels.items()))
        level_values = [list(lv.values) for lv in combo]
        for rep in range(replications):
            s = _independent_seed(seed, level_values, rep) if independent else seed + rep
            if s > _U63:
                raise SweepError(f"seed: {seed} + replication {rep} exceeds 2**63-1")
            rid = run_id(doc, s)
            if rid in seen:
                other = seen[rid]
                raise SweepError(
                    "two runs are identical (same scenario and seed): "
                    + ", ".join(f"{k}={v}" for k, v in other.levels.items())
                    + " and "
                    + ", ".join(f"{k}={v}" for k, v in labels.items())
                )
            run = RunSpec(run_id=rid, index=index, levels=labels, rep=rep, seed=s, scenario=doc)
            seen[rid] = run
            plan.runs.append(run)
            index += 1
    return plan


def _resolve(base: dict[str, Any], levels: Sequence[Level], where: Path) -> dict[str, Any]:
    """``base`` with every ``(path, value)`` of ``levels`` set (a level's trace relative to ``where``)."""
    doc = base
    for lv in levels:
        for path, value in lv.values:
            doc = set_path(doc, path, value)
    return anchor_traces(doc, where)


def _is_json(value: Any) -> bool:
    try:
        canonical_json(value)
    except (TypeError, ValueError):
        return False
    return True
