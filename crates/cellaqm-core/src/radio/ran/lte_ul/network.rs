//! The LTE uplink of a run: one cell, its eNodeB scheduler and a UE per user
//! (lte-uplink-raqm.md), driven TTI by TTI.
//!
//! ```text
//!  UE u: IP ─▶ buffer + discipline ─▶ RLC ─▶ MAC (BSR, SR) ─▶ HARQ ─┐
//!                                                                    ▼
//!  core ◀─ [R-AQM] ◀─ in-sequence reassembly ◀──────── eNodeB: decoded blocks, BSRs, SRs ─▶ scheduler ─▶ grants
//!  core ─▶ downlink (fixed rate + delay, ACKs) ─▶ UE u
//! ```
//!
//! At each TTI boundary T (1 ms), in this order:
//! 1. blocks the eNodeB finished by T are handled: a decoded block's byte
//!    ranges go to the UE's reassembly, the SDUs it completes are delivered
//!    in sequence through R-AQM (counted in the estimator's L), then its BSR
//!    is read (as its level's upper edge, or exactly: `bsr_table`) by the
//!    scheduler and the estimator;
//! 2. SRs signalled in the TTI before reach the scheduler;
//! 3. the scheduler makes the grants of TTI T + grant_delay;
//! 4. UEs with a grant for TTI T transmit (a block, its HARQ retransmissions
//!    reserved every `harq.rtt`), and the UEs' timers run;
//! 5. a UE with an SR pending and no grant in T signals one if T is its SR
//!    opportunity (every `sr_period`, UE u offset by u TTIs, *our choice*).
//!
//! TTI events run while anything is under way and stop when the cell is
//! idle; a packet arriving at an idle UE restarts them at the next boundary.

use super::buffer_size::BsrTable;
use super::config::LteConfig;
use super::enb::EnbScheduler;
use super::ue::{Block, Ue, UeStats};
use crate::bsr::{BsrSummary, FarEnd, Verdict};
use crate::link::LinkStats;
use crate::packet::Packet;
use crate::queue::{AnyQueue, DropCause, Dropped, QueueDisc};
use crate::radio::cell_summary::CellSummary;
use crate::radio::clock::TtiEvent;
use crate::radio::event::{RadioEvent, RadioOut, UeEvent};
use crate::radio::lte::capacity::Offer;
use crate::radio::lte::harq::{HarqStats, Outcome};
use crate::radio::lte::reassembly::Reassembly;
use crate::radio::return_path::ReturnPaths;
use crate::radio::sap::{BufferStatus, TxOpportunity};
use crate::radio::tally::Tally;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// Counters of the cell, summed over its UEs (`summary["lte"]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LteStats {
    pub ue: UeStats,
    pub harq: HarqStats,
    /// TTIs run, and those in which some UE transmitted a new block.
    pub ttis: u64,
    pub ttis_with_grants: u64,
    /// SDUs (IP packets) and their bytes the eNodeB reassembled in sequence (before R-AQM).
    pub sdus_delivered: u64,
    pub bytes_delivered: u64,
}

pub struct LteUplink {
    tti: Dur,
    grant_delay: Dur,
    sr_period: u64,
    bsr_table: BsrTable,
    /// An SR bounds the delay estimate's arrivals after an empty report.
    sr_bounds_estimate: bool,
    rtt: Dur,
    ues: Vec<Ue>,
    enb: EnbScheduler,
    rx: Vec<Reassembly>,
    far: Vec<FarEnd>,
    /// The ACKs' way to the UEs.
    down: ReturnPaths,
    /// Grants made, by the TTI they are for.
    pipeline: VecDeque<(Time, Vec<(usize, u64)>)>,
    /// Blocks under way to the eNodeB, by when it is done with them (then UE, then order sent).
    flying: BTreeMap<(Time, u64), (usize, Block)>,
    sent: u64,
    /// SRs signalled in the TTI before.
    srs: Vec<usize>,
    tti_event: TtiEvent,
    grants: Vec<(usize, u64)>,
    delivered: Vec<Packet>,
    /// Each UE's buffer over time, and the SDUs and bytes the eNodeB reassembled of it.
    tallies: Vec<Tally>,
    delivered_by: Vec<(u64, u64)>,
    /// The scheduler's name, for the cell's summary row.
    scheduler: &'static str,
    counts: LteStats,
}

