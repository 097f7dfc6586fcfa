//! Reno AIMD congestion control (RFC 5681 §3.1).
//!
//! Slow start while cwnd < ssthresh: cwnd += min(acked, SMSS) per ACK.
//! Congestion avoidance: cwnd += SMSS·SMSS/cwnd per ACK (about one SMSS per RTT).
//! On loss (or ECN-Echo): ssthresh = max(FlightSize/2, 2·SMSS), cwnd = ssthresh; after a
//! timeout cwnd = 1 SMSS.

use super::congestion::{slow_start_increase, Controller, Signal};
use crate::time::Time;

pub(super) struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
}

impl Reno {
    /// `initial_window` in segments (RFC 5681 (1) allows up to 4; RFC 6928 up to 10).
    pub fn new(mss: u64, initial_window: u32) -> Reno {
        // RFC 5681 §3.1: the initial ssthresh SHOULD be arbitrarily high.
        Reno { mss, cwnd: initial_window as u64 * mss, ssthresh: u64::MAX }
    }

    /// RFC 5681 (4): ssthresh = max(FlightSize / 2, 2*SMSS).
    fn reduced_ssthresh(&self, flight: u64) -> u64 {
        (flight / 2).max(2 * self.mss)
    }
}

impl Controller for Reno {
    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn on_ack(&mut self, _now: Time, acked: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd += slow_start_increase(acked, self.mss);
        } else {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1); // RFC 5681 (3)
        }
    }

    fn on_congestion(&mut self, _now: Time, flight: u64, _signal: Signal) {
        self.ssthresh = self.reduced_ssthresh(flight);
        self.cwnd = self.ssthresh;
    }

    fn on_rto(&mut self, _now: Time, flight: u64) {
        self.ssthresh = self.reduced_ssthresh(flight);
        self.cwnd = self.mss; // RFC 5681 §3.1: loss window LW = 1 SMSS
    }

    fn set_window(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.mss);
    }

    fn set_ssthresh(&mut self, bytes: u64) {
        self.ssthresh = bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut r = Reno::new(1000, 2);
        r.on_ack(Time::ZERO, 3000);
        assert_eq!(r.window(), 3000, "slow start grows by at most one SMSS per ACK");
        r.on_congestion(Time::ZERO, 10_000, Signal::Loss);
        assert_eq!((r.ssthresh(), r.window()), (5000, 5000));
        r.on_ack(Time::ZERO, 1000);
        assert_eq!(r.window(), 5200, "SMSS*SMSS/cwnd");
        r.on_rto(Time::ZERO, 1000);
        assert_eq!((r.ssthresh(), r.window()), (2000, 1000), "floor of 2 SMSS, loss window 1 SMSS");
    }
}
