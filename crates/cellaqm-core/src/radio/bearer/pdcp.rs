//! The RNC's PDCP buffer of one radio bearer, managed by a queue discipline.
//!
//! Source: Lakkakorpi & Cuny, WCNC 2006. An IP packet stays in the PDCP buffer until the
//! RLC has its last PDU acknowledged (or gives it up), so the buffer's byte
//! count — what the limit, RED's thresholds and TTLRED1's oldest-packet
//! sojourn time look at — includes the data RLC has in flight
//! ([`BufferHolds::UntilAcknowledged`]). With [`BufferHolds::UntilSent`] a
//! packet leaves the buffer when the RLC takes it (the SDUs not yet sent,
//! TS 25.322's transmission buffer without its retransmission buffer). The
//! PDCP copies packets to the RLC in order, only when the RLC needs bytes for
//! a transmission opportunity (PDCP sequence numbers are given then, so drops
//! before that leave no gap): that moment is the packet's *hand-over*. With
//! [`BufferHolds::UntilFullySent`] (the HS-DSCH study: "only a little data
//! is between the managed queue and the air interface"; n counts every packet
//! not yet fully handed to the radio) the bearer releases an SDU already when
//! its last PDU is first sent; the RLC's own release of it later (or again,
//! after a retransmission of that PDU) finds it gone and does nothing.
//!
//! Where a packet leaves the discipline depends on the scheme
//! ([`pdcp_discipline`]):
//! - an *arrival-side* scheme (tail drop, drop-front, RED, ARED, PDPC,
//!   TTLRED1, TTLRED2: the schemes of the WCDMA, HS-DSCH and RLC studies)
//!   keeps every packet as long as the buffer counts it: with
//!   [`BufferHolds::UntilAcknowledged`] until the RLC releases it
//!   ([`QueueDisc::dequeue`] then), its queue holding the packets the RLC
//!   carries ahead of the waiting ones; the PDCP tells it which packets have
//!   PDUs in flight ([`QueueDisc::mark_started`], for TTLRED2);
//! - a *hand-over* scheme, one whose rule reads a packet's departure (CoDel,
//!   RFC 8289, and FQ-CoDel, RFC 8290, on its sojourn time; DFF, PDCP discard
//!   and T-AQM as the LTE uplink study defines them, on the outgoing packet)
//!   or the delay of its queue to it (PIE, RFC 8033), decides at the
//!   hand-over: the RLC's taking a packet is the discipline's departure
//!   ([`QueueDisc::dequeue`]), as for a Linux qdisc above a device queue or
//!   the PDCP discard timer of an eNodeB. Its queue is the packets waiting
//!   for the RLC: what it drops there never reached the RLC. With
//!   [`BufferHolds::UntilAcknowledged`] the packets the RLC carries still take
//!   room in the buffer: the PDCP tells the discipline of them
//!   ([`QueueDisc::carry`]) and the limits count them, as DFF's does; the
//!   schemes' own rules (sojourn times, PIE's queue delay, T-AQM's queue
//!   size) read their queue alone. Every scheme with
//!   [`BufferHolds::UntilSent`] works this way too (what the buffer counts is
//!   then the discipline's queue).
//!
//! An arrival-side discipline that drops a packet the RLC already carries
//! (drop-from-front) cannot take back PDUs on the air: as TS 25.322 §11.3.4
//! and TS 36.323 §5.4 only discard SDUs with no segment sent, such a packet
//! is *spared*: it leaves the buffer's count but the RLC still delivers it.
//! A hand-over scheme never sees the packets the RLC carries.
//!
//! ECN marking instead of dropping (Lakkakorpi & Cuny, WCNC 2006: "an option for RED,
//! PDPC and TTLRED"; RFC 3168 §5: set CE in the IP header of an ECT packet)
//! must reach the copy the RLC sends. A hand-over discipline hands the RLC
//! its own packet, marks included: CoDel and FQ-CoDel mark at departure, PIE
//! on arrival, each by its RFC. An arrival-side one keeps its copy apart
//! from the RLC's while the buffer counts the packet until acknowledged:
//! RED, ARED, PDPC and TTLRED1 mark on arrival the arriving packet
//! (`drop = "tail"`) or the oldest queued one (`"front"`, the arrival itself
//! if the buffer is empty), one packet at most per arrival
//! ([`crate::queue::DropPosition`]); the PDCP sees a mark as a step of the
//! discipline's mark counter and sets CE on that packet's copy. A packet the
//! RLC already carries has sent its IP header in its first PDU: its mark
//! cannot take effect and it is spared like a drop. TTLRED2 marks in its
//! scan, where the PDCP cannot tell which packet was marked:
//! [`pdcp_discipline`] refuses its `ecn`.

