//! The HS-DSCH system (`[radio.cells]` with `bearer = "hsdpa"`,
//! [`crate::radio::ran::hsdsch`]): every cell's HS-DSCH served from the users'
//! RNC bearers each TTI, on one TTI clock for all cells.

use super::system::HsDsch;
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::cell_summary::CellSummary;
use crate::radio::clock::TtiEvent;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::ran::summary::RanSummary;
use crate::radio::ran::umts::{Downlink, Umts, Users};
use crate::time::Time;

/// The system and its one TTI event for all cells.
pub struct HsDschCells(HsDsch, TtiEvent);

impl HsDschCells {
    /// The system of `cfg.cells` and its users' bearers; each PDCP discipline
    /// is told the top format's rate (it is not told the rate of its changing channel).
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> Umts<HsDschCells> {
        let cells = cfg.cells.as_ref().expect("an HS-DSCH system");
        let h = cfg.hsdpa.as_ref().expect("validated: [radio.cells] with bearer = \"hsdpa\"");
        let env = cells.environment("radio.cells", cfg.environment_keys()).expect("validated");
        let system = HsDsch::new(cells, &env, users as usize, h, cfg.rlc.pdu_size.0, seed);
        let (top, tti) = (system.top_rate_bps(), TtiEvent::new(system.tti_len()));
        Umts { down: HsDschCells(system, tti), users: Users::new(cfg, users, seed, |_| top) }
    }

    /// Asks for the system's next TTI if it needs one.
    fn want_tti(&mut self, now: Time, out: &mut RadioOut) {
        if self.0.needs_tti() {
            self.1.want(now, &mut out.schedule);
        }
    }
}

impl Downlink for HsDschCells {
    fn settled(&mut self, now: Time, u: usize, _b: &mut Bearer, busy: bool, out: &mut RadioOut) {
        self.0.set_busy(u, busy);
        self.want_tti(now, out);
    }

    fn air(&mut self, u: usize) -> Option<&mut AirLine> {
        Some(self.0.air(u))
    }

    /// A TTI of every cell, then the bearers it served are settled and the next TTI asked for.
    fn handle(&mut self, now: Time, ev: RadioEvent, users: &mut Users, out: &mut RadioOut) {
        assert_eq!(ev, RadioEvent::Tti, "the HS-DSCH system's one event");
        self.1.run(now);
        users.hold(now);
        self.0.tti(now, &mut users.bearers, &mut users.served);
        users.settle_served(now, self, out);
        self.want_tti(now, out);
    }

    /// A new session gives the user a new position, direction and speed.
    fn new_session(&mut self, now: Time, u: usize) {
        self.0.new_session(now, u);
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        (0..self.0.cells()).map(|c| self.0.cell_summary(c, end)).collect()
    }

    fn cell_of(&self, u: usize) -> u32 {
        self.0.cell_of(u) as u32
    }

    fn handovers(&self, u: usize) -> Option<u64> {
        Some(self.0.handovers(u))
    }

    /// The study's goodput is per cell.
    fn summary(&self) -> RanSummary {
        RanSummary { goodput_cells: Some(self.0.cells()), ..RanSummary::default() }
    }
}
