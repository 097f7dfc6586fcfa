//! Scenario files: what to simulate, with units in the values.
//!
//! A scenario is TOML (or the same structure as JSON). Every section refuses
//! unknown keys, every quantity carries its unit (see [`crate::units`]), and
//! every error is one line that names the key:
//!
//! ```
//! use cellaqm_core::Scenario;
//! let err = Scenario::from_toml_str("[bottleneck]\nrtae = \"384kbps\"", &[]).unwrap_err();
//! assert!(err.to_string().starts_with("bottleneck.rtae: unknown key"), "{err}");
//! ```
//!
//! A link's `rate` may name a Mahimahi trace file ([`crate::capacity`]); a
//! relative path is relative to the scenario file's directory (the `dir` of
//! [`Scenario::from_toml_str_in`]; the current directory for text without a file).
//!
//! `sets` are command-line overrides `key.path=value`; the value is read as a
//! TOML value when it parses as one (`3`, `true`, `0.01`), else as a string
//! (`384kbps`).

pub mod catalogue;
pub mod keys;
mod messages;
mod overrides;

pub(crate) use messages::{describe, nested_error};
pub use overrides::set_path_json;

use crate::bsr::ReceiverConfig;
use crate::capacity::LinkRate;
use crate::queue::QueueConfig;
use crate::tcp::TcpConfig;
use crate::time::Dur;
use crate::traffic::TrafficConfig;
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// A scenario could not be read: the message names the key and the expected form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ScenarioError {}

/// One simulated network and its workload.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name for reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// Free text for the reader.
    #[serde(default)]
    pub description: String,
    /// Simulated time.
    pub duration: Dur,
    /// Default seed of the run's random streams (the command line may override it).
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// Read by [`TrafficConfig::from_value`] (its errors name the key inside `[traffic]`).
    #[serde(skip_deserializing)]
    pub traffic: TrafficConfig,
    /// Server ↔ core network: both directions (default 100 Mb/s, no delay, unlimited buffer).
    #[serde(default = "LinkConfig::core")]
    pub core: LinkConfig,
    /// The managed buffer and the bottleneck link towards the client.
    #[serde(default)]
    pub bottleneck: LinkConfig,
    /// The reverse link from the client, carrying ACKs (and requests).
    #[serde(default = "LinkConfig::core")]
    pub uplink: LinkConfig,
    /// A radio access bearer (RNC PDCP buffer, RLC AM, DCH or HSDPA, uplink
    /// DCH) in place of `[bottleneck]` and `[uplink]`; see [`crate::radio`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radio: Option<crate::radio::RadioConfig>,
    /// ACK delay control (Alcaraz et al., IEEE Commun. Mag.): uplink TCP ACKs leaving the access
    /// network are held back while the forward managed buffer is above a threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay: Option<crate::radio::AckDelayParams>,
}

fn default_name() -> String {
    "unnamed".into()
}
fn default_seed() -> u64 {
    1
}

/// A point-to-point link with a buffer in front of it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Transmission rate: fixed, a schedule of steps, or a Mahimahi trace.
    pub rate: LinkRate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Buffer limit in bytes (IP packet sizes); absent: no byte limit.
    pub buffer: Option<Bytes>,
    /// Buffer limit in packets; absent: no packet limit.
    pub buffer_packets: Option<u32>,
    /// Probability that a packet is lost on the link after transmission (random, independent).
    pub loss: f64,
    /// The queue discipline managing the buffer.
    pub queue: QueueConfig,
    /// Period of the Buffer Status Reports the sending end sends with its
    /// departing packets (LTE's periodic BSR timer, TS 36.321 §5.4.5); absent:
    /// none. Only `[uplink]`: the UE reports to the eNodeB ([`crate::bsr`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bsr_period: Option<Dur>,
    /// A receiver-side filter at the far end (R-AQM at the eNodeB); needs
    /// `bsr_period`. Only `[uplink]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverConfig>,
}

impl LinkConfig {
    /// The default of the core network and the uplink: fast, no delay, no buffer limit.
    pub fn core() -> LinkConfig {
        LinkConfig::default()
    }