use crate::bsr::HeadOfLine;
use crate::packet::{Ecn, Packet};
use crate::queue::{AnyQueue, Backlog, DropPosition, Dropped, QueueConfig, QueueCtx, QueueDisc};
use crate::rlc::{SduId, SduSource};
use crate::storage::ShrinkEmpty;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How long a packet counts in the buffer (`radio.buffer_holds`): what its
/// limit and ACK delay control see, and an arrival-side discipline's rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferHolds {
    /// From its arrival until the RLC has it acknowledged or gives it up
    /// (transmission and retransmission buffers together).
    #[default]
    UntilAcknowledged,
    /// From its arrival until the RLC takes it for its first PDU (the SDUs not yet sent).
    UntilSent,
    /// From its arrival until its last PDU is first sent (every packet not yet
    /// fully handed to the radio, a partly sent one included: the HS-DSCH study).
    /// The bearer releases it then ([`Pdcp::release`]).
    UntilFullySent,
}

impl BufferHolds {
    pub fn is_default(&self) -> bool {
        *self == BufferHolds::default()
    }
}

/// How a scheme manages a PDCP buffer (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdcpDiscipline {
    /// It decides on arrival (or in its scan) and keeps each packet as long as
    /// the buffer counts it; its ECN marks fall at `marks` (`None`: it does not mark).
    Arrival { marks: Option<DropPosition> },
    /// It decides when the RLC takes a packet (the hand-over), which is its departure.
    HandOver,
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

/// Checks that discipline `cfg` can manage a PDCP buffer and says how it does
/// (see the module doc). The error names `key.ecn` for a scheme that marks
/// where the PDCP cannot follow.
pub fn pdcp_discipline(cfg: &QueueConfig, key: &str) -> Result<PdcpDiscipline, String> {
    let arrival = |marks| Ok(PdcpDiscipline::Arrival { marks });
    match cfg {
        QueueConfig::Red(p) | QueueConfig::Ared(p) => arrival(p.ecn.then_some(p.drop)),
        QueueConfig::Pdpc(p) => arrival(p.ecn.then_some(p.drop)),
        QueueConfig::Ttlred1(p) => arrival(p.ecn.then_some(p.drop)),
        QueueConfig::Ttlred2(p) if p.ecn => Err(format!(
            "{key}.ecn: not supported in the PDCP buffer (TTLRED2 marks in its scan, where the copy the RLC \
             sends cannot follow)"
        )),
        QueueConfig::Ttlred2(_) | QueueConfig::TailDrop | QueueConfig::DropFront => arrival(None),
        QueueConfig::Codel(_)
        | QueueConfig::Pie(_)
        | QueueConfig::FqCodel(_)
        | QueueConfig::Dff
        | QueueConfig::PdcpDiscard(_)
        | QueueConfig::Taqm(_) => Ok(PdcpDiscipline::HandOver),
    }
}

/// The discipline keeps every packet until the RLC releases it (an
/// arrival-side scheme, [`BufferHolds::UntilAcknowledged`]).
struct UntilReleased {
    /// Where the discipline's ECN marks fall (`None`: it does not mark).
    marks: Option<DropPosition>,
    /// Packets in the discipline not yet copied to RLC, in queue order.
    waiting: VecDeque<Packet>,
    /// Copied packets still in the discipline: (SDU id, packet uid), in order.
    in_rlc: VecDeque<(SduId, u64)>,
    /// SDU ids whose packets the discipline already let go (spared).
    spared: Vec<SduId>,
}

