//! The radio access network: what serves the managed buffers in the cellular
//! studies.
//!
//! A run's radio is one radio system ([`ran`]: every system behind the
//! [`ran::Ran`] trait, one folder each) reached through [`access`]. Its events
//! and outputs are one vocabulary for every system ([`event`]). The UMTS
//! systems serve a [`bearer`] per user: one user's chain, the RNC's PDCP
//! buffer with its queue discipline ([`bearer::pdcp`]), the two RLC AM
//! entities ([`crate::rlc`]), the user's own R99 DCH where there is one
//! ([`bearer::dch`], with [`bearer::gilbert`] PDU losses or
//! [`bearer::fading`] frame losses), the uplink DCH and the UE's buffer, and
//! ACK delay control ([`bearer::ack_delay`]), which holds TCP ACKs at the RNC
//! on their way to the core. A bearer does not know which channel serves it:
//! it reports its buffer status and fills the transmission opportunities the
//! channel's MAC grants ([`sap`]). The shared channels and their models: the
//! single HSDPA cell ([`ran::hsdpa`], with a [`scheduler`]), the seven-cell
//! HS-DSCH system of the HS-DSCH study ([`ran::hsdsch`]), the UMTS DSCH resource
//! manager ([`ran::dsch`]); the LTE uplink of the LTE study ([`ran::lte_ul`]: BSRs, SR and
//! grants, on the LTE pieces both directions share, [`lte`]: HARQ, RLC,
//! in-sequence reassembly, capacity, channel) is the other kind of radio, with the
//! managed buffer in the UE; the LTE downlink ([`ran::lte_dl`]) has it in the
//! eNodeB, each UE's PDCP buffer over RLC AM or UM; the ACKs of both take an
//! unmanaged [`return_path`]. The radio environment ([`env`]: layout,
//! mobility, propagation, handover) gives the multi-cell systems and the LTE
//! UEs their channels. [`config`] reads `[radio]`: the
//! template of every user's bearer and the groups of users that differ.
//! Models take `now` and return what to schedule; none reads a clock
//! ([`clock`] keeps a TTI grid), and each draws from its own [`crate::rng`]
//! stream ([`streams`]).

pub use access::RadioAccess;
pub use bearer::ack_delay::{AckDelay, AckDelayMode, AckDelayParams};
pub use bearer::{BearerStats, RadioSummary};
pub use cell_summary::CellSummary;
pub use config::{BearerKind, RadioConfig, UserGroup};
pub use event::{RadioEvent, RadioOut, UeEvent};
pub use ran::Ran;

pub mod access;
pub mod air;
pub mod bearer;
pub mod busy;
pub mod cell_summary;
pub mod clock;
pub mod config;
pub mod env;
pub mod event;
pub mod lte;
pub mod pending;
pub mod ran;
pub mod return_path;
pub mod sap;
pub mod scheduler;
pub mod streams;
mod tally;
