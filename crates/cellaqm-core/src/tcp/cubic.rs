//! CUBIC congestion control (RFC 9438).
//!
//! Slow start as Reno (RFC 5681 (2)). In congestion avoidance the window
//! follows a cubic function of the time `t` since the stage began (§4.2):
//!
//! ```text
//! W_cubic(t) = C·(t − K)³ + W_max          K = ∛((W_max − cwnd_epoch) / C)
//! ```
//!
//! in segments and seconds, C = 0.4: concave below `W_max` (the window at the
//! last congestion event), convex above it (§4.4, §4.5). On each ACK the
//! window moves towards `target` = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]
//! by (target − cwnd)/cwnd segments per segment acknowledged, unless the
//! Reno-friendly estimate W_est, grown by α_cubic = 3(1 − β)/(1 + β) segments
//! per window (1 once it passes `cwnd_prior`), is above W_cubic(t): then
//! cwnd = W_est (§4.3). A congestion event sets W_max = cwnd (with fast
//! convergence (1 + β)/2·cwnd if cwnd is below the previous W_max, §4.7),
//! ssthresh = β·FlightSize with β = 0.7, and cwnd = ssthresh, at least 2 SMSS
//! after a loss and 1 SMSS after an ECN-Echo (§4.6). A timeout sets ssthresh
//! the same way and cwnd to 1 SMSS; the first congestion avoidance stage after
//! it starts with K = 0 and W_max = cwnd_epoch (§4.8). Not implemented: the
//! optional undo of spurious congestion events (§4.9) and HyStart++ (§4.10
//! allows standard slow start).
//!
//! Windows are kept in bytes as `f64` (segments × SMSS), so growth by fractions
//! of a byte per ACK accumulates; the window reported is its whole bytes.

use super::congestion::{slow_start_increase, Controller, Metrics, Signal};
use crate::time::{Dur, Time};

/// β_cubic, the multiplicative decrease factor (RFC 9438 §4.6: SHOULD be 0.7).
const BETA: f64 = 0.7;
/// C, segments per second³ (RFC 9438 §5.1: SHOULD be 0.4).
const C: f64 = 0.4;
/// α_cubic = 3(1 − β_cubic)/(1 + β_cubic) (RFC 9438 §4.3): 9/17 for β = 0.7.
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// One congestion avoidance stage (RFC 9438 §4.2's t_epoch, K and W_max, and §4.3's W_est).
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch: when the stage began.
    start: Time,
    /// K, seconds: when W_cubic reaches W_max.
    k: f64,
    /// W_max, bytes.
    w_max: f64,
    /// W_est, bytes.
    w_est: f64,
}

impl Epoch {
    /// RFC 9438 Figure 1 in bytes, `t` seconds into the stage: W_cubic(t) = C·(t − K)³·SMSS + W_max.
    fn w_cubic(&self, t: f64, mss: f64) -> f64 {
        C * (t - self.k).powi(3) * mss + self.w_max
    }
}

pub(super) struct Cubic {
    mss: f64,
    fast_convergence: bool,
    /// cwnd, bytes.
    cwnd: f64,
    ssthresh: u64,
    /// W_max, bytes: the window before the last reduction; `None` before the first.
    w_max: Option<f64>,
    /// cwnd_prior, bytes: cwnd when ssthresh was last set (§4.3's switch of α_cubic to 1).
    cwnd_prior: f64,
    /// The current congestion avoidance stage, `None` outside one (slow start, recovery).
    epoch: Option<Epoch>,
    /// The next stage is the first after a timeout (§4.8): K = 0, W_max = cwnd_epoch.
    after_timeout: bool,
    /// Smoothed RTT, the `RTT` of W_cubic(t + RTT) (§4.2); zero before the first sample.
    srtt: Dur,
}

impl Cubic {
    /// `initial_window` in segments; `fast_convergence` as RFC 9438 §4.7.
    pub fn new(mss: u64, initial_window: u32, fast_convergence: bool) -> Cubic {
        Cubic {
            mss: mss as f64,
            fast_convergence,
            cwnd: (initial_window as u64 * mss) as f64,
            ssthresh: u64::MAX, // RFC 5681 §3.1, as Reno
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            srtt: Dur::ZERO,
        }
    }

