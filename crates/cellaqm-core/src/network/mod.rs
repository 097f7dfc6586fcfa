//! The network of a run: hosts, links, the radio access network, and the
//! event loop that moves packets between them.
//!
//! ```text
//!  server ─▶ core (down) ─▶ bottleneck (managed buffer) ─▶ client          wired: every user shares the links
//!    ▲                                                       │
//!    └── core (up) ◀── [R-AQM filter] ◀── uplink (buffer) ◀──┘
//!
//!  server ─▶ core (down) ─▶ user u's bearer ─▶ cell ─▶ UE u                 [radio]: one bearer per user
//!    ▲                                                  │
//!    └── core (up) ◀── [ACK delay] ◀── user u's bearer ◀┘
//! ```
//!
//! Each packet crossing a link is an event at the link's far end, except
//! where an unmanaged link feeds another (the uplink into the core, when
//! neither is managed, the uplink loses nothing and no ACK delay control
//! sits between): the first then cuts through ([`Link::cut_through`]),
//! handing each packet on as it accepts it.
//!
//! With `bsr_period` the uplink's buffer (the UE's) sends Buffer Status
//! Reports to the uplink's far end (the eNodeB), whose receiver-side filter
//! (R-AQM) judges each packet before it enters the core ([`crate::bsr`]).
//!
//! With a `[radio]` section the [`RadioAccess`] network (a cell, and a bearer
//! per user: PDCP buffer, RLC AM, DCH or the cell's HSDPA, uplink DCH) takes
//! the place of both the bottleneck and the uplink: a packet at those hops is
//! handed to the bearer of its flow's user, and what the bearers deliver
//! continues on the route. With `bearer = "lte_uplink"` that is the LTE
//! uplink's UE of the user (uplink) or its ACK downlink ([`crate::radio::ran::lte_ul`]).
//!
//! A flow is a TCP connection between a client endpoint (at the user's UE)
//! and a server endpoint, or a UDP stream (`flows.rs`). Flows are created
//! during the run by the traffic sources ([`crate::traffic`]): the network
//! only moves packets, drives the endpoints, and executes what the
//! applications ask for (`apps.rs`: open, send, close, notify me when bytes
//! arrived, wake me later, send a datagram). A packet that crosses a link goes
//! on to the next link of its direction's route (`topology.rs`); after the last
//! it is handed to the endpoint at that end. At the end of the run
//! `report.rs` sums it all up: the run, each flow, each user, each cell.

mod apps;
mod flows;
mod report;
#[cfg(test)]
mod tests;
mod topology;

use crate::capture::{Capture, Tap};
use crate::engine::EventQueue;
use crate::link::{Link, Wake};
use crate::metrics::{
    Download, FlowSummary, Histogram, Ledger, OccupancyLog, PacketLog, Summary, Trace, TrafficLog, UserSummary,
};
use crate::packet::{flags, Dir, FlowId, Packet, Transport};
use crate::queue::{DropCause, Dropped, QueueDisc};
use crate::radio::AckDelay;
use crate::radio::{RadioAccess, RadioEvent, RadioOut, Ran};
use crate::scenario::Scenario;
use crate::tcp::TcpConfig;
use crate::time::Time;
use crate::traffic::{Action, App, Application, Side};
use flows::{Closed, FlowTotals, Flows, Kind};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use topology::{next_hop, radio_link, route, LinkId, LINKS};

/// What to record besides the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Keep one record per delivered downlink data packet.
    pub record_packets: bool,
    /// Record the time series of [`Trace`] (cwnd, buffer occupancy, drops, delivered segments).
    pub trace: bool,
    /// Keep every packet at the server, the bottleneck and the client ([`Capture`], for pcap files).
    pub capture: bool,
    /// Keep only the totals of the flows and downloads, not a row for each
    /// ([`RunResult::flows`] and [`RunResult::downloads`] are then empty):
    /// memory flat in the run's duration however many connections come and
    /// go. The summary and the per-user rows are the same either way.
    pub totals_only: bool,
}

