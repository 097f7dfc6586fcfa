//! Queue-length thresholds shared by RED, ARED and PDPC: fixed, or rate-adaptive.
//!
//! Source: Lakkakorpi & Cuny, WCNC 2006, scheme 3 (ARED):
//! the RNC knows the bearer rate and sets minTh = max(7500 B, delay × rate[B/s])
//! with delay 0.5 s, and maxTh = 3 · minTh. Fixed thresholds are in bytes (the
//! WCDMA study's 10 kB / 30 kB) or in packets (the HS-DSCH study's t_min = n,
//! t_max = 4·n; the RLC study's thresholds in SDUs).
//!
//! Scenario forms (the key is `thresholds`):
//! - `{ min = "10kB", max = "30kB" }`: fixed, in bytes (the queue is measured in bytes);
//! - `{ min = 5, max = 20 }`: fixed, in packets (the queue is measured in packets);
//! - `"adaptive"` or `{ delay = "0.5s", floor = "7500B", ratio = 3 }`: rate-adaptive,
//!   in bytes; keys left out take the study's values.

use super::Fifo;
use crate::time::Dur;
use crate::units::Bytes;
use serde::de::{self, value::MapAccessDeserializer, Deserializer, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A fixed threshold: an amount of bytes (`"10kB"`) or a number of packets (`5`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    Bytes(Bytes),
    Packets(u32),
}

/// How a scheme's two queue thresholds are set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Thresholds {
    /// Fixed thresholds `min < max`, both in bytes or both in packets.
    Fixed { min: Level, max: Level },
    /// Rate-adaptive (bytes): `min = max(floor, delay × rate / 8)`, `max = ratio × min`.
    Adaptive {
        /// Queuing delay the lower threshold corresponds to at the link's rate (study: 0.5 s).
        delay: Dur,
        /// Lower bound of the lower threshold (study: 7500 B).
        floor: Bytes,
        /// Upper threshold as a multiple of the lower one (study: 3).
        ratio: f64,
    },
}

/// The unit a queue is measured in to compare it with its thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Bytes,
    Packets,
}

impl Measure {
    /// The queue's occupancy in this unit.
    pub fn of(self, fifo: &Fifo) -> f64 {
        match self {
            Measure::Bytes => fifo.bytes() as f64,
            Measure::Packets => fifo.len() as f64,
        }
    }
}

impl Thresholds {
    /// The WCDMA study's rate-adaptive thresholds (ARED, PDPC).
    pub const ADAPTIVE: Thresholds =
        Thresholds::Adaptive { delay: Dur::from_millis(500), floor: Bytes(7500), ratio: 3.0 };

    /// Fixed thresholds in bytes.
    pub fn bytes(min: u64, max: u64) -> Thresholds {
        Thresholds::Fixed { min: Level::Bytes(Bytes(min)), max: Level::Bytes(Bytes(max)) }
    }

    /// Fixed thresholds in packets.
    pub fn packets(min: u32, max: u32) -> Thresholds {
        Thresholds::Fixed { min: Level::Packets(min), max: Level::Packets(max) }
    }

    /// The unit the queue is measured in: packets for packet thresholds, else bytes.
    pub fn measure(&self) -> Measure {
        match self {
            Thresholds::Fixed { min: Level::Packets(_), .. } => Measure::Packets,
            _ => Measure::Bytes,
        }
    }

    /// `(min, max)` in the unit of [`Thresholds::measure`], at link rate `rate_bps`.
    pub fn at(&self, rate_bps: f64) -> (f64, f64) {
        let level = |l: Level| match l {
            Level::Bytes(b) => b.0 as f64,
            Level::Packets(p) => p as f64,
        };
        match *self {
            Thresholds::Fixed { min, max } => (level(min), level(max)),
            Thresholds::Adaptive { delay, floor, ratio } => {
                let min = (floor.0 as f64).max(delay.as_secs_f64() * rate_bps.max(0.0) / 8.0);
                (min, ratio * min)
            }
        }
    }

    /// Checks the thresholds at scenario key `key` (e.g. `bottleneck.queue.thresholds`).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        match *self {
            Thresholds::Fixed { min, max } => {
                if std::mem::discriminant(&min) != std::mem::discriminant(&max) {
                    return Err(format!("{key}: min and max must both be sizes (\"10kB\") or both packet counts (10)"));
                }
                let (lo, hi) = self.at(0.0);
                if hi <= lo {
                    return Err(format!("{key}.max: must exceed min"));
                }
                Ok(())
            }
            Thresholds::Adaptive { floor, ratio, .. } => {
                if floor.0 == 0 {
                    return Err(format!("{key}.floor: must be positive"));
                }
                if !(ratio > 1.0 && ratio.is_finite()) {
                    return Err(format!("{key}.ratio: must exceed 1, got {ratio}"));
                }
                Ok(())
            }
        }
    }
}

impl Serialize for Level {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Level::Bytes(b) => b.serialize(s),
            Level::Packets(p) => s.serialize_u32(*p),
        }
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Level;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size like \"10kB\" or a whole number of packets like 10")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Level, E> {
                Bytes::parse(v).map(Level::Bytes).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Level, E> {
                u32::try_from(v)
                    .map(Level::Packets)
                    .map_err(|_| E::custom(format!("a packet count must be a non-negative whole number, got {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Level, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(-1))
            }
        }
        d.deserialize_any(V)
    }
}

/// The table form; which keys are present decides fixed or adaptive.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    min: Option<Level>,
    max: Option<Level>,
    delay: Option<Dur>,
    floor: Option<Bytes>,
    ratio: Option<f64>,
}

