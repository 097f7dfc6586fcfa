//! The sending end's Buffer Status Reports: LTE's periodic BSR (3GPP TS
//! 36.321 §5.4.5; Tan, MSc thesis, 2009: default period 20 ms, studied 10–100 ms).
//!
//! Rule: when periodicBSR-Timer expires a BSR is triggered; it goes out with
//! the next uplink transmission, and sending it restarts the timer. Here a
//! transmission is a packet leaving the buffer for the link, so a report
//! rides with the first packet that departs once the period since the
//! previous report has run out, and the next one is due a period after that
//! departure. The first departing packet carries the first report (in LTE, a
//! Regular BSR for data arriving to an empty buffer).
//!
//! A report counts the bytes (IP packet sizes) waiting in the buffer after its
//! carrier left it, as the BSR's Buffer Size counts the data left once the
//! MAC PDU carrying it is built (TS 36.321 §6.1.3.1); an empty buffer is
//! reported as 0 B. Each report also notes the true head-of-line delay at that
//! moment ([`HeadOfLine`]), for judging the far end's estimate.

use super::HeadOfLine;
use crate::packet::Packet;
use crate::queue::Dropped;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// One Buffer Status Report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The packet it rides with.
    pub carrier: u64,
    /// Bytes waiting in the buffer after the carrier left.
    pub queue_bytes: u64,
    /// The true head-of-line delay then (not part of the report: for measurement).
    pub true_delay: Dur,
}

/// The sending end: the periodic BSR timer and the reports on their way.
#[derive(Clone, Debug)]
pub struct Reporter {
    period: Dur,
    /// When the timer expires (a report is pending from then on).
    due: Time,
    head: HeadOfLine,
    /// Reports riding with packets on the link, in the order of their carriers.
    in_flight: VecDeque<Report>,
}

impl Reporter {
    pub fn new(period: Dur) -> Reporter {
        Reporter { period, due: Time::ZERO, head: HeadOfLine::default(), in_flight: VecDeque::new() }
    }

    /// Packet `uid` enters the buffer at `now`.
    pub fn entered(&mut self, uid: u64, now: Time) {
        self.head.entered(uid, now);
    }

    /// The buffer was asked for a packet at `now`: `dropped` left it on the
    /// way (or earlier in the same step), `sent` departs for the link, and
    /// `waiting` bytes stay queued. A due report rides with `sent`.
    pub fn dequeued(&mut self, now: Time, dropped: &[Dropped], sent: Option<&Packet>, waiting: u64) {
        self.head.dropped(dropped);
        let Some(pkt) = sent else { return };
        self.head.left(pkt.uid);
        if now >= self.due {
            self.due = now + self.period;
            self.in_flight.push_back(Report {
                carrier: pkt.uid,
                queue_bytes: waiting,
                true_delay: self.head.delay(now),
            });
        }
    }

    /// The report riding with packet `uid`, taken as the packet reaches the
    /// far end or is lost on the link (the report with it).
    pub fn carried_by(&mut self, uid: u64) -> Option<Report> {
        if self.in_flight.front()?.carrier == uid {
            self.in_flight.pop_front()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;
    use crate::queue::DropCause;

    fn ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    /// A 20 ms period; 1000-byte packets. Reports ride with the first departure
    /// at or after the due time, count the bytes still waiting and note the
    /// age of the oldest packet still held.
    #[test]
    fn periodic_reports_ride_with_departures_and_restart_the_timer() {
        let mut r = Reporter::new(Dur::from_millis(20));
        for (uid, at) in [(1, 0), (2, 1), (3, 2), (4, 3)] {
            r.entered(uid, ms(at));
        }
        // 4 ms: packet 1 departs with the first report: 3000 B wait, the oldest
        // of them (packet 2) entered at 1 ms. Next report due at 24 ms.
        r.dequeued(ms(4), &[], Some(&pkt(1, 1000)), 3000);
        assert_eq!(r.carried_by(1), Some(Report { carrier: 1, queue_bytes: 3000, true_delay: Dur::from_millis(3) }));
        // 12 ms: packet 2 departs; the next report is due at 24 ms: none.
        r.dequeued(ms(12), &[], Some(&pkt(2, 1000)), 2000);
        assert_eq!(r.carried_by(2), None);
        // 24 ms: the discipline drops packet 3 at the head, packet 4 departs
        // with a report of an empty buffer (the timer restarts: due at 44 ms).
        let drop3 = [Dropped { pkt: pkt(3, 1000), cause: DropCause::Age }];
        r.dequeued(ms(24), &drop3, Some(&pkt(4, 1000)), 0);
        // 30 ms: packet 5 arrives and leaves at once; 44 ms not reached: no report.
        r.entered(5, ms(30));
        r.dequeued(ms(30), &[], Some(&pkt(5, 1000)), 0);
        // 50 ms: packet 6, the timer expired while the buffer was idle: it carries one.
        r.entered(6, ms(48));
        r.entered(7, ms(49));
        r.dequeued(ms(50), &[], Some(&pkt(6, 1000)), 1000);
        // Reports reach the far end with their carriers, in order.
        assert_eq!(r.carried_by(4), Some(Report { carrier: 4, queue_bytes: 0, true_delay: Dur::ZERO }));
        assert_eq!(r.carried_by(5), None);
        assert_eq!(r.carried_by(6), Some(Report { carrier: 6, queue_bytes: 1000, true_delay: Dur::from_millis(1) }));
    }
}
