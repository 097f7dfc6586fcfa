//! One cell's radio resource manager, each 10 ms frame (the DSCH study, Ferrús et al.; our
//! rendering of its three steps):
//!
//! ```text
//! 1 capacity: for each interactive user i with data
//!       SCr_i += 640 − bits sent to i in the previous frame      (64 kb/s owed, in bits per frame)
//!       want_i = min(buffer_i, 1280 + max(0, SCr_i))             (bits per 20 ms TTI)
//!       TF_i   = the lowest TF carrying want_i, at most TF6
//! 2 priority: conversational users first (always served), then interactive by SCr, largest first
//! 3 availability, interactive users in that order:
//!       admit i at TF_i if codes fit (Kraft, ≤ 16 users), η ≤ φ and P_T ≤ δ·P_max,
//!       counting the links already carried and admitted; else halve TF_i and check again;
//!       below TF1, i waits for the next frame
//! ```
//!
//! Acceptance is counted as the study's Table 3 reads it, per request: a
//! request is accepted when it is transmitted in the frame at any TF;
//! otherwise it was refused by the check that failed at its last chance
//! (TF1), the first failing one in the study's order (a) codes, (b) load,
//! (c) power. Each check's acceptance is 1 − the share of requests it
//! refused, so that the DSCH acceptance is 1 − the sum of the refusals.
//!
//! The caller gives the load and codes of the links the cell already carries
//! in the frame (conversational DCHs, interactive TTIs begun in the previous
//! frame) and the users asking; it keeps the credit with [`Rrm`]. A user with
//! data whose TTI does not start in the frame still earns its credit
//! ([`Rrm::accrue`]). Each check costs O(1) (running sums), and nothing is
//! allocated once the scratch lists have grown.

use super::checks::{Codes, Link, Load};
use super::transport_format::Tf;

/// Bits owed per frame (the study's 64 kb/s × 10 ms).
pub const OWED_BITS: i64 = 640;
/// Bits a user may ask for beyond its credit, per TTI (our choice: 1280).
pub const BASE_BITS: i64 = 1280;

/// The manager's limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// φ: the highest load factor interactive traffic may bring the cell to.
    pub phi: f64,
    /// δ · P_max, W (the paper: δ = 100 %, P_max = 43 dBm = 20 W).
    pub max_power_w: f64,
    /// Noise P_N, W.
    pub noise_w: f64,
}

/// An interactive user asking for the DSCH this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    pub user: usize,
    pub buffer_bits: u64,
    pub sent_last_frame_bits: u64,
    /// Its Eb/N0 target (linear) and path loss (linear).
    pub eb_n0: f64,
    pub loss: f64,
}

/// The availability checks, in the study's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Codes = 0,
    Load = 1,
    Power = 2,
}

/// How the frame's requests went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Requests, and those transmitted in the frame (at any TF).
    pub requests: u64,
    pub admitted: u64,
    /// Availability checks made (one per TF tried: each halving is one more).
    pub checks: u64,
    /// Requests refused, by the check that refused them ([`Check`] order).
    pub refused: [u64; 3],
}

/// The check that refuses a transmission bringing the cell to `load` and
/// `codes`: the first failing one in the study's order (codes, load,
/// power); `None` when all pass. P_T is evaluated only where the load check
/// passed and η < 1, where it is finite: at η ≥ 1 no power serves the links,
/// and the load check is the one that refuses them (φ ≤ 1).
pub fn refusal(limits: &Limits, load: &Load, codes: &Codes) -> Option<Check> {
    if !codes.fit() {
        Some(Check::Codes)
    } else if load.eta > limits.phi || load.eta >= 1.0 {
        Some(Check::Load)
    } else if load.power(limits.noise_w) > limits.max_power_w {
        Some(Check::Power)
    } else {
        None
    }
}

/// The service credits of the interactive users, and the frame's scratch lists.
#[derive(Clone, Debug)]
pub struct Rrm {
    credit: Vec<i64>,
    asks: Vec<(Request, Tf)>,
    granted: Vec<(usize, Tf)>,
}

impl Rrm {
    pub fn new(users: usize) -> Rrm {
        Rrm { credit: vec![0; users], asks: Vec::new(), granted: Vec::new() }
    }

    pub fn credit(&self, user: usize) -> i64 {
        self.credit[user]
    }

