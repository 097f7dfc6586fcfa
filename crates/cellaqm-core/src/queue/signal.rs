//! What an arrival-side AQM does once it has decided to signal congestion, and
//! how it admits packets: shared by RED/ARED, PDPC, TTLRED1 and TTLRED2.
//!
//! Sources: wcdma-rnc-aqm.md ("all act on arrival ... and drop from the tail";
//! "ECN marking instead of dropping is an option for RED, PDPC and TTLRED") and
//! hsdsch-buffer-mgmt.md (RED and PDPC "with drop-front"). Rule: the signal
//! falls on the arrival (tail) or on the oldest queued packet (front); an
//! ECN-capable (ECT) victim is marked CE instead of dropped when ECN is on.
//! A buffer overflow is never marked: it drops the arrival (tail) or head
//! packets until the arrival fits (front, as [`super::DropFront`]).

use super::drop_front::make_room;
use super::{DropCause, Dropped, Fifo, QueueStats};
use crate::packet::{Ecn, Packet};
use crate::time::Time;
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

/// ECN marking instead of dropping, with its counter.
#[derive(Clone, Copy, Debug, Default)]
pub struct Marker {
    /// Whether ECT packets are marked instead of dropped.
    pub ecn: bool,
    /// Packets marked so far.
    pub marked: u64,
}

impl Marker {
    pub fn new(ecn: bool) -> Marker {
        Marker { ecn, marked: 0 }
    }

    /// The scheme's counters.
    #[allow(clippy::needless_update)] // other counters may join `marked`
    pub fn stats(&self) -> QueueStats {
        QueueStats { marked: self.marked, ..QueueStats::default() }
    }

    /// Marks `pkt` CE if ECN is on and `pkt` is ECN-capable; returns whether it did.
    pub fn try_mark(&mut self, pkt: &mut Packet) -> bool {
        if self.ecn && pkt.ecn == Ecn::Ect {
            pkt.ecn = Ecn::Ce;
            self.marked += 1;
            true
        } else {
            false
        }
    }
}

/// Signals congestion for arrival `pkt` at `position`: marks or drops (cause
/// [`DropCause::Early`]) the arrival or the head. Returns the arrival unless it was dropped.
pub fn signal(
    fifo: &mut Fifo,
    mut pkt: Packet,
    position: DropPosition,
    marker: &mut Marker,
    dropped: &mut Vec<Dropped>,
) -> Option<Packet> {
    if position == DropPosition::Front {
        if let Some(head) = fifo.get_mut(0) {
            if !marker.try_mark(head) {
                let head = fifo.pop_front().expect("head exists");
                dropped.push(Dropped { pkt: head, cause: DropCause::Early });
            }
            return Some(pkt);
        }
    }
    if marker.try_mark(&mut pkt) {
        Some(pkt)
    } else {
        dropped.push(Dropped { pkt, cause: DropCause::Early });
        None
    }
}

/// Queues `pkt` (stamping `enqueued_at = now`) if the buffer limits allow,
/// overflowing at `position`; returns whether `pkt` was queued.
pub fn admit(fifo: &mut Fifo, mut pkt: Packet, position: DropPosition, now: Time, dropped: &mut Vec<Dropped>) -> bool {
    let fits = match position {
        DropPosition::Tail => !fifo.would_overflow(pkt.size),
        DropPosition::Front => make_room(fifo, pkt.size, dropped),
    };
    if fits {
        pkt.enqueued_at = now;
        fifo.push_back(pkt);
    } else {
        dropped.push(Dropped { pkt, cause: DropCause::Overflow });
    }
    fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{ect, pkt};
    use crate::queue::Limits;

    #[test]
    fn front_signal_marks_or_drops_the_head_and_keeps_the_arrival() {
        let mut fifo = Fifo::new(Limits::default());
        let mut marker = Marker::new(true);
        let mut dropped = Vec::new();
        fifo.push_back(ect(1, 100));
        fifo.push_back(pkt(2, 100));
        // Head 1 is ECT: marked, stays; the arrival 3 is returned untouched.
        let a = signal(&mut fifo, pkt(3, 100), DropPosition::Front, &mut marker, &mut dropped).unwrap();
        assert_eq!((a.uid, a.ecn, fifo.get_mut(0).unwrap().ecn, marker.marked), (3, Ecn::NotEct, Ecn::Ce, 1));
        assert!(dropped.is_empty());
        // The head is CE now (not ECT): dropped.
        signal(&mut fifo, pkt(4, 100), DropPosition::Front, &mut marker, &mut dropped).unwrap();
        assert_eq!((dropped[0].pkt.uid, dropped[0].cause, fifo.len()), (1, DropCause::Early, 1));
        // Tail: a non-ECT arrival is dropped, an ECT one marked.
        assert!(signal(&mut fifo, pkt(5, 100), DropPosition::Tail, &mut marker, &mut dropped).is_none());
        assert_eq!(signal(&mut fifo, ect(6, 100), DropPosition::Tail, &mut marker, &mut dropped).unwrap().ecn, Ecn::Ce);
        // Front on an empty queue falls on the arrival.
        let mut empty = Fifo::new(Limits::default());
        assert!(signal(&mut empty, pkt(7, 100), DropPosition::Front, &mut Marker::new(false), &mut dropped).is_none());
        assert_eq!(dropped.last().unwrap().pkt.uid, 7);
    }
}
