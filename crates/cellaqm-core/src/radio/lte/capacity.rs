//! The uplink capacity of an LTE cell over time, and the transport block
//! bytes it gives each TTI.
//!
//! Bandwidth scenarios of lte-uplink-raqm.md: a fixed rate R; a square wave
//! that holds R_high for `period`, then R_low for `period`, repeating, high
//! first at t = 0 (the spec's choice: `period` is the dwell at each level); a
//! single down-switch from R_high to R_low at a given time (Figs. 7.15–7.17).
//! Each is a [`Schedule`] of rates, the type of a wired link's stepped `rate`.
//! The "realistic radio network" is the other kind: its rate follows link
//! adaptation on the UE's fading channel ([`super::channel`]).
//!
//! Transport block size (*simplification*, in place of TS 36.213 Table
//! 7.1.7.2.1-1 and link adaptation): a TTI starting at t offers
//! rate(t) × TTI / 8 bytes, the fraction of a byte carried to the next TTI so
//! that the long-run rate is exact. Grants share these bytes
//! ([`crate::radio::ran::lte_ul::enb`]) through an [`Offer`]: with one rate for the cell (the
//! bandwidth scenarios) the TTI's bytes are every UE's alike; with each UE
//! on its own channel the TTI's resource (its resource blocks) is shared, a
//! UE turning the share it gets into bytes at its own rate (*our choice*:
//! a grant of g bytes to a UE whose whole TTI would carry B bytes takes g/B
//! of the resource; the rest of the TTI goes on to the next UE).

use super::channel::Channel;
use crate::capacity::Schedule;
use crate::time::{Dur, Time};

/// The cell's uplink rate over time.
#[derive(Clone, Debug)]
pub enum Capacity {
    /// Fixed, square wave or down-switch.
    Schedule(Schedule),
    /// The realistic radio network.
    Channel(Box<Channel>),
    /// A rate the system sets before each TTI ([`Offer::set_rate`]): the
    /// multi-cell downlink, whose SINR depends on the other cells' load.
    Set(f64),
}

impl Capacity {
    /// The rate at `t`, b/s (times in order: a channel moves on).
    pub fn rate_at(&mut self, t: Time) -> f64 {
        match self {
            Capacity::Schedule(s) => s.rate_at(t),
            Capacity::Channel(channel) => channel.rate_at(t),
            Capacity::Set(bps) => *bps,
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
        // `as` truncates: the floor of a non-negative value.
        let whole = exact as u64;
        self.carry = exact - whole as f64;
        whole
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
        let c = Schedule::square_wave(10e6, 3e6, Dur::from_secs(2));
        let at = |t: u64| c.rate_at(ms(t));
        assert_eq!([at(0), at(1999), at(2000), at(3999), at(4000), at(6000)], [10e6, 10e6, 3e6, 3e6, 10e6, 3e6]);
        let d = Schedule::down_switch(10e6, 0.5e6, Dur::from_secs(20));
        assert_eq!([d.rate_at(ms(19_999)), d.rate_at(ms(20_000)), d.rate_at(ms(99_000))], [10e6, 0.5e6, 0.5e6]);
    }

    /// Two UEs on their own channels, 10 and 2 Mb/s: 1250 and 250 B per TTI.
    /// UE 0 taking 625 B leaves half the resource: 125 B for UE 1; a starved
    /// TTI keeps each UE's share of what is left.
    #[test]
    fn each_ue_turns_its_share_into_bytes_at_its_own_rate() {
        let tti = Dur::from_millis(1);
        let fixed = |bps: f64| Blocks::new(Capacity::Schedule(Schedule::fixed(bps)), tti);
        let mut o = Offer::per_ue(vec![fixed(10e6), fixed(2e6)]);
        o.open(ms(0));
        assert_eq!((o.available(0), o.available(1), o.rate(1)), (1250, 250, 2e6));
        o.spend(0, 625);
        assert_eq!((o.available(0), o.available(1)), (625, 125));
        o.close(true);
        o.open(ms(1));
        assert_eq!((o.available(0), o.available(1)), (1875, 375));
        // One rate for the cell: the bytes are every UE's.
        let mut o = Offer::shared(fixed(10e6));
        o.open(ms(0));
        o.spend(1, 250);
        assert_eq!((o.available(0), o.available(1), o.schedulable(1)), (1000, 1000, true));
    }

    #[test]
    fn blocks_are_rate_times_tti_with_the_fraction_carried() {
        let tti = Dur::from_millis(1);
        let blocks = |s: Schedule| Blocks::new(Capacity::Schedule(s), tti);
        // 10 Mb/s: 1250 B every TTI.
        let mut b = blocks(Schedule::fixed(10e6));
        assert_eq!((0..3).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [1250, 1250, 1250]);
        // 36 kb/s: 4.5 B per TTI: 4, 5, 4, 5 … and 4500 B a second.
        let mut b = blocks(Schedule::fixed(36e3));
        assert_eq!((0..4).map(|k| b.take(ms(k))).collect::<Vec<_>>(), [4, 5, 4, 5]);
        let total: u64 = (4..1004).map(|k| b.take(ms(k))).sum();
        assert_eq!(total, 4500);
        // The square wave's blocks follow its rate: 1250 B, then 375 B after 2 s.
        let mut b = blocks(Schedule::square_wave(10e6, 3e6, Dur::from_secs(2)));
        assert_eq!([b.take(ms(1999)), b.take(ms(2000))], [1250, 375]);
    }
}

/// The rates the TTI's bytes follow: the cell's, one for every UE, or each UE's own channel.
#[derive(Clone, Debug)]
enum Rates {
    Shared(Blocks),
    PerUe(Vec<Blocks>),
}

/// What one TTI offers the grants, and what a starved TTI keeps for the next.
/// Each UE on its own channel belongs to a cell, whose TTI resource its
/// grants share (one cell unless [`Offer::move_to`] says otherwise).
#[derive(Clone, Debug)]
pub struct Offer {
    rates: Rates,
    /// Each UE's bytes of the whole TTI (one entry when shared).
    bytes: Vec<u64>,
    kept: Vec<u64>,
    /// The share of each cell's TTI resource left (each UE on its own channel).
    share: Vec<f64>,
    /// Each UE's cell (each UE on its own channel).
    cell: Vec<usize>,
}

impl Offer {
    /// One rate for the cell: every UE's bytes are the TTI's.
    pub fn shared(blocks: Blocks) -> Offer {
        Offer { rates: Rates::Shared(blocks), bytes: vec![0], kept: vec![0], share: vec![1.0], cell: Vec::new() }
    }

