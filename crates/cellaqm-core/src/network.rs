//! The network of a run: hosts, links and the event loop that moves packets.
//!
//! ```text
//!  server ─▶ core (down) ─▶ bottleneck (managed buffer) ─▶ client
//!    ▲                                                       │
//!    └───────── core (up) ◀──── uplink (buffer) ◀────────────┘
//! ```
//!
//! Each flow is one TCP connection between a client endpoint and a server
//! endpoint. A packet carries the index of its next hop on its direction's
//! route; after the last hop it is handed to the endpoint at that end.

use crate::engine::EventQueue;
use crate::link::Link;
use crate::metrics::{DelayStats, FlowSummary, Histogram, Ledger, LinkSummary, PacketLog, Summary};
use crate::packet::{Dir, Packet};
use crate::queue::{DropCause, Dropped, QueueDisc};
use crate::rng;
use crate::scenario::Scenario;
use crate::tcp::{Endpoint, Role};
use crate::time::Time;
use crate::traffic::FlowPlan;
use std::collections::BTreeMap;

/// What to record besides the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Keep one record per delivered downlink data packet.
    pub record_packets: bool,
}

/// The results of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub flows: Vec<FlowSummary>,
    pub packets: Option<PacketLog>,
}

impl RunResult {
    pub fn summary_json(&self) -> String {
        serde_json::to_string(&self.summary).expect("summary serialises")
    }
    pub fn flows_json(&self) -> String {
        serde_json::to_string(&self.flows).expect("flows serialise")
    }
}

/// Runs `scenario` with `seed` to its end.
pub fn run(scenario: &Scenario, seed: u64, opts: &RunOptions) -> RunResult {
    let wall = std::time::Instant::now();
    let mut net = Network::new(scenario, seed, opts);
    net.run_until(Time::ZERO + scenario.duration);
    net.finish(wall.elapsed().as_secs_f64())
}

/// Links by position; routes index into this array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LinkId {
    CoreDown = 0,
    Bottleneck = 1,
    Uplink = 2,
    CoreUp = 3,
}

const LINKS: [LinkId; 4] = [LinkId::CoreDown, LinkId::Bottleneck, LinkId::Uplink, LinkId::CoreUp];

fn route(dir: Dir) -> &'static [LinkId] {
    match dir {
        Dir::Down => &[LinkId::CoreDown, LinkId::Bottleneck],
        Dir::Up => &[LinkId::Uplink, LinkId::CoreUp],
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Client = 0,
    Server = 1,
}

enum Event {
    /// A link finished serialising its packet.
    TransmissionDone(LinkId),
    /// The oldest packet propagating on a link reaches its far end.
    Arrive(LinkId),
    /// A link's queue discipline asked for a timer.
    QueueTimer(LinkId),
    /// An endpoint's timer may be due.
    TcpTimer(u32, Side),
    /// A flow's client opens its connection.
    FlowStart(u32),
}

struct Flow {
    plan: FlowPlan,
    ends: [Endpoint; 2],
    /// Deadline of the pending timer event of each end.
    timer_at: [Option<Time>; 2],
    sending: bool,
    completion: Option<Time>,
}

struct Network {
    scenario_name: String,
    seed: u64,
    duration: Time,
    events: EventQueue<Event>,
    links: Vec<Link>,
    queue_timer_at: [Option<Time>; 4],
    flows: Vec<Flow>,
    out: Vec<Packet>,
    dropped: Vec<Dropped>,
    drops: [BTreeMap<DropCause, u64>; 4],
    next_uid: u64,
    ledger: Ledger,
    delays: Histogram,
    packets: Option<PacketLog>,
}

impl Network {
    fn new(s: &Scenario, seed: u64, opts: &RunOptions) -> Network {
        let link_cfg = |id: LinkId| match id {
            LinkId::CoreDown | LinkId::CoreUp => &s.core,
            LinkId::Bottleneck => &s.bottleneck,
            LinkId::Uplink => &s.uplink,
        };
        let links = LINKS
            .iter()
            .map(|&id| Link::new(link_cfg(id), rng::stream(seed, &format!("link{}", id as usize))))
            .collect();
        let mut events = EventQueue::new();
        let flows = s
            .traffic
            .plan()
            .into_iter()
            .enumerate()
            .map(|(i, plan)| {
                let id = i as u32;
                events.schedule(plan.start, Event::FlowStart(id));
                Flow {
                    plan,
                    ends: [
                        Endpoint::new(&s.tcp, id, Role::Client, Dir::Up),
                        Endpoint::new(&s.tcp, id, Role::Server, Dir::Down),
                    ],
                    timer_at: [None; 2],
                    sending: false,
                    completion: None,
                }
            })
            .collect();
        Network {
            scenario_name: s.name.clone(),
            seed,
            duration: Time::ZERO + s.duration,
            events,
            links,
            queue_timer_at: [None; 4],
            flows,
            out: Vec::new(),
            dropped: Vec::new(),
            drops: Default::default(),
            next_uid: 0,
            ledger: Ledger::default(),
            delays: Histogram::default(),
            packets: opts.record_packets.then(PacketLog::default),
        }
    }

