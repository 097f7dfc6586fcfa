//! cellaqm-core: a deterministic discrete-event simulator of the managed
//! buffer in front of a cellular radio link, and the algorithms that manage it.
//!
//! ```text
//!  server ──core link──▶ managed buffer + bottleneck link ──▶ client
//!    ▲                                                          │
//!    └──────── core link ◀── reverse (uplink) buffer + link ◀───┘
//! ```
//!
//! Layers, one module each: [`engine`] (event queue), [`time`], [`rng`]
//! (per-component streams), [`packet`], [`tcp`], [`queue`] (one file per
//! scheme), [`link`], [`bsr`] (Buffer Status Reports on the uplink and the
//! R-AQM filter at its far end), [`traffic`], [`scenario`] (configuration and
//! validation), [`metrics`], and [`network`], which wires them into a run.

pub mod bsr;
pub mod engine;
pub mod link;
pub mod metrics;
pub mod network;
pub mod packet;
pub mod queue;
pub mod radio;
pub mod rlc;
pub mod rng;
pub mod scenario;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod units;

pub use network::{run, RunOptions, RunResult};
pub use scenario::{Scenario, ScenarioError};
