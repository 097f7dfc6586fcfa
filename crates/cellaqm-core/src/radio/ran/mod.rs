//! A radio system behind one interface: the [`Ran`] trait, and one file per
//! system implementing it.
//!
//! - [`dch`]: an R99 DCH per user (each bearer its own downlink);
//! - [`hsdpa`]: the single HSDPA cell (Iub flow control, MAC-hs buffers, the HS-DSCH scheduler);
//! - [`hsdsch`]: the seven-cell HS-DSCH system of the HS-DSCH study;
//! - [`dsch`]: the 37-cell DSCH system of the DSCH study;
//! - [`lte_ul`]: the LTE uplink of the LTE study;
//! - [`lte_dl`]: the LTE downlink (one cell, PDCP + RLC per UE at the eNodeB).
//!
//! The four UMTS systems serve a bearer per user ([`super::bearer`]) from
//! their downlink ([`umts::Downlink`]); [`umts::Umts`] does what is common to
//! them (routing a packet to its user's bearer, settling a bearer after a
//! change, the PDCP buffers' tally and reports). [`AnyRan`] holds the run's
//! system and dispatches to it; nothing outside this folder asks which system
//! a run has.

pub mod dch;
pub mod dsch;
/// docs/scenario.md's example radio ("Writing a radio"), compiled and tested
/// with the crate (the page shows the file verbatim, a test below checks it),
/// but not offered by `[radio]`.
#[cfg(test)]
#[path = "../../../../../docs/examples/fixed_rate_radio.rs"]
mod fixed_rate_radio;
pub mod hsdpa;
pub mod hsdsch;
pub mod lte_dl;
pub mod lte_ul;
pub mod umts;

use super::bearer::RadioSummary;
use super::cell_summary::CellSummary;
use super::config::{BearerKind, RadioConfig};
use super::dsch::DschSummary;
use super::event::{RadioEvent, RadioOut};
use super::lte::LteStats;
use crate::bsr::BsrSummary;
use crate::link::LinkStats;
use crate::metrics::{BsrTrace, RadioLossTrace};
use crate::packet::{Dir, Packet};
use crate::time::Time;

/// A user's managed buffer seen as a link, for its `users.csv` row.
pub struct UserBuffer {
    pub stats: LinkStats,
    /// Its discipline's ECN marks.
    pub marked: u64,
    /// The direction it holds (whose drops are its).
    pub dir: Dir,
}

/// A radio system: its cells, the users attached to them and their buffers.
///
/// Like [`crate::link::Link`] it is passive: the network hands it packets
/// ([`Ran::arrive_down`], [`Ran::arrive_up`]) and the events it asked for
/// ([`Ran::handle`]) with the time, and gets back what they produced
/// ([`RadioOut`]): delivered packets, drops, and the events to schedule
/// (when the system next needs the clock).
pub trait Ran {
    /// The start of the run (a system whose load runs on its own asks for its first event).
    fn start(&mut self, _now: Time, _out: &mut RadioOut) {}

    /// A downlink packet of user `ue` reaches the radio network.
    fn arrive_down(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut);

    /// An uplink packet leaves user `ue`'s IP layer.
    fn arrive_up(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut);

    /// An event it asked for fires.
    fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut);

    /// User `ue` starts a new connection at `now` (a system may give it a new place).
    fn new_session(&mut self, _now: Time, _ue: usize) {}

    /// One row per cell for the summary, for a run that ends at `end`
    /// (`goodput_bps` is the caller's: it sums the cell's users).
    fn cells(&self, end: Time) -> Vec<CellSummary>;

    /// User `ue`'s cell (on a system with mobility: where it is at the end).
    fn cell_of(&self, ue: usize) -> u32;

    /// User `ue`'s handovers, on a system with them.
    fn handovers(&self, _ue: usize) -> Option<u64> {
        None
    }

    /// Bytes of packets inside the radio (waiting in a buffer or carried by RLC), both ways.
    fn bytes_held(&self) -> u64;

    /// The managed buffers together: (bytes, packets).
    fn backlog(&self) -> (u64, u64);

    /// Packets in user `ue`'s managed buffer (ACK delay control reads it).
    fn buffer_packets(&self, ue: usize) -> u64;

    /// The run's `bottleneck`: the managed downlink buffers seen as one link, and their ECN marks.
    fn bottleneck(&mut self, end: Time) -> (LinkStats, u64);

    /// The run's `uplink`: the uplink seen as one link, and its ECN marks.
    fn uplink(&mut self, end: Time) -> (LinkStats, u64);

    /// User `ue`'s managed buffer seen as a link.
    fn user_buffer(&mut self, ue: usize, end: Time) -> UserBuffer;

    /// User `ue`'s bearer counters, on a system of bearers.
    fn user_radio(&mut self, _ue: usize, _end: Time) -> Option<RadioSummary> {
        None
    }

    /// The bearers' counters summed over the users, on a system of bearers.
    fn radio_summary(&mut self, _end: Time) -> Option<RadioSummary> {
        None
    }

    /// The LTE uplink's counters.
    fn lte_stats(&self) -> Option<LteStats> {
        None
    }

    /// The DSCH system's central-cell measures.
    fn dsch_summary(&self) -> Option<DschSummary> {
        None
    }

    /// The number of cells whose goodput the run's per-cell figure divides (the HS-DSCH system).
    fn goodput_cells(&self) -> Option<usize> {
        None
    }

    /// The BSRs as the eNodeB estimated from them (user 0's), on the LTE uplink.
    fn bsr_summary(&self) -> Option<BsrSummary> {
        None
    }

    /// Start recording the traces the system keeps (the DCHs' losses, user 0's BSRs).
    fn record_traces(&mut self);

    /// The DCH losses recorded, in time order (downlink before uplink at one instant, then by user).
    fn take_loss_trace(&mut self) -> RadioLossTrace {
        RadioLossTrace::default()
    }

    /// User 0's BSR trace, on the LTE uplink when recorded.
    fn take_bsr_trace(&mut self) -> Option<BsrTrace> {
        None
    }
}

