//! What the four UMTS systems share: a bearer per user ([`Bearer`]: the
//! RNC's PDCP buffer, the RLC AM pair, the uplink DCH, the UE's buffer) over
//! the system's downlink ([`Downlink`]: the users' own DCHs, or a shared
//! channel and its scheduler).
//!
//! A packet enters the bearer of its flow's user; after anything changes a
//! bearer, it is *settled*: the RLC senders' releases leave its buffers, the
//! downlink is told whether the RNC has data and asks for the events it then
//! needs, and the bearer asks for its uplink TTI and timers. The RNC's PDCP
//! buffers together stand for the run's `bottleneck` in the summary: their
//! summed backlog is tallied over time ([`Tally`]), each user's own in its bearer.

use super::interface::{Ran, UserBuffer};
use crate::link::LinkStats;
use crate::metrics::RadioLossTrace;
use crate::packet::{Dir, Packet};
use crate::queue::QueueDisc;
use crate::radio::air::AirLine;
use crate::radio::bearer::{Bearer, RadioSummary};
use crate::radio::cell_summary::CellSummary;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut, UeEvent};
use crate::radio::ran::summary::RanSummary;
use crate::radio::tally::Tally;
use crate::time::{Dur, Time};

/// The downlink of a UMTS system: what serves the bearers' RNCs.
pub trait Downlink {
    /// After user `u`'s bearer `b` changed, its RNC `busy` (with data) or
    /// not: asks for the events the downlink now needs.
    fn settled(&mut self, now: Time, u: usize, b: &mut Bearer, busy: bool, out: &mut RadioOut);

    /// The air line to user `u` of a shared channel (`None`: the user's own DCH).
    fn air(&mut self, u: usize) -> Option<&mut AirLine>;

    /// One of the downlink's own events (not a user's) fires.
    fn handle(&mut self, now: Time, ev: RadioEvent, users: &mut Users, out: &mut RadioOut);

    /// The start of the run.
    fn start(&mut self, _now: Time, _out: &mut RadioOut) {}

    /// User `u` starts a new connection.
    fn new_session(&mut self, _now: Time, _u: usize) {}

    /// One row per cell (see [`Ran::cells`]).
    fn cells(&self, end: Time) -> Vec<CellSummary>;

    fn cell_of(&self, u: usize) -> u32;

    fn handovers(&self, _u: usize) -> Option<u64> {
        None
    }

    /// The summary's parts of the downlink's own (see [`Ran::summary`]; the bearers' counters are [`Umts`]'s).
    fn summary(&self) -> RanSummary {
        RanSummary::default()
    }
}

/// The users' bearers, their PDCP buffers' summed backlog over time, and the
/// users a shared channel's TTI served.
///
/// The summed backlog is kept as the bearers change, not summed anew: each
/// bearer's backlog as last counted is kept beside it, and settling a bearer
/// (which every change of its PDCP buffer is followed by, before the tally
/// next holds) counts the difference.
pub struct Users {
    pub bearers: Vec<Bearer>,
    tally: Tally,
    /// Each bearer's PDCP backlog (bytes, packets) as the tally last counted it.
    counted: Vec<(u64, u64)>,
    /// The users a TTI served, each with when its first PDUs reach it if its air line was empty
    /// (a user may be listed more than once).
    pub served: Vec<(usize, Option<Time>)>,
    /// The users [`Users::settle_served`] has settled so far in its call.
    settled: Vec<bool>,
}

/// A PDCP buffer's backlog (bytes, packets).
fn backlog(b: &Bearer) -> (u64, u64) {
    (b.pdcp().bytes(), b.pdcp().packets() as u64)
}

