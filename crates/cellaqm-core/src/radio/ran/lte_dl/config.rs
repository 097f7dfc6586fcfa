//! `[radio.lte_downlink]`: the LTE downlink (`[radio] bearer = "lte_downlink"`).
//! The eNodeB's PDCP buffer of each UE is the template's `buffer`,
//! `buffer_packets` and `queue` (or a group's); this section gives the cell.
//! Each key's source is in its doc and in docs/lte-downlink.md.
//!
//! ```toml
//! [radio]
//! bearer = "lte_downlink"
//! buffer = "300kB"
//! queue = { scheme = "codel" }
//! [radio.lte_downlink]
//! bandwidth = "9MHz"                 # the PDSCH: 50 resource blocks of a 10 MHz carrier
//! scheduler = "proportional_fair"
//! ues_per_tti = 4
//! rlc = "am"
//! uplink_delay = "10ms"              # the ACKs' path to the core
//! harq = { bler = 0.1 }
//! [radio.lte_downlink.channel]       # or, for every UE alike: sinr_db = 12.0
//! speed = "3m/s"
//! cell_radius = "500m"
//! carrier = "2GHz"
//! ```

use crate::radio::env::{Environment, EnvironmentKeys};
use crate::radio::lte::channel::ChannelConfig;
use crate::radio::lte::harq::HarqConfig;
use crate::radio::lte::link_adaptation::DOWNLINK;
use crate::radio::scheduler::SchedulerKind;
use crate::time::Dur;
use crate::units::{Hertz, Meters, Speed};
use serde::{Deserialize, Serialize};

/// The RLC mode of every UE's bearer (TS 36.322).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RlcMode {
    /// Acknowledged mode: what HARQ gives up is sent again (§5.2).
    Am,
    /// Unacknowledged mode: an SDU with bytes HARQ gave up is discarded at the UE (§5.1.2.2).
    Um,
}

/// `[radio.lte_downlink.channel]`: each UE moving in the cell on its own fading channel.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FadingConfig {
    /// The UEs' speed (random waypoint).
    pub speed: Speed,
    /// The cell's radius.
    pub cell_radius: Meters,
    /// The carrier frequency (Doppler; the path-loss law of TR 36.942 §4.5 holds at 2 GHz).
    pub carrier: Hertz,
}

/// `[radio.lte_downlink]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LteDownlinkConfig {
    /// The PDSCH bandwidth link adaptation turns into bits (TR 36.942 Annex A: rate = bandwidth × efficiency).
    pub bandwidth: Hertz,
    /// The eNodeB's scheduler across the cell's UEs.
    pub scheduler: SchedulerKind,
    /// UEs served in one TTI at most (their resource blocks share the TTI).
    pub ues_per_tti: u32,
    /// RLC acknowledged or unacknowledged mode.
    pub rlc: RlcMode,
    /// The uplink carrying the UEs' packets (TCP ACKs) to the core: a fixed
    /// delay, no rate limit, no loss (*our choice*: not a bottleneck).
    pub uplink_delay: Dur,
    /// Every UE's SINR, fixed (dB); or `channel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sinr_db: Option<f64>,
    /// Each UE on its own fading channel; or `sinr_db`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<FadingConfig>,
    /// The proportional fair scheduler's averaging window (*our choice*: 100 ms).
    #[serde(default = "defaults::average_window")]
    pub average_window: Dur,
    /// TTI (TS 36.211: a 1 ms subframe).
    #[serde(default = "defaults::tti")]
    pub tti: Dur,
    /// HARQ: 8 ms round trip (TS 36.213 §7, FDD), at most 4 transmissions, block error probability (default 0).
    #[serde(default)]
    pub harq: HarqConfig,
    /// RLC AM: from HARQ giving a block up to its bytes being sent again
    /// (t-Reordering at the UE plus the STATUS PDU's trip, *our choice* as on the LTE uplink: 40 ms).
    #[serde(default = "defaults::status_delay")]
    pub status_delay: Dur,
}

mod defaults {
    use crate::time::Dur;
    pub fn tti() -> Dur {
        Dur::from_millis(1)
    }
    pub fn average_window() -> Dur {
        Dur::from_millis(100)
    }
    pub fn status_delay() -> Dur {
        Dur::from_millis(40)
    }
}

/// The system's name in environment errors.
const SYSTEM: &str = "LTE downlink";

impl LteDownlinkConfig {
    /// The uplink channel model's section, for this bandwidth.
    pub fn channel_config(&self) -> Option<ChannelConfig> {
        self.channel.as_ref().map(|c| ChannelConfig {
            speed: c.speed,
            cell_radius: c.cell_radius,
            bandwidth: self.bandwidth,
            carrier: c.carrier,
        })
    }

