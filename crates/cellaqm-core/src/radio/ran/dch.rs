//! R99 DCHs: each user's bearer has its own downlink ([`crate::radio::bearer::dch`]);
//! one cell with no shared channel and no scheduler serves every user.

use super::umts::{Downlink, Umts, Users};
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::cell_summary::CellSummary;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::time::Time;

/// The cell of dedicated channels: its users' events are all their bearers'.
pub struct Dchs {
    users: u32,
}

impl Dchs {
    /// The users' bearers, each PDCP discipline first told its DCH's rate.
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> Umts<Dchs> {
        let rate = |u: usize| cfg.bearer(u as u32).dch.expect("validated").rate.bps();
        Umts { down: Dchs { users }, users: Users::new(cfg, users, seed, rate) }
    }
}

impl Downlink for Dchs {
    fn settled(&mut self, now: Time, _u: usize, b: &mut Bearer, busy: bool, out: &mut RadioOut) {
        b.want_dch_tti(now, busy, out);
    }

    fn air(&mut self, _u: usize) -> Option<&mut AirLine> {
        None
    }

    fn handle(&mut self, _now: Time, ev: RadioEvent, _users: &mut Users, _out: &mut RadioOut) {
        unreachable!("dedicated channels ask for no {ev:?}")
    }

    fn cells(&self, _end: Time) -> Vec<CellSummary> {
        vec![CellSummary { cell: 0, users: self.users, downlink: "dch", ..CellSummary::default() }]
    }

    fn cell_of(&self, _u: usize) -> u32 {
        0
    }
}
