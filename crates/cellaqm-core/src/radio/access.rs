//! A radio access bearer in place of the wired bottleneck: the RNC's PDCP
//! buffer and RLC AM entity, the downlink (R99 DCH or HSDPA), the uplink DCH,
//! and the UE's RLC AM entity and uplink buffer.
//!
//! ```text
//!  core ─▶ PDCP (queue discipline) ─▶ RLC AM (RNC) ─▶ DCH / HSDPA ─▶ RLC AM (UE) ─▶ UE IP
//!  core ◀──────────────────────────── RLC AM (RNC) ◀── 64 kb/s DCH ◀── RLC AM (UE) ◀─ UE buffer ◀─ UE IP
//! ```
//!
//! STATUS PDUs share the transport blocks with data on the reverse link.
//! The component is passive, like [`crate::link::Link`]: the network hands it
//! packets and due [`RadioEvent`]s and gets back delivered packets, drops and
//! the events to schedule ([`RadioOut`]). Each event kind has at most one live
//! instance; a superseded one is ignored when it fires (lazy cancellation).

use super::dch::{Dch, DchConfig};
use super::hsdpa::{Hsdpa, HsdpaConfig};
use super::pdcp::{pdcp_discipline, Feed, Pdcp, SduStore};
use crate::metrics::Occupancy;
use crate::packet::Packet;
use crate::queue::{DropCause, Dropped, Limits, QueueConfig};
use crate::rlc::{AmEntity, Delivery, Pdu, Release, RlcConfig};
use crate::rng;
use crate::time::{Dur, Time};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Which downlink bearer serves the PDCP buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BearerKind {
    Dch,
    Hsdpa,
}

/// `[radio]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// The downlink bearer: `"dch"` (section `[radio.dch]`) or `"hsdpa"` (`[radio.hsdpa]`).
    pub bearer: BearerKind,
    /// R99 DCH downlink (with `bearer = "dch"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dch: Option<DchConfig>,
    /// HSDPA downlink (with `bearer = "hsdpa"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hsdpa: Option<HsdpaConfig>,
    /// The uplink DCH carrying TCP ACKs and RLC STATUS (default: 64 kb/s, 20 ms TTI).
    #[serde(default)]
    pub uplink: DchConfig,
    /// PDCP buffer limit in bytes (30 kB or 100 kB in the study); absent: no limit.
    #[serde(default)]
    pub buffer: Option<Bytes>,
    /// PDCP buffer limit in packets; absent: no limit.
    #[serde(default)]
    pub buffer_packets: Option<u32>,
    /// The queue discipline of the PDCP buffer.
    #[serde(default)]
    pub queue: QueueConfig,
    /// The UE's uplink buffer; absent: no limit.
    #[serde(default)]
    pub uplink_buffer: Option<Bytes>,
    /// The queue discipline of the UE's uplink buffer (as `queue` is the PDCP buffer's).
    #[serde(default)]
    pub uplink_queue: QueueConfig,
    /// RLC AM parameters, both directions.
    #[serde(default)]
    pub rlc: RlcConfig,
}

impl RadioConfig {
    /// Checks the section; errors name the key under `key` (normally `radio`).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        match self.bearer {
            BearerKind::Dch => {
                if self.hsdpa.is_some() {
                    return Err(format!("{key}.hsdpa: given, but {key}.bearer is \"dch\" (use [{key}.dch])"));
                }
                match &self.dch {
                    Some(d) => d.validate(&format!("{key}.dch"))?,
                    None => return Err(format!("{key}.dch: missing (required with bearer = \"dch\")")),
                }
            }
            BearerKind::Hsdpa => {
                if self.dch.is_some() {
                    return Err(format!("{key}.dch: given, but {key}.bearer is \"hsdpa\" (use [{key}.hsdpa])"));
                }
                match &self.hsdpa {
                    Some(h) => h.validate(&format!("{key}.hsdpa"))?,
                    None => return Err(format!("{key}.hsdpa: missing (required with bearer = \"hsdpa\")")),
                }
            }
        }
        self.uplink.validate(&format!("{key}.uplink"))?;
        if self.buffer_packets == Some(0) {
            return Err(format!("{key}.buffer_packets: a zero-sized buffer can hold no packet"));
        }
        for (name, queue) in [("queue", &self.queue), ("uplink_queue", &self.uplink_queue)] {
            queue.validate(&format!("{key}.{name}"))?;
            pdcp_discipline(queue, &format!("{key}.{name}"))?;
        }
        self.rlc.validate(&format!("{key}.rlc"))
    }
}

