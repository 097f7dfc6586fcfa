"""`cellaqm run --pcap DIR` / `cellaqm.run(..., pcap=DIR)`: the capture files,
read back with an independent parser (dpkt) and checked against the run's
own records (`packets.parquet`, the trace's drops, the summary's ECN marks)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dpkt
import numpy as np
import pytest

import cellaqm
from conftest import SCENARIO_DICT
from test_cli import assert_one_line_error

SERVER = "10.0.0.1"
#: Two bulk flows (two users) through a 20 kB tail-drop buffer: drops, SACK blocks, timestamps.
SETS = ["duration=20s", "bottleneck.buffer=20kB", "bottleneck.loss=0", "tcp.rwnd=1MB",
        "tcp.recovery=sack", "tcp.timestamps=true"]


@dataclass
class Seen:
    """One TCP segment of a capture, as dpkt reads it."""

    time_s: float
    src: str
    dst: str
    sport: int
    dport: int
    ip_id: int
    ecn: int
    wire_len: int
    seq: int
    ack: int
    flags: int
    payload: int
    options: dict[int, bytes]

    @property
    def down(self) -> bool:
        return self.src == SERVER


def read(path: Path) -> list[Seen]:
    out = []
    with open(path, "rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == dpkt.pcap.DLT_EN10MB
        for ts, buf in reader:
            ip = dpkt.ethernet.Ethernet(buf).data
            assert isinstance(ip, dpkt.ip.IP) and isinstance(ip.data, dpkt.tcp.TCP)
            tcp = ip.data
            header = 20 + len(tcp.opts)
            out.append(Seen(float(ts), dpkt.utils.inet_to_str(ip.src), dpkt.utils.inet_to_str(ip.dst),
                            tcp.sport, tcp.dport, ip.id, ip.tos & 3, 14 + ip.len, tcp.seq, tcp.ack, tcp.flags,
                            ip.len - 20 - header, dict(dpkt.tcp.parse_opts(tcp.opts))))
    return out


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> tuple[cellaqm.RunResult, dict[str, list[Seen]]]:
    out = tmp_path_factory.mktemp("pcap")
    res = cellaqm.run(SCENARIO_DICT, sets=SETS, packets=True, trace=True, pcap=out)
    assert [p.name for p in res.pcap_files] == ["server.pcap", "bottleneck.pcap", "client.pcap"]
    return res, {p.stem: read(p) for p in res.pcap_files}


def test_client_capture_matches_packets_parquet(captured) -> None:
    res, taps = captured
    log = res.packets
    data = [s for s in taps["client"] if s.down and s.payload > 0]
    assert len(data) == len(log) > 500
    assert np.array_equal([s.seq for s in data], log["seq"].to_numpy() % 2**32)
    assert np.allclose([s.time_s for s in data], log["received_s"], rtol=0, atol=1e-9)
    assert np.array_equal([s.ip_id for s in data], log["uid"].to_numpy() % 2**16)
    # The payload length the headers give is the segment's (size less the model's 40-byte header).
    assert np.array_equal([s.payload for s in data], log["size"].to_numpy() - 40)
    # Each flow is its own connection: the client's port, and its user's address.
    flows = res.flows.set_index("flow")
    for s, flow in zip(data, log["flow"]):
        assert s.dport == 1024 + flow and s.sport == 80
        assert s.dst == f"10.1.0.{flows.loc[flow, 'user'] + 1}"


def test_server_capture_has_the_send_times(captured) -> None:
    res, taps = captured
    sent = {s.ip_id: s.time_s for s in taps["server"] if s.down and s.payload > 0}
    log = res.packets
    assert np.allclose([sent[u % 2**16] for u in log["uid"]], log["sent_s"], rtol=0, atol=1e-9)
    # Time order within each file.
    for seen in taps.values():
        times = [s.time_s for s in seen]
        assert times == sorted(times)


def test_bottleneck_drops_are_missing_downstream(captured) -> None:
    res, taps = captured
    entered = {s.ip_id for s in taps["bottleneck"] if s.down}
    delivered = {s.ip_id for s in taps["client"] if s.down}
    drops = res.trace["drops"]
    dropped = {u % 2**16 for u in drops.loc[drops["dir"] == "down", "uid"]}
    assert len(dropped) > 10
    assert dropped <= entered - delivered
    assert delivered <= entered
    # What is neither delivered nor dropped is still in the buffer or on the link at the end.
    assert len(entered - delivered - dropped) <= 20_000 // 1500 + 2


def test_sack_blocks_and_timestamps(captured) -> None:
    res, taps = captured
    server = taps["server"]
    syn, syn_ack = server[0], server[1]
    assert syn.flags == dpkt.tcp.TH_SYN and syn_ack.flags == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK
    for s in (syn, syn_ack):
        assert s.options[dpkt.tcp.TCP_OPT_MSS] == (1460).to_bytes(2, "big")
        assert dpkt.tcp.TCP_OPT_SACKOK in s.options and dpkt.tcp.TCP_OPT_WSCALE in s.options
    acks = [s for s in server if not s.down and s.flags & dpkt.tcp.TH_ACK]
    sacked = [s for s in acks if dpkt.tcp.TCP_OPT_SACK in s.options]
    assert len(sacked) > 10
    highest = max(s.seq + s.payload for s in server if s.down)
    for s in sacked:
        edges = np.frombuffer(s.options[dpkt.tcp.TCP_OPT_SACK], dtype=">u4")
        assert len(edges) in (2, 4, 6)
        assert all(s.ack < a < b <= highest for a, b in edges.reshape(-1, 2))
    # Every segment has timestamps; a sender's TSval is its clock (µs) when it sent the segment.
    assert all(dpkt.tcp.TCP_OPT_TIMESTAMP in s.options for seen in taps.values() for s in seen)
    for s in server:
        if s.down and not s.flags & dpkt.tcp.TH_SYN:
            ts_val = int.from_bytes(s.options[dpkt.tcp.TCP_OPT_TIMESTAMP][:4], "big")
            assert ts_val == int(round(s.time_s * 1e9)) // 1000 % 2**32


def test_ecn_marks_appear_after_the_buffer(tmp_path: Path) -> None:
    sets = ["duration=20s", "bottleneck.buffer=100kB", "bottleneck.loss=0", "tcp.ecn=true",
            "bottleneck.queue.scheme=codel", "bottleneck.queue.ecn=true"]
    res = cellaqm.run(SCENARIO_DICT, sets=sets, pcap=tmp_path)
    before = [s for s in read(tmp_path / "bottleneck.pcap") if s.down and s.payload > 0]
    after = read(tmp_path / "client.pcap")
    marked = res.summary["bottleneck"]["marked"]
    ce = sum(s.ecn == 3 for s in after if s.down)
    assert marked > 0 and {s.ecn for s in before} == {2}  # ECT(0) into the buffer, none CE
    assert marked - 2 <= ce <= marked  # the last marks may still be on the link at the end
    assert any(s.flags & dpkt.tcp.TH_ECE for s in after if not s.down)
    assert any(s.flags & dpkt.tcp.TH_CWR for s in read(tmp_path / "server.pcap") if s.down)


def test_same_run_same_bytes(tmp_path: Path) -> None:
    runs = [cellaqm.run(SCENARIO_DICT, sets=["duration=3s"], pcap=tmp_path / d) for d in ("a", "b")]
    # Capturing changes no result.
    assert runs[0].deterministic_summary() == cellaqm.run(SCENARIO_DICT, sets=["duration=3s"]).deterministic_summary()
    for name in ("server.pcap", "bottleneck.pcap", "client.pcap"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert not list(tmp_path.glob("*/.*.tmp"))


def test_cli_pcap(cli: Any, scenario_file: Path, tmp_path: Path) -> None:
    proc = cli("run", str(scenario_file), "--set", "duration=2s", "--pcap", str(tmp_path / "cap"))
    assert proc.returncode == 0, proc.stderr
    assert "client.pcap" in proc.stdout
    assert len(read(tmp_path / "cap" / "client.pcap")) > 10
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = cli("run", str(scenario_file), "--set", "duration=1s", "--pcap", str(blocker / "cap"))
    assert proc.returncode == 1 and "cannot write the pcap files" in proc.stderr


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed (optional)")
def test_tshark_reads_the_capture(captured) -> None:
    res, _ = captured
    path = res.pcap_files[0]
    out = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "tcp.stream", "-e", "tcp.analysis.flags",
                          "-e", "_ws.malformed", "-e", "_ws.expert.severity"],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len({r[0] for r in rows}) == len(res.flows)  # one TCP stream per flow
    assert not any(r[2] for r in rows), "malformed packets"