impl LteUplink {
    /// The uplink of `cfg` for `queues.len()` UEs, each with its buffer
    /// (queue discipline with its limits) and HARQ stream, the TTIs' bytes from `offer`.
    pub fn new(cfg: &LteConfig, queues: Vec<AnyQueue>, harq_rngs: Vec<Rng>, offer: Offer) -> LteUplink {
        let n = queues.len();
        let bsr = cfg.bsr();
        let rate = cfg.nominal_bps();
        let ues = queues
            .into_iter()
            .zip(harq_rngs)
            .map(|(q, rng)| Ue::new(q, rate, &bsr, &cfg.harq, rng, cfg.tti, cfg.status_delay))
            .collect();
        let enb = EnbScheduler::new(
            cfg.scheduler.build(),
            n,
            offer,
            cfg.tti,
            cfg.min_grant.0,
            cfg.sr_grant.0,
            cfg.ues_per_tti as usize,
        );
        LteUplink {
            tti: cfg.tti,
            grant_delay: cfg.grant_delay,
            sr_period: cfg.sr_period.0 / cfg.tti.0,
            bsr_table: cfg.bsr_table,
            sr_bounds_estimate: cfg.sr_bounds_estimate,
            rtt: cfg.harq.rtt,
            ues,
            enb,
            rx: (0..n).map(|_| Reassembly::default()).collect(),
            far: (0..n).map(|_| FarEnd::new(cfg.receiver.as_ref())).collect(),
            down: ReturnPaths::new(n, Some(cfg.down_rate.bps()), cfg.down_delay, UeEvent::DownArrive),
            pipeline: VecDeque::new(),
            flying: BTreeMap::new(),
            sent: 0,
            srs: Vec::new(),
            tti_event: TtiEvent::new(cfg.tti),
            grants: Vec::new(),
            delivered: Vec::new(),
            tallies: (0..n).map(|_| Tally::per_user()).collect(),
            delivered_by: vec![(0, 0); n],
            scheduler: cfg.scheduler.name(),
            counts: LteStats::default(),
        }
    }

    /// An uplink packet leaves UE `u`'s IP layer.
    pub fn arrive_up(&mut self, now: Time, u: usize, pkt: Packet, out: &mut RadioOut) {
        self.on_ue(now, u, |ue| ue.arrive(now, pkt, &mut out.dropped));
        self.tti_event.want(now, &mut out.schedule);
    }

    /// Does `op` on UE `u` at `now`; its tally follows its buffer.
    fn on_ue<R>(&mut self, now: Time, u: usize, op: impl FnOnce(&mut Ue) -> R) -> R {
        let (ue, tally) = (&mut self.ues[u], &mut self.tallies[u]);
        tally.hold(now);
        let before = (ue.queue().bytes(), ue.queue().packets() as u64);
        let r = op(ue);
        tally.change(before, (ue.queue().bytes(), ue.queue().packets() as u64));
        r
    }

    /// A downlink packet for UE `u` leaves the core.
    pub fn arrive_down(&mut self, now: Time, u: usize, pkt: Packet, out: &mut RadioOut) {
        self.down.send(now, u, pkt, &mut out.schedule);
    }

