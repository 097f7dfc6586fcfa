//! The downlink of the LTE uplink study: it carries the server's TCP ACKs to
//! the UE and is not a bottleneck (lte-uplink-raqm.md, the spec's choice).
//! *Simplification*: a FIFO per UE serving packets at `down_rate`, then a
//! fixed `down_delay` (both *our choice*), no loss and no buffer limit.

use crate::packet::Packet;
use crate::radio::air::AirLine;
use crate::time::{Dur, Time};

/// One UE's downlink.
#[derive(Debug)]
pub struct DownPath {
    bps: f64,
    delay: Dur,
    busy_until: Time,
    /// Packets on their way.
    flying: AirLine<Packet>,
}

impl DownPath {
    pub fn new(bps: f64, delay: Dur) -> DownPath {
        DownPath { bps, delay, busy_until: Time::ZERO, flying: AirLine::default() }
    }

    /// `pkt` enters at `now`; returns its arrival time at the UE.
    pub fn send(&mut self, now: Time, pkt: Packet) -> Time {
        let start = self.busy_until.max(now);
        self.busy_until = start + Dur::transmission(pkt.size as u64, self.bps);
        let at = self.busy_until + self.delay;
        self.flying.push(at, pkt);
        at
    }

    /// Packets due by `now` to `out`; returns when the next is due.
    pub fn arrivals(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        self.flying.arrivals(now, out)
    }

    /// Bytes on their way.
    pub fn bytes(&self) -> u64 {
        self.flying.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;

    #[test]
    fn serialises_then_delays_in_order() {
        // 40-byte ACKs at 320 kb/s: 1 ms each, then 2 ms.
        let mut d = DownPath::new(320e3, Dur::from_millis(2));
        let t0 = Time::ZERO;
        assert_eq!(d.send(t0, pkt(1, 40)), Time::ZERO + Dur::from_millis(3));
        assert_eq!(d.send(t0, pkt(2, 40)), Time::ZERO + Dur::from_millis(4));
        let mut out = Vec::new();
        assert_eq!(d.arrivals(Time::ZERO + Dur::from_millis(3), &mut out), Some(Time::ZERO + Dur::from_millis(4)));
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), [1]);
        assert_eq!(d.bytes(), 40);
    }
}
