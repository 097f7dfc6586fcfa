//! `[radio.environment]`: the radio environment of a run — its layout, how
//! its users move, what the signal meets on the way. Every key is optional:
//! an absent key keeps the radio system's default (the HS-DSCH study's for
//! `[radio.cells]`, the DSCH study's for `[radio.dsch]`, the LTE study's for
//! `[radio.lte.channel]`; docs/scenario.md lists them with their sources).
//!
//! ```toml
//! [radio.environment]
//! radius = "500m"
//! shadowing_sigma = 8.0
//! speed_max = "30km/h"
//! ```
//!
//! The same keys written in the system's own section (`[radio.cells]`,
//! `[radio.dsch]`: where they were before this section existed) mean the
//! same; a key in `[radio.environment]` takes precedence. A key the system
//! does not model is an error naming it.

use super::layout::Layout;
use super::propagation::PathLoss;
use super::shadowing::Shadowing;
use crate::rng::Rng;
use crate::scenario::nested_error;
use crate::units::{Hertz, Meters, Speed};
use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// `layout`: where the base stations stand ([`super::layout::Layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutKind {
    /// Seven hexagonal cells (one ring around a central one).
    Hex7,
    /// `rings` rings of hexagonal cells around a central one.
    Hex,
    /// One base station at the centre of a disc of `radius`.
    Disc,
}

/// `mobility`: how users move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MobilityKind {
    /// Straight tracks across the wrapped layout ([`super::track`]).
    Track,
    /// Random waypoint in the disc ([`super::waypoint`]).
    Waypoint,
}

/// `fading`: fast fading on top of path loss and shadowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FadingKind {
    /// None (the HS-DSCH and DSCH studies: their block error rates stand for it).
    None,
    /// Rayleigh, with the Doppler of the user's speed on `carrier` ([`super::rayleigh`]).
    Rayleigh,
}

/// Declares [`EnvironmentKeys`] and reads it key by key, so that a bad
/// value's error names its key (`radio.cells.speed: …`) also where the keys
/// are flattened into a system's section: inside `#[serde(flatten)]` serde
/// keeps no path below the section.
macro_rules! environment_keys {
    ($($(#[doc = $doc:literal])* $key:ident: $ty:ty,)*) => {
        /// The environment's keys as a scenario gives them (each optional):
        /// `[radio.environment]`, and flattened into `[radio.cells]` and `[radio.dsch]`.
        #[derive(Clone, Debug, Default, PartialEq, Serialize)]
        pub struct EnvironmentKeys {
            $($(#[doc = $doc])* #[serde(skip_serializing_if = "Option::is_none")] pub $key: Option<$ty>,)*
        }

        impl<'de> Deserialize<'de> for EnvironmentKeys {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const KEYS: &[&str] = &[$(stringify!($key)),*];
                struct Keys;
                impl<'de> Visitor<'de> for Keys {
                    type Value = EnvironmentKeys;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a table of the radio environment's keys")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EnvironmentKeys, A::Error> {
                        let mut keys = EnvironmentKeys::default();
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                $(stringify!($key) => keys.$key = Some(value_of(&mut map, &key)?),)*
                                _ => return Err(A::Error::unknown_field(&key, KEYS)),
                            }
                        }
                        Ok(keys)
                    }
                }
                d.deserialize_struct("EnvironmentKeys", KEYS, Keys)
            }
        }
    };
}

/// The value of `key`, its error naming the key.
fn value_of<'de, T: Deserialize<'de>, A: MapAccess<'de>>(map: &mut A, key: &str) -> Result<T, A::Error> {
    map.next_value().map_err(|e| A::Error::custom(nested_error(key, &e.to_string())))
}

environment_keys! {
    layout: LayoutKind,
    rings: u32,
    radius: Meters,
    wrap_around: bool,
    mobility: MobilityKind,
    /// One speed for every user (sets `speed_min` and `speed_max`).
    speed: Speed,
    speed_min: Speed,
    speed_max: Speed,
    channel_step: Meters,
    path_loss_1km: f64,
    path_loss_exponent: f64,
    min_distance: Meters,
    min_coupling_loss: f64,
    shadowing_sigma: f64,
    shadowing_site_correlation: f64,
    shadowing_decorrelation: Meters,
    fading: FadingKind,
    carrier: Hertz,
    noise_dbm: f64,
}

/// `[radio.environment]` itself: the keys, and no other.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentConfig {
    #[serde(flatten)]
    pub keys: EnvironmentKeys,
}

/// A resolved environment: every value, as a system uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    pub layout: LayoutKind,
    pub rings: u32,
    /// Cell radius (centre to corner), or the disc's, m.
    pub radius: f64,
    pub wrap_around: bool,
    pub mobility: MobilityKind,
    /// Users' speeds, uniform in [speed_min, speed_max], m/s.
    pub speed_min: f64,
    pub speed_max: f64,
    /// The channel (gains, shadowing) is recomputed after this much travel, m.
    pub channel_step: f64,
    pub path_loss: PathLoss,
    /// Shadowing: σ (dB), correlation between sites, decorrelation distance (m).
    pub shadowing_sigma: f64,
    pub shadowing_site_correlation: f64,
    pub shadowing_decorrelation: f64,
    pub fading: FadingKind,
    /// Carrier frequency, Hz (the Doppler of Rayleigh fading).
    pub carrier: f64,
    /// Thermal noise at the receiver, dBm (`None`: the system derives it, e.g. from its bandwidth).
    pub noise_dbm: Option<f64>,
}