    fn run_until(&mut self, end: Time) {
        while self.events.peek_time().is_some_and(|t| t <= end) {
            let (now, event) = self.events.pop().expect("peeked");
            match event {
                Event::TransmissionDone(id) => self.transmission_done(now, id),
                Event::Arrive(id) => {
                    let (pkt, next) = self.links[id as usize].take_arrival();
                    if let Some(at) = next {
                        self.events.schedule(at, Event::Arrive(id));
                    }
                    self.arrive(now, pkt)
                }
                Event::QueueTimer(id) => self.queue_timer(now, id),
                Event::TcpTimer(flow, side) => self.tcp_timer(now, flow, side),
                Event::FlowStart(flow) => {
                    self.flows[flow as usize].ends[Side::Client as usize].connect(now, &mut self.out);
                    self.after_endpoint(now, flow, Side::Client);
                }
            }
        }
    }

    /// A packet reaches the next element of its route.
    fn arrive(&mut self, now: Time, mut pkt: Packet) {
        let path = route(pkt.dir);
        match path.get(pkt.hop as usize) {
            Some(&id) => {
                pkt.hop += 1;
                if let Some(done) = self.links[id as usize].arrive(now, pkt, &mut self.dropped) {
                    self.events.schedule(done, Event::TransmissionDone(id));
                }
                self.after_link(now, id);
            }
            None => self.deliver(now, pkt),
        }
    }

