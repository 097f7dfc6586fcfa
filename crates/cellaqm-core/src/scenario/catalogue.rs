//! Everything a scenario can name besides the queue schemes (those are
//! [`crate::queue::catalogue`]): the traffic models with their keys and
//! defaults, the `[tcp]` keys, and the kinds of link (the wired one a scenario
//! has without `[radio]`, and the radio bearers), for `cellaqm list`. Each list
//! is read from the registry the scenario parser itself uses ([`crate::traffic::MODELS`] with each model's keys read off its
//! `Deserialize` by [`super::keys::of`], [`TcpConfig::default`] with
//! [`crate::tcp::config::KEYS`], [`BearerKind::ALL`]), so it cannot drift
//! from what parses; the tests check the lists against the parser both ways.

use crate::radio::BearerKind;
use crate::tcp::TcpConfig;
use crate::traffic::{Model, MODELS};
use serde::Serialize;
use serde_json::Value;

/// One key of a traffic model or of `[tcp]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Key {
    pub name: String,
    /// As a scenario writes it (`"1460B"`, `30`, `"newreno"`); `None` for a required key
    /// and for an optional one that is absent unless given (e.g. a generator's `stop`).
    pub default: Option<Value>,
    /// The scenario must give it.
    pub required: bool,
    /// What it takes (`[tcp]` keys only).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub takes: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub meaning: &'static str,
}

/// A traffic model: its name, what each user does, its keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrafficModel {
    pub name: &'static str,
    pub does: &'static str,
    /// Keys without a default, with an example value (TOML).
    pub required: &'static str,
    pub keys: Vec<Key>,
}

/// A kind of link to the users: the wired link, or a radio bearer (`[radio] bearer = "…"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Link {
    pub name: &'static str,
    /// The section of its parameters.
    pub section: &'static str,
    pub what: &'static str,
}

/// What `cellaqm list traffic|tcp|links` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catalogue {
    pub traffic: Vec<TrafficModel>,
    pub tcp: Vec<Key>,
    /// The wired link (no `[radio]`), then each kind of radio bearer.
    pub links: Vec<Link>,
}

/// The link a scenario without `[radio]` has.
const WIRED: Link = Link {
    name: "wired",
    section: "bottleneck, uplink",
    what: "a point-to-point link per direction with a buffer and its queue discipline in front (no [radio])",
};

/// `value`'s keys in alphabetical order, with their values.
fn keys_of(value: Value) -> Vec<(String, Value)> {
    match value {
        Value::Object(map) => map.into_iter().collect(),
        other => unreachable!("a configuration serialises as a table, not {other}"),
    }
}

fn traffic_model(m: &Model) -> TrafficModel {
    let required: toml::Table = m.required.parse().expect("a model's example keys are TOML");
    let mut table = required.clone();
    table.insert("model".into(), toml::Value::String(m.name.into()));
    let source = crate::traffic::TrafficConfig::from_value(toml::Value::Table(table))
        .expect("a model parses with its required keys");
    let defaults = keys_of(source.sources[0].config.to_json());
    let keys = (m.keys)()
        .iter()
        .map(|&name| {
            let required = required.contains_key(name);
            let default = defaults.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            Key { name: name.into(), default: default.filter(|_| !required), required, takes: "", meaning: "" }
        })
        .collect();
    TrafficModel { name: m.name, does: m.does, required: m.required, keys }
}

