//! Tail drop (TD, DT): the passive buffer.
//!
//! Rule: accept an arriving packet if it fits within the byte and packet
//! limits, otherwise drop it (the wrapper's default, [`super::Scheme::on_overflow`]).
//! Serve first-in first-out.

use super::{Fifo, QueueCtx, Scheme, Tally};
use crate::packet::Packet;

#[derive(Default)]
pub struct TailDrop {
    fifo: Fifo,
}

impl Scheme for TailDrop {
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
    use crate::queue::testkit::{check_invariants, ops, pkt};
    use crate::queue::{Disc, DropCause, Limits, QueueDisc};
    use crate::time::Time;

    fn tail_drop(limits: Limits) -> Disc<TailDrop> {
        Disc::new(limits, TailDrop::default())
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
        assert_eq!((dropped[0].pkt.uid, dropped[0].cause), (2, DropCause::Overflow));
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

    proptest::proptest! {
        /// Under random input, with a byte limit, a packet limit or both.
        #[test]
        fn conservation(ops in ops(), bytes in proptest::option::of(1500..30_000u64), packets in proptest::option::of(1..30u32)) {
            check_invariants(&mut tail_drop(Limits { bytes, packets }), &ops);
        }
    }
}
