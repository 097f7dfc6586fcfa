//! Drop-from-front with a limit checked at departure (DFF), as in the LTE
//! uplink study (Tan, MSc thesis, 2009; 375 kB limit in its estimator experiment).
//!
//! Rule: `for each outgoing packet: if queue_size > bufferLimit: discard
//! packet else transmit packet`, the queue size counting the outgoing packet
//! (cause `overflow_front`). The limit is the link's buffer limit (bytes and/or
//! packets); arrivals are never refused, so between two departures the
//! buffer may hold more than the limit. Packets the owner carries outside
//! the queue in the same buffer ([`super::QueueDisc::carry`]: a PDCP buffer's
//! packets in the RLC until acknowledged) count in the queue size.

use super::at_head::{AtHead, HeadRule, Overflow};
use super::{Backlog, DropCause, Limits};
use crate::packet::Packet;
use crate::time::Time;

/// DFF's head rule: discard while the queue (and what is carried beside it) exceeds `limit`.
#[derive(Clone, Copy, Debug)]
pub struct DffRule {
    limit: Limits,
    carried: Backlog,
}

impl HeadRule for DffRule {
    fn discard(&mut self, _head: &Packet, backlog: Backlog, _now: Time) -> Option<DropCause> {
        let (bytes, packets) = (backlog.bytes + self.carried.bytes, backlog.packets + self.carried.packets);
        let over =
            self.limit.bytes.is_some_and(|b| bytes > b) || self.limit.packets.is_some_and(|p| packets > p as usize);
        over.then_some(DropCause::OverflowFront)
    }

    fn carry(&mut self, carried: Backlog) {
        self.carried = carried;
    }
}

pub type Dff = AtHead<DffRule>;

impl Dff {
    /// DFF with `bufferLimit` = `limits` (the wrapper's arrival limits are none).
    pub fn new(limits: Limits) -> Dff {
        AtHead::with_rule(DffRule { limit: limits, carried: Backlog::default() }, Overflow::Tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::{Disc, QueueDisc};
    use proptest::prelude::*;
    use DropCause::OverflowFront;

    fn dff(limits: Limits) -> Disc<Dff> {
        Disc::new(Limits::default(), Dff::new(limits))
    }

    #[test]
    fn discards_heads_while_over_the_limit_at_departure() {
        let mut q = dff(Limits { bytes: None, packets: Some(3) });
        run(
            &mut q,
            &[
                // Five arrivals are all accepted: the limit is applied at departure.
                Arrive(0.0, pkt(0, 1000), &[]),
                Arrive(0.0, pkt(1, 1000), &[]),
                Arrive(0.0, pkt(2, 1000), &[]),
                Arrive(0.0, pkt(3, 1000), &[]),
                Arrive(0.0, pkt(4, 1000), &[]),
                // 5 > 3: discard 0; 4 > 3: discard 1; 3 ≤ 3: transmit 2.
                Depart(10.0, Some(2), &[(0, OverflowFront), (1, OverflowFront)]),
                // 2 queued: transmit.
                Depart(20.0, Some(3), &[]),
                Depart(30.0, Some(4), &[]),
                Depart(40.0, None, &[]),
            ],
        );
        assert_eq!(q.packets(), 0);
    }

    #[test]
    fn byte_limit() {
        let mut q = dff(Limits { bytes: Some(2500), packets: None });
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(0, 1000), &[]),
                Arrive(0.0, pkt(1, 1000), &[]),
                Arrive(0.0, pkt(2, 1000), &[]),
                // 3000 B > 2500 B: discard 0; 2000 B: transmit 1.
                Depart(1.0, Some(1), &[(0, OverflowFront)]),
            ],
        );
    }

    proptest! {
        #[test]
        fn conservation(ops in ops()) {
            check_invariants(&mut dff(Limits { bytes: Some(8000), packets: Some(6) }), &ops);
        }
    }
}
