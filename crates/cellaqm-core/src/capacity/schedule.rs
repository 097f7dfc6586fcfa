//! A piecewise-constant rate over time: steps and square waves of a bearer's rate.
//!
//! `steps = [["0s", "2Mbps"], ["10s", "384kbps"]]`: each step holds its rate
//! from its instant until the next step's; the first step is at 0 s. Without
//! `repeat` the last rate holds to the end of the run; with `repeat = P` the
//! schedule starts again every P (the rate at t is the rate at t mod P), so
//! `[["0s", "2Mbps"], ["5s", "384kbps"]]` with `repeat = "10s"` is a square
//! wave of period 10 s, 2 Mb/s first. The LTE uplink's bandwidth scenarios
//! ([`crate::radio::lte`]: fixed, square wave, down-switch) are schedules too.
//!
//! A packet's transmission spans steps at their rates: it ends when the
//! integral of the rate from its start reaches its bits. A transmission that
//! spans more than two cycles of a repeating schedule passes whole cycles at
//! once (their bits over the cycle), so that nanosecond steps cost no more
//! than second-long ones (they took minutes, a step at a time).

use crate::time::{Dur, Time};

/// Rates over time (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// (offset from the start of the schedule, rate in b/s); the first offset is 0, offsets increase.
    steps: Vec<(Dur, f64)>,
    /// The schedule starts again every `repeat`; later than the last step.
    repeat: Option<Dur>,
}

impl Schedule {
    /// Checks the steps (first at 0, increasing, before `repeat`) and builds the schedule.
    pub fn new(steps: Vec<(Dur, f64)>, repeat: Option<Dur>) -> Result<Schedule, String> {
        match steps.first() {
            None => return Err("steps: give at least one step, like [[\"0s\", \"2Mbps\"]]".into()),
            Some(&(at, _)) if at != Dur::ZERO => {
                return Err(format!("steps: the first step must be at \"0s\", got {}", fmt_dur(at)))
            }
            Some(_) => {}
        }
        if let Some(w) = steps.windows(2).find(|w| w[1].0 <= w[0].0) {
            return Err(format!("steps: instants must increase, got {} after {}", fmt_dur(w[1].0), fmt_dur(w[0].0)));
        }
        let last = steps.last().expect("checked: not empty").0;
        if let Some(p) = repeat.filter(|&p| p <= last) {
            return Err(format!("repeat: must be later than the last step ({}), got {}", fmt_dur(last), fmt_dur(p)));
        }
        Ok(Schedule { steps, repeat })
    }

    /// One rate for ever.
    pub fn fixed(bps: f64) -> Schedule {
        Schedule { steps: vec![(Dur::ZERO, bps)], repeat: None }
    }

    /// `high_bps` for `period`, then `low_bps` for `period`, repeating (high first).
    pub fn square_wave(high_bps: f64, low_bps: f64, period: Dur) -> Schedule {
        Schedule { steps: vec![(Dur::ZERO, high_bps), (period, low_bps)], repeat: Some(Dur(2 * period.0)) }
    }

    /// `high_bps` until `at`, then `low_bps` for ever.
    pub fn down_switch(high_bps: f64, low_bps: f64, at: Dur) -> Schedule {
        Schedule { steps: vec![(Dur::ZERO, high_bps), (at, low_bps)], repeat: None }
    }

    pub fn steps(&self) -> &[(Dur, f64)] {
        &self.steps
    }

    pub fn repeat(&self) -> Option<Dur> {
        self.repeat
    }

    /// The rate at `t` and when it next changes (`None`: never).
    fn segment(&self, t: Time) -> (f64, Option<Time>) {
        let (cycle_start, offset) = match self.repeat {
            Some(p) => (t.0 - t.0 % p.0, Dur(t.0 % p.0)),
            None => (0, Dur(t.0)),
        };
        let i = self.steps.partition_point(|&(at, _)| at <= offset) - 1;
        let end = match (self.steps.get(i + 1), self.repeat) {
            (Some(&(next, _)), _) => Some(next),
            (None, Some(p)) => Some(p),
            (None, None) => None,
        };
        (self.steps[i].1, end.map(|e| Time(cycle_start + e.0)))
    }

    /// The rate at `t`, b/s.
    pub fn rate_at(&self, t: Time) -> f64 {
        self.segment(t).0
    }

    /// The bits one cycle of period `repeat` carries.
    fn cycle_bits(&self, repeat: Dur) -> f64 {
        let ends = self.steps.iter().skip(1).map(|&(at, _)| at).chain([repeat]);
        self.steps.iter().zip(ends).map(|(&(at, bps), end)| bps * (end.0 - at.0) as f64 / 1e9).sum()
    }

