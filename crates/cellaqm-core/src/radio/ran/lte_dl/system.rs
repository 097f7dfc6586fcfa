//! The downlink system: its UEs' bearers at the eNodeB, their channels,
//! HARQ, and the cells ([`super::cell`]: one, or one per site of a layout
//! with [`super::links`]), each with its scheduler, run TTI by TTI on one
//! TTI grid.
//!
//! ```text
//!  core ─▶ UE u's bearer: PDCP buffer + discipline ─▶ RLC ─▶ MAC ─▶ HARQ ─▶ UE u: RLC reassembly ─▶ IP
//!  core ◀─ uplink (fixed delay, ACKs) ◀──────────────────────────────────── UE u
//! ```
//!
//! At each TTI boundary T (1 ms), in this order:
//! 1. blocks done by T reach their UEs (decoded, or in UM given up: their
//!    bytes damaged): the SDUs they complete are delivered in sequence;
//! 2. the TTI opens: each UE's channel gives its rate, bandwidth × the
//!    attenuated-Shannon efficiency of its SINR (TR 36.942 Annex A; with
//!    several cells, its links first move on and may hand it over:
//!    [`super::links`]); HARQ retransmissions due in T take their blocks'
//!    share of their UE's cell's TTI first;
//! 3. each cell's scheduler, in cell order, ranks the UEs it serves with data (their buffer status: MAC bytes
//!    to carry it all; a UE with a retransmission in T, or whose channel gives
//!    no byte, waits) and serves up to `ues_per_tti` in its order, one pick
//!    at a time while the TTI has room (its turn moves past the UEs served),
//!    each an opportunity of what it needs, at most what is left of the TTI at its
//!    own rate ([`crate::radio::lte::capacity::Offer`]: a block of g bytes to
//!    a UE whose whole TTI would carry B takes g/B of the resource blocks);
//! 4. each block's fate is drawn at once; its retransmissions are reserved
//!    every HARQ round trip; it reaches the UE at the end of its last
//!    transmission's TTI;
//! 5. the disciplines' timers run; each cell's load (the share of its
//!    resource blocks used) is kept for the next TTI's interference.
//!
//! A handover moves nothing: the UE's bearer (PDCP buffer, RLC, HARQ
//! processes and their retransmissions, its scheduler average) carries on
//! from the new cell (*our choice*: a lossless handover, as if the eNodeBs
//! forwarded it all over X2 at once, TS 36.300 §10.1.2.1; no interruption).
//!
//! TTI events run while any UE has data or a block is under way.

use super::bearer::{Bearer, Block};
use super::cell::Cell;
use super::config::{LteDownlinkConfig, RlcMode};
use super::links::Links;
use super::receiver::Receiver;
use crate::packet::Packet;
use crate::queue::{DropCause, Dropped, QueueDisc};
use crate::radio::lte::capacity::Offer;
use crate::radio::lte::harq::{HarqStats, Outcome};
use crate::radio::sap::TxOpportunity;
use crate::radio::scheduler::RateAverage;
use crate::time::{Dur, Time};
use std::collections::BTreeMap;

/// TTIs of the averages' decay table (*our choice*; later ones compute the power).
const DECAY_TTIS: usize = 1024;

/// Counters of the system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// TTIs run, and those in which some cell served a UE new data.
    pub ttis: u64,
    pub ttis_served: u64,
    /// New blocks sent.
    pub blocks: u64,
}

pub struct System {
    tti: Dur,
    ues_per_tti: usize,
    uses_average: bool,
    pub cells: Vec<Cell>,
    /// Each UE's links to the sites (several cells), or none (one cell).
    links: Option<Links>,
    /// Handovers of the TTI: (UE, from, to).
    moved: Vec<(usize, usize, usize)>,
    /// Each cell's load in the last TTI run, and when that TTI was.
    loads: Vec<f64>,
    last: Option<Time>,
    pub bearers: Vec<Bearer>,
    pub receivers: Vec<Receiver>,
    offer: Offer,
    averages: Vec<RateAverage>,
    /// The averages' decay over the first TTIs unserved ([`RateAverage::value_with`]).
    decay: Vec<f64>,
    /// HARQ retransmissions reserved, by TTI: (UE, block bytes).
    retx: BTreeMap<Time, Vec<(usize, u64)>>,
    /// Blocks under way, by when the UE is done with them (then the order sent).
    flying: BTreeMap<(Time, u64), (usize, Block)>,
    intact: Vec<Packet>,
    lost: Vec<Packet>,
    /// SDUs and bytes each UE received in sequence (intact).
    pub delivered: Vec<(u64, u64)>,
    pub counts: Counts,
}

