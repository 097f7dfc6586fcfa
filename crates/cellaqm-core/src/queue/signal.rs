//! What an arrival-side AQM does once it has decided to signal congestion, and
//! where its buffer overflows: shared by RED/ARED, PDPC and TTLRED1.
//!
//! Sources: Lakkakorpi & Cuny, WCNC 2006 ("all act on arrival ... and drop from the tail";
//! "ECN marking instead of dropping is an option for RED, PDPC and TTLRED") and
//! the HS-DSCH study (RED and PDPC "with drop-front"). Rule: the signal
//! falls on the arrival (tail) or on the oldest queued packet (front); an
//! ECN-capable (ECT) victim is marked CE instead of dropped when ECN is on.
//! A buffer overflow is never marked: it drops the arrival (tail) or head
//! packets until the arrival fits (front, as [`super::DropFront`]).
//! `ns2_front` is RED's drop-front as ns-2.27 ran it in the HS-DSCH study:
//! early (random) signals fall on the arrival, forced drops and overflows on
//! the second queued packet (ns-2's `pickPacketToDrop` with `drop_front_`,
//! which spares the head, perhaps in transmission).

use super::passive::make_room;
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
    /// RED only: early signals on the arrival; forced drops and overflows on
    /// the second queued packet, the arrival counted (ns-2.27's drop-front).
    Ns2Front,
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
        DropPosition::Ns2Front => {
            while !limits.fits(fifo.bytes(), fifo.len(), pkt.size) {
                match fifo.len() {
                    // With the arrival behind it, the second packet is the arrival.
                    0 | 1 => {
                        tally.drop(pkt, DropCause::Overflow);
                        return None;
                    }
                    _ => tally.drop(fifo.remove(1).expect("two packets queued"), DropCause::Overflow),
                }
            }
            Some(pkt)
        }
    }
}

/// `position` for a scheme other than RED: `ns2_front` is refused.
pub fn check_not_ns2(position: DropPosition, key: &str) -> Result<(), String> {
    match position {
        DropPosition::Ns2Front => Err(format!("{key}: \"ns2_front\" is RED's (ns-2.27's drop-front); use \"front\"")),
        _ => Ok(()),
    }
}

/// A forced RED drop (ns-2's "forced": the average at the forced level) with
/// `ns2_front`: the arrival is queued, then the second queued packet goes
/// (the arrival itself if it is second). Other positions signal as [`signal`].
pub fn forced(fifo: &mut Fifo, pkt: Packet, position: DropPosition, ecn: bool, tally: &mut Tally) -> Option<Packet> {
    if position != DropPosition::Ns2Front {
        return signal(fifo, pkt, position, ecn, tally);
    }
    match fifo.len() {
        0 => {
            tally.drop(pkt, DropCause::Early);
            None
        }
        1 => signal(fifo, pkt, DropPosition::Tail, ecn, tally),
        _ => {
            if !tally.try_mark(ecn, fifo.get_mut(1).expect("two packets queued")) {
                tally.drop(fifo.remove(1).expect("two packets queued"), DropCause::Early);
            }
            Some(pkt)
        }
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

    /// ns-2.27's drop-front: an early signal takes the arrival, a forced drop
    /// and an overflow the second queued packet.
    #[test]
    fn ns2_front_spares_the_head() {
        let mut stats = QueueStats::default();
        let mut dropped = Vec::new();
        let tally = &mut Tally::new(&mut dropped, &mut stats);
        let mut fifo = Fifo::default();
        for uid in [1, 2, 3] {
            fifo.push_back(pkt(uid, 100));
        }
        assert!(signal(&mut fifo, pkt(4, 100), DropPosition::Ns2Front, false, tally).is_none());
        let a = forced(&mut fifo, pkt(5, 100), DropPosition::Ns2Front, false, tally).unwrap();
        assert_eq!(a.uid, 5);
        let limits = Limits { bytes: None, packets: Some(2) };
        let b = overflow(&mut fifo, pkt(6, 100), DropPosition::Ns2Front, limits, tally).unwrap();
        assert_eq!(b.uid, 6);
        let left: Vec<u64> = fifo.iter().map(|p| p.uid).collect();
        assert_eq!(left, [1]);
        // With only the head queued, the second packet is the arrival itself.
        assert!(forced(&mut fifo, pkt(7, 100), DropPosition::Ns2Front, false, tally).is_none());
        let one = Limits { bytes: None, packets: Some(1) };
        assert!(overflow(&mut fifo, pkt(8, 100), DropPosition::Ns2Front, one, tally).is_none());
        let gone: Vec<(u64, DropCause)> = dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect();
        use DropCause::{Early, Overflow};
        assert_eq!(gone, [(4, Early), (2, Early), (3, Overflow), (7, Early), (8, Overflow)]);
        assert!(check_not_ns2(DropPosition::Ns2Front, "q.drop").unwrap_err().starts_with("q.drop: \"ns2_front\""));
    }
}
