"""cellaqm: a fast simulator of TCP over managed buffers in front of cellular radio links.

>>> import cellaqm
>>> res = cellaqm.run("scenarios/default.toml", seed=7, sets=["bottleneck.rate=384kbps"])  # doctest: +SKIP
>>> res.summary["goodput_bps"], len(res.flows)                                          # doctest: +SKIP

The simulation itself is the Rust crate ``cellaqm-core``; this package is the
Python front end: :func:`run`, :class:`RunResult` and the ``cellaqm`` CLI.
"""

from __future__ import annotations

try:
    from cellaqm._core import ScenarioError, __version__
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "cellaqm's compiled extension (cellaqm._core) is missing: build it with `make build` "
        "(maturin develop) or install the package with pip"
    ) from exc

from cellaqm.api import run
from cellaqm.result import (
    CaptureError,
    PacketsNotRecordedError,
    RowsNotKeptError,
    RunResult,
    TraceNotRecordedError,
    read_trace,
)


def __getattr__(name: str):
    """Imported on first use, to keep ``import cellaqm`` (and so the CLI's start-up) light:
    sweep/load_sweep (pandas, pyarrow), SweepError and queues (cellaqm.queues.make(...),
    .schemes(): schemes standalone)."""
    if name in ("sweep", "load_sweep"):
        from cellaqm import runner

        return runner.sweep if name == "sweep" else runner.load
    if name == "SweepError":
        from cellaqm.sweepfile import SweepError

        return SweepError
    if name == "queues":
        import importlib

        return importlib.import_module("cellaqm.queues")
    raise AttributeError(f"module 'cellaqm' has no attribute {name!r}")


__all__ = [
    "CaptureError",
    "PacketsNotRecordedError",
    "RowsNotKeptError",
    "RunResult",
    "ScenarioError",
    "SweepError",
    "TraceNotRecordedError",
    "__version__",
    "load_sweep",
    "read_trace",
    "run",
    "sweep",
]
