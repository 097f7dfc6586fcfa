//! What every radio system is to the network: the [`Ran`] trait, and a
//! user's managed buffer seen as a link ([`UserBuffer`]).

use super::summary::RanSummary;
use crate::link::LinkStats;
use crate::metrics::{BsrTrace, RadioLossTrace};
use crate::packet::{Dir, Packet};
use crate::radio::bearer::RadioSummary;
use crate::radio::cell_summary::CellSummary;
use crate::radio::event::{RadioEvent, RadioOut};
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

    /// The parts of the run's summary the system fills, for a run that ends at `end`.
    fn summary(&mut self, _end: Time) -> RanSummary {
        RanSummary::default()
    }

    /// Start recording the traces the system keeps (the DCHs' losses, user 0's BSRs).
    fn record_traces(&mut self);

    /// The DCH losses recorded, in time order (downlink before uplink at one instant, then by user).
    fn take_loss_trace(&mut self) -> RadioLossTrace {
        RadioLossTrace::default()
    }

    /// User 0's BSR trace, on a system whose UEs send BSRs, when recorded.
    fn take_bsr_trace(&mut self) -> Option<BsrTrace> {
        None
    }
}
