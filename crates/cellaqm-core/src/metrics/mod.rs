//! What a run measures, and the run summary it reports.
//!
//! Units are in the field names: `_bps` bits per second, `_ms` milliseconds,
//! `_s` seconds, `_bytes` bytes.

mod downloads;
mod histogram;
mod occupancy;
mod trace;

pub use downloads::{
    DatagramSummary, Download, DownloadStats, DownloadSummary, DownloadTally, SessionSummary, TimeStats, TrafficLog,
};
pub use histogram::Histogram;
pub use occupancy::{Occupancy, OccupancyLog, OccupancyStats};
pub use trace::{BsrTrace, CwndTrace, DeliveredTrace, DropTrace, QueueTrace, RadioLossTrace, RttTrace, Trace};

use crate::link::LinkStats;
use crate::queue::DropCause;
use crate::tcp::TcpStats;
use crate::time::Time;
use serde::Serialize;
use std::collections::BTreeMap;

/// One-way delay statistics in milliseconds; each is `None` (null in
/// summary.json) when no packet was measured (`count` 0): there is no value,
/// and 0 would read as the best one.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DelayStats {
    /// Number of packets measured.
    pub count: u64,
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
}

impl DelayStats {
    pub fn from_histogram(h: &Histogram) -> DelayStats {
        if h.count() == 0 {
            return DelayStats::default();
        }
        let ms = |ns: u64| Some(ns as f64 * 1e-6);
        let [p50, p95, p99] = h.quantiles([0.50, 0.95, 0.99]);
        DelayStats {
            count: h.count(),
            mean: Some(h.mean() * 1e-6),
            p50: ms(p50),
            p95: ms(p95),
            p99: ms(p99),
            max: ms(h.max()),
        }
    }
}

/// A link's share of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Fraction of the run the transmitter was busy.
    pub utilisation: f64,
    /// Time-average bytes waiting in the buffer (not counting the packet in transmission).
    pub mean_queue_bytes: f64,
    /// Time-average packets waiting in the buffer.
    pub mean_queue_packets: f64,
    /// Time percentiles of the bytes waiting (null for an unmanaged link, see [`OccupancyStats`]).
    pub queue_bytes: OccupancyStats,
    /// Time percentiles of the packets waiting.
    pub queue_packets: OccupancyStats,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Drops by cause.
    pub drops: BTreeMap<&'static str, u64>,
    /// Packets ECN-marked by the queue discipline.
    pub marked: u64,
}

impl LinkSummary {
    pub fn new(stats: &LinkStats, drops: &BTreeMap<DropCause, u64>, marked: u64, duration: Time) -> LinkSummary {
        let d = duration.0.max(1) as f64;
        LinkSummary {
            utilisation: stats.busy.0 as f64 / d,
            mean_queue_bytes: stats.queue_byte_ns as f64 / d,
            mean_queue_packets: stats.queue_packet_ns as f64 / d,
            queue_bytes: OccupancyStats::from_histogram(stats.occupancy.as_ref().map(Occupancy::bytes)),
            queue_packets: OccupancyStats::from_histogram(stats.occupancy.as_ref().map(Occupancy::packets)),
            packets_sent: stats.packets_sent,
            bytes_sent: stats.bytes_sent,
            drops: drops.iter().map(|(c, n)| (c.name(), *n)).collect(),
            marked,
        }
    }
}

/// Conservation of bytes in the network: every IP byte sent is delivered,
/// dropped, or still in flight (queued, in transmission or propagating).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ledger {
    pub sent_bytes: u64,
    pub delivered_bytes: u64,
    pub dropped_bytes: u64,
    pub in_flight_bytes: u64,
}

impl Ledger {
    pub fn balances(&self) -> bool {
        self.sent_bytes == self.delivered_bytes + self.dropped_bytes + self.in_flight_bytes
    }
}

/// One flow's results: a TCP connection or a UDP stream (a row of `flows.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowSummary {
    pub flow: u32,
    /// Index of the traffic source that opened it.
    pub source: u32,
    /// The user (UE) it belongs to.
    pub user: u32,
    /// `"tcp"` or `"udp"`.
    pub transport: &'static str,
    /// Application bytes delivered in order to the receiving applications (both directions).
    pub bytes_delivered: u64,
    /// Of which to the client (downlink).
    pub bytes_down: u64,
    /// Of which to the server (uplink).
    pub bytes_up: u64,
    /// Connection goodput: `bytes_delivered` over the time from the flow's start to its
    /// completion (or to the end of the run, if it did not complete).
    pub goodput_bps: f64,
    pub start_s: f64,
    /// TCP: when the last byte reached an application, if both ends closed by the end of the
    /// run; UDP: arrival of the last datagram. `None` otherwise.
    pub completion_s: Option<f64>,
    pub rtos: u64,
    pub spurious_rtos: u64,
    /// Timeouts the sender found spurious and undid (`tcp.spurious_rto`).
    pub rtos_undone: u64,
    pub fast_retransmits: u64,
    pub retransmitted_bytes: u64,
    pub ecn_reductions: u64,
    pub segments_sent: u64,
    /// TCP: stalled at the end of the run, data outstanding and nothing new
    /// acknowledged over the last 3 or more timeouts (`Sender::stalled`).
    pub stalled: bool,
}

