//! The pcap file of one tap (libpcap's format, written by the `pcap-file`
//! crate): Ethernet link type, nanosecond timestamps counted from the start
//! of the run (1970-01-01 00:00:00 for tools that print dates), each frame
//! cut after its headers with its length on the wire recorded.
//!
//! [`write`] writes to the name it is given; [`super::Capture::write`]
//! gives temporary names and renames all three files into place once all are
//! written, so that a reader never finds a partial capture, nor one tap's
//! file of this run beside another's of an earlier run.

use super::Frames;
use crate::packet::Packet;
use crate::time::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

/// Longest frame written: Ethernet (14), IPv4 (20) and TCP with options (60).
const SNAPLEN: u32 = 94;

/// Writes `seen` (in time order) to `path`, and flushes it to the disk.
pub fn write(path: &Path, frames: &Frames, seen: &[(Time, Packet)]) -> std::io::Result<()> {
    let header = PcapHeader {
        snaplen: SNAPLEN,
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little, // the same bytes on every machine
        ..PcapHeader::default()
    };
    let file = BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?);
    let mut writer = PcapWriter::with_header(file, header).map_err(io_error)?;
    let mut bytes = Vec::with_capacity(SNAPLEN as usize);
    for (at, pkt) in seen {
        bytes.clear();
        let wire = frames.frame(pkt, &mut bytes);
        let packet = PcapPacket::new(Duration::from_nanos(at.0), wire, &bytes);
        writer.write_packet(&packet).map_err(io_error)?;
    }
    writer.into_writer().into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// The I/O error inside a `pcap-file` error ("No space left on device", not
/// the crate's "Error reading bytes").
fn io_error(e: PcapError) -> std::io::Error {
    match e {
        PcapError::IoError(e) => e,
        other => std::io::Error::other(other),
    }
}
