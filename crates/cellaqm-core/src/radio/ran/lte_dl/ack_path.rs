//! The uplink of the LTE downlink: it carries each UE's packets (TCP ACKs)
//! to the core after a fixed delay, with no rate limit and no loss (*our
//! choice*: the downlink is the bottleneck under study, the uplink is not).

use crate::packet::Packet;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// One UE's uplink: packets on their way, with their arrival times (in order).
#[derive(Debug, Default)]
pub struct AckPath {
    flying: VecDeque<(Time, Packet)>,
}

impl AckPath {
    /// `pkt` leaves the UE at `now`; returns its arrival at the core, `delay` later.
    pub fn send(&mut self, now: Time, delay: Dur, pkt: Packet) -> Time {
        let at = now + delay;
        self.flying.push_back((at, pkt));
        at
    }

    /// Packets due by `now` to `out`; returns when the next is due.
    pub fn arrivals(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        while self.flying.front().is_some_and(|f| f.0 <= now) {
            out.push(self.flying.pop_front().expect("checked").1);
        }
        self.flying.front().map(|f| f.0)
    }

    /// Bytes on their way.
    pub fn bytes(&self) -> u64 {
        self.flying.iter().map(|f| f.1.size as u64).sum()
    }
}
