//! The unmanaged way back of an LTE radio, which carries the TCP ACKs: the
//! LTE uplink's downlink to each UE (lte-uplink-raqm.md: not a bottleneck)
//! and the LTE downlink's uplink from each UE. *Simplification*: per UE a
//! FIFO served at a fixed rate, if the path has one, then a fixed delay
//! (both *our choice*); no loss and no buffer limit.
//!
//! A UE's arrival event is asked for when a packet enters its empty path,
//! and again at the next packet's arrival while the path holds one: one live
//! event per UE.

use crate::packet::Packet;
use crate::radio::air::AirLine;
use crate::radio::event::{RadioEvent, UeEvent};
use crate::time::{Dur, Time};

/// Every UE's path one way, and the UE event its packets arrive on.
#[derive(Debug)]
pub struct ReturnPaths {
    /// `DownArrive` (to the UEs) or `UpArrive` (from them).
    arrive: UeEvent,
    /// The paths' rate, b/s (`None`: the delay only).
    bps: Option<f64>,
    delay: Dur,
    paths: Vec<Path>,
}

/// One UE's path.
#[derive(Debug, Default)]
struct Path {
    /// When the packets sent so far have left the FIFO.
    busy_until: Time,
    /// Packets on their way.
    flying: AirLine<Packet>,
}

impl ReturnPaths {
    /// `users` paths at `bps` (if any) then `delay`, whose packets arrive on the UE's `arrive` event.
    pub fn new(users: usize, bps: Option<f64>, delay: Dur, arrive: UeEvent) -> ReturnPaths {
        ReturnPaths { arrive, bps, delay, paths: (0..users).map(|_| Path::default()).collect() }
    }

    /// `pkt` enters UE `u`'s path at `now`; asks for the arrival event if the path was empty.
    pub fn send(&mut self, now: Time, u: usize, pkt: Packet, schedule: &mut Vec<(Time, RadioEvent)>) {
        let path = &mut self.paths[u];
        let left = match self.bps {
            Some(bps) => {
                path.busy_until = path.busy_until.max(now) + Dur::transmission(pkt.size as u64, bps);
                path.busy_until
            }
            None => now,
        };
        let at = left + self.delay;
        if path.flying.push(at, pkt) {
            schedule.push((at, RadioEvent::Ue(u as u16, self.arrive)));
        }
    }

    /// UE `u`'s arrival event at `now`: the packets due to `to`, and the event asked for again at the next one.
    pub fn arrivals(&mut self, now: Time, u: usize, to: &mut Vec<Packet>, schedule: &mut Vec<(Time, RadioEvent)>) {
        if let Some(at) = self.paths[u].flying.arrivals(now, to) {
            schedule.push((at, RadioEvent::Ue(u as u16, self.arrive)));
        }
    }

    /// Bytes on their way, every path.
    pub fn bytes(&self) -> u64 {
        self.paths.iter().map(|p| p.flying.bytes()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;

    #[test]
    fn serialises_then_delays_in_order_with_one_event_per_ue() {
        let ms = |n| Time::ZERO + Dur::from_millis(n);
        // 40-byte ACKs at 320 kb/s: 1 ms each, then 2 ms.
        let mut d = ReturnPaths::new(2, Some(320e3), Dur::from_millis(2), UeEvent::DownArrive);
        let mut schedule = Vec::new();
        d.send(ms(0), 1, pkt(1, 40), &mut schedule);
        d.send(ms(0), 1, pkt(2, 40), &mut schedule);
        assert_eq!(schedule, [(ms(3), RadioEvent::Ue(1, UeEvent::DownArrive))], "asked for once, at the first arrival");
        assert_eq!(d.bytes(), 80);
        let (mut out, mut schedule) = (Vec::new(), Vec::new());
        d.arrivals(ms(3), 1, &mut out, &mut schedule);
        assert_eq!(out.iter().map(|p| p.uid).collect::<Vec<_>>(), [1]);
        assert_eq!(schedule, [(ms(4), RadioEvent::Ue(1, UeEvent::DownArrive))], "again at the next one");
        d.arrivals(ms(4), 1, &mut out, &mut schedule);
        assert_eq!((out.len(), schedule.len(), d.bytes()), (2, 1, 0), "empty: nothing more asked for");
    }

    #[test]
    fn without_a_rate_each_packet_takes_the_delay_alone() {
        let at = Time::ZERO + Dur::from_millis(5);
        let mut u = ReturnPaths::new(1, None, Dur::from_millis(5), UeEvent::UpArrive);
        let mut schedule = Vec::new();
        u.send(Time::ZERO, 0, pkt(1, 1500), &mut schedule);
        u.send(Time::ZERO, 0, pkt(2, 1500), &mut schedule);
        let (mut out, mut again) = (Vec::new(), Vec::new());
        u.arrivals(at, 0, &mut out, &mut again);
        assert_eq!((out.len(), again.len()), (2, 0));
        assert_eq!(schedule, [(at, RadioEvent::Ue(0, UeEvent::UpArrive))]);
    }
}