    /// A frame's credit for a user with data that does not ask in it: 640 bits
    /// owed less what it was sent in the previous frame.
    pub fn accrue(&mut self, user: usize, sent_last_frame_bits: u64) {
        self.credit[user] += OWED_BITS - sent_last_frame_bits as i64;
    }

    /// Forgets user `user`'s credit (its buffer ran dry, or it is a new user).
    pub fn reset(&mut self, user: usize) {
        self.credit[user] = 0;
    }

    /// One frame of a cell: the TFs granted to `requests` (in priority
    /// order), given the `load` and `codes` of the links already carried;
    /// these grow by what is admitted.
    pub fn frame(
        &mut self,
        limits: &Limits,
        load: &mut Load,
        codes: &mut Codes,
        requests: &[Request],
        stats: &mut FrameStats,
    ) -> &[(usize, Tf)] {
        // 1. Capacity requirement from the credit.
        self.asks.clear();
        for r in requests {
            self.accrue(r.user, r.sent_last_frame_bits);
            let want = r.buffer_bits.min((BASE_BITS + self.credit[r.user].max(0)) as u64);
            self.asks.push((*r, Tf::for_bits(want)));
        }
        // 2. Priority: the most credit first (ties: the lower user index).
        let credit = &self.credit;
        self.asks.sort_unstable_by(|a, b| credit[b.0.user].cmp(&credit[a.0.user]).then(a.0.user.cmp(&b.0.user)));
        // 3. Availability, halving the rate until it fits.
        self.granted.clear();
        stats.requests += self.asks.len() as u64;
        for &(r, first) in &self.asks {
            let mut tf = first;
            loop {
                let sf = tf.sf().expect("a request asks for TF1 … TF6");
                let (l, c) = (load.with(&Link { sf, eb_n0: r.eb_n0, loss: r.loss }), codes.with(sf));
                stats.checks += 1;
                let Some(check) = refusal(limits, &l, &c) else {
                    self.granted.push((r.user, tf));
                    (*load, *codes) = (l, c);
                    stats.admitted += 1;
                    break;
                };
                match tf.halved() {
                    Some(t) => tf = t,
                    None => {
                        stats.refused[check as usize] += 1;
                        break;
                    }
                }
            }
        }
        &self.granted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::ran::dsch::checks::{load, load_factor, transmit_power};

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    fn ask(user: usize, buffer_bits: u64, sent: u64) -> Request {
        Request { user, buffer_bits, sent_last_frame_bits: sent, eb_n0: db(3.0), loss: db(110.0) }
    }

    fn open() -> Limits {
        Limits { phi: 1.0, max_power_w: 20.0, noise_w: 1e-3 * db(-99.0) }
    }

    /// Credits: a user sent nothing last frame owes 640 more bits; it may ask
    /// for 1280 + credit bits; the one with the most credit goes first.
    #[test]
    fn credit_sets_the_format_and_the_order() {
        let mut rrm = Rrm::new(3);
        let mut s = FrameStats::default();
        // Frame 1: credits 640 each; want min(buffer, 1280 + 640 = 1920): TF4 (TF3 carries only 1280);
        // user 1's 500 bits: TF2.
        let reqs = [ask(0, 100_000, 0), ask(1, 500, 0), ask(2, 100_000, 0)];
        let g = rrm.frame(&open(), &mut Load::default(), &mut Codes::default(), &reqs, &mut s);
        assert_eq!(g, [(0, Tf::new(4)), (1, Tf::new(2)), (2, Tf::new(4))]);
        // Frame 2: user 0 got 2560 bits last frame (credit 640 + 640 − 2560 = −1280),
        // user 2 sent nothing (credit 1280): user 2 first, at min(∞, 1280 + 1280) = 2560 → TF4.
        let reqs = [ask(0, 100_000, 2560), ask(2, 100_000, 0)];
        let g = rrm.frame(&open(), &mut Load::default(), &mut Codes::default(), &reqs, &mut s);
        assert_eq!(g, [(2, Tf::new(4)), (0, Tf::new(3))]);
        assert_eq!((rrm.credit(0), rrm.credit(2)), (-1280, 1280));
        assert_eq!((s.requests, s.admitted, s.checks), (5, 5, 5));
    }

    /// Codes: two users at SF 8 fill the DSCH quarter; a third user (credit
    /// 640: 1920 bits, TF4) is halved TF4 (SF 16) … TF1 (SF 128) and still refused: it waits.
    #[test]
    fn halving_until_it_fits_or_waiting() {
        let mut rrm = Rrm::new(3);
        let mut s = FrameStats::default();
        let big = |u| Request { buffer_bits: 1 << 20, sent_last_frame_bits: 0, ..ask(u, 0, 0) };
        rrm.credit[0] = 10_000;
        rrm.credit[1] = 9_000;
        let mut codes = Codes::default();
        let g = rrm.frame(&open(), &mut Load::default(), &mut codes, &[big(0), big(1), big(2)], &mut s);
        assert_eq!(g, [(0, Tf::MAX), (1, Tf::MAX)]);
        assert_eq!((codes.users, codes.share), (2, 0.25));
        // User 2: checks at TF4, TF3, TF2, TF1, all failing on codes: one request refused by codes.
        assert_eq!((s.requests, s.admitted, s.checks, s.refused), (3, 2, 6, [1, 0, 0]));
        // A load limit halves instead: φ just above one SF-16 link's share admits TF4, not TF6.
        let one16 = load_factor(&[Link { sf: 16, eb_n0: db(3.0), loss: 1.0 }]);
        let tight = Limits { phi: one16 * 1.01, ..open() };
        let mut rrm = Rrm::new(1);
        rrm.credit[0] = 10_000;
        let mut s = FrameStats::default();
        let g = rrm.frame(&tight, &mut Load::default(), &mut Codes::default(), &[big(0)], &mut s);
        assert_eq!(g, [(0, Tf::new(4))]);
        assert_eq!((s.checks, s.admitted, s.refused), (2, 1, [0, 0, 0]), "admitted after halving: accepted");
    }

    /// A power limit halves too: a user 150 dB away needs at TF4 (SF 16)
    /// P_N/(1 − η)·L/(16/1.995 + 0.6) = 1.259e-13/(1 − 0.139)·1e15/8.62 ≈ 17.0 W;
    /// with 10 W allowed TF4 fails on power alone and TF3 (SF 32, ≈ 8.2 W) is admitted.
    #[test]
    fn power_halves_the_rate() {
        let far = Request { user: 0, buffer_bits: 1 << 20, sent_last_frame_bits: 0, eb_n0: db(3.0), loss: db(150.0) };
        let mut rrm = Rrm::new(1);
        let mut s = FrameStats::default();
        let limits = Limits { max_power_w: 10.0, ..open() };
        let g = rrm.frame(&limits, &mut Load::default(), &mut Codes::default(), &[far], &mut s);
        assert_eq!(g, [(0, Tf::new(3))]);
        assert_eq!((s.checks, s.admitted, s.refused), (2, 1, [0, 0, 0]));
        let one = |sf| transmit_power(&[Link { sf, eb_n0: db(3.0), loss: db(150.0) }], open().noise_w);
        assert!((one(16) - 17.0).abs() < 0.1 && (one(32) - 8.2).abs() < 0.1, "{} {}", one(16), one(32));
    }

    /// Conversational links the cell already carries count in η and P_T.
    #[test]
    fn carried_links_count() {
        let conv = Link { sf: 32, eb_n0: db(5.0), loss: db(120.0) };
        let eta = load_factor(&[conv; 5]);
        let limits = Limits { phi: eta + 0.01, ..open() };
        let mut rrm = Rrm::new(1);
        let mut s = FrameStats::default();
        assert!(rrm.frame(&limits, &mut load(&[conv; 5]), &mut Codes::default(), &[ask(0, 300, 0)], &mut s).is_empty());
        assert_eq!((s.checks, s.refused), (1, [0, 1, 0]));
    }

    /// Acceptance per request, by the check that refused it (hand-worked).
    /// Interactive links at 3 dB add to η: SF 8 1.2/4.6094 = 0.26034, SF 16
    /// 1.2/8.6189 = 0.13923, SF 32 1.2/16.638 = 0.072124, SF 64 1.2/32.676 =
    /// 0.036725, SF 128 1.2/64.751 = 0.018533; a 5 dB SF 32 call 1.2/10.719 = 0.111948.
    ///
    /// Frame A: the DSCH codes are full (Σ 1/SF = 1/4): a 300-bit request
    /// (TF1) is refused by codes. Frame B: φ = 0.51, P_max 3 W, 4 calls
    /// carried (η 0.44779, at 0 dB: no power to speak of):
    /// - user 0 (credit 9 000: TF6): η 0.708, 0.587 (TF4), 0.520 (TF3) > φ,
    ///   0.48452 at TF2 ≤ φ, P_T ≈ 7e-4 W: admitted at TF2 after 4 checks;
    /// - user 1 (credit 8 000, 300 bits: TF1, 150 dB): η 0.50305 ≤ φ but
    ///   P_T = P_N/(1 − 0.50305) · (1e11/32.676 + 1e15/64.751) = 3.91 W > 3 W: refused by power;
    /// - user 2 (credit 7 000, TF1, 110 dB): η 0.50305, P_T ≈ 1.2e-3 W: admitted;
    /// - user 3 (credit 6 000, TF1): η 0.52158 > φ: refused by load.
    ///
    /// Requests 5, accepted 2, checks 8; refused codes 1, load 1, power 1:
    /// DSCH acceptance 2/5 = 1 − 3/5.
    #[test]
    fn acceptance_per_request_by_the_refusing_check() {
        let req = |u, bits, loss_db| Request {
            user: u,
            buffer_bits: bits,
            sent_last_frame_bits: 0,
            eb_n0: db(3.0),
            loss: db(loss_db),
        };
        let mut s = FrameStats::default();
        let mut rrm = Rrm::new(4);
        let mut full = Codes::default().with(8).with(8);
        assert!(rrm.frame(&open(), &mut Load::default(), &mut full, &[req(0, 300, 110.0)], &mut s).is_empty());
        assert_eq!((s.requests, s.admitted, s.checks, s.refused), (1, 0, 1, [1, 0, 0]));
        let call = Link { sf: 32, eb_n0: db(5.0), loss: 1.0 };
        let mut carried = load(&[call; 4]);
        assert!((carried.eta - 0.44779).abs() < 1e-5, "{}", carried.eta);
        let limits = Limits { phi: 0.51, max_power_w: 3.0, ..open() };
        rrm.credit = vec![9_000, 8_000, 7_000, 6_000];
        let reqs = [req(0, 1 << 20, 110.0), req(1, 300, 150.0), req(2, 300, 110.0), req(3, 300, 110.0)];
        let g = rrm.frame(&limits, &mut carried, &mut Codes::default(), &reqs, &mut s).to_vec();
        assert_eq!(g, [(0, Tf::new(2)), (2, Tf::new(1))]);
        assert_eq!((s.requests, s.admitted, s.checks, s.refused), (5, 2, 8, [1, 1, 1]));
        assert!((carried.eta - 0.50305).abs() < 1e-5, "{}", carried.eta);
    }

    /// P_T = P_N/(1 − η) · Σ L/d grows without bound as η → 1: it is
    /// evaluated only below η = 1, and a link set at η ≥ 1 is refused by the
    /// load check even at φ = 100 %. Three SF 8 and three SF 32 links at 3 dB,
    /// 110 dB: η = 3 · 0.260332 + 3 · 0.072124 = 0.997368, P_T = 1.2589e-13 /
    /// 0.002632 · 3e11 · (1/4.6095 + 1/16.638) = 3.976 W; one SF 128 link more: η 1.0159.
    #[test]
    fn the_power_check_is_guarded_near_eta_1() {
        let link = |sf| Link { sf, eb_n0: db(3.0), loss: db(110.0) };
        let near = load(&[link(8), link(8), link(8), link(32), link(32), link(32)]);
        assert!((near.eta - 0.997368).abs() < 1e-6, "{}", near.eta);
        let p = near.power(open().noise_w);
        assert!((p - 3.976).abs() < 0.002, "{p}");
        let at_100 = Limits { phi: 1.0, max_power_w: 20.0, ..open() };
        let codes = Codes::default();
        assert_eq!(refusal(&at_100, &near, &codes), None);
        assert_eq!(refusal(&Limits { max_power_w: 3.0, ..at_100 }, &near, &codes), Some(Check::Power));
        let over = near.with(&link(128));
        assert!(over.eta > 1.0 && over.power(open().noise_w).is_infinite());
        assert_eq!(refusal(&at_100, &over, &codes), Some(Check::Load), "η ≥ 1: the load, not the power");
    }
}
