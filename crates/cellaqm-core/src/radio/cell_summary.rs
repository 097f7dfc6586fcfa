//! A cell's row of `summary["cells"]`: what every cell has (its users, its
//! channel, its users' goodput, how busy a shared channel was), and the
//! columns only one system's cells have ([`SystemCell`]).

use serde::Serialize;

/// A cell's row of `summary["cells"]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CellSummary {
    pub cell: u32,
    /// Users attached to the cell.
    pub users: u32,
    /// `"dch"` (dedicated channels), `"hsdpa"`, `"hsdsch"` (the HS-DSCH
    /// system), `"dsch"` (the DSCH system of Ferrús et al.), `"lte_uplink"`
    /// (the LTE uplink of Tan, MSc thesis, 2009) or `"wired"` (the run's shared
    /// bottleneck link).
    pub downlink: &'static str,
    /// The shared channel's scheduler (`null` without one).
    pub scheduler: Option<&'static str>,
    /// IP bytes delivered to the cell's users (on the LTE uplink: from them), per second of the run.
    pub goodput_bps: f64,
    /// Whether the cell's goodput is its users' uploads (the LTE uplink) rather than their downloads.
    #[serde(skip)]
    pub uplink: bool,
    /// Shared channel: TTIs that served a user, as a fraction of the run's TTIs.
    pub tti_utilisation: Option<f64>,
    /// Shared channel: users served per TTI used (1 on HSDPA; several with code multiplexing).
    pub users_per_tti: Option<f64>,
    /// Shared channel: IP packets delayed by HARQ (HSDPA), or blocks sent again (LTE uplink).
    pub harq_delayed: Option<u64>,
    /// The columns of one system's cells.
    #[serde(flatten)]
    pub system: Option<SystemCell>,
}

/// The columns only one system's cells have.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SystemCell {
    HsDsch(HsDschCell),
    Dsch(DschCell),
    LteDl(LteDlCell),
}

/// An HS-DSCH system cell's own columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsDschCell {
    /// The SIR of the cell's backlogged users, once per TTI (dB).
    pub sir_db: SirSummary,
    /// User shares of new blocks per format (QPSK 1/4, QPSK 1/2, 16QAM 3/8, 16QAM 5/8).
    pub mcs_use: [u64; 4],
    /// Blocks lost (each sent again).
    pub blocks_lost: u64,
    pub handovers_in: u64,
    /// RLC PDU bytes received per second (headers and RLC retransmissions included), as bits.
    pub air_bps: f64,
}

/// A DSCH system cell's own columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DschCell {
    pub blocks_lost: u64,
    pub handovers_in: u64,
    /// The DSCH's payload rate.
    pub air_bps: f64,
    /// The cell's mean load factor η over the run's frames (Ferrús et al., eq. 2).
    pub mean_eta: f64,
}

/// A cell's own columns on an LTE downlink of several cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LteDlCell {
    /// The mean SINR of the cell's UEs with data, once per TTI (dB; none without a sample).
    pub mean_sinr_db: Option<f64>,
    pub handovers_in: u64,
}

/// A distribution of SIRs: `summary.cells[].sir_db` of the HS-DSCH system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SirSummary {
    pub samples: u64,
    pub mean: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
}

impl CellSummary {
    /// An HS-DSCH system cell's own columns.
    pub fn hsdsch(&self) -> Option<&HsDschCell> {
        match &self.system {
            Some(SystemCell::HsDsch(h)) => Some(h),
            _ => None,
        }
    }

    /// A DSCH system cell's own columns.
    pub fn dsch(&self) -> Option<&DschCell> {
        match &self.system {
            Some(SystemCell::Dsch(d)) => Some(d),
            _ => None,
        }
    }
}
