//! The LTE pieces an uplink and a downlink share: HARQ, RLC segmentation and
//! in-sequence reassembly, a cell capacity that may vary (square wave,
//! down-switch, a UE's fading channel) and link adaptation. The LTE uplink of
//! lte-uplink-raqm.md (issue 21) is built from them in
//! [`crate::radio::ran::lte_ul`].
//!
//! One concept per file:
//! - [`harq`]: HARQ: 8 ms round trip, block errors, maximum transmissions;
//! - [`rlc_tx`]: the RLC AM sending side and the MAC/RLC/PDCP header bytes;
//! - [`reassembly`]: the receiving RLC: reordering, in-sequence delivery;
//! - [`capacity`]: the cell's rate over time and the transport block bytes per TTI;
//! - [`channel`]: the realistic radio: a UE moving in a cell, path loss, fading, SINR;
//! - [`link_adaptation`]: SINR → spectral efficiency (TR 36.942 Annex A).

pub mod capacity;
pub mod channel;
pub mod harq;
pub mod link_adaptation;
pub mod reassembly;
pub mod rlc_tx;
