//! A link's capacity over time: a fixed rate, a schedule of rates, or a
//! Mahimahi trace of delivery opportunities.
//!
//! A scenario's `rate` is one of
//! - `"384kbps"`: a fixed rate;
//! - `{ steps = [["0s", "2Mbps"], ["10s", "384kbps"]], repeat = "20s" }`: a
//!   piecewise-constant rate ([`schedule`]; `repeat` optional);
//! - `{ trace = "path" }`: a Mahimahi trace ([`trace`]); a relative path
//!   is relative to the scenario file's directory. `offset = "20s"` starts
//!   the link that far into the trace (looping); `offset = "random"` draws
//!   where, for each run seed, uniformly over the trace's period in whole
//!   milliseconds, so that replications of a measured trace see different
//!   stretches of it: without, every seed replays the same capacity from its
//!   first millisecond (Mahimahi itself always starts at the beginning; the
//!   offset is our choice). Every link of a run takes the same fraction of
//!   its period (one draw, stream `trace.offset`): a downlink and an uplink
//!   trace of one measurement stay aligned.
//!
//! [`Transmitter`] serves packets at that capacity. The rate a link *reports*
//! to its queue discipline (PDPC's and ARED's adaptive thresholds, PIE's
//! queueing delay, TTLRED): the fixed rate; a schedule's current rate; a
//! trace's mean rate over its period (all opportunities' bytes over the
//! period), which is never zero even in a trace's outages.

pub mod schedule;
pub mod trace;
mod transmitter;

pub use schedule::Schedule;
pub use trace::Trace;
pub use transmitter::Transmitter;

use crate::scenario::nested_error;
use crate::time::Dur;
use crate::units::Rate;
use rand::Rng;
use serde::de::{self, value::MapAccessDeserializer, Deserializer, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// A link's `rate` (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub enum LinkRate {
    Fixed(Rate),
    Steps(Schedule),
    Trace(TraceFile),
}

/// A trace named by a scenario, and its opportunities once read ([`LinkRate::load`]).
#[derive(Clone, Debug)]
pub struct TraceFile {
    /// As the scenario gives it.
    pub path: String,
    /// Where in the trace the link starts.
    pub offset: TraceOffset,
    trace: Option<Arc<Trace>>,
}

/// Where in its trace a link starts (`offset`, see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceOffset {
    /// This far into the trace (looping); `"0s"`, its beginning, by default.
    At(Dur),
    /// Drawn for each run seed.
    Random,
}

impl PartialEq for TraceFile {
    fn eq(&self, other: &TraceFile) -> bool {
        self.path == other.path && self.offset == other.offset
    }
}

impl TraceFile {
    /// The opportunities; the scenario reader loaded them.
    pub fn trace(&self) -> &Arc<Trace> {
        self.trace.as_ref().expect("the scenario reader loads every trace (Scenario::load_traces)")
    }

    /// How far into the trace the link starts in the run of `seed`: the
    /// offset given, or the one drawn (whole milliseconds of the period), modulo the period.
    pub fn start(&self, seed: u64) -> Dur {
        let period = self.trace().period();
        match self.offset {
            TraceOffset::At(d) => Dur(d.0 % period.0),
            TraceOffset::Random => {
                let fraction: f64 = crate::rng::stream(seed, "trace.offset").random();
                Dur::from_millis((fraction * (period.0 / 1_000_000) as f64) as u64)
            }
        }
    }
}

impl From<Rate> for LinkRate {
    fn from(r: Rate) -> LinkRate {
        LinkRate::Fixed(r)
    }
}

impl LinkRate {
    /// Reads the trace file, if any; a relative path is relative to `dir`.
    pub fn load(&mut self, dir: &Path) -> Result<(), String> {
        if let LinkRate::Trace(t) = self {
            t.trace = Some(trace::load(&dir.join(&t.path))?);
        }
        Ok(())
    }
}

/// The table form of `rate`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    steps: Option<Vec<(Dur, Rate)>>,
    repeat: Option<Dur>,
    trace: Option<String>,
    offset: Option<String>,
}

impl Table {
    fn into_rate(self) -> Result<LinkRate, String> {
        let offset = match (self.offset.as_deref(), &self.trace) {
            (None, _) => TraceOffset::At(Dur::ZERO),
            (Some(_), None) => return Err(nested_error("offset", "is for a trace (where in it the link starts)")),
            (Some("random"), _) => TraceOffset::Random,
            (Some(d), _) => TraceOffset::At(
                Dur::parse(d)
                    .map_err(|e| nested_error("offset", &format!("expected a time like \"20s\" or \"random\": {e}")))?,
            ),
        };
        match (self.steps, self.trace) {
            (Some(steps), None) => {
                let steps = steps.into_iter().map(|(at, r)| (at, r.bps())).collect();
                Schedule::new(steps, self.repeat).map(LinkRate::Steps).map_err(|e| {
                    let (key, msg) = e.split_once(": ").expect("schedule errors name their key");
                    nested_error(key, msg)
                })
            }
            (None, Some(path)) if self.repeat.is_none() => Ok(LinkRate::Trace(TraceFile { path, offset, trace: None })),
            (None, Some(_)) => Err(nested_error("repeat", "a trace repeats at its end by itself; repeat is for steps")),
            _ => Err("give either steps (a schedule of rates) or trace (a Mahimahi trace file)".into()),
        }
    }
}