/// The results of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub summary: Summary,
    /// One row per flow, in flow order (empty with [`RunOptions::totals_only`]).
    pub flows: Vec<FlowSummary>,
    /// One row per user (UE).
    pub users: Vec<UserSummary>,
    /// One record per download (page, file, upload, session, packet call;
    /// empty with [`RunOptions::totals_only`]).
    pub downloads: Vec<Download>,
    pub packets: Option<PacketLog>,
    pub trace: Option<Trace>,
    pub capture: Option<Capture>,
    /// How long each managed buffer held each backlog (the bottleneck, the
    /// PDCP buffer with `[radio]`, and a managed uplink); always recorded.
    pub occupancy: OccupancyLog,
}

/// Lets another thread follow a run and stop it: before each event the run
/// looks at the cancel flag, and after taking it publishes its simulated time
/// and the events taken so far. A look costs a load and two stores, nothing
/// next to an event; looking only every N events left a stop (and the
/// progress line) waiting for N events, seconds where one event is a
/// 37-cell DSCH frame.
#[derive(Debug, Default)]
pub struct Control {
    cancelled: AtomicBool,
    now_ns: AtomicU64,
    events: AtomicU64,
}

impl Control {
    /// Asks the run to stop before its next event.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`Control::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The simulated time of the last event the run took, in seconds.
    pub fn simulated_s(&self) -> f64 {
        Time(self.now_ns.load(Ordering::Relaxed)).as_secs_f64()
    }

    /// The events the run took so far.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    fn publish(&self, now: Time, events: u64) {
        self.now_ns.store(now.0, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
    }
}

/// Runs `scenario` with `seed` to its end.
pub fn run(scenario: &Scenario, seed: u64, opts: &RunOptions) -> RunResult {
    run_controlled(scenario, seed, opts, &Control::default()).expect("nobody else can cancel the run")
}

/// Runs `scenario` with `seed` to its end, or until `control` is cancelled
/// (then `None`).
pub fn run_controlled(scenario: &Scenario, seed: u64, opts: &RunOptions, control: &Control) -> Option<RunResult> {
    let wall = std::time::Instant::now();
    let mut net = Network::new(scenario, seed, opts);
    net.start();
    if !net.run_until(Time::ZERO + scenario.duration, control) {
        return None;
    }
    Some(net.finish(wall.elapsed().as_secs_f64()))
}

#[derive(Clone, Copy)]
enum Event {
    /// A link finished serialising its packet.
    TransmissionDone(LinkId),
    /// The oldest packet propagating on a link reaches its far end.
    Arrive(LinkId),
    /// A link's queue discipline asked for a timer.
    QueueTimer(LinkId),
    /// An endpoint's timer may be due.
    TcpTimer(FlowId, Side),
    /// A traffic source asked to be woken (source, token).
    AppWake(u16, u32),
    /// The radio access bearer asked for this event.
    Radio(RadioEvent),
    /// The oldest ACK that ACK delay control holds for a forward buffer may go on.
    AckRelease(u16),
}

struct Network {
    scenario_name: String,
    seed: u64,
    duration: Time,
    tcp: TcpConfig,
    users: u32,
    events: EventQueue<Event>,
    links: [Link; 4],
    queue_timer_at: [Option<Time>; 4],
    apps: Vec<App>,
    flows: Flows,
    /// The rows of the flows that are over, in the order they closed (`None`:
    /// only totals are kept).
    rows: Option<Vec<FlowSummary>>,
    totals: FlowTotals,
    next_flow: FlowId,
    /// Actions the applications asked for, not yet executed.
    actions: Vec<(u16, Action)>,
    /// Connections whose awaited bytes arrived: (flow, side).
    notices: VecDeque<(FlowId, Side)>,
    log: TrafficLog,
    out: Vec<Packet>,
    dropped: Vec<Dropped>,
    drops: [BTreeMap<DropCause, u64>; 4],
    next_uid: u64,
    ledger: Ledger,
    delays: Histogram,
    /// One-way delay of uplink TCP data packets.
    up_delays: Histogram,
    udp_delays: Histogram,
    udp_sent: u64,
    udp_lost: u64,
    packets: Option<PacketLog>,
    trace: Option<Trace>,
    capture: Option<Capture>,
    /// The radio access network (a cell and a bearer per user) replacing the
    /// bottleneck and the uplink, if any.
    radio: Option<RadioAccess>,
    radio_out: RadioOut,
    /// ACK delay control on the reverse path, one per forward buffer (the
    /// bottleneck, or each user's PDCP buffer), empty without `[ack_delay]`.
    ack_delay: Vec<AckHold>,
    /// Per user, by direction: one-way delays of TCP data packets (only with
    /// several users; else the run's histograms are user 0's).
    user_delays: Vec<[Histogram; 2]>,
    /// Per user, by direction: drops of the user's packets by cause.
    user_drops: Vec<[BTreeMap<DropCause, u64>; 2]>,
}

