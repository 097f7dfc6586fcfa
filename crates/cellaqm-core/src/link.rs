//! A point-to-point link: a buffer, a transmitter, and a propagation delay,
//! with optional random loss. The transmitter's capacity is a fixed rate, a
//! schedule of rates or a Mahimahi trace ([`crate::capacity`]); on a trace a
//! packet waits in the buffer until a delivery opportunity.
//!
//! The link is passive: [`Link::arrive`] and [`Link::transmission_done`] take
//! `now` and return the events the network must schedule ([`Wake`]). A packet
//! leaves the transmitter after its serialisation time and reaches the far end
//! `delay` later. As the delay is constant, packets reach the far end in the
//! order they left: they wait in a delay line ([`Link::take_arrival`]), and only
//! the head of the line has an arrival event pending, which keeps the event
//! queue short on long, fast paths.
//!
//! A link whose buffer is *managed* (a limit, a queue discipline other than
//! tail drop, a queue the network observes, Buffer Status Reports or a
//! receiver-side filter, [`crate::bsr`]) is served event by event: each
//! transmission end is an event at which the discipline picks the next packet
//! (on a trace, when the transmitter is idle until the next opportunity, an
//! event at that opportunity: the discipline picks then, not before).
//! The packet being transmitted already waits at the tail of the delay line
//! (its arrival time is known once it starts), but it only becomes the head
//! whose arrival is scheduled when its transmission ends.
//! An unmanaged link is a plain unlimited FIFO, and there each packet's service
//! follows at once from the Lindley recursion, start = max(arrival, previous
//! departure) (on a trace, the first opportunity at or after that): it is computed on arrival and the link needs no transmission
//! events. Both keep each packet's service start in the delay line, so their
//! statistics at any time are the same.
//!
//! An unmanaged, lossless link whose far end is the entrance of another
//! unmanaged link (the uplink into the core) can *cut through*
//! ([`Link::cut_through`]): as the next link is a FIFO too, the packet's
//! service there follows from its arrival time as well, so it is handed on at
//! once ([`Wake::handed_on`]) and no event marks its passage between the two.
//! Such a link keeps its packets in the delay line only for its statistics.
//!
//! A packet lost on the link (`loss`) is dropped when it would have reached
//! the far end; the draws are taken in the order packets leave. A packet that
//! reaches the far end passes its receiver-side filter, if any (R-AQM, cause
//! `receiver`).

use crate::bsr::Bsr;
use crate::bsr::Verdict;
use crate::capacity::Transmitter;
use crate::metrics::Occupancy;
use crate::packet::Packet;
use crate::queue::{AnyQueue, DropCause, Dropped, Limits, QueueConfig, QueueCtx, QueueDisc};
use crate::rng::{self, Rng};
use crate::scenario::LinkConfig;
use crate::time::{Dur, Time};
use rand::Rng as _;
use std::collections::VecDeque;

/// Time-integrated counters of a link.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Time the transmitter was busy; on a trace, the run's time × the share
    /// of the delivery opportunities' bytes used ([`Transmitter::share_used`]).
    pub busy: Dur,
    /// Packets and bytes transmitted.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// ∫ queued bytes dt, in byte·nanoseconds (waiting packets, not the one in transmission).
    pub queue_byte_ns: u128,
    /// ∫ queued packets dt, in packet·nanoseconds.
    pub queue_packet_ns: u128,
    /// How long the queue held each backlog; tracked on a managed link only
    /// (an unmanaged one books each packet's wait on arrival, in advance).
    pub occupancy: Option<Occupancy>,
}

pub struct Link {
    transmitter: Transmitter,
    delay: Dur,
    loss: f64,
    rng: Rng,
    queue: AnyQueue,
    /// Managed link: the last packet of the delay line is being transmitted.
    transmitting: bool,
    /// Managed link on a trace: idle with packets queued until the next
    /// opportunity, whose event is pending.
    waiting: bool,
    /// Unmanaged link: when the transmitter is free of the packets accepted so
    /// far (`None` for a managed link).
    free_at: Option<Time>,
    /// Packets sent or being sent, in order, with their arrival time at the far
    /// end and the start of their transmission.
    delay_line: VecDeque<Flight>,
    stats: LinkStats,
    /// Time of the last change of the queue backlog (for the integrals).
    last_change: Time,
    /// Buffer Status Reports from the sending end and the far end that reads them (`bsr_period`).
    bsr: Option<Bsr>,
    /// Hands each packet on to the next link at once (see the module doc).
    cut_through: bool,
}

