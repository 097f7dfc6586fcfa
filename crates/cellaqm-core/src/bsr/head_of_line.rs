//! The true head-of-line delay of a buffer, seen from outside its queue
//! discipline: the age of the oldest packet it holds (0 when empty). It is
//! what the BSR-based estimate of Tan, MSc thesis, 2009 is judged against
//! ("estimated vs true head-of-line delay").
//!
//! The link tells it which packets enter the buffer and which leave it (sent
//! or dropped, by any discipline), so it needs nothing from the discipline.
//! Packets must enter in the order of their uids: the network numbers packets
//! as their senders emit them, and the UE buffer is their first hop.

use crate::time::{Dur, Time};
use std::collections::BTreeMap;

/// The packets a buffer holds, by uid, with the time each entered.
#[derive(Clone, Debug, Default)]
pub struct HeadOfLine {
    held: BTreeMap<u64, Time>,
    last_uid: Option<u64>,
}

impl HeadOfLine {
    /// Packet `uid` enters the buffer at `now` (it may be refused at once: then it leaves).
    pub fn entered(&mut self, uid: u64, now: Time) {
        debug_assert!(self.last_uid.is_none_or(|u| uid > u), "packet {uid} entered after {:?}", self.last_uid);
        self.last_uid = Some(uid);
        self.held.insert(uid, now);
    }

    /// Packet `uid` left the buffer (sent or dropped); a packet already gone is ignored.
    pub fn left(&mut self, uid: u64) {
        self.held.remove(&uid);
    }

    /// The age at `now` of the oldest packet held, or zero when none is.
    pub fn delay(&self, now: Time) -> Dur {
        self.held.first_key_value().map_or(Dur::ZERO, |(_, &entered)| now.since(entered))
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
}
