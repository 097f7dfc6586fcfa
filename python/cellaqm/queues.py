"""Queue disciplines on their own: feed a scheme your own arrivals and departures.

Every scheme the simulator has (``cellaqm list queues``) can be driven by
hand, with its parameters in the scenario file's units::

    >>> from cellaqm import queues
    >>> q = queues.make("codel", target="5ms", interval="100ms", buffer="100kB")
    >>> q.enqueue(1500, now=0.0)
    Decision(uid=0, accepted=True, dropped=[], marked=False)
    >>> q.dequeue(now=0.012)
    Departure(packet=Packet(uid=0, size=1500, flow=0, enqueued=0.0, ce=False), dropped=[])

Times are seconds (floats) since any origin, non-decreasing from call to
call; sizes are bytes. Packets are numbered 0, 1, 2, ... in arrival order, and
each drop names the packet and the cause (``overflow``, ``overflow_front``,
``early``, ``expired``, ``target_exceeded``, ``age``; in a scenario also
``link_loss`` and R-AQM's ``receiver``). The queue knows only
what it is told: call :meth:`Queue.tick` (or check :meth:`Queue.next_timer`)
for schemes with timers (``ttlred2``), and set :attr:`Queue.rate` when the
link rate changes (rate-adaptive thresholds and PIE use it).

R-AQM, the receiver-side filter of the LTE uplink study (in a scenario:
``[uplink] receiver = { scheme = "raqm" }`` with ``bsr_period``), works the
same way on its own: ``make("raqm", min_age="0.2s")`` gives a :class:`Raqm` fed
with ``on_bsr(now, queue_bytes, received_bytes)`` and asked
``on_deliver(now, size)``; its head-of-line delay estimator is
:class:`DelayEstimator`, fed with ``observe(queue_bytes, served_bytes, dt)``.

To add a scheme of your own, see docs/queues.md.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Optional, Union, overload

from cellaqm import _core
from cellaqm._core import DelayEstimator, Raqm, ScenarioError
from cellaqm.api import json_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Decision",
    "DelayEstimator",
    "Departure",
    "Drop",
    "Packet",
    "Param",
    "Queue",
    "Raqm",
    "Scheme",
    "ScenarioError",
    "catalogue",
    "make",
    "schemes",
]


class Drop(NamedTuple):
    """A packet the queue discarded, and why (a cause name such as ``"early"``)."""

    uid: int
    cause: str


class Packet(NamedTuple):
    """A packet leaving the queue: ``enqueued`` is its arrival time (s), ``ce``
    whether it carries an ECN congestion mark."""

    uid: int
    size: int
    flow: int
    enqueued: float
    ce: bool


@dataclass(frozen=True)
class Decision:
    """What the queue did with an arrival.

    ``uid`` numbers the arrival; ``accepted`` says whether it was queued;
    ``dropped`` lists the packets this arrival caused to be discarded (the
    arrival itself, or queued ones for drop-from-front schemes); ``marked``
    whether it caused an ECN mark instead of a drop (on the arrival, or on the
    oldest packet with ``drop="front"``; :attr:`Packet.ce` shows which).
    """

    uid: int
    accepted: bool
    dropped: list[Drop] = field(default_factory=list)
    marked: bool = False


class Departure(NamedTuple):
    """The packet handed to the link (None if the queue was empty) and the
    packets discarded on the way (sojourn-time schemes drop at departure)."""

    packet: Optional[Packet]
    dropped: list[Drop]


def _drops(raw: list[tuple[int, str]]) -> list[Drop]:
    return [Drop(uid, cause) for uid, cause in raw]


def _core_attr(name: str, doc: str) -> Any:
    """A read-only property: attribute ``name`` of the core queue."""
    return property(lambda self: getattr(self._q, name), doc=doc)


class Queue:
    """A queue discipline driven by hand; build one with :func:`make`."""

    def __init__(self, core: _core.Queue) -> None:
        self._q = core

    def enqueue(
        self, size: int, now: float, flow: int = 0, syn: bool = False, ect: bool = False
    ) -> Decision:
        """A packet of ``size`` bytes of flow ``flow`` arrives at ``now`` (s).

        ``syn`` marks a TCP SYN (TTLRED2 gives it the long lifetime), ``ect``
        an ECN-capable packet (schemes with ``ecn=True`` mark it instead of
        dropping).
        """
        uid, accepted, dropped, marked = self._q.enqueue(size, now, flow, syn, ect)
        return Decision(uid, accepted, _drops(dropped), marked)

    def dequeue(self, now: float) -> Departure:
        """The link takes the next packet at ``now`` (s)."""
        packet, dropped = self._q.dequeue(now)
        return Departure(Packet(*packet) if packet is not None else None, _drops(dropped))

    def tick(self, now: float) -> list[Drop]:
        """Runs the scheme's timers due by ``now`` (s), each at its own time; returns the drops."""
        return _drops(self._q.tick(now))

    def next_timer(self) -> Optional[float]:
        """When the scheme next wants :meth:`tick` (s), or None."""
        return self._q.next_timer()

    def mark_started(self, uid: int) -> None:
        """Tell the queue the link has sent part of queued packet ``uid``
        (TTLRED2 never drops such a packet)."""
        self._q.mark_started(uid)

    bytes: int = _core_attr("bytes", "Bytes queued.")
    packets: int = _core_attr("packets", "Packets queued.")
    marked: int = _core_attr("marked", "Packets ECN-marked so far.")
    scheme: str = _core_attr("scheme", "The scheme's name.")

    @property
    def rate(self) -> float:
        """The link rate the scheme is told, in bit/s. Set it with a rate
        string (``"1Mbps"``) or a number of bit/s."""
        return self._q.rate

    @rate.setter
    def rate(self, rate: Union[str, float]) -> None:
        self._q.rate = _rate(rate)

    def __len__(self) -> int:
        return self.packets

    def __repr__(self) -> str:
        return f"<cellaqm.queues.Queue {self.scheme}: {self.packets} packets, {self.bytes} bytes>"