impl FlowSummary {
    /// Sums the counters of both endpoints of a connection.
    pub fn add_tcp(&mut self, s: &TcpStats) {
        self.rtos += s.rtos;
        self.spurious_rtos += s.spurious_rtos;
        self.rtos_undone += s.rtos_undone;
        self.fast_retransmits += s.fast_retransmits;
        self.retransmitted_bytes += s.bytes_retransmitted;
        self.ecn_reductions += s.ecn_reductions;
        self.segments_sent += s.segments_sent;
    }
}

/// One user's results (a row of `users.csv`; `RunResult.users` in Python).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UserSummary {
    pub user: u32,
    /// The cell it is attached to.
    pub cell: u32,
    /// Flows (TCP connections, UDP streams) it had.
    pub flows: u32,
    /// Application bytes delivered to it (downlink) and from it (uplink).
    pub bytes_down: u64,
    pub bytes_up: u64,
    /// Its goodput: application bytes delivered both ways over the run.
    pub goodput_bps: f64,
    /// One-way delay of its downlink and uplink TCP data packets.
    pub delay_ms: DelayStats,
    pub delay_up_ms: DelayStats,
    /// Drops of its downlink and uplink packets, by cause, wherever they fell.
    pub drops: BTreeMap<&'static str, u64>,
    pub drops_up: BTreeMap<&'static str, u64>,
    pub rtos: u64,
    pub retransmitted_bytes: u64,
    /// Its own managed downlink buffer (its PDCP buffer with `[radio]`); null
    /// where users share one (the wired bottleneck: see the run's `bottleneck`).
    pub buffer: Option<LinkSummary>,
    /// Its radio bearer's counters, with `[radio]`.
    pub radio: Option<crate::radio::RadioSummary>,
    /// Its handovers, on the HS-DSCH system (`[radio.cells]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handovers: Option<u64>,
}

/// The run-level summary (`summary.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub flows: usize,
    /// Application bytes delivered to all receivers.
    pub delivered_bytes: u64,
    /// Aggregate goodput: `delivered_bytes` over the run.
    pub goodput_bps: f64,
    /// Mean of the per-flow goodputs.
    pub mean_flow_goodput_bps: f64,
    /// The HS-DSCH study's system goodput (`[radio.cells]`): `delivered_bytes`
    /// (unique application bytes, partial transfers included) over cells × run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goodput_per_cell_bps: Option<f64>,
    /// One-way IP delay of every downlink TCP data packet, server IP layer to client IP layer.
    pub delay_ms: DelayStats,
    /// The same for every uplink TCP data packet, client IP layer to server IP layer (uploads).
    pub delay_up_ms: DelayStats,
    /// Users (UEs) of the traffic sources.
    pub users: u32,
    /// Downloads (pages, files, uploads, sessions, packet calls): goodput and time,
    /// written as the summary's keys `downloads` (pooled) and `downloads_by_kind`.
    #[serde(flatten)]
    pub downloads: DownloadSummary,
    /// The session generator's counts.
    pub sessions: SessionSummary,
    /// UDP datagrams (CBR, ETSI web over UDP).
    pub datagrams: DatagramSummary,
    pub rtos: u64,
    pub spurious_rtos: u64,
    /// Timeouts the senders found spurious and undid (`tcp.spurious_rto`).
    pub rtos_undone: u64,
    pub fast_retransmits: u64,
    pub retransmitted_bytes: u64,
    /// TCP flows stalled at the end of the run (see `FlowSummary::stalled`).
    pub stalled_flows: u64,
    /// Bottleneck drops by cause.
    pub drops: BTreeMap<&'static str, u64>,
    pub bottleneck: LinkSummary,
    pub uplink: LinkSummary,
    /// The uplink's Buffer Status Reports and how well the far end's delay
    /// estimate followed the truth, with `uplink.bsr_period` or the LTE uplink (user 0's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bsr: Option<crate::bsr::BsrSummary>,
    /// The radio bearers' counters summed over the users, with `[radio]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radio: Option<crate::radio::RadioSummary>,
    /// The radio system's own key, named by the system: `lte` (the LTE
    /// uplink's counters: grants, BSRs, SRs, HARQ; `bearer = "lte_uplink"`) or
    /// `dsch` (the DSCH system's central-cell measures; `bearer = "dsch"`, docs/dsch.md).
    #[serde(flatten)]
    pub system: Option<crate::radio::ran::SystemSection>,
    /// One row per cell (a run has one): its users, goodput and shared channel.
    pub cells: Vec<crate::radio::CellSummary>,
    pub ledger: Ledger,
    /// Events processed by the engine.
    pub events: u64,
    pub wall_s: f64,
    pub sim_seconds_per_wall_second: f64,
    pub events_per_second: f64,
}

/// Every delivered downlink TCP data packet, column by column (on request only).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PacketLog {
    pub uid: Vec<u64>,
    pub flow: Vec<u32>,
    /// Sequence number of the segment's first byte (ISN 0: data starts at 1).
    pub seq: Vec<u64>,
    pub sent_s: Vec<f64>,
    pub received_s: Vec<f64>,
    pub delay_s: Vec<f64>,
    pub size: Vec<u32>,
    pub retransmission: Vec<bool>,
}
