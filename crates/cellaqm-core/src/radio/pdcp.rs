//! The RNC's PDCP buffer of one radio bearer, managed by a queue discipline.
//!
//! Source: Lakkakorpi & Cuny, WCNC 2006. An IP packet stays in the PDCP buffer until the
//! RLC has its last PDU acknowledged (or gives it up), so the buffer's byte
//! count — what the limit, RED's thresholds and TTLRED1's oldest-packet
//! sojourn time look at — includes the data RLC has in flight
//! ([`BufferHolds::UntilAcknowledged`]). With [`BufferHolds::UntilSent`] a
//! packet leaves the discipline when the RLC takes it (the SDUs not yet sent,
//! TS 25.322's transmission buffer without its retransmission buffer): the
//! limit and the discipline then see the unsent packets only. The queue
//! discipline ([`AnyQueue`]) holds every packet; the PDCP copies packets to
//! the RLC in order, only when the RLC needs bytes for a transmission
//! opportunity (PDCP sequence numbers are given then, so drops before that
//! leave no gap), and tells the discipline which packets have PDUs in flight
//! ([`QueueDisc::mark_started`], for TTLRED2). When the RLC releases an SDU
//! the packet leaves the discipline through [`QueueDisc::dequeue`].
//!
//! A discipline that drops a packet the RLC already carries (drop-from-front)
//! cannot take back PDUs on the air: as TS 25.322 §11.3.4 and TS 36.323 §5.4
//! only discard SDUs with no segment sent, such a packet is *spared*: it leaves
//! the buffer's count but the RLC still delivers it. A discipline that decides
//! when a packet leaves its queue (CoDel, FQ-CoDel, DFF, PDCP discard, T-AQM)
//! has no such moment here — the packet leaves the discipline only when the RLC
//! releases it — so [`pdcp_discipline`] refuses them; they act at a link's
//! buffer, where leaving the queue is starting transmission.
//!
//! ECN marking instead of dropping (Lakkakorpi & Cuny, WCNC 2006: "an option for RED,
//! PDPC and TTLRED"; RFC 3168 §5: set CE in the IP header of an ECT packet)
//! must reach the copy the RLC sends, which the PDCP keeps apart from the
//! discipline's. The arrival-side schemes (RED, ARED, PDPC, TTLRED1) mark on
//! arrival the arriving packet (`drop = "tail"`) or the oldest queued one
//! (`"front"`, the arrival itself if the buffer is empty), one packet at most
//! per arrival ([`crate::queue::DropPosition`]); the PDCP sees a mark as a
//! step of the discipline's mark counter and sets CE on that packet's copy.
//! A packet the RLC already carries has sent its IP header in its first PDU:
//! its mark cannot take effect and it is spared like a drop. TTLRED2 marks
//! in its scan and the departure-side schemes at departure, where the PDCP
//! cannot tell which packets were marked: [`pdcp_discipline`] refuses their `ecn`.

use crate::packet::{Ecn, Packet};
use crate::queue::{AnyQueue, DropPosition, Dropped, QueueConfig, QueueCtx, QueueDisc};
use crate::rlc::{SduId, SduSource};
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How long a packet counts in the buffer (`radio.buffer_holds`): what its
/// limit, its discipline and ACK delay control see.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferHolds {
    /// From its arrival until the RLC has it acknowledged or gives it up
    /// (transmission and retransmission buffers together).
    #[default]
    UntilAcknowledged,
    /// From its arrival until the RLC takes it for its first PDU (the SDUs not yet sent).
    UntilSent,
}

impl BufferHolds {
    pub fn is_default(&self) -> bool {
        *self == BufferHolds::default()
    }
}

/// Counters of a PDCP buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdcpStats {
    /// Packets copied to the RLC.
    pub copied: u64,
    /// Packets the discipline dropped or ECN-marked while the RLC already
    /// carried them: delivered anyway, unmarked (see the module doc).
    pub spared: u64,
}

