//! Reading `queue = { scheme = "red", max_p = 0.1, ... }` from a scenario.
//!
//! serde's derived internally-tagged enums lose the key path of an error
//! inside the parameters, so the scheme is dispatched here by hand and each
//! parameter table is read with path tracking: a bad value is reported as
//! `bottleneck.queue.max_p: ...`, not just `bottleneck.queue: ...`.

use super::QueueConfig;
use crate::scenario::nested_error;
use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};

/// Every scheme name, as written after `scheme =`.
pub const SCHEMES: &[&str] = &[
    "tail_drop",
    "drop_front",
    "red",
    "ared",
    "pdpc",
    "ttlred1",
    "ttlred2",
    "codel",
    "pie",
    "fq_codel",
    "dff",
    "pdcp_discard",
    "taqm",
];

/// Reads a scheme's parameter table, keeping the path of any error.
fn params<T: DeserializeOwned, E: Error>(rest: toml::Table) -> Result<T, E> {
    serde_path_to_error::deserialize(toml::Value::Table(rest))
        .map_err(|e| E::custom(nested_error(&e.path().to_string(), &e.inner().to_string())))
}

/// A scheme without parameters accepts no other key.
fn no_params<E: Error>(scheme: &str, rest: &toml::Table) -> Result<(), E> {
    match rest.keys().next() {
        Some(key) => Err(E::custom(nested_error(key, &format!("unknown key (scheme \"{scheme}\" has no parameters)")))),
        None => Ok(()),
    }
}

impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut rest = toml::Table::deserialize(d)?;
        let one_of = || SCHEMES.join(", ");
        let scheme = match rest.remove("scheme") {
            Some(toml::Value::String(s)) => s,
            Some(other) => {
                return Err(D::Error::custom(nested_error("scheme", &format!("expected a scheme name ({}), got {other}", one_of()))))
            }
            None => return Err(D::Error::custom(nested_error("scheme", &format!("missing (one of {})", one_of())))),
        };
        Ok(match scheme.as_str() {
            "tail_drop" => no_params(&scheme, &rest).map(|_| QueueConfig::TailDrop)?,
            "drop_front" => no_params(&scheme, &rest).map(|_| QueueConfig::DropFront)?,
            "dff" => no_params(&scheme, &rest).map(|_| QueueConfig::Dff)?,
            "red" => QueueConfig::Red(params(rest)?),
            "ared" => QueueConfig::Ared(params(rest)?),
            "pdpc" => QueueConfig::Pdpc(params(rest)?),
            "ttlred1" => QueueConfig::Ttlred1(params(rest)?),
            "ttlred2" => QueueConfig::Ttlred2(params(rest)?),
            "codel" => QueueConfig::Codel(params(rest)?),
            "pie" => QueueConfig::Pie(params(rest)?),
            "fq_codel" => QueueConfig::FqCodel(params(rest)?),
            "pdcp_discard" => QueueConfig::PdcpDiscard(params(rest)?),
            "taqm" => QueueConfig::Taqm(params(rest)?),
            other => {
                return Err(D::Error::custom(nested_error("scheme", &format!("unknown scheme \"{other}\" (one of {})", one_of()))))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serialised form (tagged by `scheme`) reads back as the same config, for every scheme.
    #[test]
    fn every_scheme_round_trips() {
        for &scheme in SCHEMES {
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
