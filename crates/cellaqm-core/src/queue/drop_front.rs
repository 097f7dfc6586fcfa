//! Drop from front (DF): the passive buffer that discards its oldest packets.
//!
//! Source: hsdsch-buffer-mgmt.md ("DF n: passive, drop-from-front, room for n
//! packets"); README glossary. Rule: when an arriving packet does not fit the
//! byte and packet limits, drop packets from the head (cause
//! [`DropCause::OverflowFront`]) until it fits; a packet larger than the whole
//! byte limit is itself dropped ([`DropCause::Overflow`]). Serve first-in first-out.

use super::{DropCause, Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;

/// Drops head packets until `pkt` fits within `limits`; returns it then, or
/// drops it (dropping nothing else) if it cannot fit even in the empty buffer.
pub(super) fn make_room(fifo: &mut Fifo, pkt: Packet, limits: Limits, tally: &mut Tally) -> Option<Packet> {
    if limits.bytes.is_some_and(|b| pkt.size as u64 > b) {
        tally.drop(pkt, DropCause::Overflow);
        return None;
    }
    while !limits.fits(fifo.bytes(), fifo.len(), pkt.size) {
        let head = fifo.pop_front().expect("an empty buffer fits the packet");
        tally.drop(head, DropCause::OverflowFront);
    }
    Some(pkt)
}

#[derive(Default)]
pub struct DropFront {
    fifo: Fifo,
}

impl Scheme for DropFront {
    fn on_overflow(&mut self, pkt: Packet, limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        make_room(&mut self.fifo, pkt, limits, tally)
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
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::Disc;
    use DropCause::{Overflow, OverflowFront};

    fn drop_front(limits: Limits) -> Disc<DropFront> {
        Disc::new(limits, DropFront::default())
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
        use crate::queue::testkit::scenario_queue;
        assert_eq!(scenario_queue(r#"{ scheme = "drop_front" }"#), Ok(crate::queue::QueueConfig::DropFront));
    }

    proptest::proptest! {
        #[test]
        fn invariants(ops in ops()) {
            check_invariants(&mut drop_front(Limits { bytes: Some(6000), packets: Some(5) }), &ops);
        }
    }
}
