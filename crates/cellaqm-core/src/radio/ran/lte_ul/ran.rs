//! The LTE uplink of the LTE study (`bearer = "lte_uplink"`, [`crate::radio::ran::lte_ul`]):
//! one cell, its eNodeB scheduler, a UE per user; the managed buffers are
//! the UEs', which together stand for the run's `uplink` (their summed
//! backlog tallied over time); each user's row has its UE's buffer.

use super::network::LteUplink;
use crate::link::LinkStats;
use crate::metrics::BsrTrace;
use crate::packet::{Dir, Packet};
use crate::radio::cell_summary::CellSummary;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::ran::interface::{Ran, UserBuffer};
use crate::radio::ran::summary::{RanSummary, SystemSection};
use crate::radio::streams::user_stream;
use crate::radio::tally::Tally;
use crate::time::{Dur, Time};

pub struct LteUl {
    uplink: LteUplink,
    /// The UEs' buffers together over time.
    tally: Tally,
}

impl LteUl {
    /// The uplink of `cfg.lte` for `users` UEs (streams `radio[.ue<u>].ue`, `radio[.ue<u>].harq`, `radio[.ue<u>].lte.channel`).
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> LteUl {
        let lte = cfg.lte.as_ref().expect("validated: [radio.lte] with bearer = \"lte_uplink\"");
        let stream = |u: u32, part: &str| user_stream(seed, u, part);
        let queues = (0..users).map(|u| cfg.bearer(u).up_queue(stream(u, "ue"))).collect();
        let harq = (0..users).map(|u| stream(u, "harq")).collect();
        // Each UE's own channel: UE 0's stream keeps its name, `radio.lte.channel`.
        let channels = (0..users).map(|u| stream(u, "lte.channel")).collect();
        let uplink = LteUplink::new(lte, queues, harq, lte.offer(cfg.environment_keys(), channels));
        LteUl { uplink, tally: Tally::default() }
    }

    /// Does `op` on the uplink at `now`; the tally follows the UEs' buffers.
    fn on(&mut self, now: Time, op: impl FnOnce(&mut LteUplink)) {
        self.tally.hold(now);
        let before = self.uplink.backlog();
        op(&mut self.uplink);
        self.tally.change(before, self.uplink.backlog());
    }
}

impl Ran for LteUl {
    fn arrive_down(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.on(now, |l| l.arrive_down(now, ue, pkt, out));
    }

    fn arrive_up(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.on(now, |l| l.arrive_up(now, ue, pkt, out));
    }

    fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        self.on(now, |l| l.handle(now, ev, out));
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        vec![self.uplink.cell_summary(end)]
    }

    fn cell_of(&self, _ue: usize) -> u32 {
        0
    }

    fn bytes_held(&self) -> u64 {
        self.uplink.bytes_held()
    }

    fn backlog(&self) -> (u64, u64) {
        (self.tally.bytes, self.tally.packets)
    }

    fn buffer_packets(&self, ue: usize) -> u64 {
        self.uplink.ue_packets(ue)
    }

    /// Nothing: the downlink (ACKs) is not managed.
    fn bottleneck(&mut self, _end: Time) -> (LinkStats, u64) {
        (LinkStats::default(), 0)
    }

    /// The UEs' buffers seen as one link, and their ECN marks.
    fn uplink(&mut self, end: Time) -> (LinkStats, u64) {
        self.tally.hold(end);
        let (l, s) = (&self.uplink, self.uplink.stats());
        let stats = LinkStats {
            busy: Dur(s.ttis_with_grants.saturating_mul(l.tti().0).min(end.0)),
            packets_sent: s.sdus_delivered,
            bytes_sent: s.bytes_delivered,
            queue_byte_ns: self.tally.byte_ns,
            queue_packet_ns: self.tally.packet_ns,
            occupancy: Some(self.tally.occupancy.clone()),
        };
        (stats, l.marked())
    }

    fn user_buffer(&mut self, ue: usize, end: Time) -> UserBuffer {
        let (stats, marked) = self.uplink.ue_link_stats(ue, end);
        UserBuffer { stats, marked, dir: Dir::Up }
    }

    /// The uplink's counters, and user 0's BSRs as the eNodeB estimated from them.
    fn summary(&mut self, _end: Time) -> RanSummary {
        RanSummary {
            bsr: Some(self.uplink.bsr_summary()),
            own: Some(SystemSection::Lte(self.uplink.stats())),
            ..RanSummary::default()
        }
    }

    /// User 0's BSR trace.
    fn record_traces(&mut self) {
        self.uplink.far_end(0).record_trace();
    }

    fn take_bsr_trace(&mut self) -> Option<BsrTrace> {
        self.uplink.far_end(0).take_trace()
    }
}
