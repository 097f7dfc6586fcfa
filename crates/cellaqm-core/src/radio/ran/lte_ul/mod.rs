//! The LTE uplink radio of lte-uplink-raqm.md (issue 21): 1 ms TTIs,
//! scheduling requests and grants, Buffer Status Reports per TS 36.321,
//! on the LTE pieces both directions share ([`crate::radio::lte`]: HARQ, RLC
//! segmentation and in-sequence reassembly, the cell capacity, the UEs' channels).
//!
//! One concept per file:
//! - [`buffer_size`]: the BSR Buffer Size levels (TS 36.321 Tables 6.1.3.1-1 and -2);
//! - [`bsr`]: the UE's BSR procedure: triggers, timers, formats, SR (§5.4.5);
//! - [`ue`]: one UE's MAC: buffer and discipline, RLC, BSR, HARQ;
//! - [`enb`]: the eNodeB's uplink scheduler (grants from BSRs and SRs);
//! - the ACK path to the UEs: [`crate::radio::return_path`] (fixed rate and delay);
//! - [`network`]: the cell and its UEs, TTI by TTI;
//! - [`config`]: the `radio.lte` section;
//! - [`ran`]: the uplink behind the [`crate::radio::Ran`] trait.

pub mod bsr;
pub mod buffer_size;
pub mod config;
pub mod enb;
pub mod network;
pub mod ran;
pub mod ue;

pub use config::LteConfig;
pub use network::{LteStats, LteUplink};
pub use ran::LteUl;
