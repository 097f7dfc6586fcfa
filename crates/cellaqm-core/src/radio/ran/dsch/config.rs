//! `[radio.dsch]`: the 37-cell UMTS system of the DSCH study (Ferrús et al.) whose every
//! cell runs the prioritised resource manager each 10 ms frame over its
//! conversational DCH users and its interactive DSCH users. The scenario's
//! own users (the users under test, with real TCP) are interactive DSCH
//! users of the system, each on its bearer; the system's other users are
//! emulated sources inside it (no TCP). Each key's default is the paper's value or,
//! where it leaves one open, our *choice* (docs/dsch.md lists which).
//!
//! ```toml
//! [radio]
//! bearer = "dch"                 # the uplink DCH; the downlink is the DSCH
//! [radio.dsch]
//! phi = 0.9
//! web_users = 400
//! ```

use crate::radio::env::propagation::PathLoss;
use crate::radio::env::{Environment, EnvironmentKeys, FadingKind, LayoutKind, MobilityKind};
use crate::time::Dur;
use crate::traffic::distributions::Family;
use crate::traffic::{Count, Dist, Secs, Size};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The ETSI UMTS 30.03 web model of the emulated interactive users.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebModel {
    /// Reading time, from the moment the user's RLC holds none of its packet
    /// call's SDUs to the next call (the study leaves it open; our choice:
    /// exponential, mean 4.22 s, so that 400 web users offer 82 % of the
    /// central cell's DSCH capacity at φ = 100 % and 600 users 122 %:
    /// validation/dsch_calibration.py).
    pub reading_time: Dist<Secs>,
    /// Packets per packet call (30.03: geometric, mean 25).
    pub packets: Dist<Count>,
    /// Time between packets of a call (30.03 at 64 kb/s: geometric, mean 62.5 ms;
    /// here exponential: the continuous form).
    pub packet_interval: Dist<Secs>,
    /// Packet size (30.03: Pareto α 1.1, k 81.5 B, cut off at 66 666 B; mean ≈ 480 B).
    pub packet_size: Dist<Size>,
}

impl Default for WebModel {
    fn default() -> Self {
        WebModel {
            reading_time: Dist::new(Family::Exponential { mean: 4.22 }),
            packets: Dist::new(Family::Geometric { mean: 25.0 }),
            packet_interval: Dist::new(Family::Exponential { mean: 0.0625 }),
            packet_size: Dist::new(Family::Pareto { k: 81.5, alpha: 1.1, cap: Some(66_666.0) }),
        }
    }
}

/// The most open-loop users of each kind (our bound: 33 times the study's 600
/// web users; a larger count filled the memory before the first frame).
pub const MAX_SYSTEM_USERS: u32 = 20_000;

/// `[radio.dsch]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DschConfig {
    /// φ: the highest load factor the manager lets interactive traffic bring a cell to (paper: 60–100 %).
    pub phi: f64,
    /// δ: the share of the maximum power the manager may plan for (paper: 100 %).
    pub delta: f64,
    /// Open-loop interactive (web) users (paper: 400 or 600).
    pub web_users: u32,
    /// Conversational users, always in a call (paper: 250).
    pub conversational_users: u32,
    /// The radio environment's keys (layout, mobility, propagation), as in
    /// `[radio.environment]`; absent: [`DschConfig::default_environment`].
    #[serde(flatten)]
    pub env: EnvironmentKeys,
    /// Maximum base station power, dBm (paper: 43), and the common channels' share, W (our choice: 2).
    pub max_power_dbm: f64,
    pub common_power_w: f64,
    /// Eb/N0 targets, dB. Not published; conversational 4.02: calibrated so
    /// that the calls alone give the study's mean load factor of the central
    /// cell, 0.61 (Table 3, "No WEB Users"; validation/dsch_calibration.py);
    /// interactive 2 dB below it (BLER 10 % against 1 %: our choice).
    pub conversational_eb_n0_db: f64,
    pub interactive_eb_n0_db: f64,
    /// Block error targets met at the Eb/N0 target (paper: 1 % and 10 %).
    pub conversational_bler: f64,
    pub interactive_bler: f64,
    /// How much faster than the target BLER grows per dB short of the Eb/N0 target (our choice: ×10 per dB).
    pub bler_slope_db: f64,
    /// Handover: every `handover_period` to the best cell if it is `hysteresis_db` better (paper: 100 ms, 1 dB).
    pub handover_period: Dur,
    pub hysteresis_db: f64,
    /// Mean call duration, exponential; a finished call is replaced at once by
    /// a new caller somewhere else (paper: 120 s; our choice: replaced).
    pub call_duration: Dist<Secs>,
    /// Each emulated interactive user's RLC buffer, tail drop (our choice: 32 KB).
    pub web_buffer: Bytes,
    /// RLC AM retransmissions of a block at most (paper: 4), then its SDU is lost.
    pub max_retransmissions: u32,
    /// Largest SDU, bytes: web packets are cut into SDUs of at most this (paper: 570 B).
    pub max_sdu: Bytes,
    pub web: WebModel,
    /// The cells where the scenario's users (the users under test) start:
    /// user u in `test_cells[u mod len]`, at a uniform position in it; empty:
    /// uniform over the area (default: the central cell, our choice).
    pub test_cells: Vec<u32>,
    /// The central cell's measures start after this (default none; the reproduction uses 60 s: our choice).
    pub warmup: Dur,
}

