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
    /// `tcp` the options the connections' SYNs announce.
    pub fn write(&self, dir: &Path, flows: &[FlowSummary], tcp: &TcpConfig) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let frames = Frames::new(Addressing::new(flows), tcp, self.taps.iter().flatten().map(|(_, p)| p));
        Tap::ALL
            .iter()
            .map(|&tap| {
                let path = dir.join(format!("{}.pcap", tap.name()));
                pcap::write(&path, &frames, &self.packets(tap))?;
                Ok(path)
            })
            .collect()
    }
}
