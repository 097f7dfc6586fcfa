//! Receiver-side schemes as a scenario selects them: a filter at the far end
//! of a link that drops packets as they are delivered,
//! `[uplink] receiver = { scheme = "raqm", min_age = "200ms", ... }`.
//!
//! The one such scheme is R-AQM at the eNodeB (Tan, MSc thesis, 2009,
//! [`super::Raqm`]); it reads the head-of-line delay the eNodeB estimates from
//! the UE's Buffer Status Reports, so the link needs `bsr_period` (checked by
//! the scenario). How the filter is wired: `crate::bsr`.

use super::{Raqm, RaqmParams};
use crate::queue::parse::{params, scheme_table};
use serde::{Deserialize, Deserializer, Serialize};

/// A receiver-side filter as written in a scenario; serialised tagged by `scheme`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "scheme", rename_all = "snake_case")]
pub enum ReceiverConfig {
    /// R-AQM at the eNodeB (Tan, MSc thesis, 2009).
    Raqm(RaqmParams),
}

/// The receiver-side schemes, for error messages.
const NAMES: &str = "raqm";

impl ReceiverConfig {
    /// Checks parameter ranges; `key` is where the config sits in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        match self {
            ReceiverConfig::Raqm(p) => p.validate(key),
        }
    }

    /// The filter.
    pub fn build(&self) -> Raqm {
        match self {
            ReceiverConfig::Raqm(p) => Raqm::new(p),
        }
    }
}

impl<'de> Deserialize<'de> for ReceiverConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scheme_table(d, NAMES, |scheme, rest| match scheme {
            "raqm" => Some(params(rest).map(ReceiverConfig::Raqm)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;
    use crate::units::Bytes;

    /// Reads `receiver = <table>` at the uplink of a minimal scenario with BSRs.
    fn read(table: &str) -> Result<ReceiverConfig, String> {
        let text = format!(
            "duration = \"1s\"\n[traffic]\nmodel = \"bulk\"\n[bottleneck]\nrate = \"384kbps\"\n\
             [uplink]\nbsr_period = \"20ms\"\nreceiver = {table}\n"
        );
        let s = crate::Scenario::from_toml_str(&text, &[]).map_err(|e| e.0)?;
        Ok(s.uplink.receiver.expect("read"))
    }

    #[test]
    fn reads_raqm_with_the_study_units() {
        let r = read(
            r#"{ scheme = "raqm", min_age = "200ms", min_inter_drop = "600ms", lower_drop_threshold = "60kbit" }"#,
        );
        let want = RaqmParams {
            lower_drop_threshold: Bytes(7500),
            min_age: Dur::from_millis(200),
            min_inter_drop: Dur::from_millis(600),
        };
        assert_eq!(r.unwrap(), ReceiverConfig::Raqm(want));
        assert_eq!(read(r#"{ scheme = "raqm" }"#).unwrap(), ReceiverConfig::Raqm(RaqmParams::default()));
    }

    #[test]
    fn round_trips_through_its_serialised_form() {
        let config = ReceiverConfig::Raqm(RaqmParams { min_age: Dur::from_millis(50), ..RaqmParams::default() });
        let text = toml::to_string(&config).unwrap();
        assert!(text.contains("scheme = \"raqm\""), "{text}");
        assert_eq!(ReceiverConfig::deserialize(toml::Value::Table(text.parse().unwrap())).unwrap(), config);
    }

    #[test]
    fn errors_name_the_key() {
        let err = |t: &str| read(t).unwrap_err();
        assert!(err(r#"{ scheme = "raqm", min_age = 5 }"#)
            .starts_with("uplink.receiver.min_age: expected a string with a unit"));
        assert!(err(r#"{ scheme = "raqm", max_age = "1s" }"#).starts_with("uplink.receiver.max_age: unknown key"));
        assert_eq!(err(r#"{ scheme = "taqm" }"#), "uplink.receiver.scheme: unknown scheme \"taqm\" (one of raqm)");
        assert_eq!(err(r#"{ min_age = "1s" }"#), "uplink.receiver.scheme: missing (one of raqm)");
        assert_eq!(err(r#"{ scheme = "raqm", min_age = "0s" }"#), "uplink.receiver.min_age: must be positive");
    }
}
