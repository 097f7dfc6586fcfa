//! Traffic: what the applications at the ends of the path transfer.
//!
//! - `bulk`: each flow's server sends without end (an FTP-like greedy source).
//! - `file`: each flow's server sends `size` bytes once, then closes.
//!
//! Flows start at `start`, `start + spacing`, `start + 2·spacing`, …; each
//! start is a client opening a TCP connection (the SYN crosses the uplink).

use crate::time::{Dur, Time};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Bulk,
    File,
}

/// The `[traffic]` section of a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficConfig {
    /// `"bulk"` or `"file"`.
    pub model: Model,
    /// Number of parallel flows.
    #[serde(default = "one")]
    pub flows: u32,
    /// Bytes per flow (`file` only).
    #[serde(default)]
    pub size: Option<Bytes>,
    /// When the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Time between successive flow starts.
    #[serde(default)]
    pub spacing: Dur,
}

fn one() -> u32 {
    1
}

/// One flow to open: when, and how many bytes the server sends (`None`: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowPlan {
    pub start: Time,
    pub bytes: Option<u64>,
}

impl TrafficConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.flows == 0 {
            return Err("traffic.flows: must be at least 1".into());
        }
        match (self.model, self.size) {
            (Model::File, None) => Err("traffic.size: required for model \"file\" (e.g. \"250kB\")".into()),
            (Model::File, Some(Bytes(0))) => Err("traffic.size: must be positive".into()),
            (Model::Bulk, Some(_)) => Err("traffic.size: not used by model \"bulk\" (remove it, or use model \"file\")".into()),
            _ => Ok(()),
        }
    }

    /// The flows to open, in start order.
    pub fn plan(&self) -> Vec<FlowPlan> {
        (0..self.flows as u64)
            .map(|i| FlowPlan { start: Time::ZERO + self.start + self.spacing * i, bytes: self.size.map(|b| b.0) })
            .collect()
    }
}
