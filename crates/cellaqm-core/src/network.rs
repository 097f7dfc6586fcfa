//! The network of a run: hosts, links and the event loop that moves packets.
//!
//! ```text
//!  server ─▶ core (down) ─▶ bottleneck (managed buffer) ─▶ client
//!    ▲                                                       │
//!    └── core (up) ◀── [R-AQM filter] ◀── uplink (buffer) ◀──┘
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
//! With a `[radio]` section a [`RadioAccess`] bearer (PDCP buffer, RLC AM,
//! DCH or HSDPA, uplink DCH) takes the place of both the bottleneck and the
//! uplink: packets at those hops are handed to it, and what it delivers
//! continues on the route.
//!
//! A flow is a TCP connection between a client endpoint (at the user's UE)
//! and a server endpoint, or a UDP stream. Flows are created during the run by
//! the traffic sources ([`crate::traffic`]): the network only moves packets,
//! drives the endpoints, and executes what the applications ask for (open,
//! send, close, notify me when bytes arrived, wake me later, send a datagram).
//! A packet that crosses a link goes on to the next link of its direction's
//! route ([`next_hop`]); after the last it is handed to the endpoint at that end.

use crate::engine::EventQueue;
use crate::link::{Link, LinkStats, Wake};
use crate::metrics::{
    DatagramSummary, DelayStats, Download, DownloadSummary, FlowSummary, Histogram, Ledger, LinkSummary, OccupancyLog,
    PacketLog, SessionSummary, Summary, Trace, TrafficLog,
};
use crate::packet::{flags, Dir, FlowId, Packet, Transport};
use crate::queue::{DropCause, Dropped, QueueDisc};
use crate::radio::AckDelay;
use crate::radio::{RadioAccess, RadioEvent, RadioOut};
use crate::scenario::Scenario;
use crate::tcp::{Endpoint, Role, TcpConfig};
use crate::time::Time;
use crate::traffic::{Action, App, Application, Ctx, NetView, Notice, Side};
use std::collections::{BTreeMap, VecDeque};

/// What to record besides the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Keep one record per delivered downlink data packet.
    pub record_packets: bool,
    /// Record the time series of [`Trace`] (cwnd, buffer occupancy, drops, delivered segments).
    pub trace: bool,
}

/// The results of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub summary: Summary,
    pub flows: Vec<FlowSummary>,
    /// One record per download (page, file, upload, session, packet call).
    pub downloads: Vec<Download>,
    pub packets: Option<PacketLog>,
    pub trace: Option<Trace>,
    /// How long each managed buffer held each backlog (the bottleneck, the
    /// PDCP buffer with `[radio]`, and a managed uplink); always recorded.
    pub occupancy: OccupancyLog,
}

/// Runs `scenario` with `seed` to its end.
pub fn run(scenario: &Scenario, seed: u64, opts: &RunOptions) -> RunResult {
    let wall = std::time::Instant::now();
    let mut net = Network::new(scenario, seed, opts);
    net.start();
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

impl LinkId {
    /// The link's name, which also names its random streams.
    fn name(self) -> &'static str {
        match self {
            LinkId::CoreDown => "core_down",
            LinkId::Bottleneck => "bottleneck",
            LinkId::Uplink => "uplink",
            LinkId::CoreUp => "core_up",
        }
    }
}

const LINKS: [LinkId; 4] = [LinkId::CoreDown, LinkId::Bottleneck, LinkId::Uplink, LinkId::CoreUp];

/// All users share these links for now; a per-user radio chain replaces the bottleneck later.
fn route(dir: Dir) -> &'static [LinkId] {
    match dir {
        Dir::Down => &[LinkId::CoreDown, LinkId::Bottleneck],
        Dir::Up => &[LinkId::Uplink, LinkId::CoreUp],
    }
}

/// The link a `[radio]` bearer stands for in direction `dir`: its drops are
/// booked there, and what it delivers goes on from there.
fn radio_link(dir: Dir) -> LinkId {
    match dir {
        Dir::Down => LinkId::Bottleneck,
        Dir::Up => LinkId::Uplink,
    }
}