/// A packet in the delay line.
#[derive(Clone, Copy, Debug)]
struct Flight {
    arrival: Time,
    started: Time,
    /// When it reached an unmanaged link (possibly after `now`: a cut-through
    /// link hands packets on early); a managed link's statistics do not read it.
    entered: Time,
    pkt: Packet,
}

/// The events a link asks the network to schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Wake {
    /// The transmission now in progress ends (managed links).
    pub transmission_done: Option<Time>,
    /// The head of the delay line reaches the far end (it just became the head).
    pub arrival: Option<Time>,
    /// A cut-through link: the packet reaches the far end at this time, and
    /// enters the next link now, as of that time.
    pub handed_on: Option<Time>,
}

impl Link {
    /// The link `name`; its loss process and its queue discipline draw from
    /// their own streams, `<name>.loss` and `<name>.queue`. `observed`: the
    /// network reads its queue during the run, so the buffer counts as managed.
    pub fn new(cfg: &LinkConfig, seed: u64, name: &str, observed: bool) -> Link {
        let limits = Limits { bytes: cfg.buffer.map(|b| b.0), packets: cfg.buffer_packets };
        let reports = cfg.bsr_period.is_some() || cfg.receiver.is_some();
        let managed = observed
            || reports
            || limits.bytes.is_some()
            || limits.packets.is_some()
            || cfg.queue != QueueConfig::TailDrop;
        let queue = cfg.queue.build(limits, rng::stream(seed, &format!("{name}.queue")));
        let rng = rng::stream(seed, &format!("{name}.loss"));
        Link {
            transmitter: Transmitter::new(&cfg.rate, seed),
            delay: cfg.delay,
            loss: cfg.loss,
            rng,
            queue,
            transmitting: false,
            waiting: false,
            free_at: (!managed).then_some(Time::ZERO),
            delay_line: VecDeque::new(),
            stats: LinkStats { occupancy: managed.then(Occupancy::default), ..LinkStats::default() },
            last_change: Time::ZERO,
            bsr: cfg.bsr_period.map(|period| Bsr::new(period, cfg.receiver.as_ref())),
            cut_through: false,
        }
    }

    /// Whether the link may cut through to a next link that is unmanaged too:
    /// it is unmanaged itself and loses nothing.
    pub fn can_cut_through(&self) -> bool {
        !self.is_managed() && self.loss == 0.0
    }

    /// Hands every packet on to the next link as it arrives (see the module doc);
    /// the network calls this when the next link is unmanaged.
    pub fn cut_through(&mut self) {
        debug_assert!(self.can_cut_through(), "only an unmanaged, lossless link cuts through");
        self.cut_through = true;
    }

    fn ctx(&self, now: Time) -> QueueCtx {
        QueueCtx { now, rate_bps: self.transmitter.rate_at(now) }
    }

    /// Accumulates the backlog integrals up to `now`; call before every backlog change.
    fn account(&mut self, now: Time) {
        let dt = now.since(self.last_change).0;
        let (bytes, packets) = (self.queue.bytes(), self.queue.packets() as u64);
        self.stats.queue_byte_ns += bytes as u128 * dt as u128;
        self.stats.queue_packet_ns += packets as u128 * dt as u128;
        if let Some(o) = &mut self.stats.occupancy {
            o.hold(bytes, packets, dt);
        }
        self.last_change = now;
    }

    /// Whether the link is served event by event (see the module doc).
    pub fn is_managed(&self) -> bool {
        self.free_at.is_none()
    }

