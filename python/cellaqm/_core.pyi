"""Type stubs for the compiled extension `cellaqm._core` (crates/cellaqm-py).

Checked against the built module by `make stubtest` (mypy.stubtest).
"""

from typing import Any, Optional

__all__ = ["__version__", "ScenarioError", "run"]

__version__: str

class ScenarioError(ValueError):
    """The scenario could not be read, parsed or validated.

    The message is one line naming the key.
    """

def run(
    scenario_text: str,
    fmt: str = "toml",
    seed: Optional[int] = None,
    sets: list[str] = ...,
    record_packets: bool = False,
) -> dict[str, Any]:
    """Run one scenario.

    Returns a dict with ``summary_json`` (str), ``flows_json`` (str),
    ``seed`` (int) and ``packets`` (None, or a dict mapping column name to
    ``(numpy dtype str, bytes)``).
    """
