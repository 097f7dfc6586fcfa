//! One user's radio bearer: the chain from the RNC to the UE and back that no
//! other user shares.
//!
//! ```text
//!  core ─▶ PDCP (queue discipline) ─▶ RLC AM (RNC) ─▶ own DCH, or the cell's HS-DSCH ─▶ RLC AM (UE) ─▶ UE IP
//!  core ◀──────────────────────────── RLC AM (RNC) ◀── uplink DCH ◀── RLC AM (UE) ◀─ UE buffer ◀─ UE IP
//! ```
//!
//! STATUS PDUs share the transport blocks with data on the reverse link.
//! Where a shared channel serves the downlink, the bearer does not know which
//! one: it reports its buffer status and fills the transmission opportunities
//! the channel's MAC grants it ([`super::sap`]), and takes the PDUs the
//! channel's air line ([`AirLine`]) delivers. The bearer is passive: it gets
//! `now` and due [`UeEvent`]s, and answers through [`RadioOut`]; each event
//! kind has at most one live instance per user, a superseded one is ignored
//! when it fires (lazy cancellation).

pub mod ack_delay;
pub mod config;
pub mod dch;
pub mod fading;
pub mod gilbert;
pub mod pdcp;

use super::air::AirLine;
use super::event::{RadioEvent, RadioOut, UeEvent, UE_EVENTS};
use super::pending::Pending;
use super::sap::{BufferStatus, TxOpportunity};
use super::streams::user_stream;
use crate::link::LinkStats;
use crate::metrics::Occupancy;
use crate::packet::Packet;
use crate::queue::{DropCause, Dropped};
use crate::rlc::{AmEntity, Delivery, Pdu, Release, SduId};
use crate::storage::ShrinkEmpty;
use crate::time::{earliest, Dur, Time};
use config::BearerConfig;
use dch::{Dch, LossLog};
use pdcp::{pdcp_discipline, BufferHolds, Feed, Pdcp, SduStore};
use serde::Serialize;

/// Time-integrated counters of a bearer (downlink PDCP buffer).
#[derive(Clone, Copy, Debug, Default)]
pub struct BearerStats {
    /// Downlink packets and bytes delivered to the UE.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// ∫ PDCP bytes dt (byte·ns) and ∫ PDCP packets dt (packet·ns).
    pub queue_byte_ns: u128,
    pub queue_packet_ns: u128,
    /// Downlink transport: PDUs sent (data, STATUS, MRW) and lost on the air.
    pub down_pdus: u64,
    pub down_pdus_lost: u64,
    /// Uplink packets and bytes the RNC's RLC delivered towards the core.
    pub packets_up: u64,
    pub bytes_up: u64,
    /// ∫ UE buffer bytes dt (byte·ns) and ∫ UE buffer packets dt (packet·ns).
    pub ue_byte_ns: u128,
    pub ue_packet_ns: u128,
}

/// The radio counters of `summary.json` (`summary["radio"]`, summed over the
/// users) and of each user (`users.csv`, `radio_*`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RadioSummary {
    /// Downlink PDUs sent (data, STATUS, MRW; retransmissions included) and lost on the air.
    pub down_pdus: u64,
    pub down_pdus_lost: u64,
    /// RLC retransmissions and polls of the RNC sender; SDUs it discarded after MaxDAT.
    pub retransmissions: u64,
    pub polls: u64,
    pub sdus_discarded: u64,
    /// MRW transmissions of the RNC sender (Timer_MRW resends included) and its SDU
    /// discard procedures an MRW_ACK ended (TS 25.322 §11.6).
    pub mrws_sent: u64,
    pub mrws_acknowledged: u64,
    /// STATUS PDUs the UE sent (MRW_ACKs apart).
    pub statuses: u64,
    /// The uplink RLC's counters: the UE sender's retransmissions, polls, discarded SDUs,
    /// MRWs sent and acknowledged, and the STATUS PDUs the RNC sent about the uplink.
    pub up_retransmissions: u64,
    pub up_polls: u64,
    pub up_sdus_discarded: u64,
    pub up_mrws_sent: u64,
    pub up_mrws_acknowledged: u64,
    pub up_statuses: u64,
    /// RLC resets (TS 25.322 §11.4, after MaxMRW MRW transmissions without an MRW_ACK).
    pub rlc_resets: u64,
    /// Downlink data PDUs that reached the UE's RLC (the "radio frames delivered" of Alcaraz et al., IEEE Commun. Mag.).
    pub data_pdus_received: u64,
    /// Signalling efficiency of Alcaraz et al., IEEE Commun. Mag.: 100 × `statuses` / `data_pdus_received` (null without data PDUs).
    pub statuses_per_100_pdus: Option<f64>,
    /// PDU slots of the users' own DCH downlinks over the run (TTIs × PDUs per TTI); 0 on HSDPA.
    pub down_slots: u64,
    /// Radio-frame utilisation: `down_pdus` / `down_slots`, the share of the DCH's PDU slots
    /// that carried a PDU (null on HSDPA).
    pub frame_utilisation: Option<f64>,
    /// Packets a discipline dropped or ECN-marked while RLC carried them (delivered anyway, unmarked).
    pub spared: u64,
    /// Mean PDCP occupancy, bytes (summed over the users' buffers).
    pub mean_pdcp_bytes: f64,
    /// The downlink rate the PDCP discipline was last told, b/s (in `summary["radio"]`: user 0's).
    pub rate_bps: f64,
}