/// Several buffers' links seen as one: counts and backlog integrals summed, the
/// busy time summed but at most the run's `end` (occupancy left out: a sum of
/// distributions is not the distribution of the sum).
fn summed(links: impl Iterator<Item = LinkStats>, end: Time) -> LinkStats {
    let mut all = LinkStats::default();
    for s in links {
        all.busy += s.busy;
        all.packets_sent += s.packets_sent;
        all.bytes_sent += s.bytes_sent;
        all.queue_byte_ns += s.queue_byte_ns;
        all.queue_packet_ns += s.queue_packet_ns;
    }
    all.busy = all.busy.min(Dur(end.0));
    all
}

impl Users {
    /// The bearers of `cfg`'s `users` users; user `u`'s PDCP discipline is first told `told(u)` b/s.
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64, told: impl Fn(usize) -> f64) -> Users {
        let bearers: Vec<Bearer> = (0..users).map(|u| Bearer::new(u, &cfg.bearer(u), told(u as usize), seed)).collect();
        let counted = bearers.iter().map(backlog).collect();
        let settled = vec![false; bearers.len()];
        Users { bearers, tally: Tally::default(), counted, served: Vec::new(), settled }
    }

    /// Does `op` on user `u`'s bearer at `now`; if it did something (returns
    /// `true`), settles the bearer.
    pub fn on<D: Downlink>(
        &mut self,
        now: Time,
        u: usize,
        down: &mut D,
        out: &mut RadioOut,
        op: impl FnOnce(&mut D, &mut Bearer, &mut RadioOut) -> bool,
    ) {
        self.tally.hold(now);
        if op(down, &mut self.bearers[u], out) {
            self.settle(now, u, down, out);
        }
    }

    /// After user `u`'s bearer changed: releases what its RLC senders let go,
    /// asks for the downlink's events, then its uplink TTI and timers, and
    /// counts its PDCP backlog's change in the tally. An idle RNC gives back
    /// the storage its bearer holds nothing in.
    pub fn settle(&mut self, now: Time, u: usize, down: &mut impl Downlink, out: &mut RadioOut) {
        let b = &mut self.bearers[u];
        b.release(now, out);
        let busy = b.buffer_status(now).ready;
        if !busy {
            b.shrink_empty();
            if let Some(air) = down.air(u) {
                air.shrink_empty();
            }
        }
        down.settled(now, u, b, busy, out);
        b.want_uplink_and_timers(now, out);
        let now_backlog = backlog(b);
        self.tally.change(std::mem::replace(&mut self.counted[u], now_backlog), now_backlog);
    }

    /// Holds the tally's backlog up to `now` (before a downlink's own event changes bearers).
    pub fn hold(&mut self, now: Time) {
        self.tally.hold(now);
    }

    /// The users in `served` (then emptied), in order: each asks for the arrival
    /// of its first PDUs at the UE, then is settled (their PDCP buffers changed
    /// while the channel took packets: a packet handed to the RLC leaves a buffer
    /// that counts it until sent; a hand-over discipline drops there). A user
    /// listed again is settled only the first time: nothing changed its bearer
    /// since, and settling it again at the same instant would ask for nothing new.
    pub fn settle_served(&mut self, now: Time, down: &mut impl Downlink, out: &mut RadioOut) {
        let mut served = std::mem::take(&mut self.served);
        for &(u, at) in &served {
            if let Some(at) = at {
                self.bearers[u].want(UeEvent::DownArrive, at, out);
            }
            if !std::mem::replace(&mut self.settled[u], true) {
                self.settle(now, u, down, out);
            }
        }
        for &(u, _) in &served {
            self.settled[u] = false;
        }
        served.clear();
        self.served = served;
    }
}

/// A UMTS system: its downlink `D` and the users' bearers.
pub struct Umts<D> {
    pub down: D,
    pub users: Users,
}

impl<D: Downlink> Ran for Umts<D> {
    fn start(&mut self, now: Time, out: &mut RadioOut) {
        self.down.start(now, out);
    }

    fn arrive_down(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.users.on(now, ue, &mut self.down, out, |_, b, out| {
            b.arrive_down(now, pkt, out);
            true
        });
    }