    fn validate(&self, key: &str) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.loss) {
            return Err(format!("{key}.loss: expected a probability in [0, 1), got {}", self.loss));
        }
        if self.buffer_packets == Some(0) {
            return Err(format!("{key}.buffer_packets: a zero-sized buffer can hold no packet"));
        }
        self.queue.validate(&format!("{key}.queue"))?;
        if self.bsr_period == Some(Dur::ZERO) {
            return Err(format!("{key}.bsr_period: must be positive"));
        }
        if let Some(r) = &self.receiver {
            if self.bsr_period.is_none() {
                return Err(format!(
                    "{key}.receiver: R-AQM needs {key}.bsr_period (it estimates the UE buffer's delay from its Buffer Status Reports)"
                ));
            }
            r.validate(&format!("{key}.receiver"))?;
        }
        Ok(())
    }

    /// A link that is not the uplink has no Buffer Status Reports and no
    /// receiver-side filter: those belong to the UE → eNodeB hop.
    fn refuse_uplink_keys(&self, key: &str) -> Result<(), String> {
        if self.bsr_period.is_some() {
            return Err(format!(
                "{key}.bsr_period: only [uplink] sends Buffer Status Reports (the UE's buffer, to the eNodeB)"
            ));
        }
        if self.receiver.is_some() {
            return Err(format!(
                "{key}.receiver: only [uplink] has a receiver-side filter (R-AQM at the eNodeB, its far end)"
            ));
        }
        Ok(())
    }
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            rate: LinkRate::Fixed(Rate(100e6)),
            delay: Dur::ZERO,
            buffer: None,
            buffer_packets: None,
            loss: 0.0,
            queue: QueueConfig::default(),
            bsr_period: None,
            receiver: None,
        }
    }
}

impl Scenario {
    /// Reads a scenario from TOML text, applying `key.path=value` overrides;
    /// trace files are relative to the current directory.
    pub fn from_toml_str(text: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str_in(text, sets, Path::new(""))
    }

    /// As [`Scenario::from_toml_str`], for the text of a file in `dir`: trace
    /// files are relative to `dir`.
    pub fn from_toml_str_in(text: &str, sets: &[String], dir: &Path) -> Result<Scenario, ScenarioError> {
        let value: toml::Value =
            text.parse().map_err(|e: toml::de::Error| ScenarioError(messages::toml_syntax(text, &e)))?;
        Scenario::from_value(value, sets, dir)
    }

    /// Reads a scenario from a JSON object of the same structure as the TOML.
    pub fn from_json_str(text: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
        Scenario::from_json_str_in(text, sets, Path::new(""))
    }

    /// As [`Scenario::from_json_str`], with trace files relative to `dir`.
    pub fn from_json_str_in(text: &str, sets: &[String], dir: &Path) -> Result<Scenario, ScenarioError> {
        let value: toml::Value =
            serde_json::from_str(text).map_err(|e| ScenarioError(format!("not a valid scenario object: {e}")))?;
        if !value.is_table() {
            return Err(ScenarioError(format!(
                "a scenario must be a JSON object of keys (like the TOML's tables), not {}",
                value.type_str()
            )));
        }
        Scenario::from_value(value, sets, dir)
    }