impl RadioSummary {
    /// Adds `other`'s counts and mean occupancy; the told rate stays this one's.
    pub fn add(&mut self, other: &RadioSummary) {
        self.down_pdus += other.down_pdus;
        self.down_pdus_lost += other.down_pdus_lost;
        self.retransmissions += other.retransmissions;
        self.polls += other.polls;
        self.sdus_discarded += other.sdus_discarded;
        self.mrws_sent += other.mrws_sent;
        self.mrws_acknowledged += other.mrws_acknowledged;
        self.statuses += other.statuses;
        self.up_retransmissions += other.up_retransmissions;
        self.up_polls += other.up_polls;
        self.up_sdus_discarded += other.up_sdus_discarded;
        self.up_mrws_sent += other.up_mrws_sent;
        self.up_mrws_acknowledged += other.up_mrws_acknowledged;
        self.up_statuses += other.up_statuses;
        self.rlc_resets += other.rlc_resets;
        self.data_pdus_received += other.data_pdus_received;
        self.down_slots += other.down_slots;
        self.spared += other.spared;
        self.mean_pdcp_bytes += other.mean_pdcp_bytes;
        self.ratios();
    }

    /// Derives the two ratios from the counts.
    fn ratios(&mut self) {
        let per = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        self.statuses_per_100_pdus = per(100 * self.statuses, self.data_pdus_received);
        self.frame_utilisation = per(self.down_pdus, self.down_slots);
    }
}

pub struct Bearer {
    /// The user's index, which names its events.
    user: u16,
    pdcp: Pdcp,
    down_store: SduStore,
    rnc: AmEntity,
    ue: AmEntity,
    ue_buffer: Pdcp,
    up_store: SduStore,
    /// The user's own downlink (R99 DCH); `None` where the cell's shared channel serves it.
    dch: Option<Dch>,
    up: Dch,
    /// The pending event of each kind.
    pending: [Pending; UE_EVENTS],
    /// RLC PDU size, bytes (a transmission opportunity holds whole PDUs).
    pdu_bytes: u64,
    released: Vec<Release>,
    /// With `buffer_holds = "until_fully_sent"`: the SDUs whose last PDU went out
    /// since the bearer was last settled, from the RNC and from the UE (they leave
    /// the PDCP and UE buffers then; `None`: the RLC's acknowledgements release them).
    handed_down: Option<Vec<SduId>>,
    handed_up: Option<Vec<SduId>>,
    stats: BearerStats,
    /// How long the PDCP buffer held each backlog.
    occupancy: Occupancy,
    last_change: Time,
}

