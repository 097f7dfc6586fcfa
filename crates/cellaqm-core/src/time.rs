//! Simulated time as integer nanoseconds.
//!
//! [`Time`] is an instant since the start of the run, [`Dur`] a span. Both are
//! `u64` nanoseconds (about 584 years of range), so no floating-point error
//! accumulates and equal times compare exactly. Models never read a clock:
//! every method that needs the time takes `now: Time`.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// Nanoseconds to seconds. Dividing by 10⁹ rounds once, to the nearest
/// double (60 s is 60.0); multiplying by the inexact 10⁻⁹ would round twice
/// (60.00000000000001).
fn ns_to_secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub fn as_secs_f64(self) -> f64 {
        ns_to_secs(self.0)
    }
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e9).round() as u64)
    }
    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

/// The earliest of `times` that are set (the next of several timers), `None` if none is.
/// A plain fold: on the per-packet path, cheaper than `into_iter().flatten().min()`.
pub fn earliest<const N: usize>(times: [Option<Time>; N]) -> Option<Time> {
    times.iter().fold(None, |best, &t| match (best, t) {
        (Some(b), Some(t)) => Some(b.min(t)),
        (b, t) => b.or(t),
    })
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur((s * 1e9).round() as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        ns_to_secs(self.0)
    }
    /// Milliseconds, rounded once like [`Dur::as_secs_f64`].
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Time to serialise `bytes` at `bits_per_sec`, rounded up to a whole nanosecond.
    pub fn transmission(bytes: u64, bits_per_sec: f64) -> Dur {
        let ns = bytes as f64 * 8e9 / bits_per_sec;
        // `ceil` without the libm call (this runs for every packet on every link).
        let whole = ns as u64;
        Dur(whole + ((whole as f64) < ns) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Mul<u64> for Dur {
    type Output = Dur;
    fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.as_millis_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_is_exact_and_saturating() {
        let t = Time::ZERO + Dur::from_millis(70) + Dur::from_micros(5);
        assert_eq!(t.0, 70_005_000);
        assert_eq!(t.since(Time(80_000_000)), Dur::ZERO);
        assert_eq!(Time::MAX + Dur::from_secs(1), Time::MAX);
        assert_eq!(Dur::from_millis(3) * 4, Dur::from_millis(12));
    }

    #[test]
    fn the_earliest_set_time() {
        assert_eq!(earliest::<3>([None, None, None]), None);
        assert_eq!(earliest([None, Some(Time(5)), Some(Time(3)), None]), Some(Time(3)));
        assert_eq!(earliest([Some(Time(7))]), Some(Time(7)));
    }

    #[test]
    fn whole_seconds_convert_exactly() {
        for s in [1, 3, 60, 1200, 86_400] {
            assert_eq!(Time(s * 1_000_000_000).as_secs_f64(), s as f64);
            assert_eq!(Dur::from_secs(s).as_secs_f64(), s as f64);
        }
        assert_eq!(Dur::from_millis(70).as_millis_f64(), 70.0);
        assert_eq!(Dur::from_millis(100).as_secs_f64(), 0.1);
    }

    #[test]
    fn transmission_time_of_a_1500_byte_packet_at_384kbps() {
        // 1500 B * 8 / 384000 b/s = 31.25 ms
        assert_eq!(Dur::transmission(1500, 384_000.0), Dur::from_micros(31_250));
    }
}
