"""The result of one simulation run, as Python and pandas objects."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

#: Summary keys that measure the host, not the simulation: they differ between
#: two runs of the same scenario and seed. Everything else is deterministic.
WALL_TIME_KEYS = ("wall_s", "sim_seconds_per_wall_second", "events_per_second")

#: Columns of :attr:`RunResult.downloads`, in order.
DOWNLOAD_COLUMNS = (
    "download", "source", "kind", "user", "bytes", "objects", "connections",
    "request_s", "completion_s", "time_s", "goodput_bps", "rtos",
)

#: Columns of :attr:`RunResult.packets`, in order.
PACKET_COLUMNS = ("uid", "flow", "sent_s", "received_s", "delay_s", "size", "retransmission")


class PacketsNotRecordedError(RuntimeError):
    """:attr:`RunResult.packets` was read but the run did not record packets."""


class RunResult:
    """One run: ``summary`` (dict), ``flows``, ``downloads`` and ``packets`` (DataFrames).

    ``packets`` exists only when the run was started with ``packets=True``
    (CLI: ``--packets``); otherwise reading it raises
    :class:`PacketsNotRecordedError`. Check :attr:`has_packets` first if unsure.
    """

    def __init__(
        self,
        summary: dict[str, Any],
        flows: list[dict[str, Any]],
        seed: int,
        packet_columns: Optional[Mapping[str, np.ndarray]] = None,
        downloads: Optional[list[dict[str, Any]]] = None,
    ) -> None:
        self.summary = summary
        self.seed = seed
        self._flow_records = flows
        self._flows: Optional[pd.DataFrame] = None
        self._download_records = downloads or []
        self._downloads: Optional[pd.DataFrame] = None
        self._packet_columns = packet_columns
        self._packets: Optional[pd.DataFrame] = None

    @classmethod
    def from_core(cls, raw: Mapping[str, Any]) -> RunResult:
        """Build from the dict returned by ``cellaqm._core.run``."""
        columns = None
        if raw.get("packets") is not None:
            columns = {
                name: np.frombuffer(buf, dtype=np.dtype(dtype))
                for name, (dtype, buf) in raw["packets"].items()
            }
        return cls(
            summary=json.loads(raw["summary_json"]),
            flows=json.loads(raw["flows_json"]),
            seed=int(raw["seed"]),
            packet_columns=columns,
            downloads=json.loads(raw.get("downloads_json", "[]")),
        )

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (``flow``, ``bytes_delivered``, ``goodput_bps``, ...)."""
        if self._flows is None:
            self._flows = pd.DataFrame.from_records(self._flow_records)
        return self._flows

    @property
    def downloads(self) -> pd.DataFrame:
        """One row per download: page, file, upload, session or packet call.

        Columns: ``download``, ``source``, ``kind``, ``user``, ``bytes``,
        ``objects``, ``connections``, ``request_s``, ``completion_s``,
        ``time_s``, ``goodput_bps`` (NaN when unfinished) and ``rtos``.
        """
        if self._downloads is None:
            self._downloads = pd.DataFrame.from_records(self._download_records, columns=DOWNLOAD_COLUMNS)
        return self._downloads

    @property
    def has_packets(self) -> bool:
        """Whether the run recorded packets (``packets=True`` / ``--packets``)."""
        return self._packet_columns is not None

    @property
    def packets(self) -> pd.DataFrame:
        """Delivered downlink data packets, one row each (needs ``packets=True``)."""
        if self._packet_columns is None:
            raise PacketsNotRecordedError(
                "packets were not recorded for this run: "
                "use cellaqm.run(..., packets=True) (CLI: cellaqm run --packets)"
            )
        if self._packets is None:
            cols = self._packet_columns
            order = [c for c in PACKET_COLUMNS if c in cols] + [
                c for c in cols if c not in PACKET_COLUMNS
            ]
            self._packets = pd.DataFrame({c: np.array(cols[c]) for c in order})
        return self._packets

    def deterministic_summary(self) -> dict[str, Any]:
        """The summary without the wall-clock fields (:data:`WALL_TIME_KEYS`)."""
        return {k: v for k, v in self.summary.items() if k not in WALL_TIME_KEYS}

    def to_dir(self, path: Union[str, Path]) -> list[Path]:
        """Write ``summary.json``, ``flows.csv``, ``downloads.csv`` and, if recorded, the packets.

        Packets go to ``packets.parquet`` when pyarrow (or fastparquet) is
        installed, else to ``packets.csv``. The directory is created if
        needed. Returns the paths written.
        """
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        summary_path = out / "summary.json"
        summary_path.write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        written.append(summary_path)
        flows_path = out / "flows.csv"
        self.flows.to_csv(flows_path, index=False)
        written.append(flows_path)
        downloads_path = out / "downloads.csv"
        self.downloads.to_csv(downloads_path, index=False)
        written.append(downloads_path)
        if self.has_packets:
            if _have_parquet():
                packets_path = out / "packets.parquet"
                self.packets.to_parquet(packets_path, index=False)
            else:
                packets_path = out / "packets.csv"
                self.packets.to_csv(packets_path, index=False)
            written.append(packets_path)
        return written

    def __repr__(self) -> str:
        name = self.summary.get("scenario", self.summary.get("name", "?"))
        packets = f", packets={len(self.packets)}" if self.has_packets else ""
        return f"<RunResult scenario={name!r} seed={self.seed} flows={len(self._flow_records)}{packets}>"


def _have_parquet() -> bool:
    for engine in ("pyarrow", "fastparquet"):
        try:
            __import__(engine)
        except ImportError:
            continue
        return True
    return False
