//! The single HSDPA cell: the HS-DSCH ([`Hsdpa`]: the Node-B's MAC-hs buffer
//! per user, the Iub, the scheduler picking the user of each 2 ms TTI) fed
//! by the users' RNC bearers under credit-based flow control.
//!
//! The cell's own events are the HS-DSCH TTI, the flow-control instant and
//! each user's Iub arrivals; like a bearer's, each has at most one live
//! instance (per user for the Iub's).

use super::channel::{Hsdpa, HsdpaStats};
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::busy::Busy;
use crate::radio::cell_summary::CellSummary;
use crate::radio::clock::Clock;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::pending::Pending;
use crate::radio::ran::umts::{Downlink, Umts, Users};
use crate::radio::sap::TxOpportunity;
use crate::radio::scheduler::SchedulerKind;
use crate::rlc::Pdu;
use crate::rng;
use crate::time::Time;

pub struct HsdpaCell {
    channel: Hsdpa,
    scheduler: SchedulerKind,
    /// The users attached (every user of the run).
    users: usize,
    tti: Clock,
    fc: Clock,
    tti_pending: Pending,
    fc_pending: Pending,
    /// Each user's Iub arrival event.
    iub_pending: Vec<Pending>,
    /// MAC-d PDU size, bytes.
    pdu_bytes: u64,
    /// Per user: data waiting in the RNC (flow control will grant credits).
    busy: Busy,
    active: Vec<bool>,
    credits: Vec<u32>,
    pdus: Vec<Pdu>,
}

impl HsdpaCell {
    /// The cell of `cfg.hsdpa` and its users' bearers; each PDCP discipline is
    /// first told what a lone user is granted.
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> Umts<HsdpaCell> {
        let h = cfg.hsdpa.as_ref().expect("validated: [radio.hsdpa] with bearer = \"hsdpa\"");
        let on_cell: Vec<_> = (0..users).map(|u| cfg.hsdpa_user(u)).collect();
        let channel = Hsdpa::new(h, &on_cell, cfg.rlc.pdu_size.0, rng::stream(seed, "radio.hsdpa"));
        let users = users as usize;
        let bearers = Users::new(cfg, users as u32, seed, |u| channel.granted_bps(u));
        let cell = HsdpaCell {
            channel,
            scheduler: h.scheduler,
            users,
            tti: Clock::new(h.tti),
            fc: Clock::new(h.flow_control),
            tti_pending: Pending::default(),
            fc_pending: Pending::default(),
            iub_pending: vec![Pending::default(); users],
            pdu_bytes: cfg.rlc.pdu_size.0,
            busy: Busy::new(users),
            active: vec![false; users],
            credits: vec![0; users],
            pdus: Vec::new(),
        };
        Umts { down: cell, users: bearers }
    }

    /// Flow control at `now` (TS 25.435 capacity allocation as the study
    /// simplifies it, see [`Hsdpa::grant`]): every user with data in the RNC
    /// gets its credits, its PDCP discipline is told the granted rate, and
    /// the RNC sends that many PDUs towards the Node-B.
    fn flow_control(&mut self, now: Time, bearers: &mut [Bearer], out: &mut RadioOut) {
        self.fc.run(now);
        for (u, b) in bearers.iter_mut().enumerate() {
            self.active[u] = b.buffer_status(now).ready;
        }
        self.channel.grant(&self.active, &mut self.credits);
        for (u, b) in bearers.iter_mut().enumerate() {
            if !self.active[u] {
                continue;
            }
            b.set_rate(now, self.channel.granted_bps(u), out);
            b.transmit_down(now, TxOpportunity::pdus(self.credits[u] as u64, self.pdu_bytes), &mut self.pdus);
            let mut first = None;
            for pdu in self.pdus.drain(..) {
                if let Some(at) = self.channel.send_frame_pdu(now, u, pdu) {
                    first = first.or(Some(at));
                }
            }
            if let Some(at) = first {
                self.want_iub(u, at, out);
            }
        }
    }

    fn want_iub(&mut self, u: usize, at: Time, out: &mut RadioOut) {
        if self.iub_pending[u].want(at) {
            out.schedule.push((at, RadioEvent::Iub(u as u16)));
        }
    }

    /// Asks for the HS-DSCH's next TTI if the Node-B holds data, and the
    /// next flow-control instant if some RNC does.
    fn want_events(&mut self, now: Time, out: &mut RadioOut) {
        let fc_at = self.busy.any().then(|| self.fc.next(now));
        let tti_at = self.channel.has_backlog().then(|| self.tti.next(now));
        if let Some(at) = tti_at.filter(|&at| self.tti_pending.want(at)) {
            out.schedule.push((at, RadioEvent::Tti));
        }
        if let Some(at) = fc_at.filter(|&at| self.fc_pending.want(at)) {
            out.schedule.push((at, RadioEvent::FlowControl));
        }
    }
}

impl Downlink for HsdpaCell {
    fn settled(&mut self, now: Time, u: usize, _b: &mut Bearer, busy: bool, out: &mut RadioOut) {
        self.busy.set(u, busy);
        self.want_events(now, out);
    }

    fn air(&mut self, u: usize) -> Option<&mut AirLine> {
        Some(self.channel.air(u))
    }

    fn handle(&mut self, now: Time, ev: RadioEvent, users: &mut Users, out: &mut RadioOut) {
        match ev {
            RadioEvent::Iub(u) => {
                let u = u as usize;
                users.on(now, u, self, out, |cell, _, out| {
                    if !cell.iub_pending[u].due(now) {
                        return false; // superseded
                    }
                    if let Some(t) = cell.channel.iub_arrivals(now, u) {
                        cell.want_iub(u, t, out);
                    }
                    true
                });
            }
            RadioEvent::FlowControl => {
                if !self.fc_pending.due(now) {
                    return; // superseded
                }
                users.hold(now);
                self.flow_control(now, &mut users.bearers, out);
                for u in 0..self.users {
                    users.settle(now, u, self, out);
                }
            }
            RadioEvent::Tti => {
                if !self.tti_pending.due(now) {
                    return; // superseded
                }
                users.hold(now);
                self.tti.run(now);
                let mut served = std::mem::take(&mut users.served);
                self.channel.tti(now, &mut served);
                for &(u, at) in &served {
                    if let Some(at) = at {
                        users.bearers[u].want(crate::radio::event::UeEvent::DownArrive, at, out);
                    }
                }
                for &(u, _) in &served {
                    users.settle(now, u, self, out);
                }
                users.served = served;
                self.want_events(now, out);
            }
            RadioEvent::Ue(..) => unreachable!("a user's event goes to its bearer"),
        }
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        let s: HsdpaStats = self.channel.stats();
        let ttis = (end.0 / self.tti.period().0.max(1)).max(1) as f64;
        vec![CellSummary {
            cell: 0,
            users: self.users as u32,
            downlink: "hsdpa",
            scheduler: Some(self.scheduler.name()),
            tti_utilisation: Some(s.ttis_used as f64 / ttis),
            users_per_tti: Some(s.users_served as f64 / s.ttis_used.max(1) as f64),
            harq_delayed: Some(s.harq_delayed),
            ..CellSummary::default()
        }]
    }

    fn cell_of(&self, _u: usize) -> u32 {
        0
    }
}