impl Table {
    fn into_thresholds(self) -> Result<Thresholds, String> {
        let adaptive = self.delay.is_some() || self.floor.is_some() || self.ratio.is_some();
        match (self.min, self.max) {
            (Some(min), Some(max)) if !adaptive => Ok(Thresholds::Fixed { min, max }),
            (None, None) => {
                let Thresholds::Adaptive { delay, floor, ratio } = Thresholds::ADAPTIVE else { unreachable!() };
                Ok(Thresholds::Adaptive {
                    delay: self.delay.unwrap_or(delay),
                    floor: self.floor.unwrap_or(floor),
                    ratio: self.ratio.unwrap_or(ratio),
                })
            }
            _ => Err("give both min and max (fixed) or only delay/floor/ratio (adaptive)".into()),
        }
    }
}

impl<'de> Deserialize<'de> for Thresholds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Thresholds, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Thresholds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"adaptive\", { min = \"10kB\", max = \"30kB\" } or { delay = \"0.5s\", floor = \"7500B\", ratio = 3 }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Thresholds, E> {
                match v {
                    "adaptive" => Ok(Thresholds::ADAPTIVE),
                    _ => Err(E::custom(format!("expected \"adaptive\" or a table {{ min, max }}, got \"{v}\""))),
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Thresholds, A::Error> {
                Table::deserialize(MapAccessDeserializer::new(map))?.into_thresholds().map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Thresholds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(if matches!(self, Thresholds::Fixed { .. }) { 2 } else { 3 }))?;
        match self {
            Thresholds::Fixed { min, max } => {
                m.serialize_entry("min", min)?;
                m.serialize_entry("max", max)?;
            }
            Thresholds::Adaptive { delay, floor, ratio } => {
                m.serialize_entry("delay", delay)?;
                m.serialize_entry("floor", &Level::Bytes(*floor))?;
                m.serialize_entry("ratio", ratio)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    struct Holder {
        thresholds: Thresholds,
    }

    fn parse(s: &str) -> Result<Thresholds, String> {
        toml::from_str::<Holder>(&format!("thresholds = {s}"))
            .map(|h| h.thresholds)
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn adaptive_thresholds_at_64k_and_3_6m() {
        let t = Thresholds::ADAPTIVE;
        // 64 kb/s = 8000 B/s; 0.5 s × 8000 B/s = 4000 B < 7500 B, so the floor: 7500 B, maxTh 22500 B.
        assert_eq!(t.at(64e3), (7500.0, 22500.0));
        // 3.6 Mb/s = 450000 B/s; 0.5 s × 450000 = 225000 B, maxTh 675000 B.
        assert_eq!(t.at(3.6e6), (225000.0, 675000.0));
        // 384 kb/s = 48000 B/s → 24000 B, 72000 B.
        assert_eq!(t.at(384e3), (24000.0, 72000.0));
        assert_eq!(t.measure(), Measure::Bytes);
    }

    #[test]
    fn scenario_forms() {
        assert_eq!(parse(r#"{ min = "10kB", max = "30kB" }"#), Ok(Thresholds::bytes(10_000, 30_000)));
        assert_eq!(parse("{ min = 5, max = 20 }"), Ok(Thresholds::packets(5, 20)));
        assert_eq!(parse("{ min = 5, max = 20 }").unwrap().measure(), Measure::Packets);
        assert_eq!(parse(r#""adaptive""#), Ok(Thresholds::ADAPTIVE));
        assert_eq!(
            parse(r#"{ delay = "0.2s" }"#),
            Ok(Thresholds::Adaptive { delay: Dur::from_millis(200), floor: Bytes(7500), ratio: 3.0 })
        );
        assert!(parse(r#"{ min = "10kB" }"#).unwrap_err().contains("give both min and max"));
        assert!(parse(r#"{ min = 5, max = 20, ratio = 2 }"#).is_err());
        assert!(parse(r#"{ min = -5, max = 20 }"#).unwrap_err().contains("non-negative"));
        assert!(parse(r#"{ mni = 5 }"#).unwrap_err().contains("unknown field"));
        assert!(parse(r#""fixed""#).is_err());
        for t in [Thresholds::bytes(10_000, 30_000), Thresholds::packets(5, 20), Thresholds::ADAPTIVE] {
            let text = toml::to_string(&Holder { thresholds: t }).unwrap();
            assert_eq!(toml::from_str::<Holder>(&text).unwrap().thresholds, t, "{text}");
        }
    }

    #[test]
    fn validation_names_the_key() {
        let k = "bottleneck.queue.thresholds";
        assert_eq!(Thresholds::bytes(30_000, 10_000).validate(k), Err(format!("{k}.max: must exceed min")));
        let mixed = Thresholds::Fixed { min: Level::Packets(5), max: Level::Bytes(Bytes(30_000)) };
        assert!(mixed.validate(k).unwrap_err().starts_with(k));
        let flat = Thresholds::Adaptive { delay: Dur::from_millis(500), floor: Bytes(7500), ratio: 1.0 };
        assert!(flat.validate(k).unwrap_err().starts_with(&format!("{k}.ratio:")));
        assert_eq!(Thresholds::ADAPTIVE.validate(k), Ok(()));
    }
}