    /// Starts a congestion avoidance stage at `now` with cwnd_epoch = cwnd (§4.2, §4.3);
    /// after a timeout, or if the window already reached W_max, K = 0 and W_max = cwnd (§4.8, §4.10).
    fn start_epoch(&mut self, now: Time) -> Epoch {
        let cwnd_epoch = self.cwnd;
        let (k, w_max) = match self.w_max {
            Some(w_max) if !self.after_timeout && w_max > cwnd_epoch => {
                (((w_max - cwnd_epoch) / self.mss / C).cbrt(), w_max)
            }
            _ => {
                self.w_max = Some(cwnd_epoch);
                self.cwnd_prior = cwnd_epoch;
                (0.0, cwnd_epoch)
            }
        };
        self.after_timeout = false;
        Epoch { start: now, k, w_max, w_est: cwnd_epoch }
    }

    /// RFC 9438 §4.6: ssthresh = max(β·FlightSize, 2 SMSS); returns β·FlightSize.
    fn reduce_ssthresh(&mut self, flight: u64) -> f64 {
        let reduced = (flight as f64 * BETA).floor();
        self.ssthresh = (reduced as u64).max(2 * self.mss as u64);
        self.epoch = None;
        reduced
    }
}

impl Controller for Cubic {
    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn on_ack(&mut self, now: Time, acked: u64) {
        if self.window() < self.ssthresh {
            self.epoch = None; // slow start ends the stage (e.g. restart after idle)
            self.cwnd += slow_start_increase(acked, self.mss as u64) as f64;
            return;
        }
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let t = now.since(e.start).as_secs_f64();
        // §4.3: W_est += α_cubic · segments_acked / cwnd, α_cubic = 1 once W_est ≥ cwnd_prior.
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { ALPHA };
        e.w_est += alpha * self.mss * acked as f64 / self.cwnd;
        if e.w_cubic(t, self.mss) < e.w_est {
            // §4.3 Reno-friendly region: cwnd = W_est (never lowered by it).
            self.cwnd = self.cwnd.max(e.w_est);
        } else {
            // §4.4, §4.5: towards target by (target − cwnd)/cwnd per segment acknowledged.
            let target = e.w_cubic(t + self.srtt.as_secs_f64(), self.mss).clamp(self.cwnd, 1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) * acked as f64 / self.cwnd;
        }
        self.epoch = Some(e);
    }

    fn on_congestion(&mut self, _now: Time, flight: u64, signal: Signal) {
        // §4.7 fast convergence: a window below the last W_max releases bandwidth sooner.
        let w_max = match self.w_max {
            Some(w) if self.fast_convergence && self.cwnd < w => self.cwnd * (1.0 + BETA) / 2.0,
            _ => self.cwnd,
        };
        self.w_max = Some(w_max);
        self.cwnd_prior = self.cwnd;
        let reduced = self.reduce_ssthresh(flight);
        let floor = match signal {
            Signal::Loss => 2.0 * self.mss,
            Signal::Ecn => self.mss,
        };
        self.cwnd = reduced.max(floor);
    }

    fn on_rto(&mut self, _now: Time, flight: u64) {
        self.reduce_ssthresh(flight);
        self.cwnd = self.mss; // §4.8: as Reno, the loss window of 1 SMSS
        self.after_timeout = true;
    }

