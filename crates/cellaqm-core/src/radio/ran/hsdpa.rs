//! A cell: the radio resource its users share and the scheduler that shares
//! it.
//!
//! On HSDPA the cell owns the HS-DSCH ([`Hsdpa`]: the Node-B's MAC-hs buffer
//! per user, the Iub flow control, the scheduler picking the user of each
//! 2 ms TTI). A cell of dedicated channels (R99 DCH, each bearer its own) has
//! no shared resource and no scheduler: its events are all its users'.
//! The cell's own events ([`CellEvent`]) are the shared channel's TTI and the
//! flow-control instant; like a bearer's, each has at most one live instance.

use super::access::{RadioEvent, RadioOut};
use super::bearer::{Bearer, UeEvent};
use super::busy::Busy;
use super::hsdpa::{Hsdpa, HsdpaStats};
use super::hsdsch::sir_stats::SirSummary;
use super::pending::Pending;
use super::scheduler::SchedulerKind;
use crate::time::{Dur, Time};
use serde::Serialize;

/// The events of a cell's shared channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellEvent {
    /// A TTI of the shared downlink starts (HS-DSCH).
    DownTti = 0,
    /// HSDPA flow control (credits) instant.
    FlowControl = 1,
}

const CELL_EVENTS: usize = 2;

/// A cell's row of `summary["cells"]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CellSummary {
    pub cell: u32,
    /// Users attached to the cell.
    pub users: u32,
    /// `"dch"` (dedicated channels), `"hsdpa"`, `"hsdsch"` (the HS-DSCH
    /// system), `"dsch"` (the DSCH system of Ferrús et al.), `"lte_uplink"`
    /// (the LTE uplink of Tan, MSc thesis, 2009) or `"wired"` (the run's shared
    /// bottleneck link).
    pub downlink: &'static str,
    /// The shared channel's scheduler (`null` without one).
    pub scheduler: Option<&'static str>,
    /// IP bytes delivered to the cell's users (on the LTE uplink: from them), per second of the run.
    pub goodput_bps: f64,
    /// Shared channel: TTIs that served a user, as a fraction of the run's TTIs.
    pub tti_utilisation: Option<f64>,
    /// Shared channel: users served per TTI used (1 on HSDPA; several with code multiplexing).
    pub users_per_tti: Option<f64>,
    /// Shared channel: IP packets delayed by HARQ.
    pub harq_delayed: Option<u64>,
    /// HS-DSCH system: the SIR of the cell's backlogged users, once per TTI (dB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sir_db: Option<SirSummary>,
    /// HS-DSCH system: user shares of new blocks per format (QPSK 1/4, QPSK 1/2, 16QAM 3/8, 16QAM 5/8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcs_use: Option<[u64; 4]>,
    /// HS-DSCH system: blocks lost (each sent again), handovers into the cell, and RLC PDU
    /// bytes received per second (headers and RLC retransmissions included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks_lost: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handovers_in: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub air_bps: Option<f64>,
    /// DSCH system: the cell's mean load factor η over the run's frames (umts-dsch-rrm.md, eq. 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_eta: Option<f64>,
}

pub struct Cell {
    /// The cell's index, which names its events.
    index: u16,
    /// The users attached to it (indices into the run's users and bearers).
    members: Vec<usize>,
    /// The shared downlink; `None`: dedicated channels only.
    shared: Option<Hsdpa>,
    scheduler: Option<SchedulerKind>,
    pending: [Pending; CELL_EVENTS],
    /// When each event kind last ran (no second one at the same instant).
    last_tti: Option<Time>,
    last_fc: Option<Time>,
    tti: Dur,
    fc_period: Dur,
    /// Per user: data waiting in the RNC (flow control will grant credits).
    busy: Busy,
    active: Vec<bool>,
    credits: Vec<u32>,
}

impl Cell {
    /// Cell `index` of a run with `users` users, serving `members` on
    /// dedicated channels (`shared` is `None`), or sharing `shared` with
    /// `scheduler`, TTI `tti` and flow-control period `fc_period`.
    pub fn new(
        index: u16,
        users: usize,
        members: Vec<usize>,
        shared: Option<(Hsdpa, SchedulerKind, Dur, Dur)>,
    ) -> Cell {
        let (shared, scheduler, tti, fc_period) = match shared {
            Some((h, s, tti, fc)) => (Some(h), Some(s), tti, fc),
            None => (None, None, Dur::MAX, Dur::MAX),
        };
        Cell {
            index,
            members,
            shared,
            scheduler,
            pending: [Pending::default(); CELL_EVENTS],
            last_tti: None,
            last_fc: None,
            tti,
            fc_period,
            busy: Busy::new(users),
            active: vec![false; users],
            credits: vec![0; users],
        }
    }