/// Checks that discipline `cfg` can manage a PDCP buffer (see the module doc)
/// and returns where its ECN marks fall: `None` without marking. The errors
/// name `key.scheme` for a scheme that decides when a packet leaves its queue,
/// and `key.ecn` for one that marks where the PDCP cannot follow.
pub fn pdcp_discipline(cfg: &QueueConfig, key: &str) -> Result<Option<DropPosition>, String> {
    let refuse = |ecn: bool, when: &str| match ecn {
        true => Err(format!(
            "{key}.ecn: not supported in the PDCP buffer ({when}, where the copy the RLC sends cannot follow)"
        )),
        false => Ok(None),
    };
    let at_departure = |name: &str| {
        Err(format!(
            "{key}.scheme: {name} decides when a packet leaves the queue, which a PDCP buffer has no moment for \
             (it keeps each packet until the RLC confirms it); use it at a link's buffer, or a scheme that decides on arrival"
        ))
    };
    match cfg {
        QueueConfig::Red(p) | QueueConfig::Ared(p) => Ok(p.ecn.then_some(p.drop)),
        QueueConfig::Pdpc(p) => Ok(p.ecn.then_some(p.drop)),
        QueueConfig::Ttlred1(p) => Ok(p.ecn.then_some(p.drop)),
        QueueConfig::Ttlred2(p) => refuse(p.ecn, "TTLRED2 marks in its scan"),
        QueueConfig::Pie(p) => refuse(p.ecn, "PIE marks by its own rule"),
        QueueConfig::TailDrop | QueueConfig::DropFront => Ok(None),
        QueueConfig::Codel(_) => at_departure("codel"),
        QueueConfig::FqCodel(_) => at_departure("fq_codel"),
        QueueConfig::Dff => at_departure("dff"),
        QueueConfig::PdcpDiscard(_) => at_departure("pdcp_discard"),
        QueueConfig::Taqm(_) => at_departure("taqm"),
    }
}

pub struct Pdcp {
    queue: AnyQueue,
    holds: BufferHolds,
    /// Where the discipline's ECN marks fall (`None`: it does not mark).
    marks: Option<DropPosition>,
    rate_bps: f64,
    /// Packets in the discipline not yet copied to RLC, in queue order.
    waiting: VecDeque<Packet>,
    /// Copied packets still in the discipline: (SDU id, packet uid), in order
    /// (none with [`BufferHolds::UntilSent`]).
    in_rlc: VecDeque<(SduId, u64)>,
    /// SDU ids whose packets the discipline already let go (spared).
    spared: Vec<SduId>,
    stats: PdcpStats,
}

impl Pdcp {
    /// A buffer managed by `queue`, whose ECN marks fall at `marks` (see
    /// [`pdcp_discipline`]), holding packets as `holds` says, first told the bearer rate `rate_bps`.
    pub fn new(queue: AnyQueue, marks: Option<DropPosition>, holds: BufferHolds, rate_bps: f64) -> Pdcp {
        Pdcp {
            queue,
            holds,
            marks,
            rate_bps,
            waiting: VecDeque::new(),
            in_rlc: VecDeque::new(),
            spared: Vec::new(),
            stats: PdcpStats::default(),
        }
    }

