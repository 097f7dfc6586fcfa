//! HSDPA (HS-DSCH) as in the WCDMA study: Node-B MAC-hs buffers served every
//! 2 ms TTI, fed by the RNC under credit-based Iub flow control.
//!
//! ```text
//!  RNC RLC ──FP frames (≤255 MAC-d PDUs / user / 10 ms)──▶ Node-B MAC-hs buffers ──2 ms TTIs──▶ UEs
//!           ◀──────────── credits per user every 10 ms ────────────┘
//! ```
//!
//! - Flow control (TS 25.435 HS-DSCH capacity allocation, simplified as in the
//!   study): every `flow_control` period each *active* user (one with data
//!   waiting in the RNC) is granted `share · rate · period / MAC-d bits /
//!   active users` credits, one credit per MAC-d PDU; fractions carry over
//!   while the user stays active, and a frame holds at most `max_frame` PDUs.
//!   The rate the RNC knows of the bearer is the rate of the credits it was
//!   granted ("for HSDPA from the credits granted", Lakkakorpi & Cuny, WCNC 2006):
//!   credits × MAC-d bits / period, so the frame cap bounds it too.
//! - Scheduling: every TTI the cell's [`Scheduler`] picks one user with data
//!   in the Node-B ([`crate::radio::scheduler`]: round robin, max C/I, proportional
//!   fair, strict priority); it gets `rate · TTI` bits at its channel's rate
//!   (the cell's `rate`, or the user's own `channel_rate`; fractions carry
//!   over while the cell stays busy).
//! - HARQ: with probability `harq` an IP packet waits until the next
//!   scheduling period (the next flow-control boundary: 0–10 ms extra): the
//!   PDU that ends it, drawn once per packet ending there (Lakkakorpi & Cuny, WCNC 2006:
//!   "with probability 0.1 per IP packet"). The UE's reordering keeps each
//!   user's PDUs in order, so the PDUs behind it wait too.

use crate::radio::air::AirLine;
use crate::radio::scheduler::{AnyScheduler, RateAverage, Scheduler, SchedulerKind, UserView};
use crate::rlc::Pdu;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::units::Rate;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[radio.hsdpa]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HsdpaConfig {
    /// HS-DSCH capacity of the cell (500 kb/s and 3.6 Mb/s in the study).
    pub rate: Rate,
    /// Share of the capacity the flow control hands out (study: 0.9).
    pub share: f64,
    /// HS-DSCH TTI.
    pub tti: Dur,
    /// Flow-control (credit) period.
    pub flow_control: Dur,
    /// Most MAC-d PDUs in one frame-protocol frame.
    pub max_frame: u32,
    /// Probability that an IP packet waits for the next scheduling period (HARQ).
    pub harq: f64,
    /// RNC → Node-B (Iub) one-way delay.
    pub iub_delay: Dur,
    /// Node-B → UE delay after the end of the TTI.
    pub air_delay: Dur,
    /// Which backlogged user a TTI serves (`round_robin`, `max_ci`, `proportional_fair`, `priority`).
    pub scheduler: SchedulerKind,
    /// The proportional fair scheduler's averaging window (in TTIs of this length; our choice).
    pub average_window: Dur,
}

impl Default for HsdpaConfig {
    fn default() -> Self {
        HsdpaConfig {
            rate: Rate(3.6e6),
            share: 0.9,
            tti: Dur::from_millis(2),
            flow_control: Dur::from_millis(10),
            max_frame: 255,
            harq: 0.1,
            iub_delay: Dur::from_millis(10),
            air_delay: Dur::from_millis(5),
            scheduler: SchedulerKind::RoundRobin,
            average_window: Dur::from_millis(200),
        }
    }
}

impl HsdpaConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(self.share > 0.0 && self.share <= 1.0) {
            return Err(format!("{key}.share: expected a share of the capacity in (0, 1], got {}", self.share));
        }
        if self.tti == Dur::ZERO {
            return Err(format!("{key}.tti: must be positive"));
        }
        if self.flow_control == Dur::ZERO {
            return Err(format!("{key}.flow_control: must be positive"));
        }
        if self.max_frame == 0 {
            return Err(format!("{key}.max_frame: must be at least 1"));
        }
        if self.average_window < self.tti {
            return Err(format!("{key}.average_window: must be at least one TTI ({})", self.tti));
        }
        if !(0.0..1.0).contains(&self.harq) {
            return Err(format!("{key}.harq: expected a probability in [0, 1), got {}", self.harq));
        }
        Ok(())
    }
}