impl System {
    /// The system of `cfg` with the UEs' `bearers`, their channels' bytes per
    /// TTI from `offer`: one cell, or with `links` one per site (their rates
    /// set from the links each TTI).
    pub fn new(cfg: &LteDownlinkConfig, bearers: Vec<Bearer>, mut offer: Offer, links: Option<Links>) -> System {
        let n = bearers.len();
        let window = (cfg.average_window.0 / cfg.tti.0).clamp(1, u32::MAX as u64) as u32;
        let cells = links.as_ref().map_or(1, Links::cells);
        if let Some(l) = &links {
            for u in 0..n {
                offer.move_to(u, l.cell(u));
            }
        }
        System {
            tti: cfg.tti,
            ues_per_tti: cfg.ues_per_tti as usize,
            uses_average: cfg.scheduler.uses_average(),
            cells: (0..cells).map(|_| Cell::new(cfg.scheduler, n)).collect(),
            links,
            moved: Vec::new(),
            loads: vec![0.0; cells],
            last: None,
            bearers,
            receivers: (0..n).map(|_| Receiver::default()).collect(),
            offer,
            averages: (0..n).map(|_| RateAverage::new(window)).collect(),
            decay: RateAverage::new(window).decay(DECAY_TTIS),
            retx: BTreeMap::new(),
            flying: BTreeMap::new(),
            intact: Vec::new(),
            lost: Vec::new(),
            delivered: vec![(0, 0); n],
            counts: Counts::default(),
        }
    }

    /// UE `u`'s serving cell.
    pub fn cell_of(&self, u: usize) -> usize {
        self.links.as_ref().map_or(0, |l| l.cell(u))
    }

    /// The UEs' links, with several cells.
    pub fn links(&self) -> Option<&Links> {
        self.links.as_ref()
    }

    /// Each cell's load: the share of its resource blocks used in the last TTI.
    pub fn loads(&self) -> &[f64] {
        &self.loads
    }

    pub fn tti(&self) -> Dur {
        self.tti
    }

    /// Whether the system needs its next TTI.
    pub fn busy(&self, now: Time) -> bool {
        !self.flying.is_empty() || self.bearers.iter().any(|b| b.has_data(now) || b.next_timer().is_some())
    }