    /// The shared downlink, if the cell has one.
    pub fn shared(&mut self) -> Option<&mut Hsdpa> {
        self.shared.as_mut()
    }

    /// Whether the cell has a shared downlink (else each bearer has its own).
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Asks for event `ev` at `at` unless an earlier one is pending.
    fn want(&mut self, ev: CellEvent, at: Time, out: &mut RadioOut) {
        if self.pending[ev as usize].want(at) {
            out.schedule.push((at, RadioEvent::Cell(self.index, ev)));
        }
    }

    /// Whether `ev` at `now` is the live instance (and marks it done); a superseded one is ignored.
    pub fn due(&mut self, now: Time, ev: CellEvent) -> bool {
        self.pending[ev as usize].due(now)
    }

    /// Flow control at `now` (TS 25.435 capacity allocation as the study
    /// simplifies it, see [`Hsdpa::grant`]): every user with data in the RNC
    /// gets its credits, its PDCP discipline is told the granted rate, and
    /// the RNC sends that many PDUs towards the Node-B.
    pub fn flow_control(&mut self, now: Time, bearers: &mut [Bearer], out: &mut RadioOut) {
        let Some(h) = self.shared.as_mut() else { return };
        self.last_fc = Some(now);
        for &u in &self.members {
            self.active[u] = bearers[u].rnc_has_work(now);
        }
        h.grant(&self.active, &mut self.credits);
        for &u in &self.members {
            if !self.active[u] {
                continue;
            }
            let b = &mut bearers[u];
            b.set_rate(now, h.granted_bps(u), out);
            let mut first = None;
            for _ in 0..self.credits[u] {
                let Some(pdu) = b.next_down_pdu(now) else { break };
                if let Some(at) = h.send_frame_pdu(now, u, pdu) {
                    first = first.or(Some(at));
                }
            }
            if let Some(at) = first {
                b.want(UeEvent::IubArrive, at, out);
            }
        }
    }

    /// A TTI of the shared downlink at `now`: the scheduled users' PDUs go on
    /// the air. Writes to `served` the users served (their bearers need settling).
    pub fn tti(
        &mut self,
        now: Time,
        bearers: &mut [Bearer],
        out: &mut RadioOut,
        served: &mut Vec<(usize, Option<Time>)>,
    ) {
        self.last_tti = Some(now);
        served.clear();
        if let Some(h) = self.shared.as_mut() {
            h.tti(now, served);
        }
        for &(u, at) in served.iter() {
            if let Some(at) = at {
                bearers[u].want(UeEvent::DownArrive, at, out);
            }
        }
    }

    /// After user `u`'s bearer changed: records whether its RNC is `busy` and
    /// asks for the TTI and the flow-control instant the cell now needs.
    pub fn settle(&mut self, now: Time, u: usize, busy: bool, out: &mut RadioOut) {
        self.busy.set(u, busy);
        self.want_events(now, out);
    }

    /// Asks for the shared channel's next TTI if the Node-B holds data, and
    /// the next flow-control instant if some RNC does.
    pub fn want_events(&mut self, now: Time, out: &mut RadioOut) {
        let Some(h) = &self.shared else { return };
        let fc_at = self.busy.any().then(|| {
            let at = h.next_flow_control(now);
            if self.last_fc == Some(at) {
                at + self.fc_period
            } else {
                at
            }
        });
        let tti_at = h.has_backlog().then(|| {
            let at = h.next_tti(now);
            if self.last_tti == Some(at) {
                at + self.tti
            } else {
                at
            }
        });
        if let Some(at) = tti_at {
            self.want(CellEvent::DownTti, at, out);
        }
        if let Some(at) = fc_at {
            self.want(CellEvent::FlowControl, at, out);
        }
    }

    /// The users attached to the cell.
    pub fn members(&self) -> &[usize] {
        &self.members
    }

    /// The cell's row of the summary, for a run that ends at `end`; `goodput_bps` is the caller's.
    pub fn summary(&self, end: Time) -> CellSummary {
        let stats: Option<HsdpaStats> = self.shared.as_ref().map(Hsdpa::stats);
        let ttis = (end.0 / self.tti.0.max(1)).max(1) as f64;
        CellSummary {
            cell: self.index as u32,
            users: self.members.len() as u32,
            downlink: if self.shared.is_some() { "hsdpa" } else { "dch" },
            scheduler: self.scheduler.map(SchedulerKind::name),
            goodput_bps: 0.0,
            tti_utilisation: stats.map(|s| s.ttis_used as f64 / ttis),
            users_per_tti: stats.map(|s| s.users_served as f64 / s.ttis_used.max(1) as f64),
            harq_delayed: stats.map(|s| s.harq_delayed),
            ..CellSummary::default()
        }
    }
}
