//! The radio access network of a run: one cell and a bearer per user.
//!
//! ```text
//!                       ┌─ bearer 0: PDCP ─ RLC AM ─┐
//!  core ─▶ route by ──▶ ├─ bearer 1: PDCP ─ RLC AM ─┼─▶ cell: own DCHs, or the shared HS-DSCH + scheduler ─▶ UEs
//!          the flow's   └─ …                        ┘
//!          user         ◀──── each bearer's uplink DCH and RLC AM ◀──── UEs
//! ```
//!
//! A packet enters the bearer of its flow's user ([`RadioAccess::arrive_down`],
//! [`RadioAccess::arrive_up`]); an event names its owner, a cell
//! ([`RadioEvent::Cell`]) or one user's bearer ([`RadioEvent::Ue`]). A run has
//! one cell for now, serving every user; the cells of the HS-DSCH system's
//! layout will each serve the users attached to them. After
//! anything changes a bearer, it is *settled*: the RLC senders' releases leave
//! its buffers, and the bearer and the cell ask for the TTIs, flow-control
//! instants and timers the new state needs. The component is passive, like
//! [`crate::link::Link`]: the network hands it packets and due events and
//! gets back delivered packets, drops and the events to schedule
//! ([`RadioOut`]).
//!
//! With `bearer = "lte_uplink"` the network is instead the LTE uplink
//! ([`LteUplink`]: one cell, its eNodeB scheduler, a UE per user), reached
//! through the same calls, its events named [`RadioEvent::Lte`]; the UEs'
//! buffers together stand for the run's `uplink`, and each user's row has
//! its UE's buffer.
//!
//! The RNC's PDCP buffers together stand for the run's `bottleneck` in the
//! summary: their summed backlog is tallied over time (`tally.rs`), each
//! user's own in its bearer.

use super::bearer::{stream_name, Bearer, RadioSummary, SharedDown, UeEvent};
use super::cell::{Cell, CellEvent, CellSummary};
use super::config::{BearerKind, RadioConfig};
use super::dsch::{DschSummary, DschSystem};
use super::hsdpa::Hsdpa;
use super::hsdsch::HsDsch;
use super::lte::{LteEvent, LteOut, LteStats, LteUplink};
use super::tally::Tally;
use crate::bsr::BsrSummary;
use crate::link::LinkStats;
use crate::packet::Packet;
use crate::queue::{Dropped, Limits, QueueDisc};
use crate::rng;
use crate::time::{Dur, Time};

/// An event of the radio access network, named by its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// Cell `c`'s shared channel.
    Cell(u16, CellEvent),
    /// User `u`'s bearer.
    Ue(u16, UeEvent),
    /// The LTE uplink's cell or one of its UEs' downlinks.
    Lte(LteEvent),
}

/// What one call produced.
#[derive(Debug, Default)]
pub struct RadioOut {
    /// Downlink packets delivered to the UEs' IP layers.
    pub to_ue: Vec<Packet>,
    /// Uplink packets delivered to the RNC (towards the core network).
    pub to_core: Vec<Packet>,
    /// Packets dropped (PDCP discipline, UE buffer overflow, RLC discard after MaxDAT as `LinkLoss`).
    pub dropped: Vec<Dropped>,
    /// Events to schedule.
    pub schedule: Vec<(Time, RadioEvent)>,
}

/// A PDCP buffer's backlog (bytes, packets).
fn backlog(b: &Bearer) -> (u64, u64) {
    (b.pdcp().bytes(), b.pdcp().packets() as u64)
}

/// Several buffers' links seen as one: counts and backlog integrals summed, the
/// busy time summed but at most the run's `end` (occupancy left out: a sum of
/// distributions is not the distribution of the sum).
fn summed(links: impl Iterator<Item = LinkStats>, end: Time) -> LinkStats {
    let mut all = LinkStats::default();
    for s in links {
        all.busy += s.busy;
        all.packets_sent += s.packets_sent;
        all.bytes_sent += s.bytes_sent;
        all.queue_byte_ns += s.queue_byte_ns;
        all.queue_packet_ns += s.queue_packet_ns;
    }
    all.busy = all.busy.min(Dur(end.0));
    all
}