    /// The bearer rate the discipline is told (for HSDPA: from the credits granted).
    /// The discipline first catches up to `now` at the old rate ([`QueueDisc::on_timer`]).
    pub fn set_rate(&mut self, now: Time, bps: f64, dropped: &mut Vec<Dropped>) {
        if bps != self.rate_bps {
            self.on_timer(now, dropped);
            self.rate_bps = bps;
        }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    fn ctx(&self, now: Time) -> QueueCtx {
        QueueCtx { now, rate_bps: self.rate_bps }
    }

    /// Sorts the drops from `dropped[from..]`: a waiting packet is really
    /// dropped; one the RLC carries is spared (removed from `dropped`).
    fn settle(&mut self, from: usize, dropped: &mut Vec<Dropped>) {
        let mut i = from;
        while i < dropped.len() {
            let uid = dropped[i].pkt.uid;
            if let Some(k) = self.waiting.iter().rposition(|p| p.uid == uid) {
                self.waiting.remove(k);
                i += 1;
            } else if let Some(k) = self.in_rlc.iter().position(|&(_, u)| u == uid) {
                let (id, _) = self.in_rlc.remove(k).expect("found");
                self.spared.push(id);
                self.stats.spared += 1;
                dropped.remove(i);
            } else {
                debug_assert!(false, "the discipline dropped unknown packet {uid}");
                i += 1;
            }
        }
    }

    /// An IP packet arrives from the core network.
    pub fn arrive(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        let marked = self.queue.stats().marked;
        // The discipline's oldest packet: the first one in the RLC, else the first waiting.
        let head = self.in_rlc.front().map(|&(_, uid)| uid).or_else(|| self.waiting.front().map(|p| p.uid));
        self.waiting.push_back(pkt);
        let ctx = self.ctx(now);
        self.queue.enqueue(pkt, &ctx, dropped);
        if self.queue.stats().marked != marked {
            let target = match (self.marks, head) {
                (Some(DropPosition::Front), Some(head)) => head,
                _ => pkt.uid,
            };
            self.follow_mark(target);
        }
        self.settle(from, dropped);
    }

    /// The discipline marked packet `uid` CE: so is the copy the RLC will send,
    /// unless the RLC already carries the packet (spared, see the module doc).
    fn follow_mark(&mut self, uid: u64) {
        if let Some(p) = self.waiting.iter_mut().rev().find(|p| p.uid == uid) {
            debug_assert_eq!(p.ecn, Ecn::Ect, "only ECT packets are marked");
            p.ecn = Ecn::Ce;
        } else {
            debug_assert!(self.in_rlc.iter().any(|&(_, u)| u == uid), "the discipline marked unknown packet {uid}");
            self.stats.spared += 1;
        }
    }

    /// A timer of the discipline fired.
    pub fn on_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
        self.settle(from, dropped);
    }

    pub fn next_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// Whether a packet waits to be copied to the RLC.
    pub fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Bytes waiting to be copied to the RLC.
    pub fn waiting_bytes(&self) -> u64 {
        self.waiting.iter().map(|p| p.size as u64).sum()
    }

    /// Copies the next waiting packet to the RLC as SDU `id` at `now`.
    pub fn copy_to_rlc(&mut self, now: Time, id: SduId) -> Option<Packet> {
        let pkt = self.waiting.pop_front()?;
        self.stats.copied += 1;
        match self.holds {
            BufferHolds::UntilAcknowledged => {
                self.queue.mark_started(pkt.uid);
                self.in_rlc.push_back((id, pkt.uid));
            }
            BufferHolds::UntilSent => {
                // It leaves the discipline now; the disciplines a PDCP takes drop on arrival or in
                // their timers only (see `pdcp_discipline`), never here.
                let mut none = Vec::new();
                let left = self.queue.dequeue(&self.ctx(now), &mut none);
                debug_assert!(left.is_some_and(|p| p.uid == pkt.uid) && none.is_empty(), "head {left:?}");
            }
        }
        Some(pkt)
    }

    /// SDU `id` is done with (the RLC confirmed or discarded it, or with
    /// `pdcp_release = "sent"` its last PDU went out): its packet leaves the
    /// buffer (if it is still counted). Releases come in SDU order; a second
    /// release of an SDU (the RLC confirming one already sent) does nothing.
    pub fn release(&mut self, now: Time, id: SduId, dropped: &mut Vec<Dropped>) {
        if self.holds == BufferHolds::UntilSent {
            return; // it left when the RLC took it
        }
        if let Some(k) = self.spared.iter().position(|&s| s == id) {
            self.spared.swap_remove(k);
            return;
        }
        if self.in_rlc.front().is_none_or(|&(sid, _)| id < sid) {
            return; // released before
        }
        let ctx = self.ctx(now);
        // Releases come in SDU order, which is queue order: the head is the packet.
        while let Some(&(sid, uid)) = self.in_rlc.front() {
            let from = dropped.len();
            let got = self.queue.dequeue(&ctx, dropped);
            self.settle(from, dropped);
            match got {
                Some(p) if p.uid == uid => {
                    self.in_rlc.pop_front();
                    debug_assert_eq!(sid, id, "RLC releases in SDU order");
                    return;
                }
                Some(p) => {
                    debug_assert!(false, "PDCP released packet {} out of order (expected {uid})", p.uid);
                    return;
                }
                None if self.in_rlc.front().map(|f| f.0) != Some(sid) => continue, // spared meanwhile
                None => {
                    debug_assert!(false, "PDCP buffer empty while the RLC holds SDU {id}");
                    return;
                }
            }
        }
    }