    fn set_window(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.mss as u64) as f64;
    }

    fn set_ssthresh(&mut self, bytes: u64) {
        self.ssthresh = bytes;
    }

    fn on_rtt_sample(&mut self, srtt: Dur) {
        self.srtt = srtt;
    }

    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd: self.window(),
            ssthresh: self.ssthresh,
            w_max: self.w_max.map(|w| w as u64),
            k: self.epoch.map(|e| e.k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn at(secs: f64) -> Time {
        Time::from_secs_f64(secs)
    }

    /// A sender that lost a segment with 36 segments in flight and cwnd 36 segments: W_max = 36,
    /// ssthresh = cwnd = cwnd_epoch = 0.7·36 = 25.2 segments, so K = ∛((36 − 25.2)/0.4) = ∛27 = 3 s.
    fn after_one_loss() -> Cubic {
        let mut c = Cubic::new(MSS, 36, true);
        c.ssthresh = 36 * MSS; // congestion avoidance
        c.on_congestion(Time::ZERO, 36 * MSS, Signal::Loss);
        c
    }

    #[test]
    fn a_loss_sets_w_max_to_the_window_and_ssthresh_to_beta_times_the_flight() {
        let c = after_one_loss();
        assert_eq!((c.window(), c.ssthresh()), (25_200, 25_200));
        assert_eq!(c.metrics().w_max, Some(36_000));
        assert_eq!(c.metrics().k, None, "K is set when congestion avoidance starts");
    }

    /// RFC 9438 Figure 1 at hand-computed points, W_max = 36, K = 3, C = 0.4 (segments):
    /// W(0) = 36 − 0.4·27 = 25.2 (= cwnd_epoch), W(1) = 36 − 0.4·8 = 32.8, W(2) = 36 − 0.4 = 35.6,
    /// W(3) = 36 (the plateau), W(4) = 36.4, W(5) = 36 + 0.4·8 = 39.2, W(6) = 36 + 10.8 = 46.8.
    #[test]
    fn the_window_function_at_hand_computed_points() {
        let mut c = after_one_loss();
        c.on_ack(at(10.0), MSS); // starts the stage: K
        let e = c.epoch.unwrap();
        assert!((e.k - 3.0).abs() < 1e-12, "K = {}", e.k);
        for (t, w) in [(0.0, 25.2), (1.0, 32.8), (2.0, 35.6), (3.0, 36.0), (4.0, 36.4), (5.0, 39.2), (6.0, 46.8)] {
            let got = e.w_cubic(t, MSS as f64) / MSS as f64;
            assert!((got - w).abs() < 1e-9, "W_cubic({t}) = {got}, expected {w}");
        }
    }

    /// The first ACK of the stage (t = 0, no RTT sample): W_cubic(0) = cwnd_epoch = W_est before
    /// the ACK, and the ACK grows W_est by α·MSS·MSS/cwnd = (9/17)·1000·1000/25 200 = 21.008 B, so
    /// the Reno-friendly region sets cwnd = W_est = 25 221. At t = 1 s (W_cubic(1) = 32 800 B
    /// above W_est) the cubic rule adds (32 800 − 25 221.008)·1000/25 221.008 = 300.50 B.
    #[test]
    fn reno_friendly_at_the_start_then_cubic_growth_towards_the_target() {
        let mut c = after_one_loss();
        c.on_ack(at(10.0), MSS);
        let w_est = 25_200.0 + 9.0 / 17.0 * 1e6 / 25_200.0;
        assert!((c.cwnd - w_est).abs() < 1e-9, "cwnd {} W_est {w_est}", c.cwnd);
        c.on_ack(at(11.0), MSS);
        let grown = w_est + (32_800.0 - w_est) * 1000.0 / w_est;
        assert!((c.cwnd - grown).abs() < 1e-9, "cwnd {} expected {grown}", c.cwnd);
        assert_eq!(c.window(), 25_521);
    }

    /// With SRTT = 1 s the target looks one RTT ahead: at t = 1 s, W_cubic(2) = 35 600 B. At
    /// t = 5 s, W_cubic(6) = 46 800 B exceeds 1.5·cwnd, and the target is capped there: one ACK
    /// of an MSS adds (1.5·cwnd − cwnd)·MSS/cwnd = 500 B whatever cwnd is.
    #[test]
    fn the_target_is_one_rtt_ahead_and_at_most_one_and_a_half_windows() {
        let mut c = after_one_loss();
        c.on_rtt_sample(Dur::from_secs(1));
        c.on_ack(at(10.0), MSS);
        let before = c.cwnd;
        c.on_ack(at(11.0), MSS);
        assert!((c.cwnd - (before + (35_600.0 - before) * 1000.0 / before)).abs() < 1e-9);
        let before = c.cwnd;
        c.on_ack(at(15.0), MSS);
        assert!((c.cwnd - (before + 500.0)).abs() < 1e-9, "capped: {} → {}", before, c.cwnd);
    }

    /// Concave then convex: with ACKs of one MSS every 10 ms (and SRTT 100 ms), cwnd rises fast
    /// after the loss, flattens near W_max = 36 000 B around t = K = 3 s and accelerates after.
    #[test]
    fn concave_below_w_max_and_convex_above() {
        let mut c = after_one_loss();
        c.on_rtt_sample(Dur::from_millis(100));
        let mut cwnd_at = Vec::new();
        for ms in (0..=6000).step_by(10) {
            c.on_ack(at(10.0 + ms as f64 / 1000.0), MSS);
            if ms % 1000 == 0 {
                cwnd_at.push(c.cwnd);
            }
        }
        let gains: Vec<f64> = cwnd_at.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gains[0] > gains[1] && gains[1] > gains[2], "concave: {gains:?}");
        assert!(gains[3] < gains[4] && gains[4] < gains[5], "convex: {gains:?}");
        assert!((cwnd_at[3] - 36_000.0).abs() < 1_000.0, "near W_max at K: {cwnd_at:?}");
        assert!(cwnd_at.iter().all(|&w| w >= 25_200.0));
    }

    /// In the Reno-friendly region W_est grows by α = 9/17 segments per window of ACKs while
    /// below cwnd_prior (36 000 B), by 1 once above it. A window of 36 ACKs of one MSS with cwnd
    /// held near 36 000 B adds about 9/17·1000 = 529 B, then 1000 B.
    #[test]
    fn w_est_grows_by_alpha_cubic_then_by_one_segment_per_window() {
        let mut c = after_one_loss();
        c.on_ack(at(10.0), MSS);
        let mut e = c.epoch.unwrap();
        e.w_est = 35_000.0;
        c.epoch = Some(e);
        c.cwnd = 35_000.0;
        c.on_ack(at(10.0), MSS);
        let step = c.epoch.unwrap().w_est - 35_000.0;
        assert!((step - 9.0 / 17.0 * 1e6 / 35_000.0).abs() < 1e-9, "α = 9/17 below cwnd_prior: {step}");
        let mut e = c.epoch.unwrap();
        e.w_est = 37_000.0;
        c.epoch = Some(e);
        c.cwnd = 37_000.0;
        c.on_ack(at(10.0), MSS);
        let step = c.epoch.unwrap().w_est - 37_000.0;
        assert!((step - 1e6 / 37_000.0).abs() < 1e-9, "α = 1 above cwnd_prior: {step}");
        assert!((ALPHA - 9.0 / 17.0).abs() < 1e-15);
    }

    /// RFC 9438 §4.7: a second loss at cwnd = 30 000 B < W_max = 36 000 B sets W_max =
    /// 30 000·(1 + 0.7)/2 = 25 500 B with fast convergence, 30 000 B without.
    #[test]
    fn fast_convergence_lowers_w_max_below_the_window() {
        for (fast, w_max) in [(true, 25_500), (false, 30_000)] {
            let mut c = Cubic::new(MSS, 36, fast);
            c.ssthresh = 36 * MSS;
            c.on_congestion(Time::ZERO, 36 * MSS, Signal::Loss);
            c.cwnd = 30_000.0;
            c.on_congestion(at(1.0), 30 * MSS, Signal::Loss);
            assert_eq!(c.metrics().w_max, Some(w_max), "fast convergence {fast}");
            assert_eq!(c.ssthresh(), 21_000, "ssthresh = 0.7·flight either way");
        }
    }

    /// RFC 9438 §4.6: cwnd is at least 2 SMSS after a loss, 1 SMSS after an ECN-Echo;
    /// ssthresh at least 2 SMSS after either.
    #[test]
    fn small_windows_floor_at_two_segments_after_loss_and_one_after_ecn() {
        for (signal, cwnd) in [(Signal::Loss, 2 * MSS), (Signal::Ecn, MSS)] {
            let mut c = Cubic::new(MSS, 2, true);
            c.on_congestion(Time::ZERO, MSS, signal); // β·flight = 700 B
            assert_eq!((c.window(), c.ssthresh()), (cwnd, 2 * MSS), "{signal:?}");
        }
    }

    /// RFC 9438 §4.8: a timeout sets ssthresh = 0.7·flight = 14 000 B and cwnd = 1 SMSS; slow
    /// start climbs back to ssthresh, and the stage that follows has K = 0 and W_max = cwnd_epoch
    /// (convex from the start: W_cubic(t) = 0.4·t³ segments above it).
    #[test]
    fn after_a_timeout_slow_start_then_k_zero_from_the_window_at_that_point() {
        let mut c = after_one_loss();
        c.on_rto(at(1.0), 20 * MSS);
        assert_eq!((c.window(), c.ssthresh()), (MSS, 14_000));
        let mut now = 2.0;
        while c.window() < c.ssthresh() {
            c.on_ack(at(now), MSS);
            now += 0.01;
        }
        assert_eq!(c.window(), 14_000, "slow start: one MSS per ACK");
        c.on_ack(at(now), MSS);
        let m = c.metrics();
        assert_eq!((m.k, m.w_max), (Some(0.0), Some(14_000)));
        assert!((c.epoch.unwrap().w_cubic(1.0, MSS as f64) - 14_400.0).abs() < 1e-9);
    }
}
