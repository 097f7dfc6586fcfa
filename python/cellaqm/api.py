"""`cellaqm.run`: turn a scenario (file or dict) into a :class:`RunResult`."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from cellaqm import _core
from cellaqm._core import ScenarioError
from cellaqm.result import CaptureError, RunResult, remove_run_files

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_U64_MAX = 2**64 - 1



@dataclass
class RunContext:
    """What the experiment engine (:mod:`cellaqm.engine`) asks of the runs a study's ``measure`` makes: a
    ``progress`` for runs started without one (a check that raises once the user abandons the runs in flight,
    which stops the run), and the results, so that their per-user rows are kept in the store."""

    progress: Optional[Callable[[float, float], object]] = None
    results: list[RunResult] = field(default_factory=list)


#: The :class:`RunContext` of the runs started in this context (a worker of the engine), or None.
run_context: ContextVar[Optional[RunContext]] = ContextVar("run_context", default=None)


def read_scenario(scenario: ScenarioLike) -> tuple[str, str]:
    """Return ``(text, fmt)`` for a scenario path or mapping.

    A path ending in ``.json`` is read as JSON, one ending in ``.toml`` (or
    without an extension) as TOML; any other extension is refused. A
    mapping is sent to the core as a JSON object with the TOML's structure.
    An unreadable file raises :class:`ScenarioError` naming the file.
    """
    if isinstance(scenario, Mapping):
        return json_text(scenario, "scenario dict"), "json"
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        if path.suffix.lower() not in ("", ".toml", ".json"):
            raise ScenarioError(f"{path}: a scenario file is TOML (.toml) or JSON (.json), not {path.suffix}")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
            raise ScenarioError(f"{path}: cannot read: {reason}") from None
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{path}: cannot read: not UTF-8 text ({exc.reason})") from None
        return text, "json" if path.suffix.lower() == ".json" else "toml"
    raise TypeError(
        f"scenario must be a path (str or os.PathLike) or a dict, not {type(scenario).__name__}"
    )


def scenario_dir(scenario: ScenarioLike) -> Optional[str]:
    """The directory a scenario's relative trace paths are relative to: the
    file's own; ``None`` (the current directory) for a dict."""
    if isinstance(scenario, Mapping):
        return None
    return str(Path(scenario).parent)


def _bad_value(value: Any, path: str) -> Optional[str]:
    """``"KEY.PATH: reason"`` for the first value JSON cannot carry (None, NaN, ±inf, other types), else None."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            bad = _bad_value(item, f"{path}.{key}" if path else str(key))
            if bad:
                return bad
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            bad = _bad_value(item, f"{path}.{i}" if path else str(i))
            if bad:
                return bad
    elif value is None:
        return f"{path}: None is not a value (leave the key out for its default)"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"{path}: {value} is not a finite number"
    elif not isinstance(value, (str, int, float, bool)):
        return f"{path}: expected a string, number, boolean, list or dict, got {type(value).__name__}"
    return None


def json_text(value: Mapping[str, Any], what: str, path: str = "") -> str:
    """``value`` as JSON text; :class:`ScenarioError` naming the key (under ``path``) of the first value
    JSON cannot carry."""
    bad = _bad_value(value, path)
    if bad:
        raise ScenarioError(bad)
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:  # e.g. a key that is not a string
        raise ScenarioError(f"{what} is not JSON-serialisable: {exc}") from None


def check_sets(sets: Iterable[str]) -> list[str]:
    """Validate ``key.path=value`` overrides; raise :class:`ScenarioError` for a malformed one."""
    if isinstance(sets, str):
        sets = [sets]
    out = []
    for item in sets:
        if not isinstance(item, str):
            raise TypeError(f"sets must be strings like 'key.path=value', not {type(item).__name__}")
        try:
            item.encode("utf-8")
        except UnicodeEncodeError:
            raise ScenarioError(f"--set {item!r}: not UTF-8 text") from None
        key, eq, _value = item.partition("=")
        if not eq or not key.strip():
            raise ScenarioError(f"--set {item!r}: expected key.path=value")
        out.append(item)
    return out


def check_seed(seed: Optional[int]) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int or None, not {type(seed).__name__}")
    if not 0 <= seed <= _U64_MAX:
        raise ValueError(f"seed must be between 0 and 2**64-1, not {seed}")
    return seed


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    sets: Iterable[str] = (),
    packets: bool = False,
    trace: bool = False,
    progress: Optional[Callable[[float, float], object]] = None,
    pcap: Optional[Union[str, "os.PathLike[str]"]] = None,
    rows: bool = True,
) -> RunResult:
    """Simulate one scenario and return its :class:`RunResult`.

    Args:
        scenario: path to a ``.toml`` (or ``.json``) scenario file, or a dict
            with the same structure as the TOML.
        seed: RNG seed; ``None`` uses the scenario's own ``seed``.
        sets: overrides such as ``"bottleneck.rate=384kbps"``, applied on top
            of the scenario (same syntax as the CLI's ``--set``).
        packets: also record every delivered downlink data packet
            (:attr:`RunResult.packets`).
        trace: also record the run's time series (:attr:`RunResult.trace`:
            cwnd, RTT samples and RTO, buffer occupancy, drops, delivered sequence numbers, and the
            uplink's Buffer Status Reports with the delay estimates).
        progress: called as ``progress(simulated_s, duration_s)`` every
            0.1 s of wall time while the run goes on.
        pcap: a directory to write the run's packets into as pcap files
            (created if needed): ``server.pcap``, ``bottleneck.pcap`` (the
            managed buffer's input) and ``client.pcap``, with IPv4/TCP
            headers for Wireshark, tshark and tcptrace (docs/scenario.md);
            :attr:`RunResult.pcap_files` lists them. An earlier run's files
            there (pcap files, ``summary.json``, tables) are removed.
        rows: keep one row per flow and per download (:attr:`RunResult.flows`,
            :attr:`RunResult.downloads`); ``False`` keeps only their totals
            (the summary and :attr:`RunResult.users` are the same), so that
            memory stays flat however long the run and however many
            connections come and go.

    Ctrl-C (or any exception raised by a signal handler or by ``progress``)
    stops the run within a fraction of a second and is raised.

    Raises:
        ScenarioError: the file cannot be read, or the scenario or an
            override is invalid. The message is one line naming the key.
        OSError: no file can be created in the ``pcap`` directory (raised
            before the run).
        CaptureError: the pcap files could not be written after the run (a
            full disk); its ``result`` attribute holds the run's results.
    """
    text, fmt = read_scenario(scenario)
    pcap_dir = None if pcap is None else os.fspath(pcap)
    context = run_context.get()
    if progress is None and context is not None:
        progress = context.progress
    if pcap_dir == "":
        raise ValueError("pcap: an empty directory name (give a directory, e.g. pcap='captures')")
    raw = _core.run(text, fmt, check_seed(seed), check_sets(sets), bool(packets), bool(trace), progress,
                    scenario_dir(scenario), pcap_dir, bool(rows))
    result = RunResult.from_core(raw)
    if raw.get("pcap_error"):
        raise CaptureError(raw["pcap_error"], result)
    if pcap_dir is not None:
        remove_run_files(Path(pcap_dir), keep=result.pcap_files)
    if context is not None:
        context.results.append(result)
    return result
