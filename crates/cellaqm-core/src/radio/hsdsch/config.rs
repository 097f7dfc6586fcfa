//! `[radio.cells]`: the multi-cell HS-DSCH system of hsdsch-buffer-mgmt.md
//! (scenario 2). Each key's default is the study's value or, where the study
//! leaves it open, our choice (docs/hsdsch.md lists which).
//!
//! ```toml
//! [radio]
//! bearer = "hsdpa"
//! [radio.hsdpa]
//! scheduler = "max_ci"          # max-SIR
//! [radio.cells]
//! layout = "hex7"
//! radius = "500m"
//! users_per_tti = 3
//! ```

use crate::units::{Meters, Speed};
use serde::{Deserialize, Serialize};

/// `layout` in `[radio.cells]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutKind {
    /// Seven omnidirectional hexagonal cells.
    #[default]
    Hex7,
}

/// `interference` in `[radio.cells]`: which other cells' power a user's SIR counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OtherCells {
    /// The cells that sent a block in the previous TTI, at `power_w` (our choice).
    #[default]
    OnAir,
    /// Every other cell at `power_w` in every TTI (fully loaded neighbours).
    Full,
}

/// `attach` in `[radio.cells]`: which base station serves a user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Attach {
    /// The nearest (wrap-around distance; the study).
    #[default]
    Nearest,
    /// The one with the highest path gain, shadowing included (3GPP system simulations' rule).
    Strongest,
}

/// `[radio.cells]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CellsConfig {
    pub layout: LayoutKind,
    /// Cell radius, centre to corner (study: 500 m).
    pub radius: Meters,
    /// Wrap-around for interference and moving users (study: on).
    pub wrap_around: bool,
    /// Path loss at 1 km, dB (our choice: 128.1).
    pub path_loss_1km: f64,
    /// Path loss exponent (study: 3.5).
    pub path_loss_exponent: f64,
    /// Distances below this count as this (our choice: 10 m).
    pub min_distance: Meters,
    /// Shadowing standard deviation, dB (study: 8).
    pub shadowing_sigma: f64,
    /// Shadowing correlation between base stations (study: 0.5).
    pub shadowing_site_correlation: f64,
    /// Shadowing decorrelation distance along the track (study: 40 m).
    pub shadowing_decorrelation: Meters,
    /// Thermal noise at the UE, dBm (our choice: −100).
    pub noise_dbm: f64,
    /// HS-DSCH power of a transmitting cell, W (study: 10).
    pub power_w: f64,
    /// Which other cells interfere: those on air in the last TTI (our choice) or all, always.
    pub interference: OtherCells,
    /// Which base station serves a user: the nearest (study) or the strongest.
    pub attach: Attach,
    /// Orthogonality loss (study: 0.4).
    pub orthogonality_loss: f64,
    /// Self-interference (study: 0.1).
    pub self_interference: f64,
    /// HS-DSCH codes (study: 12 of 16).
    pub codes: u32,
    /// Users code-multiplexed in one TTI at most (study: 3).
    pub users_per_tti: u32,
    /// Radio block error rate, i.i.d. (our choice: 0.1).
    pub bler: f64,
    /// The channel (position, shadowing) is recomputed after this much travel (our choice: 1 m).
    pub channel_step: Meters,
    /// A session's speed is uniform in [speed_min, speed_max] (our choice: 0–30 km/h).
    pub speed_min: Speed,
    pub speed_max: Speed,
}

impl Default for CellsConfig {
    fn default() -> Self {
        CellsConfig {
            layout: LayoutKind::Hex7,
            radius: Meters(500.0),
            wrap_around: true,
            path_loss_1km: 128.1,
            path_loss_exponent: 3.5,
            min_distance: Meters(10.0),
            shadowing_sigma: 8.0,
            shadowing_site_correlation: 0.5,
            shadowing_decorrelation: Meters(40.0),
            noise_dbm: -100.0,
            power_w: 10.0,
            interference: OtherCells::OnAir,
            attach: Attach::Nearest,
            orthogonality_loss: 0.4,
            self_interference: 0.1,
            codes: 12,
            users_per_tti: 3,
            bler: 0.1,
            channel_step: Meters(1.0),
            speed_min: Speed(0.0),
            speed_max: Speed(30.0 / 3.6),
        }
    }
}

impl CellsConfig {
    /// Checks the section; errors name the key under `key`.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        let positive = [
            ("radius", self.radius.0),
            ("path_loss_exponent", self.path_loss_exponent),
            ("min_distance", self.min_distance.0),
            ("shadowing_decorrelation", self.shadowing_decorrelation.0),
            ("power_w", self.power_w),
            ("channel_step", self.channel_step.0),
        ];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(*v > 0.0 && v.is_finite())) {
            return Err(format!("{key}.{name}: must be positive, got {v}"));
        }
        let unit = [
            ("shadowing_site_correlation", self.shadowing_site_correlation),
            ("orthogonality_loss", self.orthogonality_loss),
            ("self_interference", self.self_interference),
        ];
        if let Some((name, v)) = unit.iter().find(|(_, v)| !(0.0..=1.0).contains(v)) {
            return Err(format!("{key}.{name}: expected a value in [0, 1], got {v}"));
        }
        if !(0.0..1.0).contains(&self.bler) {
            return Err(format!("{key}.bler: expected a probability in [0, 1), got {}", self.bler));
        }
        if !(self.shadowing_sigma >= 0.0 && self.shadowing_sigma.is_finite()) {
            return Err(format!("{key}.shadowing_sigma: must be at least 0 dB, got {}", self.shadowing_sigma));
        }
        if !self.noise_dbm.is_finite() || !self.path_loss_1km.is_finite() {
            return Err(format!("{key}.noise_dbm / path_loss_1km: must be finite"));
        }
        if self.codes == 0 {
            return Err(format!("{key}.codes: must be at least 1"));
        }
        if self.users_per_tti == 0 {
            return Err(format!("{key}.users_per_tti: must be at least 1"));
        }
        if !(self.speed_min.0 >= 0.0 && self.speed_min.0 <= self.speed_max.0) {
            return Err(format!(
                "{key}.speed_min: must be between 0 and speed_max ({} m/s), got {} m/s",
                self.speed_max.0, self.speed_min.0
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_with_units_and_errors_name_the_key() {
        let c: CellsConfig = toml::from_str("radius = \"0.5km\"\nspeed_max = \"3km/h\"\nbler = 0.2").unwrap();
        assert_eq!((c.radius, c.bler), (Meters(500.0), 0.2));
        assert!((c.speed_max.0 - 3.0 / 3.6).abs() < 1e-12);
        assert_eq!(CellsConfig::default().validate("radio.cells"), Ok(()));
        let bad = CellsConfig { bler: 1.0, ..CellsConfig::default() };
        assert!(bad.validate("radio.cells").unwrap_err().starts_with("radio.cells.bler:"));
        let bad = CellsConfig { users_per_tti: 0, ..CellsConfig::default() };
        assert!(bad.validate("radio.cells").unwrap_err().starts_with("radio.cells.users_per_tti:"));
        assert!(toml::from_str::<CellsConfig>("radius_m = 3").unwrap_err().to_string().contains("radius_m"));
    }
}
