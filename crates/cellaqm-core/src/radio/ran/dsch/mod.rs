//! The UMTS DSCH with prioritised radio resource management of
//! the DSCH study (Ferrús et al.; issue 23): each 10 ms frame a cell's
//! manager serves its conversational DCH users first and fits interactive
//! users' DSCH transmissions into what is left of the codes, the load factor
//! and the transmit power, halving a user's rate until it fits.
//!
//! One concept per file:
//! - [`transport_format`]: the DSCH transport formats TF0–TF6 (rates, spreading factors);
//! - [`checks`]: the availability checks — OVSF codes (Kraft), load factor η, transmit power;
//! - [`rrm`]: the frame's three steps (service credit → TF, priority, availability with halving);
//! - [`power`]: interference, power control (eq. 1) and block errors;
//! - [`web`]: the emulated ETSI 30.03 web users (the reading time follows each packet call);
//!   [`blocks`]: their block-level RLC AM;
//! - [`stats`]: the central cell's measures; [`config`]: `[radio.dsch]`;
//! - [`system`]: the 37 cells and their users, frame by frame.
//!
//! The layout, shadowing, tracks, path loss and the handover rule are the
//! radio environment's ([`crate::radio::env`]). docs/dsch.md describes the model and the source of
//! every parameter.

pub mod blocks;
pub mod checks;
pub mod config;
pub mod power;
pub mod ran;
pub mod rrm;
pub mod stats;
pub mod system;
#[cfg(test)]
mod tests;
pub mod transport_format;
pub mod web;

pub use config::DschConfig;
pub use ran::DschCells;
pub use stats::DschSummary;
pub use system::DschSystem;
