//! One cell of the downlink: its scheduler over the UEs it serves, and its
//! counters. The UEs' bearers, channels and HARQ timing are the system's
//! ([`super::system`]): a UE handed over keeps them, and only the cell whose
//! scheduler sees it changes.

use crate::radio::scheduler::{AnyScheduler, SchedulerKind, UserView};

/// Counters of one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellStats {
    /// TTIs that served a UE new data.
    pub ttis_served: u64,
    /// New blocks sent (one per UE served in a TTI).
    pub opportunities: u64,
    /// Handovers into the cell.
    pub handovers_in: u64,
    /// The SINR of its UEs with data, once per TTI: samples and their sum in dB.
    pub sinr_samples: u64,
    pub sinr_db_sum: f64,
}

impl CellStats {
    /// The mean SINR of its UEs with data, dB (none without a sample).
    pub fn mean_sinr_db(&self) -> Option<f64> {
        (self.sinr_samples > 0).then(|| self.sinr_db_sum / self.sinr_samples as f64)
    }
}

pub struct Cell {
    pub scheduler: AnyScheduler,
    /// Every UE's view: those of the UEs it does not serve have no backlog.
    pub views: Vec<UserView>,
    /// The share of its resource blocks used in the last TTI (its interference in this one).
    pub load: f64,
    pub stats: CellStats,
}

impl Cell {
    /// A cell scheduling by `kind` among `ues` UEs.
    pub fn new(kind: SchedulerKind, ues: usize) -> Cell {
        Cell { scheduler: kind.build(), views: vec![UserView::default(); ues], load: 0.0, stats: CellStats::default() }
    }
}