    /// A packet reaches the buffer.
    pub fn arrive(&mut self, now: Time, pkt: &Packet, dropped: &mut Vec<Dropped>) -> Wake {
        if let Some(free_at) = self.free_at {
            // Unmanaged: the Lindley recursion gives the packet's service now.
            let started = self.transmitter.ready(free_at.max(now));
            let done = self.transmitter.finish(started, pkt.size);
            let wait = started.since(now).0 as u128;
            self.free_at = Some(done);
            self.stats.busy += done.since(started);
            self.stats.packets_sent += 1;
            self.stats.bytes_sent += pkt.size as u64;
            self.stats.queue_byte_ns += pkt.size as u128 * wait;
            self.stats.queue_packet_ns += wait;
            let arrival = done + self.delay;
            if self.cut_through {
                // Its packets stay in the line only for `stats`, until they have passed.
                while self.delay_line.front().is_some_and(|f| f.arrival <= now) {
                    self.delay_line.pop_front();
                }
            }
            self.delay_line.push_back(Flight { arrival, started, entered: now, pkt: *pkt });
            return match self.cut_through {
                true => Wake { handed_on: Some(arrival), ..Wake::default() },
                false => Wake { arrival: (self.delay_line.len() == 1).then_some(arrival), ..Wake::default() },
            };
        }
        self.account(now);
        if let Some(b) = &mut self.bsr {
            b.entered(pkt.uid, now);
        }
        let ctx = self.ctx(now);
        self.queue.enqueue(*pkt, &ctx, dropped);
        Wake { transmission_done: self.start_next(now, dropped), ..Wake::default() }
    }

