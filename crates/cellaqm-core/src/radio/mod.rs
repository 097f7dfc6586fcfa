//! Radio bearer models: what serves the managed buffer in the cellular studies.
//!
//! One file per model: [`gilbert`] (two-state loss channel), [`dch`] (R99
//! dedicated channel), [`hsdpa`] (HS-DSCH with Node-B MAC-hs buffers and Iub
//! flow control), [`pdcp`] (the RNC's per-bearer PDCP buffer with its queue
//! discipline), and [`access`], which composes them with two RLC AM
//! entities into the radio access bearer a scenario's `[radio]` section
//! describes. Models take `now` and return what to schedule; none reads a
//! clock, and each draws from its own [`crate::rng`] stream.

pub use access::{BearerKind, RadioAccess, RadioConfig, RadioEvent, RadioOut, RadioStats, RadioSummary};
pub use ack_delay::{AckDelay, AckDelayMode, AckDelayParams};

pub mod access;
pub mod ack_delay;
pub mod dch;
pub mod gilbert;
pub mod hsdpa;
pub mod pdcp;
