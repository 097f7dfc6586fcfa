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

pub use crate::radio::env::handover::Attach;
use crate::radio::env::propagation::PathLoss;
use crate::radio::env::{Environment, EnvironmentKeys, FadingKind, LayoutKind, MobilityKind};
use serde::{Deserialize, Serialize};

/// The most rings of cells the HS-DSCH system models (61 cells: each TTI's
/// cells on air are the bits of a `u64`).
pub const MAX_RINGS: u32 = 4;

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

/// `[radio.cells]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CellsConfig {
    /// The radio environment's keys (layout, mobility, propagation), as in
    /// `[radio.environment]`; absent: [`CellsConfig::default_environment`].
    #[serde(flatten)]
    pub env: EnvironmentKeys,
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
}

impl Default for CellsConfig {
    fn default() -> Self {
        CellsConfig {
            env: EnvironmentKeys::default(),
            power_w: 10.0,
            interference: OtherCells::OnAir,
            attach: Attach::Nearest,
            orthogonality_loss: 0.4,
            self_interference: 0.1,
            codes: 12,
            users_per_tti: 3,
            bler: 0.1,
        }
    }
}

impl CellsConfig {
    /// The HS-DSCH study's environment (hsdsch-buffer-mgmt.md, scenario 2;
    /// docs/hsdsch.md): seven wrapped hexagonal cells of radius 500 m;
    /// straight tracks at speeds uniform in 0–30 km/h (our choice), the
    /// channel moving on every 1 m (our choice); path loss 128.1 (our choice)
    /// plus 35·log10(d/km) dB (the study's exponent 3.5) from 10 m (our choice);
    /// shadowing σ 8 dB, 0.5 between sites, 40 m decorrelation (the study);
    /// no fast fading; noise −100 dBm (our choice).
    pub fn default_environment() -> Environment {
        Environment {
            layout: LayoutKind::Hex7,
            rings: 1,
            radius: 500.0,
            wrap_around: true,
            mobility: MobilityKind::Track,
            speed_min: 0.0,
            speed_max: 30.0 / 3.6,
            channel_step: 1.0,
            path_loss: PathLoss::exponent(128.1, 3.5, 10.0),
            shadowing_sigma: 8.0,
            shadowing_site_correlation: 0.5,
            shadowing_decorrelation: 40.0,
            fading: FadingKind::None,
            carrier: 2e9,
            noise_dbm: Some(-100.0),
        }
    }

    /// The environment of this section (`key`) under `over`, `[radio.environment]`.
    /// The system models seven cells (`"hex7"`, the study) or up to
    /// [`MAX_RINGS`] rings of them (`"hex"`: the scale benchmark's).
    pub fn environment(&self, key: &str, over: Option<(&str, &EnvironmentKeys)>) -> Result<Environment, String> {
        let hex = match over.and_then(|o| o.1.layout).or(self.env.layout) {
            Some(LayoutKind::Hex) => LayoutKind::Hex,
            _ => LayoutKind::Hex7,
        };
        let models = (hex, MobilityKind::Track, FadingKind::None);
        let env =
            Self::default_environment().resolve("HS-DSCH system", models, &["carrier"], (key, &self.env), over)?;
        if env.rings > MAX_RINGS {
            let at = over.filter(|o| o.1.rings.is_some()).map_or(key, |o| o.0);
            return Err(format!(
                "{at}.rings: the HS-DSCH system has at most {MAX_RINGS} rings (61 cells), got {}",
                env.rings
            ));
        }
        Ok(env)
    }

    /// Checks the section; errors name the key under `key`.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        self.environment(key, None)?;
        let positive = [("power_w", self.power_w)];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(*v > 0.0 && v.is_finite())) {
            return Err(format!("{key}.{name}: must be positive, got {v}"));
        }
        let unit = [("orthogonality_loss", self.orthogonality_loss), ("self_interference", self.self_interference)];
        if let Some((name, v)) = unit.iter().find(|(_, v)| !(0.0..=1.0).contains(v)) {
            return Err(format!("{key}.{name}: expected a value in [0, 1], got {v}"));
        }
        if !(0.0..1.0).contains(&self.bler) {
            return Err(format!("{key}.bler: expected a probability in [0, 1), got {}", self.bler));
        }
        if self.codes == 0 {
            return Err(format!("{key}.codes: must be at least 1"));
        }
        if self.users_per_tti == 0 {
            return Err(format!("{key}.users_per_tti: must be at least 1"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Meters;

    #[test]
    fn keys_parse_with_units_and_errors_name_the_key() {
        let c: CellsConfig = toml::from_str("radius = \"0.5km\"\nspeed_max = \"3km/h\"\nbler = 0.2").unwrap();
        assert_eq!((c.env.radius, c.bler), (Some(Meters(500.0)), 0.2));
        let env = c.environment("radio.cells", None).unwrap();
        assert!((env.speed_max - 3.0 / 3.6).abs() < 1e-12 && env.radius == 500.0);
        let bad: CellsConfig = toml::from_str("speed_min = \"4km/h\"\nspeed_max = \"3km/h\"").unwrap();
        assert!(bad.validate("radio.cells").unwrap_err().starts_with("radio.cells.speed_min:"));
        let big: CellsConfig = toml::from_str("layout = \"hex\"\nrings = 4").unwrap();
        assert_eq!(big.environment("radio.cells", None).unwrap().layout().cells(), 61);
        let bad: CellsConfig = toml::from_str("layout = \"hex\"\nrings = 5").unwrap();
        assert!(bad
            .validate("radio.cells")
            .unwrap_err()
            .starts_with("radio.cells.rings: the HS-DSCH system has at most 4"));
        let bad: CellsConfig = toml::from_str("layout = \"disc\"").unwrap();
        assert!(bad
            .validate("radio.cells")
            .unwrap_err()
            .starts_with("radio.cells.layout: the HS-DSCH system models \"hex7\""));
        assert_eq!(CellsConfig::default().validate("radio.cells"), Ok(()));
        let bad = CellsConfig { bler: 1.0, ..CellsConfig::default() };
        assert!(bad.validate("radio.cells").unwrap_err().starts_with("radio.cells.bler:"));
        let bad = CellsConfig { users_per_tti: 0, ..CellsConfig::default() };
        assert!(bad.validate("radio.cells").unwrap_err().starts_with("radio.cells.users_per_tti:"));
        assert!(toml::from_str::<CellsConfig>("radius_m = 3").unwrap_err().to_string().contains("radius_m"));
    }
}