    /// Takes the next packet from the queue into the transmitter, if it is
    /// idle; returns when its transmission ends, or, if the transmitter cannot
    /// send before a later opportunity, when that comes.
    fn start_next(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> Option<Time> {
        if self.transmitting || self.waiting {
            self.tell_bsr(now, dropped, None);
            return None;
        }
        if self.queue.packets() > 0 {
            let ready = self.transmitter.ready(now);
            if ready > now {
                self.waiting = true;
                self.tell_bsr(now, dropped, None);
                return Some(ready);
            }
        }
        let ctx = self.ctx(now);
        let pkt = self.queue.dequeue(&ctx, dropped);
        self.tell_bsr(now, dropped, pkt.as_ref());
        let pkt = pkt?;
        let done = self.transmitter.finish(now, pkt.size);
        self.delay_line.push_back(Flight { arrival: done + self.delay, started: now, entered: now, pkt });
        self.transmitting = true;
        Some(done)
    }

    /// Tells the BSR reporter, if any, what left the buffer in this step:
    /// `dropped` (every drop of the step) and `sent`, which carries a due report.
    fn tell_bsr(&mut self, now: Time, dropped: &[Dropped], sent: Option<&Packet>) {
        if let Some(b) = &mut self.bsr {
            b.dequeued(now, dropped, sent, self.queue.bytes());
        }
    }

    /// The transmission in progress on a managed link ends; the packet starts
    /// propagating and the next one, if any, starts transmission. (Or the
    /// opportunity an idle transmitter waited for comes: the next packet starts.)
    pub fn transmission_done(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> Wake {
        if self.waiting {
            self.waiting = false;
            self.account(now);
            return Wake { transmission_done: self.start_next(now, dropped), ..Wake::default() };
        }
        debug_assert!(self.transmitting, "transmission_done without a packet in service");
        self.transmitting = false;
        let sent = self.delay_line.back().expect("the packet in service is in the delay line");
        let (started, size, arrival) = (sent.started, sent.pkt.size, sent.arrival);
        self.stats.busy += now.since(started);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        let arrival = (self.delay_line.len() == 1).then_some(arrival);
        self.account(now);
        Wake { transmission_done: self.start_next(now, dropped), arrival, ..Wake::default() }
    }

    /// The packet at the head of the delay line reaches the far end: returns it
    /// unless the link lost it or the receiver-side filter dropped it (then it
    /// is in `dropped`). [`Link::next_arrival`] then tells when the next one arrives.
    pub fn take_arrival(&mut self, dropped: &mut Vec<Dropped>) -> Option<Packet> {
        let Flight { pkt, arrival, .. } =
            self.delay_line.front().expect("an arrival without a packet in the delay line");
        let cause = if self.loss > 0.0 && self.rng.random::<f64>() < self.loss {
            if let Some(b) = &mut self.bsr {
                b.lost(pkt.uid);
            }
            Some(DropCause::LinkLoss)
        } else if self.bsr.as_mut().is_some_and(|b| b.arrived(*arrival, pkt) == Verdict::Drop) {
            Some(DropCause::Receiver)
        } else {
            None
        };
        // Copied once, straight from the delay line: a copy through the stack left
        // the packet's fields to be read across two stores, which stalls the load.
        let pkt = *pkt;
        self.delay_line.pop_front();
        match cause {
            Some(cause) => {
                dropped.push(Dropped { pkt, cause });
                None
            }
            None => Some(pkt),
        }
    }

    /// When the head of the delay line reaches the far end, if it is propagating
    /// (not still being transmitted).
    pub fn next_arrival(&self) -> Option<Time> {
        (self.delay_line.len() > self.transmitting as usize).then(|| self.delay_line[0].arrival)
    }

    /// A timer of the queue discipline fired.
    pub fn queue_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) -> Option<Time> {
        self.account(now);
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
        self.start_next(now, dropped)
    }

    pub fn next_queue_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// Bytes held: queued, in transmission and propagating (a cut-through
    /// link's packets are held by the next link).
    pub fn bytes_held(&self) -> u64 {
        if self.cut_through {
            return 0;
        }
        self.queue.bytes() + self.delay_line.iter().map(|f| f.pkt.size as u64).sum::<u64>()
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    /// The link's Buffer Status Reports and their far end, if it has them.
    pub fn bsr(&mut self) -> Option<&mut Bsr> {
        self.bsr.as_mut()
    }

    /// Counters up to `now` (closes the backlog integrals at `now`).
    pub fn stats(&mut self, now: Time) -> LinkStats {
        let mut s = self.counted(now);
        if let Some(share) = self.transmitter.share_used(now, s.bytes_sent) {
            s.busy = Dur((now.0 as f64 * share).round() as u64);
        }
        s
    }

    /// [`Link::stats`] as the transmissions count them.
    fn counted(&mut self, now: Time) -> LinkStats {
        self.account(now);
        let mut s = self.stats.clone();
        if self.is_managed() {
            if let Some(f) = self.delay_line.back().filter(|_| self.transmitting) {
                s.busy += now.since(f.started);
            }
            return s;
        }
        // An unmanaged link booked its packets' service in advance: take back
        // what lies after `now` (those packets are at the tail of the line).
        for f in self.delay_line.iter().rev() {
            let done = f.arrival - self.delay;
            if done <= now {
                break;
            }
            s.busy = s.busy - done.since(f.started.max(now));
            if f.started > now {
                let late = f.started.since(now.max(f.entered)).0 as u128;
                s.queue_byte_ns -= f.pkt.size as u128 * late;
                s.queue_packet_ns -= late;
            }
            s.packets_sent -= 1;
            s.bytes_sent -= f.pkt.size as u64;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::queue::testkit::pkt;
    use crate::units::Rate;
    use proptest::prelude::*;

    #[derive(Clone, Copy)]
    enum Ev {
        Enter(u64, u32),
        TransmissionDone,
        Arrive,
    }

    /// Runs `arrivals` (time in µs, size) through `link`, driving it with the
    /// events it asks for; returns what reached the far end (time, uid), the
    /// uids it lost, and its statistics at `probe`.
    fn drive(mut link: Link, arrivals: &[(u64, u32)], probe: Time) -> (Vec<(Time, u64)>, Vec<u64>, LinkStats) {
        let mut events = EventQueue::new();
        for (uid, &(us, size)) in arrivals.iter().enumerate() {
            events.schedule(Time(us * 1_000), Ev::Enter(uid as u64, size));
        }
        let (mut far, mut dropped, mut stats) = (Vec::new(), Vec::new(), None);
        while let Some((now, ev)) = events.pop() {
            if now > probe && stats.is_none() {
                stats = Some(link.stats(probe));
            }
            let wake = match ev {
                Ev::Enter(uid, size) => link.arrive(now, &pkt(uid, size), &mut dropped),
                Ev::TransmissionDone => link.transmission_done(now, &mut dropped),
                Ev::Arrive => {
                    let p = link.take_arrival(&mut dropped);
                    far.extend(p.map(|p| (now, p.uid)));
                    Wake { arrival: link.next_arrival(), ..Wake::default() }
                }
            };
            if let Some(at) = wake.arrival {
                events.schedule(at, Ev::Arrive);
            }
            if let Some(at) = wake.transmission_done {
                events.schedule(at, Ev::TransmissionDone);
            }
        }
        let stats = stats.unwrap_or_else(|| link.stats(probe));
        (far, dropped.iter().map(|d| d.pkt.uid).collect(), stats)
    }

    /// Runs `arrivals` (time in µs, size) through two links in series, with an
    /// event at each far end (a cut-through first link hands packets on
    /// instead); returns what reached the second's far end, both links'
    /// statistics at `probe` and the bytes they hold then.
    fn drive_chain(
        mut links: [Link; 2],
        arrivals: &[(u64, u32)],
        probe: Time,
    ) -> (Vec<(Time, u64)>, [LinkStats; 2], u64) {
        #[derive(Clone, Copy)]
        enum Ev {
            Enter(u64, u32),
            Arrive(usize),
        }
        fn enter(links: &mut [Link; 2], events: &mut EventQueue<Ev>, at: Time, i: usize, p: &Packet) {
            let wake = links[i].arrive(at, p, &mut Vec::new());
            if let Some(t) = wake.handed_on {
                return enter(links, events, t, i + 1, p);
            }
            if let Some(t) = wake.arrival {
                events.schedule(t, Ev::Arrive(i));
            }
        }
        let mut events = EventQueue::new();
        for (uid, &(us, size)) in arrivals.iter().enumerate() {
            events.schedule(Time(us * 1_000), Ev::Enter(uid as u64, size));
        }
        let (mut far, mut at_probe) = (Vec::new(), None);
        let snapshot = |links: &mut [Link; 2]| {
            let held = links.iter().map(Link::bytes_held).sum();
            ([links[0].stats(probe), links[1].stats(probe)], held)
        };
        while let Some((now, ev)) = events.pop() {
            if now > probe && at_probe.is_none() {
                at_probe = Some(snapshot(&mut links));
            }
            match ev {
                Ev::Enter(uid, size) => enter(&mut links, &mut events, now, 0, &pkt(uid, size)),
                Ev::Arrive(i) => {
                    let p = links[i].take_arrival(&mut Vec::new()).expect("lossless");
                    if let Some(t) = links[i].next_arrival() {
                        events.schedule(t, Ev::Arrive(i));
                    }
                    match i {
                        0 => enter(&mut links, &mut events, now, 1, &p),
                        _ => far.push((now, p.uid)),
                    }
                }
            }
        }
        let (stats, held) = at_probe.unwrap_or_else(|| snapshot(&mut links));
        (far, stats, held)
    }

    const SQUARE_WAVE: &str = "{ steps = [[\"0s\", \"2Mbps\"], [\"3ms\", \"384kbps\"]], repeat = \"10ms\" }";
    const TRACE: &str = "{ trace = \"link-test.trace\" }";

    /// A link rate from its TOML; the trace is a file of opportunities at 1, 1, 1, 2, 9 and 20 ms.
    fn rate_of(toml: &str) -> crate::capacity::LinkRate {
        #[derive(serde::Deserialize)]
        struct Holder {
            rate: crate::capacity::LinkRate,
        }
        let dir = std::env::temp_dir().join(format!("cellaqm-link-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("link-test.trace"), "1\n1\n1\n2\n9\n20\n").unwrap();
        let mut rate = toml::from_str::<Holder>(&format!("rate = {toml}")).unwrap().rate;
        rate.load(&dir).unwrap();
        rate
    }

    proptest! {
        /// A cut-through link hands its packets to the next one as the events
        /// at its far end would: the same arrivals at the end of the chain, and
        /// the same statistics and bytes held at any time.
        #[test]
        fn cutting_through_changes_nothing_but_the_events(
            gaps in proptest::collection::vec((0u64..3_000, 40u32..1_500), 1..60),
            probe_us in 0u64..100_000,
        ) {
            let first = LinkConfig { rate: Rate(1e6).into(), delay: Dur::from_millis(7), ..LinkConfig::default() };
            let second = LinkConfig { rate: Rate(3e6).into(), delay: Dur::from_millis(3), ..LinkConfig::default() };
            let mut t = 0;
            let arrivals: Vec<(u64, u32)> = gaps.iter().map(|&(gap, size)| { t += gap; (t, size) }).collect();
            let probe = Time(probe_us * 1_000);
            let chain = || [Link::new(&first, 9, "a", false), Link::new(&second, 9, "b", false)];
            let stepped = drive_chain(chain(), &arrivals, probe);
            let mut links = chain();
            prop_assert!(links[0].can_cut_through());
            links[0].cut_through();
            let cut = drive_chain(links, &arrivals, probe);
            prop_assert_eq!(&stepped.0, &cut.0);
            prop_assert_eq!(stepped.2, cut.2);
            for (a, b) in stepped.1.iter().zip(&cut.1) {
                prop_assert_eq!(
                    (a.busy, a.packets_sent, a.bytes_sent, a.queue_byte_ns, a.queue_packet_ns),
                    (b.busy, b.packets_sent, b.bytes_sent, b.queue_byte_ns, b.queue_packet_ns)
                );
            }
        }

        /// The unmanaged link's Lindley recursion gives exactly what serving the
        /// same FIFO event by event gives: the same far-end arrivals and losses,
        /// and the same statistics at any time, even mid-transmission.
        #[test]
        fn an_unmanaged_link_behaves_as_the_event_driven_fifo(
            gaps in proptest::collection::vec((0u64..3_000, 40u32..1_500), 1..60),
            probe_us in 0u64..100_000,
            loss in prop_oneof![Just(0.0), 0.0..0.5],
            capacity in 0..3usize,
        ) {
            // A fixed rate, a square wave, or a trace (bursts, gaps, partial opportunities).
            let rate = [rate_of("\"1Mbps\""), rate_of(SQUARE_WAVE), rate_of(TRACE)][capacity].clone();
            let cfg = LinkConfig { rate, delay: Dur::from_millis(7), loss, ..LinkConfig::default() };
            let mut t = 0;
            let arrivals: Vec<(u64, u32)> = gaps.iter().map(|&(gap, size)| { t += gap; (t, size) }).collect();
            let probe = Time(probe_us * 1_000);
            let managed = drive(Link::new(&cfg, 9, "l", true), &arrivals, probe);
            let unmanaged = drive(Link::new(&cfg, 9, "l", false), &arrivals, probe);
            prop_assert_eq!(&managed.0, &unmanaged.0);
            prop_assert_eq!(&managed.1, &unmanaged.1);
            let (m, u) = (&managed.2, &unmanaged.2);
            prop_assert_eq!(
                (m.busy, m.packets_sent, m.bytes_sent, m.queue_byte_ns, m.queue_packet_ns),
                (u.busy, u.packets_sent, u.bytes_sent, u.queue_byte_ns, u.queue_packet_ns)
            );
            // The managed link's occupancy distribution covers the time up to
            // the probe and has the backlog integrals as its mean.
            let occ = m.occupancy.as_ref().expect("a managed link tracks its occupancy");
            prop_assert!(u.occupancy.is_none());
            for (h, integral) in [(occ.bytes(), m.queue_byte_ns), (occ.packets(), m.queue_packet_ns)] {
                prop_assert_eq!(h.count(), probe.0);
                let mean = h.mean() * probe.0 as f64;
                prop_assert!((mean - integral as f64).abs() <= 1e-9 * integral as f64, "{} vs {}", mean, integral);
            }
        }
    }
}
