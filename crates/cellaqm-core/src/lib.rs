//! cellaqm-core: a deterministic discrete-event simulator of the managed
//! buffers in front of cellular radio links, and the algorithms that manage them.
//!
//! ```text
//!  wired: every user shares the bottleneck
//!  server ──core link──▶ managed buffer + bottleneck link ──▶ clients
//!    ▲                                                          │
//!    └──────── core link ◀── reverse (uplink) buffer + link ◀───┘
//!
//!  [radio]: one cell, a bearer per user
//!                          ┌ user 0's bearer: PDCP buffer (queue) ─ RLC AM ┐
//!  server ──core link──▶ ──┤ user 1's bearer: PDCP buffer (queue) ─ RLC AM ├─▶ cell (own DCHs, or HS-DSCH ─▶ UEs
//!    ▲          route by   └ …                                             ┘       + scheduler)          │
//!    │          the flow's user                                                                          │
//!    └── core link ◀── [ACK delay] ◀── each bearer's RLC AM ◀── its uplink DCH ◀── UE buffer ◀───────────┘
//! ```
//!
//! Layers, one module each: [`engine`] (event queue), [`time`], [`rng`]
//! (per-component streams), [`packet`], [`tcp`], [`queue`] (one file per
//! scheme), [`capacity`] (fixed rates, schedules, Mahimahi traces), [`link`],
//! [`rlc`] (acknowledged mode), [`radio`] (cells with
//! their shared channel and scheduler, bearers with each user's chain),
//! [`bsr`] (Buffer Status Reports on the uplink and the R-AQM filter at its
//! far end), [`traffic`], [`scenario`] (configuration and validation),
//! [`metrics`], [`capture`] (pcap files of the packets at three points of the
//! path), and [`network`], which wires them into a run.

pub mod bsr;
pub mod capacity;
pub mod capture;
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
mod storage;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod units;

pub use network::{run, run_controlled, Control, RunOptions, RunResult};
pub use scenario::{Scenario, ScenarioError};