impl Default for DschConfig {
    fn default() -> Self {
        DschConfig {
            phi: 0.9,
            delta: 1.0,
            web_users: 400,
            conversational_users: 250,
            env: EnvironmentKeys::default(),
            max_power_dbm: 43.0,
            common_power_w: 2.0,
            conversational_eb_n0_db: 4.02,
            interactive_eb_n0_db: 2.02,
            conversational_bler: 0.01,
            interactive_bler: 0.1,
            bler_slope_db: 1.0,
            handover_period: Dur::from_millis(100),
            hysteresis_db: 1.0,
            call_duration: Dist::new(Family::Exponential { mean: 120.0 }),
            web_buffer: Bytes(32 * 1024),
            max_retransmissions: 4,
            max_sdu: Bytes(570),
            web: WebModel::default(),
            test_cells: vec![0],
            warmup: Dur::ZERO,
        }
    }
}

impl DschConfig {
    /// The maximum power, W.
    pub fn max_power_w(&self) -> f64 {
        10f64.powf((self.max_power_dbm - 30.0) / 10.0)
    }

    /// The DSCH study's environment (Ferrús et al.; docs/dsch.md): 3 rings
    /// of wrapped hexagonal cells, 37 (our choice), of radius 500 m (the
    /// paper); straight tracks in a random direction at 3 km/h (our choice),
    /// the channel moving on every 1 m (our choice); path loss 128.1 +
    /// 37.6·log10(d/km) dB from 10 m (our choice: TR 25.942); shadowing σ 8 dB,
    /// 50 m decorrelation, 0.5 between sites (our choice, as the HS-DSCH
    /// study's); no fast fading; noise P_N −99 dBm (our choice).
    pub fn default_environment() -> Environment {
        Environment {
            layout: LayoutKind::Hex,
            rings: 3,
            radius: 500.0,
            wrap_around: true,
            mobility: MobilityKind::Track,
            speed_min: 3.0 / 3.6,
            speed_max: 3.0 / 3.6,
            channel_step: 1.0,
            path_loss: PathLoss::exponent(128.1, 3.76, 10.0),
            shadowing_sigma: 8.0,
            shadowing_site_correlation: 0.5,
            shadowing_decorrelation: 50.0,
            fading: FadingKind::None,
            carrier: 2e9,
            noise_dbm: Some(-99.0),
        }
    }

    /// The environment of this section (`key`) under `over`, `[radio.environment]`.
    pub fn environment(&self, key: &str, over: Option<(&str, &EnvironmentKeys)>) -> Result<Environment, String> {
        let models = (LayoutKind::Hex, MobilityKind::Track, FadingKind::None);
        let env = Self::default_environment().resolve("DSCH system", models, &["carrier"], (key, &self.env), over)?;
        let at = over.map_or(key, |o| o.0);
        if env.speed_min != env.speed_max {
            return Err(format!("{at}.speed_min: the DSCH users move at one speed (give speed)"));
        }
        let cells = 3 * env.rings * (env.rings + 1) + 1;
        if let Some(c) = self.test_cells.iter().find(|&&c| c >= cells) {
            return Err(format!("{key}.test_cells: cell {c} is not one of the {cells} cells (0 … {})", cells - 1));
        }
        Ok(env)
    }

