//! The single HSDPA cell of the WCDMA study (`bearer = "hsdpa"` without
//! `[radio.cells]`).
//!
//! - [`channel`]: the HS-DSCH: the Node-B's MAC-hs buffers, credit-based Iub
//!   flow control, the scheduler's TTIs, HARQ, and `[radio.hsdpa]`;
//! - [`ran`]: the cell behind the [`crate::radio::Ran`] trait, fed by the users' RNC bearers.

pub mod channel;
pub mod ran;

pub use channel::{HsdpaConfig, HsdpaUser};
pub use ran::HsdpaCell;
