"""A study's experiments as run plans: ``--set`` applied, each run's identity, and each experiment's store.

Each chosen experiment's runs (:meth:`cellaqm.study.Experiment.runs`) become
the rows of a sweep store of its own, ``OUT/store/<experiment>/`` (the format
of ``cellaqm sweep``: :mod:`cellaqm.store`), whose factors are the run labels.
A simulation is identified by a hash of the study, the scenario, the seed and
the measure's options: runs of several experiments with the same identity are
one simulation, run once and kept as a row in each experiment's store (so a
study's ``measure`` must depend on the scenario, seed and options only, never on
the labels, which it does not get).

Checked before anything runs, each with a one-line :class:`PlanError`:

- the labels: one label per level (two levels may not print alike), and the
  runs of one table row may differ only in their seeds and options (otherwise
  the row would merge different cases: a label is missing);
- ``--set KEY=VALUE`` (:func:`apply_sets`): the value is set in every case of
  the chosen experiments, as ``cellaqm run --set`` sets it; a key under a
  bearer's section (``radio.dch``, ``radio.hsdpa``, ...) goes only to the cases
  of that bearer. A key that applies to no case of an experiment, a value a
  case refuses, or a key the experiment itself varies (two of its rows would
  become the same case) is an error naming the experiment.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from cellaqm.sweepfile import canonical_json, level_label

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

if TYPE_CHECKING:
    from cellaqm.study import Experiment, Run, Study

#: Columns of a study run's row besides its labels and measures; a label or a measure may not use these names.
RESERVED = ("run_id", "rep", "seed", "run_wall_s", "version", "scenario_doc", "options", "detail")


class PlanError(ValueError):
    """A study plan cannot be run as asked (a bad ``--set``, labels that merge cases); one line."""


@dataclass
class ExperimentPlan:
    """One experiment's runs (in its order), with each run's row id, simulation id and replication index."""

    experiment: Experiment
    runs: list[Run]
    row_ids: list[str] = field(default_factory=list)
    sim_ids: list[str] = field(default_factory=list)
    reps: list[int] = field(default_factory=list)
    #: The label keys, in order of first use: the store's factors.
    factors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.experiment.name

    def levels(self, run: Run) -> dict[str, str]:
        """The run's labels as the store and the tables print them (:func:`level_label`: as given)."""
        return {k: level_label(v) for k, v in run.labels.items()}

    def manifest(self, study: Study, mode: str, sets: Sequence[str]) -> dict[str, Any]:
        """The experiment store's ``sweep.json``: what ``cellaqm table`` and ``plot`` read (factors, level
        order, every run's id, levels, replication and seed)."""
        order: dict[str, dict[str, None]] = {f: {} for f in self.factors}
        for run in self.runs:
            for k, v in self.levels(run).items():
                order[k][v] = None
        return {
            "name": f"{study.name}/{self.name}", "source": f"cellaqm reproduce {study.name}", "base": "",
            "study": study.name, "experiment": self.name, "title": self.experiment.title, "mode": mode,
            "sets": list(sets), "group": list(self.experiment.group), "measures": list(self.experiment.measures),
            "replications": max(self.reps, default=0) + 1, "seed": min((r.seed for r in self.runs), default=1),
            "independent": False, "packets": False,
            "factors": [{"name": f, "kind": "label", "paths": [], "levels": [{"label": lv, "values": {}}
                                                                           for lv in order[f]]}
                        for f in self.factors],
            "runs": [{"run_id": rid, "levels": self.levels(run), "rep": rep, "seed": run.seed}
                     for rid, run, rep in zip(self.row_ids, self.runs, self.reps)],
        }


