//! The "realistic radio network" of lte-uplink-raqm.md: one cell of radius
//! 500 m, one UE moving in it at 0.83 m/s (pedestrian) or 30 m/s (car), its
//! uplink rate following link adaptation on a fading channel. The thesis gives
//! only the cell, the speeds, one base station, one beam and no MIMO; the rest
//! is the spec's *choice* (link adaptation on a Rayleigh fading channel with
//! Doppler from the UE speed), with these models and values:
//!
//! - mobility: random waypoint in the cell ([`crate::radio::mobility`]);
//! - path loss L = 128.1 + 37.6·log10(d / km) dB (TR 36.942 §4.5, macro cell
//!   at 2 GHz), at least the minimum coupling loss of 70 dB (TR 36.942 Table 4.1);
//! - fast fading: Rayleigh, Doppler from the speed and the carrier
//!   ([`crate::radio::rayleigh`]), flat over the allocation (*simplification*:
//!   no frequency-selective scheduling);
//! - no shadowing, no other cells or users: SINR = SNR (*our choice*: the
//!   study has one UE in one cell);
//! - UE transmit power 23 dBm (TS 36.101 power class 3), eNodeB noise figure
//!   5 dB (TR 36.942 Table 4.4), thermal noise −174 dBm/Hz over the bandwidth;
//! - link adaptation per TTI from the SINR ([`super::link_adaptation`]): the
//!   TTI's rate is bandwidth × efficiency, and its transport block rate × TTI
//!   as for the other capacities ([`super::capacity`]). The HARQ block error
//!   probability is the link adaptation's target, `harq.bler` (the spec's
//!   choice: 10%).
//!
//! ```toml
//! [radio.lte.channel]
//! speed = "0.83m/s"
//! cell_radius = "500m"     # default
//! bandwidth = "9MHz"       # default: 50 resource blocks of a 10 MHz carrier
//! carrier = "2GHz"         # default
//! ```

use super::link_adaptation::efficiency;
use crate::radio::mobility::Waypoint;
use crate::radio::rayleigh::Rayleigh;
use crate::rng::Rng;
use crate::time::Time;
use crate::units::{Hertz, Meters, Speed};
use serde::{Deserialize, Serialize};

/// UE transmit power, dBm (TS 36.101 power class 3).
pub const UE_POWER_DBM: f64 = 23.0;
/// eNodeB receiver noise figure, dB (TR 36.942 Table 4.4).
pub const NOISE_FIGURE_DB: f64 = 5.0;
/// Thermal noise density, dBm/Hz.
pub const THERMAL_DBM_PER_HZ: f64 = -174.0;
/// Minimum coupling loss, dB (TR 36.942 Table 4.1, macro cell).
pub const MIN_COUPLING_LOSS_DB: f64 = 70.0;

/// `[radio.lte.channel]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// The UE's speed (the study: 0.83 or 30 m/s).
    pub speed: Speed,
    /// The cell's radius (the study: 500 m).
    #[serde(default = "defaults::radius")]
    pub cell_radius: Meters,
    /// The bandwidth the UE's transport blocks use (*our choice*: 9 MHz, the
    /// 50 resource blocks of a 10 MHz carrier).
    #[serde(default = "defaults::bandwidth")]
    pub bandwidth: Hertz,
    /// The carrier frequency (*our choice*: 2 GHz, where the path-loss law holds).
    #[serde(default = "defaults::carrier")]
    pub carrier: Hertz,
}

mod defaults {
    use crate::units::{Hertz, Meters};
    pub fn radius() -> Meters {
        Meters(500.0)
    }
    pub fn bandwidth() -> Hertz {
        Hertz(9e6)
    }
    pub fn carrier() -> Hertz {
        Hertz(2e9)
    }
}

impl ChannelConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(self.cell_radius.0 > 0.0 && self.cell_radius.0 <= 100e3) {
            return Err(format!("{key}.cell_radius: must be above 0 and at most 100km"));
        }
        if !(0.0..=150.0).contains(&self.speed.0) {
            return Err(format!("{key}.speed: at most 150m/s"));
        }
        if !(self.bandwidth.0 >= 180e3 && self.bandwidth.0 <= 100e6) {
            return Err(format!("{key}.bandwidth: must be between 180kHz (a resource block) and 100MHz"));
        }
        if !(self.carrier.0 >= 400e6 && self.carrier.0 <= 6e9) {
            return Err(format!("{key}.carrier: must be between 400MHz and 6GHz"));
        }
        Ok(())
    }

    /// The highest rate the channel gives (Thr_MAX over the bandwidth), b/s.
    pub fn peak_bps(&self) -> f64 {
        self.bandwidth.0 * super::link_adaptation::THR_MAX
    }
}