    fn transmission_done(&mut self, now: Time, id: LinkId) {
        let link = &mut self.links[id as usize];
        let (arrival, next) = link.transmission_done(now, &mut self.dropped);
        if let Some(at) = arrival {
            self.events.schedule(at, Event::Arrive(id));
        }
        if let Some(done) = next {
            self.events.schedule(done, Event::TransmissionDone(id));
        }
        self.after_link(now, id);
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

    /// Books the drops of link `id` and re-arms its queue timer.
    fn after_link(&mut self, _now: Time, id: LinkId) {
        for d in self.dropped.drain(..) {
            *self.drops[id as usize].entry(d.cause).or_default() += 1;
            self.ledger.dropped_bytes += d.pkt.size as u64;
        }
        let next = self.links[id as usize].next_queue_timer();
        if let Some(t) = next {
            let at = &mut self.queue_timer_at[id as usize];
            if at.is_none_or(|a| t < a) {
                *at = Some(t);
                self.events.schedule(t, Event::QueueTimer(id));
            }
        }
    }

    /// A packet reaches the endpoint at the end of its route.
    fn deliver(&mut self, now: Time, pkt: Packet) {
        self.ledger.delivered_bytes += pkt.size as u64;
        let side = match pkt.dir {
            Dir::Down => Side::Client,
            Dir::Up => Side::Server,
        };
        if pkt.dir == Dir::Down && pkt.is_data() {
            let delay = now.since(pkt.sent_at);
            self.delays.record(delay.0);
            if let Some(log) = &mut self.packets {
                log.uid.push(pkt.uid);
                log.flow.push(pkt.flow);
                log.sent_s.push(pkt.sent_at.as_secs_f64());
                log.received_s.push(now.as_secs_f64());
                log.delay_s.push(delay.as_secs_f64());
                log.size.push(pkt.size);
                log.retransmission.push(pkt.retransmission);
            }
        }
        self.flows[pkt.flow as usize].ends[side as usize].on_packet(now, &pkt, &mut self.out);
        self.after_endpoint(now, pkt.flow, side);
    }

    fn tcp_timer(&mut self, now: Time, flow: u32, side: Side) {
        let f = &mut self.flows[flow as usize];
        if f.timer_at[side as usize] != Some(now) {
            return; // superseded by an earlier deadline
        }
        f.timer_at[side as usize] = None;
        f.ends[side as usize].on_timer(now, &mut self.out);
        self.after_endpoint(now, flow, side);
    }

    /// Runs the application logic after an endpoint was driven, sends what it
    /// produced, and re-arms its timer.
    fn after_endpoint(&mut self, now: Time, flow: u32, side: Side) {
        let f = &mut self.flows[flow as usize];
        let [client, server] = &mut f.ends;
        if !f.sending && server.is_established() {
            f.sending = true;
            server.send(now, f.plan.bytes.unwrap_or(u64::MAX), &mut self.out);
            if f.plan.bytes.is_some() {
                server.close(now, &mut self.out);
            }
        }
        if f.completion.is_none() && f.plan.bytes.is_some_and(|b| client.delivered() >= b) {
            f.completion = Some(now);
            client.close(now, &mut self.out);
        }
        for s in [Side::Client, Side::Server] {
            if let Some(t) = f.ends[s as usize].next_timer() {
                let at = &mut f.timer_at[s as usize];
                if at.is_none_or(|a| t < a) {
                    let t = t.max(now);
                    *at = Some(t);
                    self.events.schedule(t, Event::TcpTimer(flow, s));
                }
            }
        }
        let _ = side;
        let mut out = std::mem::take(&mut self.out);
        for mut pkt in out.drain(..) {
            pkt.uid = self.next_uid;
            self.next_uid += 1;
            pkt.sent_at = now;
            pkt.hop = 0;
            self.ledger.sent_bytes += pkt.size as u64;
            self.arrive(now, pkt);
        }
        self.out = out;
    }

    fn finish(mut self, wall_s: f64) -> RunResult {
        let end = self.duration;
        self.ledger.in_flight_bytes = self.links.iter().map(Link::bytes_held).sum();
        // Conservation of bytes, checked on every run: a failure is a model bug.
        assert!(self.ledger.balances(), "byte ledger does not balance: {:?}", self.ledger);

        let flows: Vec<FlowSummary> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let delivered = f.ends[Side::Client as usize].delivered();
                let until = f.completion.unwrap_or(end);
                let span = until.since(f.plan.start).as_secs_f64();
                let mut s = FlowSummary {
                    flow: i as u32,
                    bytes_delivered: delivered,
                    goodput_bps: if span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 },
                    start_s: f.plan.start.as_secs_f64(),
                    completion_s: f.completion.map(Time::as_secs_f64),
                    ..Default::default()
                };
                s.add_tcp(f.ends[0].stats());
                s.add_tcp(f.ends[1].stats());
                s
            })
            .collect();

        let link_summary = |net: &mut Network, id: LinkId| {
            let stats = net.links[id as usize].stats(end);
            let marked = net.links[id as usize].queue().stats().marked;
            LinkSummary::new(&stats, &net.drops[id as usize], marked, end)
        };
        let bottleneck = link_summary(&mut self, LinkId::Bottleneck);
        let uplink = link_summary(&mut self, LinkId::Uplink);
        let duration_s = end.as_secs_f64();
        let delivered_bytes: u64 = flows.iter().map(|f| f.bytes_delivered).sum();
        let events = self.events.processed();
        let summary = Summary {
            scenario: self.scenario_name.clone(),
            seed: self.seed,
            duration_s,
            flows: flows.len(),
            delivered_bytes,
            goodput_bps: delivered_bytes as f64 * 8.0 / duration_s,
            mean_flow_goodput_bps: flows.iter().map(|f| f.goodput_bps).sum::<f64>() / flows.len().max(1) as f64,
            delay_ms: DelayStats::from_histogram(&self.delays),
            rtos: flows.iter().map(|f| f.rtos).sum(),
            spurious_rtos: flows.iter().map(|f| f.spurious_rtos).sum(),
            fast_retransmits: flows.iter().map(|f| f.fast_retransmits).sum(),
            retransmitted_bytes: flows.iter().map(|f| f.retransmitted_bytes).sum(),
            drops: bottleneck.drops.clone(),
            bottleneck,
            uplink,
            ledger: self.ledger,
            events,
            wall_s,
            sim_seconds_per_wall_second: duration_s / wall_s.max(1e-9),
            events_per_second: events as f64 / wall_s.max(1e-9),
        };
        RunResult { summary, flows, packets: self.packets }
    }
}