/// Hands on what an RLC receiver let go: a delivered SDU's packet to `to`
/// (counted in `count`: packets, bytes), a discarded one's to `dropped` as
/// `link_loss` (the sender gave up after MaxDAT); both taken from `store`.
fn hand_on(
    deliveries: impl Iterator<Item = Delivery>,
    store: &mut SduStore,
    to: &mut Vec<Packet>,
    dropped: &mut Vec<Dropped>,
    count: (&mut u64, &mut u64),
) {
    for d in deliveries {
        match d {
            Delivery::Delivered(id) => {
                let pkt = store.take(id).expect("a delivered SDU is stored");
                *count.0 += 1;
                *count.1 += pkt.size as u64;
                to.push(pkt);
            }
            Delivery::Discarded(id) => {
                let pkt = store.take(id).expect("a discarded SDU is stored");
                dropped.push(Dropped { pkt, cause: DropCause::LinkLoss });
            }
        }
    }
}

/// With `buffer_holds = "until_fully_sent"` (`handed` is `Some`): notes the SDUs that end in `pdu`.
fn hand(handed: &mut Option<Vec<SduId>>, pdu: &Pdu) {
    if let (Some(handed), Pdu::Data(d)) = (handed, pdu) {
        handed.extend(d.ending_sdus());
    }
}

impl Bearer {
    /// The bearer of `user` as `cfg` describes it, for run seed `seed`; its
    /// PDCP discipline is first told `rate_bps` (a DCH: its rate; HSDPA: what
    /// a lone user is granted).
    pub fn new(user: u32, cfg: &BearerConfig, rate_bps: f64, seed: u64) -> Bearer {
        let stream = |part: &str| user_stream(seed, user, part);
        let (queue, ue_queue) = (cfg.down_queue(stream("pdcp")), cfg.up_queue(stream("ue")));
        let payload = cfg.rlc.payload();
        Bearer {
            user: u16::try_from(user).expect("validated: at most 65 536 users with [radio]"),
            pdcp: Pdcp::new(
                queue,
                pdcp_discipline(&cfg.queue, "radio.queue").expect("validated"),
                cfg.buffer_holds,
                rate_bps,
            ),
            down_store: SduStore::default(),
            rnc: AmEntity::new(&cfg.rlc),
            ue: AmEntity::new(&cfg.rlc),
            ue_buffer: Pdcp::new(
                ue_queue,
                pdcp_discipline(&cfg.uplink_queue, "radio.uplink_queue").expect("validated"),
                cfg.buffer_holds,
                cfg.uplink.rate.bps(),
            ),
            up_store: SduStore::default(),
            dch: cfg.dch.as_ref().map(|d| Dch::new(d, payload, stream("down"))),
            up: Dch::new(&cfg.uplink, payload, stream("up")),
            pending: [Pending::default(); UE_EVENTS],
            pdu_bytes: cfg.rlc.pdu_size.0,
            released: Vec::new(),
            handed_down: (cfg.buffer_holds == BufferHolds::UntilFullySent).then(Vec::new),
            handed_up: (cfg.buffer_holds == BufferHolds::UntilFullySent).then(Vec::new),
            stats: BearerStats::default(),
            occupancy: Occupancy::per_user(),
            last_change: Time::ZERO,
        }
    }

    /// Accumulates the PDCP backlog integrals and occupancy, and the UE buffer's
    /// backlog integrals, up to `now`.
    fn account(&mut self, now: Time) {
        if now == self.last_change {
            return; // nothing to add (several changes at one instant)
        }
        let dt = now.since(self.last_change).0;
        let (bytes, packets) = (self.pdcp.bytes(), self.pdcp.packets() as u64);
        self.stats.queue_byte_ns += bytes as u128 * dt as u128;
        self.stats.queue_packet_ns += packets as u128 * dt as u128;
        self.occupancy.hold(bytes, packets, dt);
        self.stats.ue_byte_ns += self.ue_buffer.bytes() as u128 * dt as u128;
        self.stats.ue_packet_ns += self.ue_buffer.packets() as u128 * dt as u128;
        self.last_change = now;
    }

    /// A downlink packet reaches the RNC.
    pub fn arrive_down(&mut self, now: Time, pkt: Packet, out: &mut RadioOut) {
        self.account(now);
        self.pdcp.arrive(now, pkt, &mut out.dropped);
    }

    /// An uplink packet leaves the UE's IP layer.
    pub fn arrive_up(&mut self, now: Time, pkt: Packet, out: &mut RadioOut) {
        self.account(now);
        self.ue_buffer.arrive(now, pkt, &mut out.dropped);
    }