/// The path loss at `distance` m, dB (TR 36.942 §4.5 at 2 GHz, floored at the minimum coupling loss).
pub fn path_loss_db(distance: f64) -> f64 {
    (128.1 + 37.6 * (distance.max(1.0) / 1000.0).log10()).max(MIN_COUPLING_LOSS_DB)
}

/// One UE's uplink channel over time.
#[derive(Clone, Debug)]
pub struct Channel {
    track: Waypoint,
    fading: Rayleigh,
    bandwidth: f64,
    noise_dbm: f64,
}

impl Channel {
    /// The channel of `cfg`, its track and fading drawn from `rng`.
    pub fn new(cfg: &ChannelConfig, mut rng: Rng) -> Channel {
        let fading = Rayleigh::new(cfg.speed.0, cfg.carrier.0, &mut rng);
        Channel {
            track: Waypoint::new(cfg.cell_radius.0, cfg.speed.0, rng),
            fading,
            bandwidth: cfg.bandwidth.0,
            noise_dbm: THERMAL_DBM_PER_HZ + 10.0 * cfg.bandwidth.0.log10() + NOISE_FIGURE_DB,
        }
    }

    /// The SINR at `t`, dB (times in order).
    pub fn sinr_db(&mut self, t: Time) -> f64 {
        let loss = path_loss_db(self.track.distance_at(t));
        UE_POWER_DBM - loss + 10.0 * self.fading.gain(t).max(1e-12).log10() - self.noise_dbm
    }

    /// The rate link adaptation gives at `t`, b/s (times in order).
    pub fn rate_at(&mut self, t: Time) -> f64 {
        self.bandwidth * efficiency(self.sinr_db(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Dur;

    #[test]
    fn path_loss_at_hand_computed_distances() {
        // 1 km: 128.1 dB; 500 m: 128.1 − 37.6·0.30103 = 116.78 dB; 250 m: 105.46 dB; 10 m: the 70 dB floor.
        assert!((path_loss_db(1000.0) - 128.1).abs() < 1e-9);
        assert!((path_loss_db(500.0) - 116.781).abs() < 1e-3);
        assert!((path_loss_db(250.0) - 105.463).abs() < 1e-3);
        assert_eq!(path_loss_db(10.0), MIN_COUPLING_LOSS_DB);
    }

    /// At the cell edge without fading: noise −174 + 69.54 + 5 = −99.46 dBm over
    /// 9 MHz; received 23 − 116.78 = −93.78 dBm; SNR 5.68 dB; efficiency
    /// 0.4·log2(1 + 3.70) = 0.893 bit/s/Hz: 8.04 Mb/s.
    #[test]
    fn the_cell_edge_budget() {
        let noise = THERMAL_DBM_PER_HZ + 10.0 * 9e6f64.log10() + NOISE_FIGURE_DB;
        let snr = UE_POWER_DBM - path_loss_db(500.0) - noise;
        assert!((snr - 5.68).abs() < 0.01, "{snr}");
        assert!((9e6 * efficiency(snr) / 1e6 - 8.04).abs() < 0.01);
    }

    /// The rate varies between 0 and the peak, faster for the faster UE: the
    /// share of consecutive TTIs whose rates differ by more than 10% is higher at 30 m/s.
    #[test]
    fn rates_follow_the_channel_and_the_speed() {
        let changes = |speed: f64| {
            let cfg = ChannelConfig { speed: Speed(speed), ..toml::from_str("speed = \"1m/s\"").unwrap() };
            let mut ch = Channel::new(&cfg, stream(3, "channel"));
            let rates: Vec<f64> = (0..20_000).map(|k| ch.rate_at(Time::ZERO + Dur::from_millis(k))).collect();
            assert!(rates.iter().all(|&r| (0.0..=cfg.peak_bps()).contains(&r)));
            rates.windows(2).filter(|w| (w[1] - w[0]).abs() > 0.1 * w[0].max(1.0)).count() as f64 / rates.len() as f64
        };
        let (slow, fast) = (changes(0.83), changes(30.0));
        assert!(slow < 0.02 && fast > 10.0 * slow, "TTI-to-TTI changes: {slow} at 0.83 m/s, {fast} at 30 m/s");
    }

    #[test]
    fn errors_name_the_key() {
        let c: ChannelConfig = toml::from_str("speed = \"30m/s\"\ncell_radius = \"0m\"").unwrap();
        assert_eq!(
            c.validate("radio.lte.channel").unwrap_err(),
            "radio.lte.channel.cell_radius: must be above 0 and at most 100km"
        );
        let e = toml::from_str::<ChannelConfig>("speed = 30").unwrap_err().message().to_string();
        assert!(e.contains("like \"30m/s\""), "{e}");
    }
}