    /// Bytes in the buffer (waiting and in the RLC).
    pub fn bytes(&self) -> u64 {
        self.queue.bytes()
    }

    pub fn packets(&self) -> usize {
        self.queue.packets()
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    pub fn stats(&self) -> PdcpStats {
        self.stats
    }
}

/// Packets the RLC carries, by SDU id, until the receiving end delivers or discards them.
#[derive(Debug, Default)]
pub struct SduStore {
    base: SduId,
    slots: VecDeque<Option<Packet>>,
}

impl SduStore {
    pub fn insert(&mut self, id: SduId, pkt: Packet) {
        debug_assert_eq!(id, self.base + self.slots.len() as u64, "SDU ids are consecutive");
        self.slots.push_back(Some(pkt));
    }

    /// Takes SDU `id`'s packet out (once).
    pub fn take(&mut self, id: SduId) -> Option<Packet> {
        let pkt = self.slots.get_mut(id.checked_sub(self.base)? as usize)?.take();
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        pkt
    }

    /// Bytes of the packets held.
    pub fn bytes(&self) -> u64 {
        self.slots.iter().flatten().map(|p| p.size as u64).sum()
    }
}

/// The RLC's view of the PDCP buffer at `now`: copying a packet records it in the store.
pub struct Feed<'a> {
    pub now: Time,
    pub pdcp: &'a mut Pdcp,
    pub store: &'a mut SduStore,
}