    /// Checks the section for a run of `duration`; errors name the key under `key`.
    pub fn validate(&self, key: &str, duration: Dur) -> Result<(), String> {
        self.environment(key, None)?;
        if self.warmup >= duration {
            return Err(format!(
                "{key}.warmup: {} s is not before the end of the run ({} s): nothing would be measured",
                self.warmup.as_secs_f64(),
                duration.as_secs_f64()
            ));
        }
        let positive = [("phi", self.phi), ("delta", self.delta), ("bler_slope_db", self.bler_slope_db)];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(*v > 0.0 && v.is_finite())) {
            return Err(format!("{key}.{name}: must be positive, got {v}"));
        }
        if self.phi > 1.0 {
            return Err(format!("{key}.phi: a load factor, at most 1 (100 %), got {}", self.phi));
        }
        let unit = [("conversational_bler", self.conversational_bler), ("interactive_bler", self.interactive_bler)];
        if let Some((name, v)) = unit.iter().find(|(_, v)| !(0.0..=1.0).contains(v)) {
            return Err(format!("{key}.{name}: expected a value in [0, 1], got {v}"));
        }
        let finite = [
            ("max_power_dbm", self.max_power_dbm),
            ("conversational_eb_n0_db", self.conversational_eb_n0_db),
            ("interactive_eb_n0_db", self.interactive_eb_n0_db),
            ("hysteresis_db", self.hysteresis_db),
        ];
        if let Some((name, v)) = finite.iter().find(|(_, v)| !v.is_finite()) {
            return Err(format!("{key}.{name}: must be a finite number, got {v}"));
        }
        if !(self.common_power_w >= 0.0 && self.common_power_w < self.max_power_w()) {
            return Err(format!(
                "{key}.common_power_w: must be at least 0 and below the maximum power ({} W), got {}",
                self.max_power_w(),
                self.common_power_w
            ));
        }
        for (name, n) in [("web_users", self.web_users), ("conversational_users", self.conversational_users)] {
            if n > MAX_SYSTEM_USERS {
                return Err(format!("{key}.{name}: at most {MAX_SYSTEM_USERS}, got {n}"));
            }
        }
        if self.handover_period.0 == 0 {
            return Err(format!("{key}.handover_period: must be positive"));
        }
        if self.web_buffer.0 == 0 {
            return Err(format!("{key}.web_buffer: must be positive"));
        }
        if self.max_sdu.0 == 0 || self.max_sdu.0 > 65_535 {
            return Err(format!("{key}.max_sdu: expected 1 B … 64 KB, got {} B", self.max_sdu.0));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Meters;

    /// The run the sections are checked for.
    const RUN: Dur = Dur::from_secs(300);

    #[test]
    fn keys_parse_with_units_and_errors_name_the_key() {
        let c: DschConfig =
            toml::from_str("phi = 0.7\nradius = \"0.5km\"\nspeed = \"3km/h\"\nweb_buffer = \"32KiB\"\nweb_users = 600")
                .unwrap();
        assert_eq!((c.phi, c.env.radius, c.web_users, c.web_buffer), (0.7, Some(Meters(500.0)), 600, Bytes(32 * 1024)));
        assert!((c.max_power_w() - 19.953).abs() < 1e-3);
        assert_eq!(DschConfig::default().validate("radio.dsch", RUN), Ok(()));
        let bad = DschConfig { phi: 0.0, ..DschConfig::default() };
        assert!(bad.validate("radio.dsch", RUN).unwrap_err().starts_with("radio.dsch.phi:"));
        let bad = DschConfig { phi: 1.2, ..DschConfig::default() };
        assert!(bad.validate("radio.dsch", RUN).unwrap_err().starts_with("radio.dsch.phi:"));
        let bad = DschConfig { common_power_w: 25.0, ..DschConfig::default() };
        assert!(bad.validate("radio.dsch", RUN).unwrap_err().starts_with("radio.dsch.common_power_w:"));
        let bad = DschConfig { test_cells: vec![0, 37], ..DschConfig::default() };
        assert!(bad.validate("radio.dsch", RUN).unwrap_err().starts_with("radio.dsch.test_cells: cell 37"));
        let bad = DschConfig { web_users: 4_000_000_000, ..DschConfig::default() };
        assert_eq!(bad.validate("radio.dsch", RUN).unwrap_err(), "radio.dsch.web_users: at most 20000, got 4000000000");
        let bad = DschConfig { interactive_bler: 1.5, ..DschConfig::default() };
        assert!(bad.validate("radio.dsch", RUN).unwrap_err().starts_with("radio.dsch.interactive_bler:"));
        let bad = DschConfig { warmup: RUN, ..DschConfig::default() };
        assert_eq!(
            bad.validate("radio.dsch", RUN).unwrap_err(),
            "radio.dsch.warmup: 300 s is not before the end of the run (300 s): nothing would be measured"
        );
        assert!(toml::from_str::<DschConfig>("phy = 0.7").unwrap_err().to_string().contains("phy"));
        let w: DschConfig = toml::from_str("[web]\nreading_time = { dist = \"exponential\", mean = \"2s\" }").unwrap();
        assert_eq!(w.web.reading_time.mean(), 2.0);
    }
}