/// The catalogue, read from the registries.
pub fn catalogue() -> Catalogue {
    let defaults = keys_of(serde_json::to_value(TcpConfig::default()).expect("TcpConfig serialises"));
    let tcp = crate::tcp::config::KEYS
        .iter()
        .map(|&(name, takes, meaning)| {
            let default = defaults.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            Key {
                name: name.into(),
                default: Some(default.expect("a listed [tcp] key is TcpConfig's")),
                required: false,
                takes,
                meaning,
            }
        })
        .collect();
    Catalogue {
        traffic: MODELS.iter().map(traffic_model).collect(),
        tcp,
        links: std::iter::once(WIRED)
            .chain(BearerKind::ALL.iter().map(|&(k, section, what)| Link { name: k.name(), section, what }))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    /// A scenario of `sections` (TOML), with a bottleneck unless they have a radio.
    fn parse(sections: &str) -> Result<Scenario, String> {
        let link = if sections.contains("[radio]") { "" } else { "[bottleneck]\nrate = \"1Mbps\"" };
        let traffic = if sections.contains("[traffic]") { "" } else { "[traffic]\nmodel = \"bulk\"" };
        let text = format!("duration = \"1s\"\n{link}\n{traffic}\n{sections}");
        Scenario::from_toml_str(&text, &[]).map_err(|e| e.0)
    }

    /// The names serde lists in its error for an unknown enum value of `key`.
    fn serde_choices(section: &str, key: &str) -> Vec<String> {
        let err = parse(&format!("[{section}]\n{key} = \"?\"")).unwrap_err();
        // `expected one of "reno", "newreno", "sack", got "?"` (or `expected "rfc" or "prr", got …`)
        let list = err.split("expected ").nth(1).unwrap_or_else(|| panic!("no choices in {err:?}"));
        let list = list.split(", got").next().unwrap();
        list.split('"').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn every_traffic_model_is_listed_and_parses() {
        let c = catalogue();
        for m in &c.traffic {
            parse(&format!("[traffic]\nmodel = \"{}\"\n{}", m.name, m.required)).unwrap();
            assert!(!m.keys.is_empty(), "{}", m.name);
            for k in &m.keys {
                assert_eq!(k.required, m.required.contains(&format!("{} =", k.name)), "{}.{}", m.name, k.name);
                // Every listed key is accepted: its default, or the example, or (an optional
                // key absent by default) refused only for its value, not as an unknown key.
                let value = match &k.default {
                    Some(v) => toml::Value::try_from(v.clone()).unwrap().to_string(),
                    None if k.required => continue,
                    None => "[]".into(),
                };
                let err = parse(&format!("[traffic]\nmodel = \"{}\"\n{}\n{} = {value}", m.name, m.required, k.name));
                assert!(
                    err.as_ref().map_or_else(|e| !e.contains("unknown key"), |_| true),
                    "{}.{}: {err:?}",
                    m.name,
                    k.name
                );
            }
            // And no other key: an unknown one's error lists exactly the listed keys.
            let err = parse(&format!("[traffic]\nmodel = \"{}\"\n{}\nnope = 1", m.name, m.required)).unwrap_err();
            let names: Vec<String> = m.keys.iter().map(|k| format!("`{}`", k.name)).collect();
            assert!(err.contains(&names.join(", ")), "{}: {err}", m.name);
        }
        // Any other name is refused, and the message lists exactly the catalogue.
        let err = parse("[traffic]\nmodel = \"nope\"").unwrap_err();
        let names: Vec<&str> = c.traffic.iter().map(|m| m.name).collect();
        assert!(err.ends_with(&format!("(use one of {})", names.join(", "))), "{err}");
        // A required key is required: the model does not parse without it.
        for m in c.traffic.iter().filter(|m| !m.required.is_empty()) {
            assert!(
                parse(&format!("[traffic]\nmodel = \"{}\"", m.name)).unwrap_err().contains("missing"),
                "{}",
                m.name
            );
        }
    }

    #[test]
    fn tcp_keys_are_the_configs_both_ways() {
        let mut listed: Vec<String> = catalogue().tcp.into_iter().map(|k| k.name).collect();
        listed.sort();
        let mut parsed: Vec<String> = crate::scenario::keys::of::<TcpConfig>().iter().map(|k| k.to_string()).collect();
        parsed.sort();
        assert_eq!(listed, parsed);
        // Each default parses back as the key's value; each listed choice parses; the enums
        // have no other choices (serde names them all in its error for an unknown one).
        for k in catalogue().tcp {
            let value = toml::Value::try_from(k.default.unwrap()).unwrap();
            parse(&format!("[tcp]\n{} = {value}", k.name)).unwrap();
            if k.takes.contains(" | ") && !k.takes.contains("packets") {
                let choices: Vec<&str> = k.takes.split(" | ").collect();
                for choice in &choices {
                    // With timestamps on and a clock tick: `spurious_rto = "eifel"` needs the
                    // timestamps, `rto_formula = "ns2"` the tick.
                    let with = "timestamps = true\ntimer_tick = \"10ms\"";
                    parse(&format!("[tcp]\n{with}\n{} = \"{choice}\"", k.name)).unwrap();
                }
                assert_eq!(serde_choices("tcp", &k.name), choices, "{}", k.name);
            }
        }
    }

    #[test]
    fn bearer_kinds_are_the_parsers() {
        let listed: Vec<&str> = catalogue().links.iter().skip(1).map(|b| b.name).collect();
        assert_eq!(serde_choices("radio", "bearer"), listed);
    }
}
