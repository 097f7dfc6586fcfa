//! Physical quantities with their units, as written in scenario files.
//!
//! Scenario values carry their unit: `"384kbps"`, `"70ms"`, `"100kB"`. A value
//! without a unit, with an unknown unit, negative, or outside the range the
//! integer-nanosecond clock can serve (rates 1 b/s … 10 Tb/s, durations up to
//! 2⁶³ ns) is rejected with a message giving the expected form. Prefixes are decimal (k = 1000) as in networking;
//! binary sizes use `KiB`/`MiB`.
//!
//! | quantity | units |
//! |---|---|
//! | [`Rate`] | `bps`, `kbps`, `Mbps`, `Gbps` (also `b/s`, `kb/s`, `Mb/s`, `Gb/s`) |
//! | [`Bytes`] | `B`, `kB`, `MB`, `GB`, `KiB`, `MiB`, `GiB`, `bit`, `kbit`, `Mbit` |
//! | [`Dur`] | `ns`, `us`, `ms`, `s`, `min` |
//! | [`Meters`] | `m`, `km` |
//! | [`Speed`] | `m/s`, `km/h` |
//! | [`Hertz`] | `Hz`, `kHz`, `MHz`, `GHz` |

use crate::time::Dur;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

/// A bit rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

/// An amount of data in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

/// A distance in metres (radio cells).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Meters(pub f64);

/// A speed in metres per second (a UE's).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Speed(pub f64);

/// A frequency or bandwidth in hertz.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Hertz(pub f64);

impl Rate {
    pub fn bps(self) -> f64 {
        self.0
    }
    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0 / 8.0
    }
}

/// Splits `"384kbps"` into `(384.0, "kbps")`.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let number_end = |s: &str| {
        s.char_indices()
            .find(|&(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))
            .map(|(i, _)| i)
            .unwrap_or(s.len())
    };
    let mut end = number_end(s);
    // An exponent (`1e6bps`, `2.5E-3s`): no unit starts with `e`.
    if let Some(exp) = s[end..].strip_prefix(['e', 'E']) {
        let digits = number_end(exp);
        if exp[..digits].bytes().any(|b| b.is_ascii_digit()) {
            end += 1 + digits;
        }
    }
    let (num, unit) = s.split_at(end);
    let value: f64 = num.parse().ok()?;
    Some((value, unit.trim()))
}

fn parse_with(s: &str, what: &str, example: &str, units: &[(&str, f64)]) -> Result<f64, String> {
    let expected = || format!("expected a {what} with a unit, like \"{example}\", got \"{s}\"");
    let (value, unit) = split_number(s).ok_or_else(expected)?;
    let factor = units.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f).ok_or_else(|| {
        let names: Vec<&str> = units.iter().map(|(u, _)| *u).collect();
        if unit.is_empty() {
            expected()
        } else {
            format!("unknown {what} unit \"{unit}\" in \"{s}\" (use one of {})", names.join(", "))
        }
    })?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("a {what} must be non-negative, got \"{s}\""));
    }
    Ok(value * factor)
}