impl<'de> Deserialize<'de> for LinkRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LinkRate, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LinkRate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a rate like \"384kbps\", { steps = [[\"0s\", \"2Mbps\"], …] } or { trace = \"file\" }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LinkRate, E> {
                Rate::parse(v).map(LinkRate::Fixed).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LinkRate, E> {
                Err(E::custom(format!("expected a string with a unit, like \"384kbps\", got the bare number {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LinkRate, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LinkRate, E> {
                Err(E::custom(format!("expected a string with a unit, like \"384kbps\", got the bare number {v}")))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<LinkRate, A::Error> {
                Table::deserialize(MapAccessDeserializer::new(map))?.into_rate().map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for LinkRate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LinkRate::Fixed(r) => r.serialize(s),
            LinkRate::Steps(sch) => {
                let mut m = s.serialize_map(None)?;
                let steps: Vec<(Dur, Rate)> = sch.steps().iter().map(|&(at, bps)| (at, Rate(bps))).collect();
                m.serialize_entry("steps", &steps)?;
                if let Some(p) = sch.repeat() {
                    m.serialize_entry("repeat", &p)?;
                }
                m.end()
            }
            LinkRate::Trace(t) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("trace", &t.path)?;
                match t.offset {
                    TraceOffset::At(d) if d == Dur::ZERO => {}
                    TraceOffset::At(d) => m.serialize_entry("offset", &d)?,
                    TraceOffset::Random => m.serialize_entry("offset", "random")?,
                }
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    struct Holder {
        rate: LinkRate,
    }

    fn parse(s: &str) -> Result<LinkRate, String> {
        let value: toml::Value = format!("rate = {s}").parse().unwrap();
        serde_path_to_error::deserialize::<_, Holder>(value)
            .map(|h| h.rate)
            .map_err(|e| crate::scenario::describe(&e.path().to_string(), &e.inner().to_string()))
    }

    #[test]
    fn the_three_forms_read_and_write_back() {
        assert_eq!(parse("\"2Mbps\"").unwrap(), LinkRate::Fixed(Rate(2e6)));
        let steps = parse("{ steps = [[\"0s\", \"2Mbps\"], [\"10s\", \"384kbps\"]], repeat = \"20s\" }").unwrap();
        let want = Schedule::new(vec![(Dur::ZERO, 2e6), (Dur::from_secs(10), 384e3)], Some(Dur::from_secs(20)));
        assert_eq!(steps, LinkRate::Steps(want.unwrap()));
        let trace = parse("{ trace = \"data/x.down\" }").unwrap();
        assert!(
            matches!(&trace, LinkRate::Trace(t) if t.path == "data/x.down" && t.offset == TraceOffset::At(Dur::ZERO))
        );
        let random = parse("{ trace = \"x\", offset = \"random\" }").unwrap();
        assert!(matches!(&random, LinkRate::Trace(t) if t.offset == TraceOffset::Random));
        let at = parse("{ trace = \"x\", offset = \"20s\" }").unwrap();
        assert!(matches!(&at, LinkRate::Trace(t) if t.offset == TraceOffset::At(Dur::from_secs(20))));
        for rate in [LinkRate::Fixed(Rate(2e6)), steps, trace, random, at] {
            let text = toml::to_string(&Holder { rate: rate.clone() }).unwrap();
            assert_eq!(toml::from_str::<Holder>(&text).unwrap().rate, rate, "{text}");
        }
    }

    #[test]
    fn errors_name_the_key_inside_rate() {
        assert_eq!(
            parse("3").unwrap_err(),
            "rate: expected a string with a unit, like \"384kbps\", got the bare number 3"
        );
        assert!(parse("{ stesp = [] }").unwrap_err().starts_with("rate.stesp: unknown key"));
        assert_eq!(
            parse("{ steps = [[\"5s\", \"1Mbps\"]] }").unwrap_err(),
            "rate.steps: the first step must be at \"0s\", got 5s"
        );
        assert!(parse("{ steps = [[\"0s\", \"1Mbs\"]] }").unwrap_err().starts_with("rate.steps[0][1]:"));
        assert_eq!(
            parse("{ steps = [[\"0s\", \"1Mbps\"], [\"1s\", \"2Mbps\"]], repeat = \"1s\" }").unwrap_err(),
            "rate.repeat: must be later than the last step (1s), got 1s"
        );
        assert_eq!(
            parse("{ trace = \"x\", repeat = \"1s\" }").unwrap_err(),
            "rate.repeat: a trace repeats at its end by itself; repeat is for steps"
        );
        assert_eq!(
            parse("{ }").unwrap_err(),
            "rate: give either steps (a schedule of rates) or trace (a Mahimahi trace file)"
        );
        assert!(parse("{ trace = \"x\", offset = \"soon\" }").unwrap_err().starts_with("rate.offset: expected a time"));
        assert_eq!(
            parse("{ steps = [[\"0s\", \"1Mbps\"]], offset = \"1s\" }").unwrap_err(),
            "rate.offset: is for a trace (where in it the link starts)"
        );
    }
}
