//! What an arrival-side AQM does once it has decided to signal congestion, and
//! where its buffer overflows: shared by RED/ARED, PDPC and TTLRED1.
//!
//! Sources: wcdma-rnc-aqm.md ("all act on arrival ... and drop from the tail";
//! "ECN marking instead of dropping is an option for RED, PDPC and TTLRED") and
//! hsdsch-buffer-mgmt.md (RED and PDPC "with drop-front"). Rule: the signal
//! falls on the arrival (tail) or on the oldest queued packet (front); an
//! ECN-capable (ECT) victim is marked CE instead of dropped when ECN is on.
//! A buffer overflow is never marked: it drops the arrival (tail) or head
//! packets until the arrival fits (front, as [`super::DropFront`]).

use super::drop_front::make_room;
use super::{DropCause, Fifo, Limits, Tally};
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// Which packet a congestion signal or an overflow falls on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropPosition {
    /// The arriving packet.
    #[default]
    Tail,
    /// The oldest queued packet (the arrival itself if the queue is empty).
    Front,
}

/// Signals congestion for arrival `pkt` at `position`: marks (if `ecn`) or
/// drops (cause [`DropCause::Early`]) the arrival or the head. Returns the
/// arrival unless it was dropped.
pub fn signal(
    fifo: &mut Fifo,
    mut pkt: Packet,
    position: DropPosition,
    ecn: bool,
    tally: &mut Tally,
) -> Option<Packet> {
    if position == DropPosition::Front {
        if let Some(head) = fifo.get_mut(0) {
            if !tally.try_mark(ecn, head) {
                let head = fifo.pop_front().expect("head exists");
                tally.drop(head, DropCause::Early);
            }
            return Some(pkt);
        }
    }
    if tally.try_mark(ecn, &mut pkt) {
        Some(pkt)
    } else {
        tally.drop(pkt, DropCause::Early);
        None
    }
}

/// The overflow at `position` ([`super::Scheme::on_overflow`]): drops the
/// arrival (tail, `overflow`), or head packets until it fits (front).
pub fn overflow(
    fifo: &mut Fifo,
    pkt: Packet,
    position: DropPosition,
    limits: Limits,
    tally: &mut Tally,
) -> Option<Packet> {
    match position {
        DropPosition::Tail => {
            tally.drop(pkt, DropCause::Overflow);
            None
        }
        DropPosition::Front => make_room(fifo, pkt, limits, tally),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::{ect, pkt};
    use crate::queue::QueueStats;

    #[test]
    fn front_signal_marks_or_drops_the_head_and_keeps_the_arrival() {
        let mut fifo = Fifo::default();
        let (mut dropped, mut stats) = (Vec::new(), QueueStats::default());
        let tally = &mut Tally::new(&mut dropped, &mut stats);
        fifo.push_back(ect(1, 100));
        fifo.push_back(pkt(2, 100));
        // Head 1 is ECT: marked, stays; the arrival 3 is returned untouched.
        let a = signal(&mut fifo, pkt(3, 100), DropPosition::Front, true, tally).unwrap();
        assert_eq!((a.uid, a.ecn, fifo.get_mut(0).unwrap().ecn), (3, Ecn::NotEct, Ecn::Ce));
        // The head is CE now (not ECT): dropped.
        signal(&mut fifo, pkt(4, 100), DropPosition::Front, true, tally).unwrap();
        assert_eq!(fifo.len(), 1);
        // Tail: a non-ECT arrival is dropped, an ECT one marked.
        assert!(signal(&mut fifo, pkt(5, 100), DropPosition::Tail, true, tally).is_none());
        assert_eq!(signal(&mut fifo, ect(6, 100), DropPosition::Tail, true, tally).unwrap().ecn, Ecn::Ce);
        // Front on an empty queue falls on the arrival.
        assert!(signal(&mut Fifo::default(), pkt(7, 100), DropPosition::Front, false, tally).is_none());
        let drops: Vec<_> = dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect();
        assert_eq!(drops, [(1, DropCause::Early), (5, DropCause::Early), (7, DropCause::Early)]);
        assert_eq!((stats.marked, stats.dropped(DropCause::Early)), (2, 3));
    }
}