/// The bit rate of `credits` MAC-d PDUs of `mac_d_bits` per flow-control period of `cfg`.
fn credit_rate(cfg: &HsdpaConfig, mac_d_bits: f64, credits: f64) -> f64 {
    credits * mac_d_bits / cfg.flow_control.as_secs_f64()
}

struct User {
    /// The rate this user's channel supports when scheduled (b/s).
    channel_bps: f64,
    /// Its priority class (the `priority` scheduler).
    priority: u8,
    /// Its served rate, averaged for the proportional fair scheduler.
    average: RateAverage,
    /// Credits earned and not yet granted (fractions), while active.
    credit: f64,
    /// Rate of the credits last granted (b/s).
    granted_bps: f64,
    /// Frames on the Iub, by arrival at the Node-B.
    iub: AirLine,
    /// The MAC-hs buffer.
    nodeb: VecDeque<Pdu>,
    /// PDUs on the air to the UE.
    air: AirLine,
}

/// One user of the cell as its bearer configures it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HsdpaUser {
    /// The rate its channel supports when scheduled; `None`: the cell's `rate`.
    pub channel_bps: Option<f64>,
    /// Its priority class (0 first).
    pub priority: u8,
}

/// Counters of the cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HsdpaStats {
    pub ttis_used: u64,
    pub pdus_sent: u64,
    /// IP packets HARQ made wait for the next scheduling period.
    pub harq_delayed: u64,
    /// Users served, summed over the TTIs used.
    pub users_served: u64,
}

pub struct Hsdpa {
    cfg: HsdpaConfig,
    mac_d_bits: f64,
    users: Vec<User>,
    scheduler: AnyScheduler,
    /// Bits of the TTI budget carried over (less than one PDU).
    carry_bits: f64,
    views: Vec<UserView>,
    /// PDUs in the MAC-hs buffers, all users.
    waiting: u64,
    rng: Rng,
    stats: HsdpaStats,
}

impl Hsdpa {
    /// A cell serving `users` and MAC-d PDUs of `mac_d_bytes` (the RLC PDU size).
    pub fn new(cfg: &HsdpaConfig, users: &[HsdpaUser], mac_d_bytes: u64, rng: Rng) -> Hsdpa {
        let window = (cfg.average_window.0 / cfg.tti.0.max(1)).clamp(1, u32::MAX as u64) as u32;
        let user = |u: &HsdpaUser| User {
            channel_bps: u.channel_bps.unwrap_or(cfg.rate.bps()),
            priority: u.priority,
            average: RateAverage::new(window),
            credit: 0.0,
            granted_bps: 0.0,
            iub: AirLine::default(),
            nodeb: VecDeque::new(),
            air: AirLine::default(),
        };
        let mut h = Hsdpa {
            cfg: cfg.clone(),
            mac_d_bits: mac_d_bytes as f64 * 8.0,
            users: users.iter().map(user).collect(),
            scheduler: cfg.scheduler.build(),
            carry_bits: 0.0,
            views: vec![UserView::default(); users.len()],
            waiting: 0,
            rng,
            stats: HsdpaStats::default(),
        };
        let alone = credit_rate(&h.cfg, h.mac_d_bits, h.credits_per_period(1).min(h.cfg.max_frame as f64));
        h.users.iter_mut().for_each(|u| u.granted_bps = alone);
        h
    }

    /// Credits (fractional) each of `active` users earns per flow-control period:
    /// its equal share of `share · rate`, in MAC-d PDUs.
    fn credits_per_period(&self, active: usize) -> f64 {
        self.cfg.share * self.cfg.rate.bps() / active.max(1) as f64 * self.cfg.flow_control.as_secs_f64()
            / self.mac_d_bits
    }

    pub fn stats(&self) -> HsdpaStats {
        self.stats
    }