    /// Reads a scenario file (TOML); trace files are relative to its directory.
    pub fn from_file(path: &Path, sets: &[String]) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError(format!("{}: cannot read: {e}", path.display())))?;
        Scenario::from_toml_str_in(&text, sets, path.parent().unwrap_or(Path::new("")))
    }

    fn from_value(mut value: toml::Value, sets: &[String], dir: &Path) -> Result<Scenario, ScenarioError> {
        for set in sets {
            overrides::apply(&mut value, set).map_err(ScenarioError)?;
        }
        if let Some(t) = value.as_table() {
            let has = |k: &str| t.contains_key(k);
            if has("radio") && has("bottleneck") {
                return Err(ScenarioError("bottleneck: not used with [radio] (the radio bearer replaces it)".into()));
            }
            if has("radio") && has("uplink") {
                return Err(ScenarioError("uplink: not used with [radio] (set [radio.uplink] instead)".into()));
            }
            if !has("radio") && !has("bottleneck") {
                return Err(ScenarioError("bottleneck: missing (required unless [radio] replaces it)".into()));
            }
        }
        let traffic = value.as_table_mut().and_then(|t| t.remove("traffic"));
        let mut scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let msg = e.inner().to_string();
            ScenarioError(describe(&path, &msg))
        })?;
        let traffic = traffic.ok_or_else(|| ScenarioError("traffic: missing (required)".into()))?;
        scenario.traffic = TrafficConfig::from_value(traffic).map_err(ScenarioError)?;
        scenario.validate().map_err(ScenarioError)?;
        for (key, link) in
            [("core", &mut scenario.core), ("bottleneck", &mut scenario.bottleneck), ("uplink", &mut scenario.uplink)]
        {
            link.rate.load(dir).map_err(|e| ScenarioError(format!("{key}.rate.trace: {e}")))?;
        }
        Ok(scenario)
    }

    /// Capacity in packets of the forward managed buffer that `user`'s packets
    /// cross (the bottleneck's, shared by every user, or the user's PDCP
    /// buffer): its packet limit, else its byte limit over the full-sized
    /// packet (MSS + header).
    pub fn forward_buffer_packets(&self, user: u32) -> Option<u32> {
        let (bytes, packets) = match &self.radio {
            Some(r) => {
                let b = r.bearer(user);
                (b.buffer, b.buffer_packets)
            }
            None => (self.bottleneck.buffer, self.bottleneck.buffer_packets),
        };
        packets.or(bytes.map(|b| (b.0 / self.tcp.full_packet()) as u32))
    }

    /// The first user of each distinct forward buffer: every user shares the
    /// bottleneck, and with `[radio]` the template and each group have their own.
    fn forward_buffer_owners(&self) -> Vec<(String, u32)> {
        let mut owners = vec![(String::new(), self.traffic.users())]; // a user in no group
        if let Some(r) = &self.radio {
            owners.extend(
                r.group_ranges().into_iter().enumerate().map(|(i, (first, _))| (format!("radio.groups[{i}]: "), first)),
            );
        }
        owners
    }

    /// Every buffer with a byte limit, by key: each must hold one full-sized
    /// packet (checked in [`Scenario::validate`]).
    fn byte_limits(&self) -> Vec<(String, Option<Bytes>)> {
        let mut limits = vec![
            ("core.buffer".to_string(), self.core.buffer),
            ("bottleneck.buffer".to_string(), self.bottleneck.buffer),
            ("uplink.buffer".to_string(), self.uplink.buffer),
        ];
        if let Some(r) = &self.radio {
            limits.push(("radio.buffer".to_string(), r.buffer));
            limits.push(("radio.uplink_buffer".to_string(), r.uplink_buffer));
            for (i, g) in r.groups.iter().enumerate() {
                limits.push((format!("radio.groups[{i}].buffer"), g.buffer));
                limits.push((format!("radio.groups[{i}].uplink_buffer"), g.uplink_buffer));
            }
        }
        limits
    }

    /// Cross-field checks that the types alone cannot express.
    pub fn validate(&self) -> Result<(), String> {
        if self.duration == Dur::ZERO {
            return Err("duration: must be positive".into());
        }
        self.tcp.validate()?;
        self.traffic.validate()?;
        self.core.refuse_uplink_keys("core")?;
        self.core.validate("core")?;
        self.bottleneck.refuse_uplink_keys("bottleneck")?;
        self.bottleneck.validate("bottleneck")?;
        self.uplink.validate("uplink")?;
        let full = self.tcp.full_packet();
        for (key, limit) in self.byte_limits() {
            if let Some(b) = limit.filter(|b| b.0 < full) {
                return Err(format!(
                    "{key}: {b} cannot hold one full-sized packet of {full}B (tcp.mss + tcp.header); give at least {full}B"
                ));
            }
        }
        if let Some(a) = &self.ack_delay {
            if let Some(r) = &self.radio {
                if let Some(why) = r.bearer.refuses_ack_delay() {
                    return Err(format!("ack_delay: not with radio.bearer = \"{}\" ({why})", r.bearer.name()));
                }
            }
            a.validate("ack_delay")?;
            for (at, user) in self.forward_buffer_owners() {
                if self.forward_buffer_packets(user).is_none() {
                    return Err(format!(
                        "ack_delay: {at}needs a limit on the forward buffer (buffer or buffer_packets)"
                    ));
                }
            }
        }
        if let Some(r) = &self.radio {
            r.validate("radio", self.traffic.users(), self.duration)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        duration = "10s"
        [traffic]
        model = "bulk"
        [bottleneck]
        rate = "384kbps"
        buffer = "100kB"
    "#;

    fn err(text: &str, sets: &[&str]) -> String {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::from_toml_str(text, &sets).unwrap_err().0
    }

    #[test]
    fn minimal_scenario_takes_defaults() {
        let s = Scenario::from_toml_str(MINIMAL, &[]).unwrap();
        assert_eq!(s.bottleneck.rate, LinkRate::Fixed(Rate(384_000.0)));
        assert_eq!(s.core.rate, LinkRate::Fixed(Rate(100e6)));
        assert_eq!(s.seed, 1);
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(err(MINIMAL, &["bottleneck.rate=384kps"]).split(':').next(), Some("bottleneck.rate"));
        let e = err(MINIMAL, &["tcp.mms=1000B"]);
        assert!(e.starts_with("tcp.mms: unknown key"), "{e}");
        let e = err(MINIMAL, &["bottleneck.delay=70"]);
        assert!(e.starts_with("bottleneck.delay: expected a string with a unit"), "{e}");
        let e = err("duration = \"1s\"\n[traffic]\nmodel=\"bulk\"", &[]);
        assert_eq!(e, "bottleneck: missing (required unless [radio] replaces it)");
        let e = err(MINIMAL, &["bottleneck.loss=1.5"]);
        assert!(e.starts_with("bottleneck.loss: expected a probability"), "{e}");
        let e = err(MINIMAL, &["tcp.initial_window=20"]);
        assert!(e.starts_with("tcp.initial_window:"), "{e}");
        let e = err(MINIMAL, &["traffic.model=torrent"]);
        assert!(e.starts_with("traffic.model:"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn bad_values_say_the_expected_form_without_rust_type_names() {
        let window = "tcp.rwnd: expected a packet count like 30, or a size like \"64kB\", got";
        for (set, got) in
            [("-5", "-5"), ("abc", "\"abc\""), ("30kbps", "\"30kbps\""), ("1.5", "1.5"), ("5000000000", "5000000000")]
        {
            assert_eq!(err(MINIMAL, &[&format!("tcp.rwnd={set}")]), format!("{window} {got}"));
        }
        assert_eq!(err(MINIMAL, &["tcp=3"]), "tcp: expected a table [tcp], got 3");
        assert_eq!(
            err(MINIMAL, &["bottleneck.buffer_packets=-3"]),
            "bottleneck.buffer_packets: expected a whole number ≥ 0 (at most 4294967295), got -3"
        );
        assert_eq!(
            err(MINIMAL, &["tcp.initial_window=2.5"]),
            "tcp.initial_window: expected a whole number ≥ 0 (at most 4294967295), got 2.5"
        );
        assert_eq!(err(MINIMAL, &["seed=-3"]), "seed: expected a whole number ≥ 0, got -3");
        assert_eq!(
            err(MINIMAL, &["tcp.recovery=foo"]),
            "tcp.recovery: expected one of \"reno\", \"newreno\", \"sack\", \"ns2_sack1\", got \"foo\""
        );
        assert_eq!(
            err(MINIMAL, &["tcp.recovery=ns2_sack1", "tcp.recovery_window=prr"]),
            "tcp.recovery_window: \"ns2_sack1\" has its own rule (send while pipe_ < cwnd); set \"rfc\""
        );
        assert_eq!(err(MINIMAL, &["tcp.delayed_ack=3"]), "tcp.delayed_ack: expected true or false, got 3");
        assert_eq!(
            err(MINIMAL, &["traffic={ model = \"file\", size = { dist = \"exponential\", mean = true } }"]),
            "traffic.size.mean: expected a number or a string with a unit, got true"
        );
        for set in ["tcp=3", "seed=-3", "tcp.recovery=3", "bottleneck.loss=abc", "bottleneck.queue=3", "name=3"] {
            let e = err(MINIMAL, &[set]);
            for rust in ["struct", "u32", "u64", "f64", "enum", "variant", "map"] {
                assert!(!e.contains(rust), "{set}: {e}");
            }
        }
    }

    #[test]
    fn bsr_and_receiver_only_at_the_uplink_and_raqm_needs_bsrs() {
        let raqm = "{ scheme = \"raqm\" }";
        let s = Scenario::from_toml_str(MINIMAL, &["uplink.bsr_period=20ms".into(), format!("uplink.receiver={raqm}")])
            .unwrap();
        assert_eq!(s.uplink.bsr_period, Some(Dur::from_millis(20)));
        assert!(s.uplink.receiver.is_some());
        assert_eq!(
            err(MINIMAL, &[&format!("uplink.receiver={raqm}")]),
            "uplink.receiver: R-AQM needs uplink.bsr_period (it estimates the UE buffer's delay from its Buffer Status Reports)"
        );
        assert_eq!(err(MINIMAL, &["uplink.bsr_period=0ms"]), "uplink.bsr_period: must be positive");
        assert!(err(MINIMAL, &["uplink.bsr_period=20"]).starts_with("uplink.bsr_period: expected a string with a unit"));
        for key in ["bottleneck", "core"] {
            let e = err(MINIMAL, &[&format!("{key}.bsr_period=20ms")]);
            assert_eq!(
                e,
                format!("{key}.bsr_period: only [uplink] sends Buffer Status Reports (the UE's buffer, to the eNodeB)")
            );
            let e = err(MINIMAL, &[&format!("{key}.bsr_period=20ms"), &format!("{key}.receiver={raqm}")]);
            assert!(e.starts_with(&format!("{key}.bsr_period: only [uplink]")), "{e}");
            let e = err(MINIMAL, &[&format!("{key}.receiver={raqm}")]);
            assert_eq!(
                e,
                format!("{key}.receiver: only [uplink] has a receiver-side filter (R-AQM at the eNodeB, its far end)")
            );
        }
    }

    #[test]
    fn zero_buffer_names_the_key_at_fault() {
        let e = err(MINIMAL, &["bottleneck.buffer_packets=0"]);
        assert_eq!(e, "bottleneck.buffer_packets: a zero-sized buffer can hold no packet");
    }

    #[test]
    fn toml_syntax_error_gives_line_and_column() {
        let e = err("duration = \"10s\"\nname = \"x\n[traffic]\n", &[]);
        assert!(e.starts_with("not valid TOML at line 2, column "), "{e}");
    }

    #[test]
    fn every_byte_limited_buffer_must_hold_a_full_sized_packet() {
        for key in ["bottleneck.buffer", "uplink.buffer", "core.buffer"] {
            let e = err(MINIMAL, &[&format!("{key}=1000B")]);
            assert_eq!(
                e,
                format!(
                    "{key}: 1kB cannot hold one full-sized packet of 1500B (tcp.mss + tcp.header); give at least 1500B"
                )
            );
        }
        let e = err(MINIMAL, &["bottleneck.buffer=1500B", "tcp.mss=1461B"]);
        assert!(e.starts_with("bottleneck.buffer: 1500B cannot hold one full-sized packet of 1501B"), "{e}");
        assert!(Scenario::from_toml_str(MINIMAL, &["bottleneck.buffer=1500B".into()]).is_ok());
        let radio = |set: &str| {
            let text = "duration = \"10s\"\n[traffic]\nmodel = \"bulk\"\n[radio]\nbearer = \"dch\"\n[radio.dch]\nrate = \"384kbps\"\n";
            err(text, &[set])
        };
        assert!(radio("radio.buffer=1kB").starts_with("radio.buffer: 1kB cannot hold one full-sized packet of 1500B"));
        assert!(radio("radio.uplink_buffer=100B").starts_with("radio.uplink_buffer: 100B cannot hold"));
        assert!(radio("radio.buffer_packets=0").starts_with("radio.buffer_packets: a zero-sized buffer"));
    }

    #[test]
    fn initial_rto_outside_min_and_max_is_refused() {
        let e = err(MINIMAL, &["tcp.rto_initial=100ms"]);
        assert_eq!(e, "tcp.rto_initial: must lie between tcp.rto_min (200ms) and tcp.rto_max (60000ms), got 100ms");
        assert!(err(MINIMAL, &["tcp.rto_initial=61s"]).starts_with("tcp.rto_initial:"));
    }

    #[test]
    fn durations_and_rates_beyond_the_clock_name_the_key() {
        let e = err(MINIMAL, &["duration=100000000000s"]);
        assert!(e.starts_with("duration: a duration must be at most 9223372036s"), "{e}");
        let e = err(MINIMAL, &["core.delay=100000000000s"]);
        assert!(e.starts_with("core.delay: a duration must be at most"), "{e}");
        let e = err(MINIMAL, &["traffic={ model = \"file\", size = \"1MB\", start = \"100000000000s\" }"]);
        assert!(e.starts_with("traffic.start: a duration must be at most"), "{e}");
        let e = err(MINIMAL, &["bottleneck.rate=20000Gbps"]);
        assert!(e.starts_with("bottleneck.rate: a rate must be between 1bps and 10000Gbps"), "{e}");
        let e = err(MINIMAL, &["uplink.rate=0bps"]);
        assert!(e.starts_with("uplink.rate: a rate must be between"), "{e}");
    }

    #[test]
    fn overrides_apply_typed_values() {
        let sets = vec!["tcp.initial_window=2".to_string(), "bottleneck.rate=3.6Mbps".to_string()];
        let s = Scenario::from_toml_str(MINIMAL, &sets).unwrap();
        assert_eq!(s.tcp.initial_window, 2);
        assert_eq!(s.bottleneck.rate, LinkRate::Fixed(Rate(3.6e6)));
    }
}