    /// Each UE on its own channel (`blocks[u]`: UE u's).
    pub fn per_ue(blocks: Vec<Blocks>) -> Offer {
        let n = blocks.len();
        Offer { rates: Rates::PerUe(blocks), bytes: vec![0; n], kept: vec![0; n], share: vec![1.0], cell: vec![0; n] }
    }

    /// Each UE on its own channel, in one of `cells` cells (all in cell 0 until moved).
    pub fn per_ue_in(blocks: Vec<Blocks>, cells: usize) -> Offer {
        Offer { share: vec![1.0; cells.max(1)], ..Offer::per_ue(blocks) }
    }

    /// UE `u` (on its own channel) is served by cell `c` from now on.
    pub fn move_to(&mut self, u: usize, c: usize) {
        self.cell[u] = c;
    }

    /// Sets UE `u`'s rate for the TTIs to come, b/s (a [`Capacity::Set`] channel).
    pub fn set_rate(&mut self, u: usize, bps: f64) {
        if let Rates::PerUe(v) = &mut self.rates {
            v[u].capacity = Capacity::Set(bps);
        }
    }

    /// The share of cell `c`'s resource this TTI has used so far (each UE on its own channel).
    pub fn used(&self, c: usize) -> f64 {
        1.0 - self.share[c]
    }

    /// Opens the TTI starting at `t` (once per TTI, in order): the bytes kept plus the TTI's.
    pub fn open(&mut self, t: Time) {
        match &mut self.rates {
            Rates::Shared(b) => self.bytes[0] = self.kept[0] + b.take(t),
            Rates::PerUe(v) => {
                for ((bytes, kept), b) in self.bytes.iter_mut().zip(&self.kept).zip(v.iter_mut()) {
                    *bytes = kept + b.take(t);
                }
            }
        }
        self.share.fill(1.0);
    }

    /// UE `u`'s rate in this TTI, b/s.
    pub fn rate(&self, u: usize) -> f64 {
        match &self.rates {
            Rates::Shared(b) => b.rate(),
            Rates::PerUe(v) => v[u].rate(),
        }
    }

    /// The bytes UE `u` could still have of this TTI.
    pub fn available(&self, u: usize) -> u64 {
        match self.rates {
            Rates::Shared(_) => self.bytes[0],
            Rates::PerUe(_) => (self.share[self.cell[u]] * self.bytes[u] as f64) as u64,
        }
    }

    /// Whether UE `u` may be granted in this TTI: on its own channel, not if
    /// its rate gives it no byte (it would starve the others' grants).
    pub fn schedulable(&self, u: usize) -> bool {
        matches!(self.rates, Rates::Shared(_)) || self.available(u) > 0
    }

    /// UE `u` takes `bytes` of the TTI (a grant, or a HARQ retransmission's block).
    pub fn spend(&mut self, u: usize, bytes: u64) {
        match self.rates {
            Rates::Shared(_) => self.bytes[0] = self.bytes[0].saturating_sub(bytes),
            Rates::PerUe(_) => {
                let whole = self.bytes[u] as f64;
                let share = &mut self.share[self.cell[u]];
                *share = if whole > 0.0 { (*share - bytes as f64 / whole).max(0.0) } else { 0.0 };
            }
        }
    }

    /// Closes the TTI: what is left is kept for the next one (`keep`) or not.
    pub fn close(&mut self, keep: bool) {
        for u in 0..self.kept.len() {
            self.kept[u] = if keep { self.available(u) } else { 0 };
        }
    }
}