    /// The rate of the credits last granted to user `u`, credits × MAC-d bits /
    /// period (b/s): what the RNC knows of its bearer. Before the first grant,
    /// the long-run rate a lone user is granted; an idle user keeps its last.
    /// With fractional credits carried over it alternates between neighbouring
    /// values (3.6 Mb/s alone: 96 or 97 credits, 3.226 or 3.259 Mb/s).
    pub fn granted_bps(&self, u: usize) -> f64 {
        self.users[u].granted_bps
    }

    /// The first flow-control instant at or after `now`.
    pub fn next_flow_control(&self, now: Time) -> Time {
        let p = self.cfg.flow_control.0;
        Time(now.0.div_ceil(p) * p)
    }

    /// The first TTI start at or after `now`.
    pub fn next_tti(&self, now: Time) -> Time {
        let p = self.cfg.tti.0;
        Time(now.0.div_ceil(p) * p)
    }

    /// Flow control at `now`: `credits[u]` is set to the MAC-d PDUs user `u`
    /// may send in this period; `active[u]` says whether it has data in the RNC.
    pub fn grant(&mut self, active: &[bool], credits: &mut [u32]) {
        let per_period = self.credits_per_period(active.iter().filter(|&&a| a).count());
        for (u, user) in self.users.iter_mut().enumerate() {
            if !active[u] {
                user.credit = 0.0;
                credits[u] = 0;
                continue;
            }
            user.credit += per_period;
            let c = (user.credit.floor() as u32).min(self.cfg.max_frame);
            user.credit = (user.credit - c as f64).min(1.0);
            user.granted_bps = credit_rate(&self.cfg, self.mac_d_bits, c as f64);
            credits[u] = c;
        }
    }

    /// The RNC sends user `u` a frame with `pdu` (one of up to the granted
    /// credits) at `now`. Returns its arrival time at the Node-B if the Iub
    /// line was empty (schedule the Iub event then).
    pub fn send_frame_pdu(&mut self, now: Time, u: usize, pdu: Pdu) -> Option<Time> {
        let at = now + self.cfg.iub_delay;
        self.users[u].iub.push(at, pdu).then_some(at)
    }

    /// Frames of user `u` due by `now` reach the MAC-hs buffer; returns when the next one arrives.
    pub fn iub_arrivals(&mut self, now: Time, u: usize) -> Option<Time> {
        let user = &mut self.users[u];
        let before = user.nodeb.len();
        let next = user.iub.arrivals(now, &mut user.nodeb);
        self.waiting += (user.nodeb.len() - before) as u64;
        next
    }

    /// Whether some MAC-hs buffer holds data (a TTI is needed).
    pub fn has_backlog(&self) -> bool {
        self.waiting > 0
    }

    /// The index of the TTI starting at `now` (TTIs on the grid k·TTI).
    fn tti_index(&self, now: Time) -> u64 {
        now.0 / self.cfg.tti.0
    }

    /// One TTI starting at `now`: writes to `served` each scheduled user and,
    /// if its air line was empty, when its first PDU arrives (schedule the air
    /// event then). Returns whether a user was scheduled.
    pub fn tti(&mut self, now: Time, served: &mut Vec<(usize, Option<Time>)>) -> bool {
        served.clear();
        let k = self.tti_index(now);
        let averaged = self.cfg.scheduler.uses_average();
        for (v, u) in self.views.iter_mut().zip(&self.users) {
            *v = UserView {
                backlog_bytes: u.nodeb.len() as u64 * (self.mac_d_bits as u64 / 8),
                rate_bps: u.channel_bps,
                avg_bps: if averaged { u.average.value(k) } else { 0.0 },
                priority: u.priority,
            };
        }
        let Some(u) = self.scheduler.pick(now, &self.views) else {
            self.carry_bits = 0.0;
            return false;
        };
        let user = &mut self.users[u];
        let bits = user.channel_bps * self.cfg.tti.as_secs_f64() + self.carry_bits;
        let n = (bits / self.mac_d_bits).floor() as usize;
        let take = n.min(user.nodeb.len());
        self.carry_bits = if take == n { bits - n as f64 * self.mac_d_bits } else { 0.0 };
        user.average.serve(k, take as f64 * self.mac_d_bits / self.cfg.tti.as_secs_f64());
        self.stats.ttis_used += 1;
        self.stats.users_served += 1;
        self.stats.pdus_sent += take as u64;
        self.waiting -= take as u64;
        let on_time = now + self.cfg.tti + self.cfg.air_delay;
        let p = self.cfg.flow_control.0;
        let deferred = Time((now.0 / p + 1) * p) + self.cfg.tti + self.cfg.air_delay;
        let was_empty = user.air.is_empty();
        let mut first = None;
        for pdu in user.nodeb.drain(..take) {
            // HARQ, per IP packet: each packet ending in this PDU may wait for the next scheduling period.
            let ending = if let Pdu::Data(d) = &pdu { d.ending_sdus().count() } else { 0 };
            let mut at = on_time;
            for _ in 0..ending {
                if self.cfg.harq > 0.0 && self.rng.random::<f64>() < self.cfg.harq {
                    self.stats.harq_delayed += 1;
                    at = deferred;
                }
            }
            let at = user.air.last().map_or(at, |last| at.max(last)); // MAC-hs reordering
            first.get_or_insert(at);
            user.air.push(at, pdu);
        }
        served.push((u, first.filter(|_| was_empty)));
        true
    }

