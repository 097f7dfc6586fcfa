//! One cell's radio resource manager, each 10 ms frame (umts-dsch-rrm.md, the
//! spec's rendering of the paper's three steps):
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
//! The caller gives the load and codes of the links the cell already carries
//! in the frame (conversational DCHs, interactive TTIs begun in the previous
//! frame) and the users asking; it keeps the credit with [`Rrm`]. A user with
//! data whose TTI does not start in the frame still earns its credit
//! ([`Rrm::accrue`]). Each check's outcome is counted for the paper's
//! acceptance ratios. Each check costs O(1) (running sums), and nothing is
//! allocated once the scratch lists have grown.

use super::checks::{Codes, Link, Load};
use super::transport_format::Tf;

/// Bits owed per frame (64 kb/s × 10 ms, the spec's credit).
pub const OWED_BITS: i64 = 640;
/// Bits a user may ask for beyond its credit, per TTI (the spec's 1280).
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

/// How the frame's checks went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub requests: u64,
    pub admitted: u64,
    pub checks: u64,
    pub codes_ok: u64,
    pub load_ok: u64,
    pub power_ok: u64,
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
            let mut tf = Some(first).filter(|t| t.sf().is_some());
            while let Some(t) = tf {
                let sf = t.sf().expect("TF1 … TF6");
                let (l, c) = (load.with(&Link { sf, eb_n0: r.eb_n0, loss: r.loss }), codes.with(sf));
                let codes_ok = c.fit();
                let load_ok = l.eta <= limits.phi;
                let power_ok = l.power(limits.noise_w) <= limits.max_power_w;
                stats.checks += 1;
                stats.codes_ok += codes_ok as u64;
                stats.load_ok += load_ok as u64;
                stats.power_ok += power_ok as u64;
                if codes_ok && load_ok && power_ok {
                    self.granted.push((r.user, t));
                    (*load, *codes) = (l, c);
                    stats.admitted += 1;
                    break;
                }
                tf = t.halved();
            }
        }
        &self.granted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::dsch::checks::{load, load_factor, transmit_power};

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
        // User 2: checks at TF4, TF3, TF2, TF1, all failing on codes only.
        assert_eq!((s.checks, s.codes_ok, s.load_ok, s.power_ok), (6, 2, 6, 6));
        // A load limit halves instead: φ just above one SF-16 link's share admits TF4, not TF6.
        let one16 = load_factor(&[Link { sf: 16, eb_n0: db(3.0), loss: 1.0 }]);
        let tight = Limits { phi: one16 * 1.01, ..open() };
        let mut rrm = Rrm::new(1);
        rrm.credit[0] = 10_000;
        let mut s = FrameStats::default();
        let g = rrm.frame(&tight, &mut Load::default(), &mut Codes::default(), &[big(0)], &mut s);
        assert_eq!(g, [(0, Tf::new(4))]);
        assert_eq!((s.checks, s.load_ok), (2, 1));
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
        assert_eq!((s.checks, s.codes_ok, s.load_ok, s.power_ok), (2, 2, 2, 1));
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
        assert_eq!((s.checks, s.load_ok), (1, 0));
    }
}
