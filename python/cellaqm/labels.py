"""Readable names and units for the metric columns of a results table (for tables and plots)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Optional

#: Column-name suffix → (unit shown, scale applied to values). Order matters: longest first.
_SUFFIX_UNITS = (
    ("_bps", ("kb/s", 1e-3)),
    ("_bytes", ("kB", 1e-3)),
    ("_packets", ("packets", 1.0)),
    ("_s", ("s", 1.0)),
)


def normalize_metric(name: str) -> str:
    """``delay_ms.p95`` (summary path) → ``delay_ms_p95`` (column)."""
    return name.replace(".", "_")


def metric_unit(column: str, values: Optional[Iterable[float]] = None) -> tuple[str, str, float]:
    """``(label, unit, scale)`` for a metric column: plot ``values * scale`` against ``label (unit)``.

    Rates switch to Mb/s and sizes to MB when the typical value is large.
    """
    typical = math.nan
    if values is not None:
        vals = [abs(float(v)) for v in values if v is not None and not math.isnan(float(v))]
        if vals:
            vals.sort()
            typical = vals[len(vals) // 2]
    if column.startswith("delay_ms_") or column == "packet_delay_ms":
        stat = column[len("delay_ms_"):] if column.startswith("delay_ms_") else ""
        if stat == "count":
            return "delay samples", "packets", 1.0
        return (f"packet delay {stat}".strip(), "ms", 1.0)
    if column.endswith("utilisation"):
        return column[: -len("_utilisation")].replace("_", " ") + " utilisation" if column != "utilisation" \
            else "utilisation", "%", 100.0
    for suffix, (unit, scale) in _SUFFIX_UNITS:
        if column.endswith(suffix):
            label = column[: -len(suffix)].replace("_", " ")
            if suffix == "_bps" and typical >= 1e6:
                unit, scale = "Mb/s", 1e-6
            if suffix == "_bytes" and typical >= 1e6:
                unit, scale = "MB", 1e-6
            if suffix == "_bytes" and typical < 1e3:
                unit, scale = "bytes", 1.0
            return label, unit, scale
    if "drops" in column or column.endswith("marked") or column.endswith("rtos") or column.endswith("retransmits"):
        return column.replace("_", " "), "packets" if ("drops" in column or "marked" in column) else "count", 1.0
    return column.replace("_", " "), "", 1.0


def axis_label(column: str, values: Optional[Iterable[float]] = None) -> str:
    label, unit, _ = metric_unit(column, values)
    return f"{label} ({unit})" if unit else label
