"""Every metric of a sweep row has a readable label and a unit (tables, plots)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import cellaqm
from cellaqm.labels import axis_label, metric_unit
from cellaqm.store import flatten

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

WCDMA = Path(__file__).resolve().parents[1] / "scenarios" / "wcdma" / "td" / "dch384-web-rwnd30-100kB.toml"
RAQM = Path(__file__).resolve().parents[1] / "scenarios" / "lte-uplink" / "raqm.toml"


def every_metric_column() -> dict[str, float]:
    """The numeric columns of a sweep row of a run with every summary section: a radio bearer,
    web pages, sessions, uploads, ETSI packet calls and CBR datagrams."""
    doc = tomllib.loads(WCDMA.read_text(encoding="utf-8"))
    doc["duration"] = "30s"
    doc["traffic"] = [
        doc["traffic"],
        {"model": "sessions", "users": 2, "interarrival": "5s", "size": "20kB"},
        {"model": "upload", "size": "20kB", "files": 2},
        {"model": "etsi_web", "reading_time": "1s"},
        {"model": "cbr", "call_duration": "10s"},
    ]
    summary = cellaqm.run(doc).summary
    assert {"radio", "downloads_by_kind", "datagrams", "sessions"} <= set(summary)
    assert set(summary["downloads_by_kind"]) == {"page", "session", "upload", "packet_call"}
    row = flatten({k: v for k, v in summary.items() if k != "seed"})
    return {k: v for k, v in row.items() if isinstance(v, (int, float))}


def test_every_metric_has_a_readable_label_and_a_unit() -> None:
    columns = every_metric_column()
    assert len(columns) > 100
    # The wired uplink with BSRs and R-AQM adds the `bsr` section.
    summary = cellaqm.run(str(RAQM), sets=["duration=5s"]).summary
    bsr = flatten({"bsr": summary["bsr"]})
    assert len(bsr) == 8
    for column, value in {**columns, **bsr}.items():
        label, unit, scale = metric_unit(column, [value])
        assert unit, f"{column}: no unit ({label!r})"
        assert "_" not in label, f"{column}: label {label!r} is the column name"
        assert " s " not in f" {label} ", f"{column}: {label!r}"
        assert scale > 0


@pytest.mark.parametrize(
    ("column", "values", "label"),
    [
        ("downloads_time_s_p95", None, "download time p95 (s)"),
        ("downloads_by_kind_page_time_s_p95", None, "page download time p95 (s)"),
        ("downloads_by_kind_packet_call_mean_goodput_bps", [5e4], "mean packet call goodput (kb/s)"),
        ("downloads_by_kind_upload_count", None, "uploads requested (count)"),
        ("downloads_mean_goodput_bps", [2e6], "mean download goodput (Mb/s)"),
        ("datagrams_delay_ms_p95", None, "datagram delay p95 (ms)"),
        ("delay_ms_p95", None, "packet delay p95 (ms)"),
        ("delay_ms_count", None, "packet delay samples (packets)"),
        ("delay_up_ms_mean", None, "uplink packet delay mean (ms)"),
        ("bsr_error_ms_p95_abs", None, "delay estimate error, p95 absolute (ms)"),
        ("bsr_mean_reported_bytes", [30e3], "mean UE buffer reported by BSRs (kB)"),
        ("bottleneck_mean_queue_bytes", [30e3], "bottleneck mean queue (kB)"),
        ("bottleneck_queue_bytes_p95", [21e3], "bottleneck queue p95 over time (kB)"),
        ("uplink_queue_packets_max", None, "uplink queue max over time (packets)"),
        ("bottleneck_queue_bytes", [45e3], "bottleneck queue occupancy (kB)"),
        ("bottleneck_utilisation", [0.5], "bottleneck utilisation (%)"),
        ("drops_overflow", None, "bottleneck drops, overflow (packets)"),
        ("sessions_lost", None, "sessions lost (count)"),
        ("radio_mean_pdcp_bytes", [500.0], "mean PDCP buffer (bytes)"),
        ("goodput_bps", [3e5], "goodput (kb/s)"),
    ],
)
def test_labels_name_the_metric_and_its_unit(column: str, values, label: str) -> None:
    assert axis_label(column, values) == label