/// The events a radio access bearer asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// A downlink TTI starts (DCH or HS-DSCH).
    DownTti = 0,
    /// Downlink PDUs reach the UE (DCH delay line or HSDPA air line).
    DownArrive = 1,
    /// An uplink DCH TTI starts.
    UpTti = 2,
    /// Uplink PDUs reach the RNC.
    UpArrive = 3,
    /// HSDPA flow control (credits) instant.
    FlowControl = 4,
    /// HSDPA frames reach the Node-B.
    IubArrive = 5,
    /// An RLC or PDCP timer.
    Timer = 6,
}

const EVENTS: usize = 7;

/// What one call produced.
#[derive(Debug, Default)]
pub struct RadioOut {
    /// Downlink packets delivered to the UE's IP layer.
    pub to_ue: Vec<Packet>,
    /// Uplink packets delivered to the RNC (towards the core network).
    pub to_core: Vec<Packet>,
    /// Packets dropped (PDCP discipline, UE buffer overflow, RLC discard after MaxDAT as `LinkLoss`).
    pub dropped: Vec<Dropped>,
    /// Events to schedule.
    pub schedule: Vec<(Time, RadioEvent)>,
}

enum Downlink {
    Dch(Dch),
    Hsdpa(Hsdpa),
}

/// Time-integrated counters of the radio bearer (downlink PDCP buffer).
#[derive(Clone, Copy, Debug, Default)]
pub struct RadioStats {
    /// Downlink packets and bytes delivered to the UE.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// ∫ PDCP bytes dt (byte·ns) and ∫ PDCP packets dt (packet·ns).
    pub queue_byte_ns: u128,
    pub queue_packet_ns: u128,
    /// Downlink transport: PDUs sent (data, STATUS, MRW) and lost on the air.
    pub down_pdus: u64,
    pub down_pdus_lost: u64,
    /// RLC (RNC sender): retransmitted PDUs, polls, SDUs discarded after MaxDAT.
    pub retransmissions: u64,
    pub polls: u64,
    pub sdus_discarded: u64,
    /// STATUS PDUs sent by the UE.
    pub statuses: u64,
    /// Packets a discipline dropped or ECN-marked while RLC carried them (kept unmarked, see [`super::pdcp`]).
    pub spared: u64,
}

/// The radio part of `summary.json` (`summary["radio"]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RadioSummary {
    /// Downlink PDUs sent (data, STATUS, MRW; retransmissions included) and lost on the air.
    pub down_pdus: u64,
    pub down_pdus_lost: u64,
    /// RLC retransmissions and polls of the RNC sender; SDUs it discarded after MaxDAT.
    pub retransmissions: u64,
    pub polls: u64,
    pub sdus_discarded: u64,
    /// STATUS PDUs the UE sent.
    pub statuses: u64,
    /// Packets a discipline dropped or ECN-marked while RLC carried them (delivered anyway, unmarked).
    pub spared: u64,
    /// Mean PDCP occupancy, bytes.
    pub mean_pdcp_bytes: f64,
    /// The downlink rate the PDCP discipline was last told, b/s.
    pub rate_bps: f64,
}

pub struct RadioAccess {
    pdcp: Pdcp,
    down_store: SduStore,
    rnc: AmEntity,
    ue: AmEntity,
    ue_buffer: Pdcp,
    up_store: SduStore,
    down: Downlink,
    up: Dch,
    /// The pending event of each kind.
    pending: [Option<Time>; EVENTS],
    /// When each TTI kind last ran (no second TTI at the same instant).
    last_down_tti: Option<Time>,
    last_up_tti: Option<Time>,
    last_fc: Option<Time>,
    fc_period: Dur,
    hs_tti: Dur,
    credits: [u32; 1],
    pdus: Vec<Pdu>,
    released: Vec<Release>,
    stats: RadioStats,
    /// How long the PDCP buffer held each backlog.
    occupancy: Occupancy,
    last_change: Time,
}