/// The run's radio system (a run has one: its variants' sizes differ, unboxed).
#[allow(clippy::large_enum_variant)]
pub enum AnyRan {
    Dch(umts::Umts<dch::Dchs>),
    Hsdpa(umts::Umts<hsdpa::HsdpaCell>),
    HsDsch(umts::Umts<hsdsch::HsDschCells>),
    Dsch(umts::Umts<dsch::DschCells>),
    LteUplink(lte_ul::LteUl),
    LteDownlink(lte_dl::LteDl),
}

impl AnyRan {
    /// The system of `cfg` for `users` users (at least one) and run seed `seed` (streams "radio.*").
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> AnyRan {
        let users = users.max(1);
        match cfg.bearer {
            BearerKind::LteUplink => AnyRan::LteUplink(lte_ul::LteUl::new(cfg, users, seed)),
            BearerKind::LteDownlink => AnyRan::LteDownlink(lte_dl::LteDl::new(cfg, users, seed)),
            BearerKind::Dsch => AnyRan::Dsch(dsch::DschCells::new(cfg, users, seed)),
            BearerKind::Hsdpa if cfg.cells.is_some() => AnyRan::HsDsch(hsdsch::HsDschCells::new(cfg, users, seed)),
            BearerKind::Hsdpa => AnyRan::Hsdpa(hsdpa::HsdpaCell::new(cfg, users, seed)),
            BearerKind::Dch => AnyRan::Dch(dch::Dchs::new(cfg, users, seed)),
        }
    }
}

/// Calls `$call` on the system `$r` that `$self` holds.
macro_rules! dispatch {
    ($self:expr, $r:ident => $call:expr) => {
        match $self {
            AnyRan::Dch($r) => $call,
            AnyRan::Hsdpa($r) => $call,
            AnyRan::HsDsch($r) => $call,
            AnyRan::Dsch($r) => $call,
            AnyRan::LteUplink($r) => $call,
            AnyRan::LteDownlink($r) => $call,
        }
    };
}

impl Ran for AnyRan {
    fn start(&mut self, now: Time, out: &mut RadioOut) {
        dispatch!(self, r => r.start(now, out))
    }
    fn arrive_down(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        dispatch!(self, r => r.arrive_down(now, ue, pkt, out))
    }
    fn arrive_up(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        dispatch!(self, r => r.arrive_up(now, ue, pkt, out))
    }
    fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        dispatch!(self, r => r.handle(now, ev, out))
    }
    fn new_session(&mut self, now: Time, ue: usize) {
        dispatch!(self, r => r.new_session(now, ue))
    }
    fn cells(&self, end: Time) -> Vec<CellSummary> {
        dispatch!(self, r => r.cells(end))
    }
    fn cell_of(&self, ue: usize) -> u32 {
        dispatch!(self, r => r.cell_of(ue))
    }
    fn handovers(&self, ue: usize) -> Option<u64> {
        dispatch!(self, r => r.handovers(ue))
    }
    fn bytes_held(&self) -> u64 {
        dispatch!(self, r => r.bytes_held())
    }
    fn backlog(&self) -> (u64, u64) {
        dispatch!(self, r => r.backlog())
    }
    fn buffer_packets(&self, ue: usize) -> u64 {
        dispatch!(self, r => r.buffer_packets(ue))
    }
    fn bottleneck(&mut self, end: Time) -> (LinkStats, u64) {
        dispatch!(self, r => r.bottleneck(end))
    }
    fn uplink(&mut self, end: Time) -> (LinkStats, u64) {
        dispatch!(self, r => r.uplink(end))
    }
    fn user_buffer(&mut self, ue: usize, end: Time) -> UserBuffer {
        dispatch!(self, r => r.user_buffer(ue, end))
    }
    fn user_radio(&mut self, ue: usize, end: Time) -> Option<RadioSummary> {
        dispatch!(self, r => r.user_radio(ue, end))
    }
    fn radio_summary(&mut self, end: Time) -> Option<RadioSummary> {
        dispatch!(self, r => r.radio_summary(end))
    }
    fn lte_stats(&self) -> Option<LteStats> {
        dispatch!(self, r => r.lte_stats())
    }
    fn dsch_summary(&self) -> Option<DschSummary> {
        dispatch!(self, r => r.dsch_summary())
    }
    fn goodput_cells(&self) -> Option<usize> {
        dispatch!(self, r => r.goodput_cells())
    }
    fn bsr_summary(&self) -> Option<BsrSummary> {
        dispatch!(self, r => r.bsr_summary())
    }
    fn record_traces(&mut self) {
        dispatch!(self, r => r.record_traces())
    }
    fn take_loss_trace(&mut self) -> RadioLossTrace {
        dispatch!(self, r => r.take_loss_trace())
    }
    fn take_bsr_trace(&mut self) -> Option<BsrTrace> {
        dispatch!(self, r => r.take_bsr_trace())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_docs_show_the_example_radio_verbatim() {
        let page = include_str!("../../../../../docs/scenario.md");
        let example = include_str!("../../../../../docs/examples/fixed_rate_radio.rs");
        assert!(
            page.contains(&format!("```rust\n{example}```")),
            "docs/scenario.md: show docs/examples/fixed_rate_radio.rs"
        );
    }
}