    /// Event `ev` fires; `air` is the shared channel's air line to this
    /// user, where one serves the downlink. Returns `false` for a superseded
    /// event (nothing was done).
    pub fn handle(&mut self, now: Time, ev: UeEvent, air: Option<&mut AirLine>, out: &mut RadioOut) -> bool {
        if !self.pending[ev as usize].due(now) {
            return false; // superseded
        }
        self.account(now);
        match ev {
            UeEvent::DownTti => self.dch_tti(now, out),
            UeEvent::DownArrive => self.down_arrive(now, air, out),
            UeEvent::UpTti => self.up_tti(now, out),
            UeEvent::UpArrive => self.up_arrive(now, out),
            UeEvent::Timer => {
                self.pdcp.on_timer(now, &mut out.dropped);
                self.ue_buffer.on_timer(now, &mut out.dropped);
            }
        }
        true
    }

    /// Asks for event `ev` at `at` unless an earlier one is pending.
    pub fn want(&mut self, ev: UeEvent, at: Time, out: &mut RadioOut) {
        if self.pending[ev as usize].want(at) {
            out.schedule.push((at, RadioEvent::Ue(self.user, ev)));
        }
    }

    /// A TTI of the user's own DCH: the RNC's RLC fills its transport blocks.
    fn dch_tti(&mut self, now: Time, out: &mut RadioOut) {
        let dch = self.dch.as_mut().expect("a DCH TTI on a DCH bearer");
        dch.clock.run(now);
        let mut feed = Feed { now, pdcp: &mut self.pdcp, store: &mut self.down_store };
        let mut first = None;
        for _ in 0..dch.pdus_per_tti() {
            let Some(pdu) = self.rnc.next_pdu(now, &mut feed) else { break };
            self.stats.down_pdus += 1;
            hand(&mut self.handed_down, &pdu);
            if let Some(at) = dch.transmit(now, pdu) {
                first = first.or(Some(at));
            }
        }
        self.stats.down_pdus_lost = dch.stats().pdus_lost;
        if let Some(at) = first {
            self.want(UeEvent::DownArrive, at, out);
        }
    }

    /// The RNC's report before a downlink transmission opportunity at `now`
    /// (whether it would use one, then its PDCP backlog, retransmissions and head-of-line delay).
    pub fn buffer_status(&mut self, now: Time) -> BufferStatus {
        let feed = Feed { now, pdcp: &mut self.pdcp, store: &mut self.down_store };
        BufferStatus {
            ready: self.rnc.has_work(now, &feed),
            new_bytes: self.pdcp.bytes(),
            retx_pdus: self.rnc.tx.retx_pending(),
            head_of_line: Some(self.pdcp.head_of_line_delay(now)),
        }
    }

    /// Fills the downlink transmission opportunity `op` at `now`: the RNC's
    /// RLC gives up to the whole PDUs it holds, to `pdus`. Returns how many
    /// it gave (fewer: it ran dry).
    pub fn transmit_down(&mut self, now: Time, op: TxOpportunity, pdus: &mut Vec<Pdu>) -> u64 {
        self.account(now); // a hand-over discipline may drop, the buffer held until sent shrinks
        let from = pdus.len();
        let mut feed = Feed { now, pdcp: &mut self.pdcp, store: &mut self.down_store };
        let given = self.rnc.next_pdus(now, &mut feed, op.bytes / self.pdu_bytes, pdus);
        self.stats.down_pdus += given;
        for pdu in &pdus[from..] {
            hand(&mut self.handed_down, pdu);
        }
        given
    }

    /// RLC PDU size, bytes.
    pub fn pdu_bytes(&self) -> u64 {
        self.pdu_bytes
    }

    /// Tells the PDCP discipline the downlink rate (HSDPA: from the credits granted).
    pub fn set_rate(&mut self, now: Time, bps: f64, out: &mut RadioOut) {
        self.account(now);
        self.pdcp.set_rate(now, bps, &mut out.dropped);
    }

