//! A radio system behind one interface: the [`Ran`] trait ([`interface`]), and one folder
//! per system (its model, and `ran.rs`: the system as a [`Ran`]; a file for
//! the R99 DCHs, whose model is the bearers').
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
/// with the crate (the page shows the file verbatim, tests/test_docs_examples.py checks it),
/// but not offered by `[radio]`.
#[cfg(test)]
#[path = "../../../../../docs/examples/fixed_rate_radio.rs"]
mod fixed_rate_radio;
pub mod hsdpa;
pub mod hsdsch;
pub mod interface;
pub mod lte_dl;
pub mod lte_ul;
pub mod summary;
pub mod umts;

pub use interface::{Ran, UserBuffer};
pub use summary::{RanSummary, SystemSection};

use super::bearer::RadioSummary;
use super::cell_summary::CellSummary;
use super::config::{BearerKind, RadioConfig};
use super::event::{RadioEvent, RadioOut};
use crate::link::LinkStats;
use crate::metrics::{BsrTrace, RadioLossTrace};
use crate::packet::Packet;
use crate::time::Time;

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
    fn summary(&mut self, end: Time) -> RanSummary {
        dispatch!(self, r => r.summary(end))
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
