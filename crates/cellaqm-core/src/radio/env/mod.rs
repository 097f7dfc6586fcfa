//! The radio environment every radio system draws its users' channels from,
//! written once: where the base stations stand ([`layout`]: hexagonal rings
//! of any size with wrap-around, or the single disc), how users move
//! ([`track`]: straight tracks; [`waypoint`]: random waypoint), what the
//! signal meets on the way ([`propagation`]: the path-loss laws and the
//! HS-DSCH SIR; [`shadowing`]: correlated log-normal shadowing; [`rayleigh`]:
//! Rayleigh fast fading), a user's place and gains ([`mobile`]) and which
//! cell serves it ([`handover`]); [`config`] reads `[radio.environment]`
//! (docs/scenario.md describes it).

pub mod config;
pub mod handover;
pub mod layout;
pub mod mobile;
pub mod propagation;
pub mod rayleigh;
pub mod shadowing;
pub mod track;
pub mod waypoint;

pub use config::{Environment, EnvironmentConfig, EnvironmentKeys, FadingKind, LayoutKind, MobilityKind};
