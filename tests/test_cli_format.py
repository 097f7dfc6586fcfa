"""The CLI's human-readable printing, on hand-made results (no simulation needed)."""

from __future__ import annotations

import io

from rich.console import Console

from cellaqm.cli import _metric_rows, print_human
from cellaqm.result import RunResult

SUMMARY = {
    "scenario": "hand-made",
    "seed": 9,
    "duration_s": 60.0,
    "flows": 2,
    "delivered_bytes": 2_700_000,
    "goodput_bps": 360_000.0,
    "mean_flow_goodput_bps": 180_000.0,
    "delay_ms": {"count": 1800, "mean": 812.5, "p50": 800.0, "p95": 1900.0, "p99": 2000.0, "max": 2100.0},
    "rtos": 1,
    "spurious_rtos": 0,
    "fast_retransmits": 4,
    "retransmitted_bytes": 7200,
    "drops": {"overflow": 5, "random_loss": 2},
    "bottleneck": {
        "utilisation": 0.9375,
        "mean_queue_bytes": 65000.0,
        "mean_queue_packets": 43.3,
        "packets_sent": 1870,
        "bytes_sent": 2_805_000,
        "drops": {"overflow": 5},
        "marked": 0,
    },
    "uplink": {"utilisation": 0.2, "mean_queue_bytes": 0.0, "mean_queue_packets": 0.0, "drops": {"receiver": 3}},
    "delay_up_ms": {"count": 0, "mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0},
    "ledger": {"sent_bytes": 1, "delivered_bytes": 1, "dropped_bytes": 0, "in_flight_bytes": 0},
    "events": 123_456,
    "wall_s": 0.0123,
    "sim_seconds_per_wall_second": 4878.0,
    "events_per_second": 1.0e7,
    "a_future_metric": 1.25,
}
FLOWS = [
    {"flow": 0, "bytes_delivered": 1_350_000, "goodput_bps": 180_000.0, "start_s": 0.0,
     "completion_s": None, "rtos": 1, "spurious_rtos": 0, "fast_retransmits": 2,
     "retransmitted_bytes": 3600, "ecn_reductions": 0, "segments_sent": 940, "new_field": 7},
    {"flow": 1, "bytes_delivered": 1_350_000, "goodput_bps": 180_000.0, "start_s": 0.5,
     "completion_s": 59.5, "rtos": 0, "spurious_rtos": 0, "fast_retransmits": 2,
     "retransmitted_bytes": 3600, "ecn_reductions": 0, "segments_sent": 930, "new_field": 8},
]


def render(result: RunResult) -> str:
    buf = io.StringIO()
    print_human(result, Console(file=buf, width=100, color_system=None))
    return buf.getvalue()


def test_print_human_known_and_unknown_fields():
    out = render(RunResult(SUMMARY, FLOWS, seed=9))
    assert "scenario hand-made" in out and "seed 9" in out and "60 s simulated" in out
    rows = {label: (value, unit) for label, value, unit in _metric_rows(SUMMARY)}
    assert rows["goodput"] == ("360.0", "kb/s")
    assert rows["delay p95"] == ("1,900.0", "ms")
    assert rows["delay samples"] == ("1,800", "packets")
    assert rows["drops"] == ("7", "packets")
    assert rows["bottleneck utilisation"] == ("93.8", "%")
    assert rows["uplink drops"] == ("3", "packets")
    assert rows["  receiver"] == ("3", "packets")
    assert not any(label.startswith("uplink delay") for label in rows)  # no uplink data: left out
    up = {**SUMMARY, "delay_up_ms": {"count": 10, "mean": 197.0, "p50": 190.0, "p95": 270.0, "p99": 300.0, "max": 612.0}}
    rows = {label: (value, unit) for label, value, unit in _metric_rows(up)}
    assert rows["uplink delay mean"] == ("197.0", "ms") and rows["uplink delay samples"] == ("10", "packets")
    assert rows["a future metric"] == ("1.250", "")
    assert not any(label.startswith("ledger") for label in rows)
    for text in ("goodput", "kb/s", "delay p99", "RTOs", "utilisation", "events", "speed", "new_field"):
        assert text in out, text
    assert "59.500" in out and "—" in out  # completion time, and an unfinished flow


def test_print_human_many_flows_is_truncated():
    flows = [dict(FLOWS[0], flow=i) for i in range(45)]
    out = render(RunResult(SUMMARY, flows, seed=9))
    assert "25 more flows" in out


def test_print_human_sparse_summary():
    # Only a few keys: printing must not fail on what is missing.
    out = render(RunResult({"seed": 1}, [], seed=1))
    assert "seed 1" in out


def test_print_human_labels_download_metrics_and_leaves_out_absent_traffic():
    block = {"count": 3, "completed": 2, "completed_bytes": 130_000, "mean_goodput_bps": 400_000.0,
             "time_s": {"mean": 1.5, "p50": 1.0, "p90": 2.0, "p95": 2.0, "p99": 2.0, "max": 2.0}, "rtos": 0}
    none = dict(block, completed=0, mean_goodput_bps=None, time_s=dict.fromkeys(block["time_s"]))
    summary = dict(SUMMARY, downloads=block, downloads_by_kind={"page": block, "session": none},
                   sessions={"offered": 0, "served": 0, "lost": 0, "unfinished": 0},
                   datagrams={"sent": 0, "delivered": 0, "lost": 0, "delivered_bytes": 0, "delay_ms": {"p95": 0.0}})
    rows = {label: (value, unit) for label, value, unit in _metric_rows(summary)}
    assert rows["download time p95"] == ("2.000", "s")
    assert rows["page download time p95"] == ("2.000", "s")
    assert rows["session download time p95"] == ("—", "s")
    assert rows["mean page download goodput"] == ("400.0", "kb/s")
    assert not any(label.startswith(("sessions offered", "datagram")) for label in rows), "no such traffic in the run"
    single = {label for label, _, _ in _metric_rows(dict(summary, downloads_by_kind={"page": block}))}
    assert "download time p95" in single and "page download time p95" not in single


EMPTY_ACTIVITY = {
    "downloads": {"count": 0, "completed": 0, "completed_bytes": 0, "mean_goodput_bps": 0.0,
                  "time_s": {"mean": 0.0, "p95": 0.0}, "rtos": 0},
    "sessions": {"offered": 0, "served": 0, "lost": 0, "unfinished": 0},
    "datagrams": {"sent": 0, "delivered": 0, "lost": 0, "delivered_bytes": 0,
                  "delay_ms": {"count": 0, "mean": 0.0}},
}


def test_bulk_run_prints_no_empty_sections():
    labels = [label for label, _, _ in _metric_rows({**SUMMARY, **EMPTY_ACTIVITY})]
    assert not [label for label in labels if label.startswith(("download", "session", "datagram"))], labels


def test_downloads_are_printed_with_units():
    downloads = {"count": 5, "completed": 4, "completed_bytes": 1_040_000, "mean_goodput_bps": 251_661.4,
                 "time_s": {"mean": 8.3, "p95": 8.9}, "rtos": 8}
    rows = {label: unit for label, _, unit in _metric_rows({**SUMMARY, **EMPTY_ACTIVITY, "downloads": downloads})}
    assert not any("mean_goodput_bps" in label or "time_s" in label for label in rows), rows
    assert [unit for label, unit in rows.items() if "goodput" in label and "download" in label] == ["kb/s"]
    assert rows["download time p95"] == "s"
    assert not any(label.startswith(("session", "datagram")) for label in rows)
