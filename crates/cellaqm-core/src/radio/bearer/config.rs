//! One user's bearer as a scenario describes it: `[radio]`'s template with
//! its group's keys ([`crate::radio::RadioConfig::bearer`]).

use super::dch::DchConfig;
use super::pdcp::BufferHolds;
use crate::queue::{AnyQueue, Limits, QueueConfig};
use crate::rlc::RlcConfig;
use crate::rng::Rng;
use crate::units::Bytes;

/// One user's bearer.
#[derive(Clone, Debug, PartialEq)]
pub struct BearerConfig {
    pub buffer: Option<Bytes>,
    pub buffer_packets: Option<u32>,
    pub buffer_holds: BufferHolds,
    pub queue: QueueConfig,
    pub uplink_buffer: Option<Bytes>,
    pub uplink_queue: QueueConfig,
    pub rlc: RlcConfig,
    /// The user's DCH downlink (`None` where a shared channel serves it).
    pub dch: Option<DchConfig>,
    pub uplink: DchConfig,
}

impl BearerConfig {
    /// The user's managed downlink buffer (the RNC's or the eNodeB's PDCP
    /// buffer): `queue` within `buffer` and `buffer_packets`, drawing from `rng`.
    pub fn down_queue(&self, rng: Rng) -> AnyQueue {
        self.queue.build(Limits { bytes: self.buffer.map(|b| b.0), packets: self.buffer_packets }, rng)
    }

    /// The UE's buffer: `uplink_queue` within `uplink_buffer`, drawing from `rng`.
    pub fn up_queue(&self, rng: Rng) -> AnyQueue {
        self.uplink_queue.build(Limits { bytes: self.uplink_buffer.map(|b| b.0), packets: None }, rng)
    }
}
