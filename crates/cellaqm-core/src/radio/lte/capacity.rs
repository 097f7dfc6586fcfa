//! The uplink capacity of an LTE cell over time, and the transport block
//! bytes it gives each TTI.
//!
//! Bandwidth scenarios of lte-uplink-raqm.md: a fixed rate R; a square wave
//! that holds R_high for `period`, then R_low for `period`, repeating, high
//! first at t = 0 (the spec's choice: `period` is the dwell at each level); a
//! single down-switch from R_high to R_low at a given time (Figs. 7.15–7.17);
//! the "realistic radio network", whose rate follows link adaptation on the
//! UE's fading channel ([`super::channel`]).
//!
//! Transport block size (*simplification*, in place of TS 36.213 Table
//! 7.1.7.2.1-1 and link adaptation): a TTI starting at t offers
//! rate(t) × TTI / 8 bytes, the fraction of a byte carried to the next TTI so
//! that the long-run rate is exact. Grants share these bytes
//! ([`super::enb`]).

use super::channel::Channel;
use crate::time::{Dur, Time};

/// The cell's uplink rate over time.
#[derive(Clone, Debug)]
pub enum Capacity {
    Fixed { bps: f64 },
    SquareWave { high_bps: f64, low_bps: f64, period: Dur },
    DownSwitch { high_bps: f64, low_bps: f64, at: Time },
    Channel(Box<Channel>),
}

impl Capacity {
    /// The rate at `t`, b/s (times in order: a channel moves on).
    pub fn rate_at(&mut self, t: Time) -> f64 {
        match self {
            Capacity::Fixed { bps } => *bps,
            Capacity::SquareWave { high_bps, low_bps, period } => match (t.0 / period.0) % 2 {
                0 => *high_bps,
                _ => *low_bps,
            },
            Capacity::DownSwitch { high_bps, low_bps, at } => match t < *at {
                true => *high_bps,
                false => *low_bps,
            },
            Capacity::Channel(channel) => channel.rate_at(t),
        }
    }
}

/// The bytes each TTI offers, with the fraction carried over.
#[derive(Clone, Debug)]
pub struct Blocks {
    capacity: Capacity,
    tti: Dur,
    carry: f64,
    /// The rate of the last TTI taken, b/s.
    rate: f64,
}

impl Blocks {
    pub fn new(capacity: Capacity, tti: Dur) -> Blocks {
        Blocks { capacity, tti, carry: 0.0, rate: 0.0 }
    }

    /// The bytes of the TTI starting at `t` (call once per TTI, in order).
    pub fn take(&mut self, t: Time) -> u64 {
        self.rate = self.capacity.rate_at(t);
        let exact = self.carry + self.rate * self.tti.0 as f64 / 8e9;
        let whole = exact.floor();
        self.carry = exact - whole;
        whole as u64
    }

    /// The rate of the last TTI taken, b/s.
    pub fn rate(&self) -> f64 {
        self.rate
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
        let mut c = Capacity::SquareWave { high_bps: 10e6, low_bps: 3e6, period: Dur::from_secs(2) };
        let mut at = |t: u64| c.rate_at(ms(t));
        assert_eq!([at(0), at(1999), at(2000), at(3999), at(4000), at(6000)], [10e6, 10e6, 3e6, 3e6, 10e6, 3e6]);
        let mut d = Capacity::DownSwitch { high_bps: 10e6, low_bps: 0.5e6, at: ms(20_000) };
        assert_eq!([d.rate_at(ms(19_999)), d.rate_at(ms(20_000)), d.rate_at(ms(99_000))], [10e6, 0.5e6, 0.5e6]);
    }

    #[test]
    fn blocks_are_rate_times_tti_with_the_fraction_carried() {
        let tti = Dur::from_millis(1);
        // 10 Mb/s: 1250 B every TTI.
        let mut b = Blocks::new(Capacity::Fixed { bps: 10e6 }, tti);
        assert_eq!((0..3).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [1250, 1250, 1250]);
        // 36 kb/s: 4.5 B per TTI: 4, 5, 4, 5 … and 4500 B a second.
        let mut b = Blocks::new(Capacity::Fixed { bps: 36e3 }, tti);
        assert_eq!((0..4).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [4, 5, 4, 5]);
        let total: u64 = (4..1004).map(|k| b.take(ms(k))).sum();
        assert_eq!(total, 4500);
        // The square wave's blocks follow its rate: 1250 B, then 375 B after 2 s.
        let mut b = Blocks::new(Capacity::SquareWave { high_bps: 10e6, low_bps: 3e6, period: Dur::from_secs(2) }, tti);
        assert_eq!([b.take(ms(1999)), b.take(ms(2000))], [1250, 375]);
    }
}