const RATE_UNITS: &[(&str, f64)] = &[
    ("bps", 1.0),
    ("kbps", 1e3),
    ("Mbps", 1e6),
    ("Gbps", 1e9),
    ("b/s", 1.0),
    ("kb/s", 1e3),
    ("Mb/s", 1e6),
    ("Gb/s", 1e9),
];
const BYTE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("kB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("bit", 0.125),
    ("kbit", 125.0),
    ("Mbit", 125_000.0),
];
const TIME_UNITS: &[(&str, f64)] = &[("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9), ("min", 60e9)];
const LENGTH_UNITS: &[(&str, f64)] = &[("m", 1.0), ("km", 1e3)];
const SPEED_UNITS: &[(&str, f64)] = &[("m/s", 1.0), ("km/h", 1.0 / 3.6)];
const FREQUENCY_UNITS: &[(&str, f64)] = &[("Hz", 1.0), ("kHz", 1e3), ("MHz", 1e6), ("GHz", 1e9)];

/// The slowest rate a scenario may give: 1 b/s (the largest IP packet then
/// takes 6 days to send, well inside the clock).
const MIN_RATE_BPS: f64 = 1.0;
/// The fastest rate a scenario may give: 10 Tb/s. A 40-byte packet then takes
/// 32 ps, which [`Dur::transmission`] rounds up to the clock's 1 ns; faster
/// links would be all rounding.
const MAX_RATE_BPS: f64 = 1e13;
/// The longest duration a scenario may give: 2⁶³ ns (about 292 years), half
/// the range of the `u64` nanosecond clock ([`crate::time`]), so that an
/// instant of a run plus any such duration still fits.
const MAX_DURATION_NS: f64 = 9_223_372_036_854_775_808.0;

impl Rate {
    /// Parses `"384kbps"`; rates outside 1 b/s … 10 Tb/s are refused.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let bps = parse_with(s, "rate", "384kbps", RATE_UNITS)?;
        if !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&bps) {
            return Err(format!("a rate must be between 1bps and 10000Gbps (10 Tb/s), got \"{s}\""));
        }
        Ok(Rate(bps))
    }
}
impl Bytes {
    pub fn parse(s: &str) -> Result<Bytes, String> {
        parse_with(s, "size", "100kB", BYTE_UNITS).map(|b| Bytes(b.round() as u64))
    }
}
impl Dur {
    /// Parses `"70ms"`; durations beyond 2⁶³ ns (about 292 years) are refused.
    pub fn parse(s: &str) -> Result<Dur, String> {
        let ns = parse_with(s, "duration", "70ms", TIME_UNITS)?;
        if ns > MAX_DURATION_NS {
            return Err(format!(
                "a duration must be at most 9223372036s (about 292 years: the clock counts nanoseconds in 64 bits), got \"{s}\""
            ));
        }
        Ok(Dur(ns.round() as u64))
    }
}

impl Meters {
    pub fn parse(s: &str) -> Result<Meters, String> {
        parse_with(s, "distance", "500m", LENGTH_UNITS).map(Meters)
    }
}
impl Speed {
    pub fn parse(s: &str) -> Result<Speed, String> {
        parse_with(s, "speed", "30m/s", SPEED_UNITS).map(Speed)
    }
}
impl Hertz {
    pub fn parse(s: &str) -> Result<Hertz, String> {
        parse_with(s, "frequency", "9MHz", FREQUENCY_UNITS).map(Hertz)
    }
}

/// Deserialises a quantity from a string with a unit; numbers are refused
/// with a message that shows the expected form.
struct QuantityVisitor<T> {
    parse: fn(&str) -> Result<T, String>,
    example: &'static str,
}

impl<'de, T> de::Visitor<'de> for QuantityVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a string with a unit, like \"{}\"", self.example)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(E::custom(format!("expected a string with a unit, like \"{}\", got the bare number {v}", self.example)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format!("expected a string with a unit, like \"{}\", got the bare number {v}", self.example)))
    }
}

macro_rules! quantity_serde {
    ($t:ty, $example:expr) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor { parse: <$t>::parse, example: $example })
            }
        }
    };
}
quantity_serde!(Rate, "384kbps");
quantity_serde!(Bytes, "100kB");
quantity_serde!(Dur, "70ms");
quantity_serde!(Meters, "500m");
quantity_serde!(Speed, "30m/s");
quantity_serde!(Hertz, "9MHz");

/// Writes `value` in the largest unit of `units` (ascending factors) that
/// keeps it exact, so the text parses back to the same value.
fn format_with(value: f64, units: &[(&str, f64)]) -> String {
    let (unit, factor) =
        units.iter().rev().find(|(_, f)| value >= *f && (value / f).fract() == 0.0).copied().unwrap_or(units[0]);
    format!("{}{unit}", value / factor)
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_with(self.0, &RATE_UNITS[..4]))
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_with(self.0 as f64, &BYTE_UNITS[..4]))
    }
}