/// ACK delay control of one forward buffer and the ACKs it holds, oldest first.
struct AckHold {
    control: AckDelay,
    held: VecDeque<(Time, Packet)>,
}

impl Network {
    fn new(s: &Scenario, seed: u64, opts: &RunOptions) -> Network {
        let link_cfg = |id: LinkId| match id {
            LinkId::CoreDown | LinkId::CoreUp => &s.core,
            LinkId::Bottleneck => &s.bottleneck,
            LinkId::Uplink => &s.uplink,
        };
        // The bottleneck's queue is read during the run (traces, ACK delay control).
        let mut links = LINKS.map(|id| Link::new(link_cfg(id), seed, id.name(), id == LinkId::Bottleneck));
        // A link hands its packets straight on to the next link of its route
        // when both are plain FIFOs and nothing stands between them.
        if s.radio.is_none() {
            for dir in [Dir::Down, Dir::Up] {
                for pair in route(dir).windows(2) {
                    let (from, to) = (pair[0] as usize, pair[1] as usize);
                    let held_between = pair[1] == LinkId::CoreUp && s.ack_delay.is_some();
                    if links[from].can_cut_through() && !links[to].is_managed() && !held_between {
                        links[from].cut_through();
                    }
                }
            }
        }
        if let Some(bsr) = links[LinkId::Uplink as usize].bsr().filter(|_| opts.trace) {
            bsr.record_trace();
        }
        let mut radio = s.radio.as_ref().map(|r| RadioAccess::new(r, s.traffic.users(), seed));
        if let Some(r) = radio.as_mut().filter(|_| opts.trace) {
            r.record_traces();
        }
        let users = s.traffic.users();
        Network {
            scenario_name: s.name.clone(),
            seed,
            duration: Time::ZERO + s.duration,
            tcp: s.tcp.clone(),
            users,
            events: EventQueue::new(),
            links,
            queue_timer_at: [None; 4],
            apps: s.traffic.apps(seed),
            flows: Flows::default(),
            rows: (!opts.totals_only).then(Vec::new),
            totals: FlowTotals::new(users.max(1) as usize),
            next_flow: 0,
            actions: Vec::new(),
            notices: VecDeque::new(),
            log: TrafficLog { totals_only: opts.totals_only, ..TrafficLog::default() },
            out: Vec::new(),
            dropped: Vec::new(),
            drops: Default::default(),
            next_uid: 0,
            ledger: Ledger::default(),
            delays: Histogram::default(),
            up_delays: Histogram::default(),
            udp_delays: Histogram::default(),
            udp_sent: 0,
            udp_lost: 0,
            packets: opts.record_packets.then(PacketLog::default),
            trace: opts.trace.then(Trace::new),
            capture: opts.capture.then(Capture::default),
            radio,
            radio_out: RadioOut::default(),
            ack_delay: match &s.ack_delay {
                None => Vec::new(),
                Some(p) => {
                    let buffers = if s.radio.is_some() { users.max(1) } else { 1 };
                    (0..buffers)
                        .map(|u| {
                            let capacity =
                                s.forward_buffer_packets(u).expect("validated: ack_delay needs a buffer limit");
                            AckHold { control: AckDelay::new(p, capacity), held: VecDeque::new() }
                        })
                        .collect()
                }
            },
            user_delays: if users > 1 {
                (0..users).map(|_| [Histogram::per_user(), Histogram::per_user()]).collect()
            } else {
                Vec::new()
            },
            user_drops: (0..users.max(1)).map(|_| Default::default()).collect(),
        }
    }

