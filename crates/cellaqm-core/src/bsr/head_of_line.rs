//! The true head-of-line delay of a buffer, seen from outside its queue
//! discipline: the age of the oldest packet it holds (0 when empty). It is
//! what the BSR-based estimate of Tan, MSc thesis, 2009 is judged against
//! ("estimated vs true head-of-line delay"), and what a bearer's buffer
//! status reports to the MAC (the RLC's head-of-line delay in ns-3's
//! buffer-status report, `ff-mac-sched-sap.h`).
//!
//! The owner tells it which packets enter the buffer and which leave it (sent
//! or dropped, by any discipline), so it needs nothing from the discipline.
//! Packets are held in the order they entered: the oldest is the first of
//! them still held (uids need not enter in order).

use crate::queue::Dropped;
use crate::storage::ShrinkEmpty;
use crate::time::{Dur, Time};
use std::collections::{HashSet, VecDeque};

/// The packets a buffer holds, with the time each entered.
#[derive(Clone, Debug, Default)]
pub struct HeadOfLine {
    /// (uid, time it entered), in entry order; the first is always held.
    entered: VecDeque<(u64, Time)>,
    /// The uids held.
    held: HashSet<u64>,
}

impl HeadOfLine {
    /// Packet `uid` enters the buffer at `now` (it may be refused at once: then it leaves).
    pub fn entered(&mut self, uid: u64, now: Time) {
        if self.held.insert(uid) {
            self.entered.push_back((uid, now));
        }
    }

    /// Packet `uid` left the buffer (sent or dropped); a packet not held is ignored.
    pub fn left(&mut self, uid: u64) {
        if self.held.remove(&uid) {
            while self.entered.front().is_some_and(|(u, _)| !self.held.contains(u)) {
                self.entered.pop_front();
            }
        }
    }

    /// The packets of `dropped` left the buffer.
    pub fn dropped(&mut self, dropped: &[Dropped]) {
        for d in dropped {
            self.left(d.pkt.uid);
        }
    }

    /// Gives back its storage if it holds nothing.
    pub fn shrink_empty(&mut self) {
        self.entered.shrink_empty();
        self.held.shrink_empty();
    }

    /// The age at `now` of the oldest packet held, or zero when none is.
    pub fn delay(&self, now: Time) -> Dur {
        self.entered.front().map_or(Dur::ZERO, |&(_, entered)| now.since(entered))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    #[test]
    fn the_oldest_packet_held_whatever_leaves_first() {
        let mut h = HeadOfLine::default();
        assert_eq!(h.delay(ms(5)), Dur::ZERO);
        h.entered(1, ms(10));
        h.entered(2, ms(20));
        h.entered(3, ms(30));
        assert_eq!(h.delay(ms(40)), Dur::from_millis(30));
        // A packet dropped from the middle does not change the head.
        h.left(2);
        assert_eq!(h.delay(ms(40)), Dur::from_millis(30));
        // The head sent: packet 3 (2 is gone) is the oldest.
        h.left(1);
        assert_eq!(h.delay(ms(40)), Dur::from_millis(10));
        h.left(1); // already gone: ignored
        h.left(3);
        assert_eq!(h.delay(ms(50)), Dur::ZERO);
    }

    #[test]
    fn the_oldest_is_the_first_to_enter_whatever_its_uid() {
        let mut h = HeadOfLine::default();
        h.entered(7, ms(10));
        h.entered(3, ms(20));
        h.entered(5, ms(30));
        assert_eq!(h.delay(ms(40)), Dur::from_millis(30), "uid 7 entered first");
        h.left(3);
        h.left(7);
        assert_eq!(h.delay(ms(40)), Dur::from_millis(10), "uid 5 (3 and 7 gone)");
        h.entered(1, ms(45));
        h.left(5);
        assert_eq!(h.delay(ms(50)), Dur::from_millis(5));
    }
}