impl SduSource for Feed<'_> {
    fn next_sdu(&mut self, id: SduId) -> Option<u32> {
        let pkt = self.pdcp.copy_to_rlc(self.now, id)?;
        self.store.insert(id, pkt);
        Some(pkt.size)
    }
    fn has_sdu(&self) -> bool {
        self.pdcp.has_waiting()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Dir, TcpHeader};
    use crate::queue::{DropCause, Limits, PdpcParams, QueueConfig, Thresholds, Ttlred2Params};
    use crate::rng::stream;
    use crate::time::Dur;

    fn pkt(uid: u64, size: u32) -> Packet {
        let mut p = Packet::tcp(0, Dir::Down, size, TcpHeader { len: (size - 60) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn ect(uid: u64, size: u32) -> Packet {
        Packet { ecn: Ecn::Ect, ..pkt(uid, size) }
    }

    /// PDPC with ECN on packet thresholds minTh 1, maxTh 2: an arrival to one
    /// queued packet is signalled (counter 0), and every arrival from two on.
    fn pdpc_ecn(drop: DropPosition) -> Pdcp {
        let params = PdpcParams { thresholds: Thresholds::packets(1, 2), counter: 20, drop, ecn: true };
        let cfg = QueueConfig::Pdpc(params);
        let marks = pdcp_discipline(&cfg, "radio.queue").unwrap();
        assert_eq!(marks, Some(drop));
        Pdcp::new(cfg.build(Limits::default(), stream(1, "q")), marks, BufferHolds::default(), 384e3)
    }

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn tail_drop(bytes: u64) -> Pdcp {
        let q = QueueConfig::TailDrop.build(Limits { bytes: Some(bytes), packets: None }, stream(1, "q"));
        Pdcp::new(q, None, BufferHolds::default(), 384e3)
    }

    #[test]
    fn packets_count_against_the_limit_until_the_rlc_releases_them() {
        let mut p = tail_drop(3000);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), pkt(1, 1500), &mut dropped);
        p.arrive(ms(1), pkt(2, 1500), &mut dropped);
        // Both copied to RLC: still in the buffer.
        let mut feed = Feed { now: ms(0), pdcp: &mut p, store: &mut store };
        assert_eq!(feed.next_sdu(0), Some(1500));
        assert_eq!(feed.next_sdu(1), Some(1500));
        assert_eq!(feed.next_sdu(2), None);
        assert_eq!((p.bytes(), p.has_waiting()), (3000, false));
        p.arrive(ms(2), pkt(3, 1500), &mut dropped);
        assert_eq!(dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(3, DropCause::Overflow)]);
        // The RLC confirms SDU 0: room for one more.
        p.release(ms(3), 0, &mut dropped);
        assert_eq!(p.bytes(), 1500);
        p.arrive(ms(4), pkt(4, 1500), &mut dropped);
        assert_eq!((dropped.len(), p.bytes(), p.packets()), (1, 3000, 2));
        assert_eq!(store.take(1).map(|p| p.uid), Some(2));
        assert_eq!(store.take(1), None);
    }

    #[test]
    fn until_sent_a_packet_leaves_the_count_when_the_rlc_takes_it() {
        // The same arrivals as above with a 3000-byte limit: until acknowledged the third packet
        // overflows; until sent there is room for it as soon as the RLC took the first two.
        let run = |holds: BufferHolds| {
            let q = QueueConfig::TailDrop.build(Limits { bytes: Some(3000), packets: None }, stream(1, "q"));
            let mut p = Pdcp::new(q, None, holds, 384e3);
            let mut store = SduStore::default();
            let mut dropped = Vec::new();
            p.arrive(ms(0), pkt(1, 1500), &mut dropped);
            p.arrive(ms(1), pkt(2, 1500), &mut dropped);
            let mut feed = Feed { now: ms(1), pdcp: &mut p, store: &mut store };
            assert_eq!((feed.next_sdu(0), feed.next_sdu(1)), (Some(1500), Some(1500)));
            p.arrive(ms(2), pkt(3, 1500), &mut dropped);
            p.arrive(ms(3), pkt(4, 1500), &mut dropped);
            let counted = (p.bytes(), p.packets());
            p.release(ms(4), 0, &mut dropped);
            p.release(ms(5), 1, &mut dropped);
            (dropped.iter().map(|d| d.pkt.uid).collect::<Vec<_>>(), counted, (p.bytes(), p.packets()))
        };
        assert_eq!(run(BufferHolds::UntilAcknowledged), (vec![3, 4], (3000, 2), (0, 0)));
        assert_eq!(run(BufferHolds::UntilSent), (vec![], (3000, 2), (3000, 2)));
    }

    #[test]
    fn ttlred2_drops_only_packets_the_rlc_has_not_started() {
        let params = Ttlred2Params {
            low_th: Dur::from_millis(50),
            high_th: Dur::from_millis(100),
            max_p: 1.0,
            ..Ttlred2Params::default()
        };
        let q = QueueConfig::Ttlred2(params).build(Limits::default(), stream(2, "q"));
        let mut p = Pdcp::new(q, None, BufferHolds::default(), 64e3);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        for uid in 1..=3 {
            p.arrive(ms(uid), pkt(uid, 1000), &mut dropped);
        }
        // Packet 1 (the first, lifetime 100 ms) and 2 (50 ms) go to RLC; 3 (50 ms) waits.
        let mut feed = Feed { now: ms(0), pdcp: &mut p, store: &mut store };
        feed.next_sdu(0);
        feed.next_sdu(1);
        let mut t = ms(10);
        while t <= ms(200) {
            p.on_timer(t, &mut dropped);
            t += Dur::from_millis(10);
        }
        assert_eq!(dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(3, DropCause::Expired)]);
        assert_eq!(p.packets(), 2);
        p.release(ms(201), 0, &mut dropped);
        p.release(ms(202), 1, &mut dropped);
        assert_eq!(p.packets(), 0);
    }

    #[test]
    fn a_front_drop_of_a_packet_in_the_rlc_spares_it() {
        let q = QueueConfig::DropFront.build(Limits { bytes: Some(2000), packets: None }, stream(1, "q"));
        let mut p = Pdcp::new(q, None, BufferHolds::default(), 64e3);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), pkt(1, 1000), &mut dropped);
        p.arrive(ms(1), pkt(2, 1000), &mut dropped);
        Feed { now: ms(0), pdcp: &mut p, store: &mut store }.next_sdu(0);
        // 3 overflows: drop-front picks 1, which the RLC carries: spared, not reported.
        p.arrive(ms(2), pkt(3, 1000), &mut dropped);
        assert!(dropped.is_empty());
        assert_eq!((p.stats().spared, p.packets()), (1, 2));
        // A second overflow drops 2 (waiting): reported.
        p.arrive(ms(3), pkt(4, 1000), &mut dropped);
        assert_eq!(dropped.iter().map(|d| d.pkt.uid).collect::<Vec<_>>(), vec![2]);
        // The release of SDU 0 (packet 1) finds it already gone.
        p.release(ms(4), 0, &mut dropped);
        assert_eq!(p.packets(), 2);
        assert_eq!(Feed { now: ms(0), pdcp: &mut p, store: &mut store }.next_sdu(1), Some(1000));
        p.release(ms(5), 1, &mut dropped);
        assert_eq!(p.packets(), 1);
    }

    #[test]
    fn a_tail_mark_reaches_the_copy_the_rlc_sends() {
        let mut p = pdpc_ecn(DropPosition::Tail);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), ect(1, 1000), &mut dropped); // empty: accepted
        p.arrive(ms(1), ect(2, 1000), &mut dropped); // one queued: marked CE, kept
        p.arrive(ms(2), pkt(3, 1000), &mut dropped); // two queued, not ECT: dropped early
        assert_eq!(dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(3, DropCause::Early)]);
        assert_eq!(p.queue().stats().marked, 1);
        let mut feed = Feed { now: ms(0), pdcp: &mut p, store: &mut store };
        feed.next_sdu(0);
        feed.next_sdu(1);
        assert_eq!([0, 1].map(|id| store.take(id).unwrap().ecn), [Ecn::Ect, Ecn::Ce]);
        assert_eq!(p.stats().spared, 0);
    }

    #[test]
    fn a_front_mark_falls_on_the_oldest_packet_unless_the_rlc_carries_it() {
        let mut p = pdpc_ecn(DropPosition::Front);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), ect(1, 1000), &mut dropped);
        p.arrive(ms(1), ect(2, 1000), &mut dropped); // the head, 1, is marked
        Feed { now: ms(0), pdcp: &mut p, store: &mut store }.next_sdu(0);
        // 1 is in the RLC now: the next mark, on 1 again, is impossible (1 is CE, not ECT):
        // the discipline drops it instead, and as the RLC carries it, it is spared.
        p.arrive(ms(2), ect(3, 1000), &mut dropped);
        assert!(dropped.is_empty());
        assert_eq!((p.queue().stats().marked, p.stats().spared), (1, 1));
        Feed { now: ms(0), pdcp: &mut p, store: &mut store }.next_sdu(1);
        assert_eq!([0, 1].map(|id| store.take(id).unwrap().ecn), [Ecn::Ce, Ecn::Ect]);
        // A mark on a packet the RLC already carries cannot reach it: spared too.
        let mut p = pdpc_ecn(DropPosition::Front);
        let mut store = SduStore::default();
        p.arrive(ms(0), ect(1, 1000), &mut dropped);
        Feed { now: ms(0), pdcp: &mut p, store: &mut store }.next_sdu(0);
        p.arrive(ms(1), ect(2, 1000), &mut dropped);
        assert!(dropped.is_empty());
        assert_eq!((p.queue().stats().marked, p.stats().spared), (1, 1));
        assert_eq!(store.take(0).unwrap().ecn, Ecn::Ect);
    }

    #[test]
    fn ecn_is_refused_where_the_pdcp_cannot_follow_the_marks() {
        let ttlred2 = QueueConfig::Ttlred2(Ttlred2Params { ecn: true, ..Ttlred2Params::default() });
        assert!(pdcp_discipline(&ttlred2, "radio.queue")
            .unwrap_err()
            .starts_with("radio.queue.ecn: not supported in the PDCP buffer"));
        assert_eq!(pdcp_discipline(&QueueConfig::Ttlred2(Ttlred2Params::default()), "radio.queue"), Ok(None));
        assert_eq!(pdcp_discipline(&QueueConfig::TailDrop, "radio.queue"), Ok(None));
        let codel = pdcp_discipline(&QueueConfig::Codel(Default::default()), "radio.queue").unwrap_err();
        assert!(codel.starts_with("radio.queue.scheme: codel decides when a packet leaves the queue"), "{codel}");
    }
}