/// The link after `id` on its [`route`], `None` at the end. The packet does not
/// carry its place on the route: a field changed just before the packet is copied
/// on into the next link stalls the copy's load until the store lands.
fn next_hop(id: LinkId) -> Option<LinkId> {
    match id {
        LinkId::CoreDown => Some(LinkId::Bottleneck),
        LinkId::Uplink => Some(LinkId::CoreUp),
        LinkId::Bottleneck | LinkId::CoreUp => None,
    }
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
    /// The oldest ACK held by ACK delay control may go on.
    AckRelease,
}

/// A TCP connection.
struct Conn {
    /// Both endpoints; dropped once both ends closed and all is acknowledged
    /// (a late packet for the connection is then discarded, as by a host
    /// without a matching socket).
    ends: Option<Box<[Endpoint; 2]>>,
    /// Deadline of the pending timer event of each end.
    timer_at: [Option<Time>; 2],
    /// Bytes delivered to each end's application.
    delivered: [u64; 2],
    /// Tell the application when `delivered[side]` reaches this.
    notify_at: [u64; 2],
    /// The application closed this side.
    closed: [bool; 2],
    /// When an application last received bytes.
    last_byte: Option<Time>,
    /// Counters (both ends), kept when the endpoints are dropped.
    counters: FlowSummary,
    /// Both ends closed and all acknowledged.
    finished: bool,
}

impl Conn {
    fn rtos(&self) -> u64 {
        match &self.ends {
            Some(ends) => ends.iter().map(|e| e.stats().rtos).sum(),
            None => self.counters.rtos,
        }
    }
    fn counters(&self) -> FlowSummary {
        match &self.ends {
            Some(ends) => {
                let mut s = FlowSummary::default();
                s.add_tcp(ends[0].stats());
                s.add_tcp(ends[1].stats());
                s
            }
            None => self.counters.clone(),
        }
    }
}

/// A UDP stream.
struct Stream {
    dir: Dir,
    delivered_bytes: u64,
    last: Option<Time>,
}

enum Kind {
    Tcp(Conn),
    Udp(Stream),
}

struct Flow {
    source: u16,
    user: u32,
    tag: u32,
    start: Time,
    kind: Kind,
}

/// What the applications may read about the flows.
struct FlowsView<'a>(&'a [Flow]);

