"""The result of one simulation run, as Python and pandas objects.

numpy and pandas are imported where a frame or column is first built, not
with this module: ``cellaqm run --json`` and its text output never need them,
and importing them would cost most of the command's start-up (bench/startup.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

from cellaqm.files import atomic_write, remove_temporaries

#: Summary keys that measure the host, not the simulation: they differ between
#: two runs of the same scenario and seed. Everything else is deterministic.
WALL_TIME_KEYS = ("wall_s", "sim_seconds_per_wall_second", "events_per_second")

#: Columns of :attr:`RunResult.downloads`, in order.
DOWNLOAD_COLUMNS = (
    "download", "source", "kind", "user", "bytes", "objects", "connections",
    "request_s", "completion_s", "time_s", "goodput_bps", "rtos",
)

#: Columns of :attr:`RunResult.occupancy`, in order.
OCCUPANCY_COLUMNS = ("buffer", "unit", "value", "time_s")

#: Columns of :attr:`RunResult.packets`, in order.
PACKET_COLUMNS = ("uid", "flow", "seq", "sent_s", "received_s", "delay_s", "size", "retransmission")

#: Tables of :attr:`RunResult.trace` and their columns, in order (times in seconds, sizes in bytes).
TRACE_COLUMNS = {
    # every change of a TCP sender's congestion controller (window, ssthresh, CUBIC's W_max and K);
    # dir "down" = the server's data, "up" = the client's
    "cwnd": ("time_s", "flow", "dir", "cwnd_bytes", "ssthresh_bytes", "w_max_bytes", "k_s"),
    # every RTT sample (sample_s; NaN on a row for an RTO change alone, such as a back-off) with the
    # smoothed RTT, RTTVAR and the retransmission timeout then in force, per TCP sender
    "rtt": ("time_s", "flow", "dir", "sample_s", "srtt_s", "rttvar_s", "rto_s"),
    # the downlink managed buffer (bottleneck queue, or the users' PDCP buffers together with [radio]) at every change
    "queue": ("time_s", "bytes", "packets"),
    # every packet lost in the access network: downlink at the managed buffer or on its link, uplink
    # at the uplink buffer, on the uplink or by the receiver-side filter (R-AQM); dir "down" or "up"
    "drops": ("time_s", "flow", "dir", "uid", "size", "cause"),
    # every downlink TCP data segment reaching the client
    "delivered": ("time_s", "flow", "seq", "len", "retransmission"),
    # every TTI in which a user's DCH (dir "down": its downlink, "up": its uplink) lost PDUs, with how many
    "radio_losses": ("time_s", "user", "dir", "pdus"),
    # every Buffer Status Report reaching the far end of the uplink (uplink.bsr_period): the
    # reported bytes, the bytes received since the previous one, the delay estimate and the truth
    "bsr": ("time_s", "queue_bytes", "received_bytes", "estimate_s", "true_s"),
}
TRACE_TABLES = tuple(TRACE_COLUMNS)
#: Subdirectory of a run's output directory holding the trace tables (``cwnd.parquet``, ...).
TRACE_DIR = "trace"
#: The capture files of a run (``pcap=DIR``, ``--pcap DIR``).
PCAP_FILES = ("server.pcap", "bottleneck.pcap", "client.pcap")


class PacketsNotRecordedError(RuntimeError):
    """:attr:`RunResult.packets` was read but the run did not record packets."""


class TraceNotRecordedError(RuntimeError):
    """:attr:`RunResult.trace` was read but the run did not record a trace."""


class CaptureError(OSError):
    """The run's pcap files could not be written (a full disk); :attr:`result` holds its results all the same."""

    def __init__(self, message: str, result: RunResult) -> None:
        super().__init__(message)
        self.result = result


class RowsNotKeptError(RuntimeError):
    """:attr:`RunResult.flows` or :attr:`RunResult.downloads` was read but the run kept only totals (``rows=False``)."""

#: A table as the core hands it over: one dict per row, or columns (name → ``(dtype, bytes)`` or a list).
Rows = Union[list[dict[str, Any]], Mapping[str, Any]]