    /// The air line to user `u`.
    pub fn air(&mut self, u: usize) -> &mut AirLine {
        &mut self.users[u].air
    }

    /// PDUs of user `u` between the RNC and the UE.
    pub fn in_flight(&self, u: usize) -> impl Iterator<Item = &Pdu> {
        let user = &self.users[u];
        user.iub.iter().chain(user.nodeb.iter()).chain(user.air.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::{DataPdu, Mrw, Pdu};
    use crate::rng::stream;

    fn dummy() -> Pdu {
        Pdu::Mrw(Mrw { sn: 0, discard_through: 0 })
    }

    /// `n` users on the cell's own rate, class 0.
    fn users(n: usize) -> Vec<HsdpaUser> {
        vec![HsdpaUser { channel_bps: None, priority: 0 }; n]
    }

    /// `n` always-backlogged users for `secs`: credits granted per user per
    /// period (summed) and PDUs delivered per user.
    fn backlogged(cfg: &HsdpaConfig, n: usize, secs: u64) -> (Vec<u64>, Vec<u64>) {
        let mut h = Hsdpa::new(cfg, &users(n), 42, stream(3, "hsdpa"));
        let (mut granted, mut credits) = (vec![0u64; n], vec![0u32; n]);
        let active = vec![true; n];
        let mut out = vec![Vec::new(); n];
        let end = Time::ZERO + Dur::from_secs(secs);
        let mut t = Time::ZERO;
        while t < end {
            if h.next_flow_control(t) == t {
                h.grant(&active, &mut credits);
                for u in 0..n {
                    granted[u] += credits[u] as u64;
                    for _ in 0..credits[u] {
                        h.send_frame_pdu(t, u, dummy());
                    }
                }
            }
            for (u, got) in out.iter_mut().enumerate() {
                h.iub_arrivals(t, u);
                h.air(u).arrivals(t, got);
            }
            if h.next_tti(t) == t {
                h.tti(t, &mut Vec::new());
            }
            t += Dur::from_millis(1);
        }
        (granted, out.iter().map(|o| o.len() as u64).collect())
    }

    #[test]
    fn credits_follow_the_equal_share_rule_and_the_delivered_rate_is_0_9_of_capacity_over_n() {
        for (rate, n) in [(3.6e6, 1), (3.6e6, 3), (500e3, 1), (500e3, 2)] {
            let cfg = HsdpaConfig { rate: Rate(rate), ..HsdpaConfig::default() };
            let secs = 20;
            let (granted, delivered) = backlogged(&cfg, n, secs);
            let per_user = 0.9 * rate / n as f64; // b/s of MAC-d PDUs
            for u in 0..n {
                let credits_per_period = granted[u] as f64 / (secs as f64 * 100.0);
                let want = per_user * 0.01 / 336.0;
                assert!((credits_per_period / want - 1.0).abs() < 0.005, "{rate} {n}: {credits_per_period} vs {want}");
                let got_bps = delivered[u] as f64 * 336.0 / secs as f64;
                assert!((got_bps / per_user - 1.0).abs() < 0.02, "{rate} b/s, {n} users: {got_bps} vs {per_user}");
            }
        }
    }

    #[test]
    fn grants_split_among_active_users_only_and_frames_are_capped() {
        let cfg = HsdpaConfig { rate: Rate(3.6e6), ..HsdpaConfig::default() };
        let mut h = Hsdpa::new(&cfg, &users(3), 42, stream(1, "h"));
        let mut credits = [0u32; 3];
        h.grant(&[true, false, true], &mut credits);
        // 0.9 × 3.6 Mb/s / 2 × 10 ms / 336 bit = 48.2: 48 credits, 48 × 336 bit / 10 ms.
        assert_eq!(credits, [48, 0, 48]);
        assert_eq!(h.granted_bps(0), 48.0 * 336.0 / 0.01);
        // A frame holds at most 255 PDUs: 0.9 × 20 Mb/s × 10 ms / 336 = 535.7 → 255.
        let cfg = HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() };
        let mut h = Hsdpa::new(&cfg, &users(1), 42, stream(1, "h"));
        let mut credits = [0u32; 1];
        h.grant(&[true], &mut credits);
        assert_eq!(credits, [255]);
    }

    #[test]
    fn the_granted_rate_is_the_rate_of_the_credits_granted_frame_cap_included() {
        // 20 Mb/s: 0.9 × 20 Mb/s would be 18 Mb/s, but 255 PDUs of 336 bits per 10 ms is 8.568 Mb/s.
        let capped = 255.0 * 336.0 / 0.01;
        let cfg = HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() };
        let mut h = Hsdpa::new(&cfg, &users(1), 42, stream(1, "h"));
        assert_eq!(h.granted_bps(0), capped, "before the first grant");
        let mut credits = [0u32; 1];
        h.grant(&[true], &mut credits);
        assert_eq!(h.granted_bps(0), capped);
        // An idle user keeps the rate of its last grant.
        h.grant(&[false], &mut credits);
        assert_eq!((credits[0], h.granted_bps(0)), (0, capped));
        // Uncapped, the told rate averages to the share: 3.6 Mb/s alone earns 96.43 credits per
        // period, granted as 96 or 97; over many periods the mean is 0.9 × 3.6 Mb/s.
        let cfg = HsdpaConfig::default();
        let mut h = Hsdpa::new(&cfg, &users(1), 42, stream(1, "h"));
        let (mut sum, periods) = (0.0, 700);
        for _ in 0..periods {
            h.grant(&[true], &mut credits);
            assert!([96, 97].contains(&credits[0]), "{credits:?}");
            assert_eq!(h.granted_bps(0), credits[0] as f64 * 336.0 / 0.01);
            sum += h.granted_bps(0);
        }
        assert!((sum / periods as f64 / 3.24e6 - 1.0).abs() < 1e-3, "{}", sum / periods as f64);
        // The delivered rate of a backlogged user is the told rate: with the cap, 8.568 Mb/s.
        let (_, delivered) = backlogged(&HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() }, 1, 5);
        let got_bps = delivered[0] as f64 * 336.0 / 5.0;
        assert!((got_bps / capped - 1.0).abs() < 0.01, "{got_bps} vs {capped}");
    }

    /// Packets of two PDUs each (the second ends the packet): about one packet in
    /// ten waits, decided on its ending PDU only; every PDU still arrives in order.
    #[test]
    fn harq_delays_about_one_packet_in_ten_and_keeps_order() {
        let cfg = HsdpaConfig::default();
        let mut h = Hsdpa::new(&cfg, &users(1), 42, stream(9, "h"));
        let mut out = Vec::new();
        let mut deferred_starts = 0;
        for k in 0..10_000u64 {
            let t = Time::ZERO + Dur::from_millis(2 * k);
            let ends = k % 2 == 1;
            let pdu = DataPdu {
                sn: k,
                poll: false,
                sdu_first: k / 2,
                sdu_last: k / 2,
                starts: !ends,
                ends,
                payload: 40,
                lis: ends as u32,
            };
            h.send_frame_pdu(t, 0, Pdu::Data(pdu));
            h.iub_arrivals(t + Dur::from_millis(10), 0);
            let delayed = h.stats().harq_delayed;
            let mut served = Vec::new();
            h.tti(t + Dur::from_millis(10), &mut served);
            if !ends && h.stats().harq_delayed > delayed {
                deferred_starts += 1;
            }
        }
        assert_eq!(deferred_starts, 0, "a PDU that ends no packet draws nothing");
        h.air(0).arrivals(Time::MAX, &mut out);
        let sns: Vec<u64> = out.iter().map(|p| if let Pdu::Data(d) = p { d.sn } else { u64::MAX }).collect();
        assert_eq!(sns, (0..10_000).collect::<Vec<_>>());
        let share = h.stats().harq_delayed as f64 / 5000.0;
        assert!((share - 0.1).abs() < 0.015, "{share}");
    }

    /// Loads `pdus[u]` PDUs into user `u`'s MAC-hs buffer, then runs `ttis`
    /// TTIs: the user each served (`None`: nobody had data).
    fn serve(cfg: &HsdpaConfig, users: &[HsdpaUser], pdus: &[u64], ttis: u64) -> Vec<Option<usize>> {
        let mut h = Hsdpa::new(cfg, users, 42, stream(5, "h"));
        for (u, &n) in pdus.iter().enumerate() {
            for _ in 0..n {
                h.send_frame_pdu(Time::ZERO, u, dummy());
            }
            h.iub_arrivals(Time::ZERO + cfg.iub_delay, u);
        }
        let mut served = Vec::new();
        (0..ttis)
            .map(|k| {
                h.tti(Time::ZERO + cfg.iub_delay + Dur(cfg.tti.0 * k), &mut served);
                served.first().map(|&(u, _)| u)
            })
            .collect()
    }

    fn on(channel: f64, priority: u8) -> HsdpaUser {
        HsdpaUser { channel_bps: Some(channel), priority }
    }

    #[test]
    fn max_ci_serves_only_the_better_channel_while_it_has_data() {
        let cfg = HsdpaConfig { scheduler: SchedulerKind::MaxCi, harq: 0.0, ..HsdpaConfig::default() };
        // 3.6 Mb/s × 2 ms = 7200 bits = 21 PDUs of 336 bits per TTI (carry aside); 1.2 Mb/s: 7 PDUs.
        let got = serve(&cfg, &[on(1.2e6, 0), on(3.6e6, 0)], &[70, 210], 14);
        assert_eq!(&got[..10], &[Some(1); 10], "the better channel, until its 210 PDUs are gone");
        assert_eq!(&got[10..], &[Some(0); 4], "then the other");
    }

    #[test]
    fn proportional_fair_gives_equal_time_shares_at_unequal_rates() {
        let cfg = HsdpaConfig { scheduler: SchedulerKind::ProportionalFair, harq: 0.0, ..HsdpaConfig::default() };
        let got = serve(&cfg, &[on(0.6e6, 0), on(1.2e6, 0), on(3.6e6, 0)], &[1_000_000; 3], 30_000);
        for u in 0..3 {
            let share = got.iter().filter(|&&g| g == Some(u)).count() as f64 / 30_000.0;
            assert!((share - 1.0 / 3.0).abs() < 0.005, "user {u}: {share}");
        }
        // Round robin gives equal shares too, and max C/I all to the best.
        let rr = serve(&HsdpaConfig { harq: 0.0, ..cfg.clone() }, &[on(0.6e6, 0), on(3.6e6, 0)], &[1000; 2], 4);
        assert_eq!(rr, [Some(0), Some(1), Some(0), Some(1)]);
    }

    #[test]
    fn strict_priority_serves_class_0_first() {
        let cfg = HsdpaConfig { scheduler: SchedulerKind::Priority, harq: 0.0, ..HsdpaConfig::default() };
        // User 0 is class 1, user 2 class 0, user 1 class 0: users 1 and 2 in turn until both are empty.
        let users = [on(3.6e6, 1), on(3.6e6, 0), on(3.6e6, 0)];
        let got = serve(&cfg, &users, &[42, 42, 42], 7);
        assert_eq!(got, [Some(1), Some(2), Some(1), Some(2), Some(0), Some(0), None]);
    }
}