pub struct RadioAccess {
    /// The LTE uplink ([`super::lte`]), in place of the cells and bearers below (then empty).
    lte: Option<LteUplink>,
    lte_out: LteOut,
    cells: Vec<Cell>,
    /// The seven-cell HS-DSCH system (`[radio.cells]`): it serves every
    /// bearer, and `cells` holds one cell of no shared channel in its place.
    hsdsch: Option<HsDsch>,
    /// The DSCH system (`bearer = "dsch"`): it serves every bearer, as `hsdsch` does.
    dsch: Option<DschSystem>,
    /// RLC PDU size, bytes.
    pdu_bytes: u64,
    /// Each user's cell.
    cell_of: Vec<u16>,
    bearers: Vec<Bearer>,
    tally: Tally,
    /// The users a TTI served.
    served: Vec<(usize, Option<Time>)>,
}

impl RadioAccess {
    /// The network of `cfg` for `users` users and run seed `seed` (streams "radio.*").
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> RadioAccess {
        let users = users.max(1);
        let configs: Vec<_> = (0..users).map(|u| cfg.bearer(u)).collect();
        if let (BearerKind::LteUplink, Some(lte)) = (cfg.bearer, &cfg.lte) {
            let stream = |u: u32, part: &str| rng::stream(seed, &stream_name(u, part));
            let queues = (0..users)
                .map(|u| {
                    let c = &configs[u as usize];
                    c.uplink_queue.build(Limits { bytes: c.uplink_buffer.map(|b| b.0), packets: None }, stream(u, "ue"))
                })
                .collect();
            let harq = (0..users).map(|u| stream(u, "harq")).collect();
            // Each UE's own channel: UE 0's stream keeps its name, `radio.lte.channel`.
            let channels = (0..users).map(|u| stream(u, "lte.channel")).collect();
            return RadioAccess {
                lte: Some(LteUplink::new(lte, queues, harq, lte.offer(cfg.environment_keys(), channels))),
                lte_out: LteOut::default(),
                cells: Vec::new(),
                hsdsch: None,
                dsch: None,
                pdu_bytes: cfg.rlc.pdu_size.0,
                cell_of: vec![0; users as usize],
                bearers: Vec::new(),
                tally: Tally::default(),
                served: Vec::new(),
            };
        }
        let hsdsch = cfg.cells.as_ref().map(|cells| {
            let h = cfg.hsdpa.as_ref().expect("validated: [radio.cells] with bearer = \"hsdpa\"");
            let env = cells.environment("radio.cells", cfg.environment_keys()).expect("validated");
            HsDsch::new(cells, &env, users as usize, h, cfg.rlc.pdu_size.0, seed)
        });
        let dsch = match (cfg.bearer, &cfg.dsch) {
            (BearerKind::Dsch, Some(d)) => {
                let env = d.environment("radio.dsch", cfg.environment_keys()).expect("validated");
                Some(DschSystem::new(d, &env, users as usize, seed))
            }
            _ => None,
        };
        let shared = match cfg.bearer {
            BearerKind::LteUplink => unreachable!("validated: [radio.lte] with bearer = \"lte_uplink\""),
            BearerKind::Dch | BearerKind::Dsch => None,
            // Each bearer is told the top format's rate (it is not told the rate of its changing channel).
            BearerKind::Hsdpa if hsdsch.is_some() => None,
            BearerKind::Hsdpa => {
                let h = cfg.hsdpa.as_ref().expect("validated");
                let on_cell: Vec<_> = configs.iter().map(|c| c.hsdpa).collect();
                let hsdpa = Hsdpa::new(h, &on_cell, cfg.rlc.pdu_size.0, rng::stream(seed, "radio.hsdpa"));
                Some((hsdpa, h.scheduler, h.tti, h.flow_control))
            }
        };
        // The rate each PDCP discipline is first told: a DCH, its rate; HSDPA, what a lone user is granted.
        let told = |u: usize| match &shared {
            None if hsdsch.is_some() => hsdsch.as_ref().map_or(0.0, HsDsch::top_rate_bps),
            None if dsch.is_some() => dsch.as_ref().map_or(0.0, DschSystem::top_rate_bps),
            None => configs[u].dch.as_ref().expect("validated").rate.bps(),
            Some((h, ..)) => h.granted_bps(u),
        };
        let bearers = (0..users).map(|u| Bearer::new(u, &configs[u as usize], told(u as usize), seed)).collect();
        // One cell serves every user (several cells come with the HS-DSCH system's layout).
        let members = (0..users as usize).collect();
        RadioAccess {
            lte: None,
            lte_out: LteOut::default(),
            cells: vec![Cell::new(0, users as usize, members, shared)],
            cell_of: vec![0; users as usize],
            hsdsch,
            dsch,
            pdu_bytes: cfg.rlc.pdu_size.0,
            bearers,
            tally: Tally::default(),
            served: Vec::new(),
        }
    }

