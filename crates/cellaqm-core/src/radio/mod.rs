//! The radio access network: what serves the managed buffers in the cellular
//! studies.
//!
//! A run's radio is one cell and a bearer per user ([`access`]). A [`cell`]
//! owns the radio resource its users share and the [`scheduler`] that shares
//! it (the HSDPA HS-DSCH, [`hsdpa`]; the seven-cell HS-DSCH system of the
//! HS-DSCH study, [`hsdsch`]); a [`bearer`] owns one user's
//! chain: the RNC's PDCP buffer with its queue discipline ([`pdcp`]), the two
//! RLC AM entities ([`crate::rlc`]), the user's own R99 DCH where there is one
//! ([`dch`], with [`gilbert`] PDU losses or [`fading`] frame losses), the uplink DCH and the UE's buffer.
//! [`config`] reads `[radio]`: the template of every user's bearer and the
//! groups of users that differ. ACK delay control ([`ack_delay`]) holds TCP
//! ACKs at the RNC on their way to the core. The LTE uplink of the LTE study
//! ([`lte`]: BSRs, SR and grants, HARQ, in-sequence reassembly) is the other
//! kind of radio, with the managed buffer in the UE. The radio environment
//! ([`env`]: layout, mobility, propagation, handover) gives the multi-cell
//! systems and the LTE UEs their channels; [`dsch`] is the UMTS DSCH resource manager. Models take `now` and return what to
//! schedule; none reads a clock, and each draws from its own [`crate::rng`]
//! stream.

pub use access::{RadioAccess, RadioEvent, RadioOut};
pub use ack_delay::{AckDelay, AckDelayMode, AckDelayParams};
pub use bearer::{BearerStats, RadioSummary, UeEvent};
pub use cell::{CellEvent, CellSummary};
pub use config::{BearerConfig, BearerKind, RadioConfig, UserGroup};

pub mod access;
pub mod ack_delay;
pub mod bearer;
pub mod busy;
pub mod cell;
pub mod config;
pub mod dch;
pub mod dsch;
pub mod env;
pub mod fading;
pub mod gilbert;
pub mod hsdpa;
pub mod hsdsch;
pub mod lte;
pub mod pdcp;
pub mod pending;
pub mod scheduler;
mod tally;
