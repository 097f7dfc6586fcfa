//! The passive buffers: tail drop (TD, DT) and drop from front (DF).
//!
//! Sources: Lakkakorpi & Cuny, WCNC 2006 (TD, the reference scheme); the HS-DSCH study
//! ("DF n: passive, drop-from-front, room for n packets"); README glossary.
//! Rule: serve first-in first-out and never drop but on overflow. Tail drop
//! drops the arriving packet that does not fit the byte and packet limits
//! ([`DropCause::Overflow`]); drop-front drops packets from the head (cause
//! [`DropCause::OverflowFront`]) until it fits, and drops the arrival only if
//! it is larger than the whole byte limit ([`DropCause::Overflow`]).

use super::signal::overflow;
use super::{DropCause, DropPosition, Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;

/// Drops head packets until `pkt` fits within `limits`; returns it then, or
/// drops it (dropping nothing else) if it cannot fit even in the empty buffer
/// (larger than the byte limit, or no room left: the limits less what the
/// owner carries, [`super::QueueDisc::carry`]).
pub(super) fn make_room(fifo: &mut Fifo, pkt: Packet, limits: Limits, tally: &mut Tally) -> Option<Packet> {
    if !limits.fits(0, 0, pkt.size) {
        tally.drop(pkt, DropCause::Overflow);
        return None;
    }
    while !limits.fits(fifo.bytes(), fifo.len(), pkt.size) {
        let head = fifo.pop_front().expect("an empty buffer fits the packet");
        tally.drop(head, DropCause::OverflowFront);
    }
    Some(pkt)
}

/// A FIFO that drops only on overflow: at the head if `FRONT`, else the arrival.
#[derive(Default)]
pub struct Passive<const FRONT: bool> {
    fifo: Fifo,
}

/// Tail drop: the arrival that does not fit is dropped.
pub type TailDrop = Passive<false>;
/// Drop from front: head packets are dropped until the arrival fits.
pub type DropFront = Passive<true>;

impl<const FRONT: bool> Scheme for Passive<FRONT> {
    fn on_overflow(&mut self, pkt: Packet, limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        let position = if FRONT { DropPosition::Front } else { DropPosition::Tail };
        overflow(&mut self.fifo, pkt, position, limits, tally)
    }

    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        self.fifo.push_back(pkt);
    }

    fn dequeue(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        self.fifo.pop_front()
    }

    fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, scenario_queue, Step::*};
    use crate::queue::{Disc, QueueConfig, QueueDisc};
    use crate::time::Time;
    use DropCause::{Overflow, OverflowFront};

    fn tail_drop(limits: Limits) -> Disc<TailDrop> {
        Disc::new(limits, TailDrop::default())
    }

    fn drop_front(limits: Limits) -> Disc<DropFront> {
        Disc::new(limits, DropFront::default())
    }

    #[test]
    fn drops_the_arrival_that_does_not_fit() {
        let mut q = tail_drop(Limits { bytes: Some(3000), packets: None });
        let ctx = QueueCtx { now: Time(5), rate_bps: 1e6 };
        let mut dropped = Vec::new();
        for uid in 0..3 {
            q.enqueue(pkt(uid, 1500), &ctx, &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!((dropped[0].pkt.uid, dropped[0].cause), (2, Overflow));
        assert_eq!(q.dequeue(&ctx, &mut dropped).map(|p| (p.uid, p.enqueued_at)), Some((0, Time(5))));
        q.enqueue(pkt(3, 1500), &ctx, &mut dropped);
        assert_eq!((q.packets(), q.bytes()), (2, 3000));
    }

    #[test]
    fn packet_limit() {
        let mut q = tail_drop(Limits { bytes: None, packets: Some(2) });
        let ctx = QueueCtx { now: Time(0), rate_bps: 1e6 };
        let mut dropped = Vec::new();
        for uid in 0..5 {
            q.enqueue(pkt(uid, 40), &ctx, &mut dropped);
        }
        assert_eq!(dropped.iter().map(|d| d.pkt.uid).collect::<Vec<_>>(), vec![2, 3, 4]);
    }

    #[test]
    fn drops_from_the_head_until_the_arrival_fits() {
        let mut q = drop_front(Limits { bytes: Some(3000), packets: Some(3) });
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]),
                Arrive(1.0, pkt(2, 1000), &[]),
                Arrive(2.0, pkt(3, 500), &[]), // 2500 B, 3 packets: full by packet count
                // 4th packet: the packet limit forces one head drop (1); 1500+1000 = 2500 B fits.
                Arrive(3.0, pkt(4, 1000), &[(1, OverflowFront)]),
                // 2500 + 1500 > 3000: drop 2 (→1500 B, 2 pkts) and it fits (3000 B, 3 pkts).
                Arrive(4.0, pkt(5, 1500), &[(2, OverflowFront)]),
                // Larger than the whole byte limit: the arrival itself goes, the queue stays.
                Arrive(5.0, pkt(6, 3001), &[(6, Overflow)]),
                Depart(6.0, Some(3), &[]),
                // 2500 B, 2 pkts: 2500+600 > 3000 → drop 4 (1500 B) and it fits.
                Arrive(7.0, pkt(7, 600), &[(4, OverflowFront)]),
                Depart(8.0, Some(5), &[]),
                Depart(9.0, Some(7), &[]),
                Depart(10.0, None, &[]),
            ],
        );
    }

    #[test]
    fn scenario_syntax() {
        assert_eq!(scenario_queue(r#"{ scheme = "tail_drop" }"#), Ok(QueueConfig::TailDrop));
        assert_eq!(scenario_queue(r#"{ scheme = "drop_front" }"#), Ok(QueueConfig::DropFront));
    }

    proptest::proptest! {
        /// Under random input, with a byte limit, a packet limit or both.
        #[test]
        fn tail_drop_invariants(ops in ops(), bytes in proptest::option::of(1500..30_000u64), packets in proptest::option::of(1..30u32)) {
            check_invariants(&mut tail_drop(Limits { bytes, packets }), &ops);
        }

        #[test]
        fn drop_front_invariants(ops in ops(), bytes in proptest::option::of(1500..30_000u64), packets in proptest::option::of(1..30u32)) {
            check_invariants(&mut drop_front(Limits { bytes, packets }), &ops);
        }
    }
}
