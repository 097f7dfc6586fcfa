//! The RNC's PDCP buffer of one radio bearer, managed by a queue discipline.
//!
//! Source: wcdma-rnc-aqm.md. An IP packet stays in the PDCP buffer until the
//! RLC has its last PDU acknowledged (or gives it up), so the buffer's byte
//! count — what the limit, RED's thresholds and TTLRED1's oldest-packet
//! sojourn time look at — includes the data RLC has in flight. The queue
//! discipline ([`AnyQueue`]) holds every packet; the PDCP copies packets to
//! the RLC in order, only when the RLC needs bytes for a transmission
//! opportunity (PDCP sequence numbers are given then, so drops before that
//! leave no gap), and tells the discipline which packets have PDUs in flight
//! ([`QueueDisc::mark_started`], for TTLRED2). When the RLC releases an SDU
//! the packet leaves the discipline through [`QueueDisc::dequeue`].
//!
//! A discipline that drops a packet the RLC already carries (drop-from-front,
//! dequeue-time AQM) cannot take back PDUs on the air: as TS 25.322 §11.3.4
//! and TS 36.323 §5.4 only discard SDUs with no segment sent, such a packet is
//! *spared*: it leaves the buffer's count but the RLC still delivers it.

use crate::packet::Packet;
use crate::queue::{AnyQueue, Dropped, QueueCtx, QueueDisc};
use crate::rlc::{SduId, SduSource};
use crate::time::Time;
use std::collections::VecDeque;

/// Counters of a PDCP buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdcpStats {
    /// Packets copied to the RLC.
    pub copied: u64,
    /// Packets the discipline dropped while the RLC already carried them (see the module doc).
    pub spared: u64,
}

pub struct Pdcp {
    queue: AnyQueue,
    rate_bps: f64,
    /// Packets in the discipline not yet copied to RLC, in queue order.
    waiting: VecDeque<Packet>,
    /// Copied packets still in the discipline: (SDU id, packet uid), in order.
    in_rlc: VecDeque<(SduId, u64)>,
    /// SDU ids whose packets the discipline already let go (spared).
    spared: Vec<SduId>,
    stats: PdcpStats,
}

impl Pdcp {
    /// A buffer managed by `queue`, first told the bearer rate `rate_bps`.
    pub fn new(queue: AnyQueue, rate_bps: f64) -> Pdcp {
        Pdcp {
            queue,
            rate_bps,
            waiting: VecDeque::new(),
            in_rlc: VecDeque::new(),
            spared: Vec::new(),
            stats: PdcpStats::default(),
        }
    }

    /// The bearer rate the discipline is told (for HSDPA: from the credits granted).
    pub fn set_rate(&mut self, bps: f64) {
        self.rate_bps = bps;
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
        self.waiting.push_back(pkt);
        let ctx = self.ctx(now);
        self.queue.enqueue(pkt, &ctx, dropped);
        self.settle(from, dropped);
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

    /// Copies the next waiting packet to the RLC as SDU `id`.
    pub fn copy_to_rlc(&mut self, id: SduId) -> Option<Packet> {
        let pkt = self.waiting.pop_front()?;
        self.queue.mark_started(pkt.uid);
        self.in_rlc.push_back((id, pkt.uid));
        self.stats.copied += 1;
        Some(pkt)
    }

    /// The RLC confirmed or discarded SDU `id`: its packet leaves the buffer.
    pub fn release(&mut self, now: Time, id: SduId, dropped: &mut Vec<Dropped>) {
        if let Some(k) = self.spared.iter().position(|&s| s == id) {
            self.spared.swap_remove(k);
            return;
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

/// The RLC's view of the PDCP buffer: copying a packet records it in the store.
pub struct Feed<'a> {
    pub pdcp: &'a mut Pdcp,
    pub store: &'a mut SduStore,
}

impl SduSource for Feed<'_> {
    fn next_sdu(&mut self, id: SduId) -> Option<u32> {
        let pkt = self.pdcp.copy_to_rlc(id)?;
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
    use crate::queue::{DropCause, Limits, QueueConfig, Ttlred2Params};
    use crate::rng::stream;
    use crate::time::Dur;

    fn pkt(uid: u64, size: u32) -> Packet {
        let mut p = Packet::tcp(0, Dir::Down, size, TcpHeader { len: (size - 60) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn tail_drop(bytes: u64) -> Pdcp {
        let q = QueueConfig::TailDrop.build(Limits { bytes: Some(bytes), packets: None }, stream(1, "q"));
        Pdcp::new(q, 384e3)
    }

    #[test]
    fn packets_count_against_the_limit_until_the_rlc_releases_them() {
        let mut p = tail_drop(3000);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), pkt(1, 1500), &mut dropped);
        p.arrive(ms(1), pkt(2, 1500), &mut dropped);
        // Both copied to RLC: still in the buffer.
        let mut feed = Feed { pdcp: &mut p, store: &mut store };
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
    fn ttlred2_drops_only_packets_the_rlc_has_not_started() {
        let params = Ttlred2Params {
            low_th: Dur::from_millis(50),
            high_th: Dur::from_millis(100),
            max_p: 1.0,
            ..Ttlred2Params::default()
        };
        let q = QueueConfig::Ttlred2(params).build(Limits::default(), stream(2, "q"));
        let mut p = Pdcp::new(q, 64e3);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        for uid in 1..=3 {
            p.arrive(ms(uid), pkt(uid, 1000), &mut dropped);
        }
        // Packet 1 (the first, lifetime 100 ms) and 2 (50 ms) go to RLC; 3 (50 ms) waits.
        let mut feed = Feed { pdcp: &mut p, store: &mut store };
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
        let mut p = Pdcp::new(q, 64e3);
        let mut store = SduStore::default();
        let mut dropped = Vec::new();
        p.arrive(ms(0), pkt(1, 1000), &mut dropped);
        p.arrive(ms(1), pkt(2, 1000), &mut dropped);
        Feed { pdcp: &mut p, store: &mut store }.next_sdu(0);
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
        assert_eq!(Feed { pdcp: &mut p, store: &mut store }.next_sdu(1), Some(1000));
        p.release(ms(5), 1, &mut dropped);
        assert_eq!(p.packets(), 1);
    }
}
