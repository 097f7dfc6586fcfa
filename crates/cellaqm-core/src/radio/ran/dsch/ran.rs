//! The 37-cell DSCH system (`bearer = "dsch"`, [`crate::radio::ran::dsch`]): the
//! scenario's users are its users under test, served by their cells'
//! resource managers every 10 ms frame beside the emulated load.

use super::system::DschSystem;
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::cell_summary::CellSummary;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::ran::summary::{RanSummary, SystemSection};
use crate::radio::ran::umts::{Downlink, Umts, Users};
use crate::time::Time;

pub struct DschCells {
    system: DschSystem,
    /// RLC PDU size, bytes.
    pdu_bytes: u64,
}

impl DschCells {
    /// The system of `cfg.dsch` and its users' bearers; each PDCP discipline
    /// is told the top transport format's rate.
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> Umts<DschCells> {
        let d = cfg.dsch.as_ref().expect("validated: [radio.dsch] with bearer = \"dsch\"");
        let env = d.environment("radio.dsch", cfg.environment_keys()).expect("validated");
        let system = DschSystem::new(d, &env, users as usize, seed);
        let top = system.top_rate_bps();
        let down = DschCells { system, pdu_bytes: cfg.rlc.pdu_size.0 };
        Umts { down, users: Users::new(cfg, users, seed, |_| top) }
    }

    /// Asks for the system's next frame.
    fn want_frame(&mut self, now: Time, out: &mut RadioOut) {
        let d = &mut self.system;
        let at = d.next_frame(now);
        if d.want(at) {
            out.schedule.push((at, RadioEvent::Tti));
        }
    }
}

impl Downlink for DschCells {
    fn settled(&mut self, now: Time, _u: usize, _b: &mut Bearer, _busy: bool, out: &mut RadioOut) {
        self.want_frame(now, out);
    }

    fn air(&mut self, u: usize) -> Option<&mut AirLine> {
        Some(self.system.air(u))
    }

    /// A frame of every cell, then the bearers it served are settled and the
    /// next frame asked for (the system's load runs on whether or not the
    /// users under test have data).
    fn handle(&mut self, now: Time, ev: RadioEvent, users: &mut Users, out: &mut RadioOut) {
        assert_eq!(ev, RadioEvent::Tti, "the DSCH system's one event");
        if !self.system.due(now) {
            return; // superseded
        }
        users.hold(now);
        self.system.frame(now, &mut users.bearers, self.pdu_bytes, &mut users.served);
        users.settle_served(now, self, out);
        self.want_frame(now, out);
    }

    /// The cells run their frames from the first one on, whether or not the users under test have data.
    fn start(&mut self, now: Time, out: &mut RadioOut) {
        self.want_frame(now, out);
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        (0..self.system.cells()).map(|c| self.system.cell_summary(c, end)).collect()
    }

    fn cell_of(&self, u: usize) -> u32 {
        self.system.cell_of(u) as u32
    }

    /// The central cell's measures.
    fn summary(&self) -> RanSummary {
        RanSummary { own: Some(SystemSection::Dsch(self.system.summary())), ..RanSummary::default() }
    }
}