    /// Handles the events due by `end`; false if `control` was cancelled first.
    fn run_until(&mut self, end: Time, control: &Control) -> bool {
        loop {
            if control.is_cancelled() {
                return false;
            }
            let apps = &mut self.apps;
            self.flows.compact(|f, rtos| apps[f.source as usize].over(f.id, f.user, f.tag, rtos));
            let Some((now, event)) = self.events.pop_until(end) else { return true };
            control.publish(now, self.events.processed());
            match event {
                // Each link, and each end of a connection, has its own arm, so that
                // the compiler makes one copy of the handler for each: a test on
                // what a link or an end is (managed, cut through, the last of its
                // route, client or server) then sits at a branch of its own, which
                // always goes the same way, instead of one branch that the
                // interleaved events send both ways. With the inlined deliveries
                // and sends below: 11–15% faster on the 64 kb/s four-flow
                // validation rows, 8–9% on the 384 kb/s ones, results unchanged.
                Event::TransmissionDone(id) => match id {
                    LinkId::CoreDown => self.transmission_done(now, LinkId::CoreDown),
                    LinkId::Bottleneck => self.transmission_done(now, LinkId::Bottleneck),
                    LinkId::Uplink => self.transmission_done(now, LinkId::Uplink),
                    LinkId::CoreUp => self.transmission_done(now, LinkId::CoreUp),
                },
                Event::Arrive(id) => match id {
                    LinkId::CoreDown => self.link_arrival(now, LinkId::CoreDown),
                    LinkId::Bottleneck => self.link_arrival(now, LinkId::Bottleneck),
                    LinkId::Uplink => self.link_arrival(now, LinkId::Uplink),
                    LinkId::CoreUp => self.link_arrival(now, LinkId::CoreUp),
                },
                Event::QueueTimer(id) => self.queue_timer(now, id),
                Event::TcpTimer(flow, side) => match side {
                    Side::Client => self.tcp_timer(now, flow, Side::Client),
                    Side::Server => self.tcp_timer(now, flow, Side::Server),
                },
                Event::AppWake(source, token) => {
                    self.hook(now, source, |app, ctx| app.wake(token, ctx));
                    self.execute(now);
                }
                Event::Radio(ev) => {
                    if let Some(radio) = &mut self.radio {
                        radio.handle(now, ev, &mut self.radio_out);
                    }
                    self.after_radio(now);
                }
                Event::AckRelease(b) => {
                    let held = &mut self.ack_delay[b as usize].held;
                    let (_, mut pkt) = held.pop_front().expect("an ACK release without a held ACK");
                    if let Some(&(at, _)) = held.front() {
                        self.events.schedule(at, Event::AckRelease(b));
                    }
                    self.enter(now, &mut pkt, LinkId::CoreUp);
                }
            }
        }
    }

    /// The head of link `id`'s delay line reaches its far end, which is, by
    /// the routes, the next link or the host at the end of the route.
    #[inline(always)]
    fn link_arrival(&mut self, now: Time, id: LinkId) {
        let link = &mut self.links[id as usize];
        let mut pkt = link.take_arrival(&mut self.dropped);
        if let Some(at) = link.next_arrival() {
            self.events.schedule(at, Event::Arrive(id));
        }
        let Some(pkt) = &mut pkt else { return self.after_link(now, id) };
        debug_assert!(route(pkt.dir).contains(&id), "a packet off its route");
        match id {
            LinkId::CoreDown => self.enter(now, pkt, LinkId::Bottleneck),
            LinkId::Uplink => self.arrive(now, pkt, LinkId::Uplink), // ACK delay control may hold it
            LinkId::Bottleneck => self.deliver(now, pkt, Dir::Down),
            LinkId::CoreUp => self.deliver(now, pkt, Dir::Up),
        }
    }

    /// A packet that crossed hop `from` reaches the next element of its route.
    /// Packets are passed by reference from where they were taken out until
    /// where they are stored: each copy of one costs as much as a few tests.
    fn arrive(&mut self, now: Time, pkt: &mut Packet, from: LinkId) {
        match next_hop(from) {
            Some(LinkId::CoreUp) if self.hold_ack(now, pkt) => {}
            Some(id) => self.enter(now, pkt, id),
            None => self.deliver(now, pkt, pkt.dir),
        }
    }