/// The discipline lets each packet go when the RLC takes it (a hand-over
/// scheme, or any scheme with [`BufferHolds::UntilSent`]).
struct UntilHandOver {
    /// Packets the RLC carries that still count in the buffer, in SDU order:
    /// (SDU id, size); always empty with [`BufferHolds::UntilSent`].
    carried: VecDeque<(SduId, u32)>,
    /// Whether the buffer counts them ([`BufferHolds::UntilAcknowledged`]).
    counts_carried: bool,
    /// Their bytes and packets, as the discipline was last told.
    carried_backlog: Backlog,
    /// Packets the discipline dropped at hand-overs, until the bearer collects them ([`Pdcp::take_dropped`]).
    dropped: Vec<Dropped>,
}

/// How long the discipline keeps a packet the RLC has taken.
enum Keep {
    UntilReleased(UntilReleased),
    UntilHandOver(UntilHandOver),
}

pub struct Pdcp {
    queue: AnyQueue,
    rate_bps: f64,
    keep: Keep,
    /// The packets waiting to be copied to the RLC, with when each arrived.
    waiting_since: HeadOfLine,
    stats: PdcpStats,
}

impl Pdcp {
    /// A buffer managed by `queue`, a `discipline` as [`pdcp_discipline`] says,
    /// holding packets as `holds` says, first told the bearer rate `rate_bps`.
    pub fn new(queue: AnyQueue, discipline: PdcpDiscipline, holds: BufferHolds, rate_bps: f64) -> Pdcp {
        let keep = match (discipline, holds) {
            (PdcpDiscipline::Arrival { marks }, BufferHolds::UntilAcknowledged | BufferHolds::UntilFullySent) => {
                Keep::UntilReleased(UntilReleased {
                    marks,
                    waiting: VecDeque::new(),
                    in_rlc: VecDeque::new(),
                    spared: Vec::new(),
                })
            }
            _ => Keep::UntilHandOver(UntilHandOver {
                carried: VecDeque::new(),
                counts_carried: holds != BufferHolds::UntilSent,
                carried_backlog: Backlog::default(),
                dropped: Vec::new(),
            }),
        };
        Pdcp { queue, rate_bps, keep, waiting_since: HeadOfLine::default(), stats: PdcpStats::default() }
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

    /// An IP packet arrives from the core network.
    pub fn arrive(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        self.waiting_since.entered(pkt.uid, now);
        self.admit(now, pkt, dropped);
        self.waiting_since.dropped(&dropped[from..]);
    }

    /// The discipline decides on the arrival `pkt`.
    fn admit(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) {
        let ctx = self.ctx(now);
        let Keep::UntilReleased(r) = &mut self.keep else {
            return self.queue.enqueue(pkt, &ctx, dropped);
        };
        let from = dropped.len();
        let marked = self.queue.stats().marked;
        // The discipline's oldest packet: the first one in the RLC, else the first waiting.
        let head = r.in_rlc.front().map(|&(_, uid)| uid).or_else(|| r.waiting.front().map(|p| p.uid));
        r.waiting.push_back(pkt);
        self.queue.enqueue(pkt, &ctx, dropped);
        if self.queue.stats().marked != marked {
            let target = match (r.marks, head) {
                (Some(DropPosition::Front), Some(head)) => head,
                _ => pkt.uid,
            };
            r.follow_mark(target, &mut self.stats);
        }
        r.settle(from, dropped, &mut self.stats);
    }

    /// A timer of the discipline fired.
    pub fn on_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
        if let Keep::UntilReleased(r) = &mut self.keep {
            r.settle(from, dropped, &mut self.stats);
        }
        self.waiting_since.dropped(&dropped[from..]);
    }

    pub fn next_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// Whether a packet waits to be copied to the RLC. With a hand-over
    /// discipline the packet may still be dropped when the RLC asks for it
    /// ([`Pdcp::copy_to_rlc`] then gives none).
    pub fn has_waiting(&self) -> bool {
        match &self.keep {
            Keep::UntilReleased(r) => !r.waiting.is_empty(),
            Keep::UntilHandOver(_) => self.queue.packets() > 0,
        }
    }

    /// Bytes waiting to be copied to the RLC.
    pub fn waiting_bytes(&self) -> u64 {
        match &self.keep {
            Keep::UntilReleased(r) => r.waiting.iter().map(|p| p.size as u64).sum(),
            Keep::UntilHandOver(_) => self.queue.bytes(),
        }
    }