def _rate(rate: Union[str, float]) -> str:
    if isinstance(rate, bool) or not isinstance(rate, (str, int, float)):
        raise ScenarioError(f"rate: expected a rate like \"384kbps\" or a number of bit/s, got {rate!r}")
    if isinstance(rate, float) and not math.isfinite(rate):
        raise ScenarioError(f"rate: {rate} is not a finite number")
    return rate if isinstance(rate, str) else f"{float(rate):f}bps"


@overload
def make(scheme: Literal["raqm"], **params: Any) -> Raqm: ...
@overload
def make(
    scheme: str,
    *,
    buffer: Union[str, int, None] = None,
    buffer_packets: Optional[int] = None,
    rate: Union[str, float, None] = None,
    seed: int = 1,
    **params: Any,
) -> Queue: ...
def make(
    scheme: str,
    *,
    buffer: Union[str, int, None] = None,
    buffer_packets: Optional[int] = None,
    rate: Union[str, float, None] = None,
    seed: int = 1,
    **params: Any,
) -> Union[Queue, Raqm]:
    """A queue running ``scheme`` with ``params`` (the scenario's parameter names and units).

    ``buffer`` is the byte limit (``"100kB"``, or an int of bytes) and
    ``buffer_packets`` the packet limit; without either the buffer is
    unlimited. ``rate`` is the link rate (``"384kbps"``, or bit/s as a
    number; default 384 kb/s), which rate-adaptive thresholds and PIE use.
    ``seed`` seeds the scheme's random draws (RED, PIE, TTLRED).

    ``make("raqm", **params)`` gives the receiver-side :class:`Raqm` instead;
    it holds no buffer, so ``buffer``, ``buffer_packets``, ``rate`` and
    ``seed`` do not apply to it.

    Raises :class:`cellaqm.ScenarioError` for an unknown scheme or a bad
    parameter, with one line naming it::

        >>> make("pdpc", counter=4, thresholds={"min": 5, "max": 20}, buffer_packets=30)
        <cellaqm.queues.Queue pdpc: 0 packets, 0 bytes>
        >>> make("codel", target=5)
        Traceback (most recent call last):
        ...
        cellaqm.ScenarioError: codel.target: expected a string with a unit, like "70ms", got the bare number 5
    """
    if scheme == "raqm":
        given = [name for name, value in (("buffer", buffer), ("buffer_packets", buffer_packets), ("rate", rate)) if value is not None]
        if seed != 1:
            given.append("seed")
        if given:
            raise ScenarioError(f"raqm.{given[0]}: does not apply (R-AQM filters deliveries at the receiver and holds no buffer)")
        return Raqm(_params_json(scheme, params))
    if isinstance(buffer, bool) or not isinstance(buffer, (str, int, type(None))):
        raise ScenarioError(f"buffer: expected a size like \"100kB\" or an int of bytes, got {buffer!r}")
    if isinstance(buffer, int):
        buffer = f"{buffer}B"
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ScenarioError(f"seed: expected an integer between 0 and 2**64-1, got {seed!r}")
    if buffer_packets is not None and (isinstance(buffer_packets, bool) or not isinstance(buffer_packets, int) or not 0 <= buffer_packets < 2**32):
        raise ScenarioError(f"buffer_packets: expected a whole number of packets, got {buffer_packets!r}")
    core = _core.Queue(
        scheme,
        _params_json(scheme, params),
        buffer=buffer,
        buffer_packets=buffer_packets,
        rate=None if rate is None else _rate(rate),
        seed=seed,
    )
    return Queue(core)


def _params_json(scheme: str, params: dict[str, Any]) -> str:
    """The parameters as JSON; :class:`ScenarioError` naming ``scheme.param`` for a value JSON cannot carry."""
    return json_text(params, f"{scheme}'s parameters", scheme)


@dataclass(frozen=True)
class Param:
    """A scheme parameter: its default in scenario syntax, unit and meaning."""

    name: str
    default: str
    unit: str
    meaning: str


@dataclass(frozen=True)
class Scheme:
    """An entry of the catalogue: its name, where it acts, its rule and parameters.

    ``acts_at`` is ``"buffer"`` for a queue scheme (``scheme = "..."`` at any
    managed buffer of a scenario, ``make(name)`` standalone), ``"receiver"``
    for R-AQM and its delay estimator (at the far end of a scenario's uplink,
    ``receiver = { scheme = "raqm" }``), ``"reverse path"`` for ACK delay
    control (``[ack_delay]`` in a scenario).
    """

    name: str
    acts_at: str
    rule: str
    params: list[Param]


def catalogue() -> list[Scheme]:
    """Every queue scheme, then R-AQM, its delay estimator and ACK delay
    control, with their rules and parameters (from the Rust core)."""
    return [
        Scheme(s["name"], s["acts_at"], s["rule"], [Param(**p) for p in s["params"]])
        for s in _core.queue_catalogue()
    ]


def schemes() -> pd.DataFrame:
    """The catalogue as a DataFrame, one row per parameter.

    Columns: ``scheme``, ``acts_at``, ``rule``, ``parameter``, ``default``,
    ``unit``, ``meaning``; an entry without parameters has one row with
    empty parameter columns.
    """
    import pandas as pd

    rows = [(s.name, s.acts_at, s.rule, *astuple(p)) for s in catalogue() for p in s.params or [Param("", "", "", "")]]
    return pd.DataFrame(rows, columns=["scheme", "acts_at", "rule", "parameter", "default", "unit", "meaning"])
