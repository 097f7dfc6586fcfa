//! One user's bearer as a scenario describes it: `[radio]`'s template with
//! its group's keys ([`crate::radio::RadioConfig::bearer`]).

use super::dch::DchConfig;
use super::pdcp::BufferHolds;
use crate::queue::QueueConfig;
use crate::rlc::RlcConfig;
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