    /// Does `op` on user `u`'s bearer at `now`, then settles it; the tally follows its PDCP backlog.
    fn on_bearer(
        &mut self,
        now: Time,
        u: usize,
        out: &mut RadioOut,
        op: impl FnOnce(&mut Bearer, &mut Cell, &mut RadioOut),
    ) {
        self.tally.hold(now);
        let before = backlog(&self.bearers[u]);
        op(&mut self.bearers[u], &mut self.cells[self.cell_of[u] as usize], out);
        self.settle(now, u, out);
        self.tally.change(before, backlog(&self.bearers[u]));
    }

    /// Does `op` on the LTE uplink at `now` and passes on what it produced;
    /// the tally follows the UEs' buffers.
    fn on_lte(&mut self, now: Time, out: &mut RadioOut, op: impl FnOnce(&mut LteUplink, &mut LteOut)) {
        let lte = self.lte.as_mut().expect("an LTE uplink");
        self.tally.hold(now);
        let before = lte.backlog();
        op(lte, &mut self.lte_out);
        self.tally.change(before, lte.backlog());
        let o = &mut self.lte_out;
        out.to_ue.append(&mut o.to_ue);
        out.to_core.append(&mut o.to_core);
        out.dropped.append(&mut o.dropped);
        out.schedule.extend(o.schedule.drain(..).map(|(at, ev)| (at, RadioEvent::Lte(ev))));
    }

    /// A downlink packet of user `ue` reaches the RNC.
    pub fn arrive_down(&mut self, now: Time, ue: u32, pkt: Packet, out: &mut RadioOut) {
        if self.lte.is_some() {
            return self.on_lte(now, out, |l, o| l.arrive_down(now, ue as usize, pkt, o));
        }
        self.on_bearer(now, ue as usize, out, |b, _, out| b.arrive_down(now, pkt, out));
    }

    /// An uplink packet leaves user `ue`'s IP layer.
    pub fn arrive_up(&mut self, now: Time, ue: u32, pkt: Packet, out: &mut RadioOut) {
        if self.lte.is_some() {
            return self.on_lte(now, out, |l, o| l.arrive_up(now, ue as usize, pkt, o));
        }
        self.on_bearer(now, ue as usize, out, |b, _, out| b.arrive_up(now, pkt, out));
    }

    /// The start of the run: the DSCH system's cells run their frames from
    /// the first one on, whether or not the users under test have data.
    pub fn start(&mut self, now: Time, out: &mut RadioOut) {
        if self.dsch.is_some() {
            self.want_dsch_frame(now, out);
        }
    }