@dataclass
class StudyPlan:
    study: Study
    #: ``"quick"``, ``"full"`` or ``"demo"``.
    mode: str
    reps: int
    sets: list[str]
    experiments: list[ExperimentPlan]

    def simulations(self) -> dict[str, Run]:
        """Every distinct simulation (id → its first run), in plan order."""
        out: dict[str, Run] = {}
        for ep in self.experiments:
            for sid, run in zip(ep.sim_ids, ep.runs):
                out.setdefault(sid, run)
        return out

    @property
    def runs(self) -> int:
        return sum(len(ep.runs) for ep in self.experiments)


def simulation_id(study: str, run: Run) -> str:
    """The identity of a run's simulation and measures: a hash of the study, scenario, seed and options."""
    try:
        text = canonical_json({"study": study, "scenario": run.doc, "seed": run.seed, "options": run.options})
    except (TypeError, ValueError) as exc:
        raise PlanError(f"{study}: a run's scenario or options are not JSON values ({exc})") from None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan(study: Study, experiments: Sequence[Experiment], mode: str, reps: int, sets: Sequence[str] = ()) -> StudyPlan:
    """The runs of ``experiments`` (quick ones for ``mode == "quick"``) with ``sets`` applied, checked."""
    quick = mode == "quick"
    plans = [ExperimentPlan(e, e.runs(quick, reps)) for e in experiments]
    parsed = [parse_set(s) for s in sets]
    for ep in plans:
        check_labels(ep)
        if parsed:
            apply_sets(ep, parsed)
        identify(study.name, ep)
    return StudyPlan(study, mode, reps, list(sets), plans)


def check_labels(ep: ExperimentPlan) -> None:
    """One label per level; the runs of a table row differ only in seed and options; no reserved names."""
    name = ep.name
    ep.factors = list(dict.fromkeys(k for r in ep.runs for k in r.labels))
    for f in ep.factors:
        if f in RESERVED:
            raise PlanError(f"experiment {name}: the label {f!r} is reserved (one of {', '.join(RESERVED)})")
        seen: dict[str, Any] = {}
        for r in ep.runs:
            if f in r.labels:
                v = r.labels[f]
                other = seen.setdefault(level_label(v), v)
                if other != v or type(other) is not type(v):
                    raise PlanError(f"experiment {name}: {f} levels {other!r} and {v!r} both print as "
                                    f"{level_label(v)!r}")
    rows: dict[tuple[Any, ...], Run] = {}
    for r in ep.runs:
        key = tuple(level_label(r.labels.get(g, "")) for g in ep.experiment.group)
        first = rows.setdefault(key, r)
        if first.doc != r.doc:
            where = ", ".join(f"{g} {v}" for g, v in zip(ep.experiment.group, key))
            raise PlanError(f"experiment {name}: the row ({where}) holds runs of different scenarios "
                            f"(seeds {first.seed} and {r.seed}): a label that tells them apart is missing")


def identify(study: str, ep: ExperimentPlan) -> None:
    """Each run's simulation id, row id (the simulation id; suffixed if the experiment lists it twice) and
    replication index (its place among the runs of its table row)."""
    rows: dict[tuple[Any, ...], int] = {}
    used: dict[str, int] = {}
    for r in ep.runs:
        sid = simulation_id(study, r)
        n = used[sid] = used.get(sid, 0) + 1
        key = tuple(level_label(r.labels.get(g, "")) for g in ep.experiment.group)
        rows[key] = rows.get(key, -1) + 1
        ep.sim_ids.append(sid)
        ep.row_ids.append(sid if n == 1 else f"{sid}-{n}")
        ep.reps.append(rows[key])


# --------------------------------------------------------------------------- --set


def parse_set(item: str) -> tuple[str, Any]:
    """``key.path=value`` → (path, value): the value a TOML value when it parses as one (``3``, ``true``,
    ``{ scheme = "red" }``), else a string (``384kbps``), as ``cellaqm run --set`` reads it."""
    path, eq, raw = item.partition("=")
    path, raw = path.strip(), raw.strip()
    if not eq or not path:
        raise PlanError(f"--set {item!r}: expected key.path=value")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return path, value