    /// ACK delay control, at the RNC where uplink packets leave for the core:
    /// holds a pure TCP ACK until the release time the controller gives for
    /// the occupancy of the forward buffer its flow crosses (the bottleneck,
    /// or its user's PDCP buffer). Returns whether it held the packet.
    fn hold_ack(&mut self, now: Time, pkt: &Packet) -> bool {
        if self.ack_delay.is_empty() || pkt.transport != Transport::Tcp || pkt.is_data() || pkt.tcp.flags != flags::ACK
        {
            return false;
        }
        let (b, occupancy) = match &self.radio {
            Some(radio) => {
                let user = self.flows.user(pkt.flow);
                (user as usize, radio.buffer_packets(user as usize) as usize)
            }
            None => (0, self.links[LinkId::Bottleneck as usize].queue().packets()),
        };
        let AckHold { control, held } = &mut self.ack_delay[b];
        let at = control.release_at(now, occupancy as u32);
        if at <= now && held.is_empty() {
            return false;
        }
        held.push_back((at, *pkt));
        if held.len() == 1 {
            self.events.schedule(at, Event::AckRelease(b as u16));
        }
        true
    }

    /// A packet enters hop `id` of its route.
    fn enter(&mut self, now: Time, pkt: &mut Packet, id: LinkId) {
        if let Some(c) = self.capture.as_mut().filter(|_| matches!(id, LinkId::Bottleneck | LinkId::CoreUp)) {
            c.record(Tap::Bottleneck, now, pkt); // downlink into the buffer, uplink out to the core
        }
        if matches!(id, LinkId::Bottleneck | LinkId::Uplink) {
            if let Some(radio) = self.radio.as_mut() {
                let user = self.flows.user(pkt.flow); // the bearer of the flow's user
                match pkt.dir {
                    Dir::Down => radio.arrive_down(now, user as usize, *pkt, &mut self.radio_out),
                    Dir::Up => radio.arrive_up(now, user as usize, *pkt, &mut self.radio_out),
                }
                self.after_radio(now);
                return;
            }
        }
        let link = &mut self.links[id as usize];
        let wake = link.arrive(now, pkt, &mut self.dropped);
        let managed = link.is_managed();
        if let Some(at) = wake.handed_on {
            let next = next_hop(id).expect("the last link of a route hands nothing on");
            return self.enter(at, pkt, next);
        }
        self.schedule_link(id, wake);
        if managed {
            self.after_link(now, id); // an unmanaged link drops nothing on arrival and has no timers
        }
    }

    #[inline(always)]
    fn transmission_done(&mut self, now: Time, id: LinkId) {
        let wake = self.links[id as usize].transmission_done(now, &mut self.dropped);
        self.schedule_link(id, wake);
        self.after_link(now, id);
    }

    fn schedule_link(&mut self, id: LinkId, wake: Wake) {
        if let Some(at) = wake.arrival {
            self.events.schedule(at, Event::Arrive(id));
        }
        if let Some(at) = wake.transmission_done {
            self.events.schedule(at, Event::TransmissionDone(id));
        }
    }

    fn queue_timer(&mut self, now: Time, id: LinkId) {
        if self.queue_timer_at[id as usize] != Some(now) {
            return; // superseded
        }
        self.queue_timer_at[id as usize] = None;
        if let Some(done) = self.links[id as usize].queue_timer(now, &mut self.dropped) {
            self.events.schedule(done, Event::TransmissionDone(id));
        }
        self.after_link(now, id);
    }

