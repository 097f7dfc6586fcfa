"""Readable names and units for the metric columns of a results table (for tables and plots).

A sweep row's metrics are summary.json flattened with ``_`` (docs/scenario.md,
"What a run reports"; docs/experiments.md, "The store"). :func:`metric_unit`
names each of them in words with its unit: ``downloads_time_s_p95`` is
"download time p95" in s, ``downloads_by_kind_page_mean_goodput_bps`` "mean
page download goodput" in kb/s, ``bottleneck_mean_queue_bytes`` "bottleneck
mean queue" in kB.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Optional

#: Statistics of a distribution, as the summary names them.
_STATS = ("count", "mean", "p50", "p90", "p95", "p99", "max")

#: Top-level metrics: column → (label, unit before scaling).
_TOP = {
    "goodput_bps": ("goodput", "bps"),
    "mean_flow_goodput_bps": ("mean flow goodput", "bps"),
    "goodput_per_cell_bps": ("system goodput per cell", "bps"),
    "delivered_bytes": ("data delivered", "bytes"),
    "duration_s": ("duration", "s"),
    "flows": ("flows", "count"),
    "users": ("users", "count"),
    "rtos": ("RTOs", "count"),
    "spurious_rtos": ("spurious RTOs", "count"),
    "rtos_undone": ("RTOs undone", "count"),
    "fast_retransmits": ("fast retransmits", "count"),
    "retransmitted_bytes": ("data retransmitted", "bytes"),
    "stalled_flows": ("stalled flows", "count"),
    "events": ("events", "count"),
    "wall_s": ("wall time", "s"),
    "run_wall_s": ("run wall time", "s"),
    "sim_seconds_per_wall_second": ("speed", "× real time"),
    "events_per_second": ("event rate", "events/s"),
    "packet_delay_ms": ("one-way packet delay", "ms"),
}

#: Fields of a link's summary (``bottleneck_…``, ``uplink_…``, a user's ``buffer_…``) → (label after the link's name, unit).
_LINK = {
    "utilisation": ("utilisation", "fraction"),
    "mean_queue_bytes": ("mean queue", "bytes"),
    "mean_queue_packets": ("mean queue", "packets"),
    "packets_sent": ("packets sent", "count"),
    "bytes_sent": ("data sent", "bytes"),
    "marked": ("ECN marks", "packets"),
    # The occupancy CDFs of `cellaqm plot --kind cdf` (cellaqm.plot.occupancy_metric).
    "queue_bytes": ("queue occupancy", "bytes"),
    "queue_packets": ("queue occupancy", "packets"),
}

#: Fields of the radio summary (``radio_…``).
_RADIO = {
    "down_pdus": ("radio downlink PDUs sent", "count"),
    "down_pdus_lost": ("radio downlink PDUs lost", "count"),
    "retransmissions": ("RLC retransmitted PDUs", "count"),
    "polls": ("RLC polls", "count"),
    "sdus_discarded": ("RLC SDUs discarded", "count"),
    "mrws_sent": ("RLC MRWs sent", "count"),
    "mrws_acknowledged": ("RLC SDU discards ended by an MRW ACK", "count"),
    "statuses": ("RLC STATUS PDUs from the UE", "count"),
    "up_retransmissions": ("uplink RLC retransmitted PDUs", "count"),
    "up_polls": ("uplink RLC polls", "count"),
    "up_sdus_discarded": ("uplink RLC SDUs discarded", "count"),
    "up_mrws_sent": ("uplink RLC MRWs sent", "count"),
    "up_mrws_acknowledged": ("uplink RLC SDU discards ended by an MRW ACK", "count"),
    "up_statuses": ("RLC STATUS PDUs from the RNC", "count"),
    "rlc_resets": ("RLC resets", "count"),
    "data_pdus_received": ("RLC data PDUs received by the UE", "count"),
    "statuses_per_100_pdus": ("RLC STATUS PDUs per 100 data PDUs received", "count"),
    "down_slots": ("DCH downlink PDU slots", "count"),
    "frame_utilisation": ("DCH downlink slot utilisation", "fraction"),
    "spared": ("packets dropped while RLC carried them", "count"),
    "mean_pdcp_bytes": ("mean PDCP buffer", "bytes"),
    "rate_bps": ("bearer rate told to the discipline", "bps"),
}

#: Fields of the Buffer Status Report summary (``bsr_…``, with ``uplink.bsr_period``).
_BSR = {
    "reports": ("BSRs received", "count"),
    "mean_reported_bytes": ("mean UE buffer reported by BSRs", "bytes"),
    "mean_estimate_ms": ("mean estimated head-of-line delay", "ms"),
    "mean_true_ms": ("mean true head-of-line delay", "ms"),
    "error_ms_mean": ("delay estimate error, mean", "ms"),
    "error_ms_mean_abs": ("delay estimate error, mean absolute", "ms"),
    "error_ms_p95_abs": ("delay estimate error, p95 absolute", "ms"),
    "error_ms_max_abs": ("delay estimate error, max absolute", "ms"),
}

#: Fields of the UDP datagram summary (``datagrams_…``) besides its delay.
_DATAGRAMS = {
    "sent": ("datagram packets sent", "count"),
    "delivered": ("datagram packets delivered", "count"),
    "lost": ("datagram packets lost", "count"),
    "delivered_bytes": ("datagram payload delivered", "bytes"),
}

#: Download kinds → (plural noun, what its time and goodput are of).
_KINDS = {
    "": ("downloads", "download"),
    "page": ("pages", "page download"),
    "file": ("files", "file download"),
    "upload": ("uploads", "upload"),
    "session": ("sessions", "session download"),
    "packet_call": ("packet calls", "packet call"),
}

#: Fields of a download block (``downloads_…``, ``downloads_by_kind_<kind>_…``), longest first.
_DOWNLOAD_FIELDS = ("mean_goodput_bps", "completed_bytes", "completed", "count", "rtos")


def normalize_metric(name: str) -> str:
    """``delay_ms.p95`` (summary path) → ``delay_ms_p95`` (column)."""
    return name.replace(".", "_")


def _delay(stat: str, what: str) -> tuple[str, str]:
    if stat == "count":
        return f"{what} samples", "packets"
    return f"{what} {stat}", "ms"


def _download(kind: str, field: str) -> Optional[tuple[str, str]]:
    plural, noun = _KINDS.get(kind, (kind.replace("_", " ") + " downloads", kind.replace("_", " ") + " download"))
    if field.startswith("time_s_") and field[len("time_s_"):] in _STATS:
        return f"{noun} time {field[len('time_s_'):]}", "s"
    return {
        "count": (f"{plural} requested", "count"),
        "completed": (f"{plural} completed", "count"),
        "completed_bytes": (f"data of completed {plural}", "bytes"),
        "mean_goodput_bps": (f"mean {noun} goodput", "bps"),
        "rtos": (f"RTOs during {plural}", "count"),
    }.get(field)


def _describe(column: str) -> Optional[tuple[str, str]]:
    """``(label, unit before scaling)`` of a known metric column, else None."""
    if column in _TOP:
        return _TOP[column]
    if column.startswith("delay_ms_"):
        return _delay(column[len("delay_ms_"):], "packet delay")
    if column.startswith("delay_up_ms_"):
        return _delay(column[len("delay_up_ms_"):], "uplink packet delay")
    if column.startswith("bsr_"):
        return _BSR.get(column[len("bsr_"):])
    if column.startswith("datagrams_delay_ms_"):
        return _delay(column[len("datagrams_delay_ms_"):], "datagram delay")
    if column.startswith("datagrams_"):
        return _DATAGRAMS.get(column[len("datagrams_"):])
    if column.startswith("downloads_by_kind_"):
        rest = column[len("downloads_by_kind_"):]
        for field in _DOWNLOAD_FIELDS:
            if rest.endswith("_" + field):
                return _download(rest[: -len(field) - 1], field)
        kind, sep, stat = rest.rpartition("_time_s_")
        return _download(kind, "time_s_" + stat) if sep else None
    if column.startswith("downloads_"):
        return _download("", column[len("downloads_"):])
    if column.startswith("sessions_"):
        return f"sessions {column[len('sessions_'):]}", "count"
    if column.startswith("drops_"):
        return f"bottleneck drops, {column[len('drops_'):].replace('_', ' ')}", "packets"
    if column.startswith("radio_") and column[len("radio_"):] in _RADIO:
        return _RADIO[column[len("radio_"):]]
    link_label = _link_field(column)
    if link_label is not None:
        return link_label
    if column.startswith("ledger_") and column.endswith("_bytes"):
        return f"byte ledger, {column[len('ledger_'):-len('_bytes')].replace('_', ' ')}", "bytes"
    return None


def _link_field(column: str) -> Optional[tuple[str, str]]:
    """A link section's field (``bottleneck_mean_queue_bytes``, ``uplink_drops_overflow``,
    ``buffer_queue_bytes_p95`` of a user), whatever the link is called: (label, unit)."""
    link, sep, field = column.partition("_")
    while sep:
        if field.startswith("drops_"):
            return f"{link} drops, {field[len('drops_'):].replace('_', ' ')}", "packets"
        if field in _LINK:
            label, unit = _LINK[field]
            return f"{link} {label}", unit
        # Time percentiles of the occupancy (`bottleneck_queue_bytes_p95`): the queue the
        # buffer was at or below for that fraction of the time.
        occupancy, _, stat = field.rpartition("_")
        if occupancy in ("queue_bytes", "queue_packets") and stat in _STATS:
            return f"{link} queue {stat} over time", _LINK[occupancy][1]
        head, sep, field = field.partition("_")
        link = f"{link}_{head}"
    return None


def metric_unit(column: str, values: Optional[Iterable[float]] = None) -> tuple[str, str, float]:
    """``(label, unit, scale)`` for a metric column: plot ``values * scale`` against ``label (unit)``.

    Rates are in kb/s (Mb/s when the typical value is large), sizes in kB (MB
    when large, bytes when small), fractions in %. An unknown column keeps
    its name with spaces and gets no unit.
    """
    typical = math.nan
    if values is not None:
        vals = [abs(float(v)) for v in values if v is not None and not math.isnan(float(v))]
        if vals:
            vals.sort()
            typical = vals[len(vals) // 2]
    label, unit = _describe(column) or (column.replace("_", " "), "")
    if unit == "bps":
        return (label, "Mb/s", 1e-6) if typical >= 1e6 else (label, "kb/s", 1e-3)
    if unit == "bytes":
        if typical >= 1e6:
            return label, "MB", 1e-6
        return (label, "bytes", 1.0) if typical < 1e3 else (label, "kB", 1e-3)
    if unit == "fraction":
        return label, "%", 100.0
    return label, unit, 1.0


def axis_label(column: str, values: Optional[Iterable[float]] = None) -> str:
    label, unit, _ = metric_unit(column, values)
    return f"{label} ({unit})" if unit else label
