//! The cell: its UEs' bearers at the eNodeB, their channels, the scheduler
//! and HARQ, run TTI by TTI.
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
//!    attenuated-Shannon efficiency of its SINR (TR 36.942 Annex A); HARQ
//!    retransmissions due in T take their blocks' share of the TTI first;
//! 3. the scheduler ranks the UEs with data (their buffer status: MAC bytes
//!    to carry it all; a UE with a retransmission in T, or whose channel gives
//!    no byte, waits) and serves up to `ues_per_tti` in its order, one pick
//!    at a time while the TTI has room (its turn moves past the UEs served),
//!    each an opportunity of what it needs, at most what is left of the TTI at its
//!    own rate ([`crate::radio::lte::capacity::Offer`]: a block of g bytes to
//!    a UE whose whole TTI would carry B takes g/B of the resource blocks);
//! 4. each block's fate is drawn at once; its retransmissions are reserved
//!    every HARQ round trip; it reaches the UE at the end of its last
//!    transmission's TTI;
//! 5. the disciplines' timers run.
//!
//! TTI events run while any UE has data or a block is under way.

use super::bearer::{Bearer, Block};
use super::config::{LteDownlinkConfig, RlcMode};
use super::receiver::Receiver;
use crate::packet::Packet;
use crate::queue::{DropCause, Dropped, QueueDisc};
use crate::radio::lte::capacity::Offer;
use crate::radio::lte::harq::{HarqStats, Outcome};
use crate::radio::sap::TxOpportunity;
use crate::radio::scheduler::{AnyScheduler, RateAverage, UserView};
use crate::time::{Dur, Time};
use std::collections::BTreeMap;

/// TTIs of the averages' decay table (*our choice*; later ones compute the power).
const DECAY_TTIS: usize = 1024;

/// Counters of the cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellCounts {
    /// TTIs run, and those that served a UE new data.
    pub ttis: u64,
    pub ttis_served: u64,
    /// New blocks sent.
    pub blocks: u64,
}

pub struct Cell {
    tti: Dur,
    ues_per_tti: usize,
    uses_average: bool,
    scheduler: AnyScheduler,
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
    views: Vec<UserView>,
    intact: Vec<Packet>,
    lost: Vec<Packet>,
    /// SDUs and bytes each UE received in sequence (intact).
    pub delivered: Vec<(u64, u64)>,
    pub counts: CellCounts,
}

impl Cell {
    /// The cell of `cfg` with the UEs' `bearers`, their channels' bytes per TTI from `offer`.
    pub fn new(cfg: &LteDownlinkConfig, bearers: Vec<Bearer>, offer: Offer) -> Cell {
        let n = bearers.len();
        let window = (cfg.average_window.0 / cfg.tti.0).clamp(1, u32::MAX as u64) as u32;
        Cell {
            tti: cfg.tti,
            ues_per_tti: cfg.ues_per_tti as usize,
            uses_average: cfg.scheduler.uses_average(),
            scheduler: cfg.scheduler.build(),
            bearers,
            receivers: (0..n).map(|_| Receiver::default()).collect(),
            offer,
            averages: (0..n).map(|_| RateAverage::new(window)).collect(),
            decay: RateAverage::new(window).decay(DECAY_TTIS),
            retx: BTreeMap::new(),
            flying: BTreeMap::new(),
            views: vec![UserView::default(); n],
            intact: Vec::new(),
            lost: Vec::new(),
            delivered: vec![(0, 0); n],
            counts: CellCounts::default(),
        }
    }

    pub fn tti(&self) -> Dur {
        self.tti
    }

    /// Whether the cell needs its next TTI.
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
        // 2. The TTI's rates, and its retransmissions.
        self.offer.open(now);
        let again = self.retx.remove(&now).unwrap_or_default();
        for &(u, bytes) in &again {
            self.offer.spend(u, bytes);
        }
        // 3. The scheduler's picks.
        for (u, view) in self.views.iter_mut().enumerate() {
            let waits = !self.offer.schedulable(u) || again.iter().any(|r| r.0 == u);
            view.backlog_bytes = if waits { 0 } else { self.bearers[u].need(now) };
            view.rate_bps = self.offer.rate(u);
            // A view without backlog is no candidate: its average is not read.
            let reads_average = self.uses_average && view.backlog_bytes > 0;
            view.avg_bps = if reads_average { self.averages[u].value_with(index, &self.decay) } else { 0.0 };
        }
        // One pick at a time, so that the scheduler's turn moves past the UEs
        // served: a UE served, or left no byte of the TTI, is no candidate again.
        let mut served = false;
        for _ in 0..self.ues_per_tti {
            for (v, view) in self.views.iter_mut().enumerate() {
                if view.backlog_bytes > 0 && self.offer.available(v) == 0 {
                    view.backlog_bytes = 0;
                }
            }
            let Some((u, need)) = self.scheduler.next_served(now, &mut self.views) else { break };
            let bytes = self.offer.available(u).min(need);
            self.offer.spend(u, bytes);
            served = true;
            let block = self.bearers[u].transmit(now, TxOpportunity { bytes }, dropped);
            if self.uses_average {
                self.averages[u].serve(index, bytes as f64 * 8e9 / self.tti.0 as f64);
            }
            self.send(now, u, bytes, block);
        }
        self.offer.close(false);
        self.counts.ttis_served += served as u64;
        // 5. The disciplines' timers.
        for b in &mut self.bearers {
            b.on_timer(now, dropped);
        }
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