impl Environment {
    /// The base stations.
    pub fn layout(&self) -> Layout {
        match self.layout {
            LayoutKind::Hex7 | LayoutKind::Hex => Layout::rings(self.rings, self.radius, self.wrap_around),
            LayoutKind::Disc => Layout::disc(self.radius),
        }
    }

    /// A user's shadowing towards `cells` base stations, drawn from `rng`.
    pub fn shadowing(&self, cells: usize, rng: &mut Rng) -> Shadowing {
        Shadowing::new(cells, self.shadowing_sigma, self.shadowing_site_correlation, self.shadowing_decorrelation, rng)
    }

    /// The keys' values over this environment; `key`: where they were given (for errors).
    pub fn with(mut self, k: &EnvironmentKeys, key: &str) -> Result<Environment, String> {
        k.validate(key)?;
        let set = |v: &mut f64, x: Option<f64>| {
            if let Some(x) = x {
                *v = x;
            }
        };
        self.layout = k.layout.unwrap_or(self.layout);
        self.rings = k.rings.unwrap_or(self.rings);
        self.wrap_around = k.wrap_around.unwrap_or(self.wrap_around);
        self.mobility = k.mobility.unwrap_or(self.mobility);
        self.fading = k.fading.unwrap_or(self.fading);
        set(&mut self.radius, k.radius.map(|m| m.0));
        set(&mut self.speed_min, k.speed.or(k.speed_min).map(|s| s.0));
        set(&mut self.speed_max, k.speed.or(k.speed_max).map(|s| s.0));
        set(&mut self.channel_step, k.channel_step.map(|m| m.0));
        set(&mut self.path_loss.at_1km_db, k.path_loss_1km);
        set(&mut self.path_loss.db_per_decade, k.path_loss_exponent.map(|e| 10.0 * e));
        set(&mut self.path_loss.min_distance, k.min_distance.map(|m| m.0));
        set(&mut self.path_loss.min_loss_db, k.min_coupling_loss);
        set(&mut self.shadowing_sigma, k.shadowing_sigma);
        set(&mut self.shadowing_site_correlation, k.shadowing_site_correlation);
        set(&mut self.shadowing_decorrelation, k.shadowing_decorrelation.map(|m| m.0));
        set(&mut self.carrier, k.carrier.map(|h| h.0));
        if k.noise_dbm.is_some() {
            self.noise_dbm = k.noise_dbm;
        }
        if self.layout == LayoutKind::Hex7 && self.rings != 1 {
            return Err(format!("{key}.rings: layout \"hex7\" is one ring; use layout = \"hex\" for {}", self.rings));
        }
        if self.speed_min > self.speed_max {
            return Err(format!(
                "{key}.speed_min: must be at most speed_max ({} m/s), got {} m/s",
                self.speed_max, self.speed_min
            ));
        }
        Ok(self)
    }

    /// A system's environment: these defaults, the keys of its section
    /// (`section`: its name, its keys), then `[radio.environment]` (`over`)
    /// over them. Errors name the key: one the `system` does not use
    /// (`unused`), or a layout, mobility or fading it does not model (`models`).
    pub fn resolve(
        self,
        system: &str,
        models: (LayoutKind, MobilityKind, FadingKind),
        unused: &[&str],
        section: (&str, &EnvironmentKeys),
        over: Option<(&str, &EnvironmentKeys)>,
    ) -> Result<Environment, String> {
        section.1.unused(section.0, system, unused)?;
        let mut env = self.with(section.1, section.0)?;
        let mut at = section.0;
        if let Some((key, keys)) = over {
            keys.unused(key, system, unused)?;
            env = env.with(keys, key)?;
            at = key;
        }
        env.require(system, at, models)?;
        Ok(env)
    }

    /// Errors unless this environment's `layout`, `mobility` and `fading` are
    /// the ones `system` models (`section`: where to point).
    pub fn require(
        &self,
        system: &str,
        section: &str,
        want: (LayoutKind, MobilityKind, FadingKind),
    ) -> Result<(), String> {
        for (key, got, w) in [
            ("layout", spelled(&self.layout), spelled(&want.0)),
            ("mobility", spelled(&self.mobility), spelled(&want.1)),
            ("fading", spelled(&self.fading), spelled(&want.2)),
        ] {
            if got != w {
                return Err(format!("{section}.{key}: the {system} models \"{w}\", not \"{got}\""));
            }
        }
        Ok(())
    }
}

/// A unit enum's value as scenario files spell it.
fn spelled<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