def _bearer_sections() -> dict[str, str]:
    """``radio.<section>`` → the bearer it belongs to (``radio.dch`` → ``dch``), from the core's registry."""
    from cellaqm import _core

    return {s: link["name"] for link in _core.scenario_catalogue()["links"]
            for s in (x.strip() for x in link["section"].split(",")) if s.startswith("radio.")}


def _bearer(doc: Mapping[str, Any]) -> Optional[str]:
    radio = doc.get("radio")
    return radio.get("bearer") if isinstance(radio, Mapping) else None


def _case(ep: ExperimentPlan, run: Run) -> str:
    return ", ".join(f"{k} {v}" for k, v in ep.levels(run).items())


def apply_sets(ep: ExperimentPlan, sets: Sequence[tuple[str, Any]]) -> None:
    """Set each (path, value) in every case of ``ep`` it applies to (see the module docstring)."""
    from cellaqm import _core
    from cellaqm.sweepfile import SweepError, set_path

    sections = _bearer_sections()
    original = {id(r): r.doc for r in ep.runs}
    before = {id(r): canonical_json(r.doc) for r in ep.runs}
    for path, value in sets:
        owner = next((b for s, b in sections.items() if path == s or path.startswith(s + ".")), None)
        shown = f"--set {path}={level_label(value)}"
        applied = 0
        for r in ep.runs:
            if owner is not None and _bearer(r.doc) != owner:
                continue
            try:
                r.doc = set_path(r.doc, path, value)
            except SweepError as exc:
                raise PlanError(f"{shown}: experiment {ep.name} ({_case(ep, r)}): {exc}") from None
            applied += 1
        if not applied:
            bearers = sorted({str(_bearer(r.doc) or "wired") for r in ep.runs})
            raise PlanError(f"{shown}: applies to no case of experiment {ep.name} (a {owner} key; its cases are "
                            f"{', '.join(bearers)}); choose the experiments it applies to with --only")
    for r in ep.runs:
        try:
            _core.validate(canonical_json(r.doc), "json", [])
        except _core.ScenarioError as exc:
            shown = ", ".join(f"{p}={level_label(v)}" for p, v in sets)
            absent = [p.split(".")[0] for p, _ in sets if p.split(".")[0] not in original[id(r)]]
            hint = (f" (its scenarios have no [{absent[0]}]: choose the experiments it applies to with --only)"
                    if absent else "")
            raise PlanError(f"--set {shown}: experiment {ep.name} ({_case(ep, r)}): {exc}{hint}") from None
    distinct: dict[tuple[str, int, str], Run] = {}
    for r in ep.runs:
        key = (canonical_json(r.doc), r.seed, canonical_json(r.options))
        other = distinct.setdefault(key, r)
        if other is not r and before[id(other)] != before[id(r)]:
            shown = ", ".join(f"{p}={level_label(v)}" for p, v in sets)
            raise PlanError(f"--set {shown}: experiment {ep.name} varies what it sets: its cases "
                            f"({_case(ep, other)}) and ({_case(ep, r)}) become the same; leave the experiment out "
                            "with --only")


def describe(p: StudyPlan) -> str:
    """"9 experiments, 3,480 runs (2,400 simulations: 1,080 shared between experiments)"."""
    sims = len(p.simulations())
    shared = f" ({sims:,} simulations: {p.runs - sims:,} runs shared between experiments)" if sims < p.runs else ""
    n = len(p.experiments)
    return f"{n} experiment{'s' * (n != 1)}, {p.runs:,} runs{shared}"


def manifest(p: StudyPlan) -> dict[str, Any]:
    """``OUT/store/study.json``: the study, the mode, the sets and each experiment's runs."""
    return {"study": p.study.name, "title": p.study.title, "mode": p.mode, "replications": p.reps, "sets": p.sets,
            "experiments": [{"name": ep.name, "title": ep.experiment.title, "runs": len(ep.runs),
                             "store": f"store/{ep.name}"} for ep in p.experiments]}