    /// A scheduled event fires: the cell's TTI, or packets reaching UE `u` on the downlink.
    pub fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        match ev {
            RadioEvent::Ue(u, UeEvent::DownArrive) => {
                self.down.arrivals(now, u as usize, &mut out.to_ue, &mut out.schedule)
            }
            RadioEvent::Tti => {
                self.tti_event.run(now);
                self.run_tti(now, out);
                if self.busy(now) {
                    self.tti_event.want(now + self.tti, &mut out.schedule);
                }
            }
            ev => unreachable!("the LTE uplink asks for no {ev:?}"),
        }
    }

    fn busy(&self, now: Time) -> bool {
        !self.flying.is_empty()
            || !self.pipeline.is_empty()
            || !self.srs.is_empty()
            || self.enb.busy()
            || self.ues.iter().any(|u| u.has_data(now) || u.sr_pending() || u.next_queue_timer().is_some())
    }

    fn run_tti(&mut self, now: Time, out: &mut RadioOut) {
        self.counts.ttis += 1;
        // 1. Blocks the eNodeB is done with.
        while let Some(entry) = self.flying.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (u, block) = entry.remove();
            if block.outcome.decoded {
                self.received(now, u, &block, out);
            }
        }
        // 2. Last TTI's SRs.
        for u in self.srs.drain(..) {
            self.enb.on_sr(u);
            if self.sr_bounds_estimate {
                // Signalled in the TTI before, at the first opportunity after its data arrived.
                let sr_period = Dur(self.sr_period * self.tti.0);
                self.far[u].requested(Time(now.0.saturating_sub((sr_period + self.tti).0)));
            }
        }
        // 3. Grants for the TTI grant_delay ahead.
        let ahead = now + self.grant_delay;
        self.enb.grants(ahead, &mut self.grants);
        if !self.grants.is_empty() {
            self.pipeline.push_back((ahead, std::mem::take(&mut self.grants)));
        }
        // 4. This TTI's transmissions, then the UEs' timers.
        let granted = match self.pipeline.front() {
            Some(&(t, _)) if t == now => self.pipeline.pop_front().expect("checked").1,
            _ => Vec::new(),
        };
        self.counts.ttis_with_grants += !granted.is_empty() as u64;
        for &(u, bytes) in &granted {
            self.enb.used(u);
            let grant = TxOpportunity { bytes };
            let block = self.on_ue(now, u, |ue| ue.transmit(now, grant, &mut out.dropped));
            for (end, pkt) in &block.pdu.new_sdus {
                self.rx[u].expect(*end, *pkt);
            }
            for k in 1..block.outcome.transmissions {
                self.enb.reserve(u, Outcome::tx_at(now, k, self.rtt), bytes);
            }
            let done = block.outcome.done_at(now, self.rtt, self.tti);
            self.flying.insert((done, self.sent), (u, block));
            self.sent += 1;
        }
        for u in 0..self.ues.len() {
            self.on_ue(now, u, |ue| ue.on_timer(now, &mut out.dropped));
        }
        // 5. SRs at their opportunities.
        let tti_index = now.0 / self.tti.0;
        for (u, ue) in self.ues.iter_mut().enumerate() {
            let opportunity = tti_index % self.sr_period == u as u64 % self.sr_period;
            if opportunity && ue.sr_pending() && !granted.iter().any(|g| g.0 == u) {
                ue.sent_sr();
                self.srs.push(u);
            }
        }
    }

    /// UE `u`'s decoded `block` reaches the eNodeB's RLC and MAC at `now`.
    fn received(&mut self, now: Time, u: usize, block: &Block, out: &mut RadioOut) {
        for &(s, e) in &block.pdu.ranges {
            self.rx[u].receive(s, e, &mut self.delivered);
        }
        for pkt in self.delivered.drain(..) {
            self.counts.sdus_delivered += 1;
            self.counts.bytes_delivered += pkt.size as u64;
            self.delivered_by[u].0 += 1;
            self.delivered_by[u].1 += pkt.size as u64;
            match self.far[u].deliver(now, &pkt) {
                Verdict::Deliver => out.to_core.push(pkt),
                Verdict::Drop => out.dropped.push(Dropped { pkt, cause: DropCause::Receiver }),
            }
        }
        if let Some(b) = block.bsr {
            let level = b.ce.levels[0].expect("the UE's one logical channel is in group 0");
            let read = self.bsr_table.read(level, b.exact);
            if self.enb.on_bsr(u, BufferStatus::bsr(read), block.first) {
                self.far[u].observe(now, read, b.true_delay);
            }
        }
    }

    /// Bytes held in the UEs' buffers, RLC and the downlinks.
    pub fn bytes_held(&self) -> u64 {
        let ues: u64 = self.ues.iter().map(|u| u.queue().bytes()).sum();
        let rx: u64 = self.rx.iter().map(Reassembly::bytes).sum();
        ues + rx + self.down.bytes()
    }

    /// The UEs' buffers together: (bytes, packets).
    pub fn backlog(&self) -> (u64, u64) {
        self.ues.iter().fold((0, 0), |(b, p), u| (b + u.queue().bytes(), p + u.queue().packets() as u64))
    }

    /// Packets in UE `u`'s buffer.
    pub fn ue_packets(&self, u: usize) -> u64 {
        self.ues[u].queue().packets() as u64
    }

    pub fn tti(&self) -> Dur {
        self.tti
    }

    /// ECN marks of the UEs' disciplines.
    pub fn marked(&self) -> u64 {
        self.ues.iter().map(|u| u.queue().stats().marked).sum()
    }

    /// The cell's row of the summary for a run ending at `end` (`goodput_bps` is the caller's).
    pub fn cell_summary(&self, end: Time) -> CellSummary {
        let s = self.stats();
        CellSummary {
            cell: 0,
            users: self.ues.len() as u32,
            downlink: "lte_uplink",
            scheduler: Some(self.scheduler),
            uplink: true,
            tti_utilisation: Some(s.ttis_with_grants as f64 / (end.0 / self.tti.0).max(1) as f64),
            users_per_tti: Some(s.ue.grants as f64 / s.ttis_with_grants.max(1) as f64),
            harq_delayed: Some(s.harq.retransmissions),
            ..CellSummary::default()
        }
    }

    /// UE `u`'s buffer seen as a link, for its `users.csv` row (busy: the TTIs
    /// of its grants), and its discipline's ECN marks.
    pub fn ue_link_stats(&mut self, u: usize, end: Time) -> (LinkStats, u64) {
        let tally = &mut self.tallies[u];
        tally.hold(end);
        let ue = &self.ues[u];
        let stats = LinkStats {
            busy: Dur(ue.stats().grants.saturating_mul(self.tti.0).min(end.0)),
            packets_sent: self.delivered_by[u].0,
            bytes_sent: self.delivered_by[u].1,
            queue_byte_ns: tally.byte_ns,
            queue_packet_ns: tally.packet_ns,
            occupancy: Some(tally.occupancy.clone()),
        };
        (stats, ue.queue().stats().marked)
    }

    /// UE `u`'s eNodeB side of the BSRs (estimator, R-AQM).
    pub fn far_end(&mut self, u: usize) -> &mut FarEnd {
        &mut self.far[u]
    }

    /// The BSR summary of UE 0 (the study's one UE).
    pub fn bsr_summary(&self) -> BsrSummary {
        self.far[0].summary()
    }

    pub fn stats(&self) -> LteStats {
        let mut s = self.counts;
        for u in &self.ues {
            let (a, h) = (u.stats(), u.harq_stats());
            s.ue.grants += a.grants;
            s.ue.granted_bytes += a.granted_bytes;
            s.ue.data_bytes += a.data_bytes;
            s.ue.bsrs += a.bsrs;
            s.ue.srs += a.srs;
            s.harq.blocks += h.blocks;
            s.harq.retransmissions += h.retransmissions;
            s.harq.failed += h.failed;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::packet::{Dir, TcpHeader};
    use crate::queue::{Limits, QueueConfig};
    use crate::rng::stream;
    use crate::units::Rate;

    fn up(uid: u64, size: u32) -> Packet {
        let mut p = Packet::tcp(0, Dir::Up, size, TcpHeader { len: (size - 40) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn uplink(cfg: &LteConfig, ues: usize) -> LteUplink {
        let queues = (0..ues).map(|u| QueueConfig::TailDrop.build(Limits::default(), stream(u as u64, "q"))).collect();
        let rngs = (0..ues).map(|u| stream(u as u64, "harq")).collect();
        let channels = (0..ues).map(|u| stream(u as u64, "channel")).collect();
        LteUplink::new(cfg, queues, rngs, cfg.offer(None, channels))
    }

    /// Runs `lte` with `arrivals` (time, UE, packet) until `end`; returns
    /// the packets delivered to the core with their times.
    fn run(lte: &mut LteUplink, arrivals: Vec<(Time, usize, Packet)>, end: Time) -> Vec<(Time, Packet)> {
        let mut q: EventQueue<Result<RadioEvent, (usize, Packet)>> = EventQueue::new();
        for (t, u, p) in arrivals {
            q.schedule(t, Err((u, p)));
        }
        let mut out = RadioOut::default();
        let mut got = Vec::new();
        while let Some((now, ev)) = q.pop_until(end) {
            match ev {
                Ok(ev) => lte.handle(now, ev, &mut out),
                Err((u, p)) => lte.arrive_up(now, u, p, &mut out),
            }
            for (at, ev) in out.schedule.drain(..) {
                q.schedule(at, Ok(ev));
            }
            got.extend(out.to_core.drain(..).map(|p| (now, p)));
            assert!(out.dropped.is_empty());
        }
        got
    }

    fn ms(v: f64) -> Time {
        Time::ZERO + Dur::from_secs_f64(v / 1e3)
    }

    /// One 1000-byte IP packet (a 1002-byte PDCP PDU) reaches an idle UE at
    /// 2.5 ms; 10 Mb/s (1250 B per TTI), SR every 10 ms, grants 4 TTIs ahead:
    /// - TTI 10: the first SR opportunity (UE 0: TTIs 0, 10, …): SR;
    /// - TTI 11: the eNodeB has it: a 64-byte grant for TTI 15;
    /// - TTI 15: MAC subheader 3 B + Short BSR 2 B + RLC header 2 B leave 57 B
    ///   of data; 945 B are left. Legacy table: index 30 (826 < BS ≤ 967),
    ///   read as 967 B; extended table: index 23 (769 < BS ≤ 945), read as 945 B;
    /// - TTI 16: the eNodeB has the BSR: a grant of what it read for TTI 20;
    /// - legacy, TTI 20: 945 B of data (950 B with headers), padding 17 B: a
    ///   Long padding BSR of 0 B; TTI 21: the eNodeB has the whole SDU;
    /// - extended, TTI 20: the 945-byte grant leaves 940 B of data after the
    ///   MAC and RLC headers (the Buffer Size counts no headers), no padding,
    ///   no BSR; TTI 21: all that was reported is granted, so the UE gets the
    ///   small grant (64 B) for TTI 25, where the last 5 B go with a Long
    ///   padding BSR of 0 B; TTI 26: the eNodeB has the whole SDU.
    #[test]
    fn sr_grant_transmission_timeline_of_one_packet() {
        let timeline = |table: BsrTable| {
            let mut lte = uplink(&LteConfig { bsr_table: table, ..LteConfig::fixed(Rate(10e6)) }, 1);
            let got = run(&mut lte, vec![(ms(2.5), 0, up(1, 1000))], ms(100.0));
            let s = lte.stats();
            let b = lte.bsr_summary();
            (
                got.iter().map(|(t, p)| (*t, p.uid)).collect::<Vec<_>>(),
                (s.ue.srs, s.ue.grants, s.ue.granted_bytes, s.ue.bsrs, s.ue.data_bytes),
                (b.reports, b.mean_reported_bytes),
            )
        };
        assert_eq!(timeline(BsrTable::Legacy), (vec![(ms(21.0), 1)], (1, 2, 64 + 967, 2, 1002), (2, 967.0 / 2.0)));
        assert_eq!(
            timeline(BsrTable::Extended),
            (vec![(ms(26.0), 1)], (1, 3, 64 + 945 + 64, 2, 1002), (2, 945.0 / 2.0))
        );
        // Exact bytes: the same 945 B as the extended table's edge.
        assert_eq!(timeline(BsrTable::Exact), timeline(BsrTable::Extended));
    }

    /// A 1 MB backlog: 700 packets of 1500 B (1 050 000 B) reach an idle UE at
    /// 2.5 ms; the SR grant at TTI 15 carries 57 B of the first 1502-byte PDCP
    /// PDU, so the first BSR counts 699 × 1500 B of queued IP packets and the
    /// PDU's 1445 B left: 1 049 945 B. The eNodeB has it at TTI 16. It reads 150 000 B from the
    /// legacy table (index 63), 1 067 031 B from the extended one (index 57:
    /// 867 737 < BS ≤ 1 067 031) and the bytes themselves when exact.
    #[test]
    fn a_1_mb_backlog_is_read_as_its_level() {
        let first_report = |table: BsrTable| {
            let mut lte = uplink(&LteConfig { bsr_table: table, ..LteConfig::fixed(Rate(10e6)) }, 1);
            let arrivals = (0..700).map(|k| (ms(2.5), 0, up(k, 1500))).collect();
            run(&mut lte, arrivals, ms(16.5));
            let b = lte.bsr_summary();
            (b.reports, b.mean_reported_bytes)
        };
        assert_eq!(first_report(BsrTable::Legacy), (1, 150_000.0));
        assert_eq!(first_report(BsrTable::Extended), (1, 1_067_031.0));
        assert_eq!(first_report(BsrTable::Exact), (1, 1_049_945.0));
    }

    /// A saturated UE at 10 Mb/s: every TTI from 10 ms on carries a 1250-byte
    /// block (SR at 0, a 64-byte grant at 5, the BSR read at 6). Per 1000 TTIs:
    /// 1 250 000 B less 3 B MAC + 2 B RLC headers per block and a 2-byte BSR
    /// every 20 ms leaves 1 244 900 B for SDUs and their length indicators
    /// (2 B where a 1502-byte SDU ends inside a block): 1 244 900 × 1502/1504
    /// stream bytes, 827.7 SDUs, 1 241 590 B of IP: 9.93 Mb/s of goodput.
    #[test]
    fn a_saturated_ue_gets_the_block_rate_less_headers() {
        let mut lte = uplink(&LteConfig::fixed(Rate(10e6)), 1);
        let arrivals = (0..3000).map(|k| (Time::ZERO, 0, up(k, 1500))).collect();
        let got = run(&mut lte, arrivals, ms(1100.0));
        let ip: u64 = got.iter().filter(|(t, _)| *t > ms(10.0) && *t <= ms(1010.0)).map(|(_, p)| p.size as u64).sum();
        assert!(ip.abs_diff(1_241_590) <= 1500, "{ip}");
        let s = lte.stats();
        assert_eq!(s.ue.granted_bytes, 64 + 1250 * (1100 - 10 + 1), "TTIs 10 to 1100 ms");
    }

    /// Round robin between two saturated UEs: equal shares of the cell.
    #[test]
    fn two_saturated_ues_share_the_cell() {
        let cfg = LteConfig { ues_per_tti: 1, ..LteConfig::fixed(Rate(10e6)) };
        let mut lte = uplink(&cfg, 2);
        let arrivals = (0..4000).map(|k| (Time::ZERO, (k % 2) as usize, up(k, 1500))).collect();
        let got = run(&mut lte, arrivals, ms(1000.0));
        let by = |u: u64| got.iter().filter(|(_, p)| p.uid % 2 == u).count() as i64;
        assert!((by(0) - by(1)).abs() <= 1, "{} {}", by(0), by(1));
        assert!(by(0) + by(1) > 800, "{}", by(0) + by(1));
    }

    /// HARQ at 30 %: every packet arrives once and in order, later than without errors.
    #[test]
    fn harq_errors_delay_but_deliver_everything_in_order() {
        let mut cfg = LteConfig::fixed(Rate(2e6));
        cfg.harq.bler = 0.3;
        let mut lte = uplink(&cfg, 1);
        let arrivals = (0..300).map(|k| (ms(k as f64 * 5.0), 0, up(k, 1500))).collect();
        let got = run(&mut lte, arrivals, ms(5000.0));
        assert_eq!(got.iter().map(|g| g.1.uid).collect::<Vec<_>>(), (0..300).collect::<Vec<_>>());
        let s = lte.stats();
        assert!(s.harq.retransmissions > 0 && s.harq.failed > 0, "{s:?}");
    }
}