    /// The TTI starting at `now`: packets delivered to `to_ue`, dropped to `dropped`.
    pub fn run_tti(&mut self, now: Time, to_ue: &mut Vec<Packet>, dropped: &mut Vec<Dropped>) {
        self.counts.ttis += 1;
        let index = now.0 / self.tti.0;
        // 1. Blocks done.
        while let Some(entry) = self.flying.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (u, block) = entry.remove();
            self.reach(u, &block, to_ue, dropped);
        }
        // 2. The TTI's rates (with several cells, after the UEs moved on), and its retransmissions.
        if let Some(links) = &mut self.links {
            // TTIs pause while no UE has data: then no cell sent in the previous one.
            if self.last.is_none_or(|t| t + self.tti != now) {
                self.loads.fill(0.0);
            }
            self.last = Some(now);
            links.open(now, &self.loads, &mut self.offer, &mut self.moved);
            for (u, from, to) in self.moved.drain(..) {
                self.cells[from].views[u].backlog_bytes = 0;
                self.cells[to].stats.handovers_in += 1;
                self.offer.move_to(u, to);
            }
        }
        self.offer.open(now);
        let again = self.retx.remove(&now).unwrap_or_default();
        for &(u, bytes) in &again {
            self.offer.spend(u, bytes);
        }
        // 3. Each cell's scheduler picks among its UEs.
        for u in 0..self.bearers.len() {
            let c = self.cell_of(u);
            let view = &mut self.cells[c].views[u];
            let waits = !self.offer.schedulable(u) || again.iter().any(|r| r.0 == u);
            view.backlog_bytes = if waits { 0 } else { self.bearers[u].need(now) };
            view.rate_bps = self.offer.rate(u);
            // A view without backlog is no candidate: its average is not read.
            let reads_average = self.uses_average && view.backlog_bytes > 0;
            view.avg_bps = if reads_average { self.averages[u].value_with(index, &self.decay) } else { 0.0 };
            // With several cells: the SINR of each UE with data, in its cell's mean.
            if let Some(links) = self.links.as_ref().filter(|_| self.bearers[u].need(now) > 0) {
                let stats = &mut self.cells[c].stats;
                stats.sinr_samples += 1;
                stats.sinr_db_sum += 10.0 * links.sinr(u).log10();
            }
        }
        let mut any = false;
        for c in 0..self.cells.len() {
            let served = self.serve(now, index, c, dropped);
            self.cells[c].stats.ttis_served += served as u64;
            any |= served;
        }
        for (c, load) in self.loads.iter_mut().enumerate() {
            *load = self.offer.used(c);
        }
        self.offer.close(false);
        self.counts.ttis_served += any as u64;
        // 5. The disciplines' timers.
        for b in &mut self.bearers {
            b.on_timer(now, dropped);
        }
    }

    /// Cell `c`'s picks in the TTI at `now` (index `index`): whether it served a UE.
    fn serve(&mut self, now: Time, index: u64, c: usize, dropped: &mut Vec<Dropped>) -> bool {
        // One pick at a time, so that the scheduler's turn moves past the UEs
        // served: a UE served, or left no byte of the TTI, is no candidate again.
        let mut served = false;
        for _ in 0..self.ues_per_tti {
            let cell = &mut self.cells[c];
            for (v, view) in cell.views.iter_mut().enumerate() {
                if view.backlog_bytes > 0 && self.offer.available(v) == 0 {
                    view.backlog_bytes = 0;
                }
            }
            let Some((u, need)) = cell.scheduler.next_served(now, &mut cell.views) else { break };
            cell.stats.opportunities += 1;
            let bytes = self.offer.available(u).min(need);
            self.offer.spend(u, bytes);
            served = true;
            let block = self.bearers[u].transmit(now, TxOpportunity { bytes }, dropped);
            if self.uses_average {
                self.averages[u].serve(index, bytes as f64 * 8e9 / self.tti.0 as f64);
            }
            self.send(now, u, bytes, block);
        }
        served
    }

    /// `block` of `bytes` to UE `u` is first sent at `now`: its SDUs enter the
    /// UE's stream, its retransmissions are reserved, and it flies.
    fn send(&mut self, now: Time, u: usize, bytes: u64, block: Block) {
        for (end, pkt) in &block.pdu.new_sdus {
            self.receivers[u].expect(*end, *pkt);
        }
        let rtt = self.bearers[u].harq_rtt();
        for k in 1..block.outcome.transmissions {
            self.retx.entry(Outcome::tx_at(now, k, rtt)).or_default().push((u, bytes));
        }
        let done = block.outcome.done_at(now, rtt, self.tti);
        self.flying.insert((done, self.counts.blocks), (u, block));
        self.counts.blocks += 1;
    }

    /// `block` reaches UE `u`: decoded, or given up (in UM, its bytes damaged; in AM, sent again later).
    fn reach(&mut self, u: usize, block: &Block, to_ue: &mut Vec<Packet>, dropped: &mut Vec<Dropped>) {
        let um_lost = !block.outcome.decoded && self.bearers[u].mode() == RlcMode::Um;
        if !block.outcome.decoded && !um_lost {
            return;
        }
        for &(s, e) in &block.pdu.ranges {
            self.receivers[u].receive(s, e, um_lost, &mut self.intact, &mut self.lost);
        }
        for pkt in self.intact.drain(..) {
            self.delivered[u].0 += 1;
            self.delivered[u].1 += pkt.size as u64;
            to_ue.push(pkt);
        }
        dropped.extend(self.lost.drain(..).map(|pkt| Dropped { pkt, cause: DropCause::LinkLoss }));
    }

    /// Bytes held in the PDCP buffers and the UEs' reassembly (SDUs taken by the RLC, not yet delivered).
    pub fn bytes_held(&self) -> u64 {
        let queued: u64 = self.bearers.iter().map(|b| b.queue().bytes()).sum();
        let rx: u64 = self.receivers.iter().map(Receiver::bytes).sum();
        queued + rx
    }

    /// The UEs' HARQ counters summed.
    pub fn harq(&self) -> HarqStats {
        self.bearers.iter().fold(HarqStats::default(), |mut s, b| {
            let h = b.harq_stats();
            s.blocks += h.blocks;
            s.retransmissions += h.retransmissions;
            s.failed += h.failed;
            s
        })
    }
}
