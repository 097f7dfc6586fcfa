//! What a radio system reports of its own in the run's summary
//! ([`RanSummary`]), beside its cells' rows and its users' rows: each system
//! fills the parts it has, and its own key ([`SystemSection`]) names itself.

use super::dsch::stats::DschSummary;
use super::lte_ul::network::LteStats;
use crate::bsr::BsrSummary;
use crate::radio::bearer::RadioSummary;
use serde::Serialize;

/// The parts of the run's summary a radio system fills (`None`: the system has no such part).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RanSummary {
    /// `summary.radio`: the bearers' counters summed over the users, on a system of bearers.
    pub radio: Option<RadioSummary>,
    /// `summary.bsr`: the uplink's Buffer Status Reports and the far end's
    /// delay estimate from them, on a system whose UEs send them (user 0's).
    pub bsr: Option<BsrSummary>,
    /// The cells `summary.goodput_per_cell_bps` divides the run's goodput by,
    /// on a system whose study reports it (the HS-DSCH system).
    pub goodput_cells: Option<usize>,
    /// The system's own key of the summary.
    pub own: Option<SystemSection>,
}

/// A system's own key of the run's summary: the variant's name is the key.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SystemSection {
    /// `summary.lte`: the LTE uplink's counters (grants, BSRs, SRs, HARQ).
    Lte(LteStats),
    /// `summary.dsch`: the DSCH system's central-cell measures (docs/dsch.md).
    Dsch(DschSummary),
}
