//! Reading `queue = { scheme = "red", max_p = 0.1, ... }` (and a link's
//! `receiver = { scheme = "raqm", ... }`) from a scenario.
//!
//! serde's derived internally-tagged enums lose the key path of an error
//! inside the parameters, so the scheme is dispatched here by hand and each
//! parameter table is read with path tracking: a bad value is reported as
//! `bottleneck.queue.max_p: ...`, not just `bottleneck.queue: ...`.

use super::registry;
use super::QueueConfig;
use crate::scenario::nested_error;
use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};

/// Reads a scheme's parameter table, keeping the path of any error.
pub(crate) fn params<T: DeserializeOwned>(rest: toml::Table) -> Result<T, String> {
    serde_path_to_error::deserialize(toml::Value::Table(rest))
        .map_err(|e| nested_error(&e.path().to_string(), &e.inner().to_string()))
}

/// A scheme without parameters accepts no other key.
pub(super) fn no_params(rest: &toml::Table) -> Result<(), String> {
    match rest.keys().next() {
        Some(key) => Err(nested_error(key, "unknown key (the scheme has no parameters)")),
        None => Ok(()),
    }
}

/// Reads a scheme table `{ scheme = "<name>", <parameters> }`: `read` reads
/// the parameters of scheme `name`, or gives `None` for an unknown name;
/// `names` lists the known ones for the error. Errors name the key
/// (`scheme`, or the parameter) below the table.
pub(crate) fn scheme_table<'de, D, T>(
    d: D,
    names: &str,
    read: impl FnOnce(&str, toml::Table) -> Option<Result<T, String>>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let mut rest = toml::Table::deserialize(d)?;
    let scheme = match rest.remove("scheme") {
        Some(toml::Value::String(s)) => s,
        Some(other) => {
            let msg = format!("expected a scheme name ({names}), got {other}");
            return Err(D::Error::custom(nested_error("scheme", &msg)));
        }
        None => return Err(D::Error::custom(nested_error("scheme", &format!("missing (one of {names})")))),
    };
    match read(&scheme, rest) {
        Some(config) => config.map_err(D::Error::custom),
        None => {
            let msg = format!("unknown scheme \"{scheme}\" (one of {names})");
            Err(D::Error::custom(nested_error("scheme", &msg)))
        }
    }
}

impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scheme_table(d, &registry::one_of(), |scheme, rest| registry::find(scheme).map(|r| (r.read)(rest)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::SCHEMES;

    /// The serialised form (tagged by `scheme`) reads back as the same config, for every scheme.
    #[test]
    fn every_scheme_round_trips() {
        for scheme in SCHEMES.iter().map(|s| s.name) {
            let table: toml::Table = format!("scheme = \"{scheme}\"").parse().unwrap();
            let config = QueueConfig::deserialize(toml::Value::Table(table)).unwrap();
            let text = toml::to_string(&config).unwrap();
            assert!(text.contains(&format!("scheme = \"{scheme}\"")), "{text}");
            let back = QueueConfig::deserialize(toml::Value::Table(text.parse().unwrap())).unwrap();
            assert_eq!(back, config, "{scheme}");
        }
    }

    #[test]
    fn errors_name_the_parameter() {
        let err = |table: &str| super::super::testkit::scenario_queue(table).unwrap_err();
        assert!(err("{ scheme = \"red\", maxp = 0.1 }").starts_with("bottleneck.queue.maxp: unknown key"));
        assert!(err("{ scheme = \"codel\", target = 5 }").starts_with("bottleneck.queue.target: expected a string"));
        assert!(err("{ scheme = \"tail_drop\", limit = 5 }").starts_with("bottleneck.queue.limit: unknown key"));
        assert!(err("{ scheme = \"rde\" }").starts_with("bottleneck.queue.scheme: unknown scheme \"rde\""));
        assert!(err("{ max_p = 0.1 }").starts_with("bottleneck.queue.scheme: missing"));
        assert!(err("{ scheme = \"red\", thresholds = { min = \"10kB\", max = \"x\" } }")
            .starts_with("bottleneck.queue.thresholds"));
    }
}