    fn arrive_up(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.users.on(now, ue, &mut self.down, out, |_, b, out| {
            b.arrive_up(now, pkt, out);
            true
        });
    }

    fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        match ev {
            RadioEvent::Ue(u, ev) => {
                let u = u as usize;
                self.users.on(now, u, &mut self.down, out, |d, b, out| b.handle(now, ev, d.air(u), out));
            }
            ev => self.down.handle(now, ev, &mut self.users, out),
        }
    }

    fn new_session(&mut self, now: Time, ue: usize) {
        self.down.new_session(now, ue);
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        self.down.cells(end)
    }

    fn cell_of(&self, ue: usize) -> u32 {
        self.down.cell_of(ue)
    }

    fn handovers(&self, ue: usize) -> Option<u64> {
        self.down.handovers(ue)
    }

    fn bytes_held(&self) -> u64 {
        self.users.bearers.iter().map(Bearer::bytes_held).sum()
    }

    fn backlog(&self) -> (u64, u64) {
        (self.users.tally.bytes, self.users.tally.packets)
    }

    fn buffer_packets(&self, ue: usize) -> u64 {
        self.users.bearers[ue].pdcp().packets() as u64
    }

    /// The PDCP buffers together, seen as one link, and their ECN marks.
    fn bottleneck(&mut self, end: Time) -> (LinkStats, u64) {
        let users = &mut self.users;
        let marked = users.bearers.iter().map(|b| b.pdcp().queue().stats().marked).sum();
        users.tally.hold(end);
        let mut all = summed(users.bearers.iter_mut().map(|b| b.link_stats(end)), end);
        all.queue_byte_ns = users.tally.byte_ns;
        all.queue_packet_ns = users.tally.packet_ns;
        all.occupancy = Some(users.tally.occupancy.clone());
        (all, marked)
    }

    /// The users' uplink DCHs and UE buffers together (their occupancy is not tracked).
    fn uplink(&mut self, end: Time) -> (LinkStats, u64) {
        let bearers = &mut self.users.bearers;
        let marked = bearers.iter().map(|b| b.ue_buffer().queue().stats().marked).sum();
        (summed(bearers.iter_mut().map(|b| b.uplink_stats(end)), end), marked)
    }

    fn user_buffer(&mut self, ue: usize, end: Time) -> UserBuffer {
        let b = &mut self.users.bearers[ue];
        let marked = b.pdcp().queue().stats().marked;
        UserBuffer { stats: b.link_stats(end), marked, dir: Dir::Down }
    }

    fn user_radio(&mut self, ue: usize, end: Time) -> Option<RadioSummary> {
        Some(self.users.bearers[ue].summary(end))
    }

    /// The downlink's parts, and the bearers' counters summed over the users (the told rate is user 0's).
    fn summary(&mut self, end: Time) -> RanSummary {
        let bearers = &mut self.users.bearers;
        let mut all = bearers[0].summary(end);
        for b in &mut bearers[1..] {
            all.add(&b.summary(end));
        }
        RanSummary { radio: Some(all), ..self.down.summary() }
    }

    fn record_traces(&mut self) {
        self.users.bearers.iter_mut().for_each(Bearer::record_losses);
    }

    fn take_loss_trace(&mut self) -> RadioLossTrace {
        let mut rows: Vec<(Time, u8, u32, u32)> = Vec::new();
        for (u, b) in self.users.bearers.iter_mut().enumerate() {
            let (down, up) = b.take_losses();
            rows.extend(down.into_iter().map(|(t, n)| (t, 0, u as u32, n)));
            rows.extend(up.into_iter().map(|(t, n)| (t, 1, u as u32, n)));
        }
        rows.sort_unstable();
        let mut trace = RadioLossTrace::default();
        for (t, dir, user, n) in rows {
            trace.time_s.push(t.as_secs_f64());
            trace.user.push(user);
            trace.dir.push(if dir == 0 { "down" } else { "up" });
            trace.pdus.push(n);
        }
        trace
    }
}