    /// A scheduled event fires.
    pub fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        match ev {
            RadioEvent::Lte(ev) => self.on_lte(now, out, |l, o| l.handle(now, ev, o)),
            RadioEvent::Ue(u, ev) => {
                let u = u as usize;
                self.tally.hold(now);
                let before = backlog(&self.bearers[u]);
                let shared = match (&mut self.hsdsch, &mut self.dsch) {
                    (Some(h), _) => Some(SharedDown::HsDsch(h)),
                    (_, Some(d)) => Some(SharedDown::Dsch(d)),
                    _ => self.cells[self.cell_of[u] as usize].shared().map(SharedDown::Hsdpa),
                };
                if self.bearers[u].handle(now, ev, shared, out) {
                    self.settle(now, u, out);
                    self.tally.change(before, backlog(&self.bearers[u]));
                }
            }
            RadioEvent::Cell(_, CellEvent::DownTti) if self.hsdsch.is_some() => self.hsdsch_tti(now, out),
            RadioEvent::Cell(_, CellEvent::DownTti) if self.dsch.is_some() => self.dsch_frame(now, out),
            RadioEvent::Cell(c, ev) => {
                let c = c as usize;
                if !self.cells[c].due(now, ev) {
                    return; // superseded
                }
                self.tally.hold(now);
                match ev {
                    CellEvent::FlowControl => {
                        self.cells[c].flow_control(now, &mut self.bearers, out);
                        for k in 0..self.cells[c].members().len() {
                            let u = self.cells[c].members()[k];
                            self.settle(now, u, out);
                        }
                        self.retally();
                    }
                    CellEvent::DownTti => {
                        let mut served = std::mem::take(&mut self.served);
                        self.cells[c].tti(now, &mut self.bearers, out, &mut served);
                        for &(u, _) in &served {
                            let before = backlog(&self.bearers[u]);
                            self.settle(now, u, out);
                            self.tally.change(before, backlog(&self.bearers[u]));
                        }
                        self.served = served;
                        self.cells[c].want_events(now, out);
                    }
                }
            }
        }
    }

    /// A TTI of the seven-cell HS-DSCH system at `now`, then the bearers it
    /// served are settled and the next TTI asked for.
    fn hsdsch_tti(&mut self, now: Time, out: &mut RadioOut) {
        let h = self.hsdsch.as_mut().expect("checked");
        if !h.due(now) {
            return; // superseded
        }
        self.tally.hold(now);
        let mut served = std::mem::take(&mut self.served);
        h.tti(now, &mut self.bearers, &mut served);
        self.settle_served(now, &served, out);
        self.served = served;
        self.want_hsdsch_tti(now, out);
    }

    /// The bearers a shared channel served at `now`: each asks for the
    /// arrival of its first PDUs at the UE, then is settled. Their PDCP
    /// buffers changed while the channel took packets (a packet handed to the
    /// RLC leaves a buffer that counts it until sent; a hand-over discipline
    /// drops there), so the tally is summed anew.
    fn settle_served(&mut self, now: Time, served: &[(usize, Option<Time>)], out: &mut RadioOut) {
        for &(u, at) in served {
            if let Some(at) = at {
                self.bearers[u].want(UeEvent::DownArrive, at, out);
            }
            self.settle(now, u, out);
        }
        self.retally();
    }

    /// Sums the tally's backlog over every bearer's PDCP buffer.
    fn retally(&mut self) {
        self.tally.bytes = self.bearers.iter().map(|b| backlog(b).0).sum();
        self.tally.packets = self.bearers.iter().map(|b| backlog(b).1).sum();
    }

    /// A frame of the DSCH system at `now`, then the bearers it served are
    /// settled and the next frame asked for (the system's load runs on
    /// whether or not the users under test have data).
    fn dsch_frame(&mut self, now: Time, out: &mut RadioOut) {
        let d = self.dsch.as_mut().expect("checked");
        if !d.due(now) {
            return; // superseded
        }
        self.tally.hold(now);
        let mut served = std::mem::take(&mut self.served);
        d.frame(now, &mut self.bearers, self.pdu_bytes, &mut served);
        self.settle_served(now, &served, out);
        self.served = served;
        self.want_dsch_frame(now, out);
    }

    /// Asks for the DSCH system's next frame.
    fn want_dsch_frame(&mut self, now: Time, out: &mut RadioOut) {
        let d = self.dsch.as_mut().expect("a DSCH system");
        let at = d.next_frame(now);
        if d.want(at) {
            out.schedule.push((at, RadioEvent::Cell(0, CellEvent::DownTti)));
        }
    }

    /// Asks for the HS-DSCH system's next TTI if it needs one.
    fn want_hsdsch_tti(&mut self, now: Time, out: &mut RadioOut) {
        let h = self.hsdsch.as_mut().expect("an HS-DSCH system");
        if let Some(at) = h.next_tti(now).filter(|&at| h.want(at)) {
            out.schedule.push((at, RadioEvent::Cell(0, CellEvent::DownTti)));
        }
    }

    /// A new connection of user `ue` at `now`: on the HS-DSCH system, a new
    /// session gives the user a new position, direction and speed.
    pub fn new_session(&mut self, now: Time, ue: u32) {
        if let Some(h) = &mut self.hsdsch {
            h.new_session(now, ue as usize);
        }
    }

    /// After user `u`'s bearer changed: releases what its RLC senders let go,
    /// and asks for the TTIs, flow-control instants and timers the new state
    /// needs (the downlink's first, then the uplink's and the timers).
    fn settle(&mut self, now: Time, u: usize, out: &mut RadioOut) {
        let b = &mut self.bearers[u];
        b.release(now, out);
        let busy = b.rnc_has_work(now);
        if let Some(h) = &mut self.hsdsch {
            h.set_busy(u, busy);
            self.want_hsdsch_tti(now, out);
            self.bearers[u].want_uplink_and_timers(now, out);
            return;
        }
        if self.dsch.is_some() {
            self.want_dsch_frame(now, out);
            self.bearers[u].want_uplink_and_timers(now, out);
            return;
        }
        let cell = &mut self.cells[self.cell_of[u] as usize];
        match cell.is_shared() {
            false => b.want_dch_tti(now, busy, out),
            true => cell.settle(now, u, busy, out),
        }
        self.bearers[u].want_uplink_and_timers(now, out);
    }

    /// Bytes of packets inside the bearers (waiting in a buffer or carried by RLC), both ways.
    pub fn bytes_held(&self) -> u64 {
        self.bearers.iter().map(Bearer::bytes_held).sum::<u64>() + self.lte.as_ref().map_or(0, LteUplink::bytes_held)
    }

    /// The managed buffers together: the users' PDCP buffers, or with the
    /// LTE uplink the UEs' buffers: (bytes, packets).
    pub fn backlog(&self) -> (u64, u64) {
        (self.tally.bytes, self.tally.packets)
    }

    /// User `ue`'s downlink PDCP buffer.
    pub fn pdcp(&self, ue: u32) -> &super::pdcp::Pdcp {
        self.bearers[ue as usize].pdcp()
    }

    /// The bearers, in user order.
    pub fn bearers_mut(&mut self) -> &mut [Bearer] {
        &mut self.bearers
    }

    /// The run's radio counters, summed over the users (the told rate is
    /// user 0's); `None` for the LTE uplink (see [`RadioAccess::lte_stats`]).
    pub fn summary(&mut self, end: Time) -> Option<RadioSummary> {
        if self.lte.is_some() {
            return None;
        }
        let mut all = self.bearers[0].summary(end);
        for b in &mut self.bearers[1..] {
            all.add(&b.summary(end));
        }
        Some(all)
    }

    /// The LTE uplink's counters, with it.
    pub fn lte_stats(&self) -> Option<LteStats> {
        self.lte.as_ref().map(LteUplink::stats)
    }

    /// The LTE uplink's BSRs as the eNodeB estimated from them (user 0's), with it.
    pub fn bsr_summary(&self) -> Option<BsrSummary> {
        self.lte.as_ref().map(LteUplink::bsr_summary)
    }

    /// Record the BSR trace of user 0 (with the LTE uplink).
    pub fn record_bsr_trace(&mut self) {
        if let Some(l) = &mut self.lte {
            l.far_end(0).record_trace();
        }
    }

    /// Record the TTIs in which the users' DCHs lost PDUs.
    pub fn record_loss_trace(&mut self) {
        self.bearers.iter_mut().for_each(Bearer::record_losses);
    }

    /// The DCH losses recorded, in time order (downlink before uplink at one instant, then by user).
    pub fn take_loss_trace(&mut self) -> crate::metrics::RadioLossTrace {
        let mut rows: Vec<(Time, u8, u32, u32)> = Vec::new();
        for (u, b) in self.bearers.iter_mut().enumerate() {
            let (down, up) = b.take_losses();
            rows.extend(down.into_iter().map(|(t, n)| (t, 0, u as u32, n)));
            rows.extend(up.into_iter().map(|(t, n)| (t, 1, u as u32, n)));
        }
        rows.sort_unstable();
        let mut trace = crate::metrics::RadioLossTrace::default();
        for (t, dir, user, n) in rows {
            trace.time_s.push(t.as_secs_f64());
            trace.user.push(user);
            trace.dir.push(if dir == 0 { "down" } else { "up" });
            trace.pdus.push(n);
        }
        trace
    }

    /// User 0's BSR trace, if recorded.
    pub fn take_bsr_trace(&mut self) -> Option<crate::metrics::BsrTrace> {
        self.lte.as_mut().and_then(|l| l.far_end(0).take_trace())
    }

    /// User `ue`'s UE buffer seen as a link, and its ECN marks (with the LTE uplink).
    pub fn ue_buffer_stats(&mut self, ue: u32, end: Time) -> Option<(LinkStats, u64)> {
        self.lte.as_mut().map(|l| l.ue_link_stats(ue as usize, end))
    }

    /// Whether this is the LTE uplink (its managed buffers are the UEs').
    pub fn is_lte(&self) -> bool {
        self.lte.is_some()
    }

    /// The run's `uplink` and its ECN marks: with the LTE uplink the UEs'
    /// buffers seen as one link; else the users' uplink DCHs and UE buffers
    /// together (their occupancy is not tracked).
    pub fn uplink_stats(&mut self, end: Time) -> (LinkStats, u64) {
        if let Some(lte) = &self.lte {
            self.tally.hold(end);
            let s = lte.stats();
            let stats = LinkStats {
                busy: Dur(s.ttis_with_grants.saturating_mul(lte.tti().0).min(end.0)),
                packets_sent: s.sdus_delivered,
                bytes_sent: s.bytes_delivered,
                queue_byte_ns: self.tally.byte_ns,
                queue_packet_ns: self.tally.packet_ns,
                occupancy: Some(self.tally.occupancy.clone()),
            };
            return (stats, lte.marked());
        }
        let marked = self.bearers.iter().map(|b| b.ue_buffer().queue().stats().marked).sum();
        (summed(self.bearers.iter_mut().map(|b| b.uplink_stats(end)), end), marked)
    }

    /// The PDCP buffers together, seen as one link, for the run's
    /// `bottleneck`, and their ECN marks (with the LTE uplink: nothing; its
    /// downlink is not managed).
    pub fn link_stats(&mut self, end: Time) -> (LinkStats, u64) {
        if self.lte.is_some() {
            return (LinkStats::default(), 0);
        }
        let marked = self.bearers.iter().map(|b| b.pdcp().queue().stats().marked).sum();
        self.tally.hold(end);
        let mut all = summed(self.bearers.iter_mut().map(|b| b.link_stats(end)), end);
        all.queue_byte_ns = self.tally.byte_ns;
        all.queue_packet_ns = self.tally.packet_ns;
        all.occupancy = Some(self.tally.occupancy.clone());
        (all, marked)
    }

    /// One row per cell for the summary.
    pub fn cell_summaries(&self, end: Time) -> Vec<CellSummary> {
        if let Some(l) = &self.lte {
            return vec![l.cell_summary(end)];
        }
        if let Some(h) = &self.hsdsch {
            return (0..h.cells()).map(|c| h.cell_summary(c, end)).collect();
        }
        if let Some(d) = &self.dsch {
            return (0..d.cells()).map(|c| d.cell_summary(c, end)).collect();
        }
        self.cells.iter().map(|c| c.summary(end)).collect()
    }

    /// User `ue`'s cell (on the HS-DSCH and DSCH systems: where it is at the end).
    pub fn cell_of(&self, ue: u32) -> u32 {
        match (&self.hsdsch, &self.dsch) {
            (Some(h), _) => h.cell_of(ue as usize) as u32,
            (_, Some(d)) => d.cell_of(ue as usize) as u32,
            _ => self.cell_of[ue as usize] as u32,
        }
    }

    /// The DSCH system's central-cell measures, with one.
    pub fn dsch_summary(&self) -> Option<DschSummary> {
        self.dsch.as_ref().map(DschSystem::summary)
    }

    /// The number of cells of the HS-DSCH system, with one.
    pub fn system_cells(&self) -> Option<usize> {
        self.hsdsch.as_ref().map(HsDsch::cells)
    }

    /// User `ue`'s handovers (HS-DSCH system).
    pub fn handovers(&self, ue: u32) -> Option<u64> {
        self.hsdsch.as_ref().map(|h| h.handovers(ue as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::BearerKind;
    use super::super::dch::DchConfig;
    use super::super::hsdpa::HsdpaConfig;
    use super::super::pdcp::BufferHolds;
    use super::*;
    use crate::engine::EventQueue;
    use crate::packet::{Dir, TcpHeader};
    use crate::queue::{DropCause, QueueConfig};
    use crate::rlc::RlcConfig;
    use crate::units::{Bytes, Rate};

    fn pkt(uid: u64, dir: Dir, size: u32) -> Packet {
        let mut p =
            Packet::tcp(0, dir, size, TcpHeader { len: size.saturating_sub(60) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn dch_config(kbps: f64, ms: u64, buffer: u64) -> RadioConfig {
        RadioConfig {
            bearer: BearerKind::Dch,
            dch: Some(DchConfig { rate: Rate(kbps * 1e3), tti: Dur::from_millis(ms), ..DchConfig::default() }),
            hsdpa: None,
            cells: None,
            lte: None,
            dsch: None,
            environment: None,
            uplink: DchConfig::default(),
            buffer: Some(Bytes(buffer)),
            buffer_packets: None,
            buffer_holds: Default::default(),
            queue: QueueConfig::TailDrop,
            uplink_buffer: None,
            uplink_queue: QueueConfig::TailDrop,
            rlc: RlcConfig::default(),
            groups: Vec::new(),
        }
    }

    /// Offers `down` packets of 1500 B at t = 0 and one 60 B uplink packet
    /// every 100 ms for 2 s; runs to `end`. Returns (down delivered uids with
    /// times, up delivered count, drops, bearer).
    fn drive(cfg: &RadioConfig, down: u64, end: Time) -> (Vec<(Time, u64)>, usize, Vec<Dropped>, RadioAccess) {
        drive_spaced(cfg, down, Dur::ZERO, end)
    }

    /// [`drive`] with the downlink packets `spacing` apart.
    fn drive_spaced(
        cfg: &RadioConfig,
        down: u64,
        spacing: Dur,
        end: Time,
    ) -> (Vec<(Time, u64)>, usize, Vec<Dropped>, RadioAccess) {
        let mut r = RadioAccess::new(cfg, 1, 1);
        let mut q: EventQueue<Option<RadioEvent>> = EventQueue::new();
        let mut out = RadioOut::default();
        let mut later = Vec::new();
        for uid in 0..down {
            match spacing * uid {
                Dur::ZERO => r.arrive_down(Time::ZERO, 0, pkt(uid, Dir::Down, 1500), &mut out),
                at => later.push((Time::ZERO + at, uid)),
            }
        }
        for k in 0..20 {
            q.schedule(Time::ZERO + Dur::from_millis(100 * k), None);
        }
        let (mut got, mut up, mut drops) = (Vec::new(), 0, Vec::new());
        let mut uid = 1_000_000;
        loop {
            for (at, ev) in out.schedule.drain(..) {
                q.schedule(at, Some(ev));
            }
            got.extend(out.to_ue.drain(..).map(|p| (q.now(), p.uid)));
            up += out.to_core.drain(..).count();
            drops.append(&mut out.dropped);
            let Some((now, ev)) = q.pop() else { break };
            if now > end {
                break;
            }
            while let Some(&(_, down_uid)) = later.first().filter(|(at, _)| *at <= now) {
                later.remove(0);
                r.arrive_down(now, 0, pkt(down_uid, Dir::Down, 1500), &mut out);
            }
            match ev {
                Some(ev) => r.handle(now, ev, &mut out),
                None => {
                    uid += 1;
                    r.arrive_up(now, 0, pkt(uid, Dir::Up, 60), &mut out);
                }
            }
        }
        (got, up, drops, r)
    }

    /// `buffer_holds = "until_fully_sent"`: a 2-packet tail-drop buffer on a 384 kb/s DCH, fed a
    /// 1500-B packet every 40 ms (the DCH sends one in about 33 ms). Counting the packets until the RLC's STATUS
    /// confirms them (a poll on the last PDU, answered over the 64 kb/s uplink in 20 ms TTIs), the
    /// buffer overflows; counting them until their last PDU is sent, it never does.
    #[test]
    fn until_fully_sent_counts_only_what_the_radio_has_not_taken() {
        let cfg = RadioConfig { buffer: None, buffer_packets: Some(2), ..dch_config(384.0, 10, 0) };
        let end = Time::ZERO + Dur::from_secs(5);
        let (got, _, drops, _) = drive_spaced(&cfg, 50, Dur::from_millis(40), end);
        assert!(drops.len() >= 5, "{} drops", drops.len());
        assert_eq!(got.len() + drops.len(), 50);
        let sent = RadioConfig { buffer_holds: BufferHolds::UntilFullySent, ..cfg };
        let (got, _, drops, mut r) = drive_spaced(&sent, 50, Dur::from_millis(40), end);
        assert!(drops.is_empty(), "{} drops", drops.len());
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..50).collect::<Vec<_>>());
        assert_eq!((r.pdcp(0).packets(), r.bytes_held()), (0, 0));
        let s = r.bearers_mut()[0].stats(end);
        assert_eq!(s.packets_delivered, 50);
    }

    #[test]
    fn a_dch_bearer_delivers_what_pdcp_accepts_in_order_at_the_bearer_rate() {
        let cfg = dch_config(384.0, 10, 30_000);
        let (got, up, drops, mut r) = drive(&cfg, 40, Time::ZERO + Dur::from_secs(5));
        // 30 kB of PDCP holds 20 packets; the rest overflow.
        assert_eq!(drops.len(), 20);
        assert!(drops.iter().all(|d| d.cause == DropCause::Overflow));
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert_eq!(up, 20);
        // 20 × 1500 B at 384 kb/s of payload: about 0.63 s, plus TTI and delay.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.63..0.75).contains(&last), "{last}");
        assert_eq!((r.pdcp(0).packets(), r.bytes_held()), (0, 0));
        let s = r.bearers_mut()[0].stats(Time::ZERO + Dur::from_secs(5));
        assert_eq!((s.packets_delivered, s.retransmissions), (20, 0));
    }

    #[test]
    fn an_hsdpa_bearer_runs_at_the_granted_share() {
        let cfg = RadioConfig {
            bearer: BearerKind::Hsdpa,
            dch: None,
            hsdpa: Some(HsdpaConfig { rate: Rate(3.6e6), ..HsdpaConfig::default() }),
            // 768 PDUs in flight over a ~90 ms RLC round trip would cap the bearer at ~2.9 Mb/s.
            rlc: RlcConfig { window: 2047, ..RlcConfig::default() },
            ..dch_config(0.0, 10, 1_000_000)
        };
        let (got, up, drops, r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert!(drops.is_empty());
        assert_eq!(got.len(), 500);
        assert_eq!(up, 20);
        // 500 × 1500 B in 42-byte MAC-d PDUs at 0.9 × 3.6 Mb/s: 750 kB × 42/40 × 8 / 3.24 Mb/s ≈ 1.94 s.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((1.9..2.1).contains(&last), "{last}");
        assert_eq!(r.bytes_held(), 0);
        // At 20 Mb/s the 255-PDU frames cap the credits: the PDCP is told 255 × 336 bit / 10 ms
        // = 8.568 Mb/s (not 0.9 × 20 Mb/s), and that is the pace: 750 kB × 42/40 × 8 / 8.568 Mb/s ≈ 0.74 s.
        // (An 8192-PDU RLC window, so that the window does not limit the bearer instead.)
        let cfg = RadioConfig {
            hsdpa: Some(HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() }),
            rlc: RlcConfig { window: 8192, ..RlcConfig::default() },
            ..cfg
        };
        let (got, _, _, r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert_eq!(r.pdcp(0).rate_bps(), 255.0 * 336.0 / 0.01);
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.72..0.80).contains(&last), "{last}");
    }

    #[test]
    fn lossy_dch_recovers_every_packet_and_reports_discards_as_link_loss() {
        let mut cfg = dch_config(64.0, 20, 1_000_000);
        cfg.dch.as_mut().unwrap().loss = Some(super::super::gilbert::GilbertConfig { mean: 0.05, burst: 2.0 });
        let (got, _, drops, mut r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(drops.is_empty());
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..30).collect::<Vec<_>>());
        assert!(r.bearers_mut()[0].stats(Time::ZERO + Dur::from_secs(30)).retransmissions > 0);
        // With MaxDAT 1 every lost PDU costs its SDUs: reported as link loss, and the ledger closes.
        cfg.rlc.max_dat = 1;
        let (got, _, drops, r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(!drops.is_empty() && drops.iter().all(|d| d.cause == DropCause::LinkLoss));
        assert_eq!(got.len() + drops.len(), 30);
        assert_eq!(r.bytes_held(), 0);
    }

    #[test]
    fn validation_names_the_key() {
        let mut cfg = dch_config(384.0, 10, 100_000);
        assert_eq!(cfg.validate("radio", 1), Ok(()));
        cfg.dch = None;
        assert_eq!(cfg.validate("radio", 1).unwrap_err(), "radio.dch: missing (required with bearer = \"dch\")");
        cfg.bearer = BearerKind::Hsdpa;
        cfg.hsdpa = Some(HsdpaConfig { harq: 1.5, ..HsdpaConfig::default() });
        assert!(cfg.validate("radio", 1).unwrap_err().starts_with("radio.hsdpa.harq:"));
        cfg.hsdpa = Some(HsdpaConfig::default());
        cfg.rlc.window = 0;
        assert!(cfg.validate("radio", 1).unwrap_err().starts_with("radio.rlc.window:"));
    }
}
