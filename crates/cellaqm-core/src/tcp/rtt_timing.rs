//! RTT samples without the timestamps option (RFC 6298 §3).
//!
//! Karn's algorithm applies to both ways of taking them: a retransmitted
//! segment never gives a sample, as its ACK may be for either copy.
//!
//! - `per_rtt`: one segment is timed at a time; a new one is chosen once its
//!   ACK has come (BSD, ns-2; RFC 6298 asks for at least one sample per RTT).
//!   Any retransmission abandons the segment being timed.
//! - `per_ack`: every segment sent is recorded; an ACK gives a sample from the
//!   newest segment it acknowledges entirely, unless that one was retransmitted
//!   (as Linux does, and ns-3 with its RTT history). With many samples per RTT
//!   the variance term of the RTO shrinks, and the RTO with it.

use super::RttSamples;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// A segment being timed: `[start, end)` in sequence space, sent at `sent`.
#[derive(Clone, Copy, Debug)]
struct Timed {
    start: u64,
    end: u64,
    sent: Time,
    retransmitted: bool,
}

/// The segments being timed, in the order sent.
#[derive(Debug)]
pub(super) struct RttTiming {
    mode: RttSamples,
    timed: VecDeque<Timed>,
}

impl RttTiming {
    pub fn new(mode: RttSamples) -> RttTiming {
        RttTiming { mode, timed: VecDeque::new() }
    }

    /// New data `[start, end)` left at `now`.
    pub fn on_send(&mut self, start: u64, end: u64, now: Time) {
        if self.mode == RttSamples::PerAck || self.timed.is_empty() {
            self.timed.push_back(Timed { start, end, sent: now, retransmitted: false });
        }
    }

    /// `[start, end)` was sent again.
    pub fn on_retransmit(&mut self, start: u64, end: u64) {
        match self.mode {
            RttSamples::PerRtt => self.timed.clear(),
            RttSamples::PerAck => {
                let first = self.timed.partition_point(|t| t.end <= start);
                for t in self.timed.range_mut(first..).take_while(|t| t.start < end) {
                    t.retransmitted = true;
                }
            }
        }
    }

    /// An ACK of everything below `ack` arrived at `now`: the sample it gives, if any.
    pub fn on_ack(&mut self, ack: u64, now: Time) -> Option<Dur> {
        let mut newest = None;
        while let Some(t) = self.timed.front().filter(|t| t.end <= ack) {
            newest = Some(*t);
            self.timed.pop_front();
        }
        newest.filter(|t| !t.retransmitted).map(|t| now.since(t.sent))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    #[test]
    fn per_rtt_times_one_segment_at_a_time() {
        let mut r = RttTiming::new(RttSamples::PerRtt);
        r.on_send(1, 101, ms(0));
        r.on_send(101, 201, ms(10)); // not timed: one is outstanding
        assert_eq!(r.on_ack(101, ms(100)), Some(Dur::from_millis(100)));
        assert_eq!(r.on_ack(201, ms(110)), None);
        r.on_send(201, 301, ms(120));
        r.on_retransmit(101, 201); // any retransmission abandons it (Karn)
        assert_eq!(r.on_ack(301, ms(220)), None);
    }

    #[test]
    fn per_ack_samples_the_newest_acknowledged_segment_unless_retransmitted() {
        let mut r = RttTiming::new(RttSamples::PerAck);
        for (i, start) in [1, 101, 201, 301].into_iter().enumerate() {
            r.on_send(start, start + 100, ms(10 * i as u64));
        }
        assert_eq!(r.on_ack(201, ms(100)), Some(Dur::from_millis(90)), "from the segment sent at 10 ms");
        r.on_retransmit(201, 301);
        assert_eq!(r.on_ack(301, ms(300)), None, "Karn: [201, 301) was retransmitted");
        assert_eq!(r.on_ack(350, ms(310)), None, "a partial ACK of [301, 401) gives none");
        assert_eq!(r.on_ack(401, ms(320)), Some(Dur::from_millis(290)));
    }
}