    /// Downlink PDUs due at the UE: from the user's DCH, or from the shared channel's `air` line.
    fn down_arrive(&mut self, now: Time, air: Option<&mut AirLine>, out: &mut RadioOut) {
        let line = match (&mut self.dch, air) {
            (Some(dch), _) => dch.line(),
            (None, Some(air)) => air,
            (None, None) => unreachable!("a bearer without a downlink"),
        };
        let ue = &mut self.ue;
        if let Some(at) = line.deliver(now, |pdu| ue.receive(now, &pdu)) {
            self.want(UeEvent::DownArrive, at, out);
        }
        let counts = (&mut self.stats.packets_delivered, &mut self.stats.bytes_delivered);
        hand_on(self.ue.rx.drain(), &mut self.down_store, &mut out.to_ue, &mut out.dropped, counts);
    }

    fn up_tti(&mut self, now: Time, out: &mut RadioOut) {
        self.up.clock.run(now);
        let mut feed = Feed { now, pdcp: &mut self.ue_buffer, store: &mut self.up_store };
        let mut first = None;
        for _ in 0..self.up.pdus_per_tti() {
            let Some(pdu) = self.ue.next_pdu(now, &mut feed) else { break };
            hand(&mut self.handed_up, &pdu);
            if let Some(at) = self.up.transmit(now, pdu) {
                first = first.or(Some(at));
            }
        }
        if let Some(at) = first {
            self.want(UeEvent::UpArrive, at, out);
        }
    }

    fn up_arrive(&mut self, now: Time, out: &mut RadioOut) {
        let rnc = &mut self.rnc;
        if let Some(at) = self.up.line().deliver(now, |pdu| rnc.receive(now, &pdu)) {
            self.want(UeEvent::UpArrive, at, out);
        }
        let counts = (&mut self.stats.packets_up, &mut self.stats.bytes_up);
        hand_on(self.rnc.rx.drain(), &mut self.up_store, &mut out.to_core, &mut out.dropped, counts);
    }

    /// Releases from the PDCP and UE buffers what the RLC senders let go (and,
    /// with `buffer_holds = "until_fully_sent"`, what went out: the buffers
    /// ignore the RLC's later release of those), and reports what their
    /// disciplines dropped at hand-overs.
    pub fn release(&mut self, now: Time, out: &mut RadioOut) {
        self.pdcp.take_dropped(&mut out.dropped);
        self.ue_buffer.take_dropped(&mut out.dropped);
        self.released.extend(self.handed_down.iter_mut().flat_map(|h| h.drain(..)).map(Release::Confirmed));
        self.released.extend(self.rnc.tx.drain_released());
        let down = self.released.len();
        self.released.extend(self.handed_up.iter_mut().flat_map(|h| h.drain(..)).map(Release::Confirmed));
        self.released.extend(self.ue.tx.drain_released());
        if !self.released.is_empty() {
            self.account(now); // a buffer's backlog changes
        }
        for (i, r) in self.released.drain(..).enumerate() {
            let (Release::Confirmed(id) | Release::Discarded(id)) = r;
            let buffer = if i < down { &mut self.pdcp } else { &mut self.ue_buffer };
            buffer.release(now, id, &mut out.dropped);
        }
    }

    /// Gives back the storage its RLC windows and SDU stores grew to where they
    /// hold nothing: called while its RNC is idle, so that a user between
    /// sessions keeps only its counters and histories, not the buffers of its
    /// last session (memory flat in simulated time however many users a run
    /// reaches).
    pub fn shrink_empty(&mut self) {
        self.rnc.shrink_empty();
        self.ue.shrink_empty();
        self.down_store.shrink_empty();
        self.up_store.shrink_empty();
        self.pdcp.shrink_empty();
        self.ue_buffer.shrink_empty();
        self.released.shrink_empty();
    }

    /// Asks for the next TTI of the user's own DCH if the RNC is `busy`.
    pub fn want_dch_tti(&mut self, now: Time, busy: bool, out: &mut RadioOut) {
        let Some(dch) = &self.dch else { return };
        if busy {
            let at = dch.clock.next(now);
            self.want(UeEvent::DownTti, at, out);
        }
    }