    /// Schedules what the radio bearer asked for, books its drops (under the
    /// bottleneck or the uplink by direction) and moves on what it delivered.
    fn after_radio(&mut self, now: Time) {
        let mut out = std::mem::take(&mut self.radio_out);
        for (at, ev) in out.schedule.drain(..) {
            self.events.schedule(at, Event::Radio(ev));
        }
        if let Some(t) = &mut self.trace {
            t.drops(now, &out.dropped);
            if let Some(radio) = &self.radio {
                let (bytes, packets) = radio.backlog();
                t.occupancy(now, bytes, packets as usize);
            }
        }
        for d in out.dropped.drain(..) {
            self.book_drop(radio_link(d.pkt.dir), &d);
        }
        let (mut to_ue, mut to_core) = (std::mem::take(&mut out.to_ue), std::mem::take(&mut out.to_core));
        self.radio_out = out;
        // Delivering may make endpoints send, which may call the radio again.
        for mut pkt in to_ue.drain(..).chain(to_core.drain(..)) {
            let from = radio_link(pkt.dir);
            self.arrive(now, &mut pkt, from);
        }
        // The emptied lists go back for the next call (their storage reused, not
        // allocated again), unless a nested call left larger ones there.
        let back = &mut self.radio_out;
        for (list, spare) in [(&mut back.to_ue, to_ue), (&mut back.to_core, to_core)] {
            if list.is_empty() && list.capacity() < spare.capacity() {
                *list = spare;
            }
        }
    }

    /// Books the drops of link `id` and re-arms its queue timer. Usually there
    /// is nothing to book and no timer: that is checked inline.
    #[inline(always)]
    fn after_link(&mut self, now: Time, id: LinkId) {
        if self.trace.is_some() || !self.dropped.is_empty() {
            self.book_link_drops(now, id);
        }
        if let Some(t) = self.links[id as usize].next_queue_timer() {
            let t = t.max(now); // a deadline already passed is due now
            let at = &mut self.queue_timer_at[id as usize];
            if at.is_none_or(|a| t < a) {
                *at = Some(t);
                self.events.schedule_timer(t, Event::QueueTimer(id));
            }
        }
    }

    /// Counts (and traces) the drops of link `id`, and traces the bottleneck's occupancy.
    fn book_link_drops(&mut self, now: Time, id: LinkId) {
        if let Some(t) = self.trace.as_mut().filter(|_| matches!(id, LinkId::Bottleneck | LinkId::Uplink)) {
            t.drops(now, &self.dropped);
            if id == LinkId::Bottleneck {
                let q = self.links[id as usize].queue();
                t.occupancy(now, q.bytes(), q.packets());
            }
        }
        let dropped = std::mem::take(&mut self.dropped);
        for d in &dropped {
            self.book_drop(id, d);
        }
        self.dropped = dropped;
        self.dropped.clear();
    }

    /// Counts drop `d` at link `id` (the link a radio bearer stands for) and against its user.
    fn book_drop(&mut self, id: LinkId, d: &Dropped) {
        *self.drops[id as usize].entry(d.cause).or_default() += 1;
        self.ledger.dropped_bytes += d.pkt.size as u64;
        if d.pkt.transport == Transport::Udp {
            self.udp_lost += 1;
        }
        let user = self.flows.gone(&d.pkt).user as usize;
        *self.user_drops[user][d.pkt.dir as usize].entry(d.cause).or_default() += 1;
    }

    /// A packet reaches the host at the end of its route (`dir`, the packet's:
    /// a constant where the caller knows it, so that each copy serves one end).
    #[inline(always)]
    fn deliver(&mut self, now: Time, pkt: &Packet, dir: Dir) {
        debug_assert_eq!(pkt.dir, dir);
        if let Some(c) = &mut self.capture {
            c.record(if dir == Dir::Down { Tap::Client } else { Tap::Server }, now, pkt);
        }
        self.ledger.delivered_bytes += pkt.size as u64;
        let delay = now.since(pkt.sent_at);
        let flow = self.flows.gone(pkt);
        if pkt.transport == Transport::Udp {
            self.udp_delays.record(delay.0);
            if let Kind::Udp(s) = &mut flow.kind {
                s.delivered_bytes += pkt.tcp.len as u64;
                s.last = Some(now);
            }
            return;
        }
        let side = match dir {
            Dir::Down => Side::Client,
            Dir::Up => Side::Server,
        };
        if pkt.is_data() && !self.user_delays.is_empty() {
            self.user_delays[flow.user as usize][dir as usize].record(delay.0);
        }
        if dir == Dir::Up && pkt.is_data() {
            self.up_delays.record(delay.0);
        }
        if dir == Dir::Down && pkt.is_data() {
            self.delays.record(delay.0);
            if let Some(t) = &mut self.trace {
                t.delivered(now, pkt);
            }
            if let Some(log) = &mut self.packets {
                log.uid.push(pkt.uid);
                log.flow.push(pkt.flow);
                log.seq.push(pkt.tcp.seq);
                log.sent_s.push(pkt.sent_at.as_secs_f64());
                log.received_s.push(now.as_secs_f64());
                log.delay_s.push(delay.as_secs_f64());
                log.size.push(pkt.size);
                log.retransmission.push(pkt.retransmission);
            }
        }
        let Kind::Tcp(c) = &mut flow.kind else {
            return; // the connection is over: a late packet
        };
        let end = &mut c.ends[side as usize];
        end.on_packet(now, pkt, &mut self.out);
        let got = end.delivered();
        let s = side as usize;
        if got != c.delivered[s] {
            c.delivered[s] = got;
            c.last_byte = Some(now);
            if got >= c.notify_at[s] {
                c.notify_at[s] = u64::MAX;
                self.notices.push_back((pkt.flow, side));
            }
        }
        self.after_endpoint(now, pkt.flow, side);
        if !self.notices.is_empty() {
            self.execute(now);
        }
    }