class RunResult:
    """One run: ``summary`` (dict), ``flows``, ``users``, ``cells``, ``downloads``, ``occupancy`` and ``packets`` (DataFrames).

    ``packets`` exists only when the run was started with ``packets=True``
    (CLI: ``--packets``); otherwise reading it raises
    :class:`PacketsNotRecordedError`. Check :attr:`has_packets` first if unsure.
    Likewise ``trace`` (a dict of DataFrames) needs ``trace=True`` (CLI: ``--trace``).
    """

    def __init__(
        self,
        summary: dict[str, Any],
        flows: Optional[Rows],
        seed: int,
        packet_columns: Optional[Mapping[str, np.ndarray]] = None,
        downloads: Optional[Rows] = None,
        trace_columns: Optional[Mapping[str, Mapping[str, Any]]] = None,
        occupancy_columns: Optional[Mapping[str, Any]] = None,
        users: Optional[list[dict[str, Any]]] = None,
        pcap_files: Optional[list[str]] = None,
    ) -> None:
        self.summary = summary
        #: The pcap files the run wrote (``pcap=DIR``), else empty.
        self.pcap_files = [Path(p) for p in pcap_files or []]
        self.seed = seed
        #: None: the run kept only the flows' and downloads' totals (``rows=False``).
        self._flow_rows = flows
        self._flows: Optional[pd.DataFrame] = None
        self._user_records = users or []
        self._users: Optional[pd.DataFrame] = None
        self._download_rows = downloads
        self._downloads: Optional[pd.DataFrame] = None
        self._packet_columns = packet_columns
        self._packets: Optional[pd.DataFrame] = None
        self._trace_columns = trace_columns
        self._trace: Optional[dict[str, pd.DataFrame]] = None
        self._occupancy_columns = occupancy_columns or {}
        self._occupancy: Optional[pd.DataFrame] = None

    @classmethod
    def from_core(cls, raw: Mapping[str, Any]) -> RunResult:
        """Build from the dict returned by ``cellaqm._core.run``."""
        columns = None
        if raw.get("packets") is not None:
            columns = {name: core_column(value) for name, value in raw["packets"].items()}
        trace = None
        if raw.get("trace") is not None:
            trace = {
                table: {name: core_column(value) for name, value in cols.items()}
                for table, cols in raw["trace"].items()
            }
        return cls(
            summary=raw["summary"],
            flows=raw.get("flows"),
            seed=int(raw["seed"]),
            packet_columns=columns,
            downloads=raw.get("downloads"),
            trace_columns=trace,
            occupancy_columns=raw.get("occupancy", {}),  # converted when first read
            users=raw.get("users", []),
            pcap_files=raw.get("pcap"),
        )

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (``flow``, ``bytes_delivered``, ``goodput_bps``, ...)."""
        if self._flows is None:
            self._flows = rows_frame(_kept(self._flow_rows, "flows"))
        return self._flows

    def flow_head(self, n: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``n`` flows as dicts and the number of flows, without pandas or numpy
        (``cellaqm run``'s table)."""
        return rows_head(_kept(self._flow_rows, "flows"), n)

    @property
    def users(self) -> pd.DataFrame:
        """One row per user (UE): ``user``, ``cell``, ``flows``, ``bytes_down``, ``bytes_up``, ``goodput_bps``, ...

        Nested results are flattened with ``_``: ``delay_ms_p95`` (downlink TCP
        data, ms), ``delay_up_ms_p95``, ``drops_<cause>`` and ``drops_up_<cause>``
        (packets, 0 when none), ``buffer_<field>`` (the user's own managed
        buffer, its PDCP buffer with ``[radio]``; absent where users share the
        bottleneck) and ``radio_<field>`` (its bearer's counters, with ``[radio]``).
        """
        if self._users is None:
            self._users = users_frame(self._user_records)
        return self._users

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell (``summary["cells"]``): users, downlink, scheduler, goodput, TTI use."""
        import pandas as pd

        return pd.DataFrame.from_records(self.summary.get("cells", []))

    @property
    def downloads(self) -> pd.DataFrame:
        """One row per download: page, file, upload, session or packet call.

        Columns: ``download``, ``source``, ``kind``, ``user``, ``bytes``,
        ``objects``, ``connections``, ``request_s``, ``completion_s``,
        ``time_s``, ``goodput_bps`` (NaN when unfinished) and ``rtos``.
        """
        if self._downloads is None:
            self._downloads = rows_frame(_kept(self._download_rows, "downloads"), DOWNLOAD_COLUMNS)
        return self._downloads

    @property
    def occupancy(self) -> pd.DataFrame:
        """How long each managed buffer held each backlog: its time-weighted occupancy distribution.

        Columns: ``buffer`` (``bottleneck``, with ``[radio]`` the users' PDCP buffers together;
        ``uplink`` when its buffer is managed), ``unit`` (``bytes`` or
        ``packets``), ``value`` (the backlog, exact below 1024, else to 0.1%)
        and ``time_s`` (the time the buffer held it); one row per backlog
        held, increasing, per buffer and unit. The ``time_s`` of a buffer and
        unit sum to the run's duration; their cumulative sum over it is the
        CDF of the occupancy (fraction of time at or below ``value``), from
        which the summary's ``queue_bytes`` / ``queue_packets`` percentiles are read.
        """
        if self._occupancy is None:
            self._occupancy = occupancy_frame({n: core_column(v) for n, v in self._occupancy_columns.items()})
        return self._occupancy

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
                "use cellaqm.run(..., packets=True) (CLI: cellaqm run --packets --out DIR)"
            )
        if self._packets is None:
            import numpy as np
            import pandas as pd

            cols = self._packet_columns
            order = [c for c in PACKET_COLUMNS if c in cols] + [
                c for c in cols if c not in PACKET_COLUMNS
            ]
            self._packets = pd.DataFrame({c: np.array(cols[c]) for c in order})
        return self._packets

    @property
    def has_trace(self) -> bool:
        """Whether the run recorded a trace (``trace=True`` / ``--trace``)."""
        return self._trace_columns is not None

    @property
    def trace(self) -> dict[str, pd.DataFrame]:
        """The run's time series (needs ``trace=True``): a DataFrame per :data:`TRACE_TABLES`.

        - ``cwnd``: ``time_s``, ``flow``, ``dir``, ``cwnd_bytes``, ``ssthresh_bytes``
          (NaN until the sender's first reduction), ``w_max_bytes`` and ``k_s`` (CUBIC's
          W_max and K; NaN with Reno); a row whenever any of them changes.
        - ``queue``: ``time_s``, ``bytes``, ``packets`` of the downlink managed
          buffer (with ``[radio]``, the users' PDCP buffers together) at every change.
        - ``drops``: ``time_s``, ``flow``, ``uid``, ``size``, ``cause`` of each downlink drop.
        - ``delivered``: ``time_s``, ``flow``, ``seq``, ``len``, ``retransmission`` of
          each downlink data segment arriving at the client (time–sequence plots).
        """
        if self._trace_columns is None:
            raise TraceNotRecordedError(
                "no trace was recorded for this run: "
                "use cellaqm.run(..., trace=True) (CLI: cellaqm run --trace --out DIR)"
            )
        if self._trace is None:
            self._trace = {
                table: trace_frame(table, self._trace_columns.get(table, {}))
                for table in TRACE_TABLES
            }
        return self._trace

    def deterministic_summary(self) -> dict[str, Any]:
        """The summary without the wall-clock fields (:data:`WALL_TIME_KEYS`)."""
        return {k: v for k, v in self.summary.items() if k not in WALL_TIME_KEYS}

    def to_dir(self, path: Union[str, Path]) -> list[Path]:
        """Write ``summary.json``, ``flows.csv``, ``users.csv``, ``downloads.csv``, ``occupancy.csv`` and, if recorded, packets and trace.

        Packets go to ``packets.parquet`` when pyarrow (or fastparquet) is
        installed, else to ``packets.csv``; the trace to ``trace/cwnd.parquet``,
        ``trace/queue.parquet``, ``trace/drops.parquet``,
        ``trace/delivered.parquet`` and ``trace/bsr.parquet`` (or ``.csv``; read back with
        :func:`read_trace`). The directory is created if needed. A previous
        run's files there are removed first, its pcap files too unless this
        run wrote them there (a directory never mixes two
        runs), each file is written to a temporary name and renamed into
        place, and ``summary.json`` comes last: a directory with a
        ``summary.json`` holds one complete run. Returns the paths written.
        """
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        ext = "parquet" if _have_parquet() else "csv"
        frames = {name: getattr(self, name) for name in ("flows", "users", "downloads", "occupancy")}
        files = {out / f"{name}.csv": df for name, df in frames.items()}
        if self.has_packets:
            files[out / f"packets.{ext}"] = self.packets
        if self.has_trace:
            files.update({out / TRACE_DIR / f"{table}.{ext}": df for table, df in self.trace.items()})
        remove_run_files(out, keep=self.pcap_files)
        for file, df in files.items():
            file.parent.mkdir(exist_ok=True)
            _write_frame(file, df)
        summary_path = out / "summary.json"
        atomic_write(summary_path, lambda tmp: Path(tmp).write_text(json.dumps(self.summary, indent=2) + "\n",
                                                                     encoding="utf-8"))
        return [summary_path, *files]

    def __repr__(self) -> str:
        name = self.summary.get("scenario", self.summary.get("name", "?"))
        packets = f", packets={len(self.packets)}" if self.has_packets else ""
        trace = ", trace" if self.has_trace else ""
        return f"<RunResult scenario={name!r} seed={self.seed} flows={self.summary.get('flows', '?')}{packets}{trace}>"


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"delay_ms": {"p95": 3}}`` → ``{"delay_ms_p95": 3}``; lists become JSON text.

    A metric without a value (null, e.g. download times when no download
    finished) becomes NaN, so that the column stays numeric.
    """
    out: dict[str, Any] = {}
    for key, value in summary.items():
        name = f"{prefix}_{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(flatten(value, name))
        elif isinstance(value, (list, tuple)):
            out[name] = json.dumps(value)
        else:
            out[name] = math.nan if value is None else value
    return out


def core_column(value: Any) -> Any:
    """A column from the core: ``(dtype, bytes)`` → numpy array; a list of str stays a list."""
    if isinstance(value, tuple):
        import numpy as np

        dtype, buf = value
        return np.frombuffer(buf, dtype=np.dtype(dtype))
    return list(value)


def _kept(rows: Optional[Rows], what: str) -> Rows:
    if rows is None:
        raise RowsNotKeptError(f"the run kept only the totals of its {what} (rows=False): run it with rows=True")
    return rows


def rows_frame(rows: Rows, columns: Optional[tuple[str, ...]] = None) -> pd.DataFrame:
    """The DataFrame of a table of rows (dicts) or columns; ``columns``: their order when there are no rows."""
    import pandas as pd

    if isinstance(rows, Mapping):
        return pd.DataFrame({name: core_column(value) for name, value in rows.items()})
    return pd.DataFrame.from_records(rows, columns=columns)


def rows_head(rows: Rows, n: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``n`` rows of a table of rows or columns as dicts, and its length (no numpy needed)."""
    if not isinstance(rows, Mapping):
        return list(rows[:n]), len(rows)
    import array
    import sys

    def head(value: Any) -> tuple[list[Any], int]:
        if isinstance(value, tuple):  # (dtype "<i8", "<f8" or "|b1", little-endian bytes)
            dtype, buf = value
            if dtype == "|b1":
                return [bool(b) for b in bytes(buf[:n])], len(buf)
            values = array.array("q" if dtype == "<i8" else "d")
            values.frombytes(bytes(buf[: 8 * n]))
            if sys.byteorder != "little":  # pragma: no cover
                values.byteswap()
            return values.tolist(), len(buf) // 8
        return list(value[:n]), len(value)

    heads = {name: head(value) for name, value in rows.items()}
    total = next(iter(heads.values()))[1] if heads else 0
    return [{name: h[0][i] for name, h in heads.items()} for i in range(min(n, total))], total


def users_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The DataFrame of :attr:`RunResult.users`: nested results flattened with ``_``, drop counts 0 when none."""
    import pandas as pd

    if not records:
        return pd.DataFrame()
    df = pd.json_normalize(records, sep="_")
    drops = [c for c in df.columns if c.startswith(("drops_", "buffer_drops_"))]
    df[drops] = df[drops].fillna(0).astype("int64")
    return df


def occupancy_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """The DataFrame of :attr:`RunResult.occupancy` from its columns (empty, with the columns, when none)."""
    import numpy as np
    import pandas as pd

    data = {
        "buffer": pd.Series(columns.get("buffer", []), dtype="str"),
        "unit": pd.Series(columns.get("unit", []), dtype="str"),
        "value": np.asarray(columns.get("value", []), dtype=np.uint64),
        "time_s": np.asarray(columns.get("time_s", []), dtype=np.float64),
    }
    return pd.DataFrame(data, columns=list(OCCUPANCY_COLUMNS))


def trace_frame(table: str, columns: Mapping[str, Any]) -> pd.DataFrame:
    """The DataFrame of trace table ``table`` from its columns (``ssthresh_bytes``, ``w_max_bytes``: NaN for "none")."""
    import numpy as np
    import pandas as pd

    names = TRACE_COLUMNS[table]
    data: dict[str, Any] = {}
    for name in list(names) + [c for c in columns if c not in names]:
        if name not in columns:
            continue
        values = columns[name]
        if isinstance(values, list):
            data[name] = pd.Series(values, dtype="str")
        elif name in ("ssthresh_bytes", "w_max_bytes"):
            arr = np.asarray(values)
            data[name] = np.where(arr == np.uint64(2**64 - 1), np.nan, arr.astype(np.float64))
        else:
            data[name] = np.array(values)
    return pd.DataFrame(data, columns=[c for c in data])


def _write_frame(path: Path, df: pd.DataFrame) -> None:
    """``df`` as Parquet or CSV (by ``path``'s suffix), written atomically."""
    if path.suffix == ".parquet":
        atomic_write(path, lambda tmp: df.to_parquet(tmp, index=False))
    else:
        atomic_write(path, lambda tmp: df.to_csv(tmp, index=False))


def run_files(path: Path) -> list[Path]:
    """The files of a run that :meth:`RunResult.to_dir` (and ``pcap=``) wrote in ``path`` (but ``summary.json``)."""
    names = [f"{name}.csv" for name in ("flows", "users", "downloads", "occupancy")]
    names += [f"packets.{ext}" for ext in ("parquet", "csv")]
    names += [f"{TRACE_DIR}/{table}.{ext}" for table in TRACE_TABLES for ext in ("parquet", "csv")]
    names += PCAP_FILES
    return [path / name for name in names if (path / name).exists()]


def remove_run_files(out: Path, keep: Iterable[Path] = ()) -> None:
    """Remove an earlier run's files from ``out`` (but those in ``keep``: this run's), and
    temporaries a killed writer left, so that the directory never mixes two runs."""
    kept = {Path(p).resolve() for p in keep}
    for old in [out / "summary.json", *run_files(out)]:
        if old.resolve() not in kept:
            old.unlink(missing_ok=True)
    if (out / TRACE_DIR).is_dir() and not any((out / TRACE_DIR).iterdir()):
        (out / TRACE_DIR).rmdir()
    remove_temporaries(out)


def read_trace(path: Union[str, Path]) -> dict[str, pd.DataFrame]:
    """Read the trace tables that :meth:`RunResult.to_dir` wrote under ``path`` (a run's output directory).

    Raises :class:`FileNotFoundError` naming what is missing when ``path``
    holds no trace (the run was not recorded with ``--trace``).
    """
    import pandas as pd

    base = Path(path)
    trace_dir = base / TRACE_DIR
    tables = {}
    for table in TRACE_TABLES:
        parquet, csv = trace_dir / f"{table}.parquet", trace_dir / f"{table}.csv"
        if parquet.exists():
            tables[table] = pd.read_parquet(parquet)
        elif csv.exists():
            tables[table] = pd.read_csv(csv)
        else:
            if not base.is_dir():
                raise FileNotFoundError(f"{base}: no such directory")
            raise FileNotFoundError(
                f"{base}: no trace ({TRACE_DIR}/{table}.parquet or .csv missing); "
                "record one with: cellaqm run FILE --trace --out DIR"
            )
    return tables


def _have_parquet() -> bool:
    for engine in ("pyarrow", "fastparquet"):
        try:
            __import__(engine)
        except ImportError:
            continue
        return True
    return False