    /// Asks for the uplink TTI and the timers the new state needs.
    pub fn want_uplink_and_timers(&mut self, now: Time, out: &mut RadioOut) {
        let feed = Feed { now, pdcp: &mut self.ue_buffer, store: &mut self.up_store };
        if self.ue.has_work(now, &feed) {
            let at = self.up.clock.next(now);
            self.want(UeEvent::UpTti, at, out);
        }
        // Timers that may create work later.
        let later = |t: Option<Time>| t.filter(|&t| t > now);
        let timers = [self.rnc.next_timer(), self.ue.next_timer(), self.pdcp.next_timer(), self.ue_buffer.next_timer()];
        if let Some(at) = earliest(timers.map(later)) {
            self.want(UeEvent::Timer, at, out);
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
        let down_slots = self.dch.as_ref().map_or(0, |d| end.0 / d.tti().0 * d.pdus_per_tti() as u64);
        let (tx, up) = (self.rnc.tx.stats(), self.ue.tx.stats());
        let mut summary = RadioSummary {
            down_pdus: s.down_pdus,
            down_pdus_lost: s.down_pdus_lost,
            retransmissions: tx.retransmissions,
            polls: tx.polls,
            sdus_discarded: tx.sdus_discarded,
            mrws_sent: tx.mrws_sent,
            mrws_acknowledged: tx.mrws_acknowledged,
            statuses: self.ue.rx.stats().statuses_sent,
            up_retransmissions: up.retransmissions,
            up_polls: up.polls,
            up_sdus_discarded: up.sdus_discarded,
            up_mrws_sent: up.mrws_sent,
            up_mrws_acknowledged: up.mrws_acknowledged,
            up_statuses: self.rnc.rx.stats().statuses_sent,
            rlc_resets: tx.resets,
            data_pdus_received: self.ue.rx.stats().pdus_received,
            statuses_per_100_pdus: None,
            down_slots,
            frame_utilisation: None,
            spared: self.pdcp.stats().spared,
            mean_pdcp_bytes: s.queue_byte_ns as f64 / end.0.max(1) as f64,
            rate_bps: self.pdcp.rate_bps(),
        };
        summary.ratios();
        summary
    }

    /// The downlink seen as a link, for a [`crate::metrics::LinkSummary`]:
    /// busy = time the delivered bytes take at the told rate (a utilisation estimate).
    pub fn link_stats(&mut self, end: Time) -> LinkStats {
        let s = self.stats(end);
        LinkStats {
            busy: Dur::transmission(s.bytes_delivered, self.pdcp.rate_bps().max(1.0)).min(Dur(end.0)),
            packets_sent: s.packets_delivered,
            bytes_sent: s.bytes_delivered,
            queue_byte_ns: s.queue_byte_ns,
            queue_packet_ns: s.queue_packet_ns,
            occupancy: Some(self.occupancy.clone()),
        }
    }

    /// The uplink seen as a link, for the run's `uplink` [`crate::metrics::LinkSummary`]:
    /// busy = the uplink DCH's TTIs that carried PDUs, packets and bytes = what the
    /// RNC delivered towards the core, the backlog = the UE buffer's (its time
    /// percentiles are not tracked: `occupancy` is `None`).
    pub fn uplink_stats(&mut self, end: Time) -> LinkStats {
        let s = self.stats(end);
        LinkStats {
            busy: Dur(self.up.stats().ttis * self.up.tti().0).min(Dur(end.0)),
            packets_sent: s.packets_up,
            bytes_sent: s.bytes_up,
            queue_byte_ns: s.ue_byte_ns,
            queue_packet_ns: s.ue_packet_ns,
            occupancy: None,
        }
    }

    /// Start logging the TTIs of the user's DCHs (its own downlink, if any, and the uplink) that lost PDUs.
    pub fn record_losses(&mut self) {
        if let Some(d) = &mut self.dch {
            d.record_losses();
        }
        self.up.record_losses();
    }

    /// The logged TTIs with lost PDUs: (downlink, uplink), each (TTI start, PDUs lost).
    pub fn take_losses(&mut self) -> (LossLog, LossLog) {
        (self.dch.as_mut().map(Dch::take_losses).unwrap_or_default(), self.up.take_losses())
    }

    /// The UE's uplink buffer.
    pub fn ue_buffer(&self) -> &Pdcp {
        &self.ue_buffer
    }

    /// Counters up to `now` (closes the backlog integrals at `now`).
    pub fn stats(&mut self, now: Time) -> BearerStats {
        self.account(now);
        self.stats
    }
}
