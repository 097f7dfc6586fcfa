//! The catalogue (`cellaqm list queues`): every buffer scheme of the
//! registry ([`SCHEMES`]), then the mechanisms that act elsewhere (R-AQM and
//! its queue-delay estimator at the receiver, ACK delay control on the reverse
//! path), each with its one-line rule and its parameters' defaults, units and
//! meanings; and [`config`] / [`read_params`], which read a scheme or a
//! mechanism and its parameters for standalone use.
//!
//! Nothing here is typed twice: the schemes' names, rules and parameter
//! descriptions are the registry's, and each default is the params struct's
//! `Default`, serialised (so in scenario syntax with units: `"5ms"`,
//! `"100kB"`). The tests check that every serialised parameter is described
//! and every described one exists, and that docs/scenario.md mentions every
//! buffer scheme and parameter.

use super::{ParamDoc, QueueConfig, RedParams, Registration, Thresholds, SCHEMES};
use crate::bsr::RaqmParams;
use crate::radio::AckDelayParams;
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Serialize;
use std::fmt;

/// Where an entry acts: at a managed buffer, selected per buffer in a
/// scenario with `queue = { scheme = "..." }`.
pub const BUFFER: &str = "buffer";
/// At the far end of the uplink (R-AQM at the eNodeB, on delivery).
pub const RECEIVER: &str = "receiver";
/// On the reverse path, acting on the ACKs (ACK delay control).
pub const REVERSE_PATH: &str = "reverse path";

/// An entry as listed by `cellaqm list queues`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scheme {
    /// The name: after `scheme =` in a scenario for a buffer scheme;
    /// `cellaqm.queues.make`'s first argument for those and R-AQM.
    pub name: &'static str,
    /// Where it acts: [`BUFFER`], [`RECEIVER`] or [`REVERSE_PATH`].
    pub acts_at: &'static str,
    /// The rule, in one line.
    pub rule: &'static str,
    pub params: Vec<Param>,
}

/// A parameter of a scheme.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Param {
    /// The scenario key.
    pub name: &'static str,
    /// The default, as it would be written in a scenario (`5ms`, `0.1`, `tail`,
    /// `{ min = "10kB", max = "30kB" }`).
    pub default: String,
    /// Unit or kind of value: `time`, `size`, `probability`, `packets`, ...
    pub unit: &'static str,
    pub meaning: &'static str,
}

/// A mechanism that is not a buffer scheme.
struct Other {
    name: &'static str,
    acts_at: &'static str,
    rule: &'static str,
    params: &'static [ParamDoc],
    /// Its parameters at their defaults, serialised.
    defaults: fn() -> Ordered,
}

/// R-AQM (`bsr/raqm.rs`), its estimator (`bsr/delay_estimator.rs`) and ACK delay control (`radio/bearer/ack_delay.rs`).
const OTHERS: &[Other] = &[
    Other {
        name: "raqm",
        acts_at: RECEIVER,
        rule: "R-AQM at the eNodeB, on delivery of RLC SDUs: with the latest BSR at or above \
               lower_drop_threshold, drop an SDU when the estimated head-of-line delay of the UE's buffer exceeds \
               min_age and the previous drop is more than min_inter_drop ago (receiver); in a scenario: \
               [uplink] receiver = { scheme = \"raqm\", ... } with bsr_period; standalone: queues.make(\"raqm\")",
        params: &[
            ("lower_drop_threshold", "size", "lowerDropThreshold: no drop while the latest BSR reports less than this"),
            ("min_age", "time", "minAgeThreshold: drop only when the estimated delay exceeds this"),
            ("min_inter_drop", "time", "minInterDropTime: least time between two drops"),
        ],
        defaults: || Ordered::of(&RaqmParams::default()),
    },
    Other {
        name: "delay_estimator",
        acts_at: RECEIVER,
        rule: "R-AQM's estimate of the head-of-line delay of the UE's buffer from each BSR (queue size), \
               the bytes received since the previous one and the interval; in a scenario: at the far end of \
               an [uplink] with bsr_period (summary: bsr); standalone: queues.DelayEstimator()",
        params: &[],
        defaults: || Ordered::Map(Vec::new()),
    },
    Other {
        name: "ack_delay",
        acts_at: REVERSE_PATH,
        rule: "hold uplink TCP ACKs while the forward buffer holds more than min_th packets: min_d (fixed), \
               or from min_d rising linearly to max_d at a full buffer while it keeps growing (variable), \
               or with the occupancy alone (linear); \
               ACKs keep their order; in a scenario: [ack_delay]",
        params: &[
            (
                "mode",
                "variable | fixed | linear",
                "fixed: min_d whenever above min_th; variable: rising while the occupancy grows; linear: with the occupancy",
            ),
            ("min_th", "packets", "forward buffer occupancy above which ACKs are delayed"),
            ("min_d", "time", "delay once above min_th"),
            ("max_d", "time", "largest delay (variable, linear), reached when the forward buffer is full"),
        ],
        defaults: || Ordered::of(&AckDelayParams::default()),
    },
];