    /// When a transmission of `bytes` that starts at `start` ends, each part
    /// at the rate of its step (rounded up to the nanosecond).
    pub fn finish(&self, start: Time, bytes: u64) -> Time {
        let (mut t, mut bits) = (start, bytes as f64 * 8.0);
        loop {
            let (bps, end) = self.segment(t);
            let ns = bits * 1e9 / bps;
            match end {
                Some(end) if t.0 as f64 + ns > end.0 as f64 => {
                    bits -= bps * end.since(t).0 as f64 / 1e9;
                    t = end;
                    // At a cycle's start with more than two cycles' bits left: all
                    // but the last whole cycle at once.
                    if let Some(p) = self.repeat.filter(|p| t.0.is_multiple_of(p.0)) {
                        let cycle = self.cycle_bits(p);
                        let whole = (bits / cycle).floor() - 1.0;
                        if whole >= 1.0 {
                            t = Time(t.0.saturating_add(p.0.saturating_mul(whole as u64)));
                            bits -= whole * cycle;
                        }
                    }
                }
                _ => return t + Dur(ns.ceil() as u64),
            }
        }
    }
}

/// A duration as a scenario writes it.
fn fmt_dur(d: Dur) -> String {
    serde_json::to_value(d).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| format!("{d:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    #[test]
    fn steps_hold_until_the_next_and_repeat_with_the_period() {
        let s = Schedule::new(vec![(Dur::ZERO, 2e6), (Dur::from_secs(10), 384e3)], None).unwrap();
        assert_eq!(
            [s.rate_at(ms(0)), s.rate_at(ms(9_999)), s.rate_at(ms(10_000)), s.rate_at(ms(999_000))],
            [2e6, 2e6, 384e3, 384e3]
        );
        let w = Schedule::new(vec![(Dur::ZERO, 2e6), (Dur::from_secs(5), 384e3)], Some(Dur::from_secs(10))).unwrap();
        let at = |t: u64| w.rate_at(ms(t));
        assert_eq!(
            [at(4_999), at(5_000), at(9_999), at(10_000), at(15_000), at(20_001)],
            [2e6, 384e3, 384e3, 2e6, 384e3, 2e6]
        );
        assert_eq!(w, Schedule::square_wave(2e6, 384e3, Dur::from_secs(5)));
    }

    #[test]
    fn a_transmission_spans_steps_at_their_rates() {
        // 8 Mb/s until 1 ms, then 1 Mb/s: a 1500-byte packet (12 000 bits) from 0.5 ms sends
        // 4 000 bits by 1 ms and the other 8 000 at 1 Mb/s: ends at 9 ms.
        let s = Schedule::down_switch(8e6, 1e6, Dur::from_millis(1));
        assert_eq!(s.finish(Time(500_000), 1500), ms(9));
        // Within one step it is Dur::transmission: 1500 B at 384 kb/s = 31.25 ms.
        let f = Schedule::fixed(384e3);
        assert_eq!(f.finish(ms(3), 1500), ms(3) + Dur::transmission(1500, 384e3));
        // A square wave 12 Mb/s ↔ 1.2 Mb/s, 1 ms each: 3 000 B = 24 000 bits need 12 000 in the
        // first high millisecond, 1 200 in the low one, and 10 800 of the next high one (0.9 ms).
        let w = Schedule::square_wave(12e6, 1.2e6, Dur::from_millis(1));
        assert_eq!(w.finish(ms(0), 3000), Time(2_900_000));
    }

    /// Nanosecond steps: a long transmission passes whole cycles at once,
    /// and ends where the step-by-step integral does (one step each was 12
    /// million steps for a packet at 1 kb/s: minutes per packet).
    #[test]
    fn a_transmission_over_many_cycles_takes_them_whole() {
        let w = Schedule::new(vec![(Dur::ZERO, 2e3), (Dur(1), 0.5e3)], Some(Dur(3))).unwrap();
        // 1 kb/s on average (2 kb/s for 1 ns, 0.5 kb/s for 2 ns): 1500 B = 12 000 bits in 12 s.
        let end = w.finish(Time::ZERO, 1500);
        assert!((end.0 as f64 - 12e9).abs() <= 3.0, "{end:?}");
        // A transmission within two cycles is integrated step by step, as before.
        let s = Schedule::square_wave(12e6, 1.2e6, Dur::from_millis(1));
        assert_eq!(s.finish(ms(0), 3000), Time(2_900_000));
    }

    #[test]
    fn bad_steps_are_refused_with_the_reason() {
        let e = |steps: Vec<(u64, f64)>, repeat: Option<u64>| {
            let steps = steps.into_iter().map(|(t, r)| (Dur::from_millis(t), r)).collect();
            Schedule::new(steps, repeat.map(Dur::from_millis)).unwrap_err()
        };
        assert_eq!(e(vec![], None), "steps: give at least one step, like [[\"0s\", \"2Mbps\"]]");
        assert_eq!(e(vec![(5, 1e6)], None), "steps: the first step must be at \"0s\", got 5ms");
        assert_eq!(e(vec![(0, 1e6), (5, 2e6), (5, 3e6)], None), "steps: instants must increase, got 5ms after 5ms");
        assert_eq!(e(vec![(0, 1e6), (5, 2e6)], Some(5)), "repeat: must be later than the last step (5ms), got 5ms");
    }
}
