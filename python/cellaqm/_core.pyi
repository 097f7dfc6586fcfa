"""Type stubs for the compiled extension `cellaqm._core` (crates/cellaqm-py).

Checked against the built module by `make stubtest` (mypy.stubtest).
"""

from typing import Any, Callable, Literal, Optional, final

__all__ = ["__version__", "ScenarioError", "run", "resolve", "validate", "set_path", "scenario_catalogue", "Queue", "DelayEstimator", "Raqm", "queue_catalogue"]

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
    trace: bool = False,
    progress: Optional[Callable[[float, float], object]] = None,
    dir: Optional[str] = None,
    pcap: Optional[str] = None,
    rows: bool = True,
) -> dict[str, Any]:
    """Run one scenario.

    ``dir``: the directory relative trace paths (``rate = { trace = "f" }``)
    are relative to (the scenario file's); ``None``: the current directory.

    The run goes on in a thread of its own while the calling thread checks
    Python's signals every 0.1 s: Ctrl-C (``KeyboardInterrupt``) stops it and
    is raised. ``progress``, if given, is called as
    ``progress(simulated_s, duration_s)`` at each check; an exception it
    raises stops the run too.

    Returns a dict with ``summary`` (dict, the structure of ``summary.json``), ``flows`` and
    ``downloads`` (one row per flow and per download, as columns: name → ``(numpy dtype str,
    bytes)``, a list of str, or a list of float or None; None with ``rows=False``, which keeps
    only their totals), ``users`` (list of dicts, one per user), ``seed`` (int), ``packets`` (None, or a dict mapping column name to
    ``(numpy dtype str, bytes)``), ``trace`` (None, or a dict of tables ``cwnd``, ``rtt``, ``queue``,
    ``drops``, ``delivered``, ``radio_losses``, ``bsr``, each mapping column name to ``(numpy dtype str, bytes)`` or, for
    text columns, a list of str) and ``occupancy`` (the buffers' occupancy distributions:
    ``buffer`` and ``unit`` as lists of str, ``value`` and ``time_s`` as ``(numpy dtype str, bytes)``)
    and ``pcap`` (None, or the paths of ``server.pcap``, ``bottleneck.pcap`` and ``client.pcap``
    written into the directory ``pcap``) and ``pcap_error`` (None, or why they could not be
    written; the results are returned all the same). ``OSError`` before the run if no file can be
    created in ``pcap``.
    """

def scenario_catalogue() -> dict[str, Any]:
    """What a scenario can name besides the queue schemes (``cellaqm list traffic|tcp|links``).

    A dict with ``traffic`` (models: ``name``, ``does``, ``required``, ``keys``), ``tcp`` (keys:
    ``name``, ``default``, ``required``, ``takes``, ``meaning``) and ``links`` (``name``,
    ``section``, ``what``). A key's ``default`` is as a scenario writes it, None for a
    required key or an optional one absent by default.
    """

def resolve(scenario_text: str, fmt: str = "toml", sets: list[str] = ..., dir: Optional[str] = None) -> str:
    """The scenario as the run reads it, every default filled in, as JSON text (``dir`` as for ``run``).

    Raises ``ScenarioError`` exactly when ``validate`` does.
    """

def validate(
    scenario_text: str,
    fmt: str = "toml",
    sets: list[str] = ...,
    dir: Optional[str] = None,
) -> None:
    """Parse and validate a scenario without running it (``dir`` as for ``run``).

    Raises ``ScenarioError`` exactly when ``run`` would refuse the same
    arguments.
    """

def set_path(doc_json: str, path: str, value_json: str) -> str:
    """Set one key path in a scenario document (JSON) to a value (JSON), exactly as ``--set`` does.

    Returns the new document as JSON; raises ``ScenarioError`` with the
    message ``--set`` would give for the same path.
    """

# --- queue disciplines outside a simulation (crates/cellaqm-py/src/queues.rs)

_Drop = tuple[int, str]
_Departed = tuple[int, int, int, float, bool]

@final
class Queue:
    """A queue discipline driven by hand; see ``cellaqm.queues`` for the friendly wrapper.

    ``params`` is a JSON object of the scheme's parameters in scenario syntax,
    ``buffer`` a size like ``"100kB"``, ``rate`` a rate like ``"384kbps"`` (the
    default). Bad input raises ``ScenarioError`` naming the parameter. Times
    are seconds, sizes bytes; a drop is ``(uid, cause)``.
    """

    def __new__(
        cls,
        scheme: str,
        params: str = "{}",
        buffer: Optional[str] = None,
        buffer_packets: Optional[int] = None,
        rate: Optional[str] = None,
        seed: int = 1,
    ) -> Queue: ...
    def enqueue(
        self, size: int, now: float, flow: int = 0, syn: bool = False, ect: bool = False
    ) -> tuple[int, bool, list[_Drop], bool]:
        """Returns ``(uid, accepted, drops, marked)``."""
    def dequeue(self, now: float) -> tuple[Optional[_Departed], list[_Drop]]:
        """Returns ``((uid, size, flow, enqueued_s, ce) or None, drops)``."""
    def tick(self, now: float) -> list[_Drop]:
        """Runs every timer due by ``now``; returns the drops."""
    def next_timer(self) -> Optional[float]: ...
    def mark_started(self, uid: int) -> None: ...
    @property
    def bytes(self) -> int: ...
    @property
    def packets(self) -> int: ...
    @property
    def marked(self) -> int: ...
    @property
    def scheme(self) -> str: ...
    @property
    def rate(self) -> float: ...
    @rate.setter
    def rate(self, rate: str) -> None: ...

@final
class DelayEstimator:
    """R-AQM's head-of-line queue-delay estimator; times in seconds, sizes in bytes."""

    def __new__(cls) -> DelayEstimator: ...
    def observe(self, queue_bytes: int, served_bytes: int, dt: float) -> float:
        """One BSR: the queue, the bytes served since the previous one, ``dt`` since it; returns the estimate."""
    @property
    def estimate(self) -> float: ...
    @property
    def queue(self) -> int: ...

@final
class Raqm:
    """R-AQM, the receiver-side filter; ``params`` is a JSON object in scenario syntax."""

    def __new__(cls, params: str = "{}") -> Raqm: ...
    def on_bsr(self, now: float, queue_bytes: int, received_bytes: int) -> float:
        """A BSR at ``now``; returns the new head-of-line delay estimate."""
    def on_deliver(self, now: float, size: int) -> Literal["deliver", "drop"]: ...
    @property
    def estimate(self) -> float: ...
    @property
    def drops(self) -> int: ...
    @property
    def dropped_bytes(self) -> int: ...

def queue_catalogue() -> list[dict[str, Any]]:
    """Every catalogue entry: ``{name, acts_at, rule, params: [{name, default, unit, meaning}]}``."""
