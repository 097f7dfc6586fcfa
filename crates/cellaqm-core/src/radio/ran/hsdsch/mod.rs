//! The multi-cell HS-DSCH system of hsdsch-buffer-mgmt.md (scenario 2),
//! `[radio.cells]` with `bearer = "hsdpa"`: seven wrapped hexagonal cells,
//! users on straight tracks with correlated log-normal shadowing, distance
//! path loss and the study's SIR (the radio environment, [`crate::radio::env`]),
//! link adaptation from its table ([`mcs`]), and every
//! cell's HS-DSCH served from the users' RNC bearers each TTI ([`system`]).
//! docs/hsdsch.md describes the model and the source of every parameter.

pub mod config;
pub mod mcs;
pub mod ran;
pub mod sir_memo;
pub mod sir_stats;
pub mod system;
#[cfg(test)]
mod tests;

pub use config::{Attach, CellsConfig, OtherCells};
pub use ran::HsDschCells;
pub use system::{HsCellStats, HsDsch};
