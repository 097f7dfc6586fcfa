//! The catalogue of queue disciplines (`cellaqm list queues`): every scheme's
//! name, one-line rule and parameters with their default, unit and meaning;
//! and [`config`], which reads a scheme and its parameters for standalone use.
//!
//! Nothing here is typed twice: the scheme names are the scenario reader's
//! [`SCHEMES`], and each default is the scheme's params struct's `Default`,
//! serialised (so in scenario syntax with units: `"5ms"`, `"100kB"`). Only the
//! rule and the parameter descriptions are written here, in [`doc`], whose
//! `match` is exhaustive: a new [`QueueConfig`] variant does not compile
//! until it is described. The tests check that every serialised parameter is
//! described and every described one exists, and that docs/scenario.md
//! mentions every scheme and parameter.

use super::{QueueConfig, RedParams, Thresholds, SCHEMES};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::Serialize;
use std::fmt;

/// One parameter: `(name, unit, meaning)`; the name is the scenario key.
type ParamDoc = (&'static str, &'static str, &'static str);

/// What [`doc`] says about a scheme.
struct SchemeDoc {
    rule: &'static str,
    params: &'static [ParamDoc],
}

/// A scheme as listed by `cellaqm list queues`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scheme {
    /// The name after `scheme =` in a scenario.
    pub name: &'static str,
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

/// Every scheme, in the order of [`SCHEMES`].
pub fn catalogue() -> Vec<Scheme> {
    SCHEMES.iter().map(|&name| describe(name, &default_config(name))).collect()
}

/// Reads scheme `scheme` with its parameters given as a JSON object in
/// scenario syntax (`{"target": "5ms"}`), and validates it. Errors are one
/// line naming the parameter as `scheme.param` (e.g. `codel.target: ...`).
pub fn config(scheme: &str, params_json: &str) -> Result<QueueConfig, String> {
    if !SCHEMES.contains(&scheme) {
        return Err(format!("unknown queue scheme \"{scheme}\" (one of {})", SCHEMES.join(", ")));
    }
    let mut params: serde_json::Map<String, serde_json::Value> = serde_json::from_str(params_json)
        .map_err(|e| format!("{scheme}: the parameters must be a JSON object: {e}"))?;
    if params.contains_key("scheme") {
        return Err(format!("{scheme}.scheme: give the scheme only once, as the first argument"));
    }
    params.insert("scheme".into(), scheme.into());
    let cfg: QueueConfig = serde_path_to_error::deserialize(serde_json::Value::Object(params))
        .map_err(|e| crate::scenario::describe(&join(scheme, &e.path().to_string()), &e.inner().to_string()))?;
    cfg.validate(scheme)?;
    Ok(cfg)
}

fn join(scheme: &str, path: &str) -> String {
    if path.is_empty() || path == "." {
        scheme.to_string()
    } else {
        format!("{scheme}.{path}")
    }
}

/// The scheme with every parameter at its default.
fn default_config(name: &str) -> QueueConfig {
    let table = serde_json::json!({ "scheme": name });
    let cfg = QueueConfig::deserialize(table).unwrap_or_else(|e| panic!("scheme {name}: {e}"));
    // RED leaves its thresholds unset, meaning the ones `build` gives it; list those.
    match cfg {
        QueueConfig::Red(p) if p.thresholds.is_none() => {
            QueueConfig::Red(RedParams { thresholds: Some(RedParams::FIXED), ..p })
        }
        QueueConfig::Ared(p) if p.thresholds.is_none() => {
            QueueConfig::Ared(RedParams { thresholds: Some(Thresholds::ADAPTIVE), ..p })
        }
        other => other,
    }
}

fn describe(name: &'static str, cfg: &QueueConfig) -> Scheme {
    let doc = doc(cfg);
    let defaults = match Ordered::of(cfg) {
        Ordered::Map(entries) => entries,
        other => panic!("scheme {name} serialised as {}", other.text()),
    };
    let params = defaults
        .iter()
        .filter(|(key, _)| key != "scheme")
        .map(|(key, value)| {
            let (name, unit, meaning) =
                doc.params.iter().copied().find(|(n, _, _)| n == key).unwrap_or(("?", "?", "(not described)"));
            Param { name, default: value.text(), unit, meaning }
        })
        .collect();
    Scheme { name, rule: doc.rule, params }
}

const DROP: ParamDoc = ("drop", "tail | front", "which packet a signal falls on: the arrival or the oldest queued one");
const ECN: ParamDoc = ("ecn", "bool", "ECN-mark (CE) ECT packets instead of dropping them");

const RED: &[ParamDoc] = &[
    (
        "thresholds",
        "thresholds",
        "on the average queue: { min, max } in bytes (\"10kB\") or packets (5), or \
         rate-adaptive { delay, floor, ratio }",
    ),
    ("max_p", "probability", "drop probability at maxTh, in (0, 1]"),
    ("gentle", "bool", "p_b rises max_p → 1 between maxTh and 2·maxTh instead of jumping to 1"),
    ("w_q", "weight", "queue weight of the average, in (0, 1]; 1 = instantaneous queue"),
    ("mean_packet", "size", "typical packet size, for the average's decay while the queue is idle (w_q < 1)"),
    DROP,
    ECN,
];

/// The rule and parameters of each scheme (see the scheme's file for the source).
fn doc(cfg: &QueueConfig) -> SchemeDoc {
    let (rule, params): (&'static str, &'static [ParamDoc]) = match cfg {
        QueueConfig::TailDrop => ("drop the arriving packet when it does not fit the buffer limits (overflow)", &[]),
        QueueConfig::DropFront => {
            ("when the arrival does not fit, drop packets from the head until it does (overflow_front)", &[])
        }
        QueueConfig::Red(_) => (
            "RED (Floyd & Jacobson) on the average queue with count correction p_a = p_b/(1−count·p_b); \
             a signal drops (early) or marks the arrival or the head",
            RED,
        ),
        QueueConfig::Ared(_) => (
            "RED with rate-adaptive thresholds minTh = max(floor, delay × link rate), maxTh = ratio × minTh",
            RED,
        ),
        QueueConfig::Pdpc(_) => (
            "below minTh accept; between the thresholds signal only when the counter is 0; at maxTh signal; \
             a signal sets the counter to N, each accepted packet decrements it",
            &[
                ("thresholds", "thresholds", "on the instantaneous queue, as for red/ared"),
                ("counter", "packets", "N: packets accepted after a signal before the next one below maxTh"),
                DROP,
                ECN,
            ],
        ),
        QueueConfig::Ttlred1(_) => (
            "gentle RED on the sojourn time of the oldest queued packet; only every N-th packet may be signalled",
            &[
                ("low_th", "time", "sojourn time of the oldest packet where signalling starts"),
                ("high_th", "time", "sojourn time where the probability reaches max_p (1 at 2·high_th)"),
                ("max_p", "probability", "signal probability at high_th, in (0, 1]"),
                ("every", "packets", "N: only every N-th packet may be signalled (1 = no limit)"),
                DROP,
                ECN,
            ],
        ),
        QueueConfig::Ttlred2(_) => (
            "a random lifetime on entry (short with probability max_p); every scan period expired packets \
             are dropped (expired), except partly sent ones",
            &[
                ("low_th", "time", "shortest lifetime"),
                ("high_th", "time", "longest lifetime; also that of a SYN or of an arrival to an empty buffer"),
                ("max_p", "probability", "probability of a short lifetime, U(low_th, high_th/2)"),
                ("scan", "time", "period T of the scan for expired packets"),
                ("ecn", "bool", "ECN-mark expired ECT packets (once) instead of dropping them"),
            ],
        ),
        QueueConfig::Codel(_) => (
            "RFC 8289: once the head's sojourn time has stayed above target for an interval, drop at \
             departure (target_exceeded), the drops spaced interval/√count",
            &[
                ("target", "time", "acceptable standing queue delay (sojourn time)"),
                ("interval", "time", "how long the sojourn time must stay above target before dropping starts"),
                ECN,
                ("mtu", "size", "MAXPACKET: with this much or less queued, the sojourn never counts as above target"),
            ],
        ),
        QueueConfig::Pie(_) => (
            "RFC 8033: drop arrivals (early) with a probability a PI controller steers towards the target delay",
            &[
                ("target", "time", "QDELAY_REF: the target queue delay"),
                ("tupdate", "time", "T_UPDATE: period of the probability update"),
                ("alpha", "1/s", "weight of the deviation from target"),
                ("beta", "1/s", "weight of the delay trend"),
                ("max_burst", "time", "MAX_BURST: burst allowance"),
                ("ecn", "bool", "mark ECT packets instead of dropping while the probability is ≤ 10 %"),
                ("derandomize", "bool", "de-randomised dropping with the accumulated probability"),
                ("cap_drop_adjustment", "bool", "cap the probability step at 2 % once it is ≥ 10 %"),
                ("mean_packet", "size", "MEAN_PKTSIZE: no early drop with at most two of these queued"),
            ],
        ),
        QueueConfig::FqCodel(_) => (
            "RFC 8290: flows hashed into queues served by deficit round robin, CoDel per queue; over the \
             limits the head of the fattest queue is dropped (overflow_front)",
            &[
                ("flows", "count", "number of flow queues"),
                ("quantum", "size", "deficit round robin quantum"),
                ("target", "time", "CoDel target per queue"),
                ("interval", "time", "CoDel interval per queue"),
                ECN,
            ],
        ),
        QueueConfig::Dff => (
            "at departure, discard the head while the queue exceeds the buffer limits (overflow_front); \
             arrivals are never refused",
            &[],
        ),
        QueueConfig::PdcpDiscard(_) => (
            "at departure, discard heads that waited longer than delay_threshold (age)",
            &[("delay_threshold", "time", "discard timer: a head older than this at departure is discarded")],
        ),
        QueueConfig::Taqm(_) => (
            "at departure, with more than lower_drop_threshold packets queued, discard a head older than \
             max_age, or older than min_age and min_inter_drop after the previous drop (age)",
            &[
                ("min_age", "time", "minAgeThreshold: a head older than this may be dropped"),
                ("min_inter_drop", "time", "minInterDropTime: least time between two min_age drops"),
                ("lower_drop_threshold", "packets", "never drop with this many packets queued or fewer"),
                ("max_age", "time", "maxAgeThreshold: a head older than this is dropped regardless"),
            ],
        ),
    };
    SchemeDoc { rule, params }
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

    /// Every scheme of [`QueueConfig`] is listed, under the name it serialises with,
    /// and its described parameters are exactly its serialised ones.
    #[test]
    fn covers_every_scheme_and_parameter() {
        let list = catalogue();
        assert_eq!(list.iter().map(|s| s.name).collect::<Vec<_>>(), SCHEMES);
        for scheme in &list {
            let cfg = default_config(scheme.name);
            let Ordered::Map(entries) = Ordered::of(&cfg) else { panic!() };
            assert!(entries.iter().any(|(k, v)| k == "scheme" && v.text() == scheme.name), "{}", scheme.name);
            let serialised: BTreeSet<&str> =
                entries.iter().map(|(k, _)| k.as_str()).filter(|k| *k != "scheme").collect();
            let described: BTreeSet<&str> = doc(&cfg).params.iter().map(|p| p.0).collect();
            assert_eq!(serialised, described, "scheme {}: serialised vs described parameters", scheme.name);
            assert!(!scheme.rule.is_empty() && !scheme.rule.contains('\n'));
        }
    }

    /// The exhaustive `match` in [`doc`] covers every variant; this checks the
    /// catalogue reaches every variant too, by building one of each.
    #[test]
    fn catalogue_covers_every_queue_config_variant() {
        // Adding a variant to QueueConfig breaks this match; add the variant to `all` too.
        fn check(c: &QueueConfig) {
            match c {
                QueueConfig::TailDrop
                | QueueConfig::DropFront
                | QueueConfig::Red(_)
                | QueueConfig::Ared(_)
                | QueueConfig::Pdpc(_)
                | QueueConfig::Ttlred1(_)
                | QueueConfig::Ttlred2(_)
                | QueueConfig::Codel(_)
                | QueueConfig::Pie(_)
                | QueueConfig::FqCodel(_)
                | QueueConfig::Dff
                | QueueConfig::PdcpDiscard(_)
                | QueueConfig::Taqm(_) => {}
            }
        }
        let all = [
            QueueConfig::TailDrop,
            QueueConfig::DropFront,
            QueueConfig::Red(Default::default()),
            QueueConfig::Ared(Default::default()),
            QueueConfig::Pdpc(Default::default()),
            QueueConfig::Ttlred1(Default::default()),
            QueueConfig::Ttlred2(Default::default()),
            QueueConfig::Codel(Default::default()),
            QueueConfig::Pie(Default::default()),
            QueueConfig::FqCodel(Default::default()),
            QueueConfig::Dff,
            QueueConfig::PdcpDiscard(Default::default()),
            QueueConfig::Taqm(Default::default()),
        ];
        let listed: std::collections::HashSet<_> = catalogue().iter().map(|s| std::mem::discriminant(&default_config(s.name))).collect();
        for c in &all {
            check(c);
            assert!(listed.contains(&std::mem::discriminant(c)), "{c:?} is not in the catalogue");
        }
        assert_eq!(listed.len(), all.len());
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
        assert!(list.iter().find(|s| s.name == "tail_drop").unwrap().params.is_empty());
        // Every default, written back as a scenario value, reads as the default config.
        for scheme in &list {
            let table: Vec<String> = std::iter::once(format!("scheme = \"{}\"", scheme.name))
                .chain(scheme.params.iter().map(|p| {
                    let v = &p.default;
                    let quoted = v.starts_with('{') || v.parse::<f64>().is_ok() || v == "true" || v == "false";
                    if quoted { format!("{} = {v}", p.name) } else { format!("{} = \"{v}\"", p.name) }
                }))
                .collect();
            let back = super::super::testkit::scenario_queue(&format!("{{ {} }}", table.join(", ")))
                .unwrap_or_else(|e| panic!("{}: {e}", scheme.name));
            assert_eq!(back, default_config(scheme.name), "{}", scheme.name);
        }
    }

    #[test]
    fn config_reads_and_validates_with_the_parameter_named() {
        assert_eq!(config("codel", r#"{"target": "10ms"}"#).unwrap(), {
            QueueConfig::Codel(super::super::CodelParams { target: crate::time::Dur::from_millis(10), ..Default::default() })
        });
        assert_eq!(config("tail_drop", "{}").unwrap(), QueueConfig::TailDrop);
        let err = |s: &str, p: &str| config(s, p).unwrap_err();
        assert!(err("rde", "{}").starts_with("unknown queue scheme \"rde\" (one of tail_drop, "), "{}", err("rde", "{}"));
        assert!(err("codel", r#"{"target": 5}"#).starts_with("codel.target: expected a string with a unit"));
        assert!(err("codel", r#"{"tagret": "5ms"}"#).starts_with("codel.tagret: unknown key"));
        assert_eq!(err("codel", r#"{"target": "0s"}"#), "codel.target: must be positive");
        assert!(err("red", r#"{"max_p": 2.0}"#).starts_with("red.max_p:"));
        assert!(err("tail_drop", r#"{"limit": 5}"#).starts_with("tail_drop.limit: unknown key"));
        assert!(err("pdpc", "[1]").starts_with("pdpc: the parameters must be a JSON object"));
        for e in [err("codel", r#"{"target": 5}"#), err("rde", "{}")] {
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// docs/scenario.md's table of queue disciplines names every scheme and parameter.
    #[test]
    fn scenario_doc_mentions_every_scheme_and_parameter() {
        let text = include_str!("../../../../docs/scenario.md");
        for scheme in catalogue() {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", scheme.name)))
                .unwrap_or_else(|| panic!("docs/scenario.md: no row for `{}`", scheme.name));
            for p in &scheme.params {
                // `ared` lists its parameters "as `red`".
                if scheme.name != "ared" {
                    assert!(row.contains(&format!("`{}`", p.name)), "docs/scenario.md: `{}` lacks `{}`", scheme.name, p.name);
                }
            }
        }
    }
}
