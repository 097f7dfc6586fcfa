//! A point-to-point link: a managed buffer, a transmitter of fixed rate, and
//! a propagation delay, with optional random loss.
//!
//! The link is passive: [`Link::arrive`] and [`Link::transmission_done`] take
//! `now` and return when the transmitter is next free, and the network
//! schedules those events. A packet leaves the transmitter after its
//! serialisation time and reaches the far end `delay` later. As the delay is
//! constant, packets reach the far end in the order they left: they wait in a
//! delay line ([`Link::take_arrival`]), and only the head of the line has an
//! arrival event pending, which keeps the event queue short on long, fast paths.

use crate::packet::Packet;
use crate::queue::{AnyQueue, DropCause, Dropped, Limits, QueueCtx, QueueDisc};
use crate::rng::{self, Rng};
use crate::scenario::LinkConfig;
use crate::time::{Dur, Time};
use rand::Rng as _;
use std::collections::VecDeque;

/// Time-integrated counters of a link.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    /// Time the transmitter was busy.
    pub busy: Dur,
    /// Packets and bytes transmitted.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// ∫ queued bytes dt, in byte·nanoseconds (waiting packets, not the one in transmission).
    pub queue_byte_ns: u128,
    /// ∫ queued packets dt, in packet·nanoseconds.
    pub queue_packet_ns: u128,
}

pub struct Link {
    rate_bps: f64,
    delay: Dur,
    loss: f64,
    rng: Rng,
    queue: AnyQueue,
    /// The packet being serialised, and when it started.
    in_service: Option<(Packet, Time)>,
    /// Packets propagating to the far end with their arrival times, in order.
    delay_line: VecDeque<(Time, Packet)>,
    stats: LinkStats,
    /// Time of the last change of the queue backlog (for the integrals).
    last_change: Time,
}

impl Link {
    /// The link `name`; its loss process and its queue discipline draw from
    /// their own streams, `<name>.loss` and `<name>.queue`.
    pub fn new(cfg: &LinkConfig, seed: u64, name: &str) -> Link {
        let limits = Limits { bytes: cfg.buffer.map(|b| b.0), packets: cfg.buffer_packets };
        let queue = cfg.queue.build(limits, rng::stream(seed, &format!("{name}.queue")));
        let rng = rng::stream(seed, &format!("{name}.loss"));
        Link {
            rate_bps: cfg.rate.bps(),
            delay: cfg.delay,
            loss: cfg.loss,
            rng,
            queue,
            in_service: None,
            delay_line: VecDeque::new(),
            stats: LinkStats::default(),
            last_change: Time::ZERO,
        }
    }

    fn ctx(&self, now: Time) -> QueueCtx {
        QueueCtx { now, rate_bps: self.rate_bps }
    }

    /// Accumulates the backlog integrals up to `now`; call before every backlog change.
    fn account(&mut self, now: Time) {
        let dt = now.since(self.last_change).0 as u128;
        self.stats.queue_byte_ns += self.queue.bytes() as u128 * dt;
        self.stats.queue_packet_ns += self.queue.packets() as u128 * dt;
        self.last_change = now;
    }

    /// A packet reaches the buffer. Returns when the transmission it starts ends, if it starts one.
    pub fn arrive(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) -> Option<Time> {
        self.account(now);
        let ctx = self.ctx(now);
        self.queue.enqueue(pkt, &ctx, dropped);
        if self.in_service.is_none() {
            self.start_next(now, dropped)
        } else {
            None
        }
    }

    /// Takes the next packet from the queue into the transmitter.
    fn start_next(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> Option<Time> {
        let ctx = self.ctx(now);
        let pkt = self.queue.dequeue(&ctx, dropped)?;
        self.in_service = Some((pkt, now));
        Some(now + Dur::transmission(pkt.size as u64, self.rate_bps))
    }

    /// The transmission in progress ends; the packet starts propagating (unless the
    /// link lost it: then it is in `dropped`). Returns when an arrival event is
    /// needed (the packet is alone in the delay line), and when the next
    /// transmission ends, if one starts.
    pub fn transmission_done(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> (Option<Time>, Option<Time>) {
        let (pkt, started) = self.in_service.take().expect("transmission_done without a packet in service");
        self.stats.busy += now.since(started);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += pkt.size as u64;
        let arrival = if self.loss > 0.0 && self.rng.random::<f64>() < self.loss {
            dropped.push(Dropped { pkt, cause: DropCause::LinkLoss });
            None
        } else {
            let at = now + self.delay;
            self.delay_line.push_back((at, pkt));
            (self.delay_line.len() == 1).then_some(at)
        };
        self.account(now);
        (arrival, self.start_next(now, dropped))
    }

    /// The packet at the head of the delay line reaches the far end; returns it
    /// and when the next one arrives, if any.
    pub fn take_arrival(&mut self) -> (Packet, Option<Time>) {
        let (_, pkt) = self.delay_line.pop_front().expect("an arrival without a packet in the delay line");
        (pkt, self.delay_line.front().map(|&(at, _)| at))
    }

    /// A timer of the queue discipline fired.
    pub fn queue_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> Option<Time> {
        self.account(now);
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
        if self.in_service.is_none() {
            self.start_next(now, dropped)
        } else {
            None
        }
    }

    pub fn next_queue_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// Bytes held: queued, in transmission and propagating.
    pub fn bytes_held(&self) -> u64 {
        self.queue.bytes()
            + self.in_service.map_or(0, |(p, _)| p.size as u64)
            + self.delay_line.iter().map(|(_, p)| p.size as u64).sum::<u64>()
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    /// Counters up to `now` (closes the backlog integrals at `now`).
    pub fn stats(&mut self, now: Time) -> LinkStats {
        self.account(now);
        let mut s = self.stats;
        if let Some((_, started)) = self.in_service {
            s.busy += now.since(started);
        }
        s
    }
}