impl NetView for FlowsView<'_> {
    fn rtos(&self, conn: FlowId) -> u64 {
        match self.0.get(conn as usize).map(|f| &f.kind) {
            Some(Kind::Tcp(c)) => c.rtos(),
            _ => 0,
        }
    }
    fn stream_delivery(&self, stream: FlowId) -> (u64, Option<Time>) {
        match self.0.get(stream as usize).map(|f| &f.kind) {
            Some(Kind::Udp(s)) => (s.delivered_bytes, s.last),
            _ => (0, None),
        }
    }
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
    flows: Vec<Flow>,
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
    /// The radio access bearer replacing the bottleneck and the uplink, if any.
    radio: Option<RadioAccess>,
    radio_out: RadioOut,
    /// ACK delay control on the reverse path and the ACKs it holds, oldest first.
    ack_delay: Option<(AckDelay, VecDeque<(Time, Packet)>)>,
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
        Network {
            scenario_name: s.name.clone(),
            seed,
            duration: Time::ZERO + s.duration,
            tcp: s.tcp.clone(),
            users: s.traffic.users(),
            events: EventQueue::new(),
            links,
            queue_timer_at: [None; 4],
            apps: s.traffic.apps(seed),
            flows: Vec::new(),
            next_flow: 0,
            actions: Vec::new(),
            notices: VecDeque::new(),
            log: TrafficLog::default(),
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
            radio: s.radio.as_ref().map(|r| RadioAccess::new(r, seed)),
            radio_out: RadioOut::default(),
            ack_delay: s.ack_delay.as_ref().map(|p| {
                let capacity = s.forward_buffer_packets().expect("validated: ack_delay needs a forward buffer limit");
                (AckDelay::new(p, capacity), VecDeque::new())
            }),
        }
    }

    /// Calls an application hook of `source` with a fresh context.
    fn hook(&mut self, now: Time, source: u16, call: impl FnOnce(&mut App, &mut Ctx)) {
        let mut ctx = Ctx {
            now,
            source,
            next_flow: &mut self.next_flow,
            actions: &mut self.actions,
            log: &mut self.log,
            view: &FlowsView(&self.flows),
        };
        call(&mut self.apps[source as usize], &mut ctx);
    }

    /// Every source's start hook, at time zero.
    fn start(&mut self) {
        for source in 0..self.apps.len() as u16 {
            self.hook(Time::ZERO, source, |app, ctx| app.start(ctx));
        }
        self.execute(Time::ZERO);
    }

    /// Executes the pending actions, and the hooks of the notices they raise, until none is left.
    fn execute(&mut self, now: Time) {
        loop {
            let mut i = 0;
            while i < self.actions.len() {
                let (source, action) = self.actions[i];
                i += 1;
                self.act(now, source, action);
            }
            self.actions.clear();
            let Some((flow, side)) = self.notices.pop_front() else {
                break;
            };
            let f = &self.flows[flow as usize];
            let Kind::Tcp(c) = &f.kind else { continue };
            let n = Notice { conn: flow, user: f.user, tag: f.tag, side, delivered: c.delivered[side as usize] };
            self.hook(now, f.source, |app, ctx| app.delivered(n, ctx));
        }
    }

    fn act(&mut self, now: Time, source: u16, action: Action) {
        match action {
            Action::Open { conn, user, tag } => {
                debug_assert_eq!(conn as usize, self.flows.len(), "flow ids are given in order");
                let mut ends = Box::new([
                    Endpoint::new(&self.tcp, conn, Role::Client, Dir::Up),
                    Endpoint::new(&self.tcp, conn, Role::Server, Dir::Down),
                ]);
                ends[0].connect(now, &mut self.out);
                let c = Conn {
                    ends: Some(ends),
                    timer_at: [None; 2],
                    delivered: [0; 2],
                    notify_at: [u64::MAX; 2],
                    closed: [false; 2],
                    last_byte: None,
                    counters: FlowSummary::default(),
                    finished: false,
                };
                self.flows.push(Flow { source, user, tag, start: now, kind: Kind::Tcp(c) });
                self.after_endpoint(now, conn, Side::Client);
            }
            Action::OpenStream { stream, user, dir } => {
                debug_assert_eq!(stream as usize, self.flows.len(), "flow ids are given in order");
                let s = Stream { dir, delivered_bytes: 0, last: None };
                self.flows.push(Flow { source, user, tag: 0, start: now, kind: Kind::Udp(s) });
            }
            Action::Send { conn, side, bytes } => {
                if let Some(ends) = conn_mut(&mut self.flows, conn).and_then(|c| c.ends.as_mut()) {
                    ends[side as usize].send(now, bytes, &mut self.out);
                    self.after_endpoint(now, conn, side);
                }
            }
            Action::Close { conn, side } => {
                if let Some(c) = conn_mut(&mut self.flows, conn) {
                    c.closed[side as usize] = true;
                    if let Some(ends) = c.ends.as_mut() {
                        ends[side as usize].close(now, &mut self.out);
                        self.after_endpoint(now, conn, side);
                    }
                }
            }
            Action::Notify { conn, side, bytes } => {
                if let Some(c) = conn_mut(&mut self.flows, conn) {
                    if c.delivered[side as usize] >= bytes {
                        c.notify_at[side as usize] = u64::MAX;
                        self.notices.push_back((conn, side));
                    } else {
                        c.notify_at[side as usize] = bytes;
                    }
                }
            }
            Action::Wake { at, token } => self.events.schedule(at, Event::AppWake(source, token)),
            Action::Datagram { stream, size, payload } => {
                if let Some(Kind::Udp(s)) = self.flows.get(stream as usize).map(|f| &f.kind) {
                    let pkt = Packet::udp(stream, s.dir, size, payload);
                    self.udp_sent += 1;
                    let dir = s.dir;
                    self.out.push(pkt);
                    self.flush(now, dir);
                }
            }
        }
    }

    fn run_until(&mut self, end: Time) {
        while let Some((now, event)) = self.events.pop_until(end) {
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
                Event::AckRelease => {
                    let (_, held) = self.ack_delay.as_mut().expect("an ACK release without ACK delay control");
                    let (_, mut pkt) = held.pop_front().expect("an ACK release without a held ACK");
                    if let Some(&(at, _)) = held.front() {
                        self.events.schedule(at, Event::AckRelease);
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
    /// the forward buffer's occupancy. Returns whether it held the packet.
    fn hold_ack(&mut self, now: Time, pkt: &Packet) -> bool {
        let Some((control, held)) = &mut self.ack_delay else { return false };
        if pkt.transport != Transport::Tcp || pkt.is_data() || pkt.tcp.flags != flags::ACK {
            return false;
        }
        let occupancy = match &self.radio {
            Some(radio) => radio.pdcp().packets(),
            None => self.links[LinkId::Bottleneck as usize].queue().packets(),
        };
        let at = control.release_at(now, occupancy as u32);
        if at <= now && held.is_empty() {
            return false;
        }
        held.push_back((at, *pkt));
        if held.len() == 1 {
            self.events.schedule(at, Event::AckRelease);
        }
        true
    }

    /// A packet enters hop `id` of its route.
    fn enter(&mut self, now: Time, pkt: &mut Packet, id: LinkId) {
        if matches!(id, LinkId::Bottleneck | LinkId::Uplink) {
            if let Some(radio) = self.radio.as_mut() {
                match pkt.dir {
                    Dir::Down => radio.arrive_down(now, *pkt, &mut self.radio_out),
                    Dir::Up => radio.arrive_up(now, *pkt, &mut self.radio_out),
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
                t.occupancy(now, radio.pdcp().bytes(), radio.pdcp().packets());
            }
        }
        for d in out.dropped.drain(..) {
            *self.drops[radio_link(d.pkt.dir) as usize].entry(d.cause).or_default() += 1;
            self.ledger.dropped_bytes += d.pkt.size as u64;
            if d.pkt.transport == Transport::Udp {
                self.udp_lost += 1;
            }
        }
        let (mut to_ue, mut to_core) = (std::mem::take(&mut out.to_ue), std::mem::take(&mut out.to_core));
        self.radio_out = out;
        // Delivering may make endpoints send, which may call the radio again.
        for mut pkt in to_ue.drain(..).chain(to_core.drain(..)) {
            let from = radio_link(pkt.dir);
            self.arrive(now, &mut pkt, from);
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
        for d in self.dropped.drain(..) {
            *self.drops[id as usize].entry(d.cause).or_default() += 1;
            self.ledger.dropped_bytes += d.pkt.size as u64;
            if d.pkt.transport == Transport::Udp {
                self.udp_lost += 1;
            }
        }
    }

    /// A packet reaches the host at the end of its route (`dir`, the packet's:
    /// a constant where the caller knows it, so that each copy serves one end).
    #[inline(always)]
    fn deliver(&mut self, now: Time, pkt: &Packet, dir: Dir) {
        debug_assert_eq!(pkt.dir, dir);
        self.ledger.delivered_bytes += pkt.size as u64;
        let delay = now.since(pkt.sent_at);
        if pkt.transport == Transport::Udp {
            self.udp_delays.record(delay.0);
            if let Some(Kind::Udp(s)) = self.flows.get_mut(pkt.flow as usize).map(|f| &mut f.kind) {
                s.delivered_bytes += pkt.tcp.len as u64;
                s.last = Some(now);
            }
            return;
        }
        let side = match dir {
            Dir::Down => Side::Client,
            Dir::Up => Side::Server,
        };
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
                log.sent_s.push(pkt.sent_at.as_secs_f64());
                log.received_s.push(now.as_secs_f64());
                log.delay_s.push(delay.as_secs_f64());
                log.size.push(pkt.size);
                log.retransmission.push(pkt.retransmission);
            }
        }
        let Kind::Tcp(c) = &mut self.flows[pkt.flow as usize].kind else {
            return;
        };
        let Some(ends) = c.ends.as_mut() else { return }; // the connection is gone
        let end = &mut ends[side as usize];
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
        let Some(c) = conn_mut(&mut self.flows, flow) else {
            return;
        };
        if c.timer_at[side as usize] != Some(now) {
            return; // superseded by an earlier deadline
        }
        c.timer_at[side as usize] = None;
        let Some(ends) = c.ends.as_mut() else { return };
        ends[side as usize].on_timer(now, &mut self.out);
        self.after_endpoint(now, flow, side);
    }

    /// After the endpoint at `side` of `flow` was driven: re-arms its timer
    /// (the other end's cannot have changed), retires the connection once both
    /// ends are closed and quiet, and sends what it produced.
    #[inline(always)]
    fn after_endpoint(&mut self, now: Time, flow: FlowId, side: Side) {
        let Kind::Tcp(c) = &mut self.flows[flow as usize].kind else { unreachable!("a TCP flow") };
        if let Some(ends) = c.ends.as_mut() {
            if let Some(t) = &mut self.trace {
                t.windows(now, flow, ends);
            }
            if let Some(t) = ends[side as usize].next_timer() {
                let at = &mut c.timer_at[side as usize];
                if at.is_none_or(|a| t < a) {
                    let t = t.max(now);
                    *at = Some(t);
                    self.events.schedule_timer(t, Event::TcpTimer(flow, side));
                }
            }
            if c.closed == [true, true] && ends.iter().all(|e| e.peer_closed() && e.next_timer().is_none()) {
                c.counters = c.counters();
                c.ends = None;
                c.finished = true;
            }
        }
        match side {
            Side::Client => self.flush(now, Dir::Up),
            Side::Server => self.flush(now, Dir::Down),
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
            self.ledger.sent_bytes += pkt.size as u64;
            self.enter(now, pkt, route(dir)[0]);
        }
        out.clear();
        self.out = out;
    }

    fn finish(mut self, wall_s: f64) -> RunResult {
        let end = self.duration;
        for source in 0..self.apps.len() as u16 {
            self.hook(end, source, |app, ctx| app.finish(ctx));
        }
        self.actions.clear();
        self.ledger.in_flight_bytes = self.links.iter().map(Link::bytes_held).sum::<u64>()
            + self.radio.as_ref().map_or(0, RadioAccess::bytes_held)
            + self.ack_delay.as_ref().map_or(0, |(_, held)| held.iter().map(|(_, p)| p.size as u64).sum());
        // Conservation of bytes, checked on every run: a failure is a model bug.
        assert!(self.ledger.balances(), "byte ledger does not balance: {:?}", self.ledger);

        let flows: Vec<FlowSummary> = self.flows.iter().enumerate().map(|(i, f)| flow_summary(i, f, end)).collect();
        let mut downloads = std::mem::take(&mut self.log.downloads);
        for (i, d) in downloads.iter_mut().enumerate() {
            d.download = i as u32;
        }

        // A link's counters and ECN marks; with a radio bearer the bottleneck is its PDCP buffer.
        let link_stats = |net: &mut Network, id: LinkId| match (&mut net.radio, id) {
            (Some(r), LinkId::Bottleneck) => (r.link_stats(end), r.pdcp().queue().stats().marked),
            _ => {
                let link = &mut net.links[id as usize];
                (link.stats(end), link.queue().stats().marked)
            }
        };
        let (bottleneck, uplink) = (link_stats(&mut self, LinkId::Bottleneck), link_stats(&mut self, LinkId::Uplink));
        let radio = self.radio.as_mut().map(|r| r.summary(end));
        let mut occupancy = OccupancyLog::default();
        let mut summarise = |id: LinkId, (stats, marked): (LinkStats, u64)| {
            if let Some(o) = &stats.occupancy {
                occupancy.push(id.name(), o);
            }
            LinkSummary::new(&stats, &self.drops[id as usize], marked, end)
        };
        let (bottleneck, uplink) = (summarise(LinkId::Bottleneck, bottleneck), summarise(LinkId::Uplink, uplink));
        let bsr = self.links[LinkId::Uplink as usize].bsr().map(|b| {
            if let Some(t) = &mut self.trace {
                t.bsr = b.take_trace().expect("recorded with the trace");
            }
            b.summary()
        });
        let duration_s = end.as_secs_f64();
        let delivered_bytes: u64 = flows.iter().map(|f| f.bytes_delivered).sum();
        let udp_delivered = self.udp_delays.count();
        let udp_bytes = flows.iter().filter(|f| f.transport == "udp").map(|f| f.bytes_delivered).sum();
        let log = &self.log;
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
            delay_up_ms: DelayStats::from_histogram(&self.up_delays),
            users: self.users,
            downloads: DownloadSummary::new(&downloads),
            sessions: SessionSummary {
                offered: log.sessions_offered,
                served: log.sessions_served,
                lost: log.sessions_lost,
                unfinished: log.sessions_offered - log.sessions_served - log.sessions_lost,
            },
            datagrams: DatagramSummary::new(self.udp_sent, udp_delivered, self.udp_lost, udp_bytes, &self.udp_delays),
            rtos: flows.iter().map(|f| f.rtos).sum(),
            spurious_rtos: flows.iter().map(|f| f.spurious_rtos).sum(),
            fast_retransmits: flows.iter().map(|f| f.fast_retransmits).sum(),
            retransmitted_bytes: flows.iter().map(|f| f.retransmitted_bytes).sum(),
            drops: bottleneck.drops.clone(),
            bottleneck,
            uplink,
            bsr,
            radio,
            ledger: self.ledger,
            events,
            wall_s,
            sim_seconds_per_wall_second: duration_s / wall_s.max(1e-9),
            events_per_second: events as f64 / wall_s.max(1e-9),
        };
        RunResult { summary, flows, downloads, packets: self.packets, trace: self.trace, occupancy }
    }
}

fn conn_mut(flows: &mut [Flow], flow: FlowId) -> Option<&mut Conn> {
    match flows.get_mut(flow as usize).map(|f| &mut f.kind) {
        Some(Kind::Tcp(c)) => Some(c),
        _ => None,
    }
}

/// The `flows.csv` row of flow `i`.
fn flow_summary(i: usize, f: &Flow, end: Time) -> FlowSummary {
    let (mut s, down, up, completion) = match &f.kind {
        Kind::Tcp(c) => {
            let mut s = c.counters();
            s.transport = "tcp";
            let [down, up] = c.delivered;
            (s, down, up, c.last_byte.filter(|_| c.finished))
        }
        Kind::Udp(st) => {
            let s = FlowSummary { transport: "udp", ..FlowSummary::default() };
            match st.dir {
                Dir::Down => (s, st.delivered_bytes, 0, st.last),
                Dir::Up => (s, 0, st.delivered_bytes, st.last),
            }
        }
    };
    let delivered = down + up;
    let span = completion.unwrap_or(end).since(f.start).as_secs_f64();
    s.flow = i as u32;
    s.source = f.source as u32;
    s.user = f.user;
    s.bytes_delivered = delivered;
    s.bytes_down = down;
    s.bytes_up = up;
    s.goodput_bps = if span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 };
    s.start_s = f.start.as_secs_f64();
    s.completion_s = completion.map(Time::as_secs_f64);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_hop_follows_the_routes() {
        for dir in [Dir::Down, Dir::Up] {
            let r = route(dir);
            for pair in r.windows(2) {
                assert_eq!(next_hop(pair[0]), Some(pair[1]));
            }
            assert_eq!(next_hop(*r.last().unwrap()), None);
        }
    }
}