    /// Copies the next waiting packet to the RLC as SDU `id` at `now` (its
    /// hand-over); a hand-over discipline decides on it, and on the packets
    /// behind it if it drops it, first (their drops wait for [`Pdcp::take_dropped`]).
    pub fn copy_to_rlc(&mut self, now: Time, id: SduId) -> Option<Packet> {
        let ctx = self.ctx(now);
        let pkt = match &mut self.keep {
            Keep::UntilReleased(r) => {
                let pkt = r.waiting.pop_front()?;
                self.queue.mark_started(pkt.uid);
                r.in_rlc.push_back((id, pkt.uid));
                pkt
            }
            Keep::UntilHandOver(h) => {
                let from = h.dropped.len();
                let got = self.queue.dequeue(&ctx, &mut h.dropped);
                self.waiting_since.dropped(&h.dropped[from..]);
                let pkt = got?;
                if h.counts_carried {
                    h.carried.push_back((id, pkt.size));
                    h.carried_backlog.bytes += pkt.size as u64;
                    h.carried_backlog.packets += 1;
                    self.queue.carry(h.carried_backlog);
                }
                pkt
            }
        };
        self.waiting_since.left(pkt.uid);
        self.stats.copied += 1;
        Some(pkt)
    }

    /// Moves the packets a hand-over discipline dropped at hand-overs to `dropped`.
    pub fn take_dropped(&mut self, dropped: &mut Vec<Dropped>) {
        if let Keep::UntilHandOver(h) = &mut self.keep {
            dropped.append(&mut h.dropped);
        }
    }

    /// The RLC confirmed or discarded SDU `id`: its packet leaves the buffer (if it is still counted).
    pub fn release(&mut self, now: Time, id: SduId, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        let ctx = self.ctx(now);
        match &mut self.keep {
            Keep::UntilHandOver(h) => {
                // Releases come in SDU order, which is hand-over order: the first carried is the
                // packet, unless it was released before (`until_fully_sent`: the RLC confirming it).
                debug_assert!(h.carried.front().is_none_or(|&(sid, _)| id <= sid), "releases in SDU order");
                if let Some(&(_, size)) = h.carried.front().filter(|&&(sid, _)| sid == id) {
                    h.carried.pop_front();
                    h.carried_backlog.bytes -= size as u64;
                    h.carried_backlog.packets -= 1;
                    self.queue.carry(h.carried_backlog);
                }
            }
            Keep::UntilReleased(r) => r.release(&mut self.queue, &ctx, id, dropped, &mut self.stats),
        }
        self.waiting_since.dropped(&dropped[from..]);
    }

    /// Gives back the storage of its head-of-line bookkeeping, its
    /// discipline's packets and its lists of the packets the RLC has, each
    /// if it holds nothing.
    pub fn shrink_empty(&mut self) {
        self.waiting_since.shrink_empty();
        self.queue.shrink_empty();
        match &mut self.keep {
            Keep::UntilReleased(r) => {
                r.waiting.shrink_empty();
                r.in_rlc.shrink_empty();
                r.spared.shrink_empty();
            }
            Keep::UntilHandOver(h) => {
                h.carried.shrink_empty();
                h.dropped.shrink_empty();
            }
        }
    }

    /// How long the oldest packet waiting to be copied to the RLC has waited at `now` (zero: none waits).
    pub fn head_of_line_delay(&self, now: Time) -> Dur {
        self.waiting_since.delay(now)
    }

    /// Bytes in the buffer (waiting, and carried by the RLC while it counts them).
    pub fn bytes(&self) -> u64 {
        self.queue.bytes() + self.carried().bytes
    }

    pub fn packets(&self) -> usize {
        self.queue.packets() + self.carried().packets
    }

    /// What a hand-over discipline's buffer counts beside its queue.
    fn carried(&self) -> Backlog {
        match &self.keep {
            Keep::UntilHandOver(h) => h.carried_backlog,
            Keep::UntilReleased(_) => Backlog::default(),
        }
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    pub fn stats(&self) -> PdcpStats {
        self.stats
    }
}

impl UntilReleased {
    /// Sorts the drops from `dropped[from..]`: a waiting packet is really
    /// dropped; one the RLC carries is spared (removed from `dropped`).
    fn settle(&mut self, from: usize, dropped: &mut Vec<Dropped>, stats: &mut PdcpStats) {
        let mut i = from;
        while i < dropped.len() {
            let uid = dropped[i].pkt.uid;
            if let Some(k) = self.waiting.iter().rposition(|p| p.uid == uid) {
                self.waiting.remove(k);
                i += 1;
            } else if let Some(k) = self.in_rlc.iter().position(|&(_, u)| u == uid) {
                let (id, _) = self.in_rlc.remove(k).expect("found");
                self.spared.push(id);
                stats.spared += 1;
                dropped.remove(i);
            } else {
                debug_assert!(false, "the discipline dropped unknown packet {uid}");
                i += 1;
            }
        }
    }