    /// The environment of `channel` (section `key`) under `over` (`[radio.environment]`).
    pub fn environment(
        &self,
        key: &str,
        over: Option<(&str, &EnvironmentKeys)>,
    ) -> Option<Result<Environment, String>> {
        self.channel_config().map(|c| c.environment_of_cells(SYSTEM, &format!("{key}.channel"), over))
    }

    /// The highest rate a UE's channel gives (Thr_MAX over the bandwidth), b/s:
    /// what rate-aware disciplines are told.
    pub fn peak_bps(&self) -> f64 {
        self.bandwidth.0 * DOWNLINK.thr_max
    }

    /// Checks ranges; errors name the key under `key` (normally `radio.lte_downlink`).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(self.bandwidth.0 >= 180e3 && self.bandwidth.0 <= 100e6) {
            return Err(format!("{key}.bandwidth: must be between 180kHz (a resource block) and 100MHz"));
        }
        match (self.sinr_db, &self.channel) {
            (None, None) => return Err(format!("{key}.sinr_db: missing (or give {key}.channel, fading channels)")),
            (Some(_), Some(_)) => {
                return Err(format!("{key}.sinr_db: not with {key}.channel (the channel gives the SINR)"))
            }
            (Some(s), None) if !(-30.0..=60.0).contains(&s) => {
                return Err(format!("{key}.sinr_db: must be between -30 and 60 (dB), got {s}"))
            }
            (None, Some(_)) => self.channel_config().expect("given").validate_of(SYSTEM, &format!("{key}.channel"))?,
            _ => {}
        }
        if self.ues_per_tti == 0 {
            return Err(format!("{key}.ues_per_tti: must be at least 1"));
        }
        if self.scheduler == SchedulerKind::Priority {
            return Err(format!(
                "{key}.scheduler: round_robin, max_ci or proportional_fair (no priority classes here)"
            ));
        }
        if self.tti == Dur::ZERO {
            return Err(format!("{key}.tti: must be positive"));
        }
        if self.average_window < self.tti {
            return Err(format!("{key}.average_window: must be at least one TTI ({})", self.tti));
        }
        if !self.harq.rtt.0.is_multiple_of(self.tti.0) {
            return Err(format!("{key}.harq.rtt: must be a whole number of TTIs ({})", self.tti));
        }
        self.harq.validate(&format!("{key}.harq"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str =
        "bandwidth = \"9MHz\"\nscheduler = \"round_robin\"\nues_per_tti = 2\nrlc = \"am\"\nuplink_delay = \"10ms\"\n";

    fn read(extra: &str) -> Result<LteDownlinkConfig, String> {
        let c: LteDownlinkConfig = toml::from_str(&format!("{BASE}{extra}")).map_err(|e| e.message().to_string())?;
        c.validate("radio.lte_downlink").map(|_| c)
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            read("").unwrap_err(),
            "radio.lte_downlink.sinr_db: missing (or give radio.lte_downlink.channel, fading channels)"
        );
        assert!(read("sinr_db = 10.0").is_ok());
        assert_eq!(
            read("sinr_db = 99.0").unwrap_err(),
            "radio.lte_downlink.sinr_db: must be between -30 and 60 (dB), got 99"
        );
        assert!(read("sinr_db = 1.0\nsinr = 1").unwrap_err().starts_with("unknown field `sinr`"));
        assert_eq!(
            read("sinr_db = 1.0\nharq = { max_tx = 0 }").unwrap_err(),
            "radio.lte_downlink.harq.max_tx: must be at least 1"
        );
        assert_eq!(
            read("sinr_db = 1.0\nharq = { rtt = \"1500us\" }").unwrap_err(),
            "radio.lte_downlink.harq.rtt: must be a whole number of TTIs (1ms)"
        );
        let fading = "[channel]\nspeed = \"3m/s\"\ncell_radius = \"0m\"\ncarrier = \"2GHz\"";
        assert_eq!(
            read(fading).unwrap_err(),
            "radio.lte_downlink.channel.cell_radius: must be above 0 and at most 100km"
        );
        assert!(read(&fading.replace("0m", "500m")).is_ok());
        assert!(read("[channel]\nspeed = \"3m/s\"").unwrap_err().starts_with("missing field `cell_radius`"));
        let no_rlc = BASE.replace("rlc = \"am\"\n", "");
        let e = toml::from_str::<LteDownlinkConfig>(&format!("{no_rlc}sinr_db = 1.0")).unwrap_err();
        assert!(e.message().starts_with("missing field `rlc`"), "{e}");
        assert!(read("sinr_db = 1.0\nrlc = \"tm\"").is_err());
    }
}