/// Every buffer scheme, in the registry's order, then R-AQM, its estimator
/// and ACK delay control.
pub fn catalogue() -> Vec<Scheme> {
    let schemes = SCHEMES.iter().map(|s| describe(s.name, BUFFER, s.rule, s.params, Ordered::of(&default_config(s))));
    let others = OTHERS.iter().map(|o| describe(o.name, o.acts_at, o.rule, o.params, (o.defaults)()));
    schemes.chain(others).collect()
}

/// Reads buffer scheme `scheme` with its parameters given as a JSON object in
/// scenario syntax (`{"target": "5ms"}`), and validates it. Errors are one
/// line naming the parameter as `scheme.param` (e.g. `codel.target: ...`).
pub fn config(scheme: &str, params_json: &str) -> Result<QueueConfig, String> {
    if super::registry::find(scheme).is_none() {
        return Err(format!("unknown queue scheme \"{scheme}\" (one of {})", super::registry::one_of()));
    }
    let mut params = object(scheme, params_json)?;
    if params.contains_key("scheme") {
        return Err(format!("{scheme}.scheme: give the scheme only once, as the first argument"));
    }
    params.insert("scheme".into(), scheme.into());
    let cfg: QueueConfig = read(scheme, params)?;
    cfg.validate(scheme)?;
    Ok(cfg)
}

/// Reads the parameters of mechanism `name` (e.g. `raqm`) given as a JSON
/// object in scenario syntax; errors name the parameter as `name.param`.
/// The caller validates them.
pub fn read_params<T: DeserializeOwned>(name: &str, params_json: &str) -> Result<T, String> {
    read(name, object(name, params_json)?)
}

fn object(name: &str, params_json: &str) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    serde_json::from_str(params_json).map_err(|e| format!("{name}: the parameters must be a JSON object: {e}"))
}

fn read<T: DeserializeOwned>(name: &str, params: serde_json::Map<String, serde_json::Value>) -> Result<T, String> {
    serde_path_to_error::deserialize(serde_json::Value::Object(params))
        .map_err(|e| crate::scenario::describe(&join(name, &e.path().to_string()), &e.inner().to_string()))
}

fn join(scheme: &str, path: &str) -> String {
    if path.is_empty() || path == "." {
        scheme.to_string()
    } else {
        format!("{scheme}.{path}")
    }
}

/// The scheme with every parameter at its default; RED's unset thresholds
/// are listed as the ones `build` gives it.
fn default_config(scheme: &Registration) -> QueueConfig {
    match scheme.default_config() {
        QueueConfig::Red(p) if p.thresholds.is_none() => {
            QueueConfig::Red(RedParams { thresholds: Some(RedParams::FIXED), ..p })
        }
        QueueConfig::Ared(p) if p.thresholds.is_none() => {
            QueueConfig::Ared(RedParams { thresholds: Some(Thresholds::ADAPTIVE), ..p })
        }
        other => other,
    }
}

fn describe(
    name: &'static str,
    acts_at: &'static str,
    rule: &'static str,
    docs: &[ParamDoc],
    defaults: Ordered,
) -> Scheme {
    let defaults = match defaults {
        Ordered::Map(entries) => entries,
        other => panic!("{name}: parameters serialised as {}", other.text()),
    };
    let params = defaults
        .iter()
        .filter(|(key, _)| key != "scheme")
        .map(|(key, value)| {
            let (name, unit, meaning) =
                docs.iter().copied().find(|(n, _, _)| n == key).unwrap_or(("?", "?", "(not described)"));
            Param { name, default: value.text(), unit, meaning }
        })
        .collect();
    Scheme { name, acts_at, rule, params }
}

/// A serialised value with its maps in the order they were written
/// (`serde_json::Value` sorts keys, which would list `max` before `min`).
#[derive(Debug)]
enum Ordered {
    Text(String),
    Other(String),
    Map(Vec<(String, Ordered)>),
}

impl Ordered {
    fn of(value: &impl Serialize) -> Ordered {
        let json = serde_json::to_string(value).expect("queue configs serialise");
        serde_json::from_str(&json).expect("serialised JSON reads back")
    }