macro_rules! serialize_as_text {
    ($t:ty, $text:expr) => {
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$text(self))
            }
        }
    };
}
serialize_as_text!(Rate, Rate::to_string);
serialize_as_text!(Bytes, Bytes::to_string);
serialize_as_text!(Dur, |d: &Dur| format_with(d.0 as f64, TIME_UNITS[..4].as_ref()));
serialize_as_text!(Meters, |m: &Meters| format_with(m.0, LENGTH_UNITS));
serialize_as_text!(Speed, |v: &Speed| format!("{}m/s", v.0));
serialize_as_text!(Hertz, |f: &Hertz| format_with(f.0, FREQUENCY_UNITS));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(Rate::parse("384kbps").unwrap(), Rate(384_000.0));
        assert_eq!(Rate::parse("3.6Mb/s").unwrap(), Rate(3_600_000.0));
        assert_eq!(Bytes::parse("100kB").unwrap(), Bytes(100_000));
        assert_eq!(Bytes::parse("60kbit").unwrap(), Bytes(7_500));
        assert_eq!(Bytes::parse("1500 B").unwrap(), Bytes(1500));
        assert_eq!(Dur::parse("70ms").unwrap(), Dur::from_millis(70));
        assert_eq!(Dur::parse("1.5s").unwrap(), Dur::from_millis(1500));
        assert_eq!(Meters::parse("0.5km").unwrap(), Meters(500.0));
        assert_eq!(Speed::parse("0.83m/s").unwrap(), Speed(0.83));
        assert!((Speed::parse("108km/h").unwrap().0 - 30.0).abs() < 1e-12);
        assert_eq!(Hertz::parse("9MHz").unwrap(), Hertz(9e6));
        assert_eq!(serde_json::to_string(&Hertz(9e6)).unwrap(), "\"9MHz\"");
        assert_eq!(serde_json::to_string(&Meters(500.0)).unwrap(), "\"500m\"");
        assert_eq!(serde_json::to_string(&Speed(0.83)).unwrap(), "\"0.83m/s\"");
        assert!(Speed::parse("30").unwrap_err().contains("like \"30m/s\""));
    }

    #[test]
    fn formats_in_the_largest_exact_unit_and_parses_back() {
        assert_eq!(Rate(384_000.0).to_string(), "384kbps");
        assert_eq!(Rate(3_600_000.0).to_string(), "3600kbps");
        assert_eq!(Bytes(100_000).to_string(), "100kB");
        assert_eq!(Bytes(1460).to_string(), "1460B");
        assert_eq!(serde_json::to_string(&Dur::from_millis(70)).unwrap(), "\"70ms\"");
        assert_eq!(serde_json::to_string(&Dur::ZERO).unwrap(), "\"0ns\"");
        for d in [Dur(1), Dur::from_micros(1500), Dur::from_secs(1200)] {
            let text: String = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
            assert_eq!(Dur::parse(&text).unwrap(), d);
        }
    }

    #[test]
    fn rejects_bad_values_with_the_expected_form() {
        let e = Rate::parse("384kps").unwrap_err();
        assert!(e.contains("unknown rate unit \"kps\""), "{e}");
        let e = Dur::parse("70").unwrap_err();
        assert!(e.contains("like \"70ms\""), "{e}");
        assert_eq!(Rate::parse("1.5e6bps").unwrap(), Rate(1.5e6));
        assert_eq!(Dur::parse("2E-3s").unwrap(), Dur(2_000_000));
        let e = Rate::parse("1e99Mbps").unwrap_err();
        assert!(e.starts_with("a rate must be between 1bps and 10000Gbps"), "{e}");
        let e = Rate::parse("-5kbps").unwrap_err();
        assert!(e.contains("non-negative"), "{e}");
        assert!(Bytes::parse("kB").is_err());
    }

    #[test]
    fn rates_and_durations_stay_inside_the_clock() {
        assert_eq!(Rate::parse("1bps").unwrap(), Rate(1.0));
        assert_eq!(Rate::parse("10000Gbps").unwrap(), Rate(1e13));
        for bad in ["0bps", "0.5bps", "10001Gbps"] {
            let e = Rate::parse(bad).unwrap_err();
            assert!(e.starts_with("a rate must be between 1bps and 10000Gbps"), "{bad}: {e}");
        }
        assert_eq!(Dur::parse("9223372036s").unwrap(), Dur(9_223_372_036_000_000_000));
        let e = Dur::parse("100000000000s").unwrap_err();
        assert!(e.starts_with("a duration must be at most 9223372036s"), "{e}");
        assert!(Dur::parse("153722868min").is_err());
    }
}