impl RadioAccess {
    /// The bearer of `cfg` for run seed `seed` (streams "radio.*").
    pub fn new(cfg: &RadioConfig, seed: u64) -> RadioAccess {
        let limits = Limits { bytes: cfg.buffer.map(|b| b.0), packets: cfg.buffer_packets };
        let queue = cfg.queue.build(limits, rng::stream(seed, "radio.pdcp"));
        let ue_queue = cfg
            .uplink_queue
            .build(Limits { bytes: cfg.uplink_buffer.map(|b| b.0), packets: None }, rng::stream(seed, "radio.ue"));
        let payload = cfg.rlc.payload();
        let down = match cfg.bearer {
            BearerKind::Dch => {
                Downlink::Dch(Dch::new(cfg.dch.as_ref().expect("validated"), payload, rng::stream(seed, "radio.down")))
            }
            BearerKind::Hsdpa => Downlink::Hsdpa(Hsdpa::new(
                cfg.hsdpa.as_ref().expect("validated"),
                1,
                cfg.rlc.pdu_size.0,
                rng::stream(seed, "radio.hsdpa"),
            )),
        };
        // The rate the PDCP discipline is first told: DCH, the bearer rate; HSDPA, what a lone user is granted.
        let rate_bps = match &down {
            Downlink::Dch(_) => cfg.dch.as_ref().expect("validated").rate.bps(),
            Downlink::Hsdpa(h) => h.granted_bps(0),
        };
        RadioAccess {
            pdcp: Pdcp::new(queue, pdcp_discipline(&cfg.queue, "radio.queue").expect("validated"), rate_bps),
            down_store: SduStore::default(),
            rnc: AmEntity::new(&cfg.rlc),
            ue: AmEntity::new(&cfg.rlc),
            ue_buffer: Pdcp::new(
                ue_queue,
                pdcp_discipline(&cfg.uplink_queue, "radio.uplink_queue").expect("validated"),
                cfg.uplink.rate.bps(),
            ),
            up_store: SduStore::default(),
            down,
            up: Dch::new(&cfg.uplink, payload, rng::stream(seed, "radio.up")),
            pending: [None; EVENTS],
            last_down_tti: None,
            last_up_tti: None,
            last_fc: None,
            fc_period: cfg.hsdpa.as_ref().map_or(Dur::MAX, |h| h.flow_control),
            hs_tti: cfg.hsdpa.as_ref().map_or(Dur::MAX, |h| h.tti),
            credits: [0],
            pdus: Vec::new(),
            released: Vec::new(),
            stats: RadioStats::default(),
            occupancy: Occupancy::default(),
            last_change: Time::ZERO,
        }
    }

    /// Accumulates the PDCP backlog integrals and occupancy up to `now`.
    fn account(&mut self, now: Time) {
        let dt = now.since(self.last_change).0;
        let (bytes, packets) = (self.pdcp.bytes(), self.pdcp.packets() as u64);
        self.stats.queue_byte_ns += bytes as u128 * dt as u128;
        self.stats.queue_packet_ns += packets as u128 * dt as u128;
        self.occupancy.hold(bytes, packets, dt);
        self.last_change = now;
    }

    /// A downlink packet reaches the RNC.
    pub fn arrive_down(&mut self, now: Time, pkt: Packet, out: &mut RadioOut) {
        self.account(now);
        self.pdcp.arrive(now, pkt, &mut out.dropped);
        self.settle(now, out);
    }

    /// An uplink packet leaves the UE's IP layer.
    pub fn arrive_up(&mut self, now: Time, pkt: Packet, out: &mut RadioOut) {
        self.ue_buffer.arrive(now, pkt, &mut out.dropped);
        self.settle(now, out);
    }

