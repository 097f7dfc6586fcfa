//! Packet capture (`cellaqm run --pcap DIR`): the packets seen at three
//! points of the path, written as pcap files that Wireshark, tshark and
//! tcptrace read like a capture of a real network.
//!
//! ```text
//!  server ─▶ core ─▶ │ bottleneck buffer ─▶ link / radio bearer ─▶ client
//!    ▲               │                                               │
//!    └──── core ◀────│ [ACK delay] ◀──── uplink / radio bearer ◀─────┘
//!  server.pcap   bottleneck.pcap                               client.pcap
//! ```
//!
//! Each point is a [`Tap`], like `tcpdump` on one interface: both directions,
//! each packet at the instant it passes. `bottleneck.pcap` is the core-facing
//! side of the node that holds the managed buffer (the router, the RNC or the
//! eNodeB): a downlink packet as it reaches the buffer, before the queue
//! discipline may drop or mark it; an uplink packet as it leaves for the core
//! (after the uplink and any ACK delay control). So the bottleneck's drops are
//! the downlink packets of `bottleneck.pcap` missing from `client.pcap`, and
//! its queueing delay the time between the two.
//!
//! Recording keeps a copy of each packet at each tap (only when asked: a run
//! without capture tests one `Option` per hop); [`Capture::write`] turns them
//! into frames (`frame.rs`) and files (`pcap.rs`) after the run.

mod frame;
mod pcap;

pub use frame::{Addressing, Frames};

use crate::metrics::FlowSummary;
use crate::packet::Packet;
use crate::tcp::TcpConfig;
use crate::time::Time;
use std::path::{Path, PathBuf};

/// Where on the path a packet is captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tap {
    /// The server's interface: downlink packets as sent, uplink packets as received.
    Server,
    /// The core-facing side of the node holding the bottleneck buffer: downlink
    /// packets entering the buffer, uplink packets leaving for the core.
    Bottleneck,
    /// The client's (UE's) interface: downlink packets as received, uplink packets as sent.
    Client,
}

impl Tap {
    pub const ALL: [Tap; 3] = [Tap::Server, Tap::Bottleneck, Tap::Client];

    /// The file's stem: `server`, `bottleneck`, `client`.
    pub fn name(self) -> &'static str {
        match self {
            Tap::Server => "server",
            Tap::Bottleneck => "bottleneck",
            Tap::Client => "client",
        }
    }
}

/// The packets seen at each [`Tap`], with the time each passed.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    taps: [Vec<(Time, Packet)>; 3],
}

impl Capture {
    /// `pkt` passes `tap` at `at` (which may lie ahead of the event being
    /// handled: a link that cuts through hands a packet on at its arrival time).
    #[inline]
    pub fn record(&mut self, tap: Tap, at: Time, pkt: &Packet) {
        self.taps[tap as usize].push((at, *pkt));
    }

    /// The packets seen at `tap`, in time order (the order they were recorded in on ties).
    pub fn packets(&self, tap: Tap) -> Vec<(Time, Packet)> {
        let mut seen = self.taps[tap as usize].clone();
        seen.sort_by_key(|&(at, _)| at); // stable
        seen
    }

    /// Writes `<dir>/<tap>.pcap` for every tap (creating `dir` if needed) and
    /// returns their paths. `flows` gives each flow's user (its address),
    /// `tcp` the options the connections' SYNs announce. All or nothing: each
    /// file goes to a temporary name (`.<tap>.pcap.tmp`), and only once all
    /// three are complete are they renamed into place; on an error (a full
    /// disk) the temporaries are removed and the directory is as it was.
    pub fn write(&self, dir: &Path, flows: &[FlowSummary], tcp: &TcpConfig) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let frames = Frames::new(Addressing::new(flows), tcp, self.taps.iter().flatten().map(|(_, p)| p));
        let files: Vec<(PathBuf, PathBuf)> = Tap::ALL
            .iter()
            .map(|&tap| {
                let name = format!("{}.pcap", tap.name());
                (dir.join(format!(".{name}.tmp")), dir.join(name))
            })
            .collect();
        let written =
            files.iter().zip(Tap::ALL).try_for_each(|((tmp, _), tap)| pcap::write(tmp, &frames, &self.packets(tap)));
        let renamed = written.and_then(|()| files.iter().try_for_each(|(tmp, path)| std::fs::rename(tmp, path)));
        if let Err(e) = renamed {
            for (tmp, _) in &files {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(e);
        }
        Ok(files.into_iter().map(|(_, path)| path).collect())
    }
}

/// Checks, before a run, that the captures can be written into `dir`
/// (created if needed): a file can be created there. An error names what is
/// wrong, so that a run is not simulated for nothing.
pub fn check_dir(dir: &Path) -> std::io::Result<()> {
    if dir.as_os_str().is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "an empty directory name"));
    }
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".cellaqm-write-check.{}.tmp", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cellaqm-capture-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// All or nothing: when one file cannot be written, none is replaced and
    /// no temporary is left (a full disk left this run's server.pcap beside an
    /// earlier run's client.pcap, and partial files).
    #[test]
    fn a_failed_write_replaces_no_file_and_leaves_no_temporary() {
        let dir = fresh_dir("all-or-nothing");
        let capture = Capture::default();
        let written = capture.write(&dir, &[], &TcpConfig::default()).expect("written");
        assert_eq!(written.len(), 3);
        std::fs::write(dir.join("server.pcap"), b"an earlier run").unwrap();
        std::fs::create_dir(dir.join(".bottleneck.pcap.tmp")).unwrap(); // cannot be created as a file
        assert!(capture.write(&dir, &[], &TcpConfig::default()).is_err());
        assert_eq!(std::fs::read(dir.join("server.pcap")).unwrap(), b"an earlier run");
        assert!(!dir.join(".server.pcap.tmp").exists() && !dir.join(".client.pcap.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_that_cannot_hold_the_captures_is_refused_before_the_run() {
        let dir = fresh_dir("check");
        assert!(check_dir(&dir).is_ok() && dir.is_dir());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the check leaves nothing behind");
        let file = dir.join("a-file");
        std::fs::write(&file, b"").unwrap();
        assert!(check_dir(&file).is_err());
        assert!(check_dir(&file.join("below")).is_err());
        assert_eq!(check_dir(Path::new("")).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
