//! The LTE uplink radio of lte-uplink-raqm.md (issue 21): 1 ms TTIs,
//! scheduling requests and grants, Buffer Status Reports per TS 36.321,
//! HARQ, RLC segmentation and in-sequence reassembly, and a cell capacity
//! that may vary (square wave, down-switch, a UE's fading channel).
//!
//! One concept per file:
//! - [`buffer_size`]: the BSR Buffer Size levels (TS 36.321 Tables 6.1.3.1-1 and -2);
//! - [`bsr`]: the UE's BSR procedure: triggers, timers, formats, SR (§5.4.5);
//! - [`harq`]: uplink HARQ: 8 ms round trip, block errors, maximum transmissions;
//! - [`rlc_tx`]: the UE's RLC AM sending side and the MAC/RLC/PDCP header bytes;
//! - [`reassembly`]: the eNodeB's RLC: reordering, in-sequence delivery;
//! - [`capacity`]: the cell's rate over time and the transport block bytes per TTI;
//! - [`channel`]: the realistic radio: a UE moving in a cell, path loss, fading, SINR;
//! - [`link_adaptation`]: SINR → spectral efficiency (TR 36.942 Annex A);
//! - [`ue`]: one UE's MAC: buffer and discipline, RLC, BSR, HARQ;
//! - [`enb`]: the eNodeB's uplink scheduler (grants from BSRs and SRs);
//! - [`downlink`]: the ACK path to the UEs (fixed rate and delay);
//! - [`network`]: the cell and its UEs, TTI by TTI;
//! - [`config`]: the `radio.lte` section.

pub mod bsr;
pub mod buffer_size;
pub mod capacity;
pub mod channel;
pub mod config;
pub mod downlink;
pub mod enb;
pub mod harq;
pub mod link_adaptation;
pub mod network;
pub mod reassembly;
pub mod rlc_tx;
pub mod ue;

pub use config::LteConfig;
pub use network::{LteStats, LteUplink};