    /// The discipline marked packet `uid` CE: so is the copy the RLC will send,
    /// unless the RLC already carries the packet (spared, see the module doc).
    fn follow_mark(&mut self, uid: u64, stats: &mut PdcpStats) {
        if let Some(p) = self.waiting.iter_mut().rev().find(|p| p.uid == uid) {
            debug_assert_eq!(p.ecn, Ecn::Ect, "only ECT packets are marked");
            p.ecn = Ecn::Ce;
        } else {
            debug_assert!(self.in_rlc.iter().any(|&(_, u)| u == uid), "the discipline marked unknown packet {uid}");
            stats.spared += 1;
        }
    }

    /// SDU `id` leaves the discipline: its packet is the head (releases come in
    /// SDU order, which is queue order), unless it was spared.
    fn release(
        &mut self,
        queue: &mut AnyQueue,
        ctx: &QueueCtx,
        id: SduId,
        dropped: &mut Vec<Dropped>,
        stats: &mut PdcpStats,
    ) {
        if let Some(k) = self.spared.iter().position(|&s| s == id) {
            self.spared.swap_remove(k);
            return;
        }
        if self.in_rlc.front().is_none_or(|&(sid, _)| id < sid) {
            return; // released before
        }
        while let Some(&(sid, uid)) = self.in_rlc.front() {
            let from = dropped.len();
            let got = queue.dequeue(ctx, dropped);
            self.settle(from, dropped, stats);
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

    /// Gives back its storage if it holds nothing.
    pub fn shrink_empty(&mut self) {
        self.slots.shrink_empty();
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
    use crate::queue::{
        CodelParams, DropCause, FqCodelParams, Limits, PdcpDiscardParams, PdpcParams, PieParams, QueueConfig,
        TaqmParams, Thresholds, Ttlred2Params,
    };
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
        let discipline = pdcp_discipline(&cfg, "radio.queue").unwrap();
        assert_eq!(discipline, PdcpDiscipline::Arrival { marks: Some(drop) });
        Pdcp::new(cfg.build(Limits::default(), stream(1, "q")), discipline, BufferHolds::default(), 384e3)
    }

    /// An arrival-side discipline that does not mark.
    const ARRIVAL: PdcpDiscipline = PdcpDiscipline::Arrival { marks: None };

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn tail_drop(bytes: u64) -> Pdcp {
        let q = QueueConfig::TailDrop.build(Limits { bytes: Some(bytes), packets: None }, stream(1, "q"));
        Pdcp::new(q, ARRIVAL, BufferHolds::default(), 384e3)
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
            let mut p = Pdcp::new(q, ARRIVAL, holds, 384e3);
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
        let mut p = Pdcp::new(q, ARRIVAL, BufferHolds::default(), 64e3);
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
        let mut p = Pdcp::new(q, ARRIVAL, BufferHolds::default(), 64e3);
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
        assert_eq!(pdcp_discipline(&QueueConfig::Ttlred2(Ttlred2Params::default()), "radio.queue"), Ok(ARRIVAL));
        assert_eq!(pdcp_discipline(&QueueConfig::TailDrop, "radio.queue"), Ok(ARRIVAL));
    }

    #[test]
    fn departure_side_schemes_decide_at_the_hand_over() {
        let ecn = CodelParams { ecn: true, ..CodelParams::default() };
        for cfg in [
            QueueConfig::Codel(ecn),
            QueueConfig::Pie(PieParams { ecn: true, ..PieParams::default() }),
            QueueConfig::FqCodel(FqCodelParams { ecn: true, ..FqCodelParams::default() }),
            QueueConfig::Dff,
            QueueConfig::PdcpDiscard(PdcpDiscardParams::default()),
            QueueConfig::Taqm(TaqmParams::default()),
        ] {
            assert_eq!(pdcp_discipline(&cfg, "radio.queue"), Ok(PdcpDiscipline::HandOver), "{cfg:?}");
        }
    }

    /// A PDCP buffer managed by a hand-over scheme, holding packets until
    /// acknowledged, with the RLC's store it hands them to and the packets
    /// dropped on arrival and release.
    struct HandOver {
        p: Pdcp,
        store: SduStore,
        dropped: Vec<Dropped>,
    }

    /// What a hand-over gave: the packet the RLC got (uid, CE) and the packets
    /// the discipline dropped there (uid, cause).
    type HandedOver = (Option<(u64, bool)>, Vec<(u64, DropCause)>);

    impl HandOver {
        /// Managed by `cfg` within `limits`.
        fn new(cfg: QueueConfig, limits: Limits) -> HandOver {
            let discipline = pdcp_discipline(&cfg, "radio.queue").unwrap();
            assert_eq!(discipline, PdcpDiscipline::HandOver);
            let p = Pdcp::new(cfg.build(limits, stream(1, "q")), discipline, BufferHolds::UntilAcknowledged, 384e3);
            HandOver { p, store: SduStore::default(), dropped: Vec::new() }
        }

        fn arrive(&mut self, now: Time, pkt: Packet) {
            self.p.arrive(now, pkt, &mut self.dropped);
        }

        /// The RLC takes SDU `id` at `now`.
        fn take(&mut self, now: Time, id: SduId) -> HandedOver {
            let got = Feed { now, pdcp: &mut self.p, store: &mut self.store }.next_sdu(id).map(|_| {
                let pkt = self.store.take(id).expect("stored");
                (pkt.uid, pkt.ecn == Ecn::Ce)
            });
            let mut dropped = Vec::new();
            self.p.take_dropped(&mut dropped);
            (got, dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect())
        }

        /// The RLC confirms SDU `id` at `now`.
        fn release(&mut self, now: Time, id: SduId) {
            self.p.release(now, id, &mut self.dropped);
        }
    }

    /// CoDel (RFC 8289) by hand, target 5 ms, interval 100 ms, one MTU 1500 B:
    /// packets 1-4 arrive at 0 ms; the RLC takes 1 at 10 ms (sojourn 10 ms >
    /// target with 4500 B behind it: first_above_time = 110 ms), 2 at 120 ms
    /// (above target since 110 ms: drop 2, dropping, count 1, drop_next =
    /// 220 ms; 3 leaves), 4 at 130 ms (dropping, before drop_next: 4 leaves).
    /// The dropped packet never reached the RLC: the next SDU is packet 3.
    #[test]
    fn codel_drops_at_the_hand_over_by_hand() {
        let mut h = HandOver::new(QueueConfig::Codel(CodelParams::default()), Limits::default());
        for uid in 1..=4 {
            h.arrive(ms(0), pkt(uid, 1500));
        }
        assert!(h.dropped.is_empty());
        assert_eq!(h.take(ms(10), 0), (Some((1, false)), vec![]));
        // Packet 1 is carried by the RLC: still in the buffer's count, not in CoDel's queue.
        assert_eq!((h.p.packets(), h.p.queue().packets()), (4, 3));
        assert_eq!(h.take(ms(120), 1), (Some((3, false)), vec![(2, DropCause::TargetExceeded)]));
        assert_eq!(h.take(ms(130), 2), (Some((4, false)), vec![]));
        assert_eq!((h.p.packets(), h.p.queue().packets()), (3, 0));
        for id in 0..3 {
            h.release(ms(140 + id), id);
        }
        assert_eq!((h.p.packets(), h.p.bytes(), h.dropped.len()), (0, 0, 0));
    }

    /// The same sequence with ECN: packet 2, ECN-capable, is marked instead of
    /// dropped, and the RLC sends it CE (RFC 8289 §4.3 / RFC 3168).
    #[test]
    fn codel_marks_the_packet_the_rlc_sends() {
        let ecn = CodelParams { ecn: true, ..CodelParams::default() };
        let mut h = HandOver::new(QueueConfig::Codel(ecn), Limits::default());
        for uid in 1..=4 {
            h.arrive(ms(0), ect(uid, 1500));
        }
        assert_eq!(h.take(ms(10), 0), (Some((1, false)), vec![]));
        assert_eq!(h.take(ms(120), 1), (Some((2, true)), vec![]));
        assert_eq!(h.p.queue().stats().marked, 1);
    }

    /// The RLC's taking packets is CoDel's departure: every hand-over agrees
    /// with the RFC 8289 oracle (60 000 random arrivals and hand-overs, the
    /// RLC releasing each SDU a little later), whatever the RLC carries.
    #[test]
    fn codel_at_the_hand_over_matches_rfc_8289() {
        use crate::queue::rfc8289::{Config, RefCodel};
        use crate::queue::testkit::{arrival, random_replay, Replay};
        let mut h = HandOver::new(QueueConfig::Codel(CodelParams::default()), Limits::default());
        let d = CodelParams::default();
        let mut oracle = RefCodel::new(Config {
            target: d.target.0 as i64,
            interval: d.interval.0 as i64,
            maxpacket: d.mtu.0,
            ecn: false,
            limit_bytes: None,
            limit_packets: None,
        });
        let (mut now, mut id, mut released, mut drops) = (Time::ZERO, 0, 0, 0);
        for (uid, step) in random_replay(&mut stream(3, "replay"), (5, 5, 1), 8_000).iter().enumerate() {
            now += step.dt();
            match *step {
                Replay::Arrive { size, ect, .. } => {
                    h.arrive(now, arrival(uid as u64, size, ect));
                    assert!(oracle.enqueue(uid as u64, size, ect, now.0 as i64));
                }
                Replay::Depart { .. } => {
                    let (got, at_hand_over) = h.take(now, id);
                    let want = oracle.dequeue(now.0 as i64);
                    drops += at_hand_over.len();
                    assert_eq!((got, at_hand_over.into_iter().map(|d| d.0).collect::<Vec<_>>()), want, "at {now}");
                    if got.is_some() {
                        id += 1;
                    }
                }
                Replay::Rate { .. } => {
                    // The RLC confirms what it carries.
                    for sdu in released..id {
                        h.release(now, sdu);
                    }
                    released = id;
                }
            }
        }
        assert!(h.dropped.is_empty() && drops > 100, "{drops} drops at hand-overs");
    }

    /// A hand-over scheme's buffer limits count the packets the RLC carries
    /// until acknowledged; its own rule reads its queue of waiting packets.
    /// CoDel within 2 packets: with packet 1 in the RLC and 2 waiting, 3 is
    /// refused; once the RLC confirms 1, 4 fits.
    #[test]
    fn the_limits_count_what_the_rlc_carries() {
        let mut h = HandOver::new(QueueConfig::Codel(CodelParams::default()), Limits { bytes: None, packets: Some(2) });
        h.arrive(ms(0), pkt(1, 1500));
        h.arrive(ms(0), pkt(2, 1500));
        assert_eq!(h.take(ms(1), 0), (Some((1, false)), vec![]));
        h.arrive(ms(2), pkt(3, 1500));
        assert_eq!(h.dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(3, DropCause::Overflow)]);
        h.release(ms(3), 0);
        h.arrive(ms(4), pkt(4, 1500));
        assert_eq!((h.dropped.len(), h.p.packets()), (1, 2));
    }

    /// DFF (the LTE uplink study): at the hand-over it discards the outgoing
    /// packet while the buffer, the RLC's packets included, exceeds its
    /// limit. 3000 B: 1 leaves (3000 B queued); with 1 in the RLC and 2, 3
    /// waiting (4500 B), 2 is discarded and 3 leaves (3000 B).
    #[test]
    fn dff_counts_the_packets_the_rlc_carries() {
        let mut h = HandOver::new(QueueConfig::Dff, Limits { bytes: Some(3000), packets: None });
        h.arrive(ms(0), pkt(1, 1500));
        h.arrive(ms(0), pkt(2, 1500));
        assert_eq!(h.take(ms(1), 0), (Some((1, false)), vec![]));
        h.arrive(ms(2), pkt(3, 1500));
        assert!(h.dropped.is_empty(), "DFF never refuses an arrival");
        assert_eq!(h.take(ms(3), 1), (Some((3, false)), vec![(2, DropCause::OverflowFront)]));
    }

    /// PDCP discard (150 ms): at the hand-over a packet that waited longer is
    /// discarded and the next one goes.
    #[test]
    fn pdcp_discard_drops_packets_that_waited_too_long() {
        let mut h = HandOver::new(QueueConfig::PdcpDiscard(PdcpDiscardParams::default()), Limits::default());
        h.arrive(ms(0), pkt(1, 1500));
        h.arrive(ms(100), pkt(2, 1500));
        assert_eq!(h.take(ms(200), 0), (Some((2, false)), vec![(1, DropCause::Age)]));
        // Nothing waits and nothing is dropped: the RLC gets none.
        assert_eq!(h.take(ms(201), 1), (None, vec![]));
        // One that waits too long and is alone: the RLC asked, the discipline dropped it, none went.
        h.arrive(ms(300), pkt(3, 1500));
        assert!(h.p.has_waiting());
        assert_eq!(h.take(ms(500), 1), (None, vec![(3, DropCause::Age)]));
        assert!(!h.p.has_waiting());
    }

    /// T-AQM (the LTE uplink study) with lowerDropThreshold 2, minAge 200 ms,
    /// minInterDrop 600 ms, maxAge 800 ms, on the waiting packets 1-5 (0 ms):
    /// at 250 ms 1 is discarded (5 queued, 250 > 200 ms, the first drop) and 2
    /// leaves (too soon after the drop, under maxAge); at 900 ms 3 is
    /// discarded (older than maxAge) and 4 leaves (2 queued).
    #[test]
    fn taqm_decides_on_the_outgoing_packet() {
        let params = TaqmParams { lower_drop_threshold: 2, ..TaqmParams::default() };
        let mut h = HandOver::new(QueueConfig::Taqm(params), Limits::default());
        for uid in 1..=5 {
            h.arrive(ms(0), pkt(uid, 1500));
        }
        assert_eq!(h.take(ms(250), 0), (Some((2, false)), vec![(1, DropCause::Age)]));
        assert_eq!(h.take(ms(900), 1), (Some((4, false)), vec![(3, DropCause::Age)]));
    }

    /// FQ-CoDel (RFC 8290 §4.2) keeps a queue per TCP flow of the user and
    /// hands packets to the RLC by deficit round robin, quantum 1514 B: flow
    /// 0's 1 and 2 (its credit 1514 B still positive after 1), then flow 1's
    /// 4, then 3.
    #[test]
    fn fq_codel_hands_over_by_flow() {
        let mut h = HandOver::new(QueueConfig::FqCodel(FqCodelParams::default()), Limits::default());
        for (uid, flow) in [(1, 0), (2, 0), (3, 0), (4, 1)] {
            h.arrive(ms(0), Packet { flow, ..pkt(uid, 1500) });
        }
        let order: Vec<_> = (0..4).map(|id| h.take(ms(1), id).0.map(|g| g.0)).collect();
        assert_eq!(order, [Some(1), Some(2), Some(4), Some(3)]);
    }

    /// PIE (RFC 8033) on the PDCP buffer marks on arrival (§5.1, while its
    /// probability is at most 10 %): every mark reaches the packet the RLC sends.
    #[test]
    fn pie_marks_reach_the_rlc() {
        let params = PieParams { ecn: true, ..PieParams::default() };
        let mut h = HandOver::new(QueueConfig::Pie(params), Limits::default());
        h.p.set_rate(ms(0), 10e6, &mut Vec::new());
        let (mut marked, mut id) = (0, 0);
        let mut hand_over_one = |h: &mut HandOver, now| {
            let (got, _) = h.take(now, id);
            id += got.is_some() as u64;
            marked += got.is_some_and(|g| g.1) as u64;
        };
        // 1500 B every 10 ms; the RLC takes 9 in 10: the queue grows by ten packets (12 ms at
        // 10 Mb/s) a second, past the 15 ms target in 1.25 s.
        for k in 0..1000u64 {
            let now = ms(10 * k);
            while let Some(t) = h.p.next_timer().filter(|&t| t <= now) {
                h.p.on_timer(t, &mut h.dropped);
            }
            h.arrive(now, ect(k, 1500));
            if k % 10 != 0 {
                hand_over_one(&mut h, now + Dur::from_millis(1));
            }
        }
        while h.p.has_waiting() {
            hand_over_one(&mut h, ms(10_000));
        }
        assert!(marked > 0 && marked == h.p.queue().stats().marked, "{marked} CE, {:?}", h.p.queue().stats());
    }
}