    /// A scheduled event fires.
    pub fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        if self.pending[ev as usize] != Some(now) {
            return; // superseded
        }
        self.pending[ev as usize] = None;
        self.account(now);
        match ev {
            RadioEvent::DownTti => self.down_tti(now, out),
            RadioEvent::DownArrive => self.down_arrive(now, out),
            RadioEvent::UpTti => self.up_tti(now, out),
            RadioEvent::UpArrive => self.up_arrive(now, out),
            RadioEvent::FlowControl => self.flow_control(now, out),
            RadioEvent::IubArrive => {
                if let Downlink::Hsdpa(h) = &mut self.down {
                    if let Some(t) = h.iub_arrivals(now, 0) {
                        self.want(RadioEvent::IubArrive, t, out);
                    }
                }
            }
            RadioEvent::Timer => {
                self.pdcp.on_timer(now, &mut out.dropped);
                self.ue_buffer.on_timer(now, &mut out.dropped);
            }
        }
        self.settle(now, out);
    }

    /// Asks for event `ev` at `at` unless an earlier one is pending.
    fn want(&mut self, ev: RadioEvent, at: Time, out: &mut RadioOut) {
        let p = &mut self.pending[ev as usize];
        if p.is_none_or(|t| at < t) {
            *p = Some(at);
            out.schedule.push((at, ev));
        }
    }

    fn down_tti(&mut self, now: Time, out: &mut RadioOut) {
        self.last_down_tti = Some(now);
        let arrival = match &mut self.down {
            Downlink::Dch(dch) => {
                let mut feed = Feed { pdcp: &mut self.pdcp, store: &mut self.down_store };
                let mut first = None;
                for _ in 0..dch.pdus_per_tti() {
                    let Some(pdu) = self.rnc.next_pdu(now, &mut feed) else { break };
                    self.stats.down_pdus += 1;
                    if let Some(at) = dch.transmit(now, pdu) {
                        first = first.or(Some(at));
                    }
                }
                self.stats.down_pdus_lost = dch.stats().pdus_lost;
                first
            }
            Downlink::Hsdpa(h) => h.tti(now).and_then(|(_, at)| at),
        };
        if let Some(at) = arrival {
            self.want(RadioEvent::DownArrive, at, out);
        }
    }

    fn flow_control(&mut self, now: Time, out: &mut RadioOut) {
        let Downlink::Hsdpa(h) = &mut self.down else { return };
        self.last_fc = Some(now);
        let mut feed = Feed { pdcp: &mut self.pdcp, store: &mut self.down_store };
        let active = self.rnc.has_work(now, &feed);
        h.grant(&[active], &mut self.credits);
        if active {
            feed.pdcp.set_rate(now, h.granted_bps(0), &mut out.dropped);
        }
        let mut first = None;
        for _ in 0..self.credits[0] {
            let Some(pdu) = self.rnc.next_pdu(now, &mut feed) else { break };
            self.stats.down_pdus += 1;
            if let Some(at) = h.send_frame_pdu(now, 0, pdu) {
                first = first.or(Some(at));
            }
        }
        if let Some(at) = first {
            self.want(RadioEvent::IubArrive, at, out);
        }
    }

    fn down_arrive(&mut self, now: Time, out: &mut RadioOut) {
        let next = match &mut self.down {
            Downlink::Dch(dch) => dch.arrivals(now, &mut self.pdus),
            Downlink::Hsdpa(h) => h.air_arrivals(now, 0, &mut self.pdus),
        };
        if let Some(at) = next {
            self.want(RadioEvent::DownArrive, at, out);
        }
        for pdu in self.pdus.drain(..) {
            self.ue.receive(now, &pdu);
        }
        for d in self.ue.rx.drain() {
            match d {
                Delivery::Delivered(id) => {
                    let pkt = self.down_store.take(id).expect("a delivered SDU is stored");
                    self.stats.packets_delivered += 1;
                    self.stats.bytes_delivered += pkt.size as u64;
                    out.to_ue.push(pkt);
                }
                Delivery::Discarded(id) => {
                    let pkt = self.down_store.take(id).expect("a discarded SDU is stored");
                    out.dropped.push(Dropped { pkt, cause: DropCause::LinkLoss });
                }
            }
        }
    }

    fn up_tti(&mut self, now: Time, out: &mut RadioOut) {
        self.last_up_tti = Some(now);
        let mut feed = Feed { pdcp: &mut self.ue_buffer, store: &mut self.up_store };
        let mut first = None;
        for _ in 0..self.up.pdus_per_tti() {
            let Some(pdu) = self.ue.next_pdu(now, &mut feed) else { break };
            if let Some(at) = self.up.transmit(now, pdu) {
                first = first.or(Some(at));
            }
        }
        if let Some(at) = first {
            self.want(RadioEvent::UpArrive, at, out);
        }
    }

    fn up_arrive(&mut self, now: Time, out: &mut RadioOut) {
        if let Some(at) = self.up.arrivals(now, &mut self.pdus) {
            self.want(RadioEvent::UpArrive, at, out);
        }
        for pdu in self.pdus.drain(..) {
            self.rnc.receive(now, &pdu);
        }
        for d in self.rnc.rx.drain() {
            match d {
                Delivery::Delivered(id) => out.to_core.push(self.up_store.take(id).expect("a delivered SDU is stored")),
                Delivery::Discarded(id) => {
                    let pkt = self.up_store.take(id).expect("a discarded SDU is stored");
                    out.dropped.push(Dropped { pkt, cause: DropCause::LinkLoss });
                }
            }
        }
    }

    /// After any change: release what the RLC senders let go, and ask for the
    /// TTIs, flow-control instants and timers the new state needs.
    fn settle(&mut self, now: Time, out: &mut RadioOut) {
        self.released.extend(self.rnc.tx.drain_released());
        for r in self.released.drain(..) {
            let (Release::Confirmed(id) | Release::Discarded(id)) = r;
            self.pdcp.release(now, id, &mut out.dropped);
        }
        self.released.extend(self.ue.tx.drain_released());
        for r in self.released.drain(..) {
            let (Release::Confirmed(id) | Release::Discarded(id)) = r;
            self.ue_buffer.release(now, id, &mut out.dropped);
        }
        // Downlink.
        let feed = Feed { pdcp: &mut self.pdcp, store: &mut self.down_store };
        let rnc_busy = self.rnc.has_work(now, &feed);
        let (mut tti_at, mut fc_at) = (None, None);
        match &self.down {
            Downlink::Dch(dch) => {
                if rnc_busy {
                    let at = dch.next_tti(now);
                    tti_at = Some(if self.last_down_tti == Some(at) { at + dch.tti() } else { at });
                }
            }
            Downlink::Hsdpa(h) => {
                if rnc_busy {
                    let at = h.next_flow_control(now);
                    fc_at = Some(if self.last_fc == Some(at) { at + self.fc_period } else { at });
                }
                if h.has_backlog() {
                    let at = h.next_tti(now);
                    tti_at = Some(if self.last_down_tti == Some(at) { at + self.hs_tti } else { at });
                }
            }
        }
        if let Some(at) = tti_at {
            self.want(RadioEvent::DownTti, at, out);
        }
        if let Some(at) = fc_at {
            self.want(RadioEvent::FlowControl, at, out);
        }
        // Uplink.
        let feed = Feed { pdcp: &mut self.ue_buffer, store: &mut self.up_store };
        if self.ue.has_work(now, &feed) {
            let mut at = self.up.next_tti(now);
            if self.last_up_tti == Some(at) {
                at += self.up.tti();
            }
            self.want(RadioEvent::UpTti, at, out);
        }
        // Timers that may create work later.
        let timers = [self.rnc.next_timer(), self.ue.next_timer(), self.pdcp.next_timer(), self.ue_buffer.next_timer()];
        if let Some(at) = timers.into_iter().flatten().filter(|&t| t > now).min() {
            self.want(RadioEvent::Timer, at, out);
        }
    }

    /// Bytes of packets inside the bearer (waiting in a buffer or carried by RLC), both ways.
    pub fn bytes_held(&self) -> u64 {
        self.pdcp.waiting_bytes() + self.down_store.bytes() + self.ue_buffer.waiting_bytes() + self.up_store.bytes()
    }

    /// The downlink PDCP buffer.
    pub fn pdcp(&self) -> &Pdcp {
        &self.pdcp
    }

    /// The summary of a run that ends at `end`.
    pub fn summary(&mut self, end: Time) -> RadioSummary {
        let s = self.stats(end);
        RadioSummary {
            down_pdus: s.down_pdus,
            down_pdus_lost: s.down_pdus_lost,
            retransmissions: s.retransmissions,
            polls: s.polls,
            sdus_discarded: s.sdus_discarded,
            statuses: s.statuses,
            spared: s.spared,
            mean_pdcp_bytes: s.queue_byte_ns as f64 / end.0.max(1) as f64,
            rate_bps: self.pdcp.rate_bps(),
        }
    }

    /// The downlink seen as a link, for the bottleneck's [`crate::metrics::LinkSummary`]:
    /// busy = time the delivered bytes take at the told rate (a utilisation estimate).
    pub fn link_stats(&mut self, end: Time) -> crate::link::LinkStats {
        let s = self.stats(end);
        crate::link::LinkStats {
            busy: Dur::transmission(s.bytes_delivered, self.pdcp.rate_bps().max(1.0)).min(Dur(end.0)),
            packets_sent: s.packets_delivered,
            bytes_sent: s.bytes_delivered,
            queue_byte_ns: s.queue_byte_ns,
            queue_packet_ns: s.queue_packet_ns,
            occupancy: Some(self.occupancy.clone()),
        }
    }

    /// Counters up to `now` (closes the backlog integrals at `now`).
    pub fn stats(&mut self, now: Time) -> RadioStats {
        self.account(now);
        let tx = self.rnc.tx.stats();
        let mut s = self.stats;
        s.retransmissions = tx.retransmissions;
        s.polls = tx.polls;
        s.sdus_discarded = tx.sdus_discarded;
        s.statuses = self.ue.rx.stats().statuses_sent;
        s.spared = self.pdcp.stats().spared;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::packet::{Dir, TcpHeader};
    use crate::units::Rate;

    fn pkt(uid: u64, dir: Dir, size: u32) -> Packet {
        let mut p =
            Packet::tcp(0, dir, size, TcpHeader { len: size.saturating_sub(60) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn dch_config(kbps: f64, ms: u64, buffer: u64) -> RadioConfig {
        RadioConfig {
            bearer: BearerKind::Dch,
            dch: Some(DchConfig { rate: Rate(kbps * 1e3), tti: Dur::from_millis(ms), ..DchConfig::default() }),
            hsdpa: None,
            uplink: DchConfig::default(),
            buffer: Some(Bytes(buffer)),
            buffer_packets: None,
            queue: QueueConfig::TailDrop,
            uplink_buffer: None,
            uplink_queue: QueueConfig::TailDrop,
            rlc: RlcConfig::default(),
        }
    }

    /// Offers `down` packets of 1500 B at t = 0 and one 60 B uplink packet
    /// every 100 ms for 2 s; runs to `end`. Returns (down delivered uids with
    /// times, up delivered count, drops, bearer).
    fn drive(cfg: &RadioConfig, down: u64, end: Time) -> (Vec<(Time, u64)>, usize, Vec<Dropped>, RadioAccess) {
        let mut r = RadioAccess::new(cfg, 1);
        let mut q: EventQueue<Option<RadioEvent>> = EventQueue::new();
        let mut out = RadioOut::default();
        for uid in 0..down {
            r.arrive_down(Time::ZERO, pkt(uid, Dir::Down, 1500), &mut out);
        }
        for k in 0..20 {
            q.schedule(Time::ZERO + Dur::from_millis(100 * k), None);
        }
        let (mut got, mut up, mut drops) = (Vec::new(), 0, Vec::new());
        let mut uid = 1_000_000;
        loop {
            for (at, ev) in out.schedule.drain(..) {
                q.schedule(at, Some(ev));
            }
            got.extend(out.to_ue.drain(..).map(|p| (q.now(), p.uid)));
            up += out.to_core.drain(..).count();
            drops.append(&mut out.dropped);
            let Some((now, ev)) = q.pop() else { break };
            if now > end {
                break;
            }
            match ev {
                Some(ev) => r.handle(now, ev, &mut out),
                None => {
                    uid += 1;
                    r.arrive_up(now, pkt(uid, Dir::Up, 60), &mut out);
                }
            }
        }
        (got, up, drops, r)
    }

    #[test]
    fn a_dch_bearer_delivers_what_pdcp_accepts_in_order_at_the_bearer_rate() {
        let cfg = dch_config(384.0, 10, 30_000);
        let (got, up, drops, mut r) = drive(&cfg, 40, Time::ZERO + Dur::from_secs(5));
        // 30 kB of PDCP holds 20 packets; the rest overflow.
        assert_eq!(drops.len(), 20);
        assert!(drops.iter().all(|d| d.cause == DropCause::Overflow));
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert_eq!(up, 20);
        // 20 × 1500 B at 384 kb/s of payload: about 0.63 s, plus TTI and delay.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.63..0.75).contains(&last), "{last}");
        assert_eq!((r.pdcp().packets(), r.bytes_held()), (0, 0));
        let s = r.stats(Time::ZERO + Dur::from_secs(5));
        assert_eq!((s.packets_delivered, s.retransmissions), (20, 0));
    }

    #[test]
    fn an_hsdpa_bearer_runs_at_the_granted_share() {
        let cfg = RadioConfig {
            bearer: BearerKind::Hsdpa,
            dch: None,
            hsdpa: Some(HsdpaConfig { rate: Rate(3.6e6), ..HsdpaConfig::default() }),
            // 768 PDUs in flight over a ~90 ms RLC round trip would cap the bearer at ~2.9 Mb/s.
            rlc: RlcConfig { window: 2047, ..RlcConfig::default() },
            ..dch_config(0.0, 10, 1_000_000)
        };
        let (got, up, drops, r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert!(drops.is_empty());
        assert_eq!(got.len(), 500);
        assert_eq!(up, 20);
        // 500 × 1500 B in 42-byte MAC-d PDUs at 0.9 × 3.6 Mb/s: 750 kB × 42/40 × 8 / 3.24 Mb/s ≈ 1.94 s.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((1.9..2.1).contains(&last), "{last}");
        assert_eq!(r.bytes_held(), 0);
        // At 20 Mb/s the 255-PDU frames cap the credits: the PDCP is told 255 × 336 bit / 10 ms
        // = 8.568 Mb/s (not 0.9 × 20 Mb/s), and that is the pace: 750 kB × 42/40 × 8 / 8.568 Mb/s ≈ 0.74 s.
        // (An 8192-PDU RLC window, so that the window does not limit the bearer instead.)
        let cfg = RadioConfig {
            hsdpa: Some(HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() }),
            rlc: RlcConfig { window: 8192, ..RlcConfig::default() },
            ..cfg
        };
        let (got, _, _, r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert_eq!(r.pdcp().rate_bps(), 255.0 * 336.0 / 0.01);
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.72..0.80).contains(&last), "{last}");
    }

    #[test]
    fn lossy_dch_recovers_every_packet_and_reports_discards_as_link_loss() {
        let mut cfg = dch_config(64.0, 20, 1_000_000);
        cfg.dch.as_mut().unwrap().loss = Some(super::super::gilbert::GilbertConfig { mean: 0.05, burst: 2.0 });
        let (got, _, drops, mut r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(drops.is_empty());
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..30).collect::<Vec<_>>());
        assert!(r.stats(Time::ZERO + Dur::from_secs(30)).retransmissions > 0);
        // With MaxDAT 1 every lost PDU costs its SDUs: reported as link loss, and the ledger closes.
        cfg.rlc.max_dat = 1;
        let (got, _, drops, r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(!drops.is_empty() && drops.iter().all(|d| d.cause == DropCause::LinkLoss));
        assert_eq!(got.len() + drops.len(), 30);
        assert_eq!(r.bytes_held(), 0);
    }

    #[test]
    fn validation_names_the_key() {
        let mut cfg = dch_config(384.0, 10, 100_000);
        assert_eq!(cfg.validate("radio"), Ok(()));
        cfg.dch = None;
        assert_eq!(cfg.validate("radio").unwrap_err(), "radio.dch: missing (required with bearer = \"dch\")");
        cfg.bearer = BearerKind::Hsdpa;
        cfg.hsdpa = Some(HsdpaConfig { harq: 1.5, ..HsdpaConfig::default() });
        assert!(cfg.validate("radio").unwrap_err().starts_with("radio.hsdpa.harq:"));
        cfg.hsdpa = Some(HsdpaConfig::default());
        cfg.rlc.window = 0;
        assert!(cfg.validate("radio").unwrap_err().starts_with("radio.rlc.window:"));
    }
}
