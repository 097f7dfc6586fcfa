//! The uplink capacity of an LTE cell over time, and the transport block
//! bytes it gives each TTI.
//!
//! Bandwidth scenarios of lte-uplink-raqm.md: a fixed rate R; a square wave
//! that holds R_high for `period`, then R_low for `period`, repeating, high
//! first at t = 0 (the spec's choice: `period` is the dwell at each level); a
//! single down-switch from R_high to R_low at a given time (Figs. 7.15–7.17).
//! Each is a [`Schedule`] of rates, the type of a wired link's stepped `rate`.
//!
//! Transport block size (*simplification*, in place of TS 36.213 Table
//! 7.1.7.2.1-1 and link adaptation): a TTI starting at t offers
//! rate(t) × TTI / 8 bytes, the fraction of a byte carried to the next TTI so
//! that the long-run rate is exact. Grants share these bytes
//! ([`super::enb`]).

use crate::capacity::Schedule;
use crate::time::{Dur, Time};

/// The bytes each TTI offers, with the fraction carried over.
#[derive(Clone, Debug)]
pub struct Blocks {
    capacity: Schedule,
    tti: Dur,
    carry: f64,
}

impl Blocks {
    pub fn new(capacity: Schedule, tti: Dur) -> Blocks {
        Blocks { capacity, tti, carry: 0.0 }
    }

    /// The bytes of the TTI starting at `t` (call once per TTI, in order).
    pub fn take(&mut self, t: Time) -> u64 {
        let exact = self.carry + self.capacity.rate_at(t) * self.tti.0 as f64 / 8e9;
        let whole = exact.floor();
        self.carry = exact - whole;
        whole as u64
    }

    pub fn capacity(&self) -> &Schedule {
        &self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    #[test]
    fn a_square_wave_switches_at_the_stated_instants() {
        // 3 ↔ 10 Mb/s, period 2 s: high on [0, 2 s), low on [2 s, 4 s), high again from 4 s.
        let c = Schedule::square_wave(10e6, 3e6, Dur::from_secs(2));
        let at = |t: u64| c.rate_at(ms(t));
        assert_eq!([at(0), at(1999), at(2000), at(3999), at(4000), at(6000)], [10e6, 10e6, 3e6, 3e6, 10e6, 3e6]);
        let d = Schedule::down_switch(10e6, 0.5e6, Dur::from_secs(20));
        assert_eq!([d.rate_at(ms(19_999)), d.rate_at(ms(20_000)), d.rate_at(ms(99_000))], [10e6, 0.5e6, 0.5e6]);
    }

    #[test]
    fn blocks_are_rate_times_tti_with_the_fraction_carried() {
        let tti = Dur::from_millis(1);
        // 10 Mb/s: 1250 B every TTI.
        let mut b = Blocks::new(Schedule::fixed(10e6), tti);
        assert_eq!((0..3).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [1250, 1250, 1250]);
        // 36 kb/s: 4.5 B per TTI: 4, 5, 4, 5 … and 4500 B a second.
        let mut b = Blocks::new(Schedule::fixed(36e3), tti);
        assert_eq!((0..4).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [4, 5, 4, 5]);
        let total: u64 = (4..1004).map(|k| b.take(ms(k))).sum();
        assert_eq!(total, 4500);
        // The square wave's blocks follow its rate: 1250 B, then 375 B after 2 s.
        let mut b = Blocks::new(Schedule::square_wave(10e6, 3e6, Dur::from_secs(2)), tti);
        assert_eq!([b.take(ms(1999)), b.take(ms(2000))], [1250, 375]);
    }
}
