//! The pcap file of one tap (libpcap's format, written by the `pcap-file`
//! crate): Ethernet link type, nanosecond timestamps counted from the start
//! of the run (1970-01-01 00:00:00 for tools that print dates), each frame
//! cut after its headers with its length on the wire recorded.
//!
//! The file is written under a temporary name (`.<name>.tmp`, as the Python
//! package's result files) and renamed into place, so a reader never finds a
//! partial capture.

use super::Frames;
use crate::packet::Packet;
use crate::time::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

/// Longest frame written: Ethernet (14), IPv4 (20) and TCP with options (60).
const SNAPLEN: u32 = 94;

/// Writes `seen` (in time order) to `path`.
pub fn write(path: &Path, frames: &Frames, seen: &[(Time, Packet)]) -> std::io::Result<()> {
    let name = path.file_name().expect("a file name").to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let header = PcapHeader {
        snaplen: SNAPLEN,
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little, // the same bytes on every machine
        ..PcapHeader::default()
    };
    let file = BufWriter::with_capacity(1 << 16, std::fs::File::create(&tmp)?);
    let mut writer = PcapWriter::with_header(file, header).map_err(std::io::Error::other)?;
    let mut bytes = Vec::with_capacity(SNAPLEN as usize);
    for (at, pkt) in seen {
        bytes.clear();
        let wire = frames.frame(pkt, &mut bytes);
        let packet = PcapPacket::new(Duration::from_nanos(at.0), wire, &bytes);
        writer.write_packet(&packet).map_err(std::io::Error::other)?;
    }
    writer.into_writer().into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&tmp, path)
}