    /// Scenario syntax: strings bare at the top, quoted inside a table.
    fn text(&self) -> String {
        match self {
            Ordered::Text(s) => s.clone(),
            Ordered::Other(s) => s.clone(),
            Ordered::Map(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| match v {
                        Ordered::Text(s) => format!("{k} = \"{s}\""),
                        other => format!("{k} = {}", other.text()),
                    })
                    .collect();
                format!("{{ {} }}", inner.join(", "))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Ordered, E> {
                Ok(Ordered::Text(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Ordered, E> {
                Ok(Ordered::Other(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Ordered, E> {
                Ok(Ordered::Other(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Ordered, E> {
                Ok(Ordered::Other(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Ordered, E> {
                Ok(Ordered::Other(serde_json::Value::from(v).to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Ordered, E> {
                Ok(Ordered::Other("none".into()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The buffer schemes in the registry's order, then the others; each
    /// buffer scheme's default serialises under its registered name; each
    /// entry's listed parameters are exactly its described ones (a serialised
    /// parameter without a description would be listed as `?`).
    #[test]
    fn covers_every_scheme_and_parameter() {
        let list = catalogue();
        let buffer = SCHEMES.iter().map(|s| (s.name, BUFFER, s.params));
        let expected: Vec<_> = buffer.chain(OTHERS.iter().map(|o| (o.name, o.acts_at, o.params))).collect();
        assert_eq!(list.len(), expected.len());
        for (entry, (name, acts_at, docs)) in list.iter().zip(expected) {
            assert_eq!((entry.name, entry.acts_at), (name, acts_at));
            let listed: BTreeSet<&str> = entry.params.iter().map(|p| p.name).collect();
            let described: BTreeSet<&str> = docs.iter().map(|p| p.0).collect();
            assert_eq!(listed, described, "{name}: serialised vs described parameters");
            assert!(!entry.rule.is_empty() && !entry.rule.contains('\n'));
        }
        for scheme in SCHEMES {
            let Ordered::Map(entries) = Ordered::of(&scheme.default_config()) else { panic!() };
            assert!(entries.iter().any(|(k, v)| k == "scheme" && v.text() == scheme.name), "{}", scheme.name);
        }
        let acts_at = |name: &str| list.iter().find(|s| s.name == name).unwrap().acts_at;
        assert_eq!(
            (acts_at("raqm"), acts_at("delay_estimator"), acts_at("ack_delay")),
            (RECEIVER, RECEIVER, REVERSE_PATH)
        );
    }

    /// An entry's defaults as a TOML inline table's entries (`key = value, ...`).
    fn toml_entries(entry: &Scheme) -> Vec<String> {
        entry
            .params
            .iter()
            .map(|p| {
                let v = &p.default;
                let bare = v.starts_with('{') || v.parse::<f64>().is_ok() || v == "true" || v == "false";
                if bare {
                    format!("{} = {v}", p.name)
                } else {
                    format!("{} = \"{v}\"", p.name)
                }
            })
            .collect()
    }

    #[test]
    fn defaults_are_scenario_text_that_reads_back() {
        let list = catalogue();
        let param = |scheme: &str, name: &str| {
            let s = list.iter().find(|s| s.name == scheme).unwrap();
            s.params.iter().find(|p| p.name == name).unwrap().default.clone()
        };
        assert_eq!(param("codel", "target"), "5ms");
        assert_eq!(param("codel", "mtu"), "1500B");
        assert_eq!(param("red", "max_p"), "0.1");
        assert_eq!(param("red", "drop"), "tail");
        assert_eq!(param("red", "thresholds"), r#"{ min = "10kB", max = "30kB" }"#);
        assert_eq!(param("ared", "thresholds"), r#"{ delay = "500ms", floor = "7500B", ratio = 3.0 }"#);
        assert_eq!(param("pdpc", "counter"), "20");
        assert_eq!(param("pie", "cap_drop_adjustment"), "true");
        assert_eq!(param("raqm", "lower_drop_threshold"), "7500B");
        assert_eq!(param("raqm", "min_inter_drop"), "600ms");
        assert_eq!(param("ack_delay", "mode"), "variable");
        assert_eq!(param("ack_delay", "max_d"), "200ms");
        for empty in ["tail_drop", "delay_estimator"] {
            assert!(list.iter().find(|s| s.name == empty).unwrap().params.is_empty());
        }
        // Every default, written back as a scenario value, reads as the default.
        for scheme in SCHEMES {
            let entry = list.iter().find(|s| s.name == scheme.name).unwrap();
            let table: Vec<String> =
                std::iter::once(format!("scheme = \"{}\"", scheme.name)).chain(toml_entries(entry)).collect();
            let back = super::super::testkit::scenario_queue(&format!("{{ {} }}", table.join(", ")))
                .unwrap_or_else(|e| panic!("{}: {e}", scheme.name));
            assert_eq!(back, default_config(scheme), "{}", scheme.name);
        }
        let table = |name: &str| -> toml::Table {
            let entry = list.iter().find(|s| s.name == name).unwrap();
            toml_entries(entry).join("\n").parse().unwrap()
        };
        assert_eq!(RaqmParams::deserialize(table("raqm")).unwrap(), RaqmParams::default());
        assert_eq!(AckDelayParams::deserialize(table("ack_delay")).unwrap(), AckDelayParams::default());
    }

    #[test]
    fn config_reads_and_validates_with_the_parameter_named() {
        assert_eq!(config("codel", r#"{"target": "10ms"}"#).unwrap(), {
            QueueConfig::Codel(super::super::CodelParams {
                target: crate::time::Dur::from_millis(10),
                ..Default::default()
            })
        });
        assert_eq!(config("tail_drop", "{}").unwrap(), QueueConfig::TailDrop);
        let err = |s: &str, p: &str| config(s, p).unwrap_err();
        assert!(
            err("rde", "{}").starts_with("unknown queue scheme \"rde\" (one of tail_drop, "),
            "{}",
            err("rde", "{}")
        );
        assert!(err("codel", r#"{"target": 5}"#).starts_with("codel.target: expected a string with a unit"));
        assert!(err("codel", r#"{"tagret": "5ms"}"#).starts_with("codel.tagret: unknown key"));
        assert_eq!(err("codel", r#"{"target": "0s"}"#), "codel.target: must be positive");
        assert!(err("red", r#"{"max_p": 2.0}"#).starts_with("red.max_p:"));
        assert!(err("tail_drop", r#"{"limit": 5}"#).starts_with("tail_drop.limit: unknown key"));
        assert!(err("pdpc", "[1]").starts_with("pdpc: the parameters must be a JSON object"));
        for e in [err("codel", r#"{"target": 5}"#), err("rde", "{}")] {
            assert!(!e.contains('\n'), "{e}");
        }
        let raqm = |json: &str| read_params::<RaqmParams>("raqm", json);
        assert_eq!(raqm(r#"{"min_age": "0.5s"}"#).unwrap().min_age, crate::time::Dur::from_millis(500));
        assert!(raqm(r#"{"min_age": 5}"#).unwrap_err().starts_with("raqm.min_age: expected a string with a unit"));
        assert!(raqm(r#"{"min_agee": "5ms"}"#).unwrap_err().starts_with("raqm.min_agee: unknown key"));
    }

    /// docs/scenario.md's table of queue disciplines names every buffer scheme
    /// and parameter, its `[ack_delay]` table every ACK delay parameter, and
    /// its R-AQM section every R-AQM parameter.
    #[test]
    fn scenario_doc_mentions_every_scheme_and_parameter() {
        let text = include_str!("../../../../docs/scenario.md");
        for scheme in catalogue().into_iter().filter(|s| s.acts_at == BUFFER) {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", scheme.name)))
                .unwrap_or_else(|| panic!("docs/scenario.md: no row for `{}`", scheme.name));
            for p in &scheme.params {
                // `ared` lists its parameters "as `red`".
                if scheme.name != "ared" {
                    assert!(
                        row.contains(&format!("`{}`", p.name)),
                        "docs/scenario.md: `{}` lacks `{}`",
                        scheme.name,
                        p.name
                    );
                }
            }
        }
        let section =
            text.split("## ACK delay control: `[ack_delay]`").nth(1).expect("docs/scenario.md: no [ack_delay] section");
        let ack_delay = catalogue().into_iter().find(|s| s.name == "ack_delay").unwrap();
        for p in &ack_delay.params {
            assert!(
                section.contains(&format!("| `{}` |", p.name)),
                "docs/scenario.md [ack_delay]: no row for `{}`",
                p.name
            );
        }
        let section =
            text.split("### R-AQM and Buffer Status Reports").nth(1).expect("docs/scenario.md: no R-AQM section");
        let raqm = catalogue().into_iter().find(|s| s.name == "raqm").unwrap();
        for p in &raqm.params {
            assert!(section.contains(&format!("| `{}` |", p.name)), "docs/scenario.md R-AQM: no row for `{}`", p.name);
        }
    }
}