    #[inline(always)]
    fn tcp_timer(&mut self, now: Time, flow: FlowId, side: Side) {
        let Some(c) = self.flows.conn_mut(flow) else {
            return;
        };
        if c.timer_at[side as usize] != Some(now) {
            return; // superseded by an earlier deadline
        }
        c.timer_at[side as usize] = None;
        c.ends[side as usize].on_timer(now, &mut self.out);
        self.after_endpoint(now, flow, side);
    }

    /// After the endpoint at `side` of `flow` was driven: re-arms its timer
    /// (the other end's cannot have changed), closes the flow once both ends
    /// are closed and quiet, and sends what it produced.
    #[inline(always)]
    fn after_endpoint(&mut self, now: Time, flow: FlowId, side: Side) {
        let f = self.flows.get_mut(flow).expect("an open connection");
        // What the endpoint wrote enters the network below (`flush`).
        f.in_network += self.out.iter().map(|p| p.size as u64).sum::<u64>();
        let Kind::Tcp(c) = &mut f.kind else { unreachable!("an open connection") };
        if let Some(t) = &mut self.trace {
            t.windows(now, flow, &c.ends);
        }
        if let Some(t) = c.ends[side as usize].next_timer() {
            let at = &mut c.timer_at[side as usize];
            if at.is_none_or(|a| t < a) {
                let t = t.max(now);
                *at = Some(t);
                self.events.schedule_timer(t, Event::TcpTimer(flow, side));
            }
        }
        if c.is_over() {
            self.close_flow(flow);
        }
        match side {
            Side::Client => self.flush(now, Dir::Up),
            Side::Server => self.flush(now, Dir::Down),
        }
    }

    /// Connection `flow` is over: its row goes to the totals (and the rows,
    /// if kept), and of the rest only what may still be asked of it stays.
    #[cold]
    fn close_flow(&mut self, flow: FlowId) {
        let f = self.flows.get(flow).expect("an open connection");
        let row = f.row(flow, self.duration);
        let Kind::Tcp(c) = &f.kind else { unreachable!("an open connection") };
        let closed = Closed { delivered: c.delivered, rtos: row.rtos };
        self.flows.close(flow, closed, row.goodput_bps);
        self.totals.add(&row);
        if let Some(rows) = &mut self.rows {
            rows.push(row);
        }
    }

    /// Sends the packets the endpoints or applications produced, all bound in direction `dir`.
    #[inline(always)]
    fn flush(&mut self, now: Time, dir: Dir) {
        let mut out = std::mem::take(&mut self.out);
        for pkt in &mut out {
            debug_assert_eq!(pkt.dir, dir, "a flush carries one direction");
            pkt.uid = self.next_uid;
            self.next_uid += 1;
            pkt.sent_at = now;
            if let Some(c) = &mut self.capture {
                c.record(if dir == Dir::Down { Tap::Server } else { Tap::Client }, now, pkt);
            }
            self.ledger.sent_bytes += pkt.size as u64;
            self.enter(now, pkt, route(dir)[0]);
        }
        out.clear();
        self.out = out;
    }
}