impl EnvironmentKeys {
    /// Checks each given value's range; errors name the key under `key`.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        let m = |x: Option<Meters>| x.map(|v| v.0);
        let positive = [
            ("radius", m(self.radius)),
            ("channel_step", m(self.channel_step)),
            ("path_loss_exponent", self.path_loss_exponent),
            ("min_distance", m(self.min_distance)),
            ("shadowing_decorrelation", m(self.shadowing_decorrelation)),
            ("carrier", self.carrier.map(|h| h.0)),
        ];
        if let Some((name, Some(v))) = positive.iter().find(|(_, v)| v.is_some_and(|v| !(v > 0.0 && v.is_finite()))) {
            return Err(format!("{key}.{name}: must be positive, got {v}"));
        }
        let at_least_zero = [
            ("speed", self.speed.map(|s| s.0)),
            ("speed_min", self.speed_min.map(|s| s.0)),
            ("speed_max", self.speed_max.map(|s| s.0)),
            ("shadowing_sigma", self.shadowing_sigma),
        ];
        if let Some((name, Some(v))) =
            at_least_zero.iter().find(|(_, v)| v.is_some_and(|v| !(v >= 0.0 && v.is_finite())))
        {
            return Err(format!("{key}.{name}: must be at least 0, got {v}"));
        }
        if let Some(v) = self.shadowing_site_correlation.filter(|v| !(0.0..=1.0).contains(v)) {
            return Err(format!("{key}.shadowing_site_correlation: expected a value in [0, 1], got {v}"));
        }
        let finite = [
            ("path_loss_1km", self.path_loss_1km),
            ("min_coupling_loss", self.min_coupling_loss),
            ("noise_dbm", self.noise_dbm),
        ];
        if let Some((name, Some(v))) = finite.iter().find(|(_, v)| v.is_some_and(|v| !v.is_finite())) {
            return Err(format!("{key}.{name}: must be a finite number, got {v}"));
        }
        if self.speed.is_some() && (self.speed_min.is_some() || self.speed_max.is_some()) {
            return Err(format!("{key}.speed: give either speed or speed_min and speed_max"));
        }
        if let Some(r) = self.rings.filter(|r| !(1..=10).contains(r)) {
            return Err(format!("{key}.rings: expected 1 … 10, got {r}"));
        }
        Ok(())
    }

    /// The keys given here that a system does not model: the first, as an error under `key`.
    pub fn unused(&self, key: &str, system: &str, names: &[&str]) -> Result<(), String> {
        let given = serde_json::to_value(self).unwrap_or_default();
        match names.iter().find(|n| given.get(**n).is_some()) {
            Some(n) => Err(format!("{key}.{n}: not used by the {system}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Environment {
        crate::radio::ran::hsdsch::CellsConfig::default_environment()
    }

    #[test]
    fn the_environment_section_takes_precedence_and_errors_name_the_key() {
        let cells: EnvironmentKeys = toml::from_str("radius = \"1km\"\nshadowing_sigma = 6.0").unwrap();
        let env: EnvironmentConfig = toml::from_str("radius = \"2km\"\nspeed = \"3km/h\"").unwrap();
        let models = (LayoutKind::Hex7, MobilityKind::Track, FadingKind::None);
        let resolve = |section, over| base().resolve("HS-DSCH system", models, &["carrier"], section, over);
        let e = resolve(("radio.cells", &cells), Some(("radio.environment", &env.keys))).unwrap();
        assert_eq!((e.radius, e.shadowing_sigma), (2000.0, 6.0));
        assert!((e.speed_min - 3.0 / 3.6).abs() < 1e-12 && e.speed_min == e.speed_max);
        let bad: EnvironmentKeys = toml::from_str("shadowing_site_correlation = 1.5").unwrap();
        assert_eq!(
            resolve(("radio.cells", &EnvironmentKeys::default()), Some(("radio.environment", &bad))).unwrap_err(),
            "radio.environment.shadowing_site_correlation: expected a value in [0, 1], got 1.5"
        );
        let bad: EnvironmentKeys = toml::from_str("rings = 3").unwrap();
        assert!(base().with(&bad, "radio.cells").unwrap_err().starts_with("radio.cells.rings: layout \"hex7\""));
        let e = toml::from_str::<EnvironmentConfig>("radius_m = 3").unwrap_err().to_string();
        assert!(e.contains("unknown field `radius_m`"), "{e}");
        assert!(toml::from_str::<EnvironmentConfig>("layout = \"square\"").unwrap_err().to_string().contains("square"));
        let disc = Environment { layout: LayoutKind::Disc, ..base() };
        assert_eq!(
            disc.require(
                "HS-DSCH system",
                "radio.environment",
                (LayoutKind::Hex7, MobilityKind::Track, FadingKind::None)
            )
            .unwrap_err(),
            "radio.environment.layout: the HS-DSCH system models \"hex7\", not \"disc\""
        );
        let k: EnvironmentKeys = toml::from_str("carrier = \"2GHz\"").unwrap();
        assert_eq!(
            k.unused("radio.environment", "DSCH system", &["carrier"]).unwrap_err(),
            "radio.environment.carrier: not used by the DSCH system"
        );
    }
}
