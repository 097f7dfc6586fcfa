//! The BSR-based head-of-line queue-delay estimator of R-AQM (Y. Tan, "Active
//! Queue Management for LTE uplink in eNodeB", MSc thesis, Helsinki
//! University of Technology, 2009).
//!
//! The eNodeB cannot see the UE's queue; at each observation i (a BSR) it
//! knows the queue length Q_i, the bytes L_i received since the previous
//! observation and the interval Δt_i. The arrivals in the interval are
//! R_i = Q_i + L_i − Q_{i−1} (taken as 0 if negative).
//!
//! Definition used here (our reading of the thesis's prose): the estimator keeps *boundaries*
//! between arrival intervals, each with its position (bytes that arrived
//! after it) and its age. At an observation every boundary ages by Δt and
//! moves back by R_i; a new boundary of age 0 marks the tail. The head byte
//! lies between the newest boundary at or beyond position Q_i (older) and the
//! next newer one; arrivals being uniform within an interval, the estimate is
//! the mean of those two ages. Boundaries beyond the head are dropped as
//! served, and the head itself becomes a boundary at position Q_i with the
//! estimated age, so later estimates refine this one. Q_i = 0 resets to an
//! empty queue. This reproduces the worked examples: D_1 = Δt_1/2;
//! D_2 = Δt_2 + Δt_1/4 if L_2 < Q_1, D_2 = Δt_2/2 if L_2 ≥ Q_1.
//!
//! After an empty report the next arrivals are taken as uniform from that
//! report on; [`DelayEstimator::arrivals_from`] narrows this interval when
//! the eNodeB learns more: an LTE UE whose data reaches an empty buffer asks
//! for a grant with a Scheduling Request at its next SR opportunity, so the
//! SR bounds when that data arrived (*our choice*, off with `sr_bounds_estimate =
//! false`: after an idle spell of length T the first report would otherwise
//! read T/2, and R-AQM without lowerDropThreshold drops the retransmission
//! that ends a timeout, again after every backed-off timeout).

use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// A boundary between two arrival intervals.
#[derive(Clone, Copy, Debug)]
struct Boundary {
    /// Cumulative bytes arrived before it (its position is `arrived − mark`).
    mark: u64,
    /// Its birth on the estimator's clock (its age is `clock − born`).
    born: Dur,
}

/// Head-of-line delay estimator fed by (Q, L, Δt) observations; no simulator needed.
///
/// ```
/// use cellaqm_core::bsr::DelayEstimator;
/// use cellaqm_core::time::Dur;
/// let mut e = DelayEstimator::new();
/// // 20 ms after an empty report, 5000 B are queued and nothing was received.
/// assert_eq!(e.observe(5000, 0, Dur::from_millis(20)), Dur::from_millis(10));
/// ```
#[derive(Clone, Debug)]
pub struct DelayEstimator {
    /// Oldest first; the front is at or beyond the head, the back is the tail.
    boundaries: VecDeque<Boundary>,
    /// The intervals observed so far, summed: the time of the latest
    /// observation, counted from the (empty) start.
    clock: Dur,
    arrived: u64,
    q_old: u64,
    estimate: Dur,
}

impl Default for DelayEstimator {
    fn default() -> DelayEstimator {
        DelayEstimator::new()
    }
}

impl DelayEstimator {
    /// An estimator that starts from an empty queue (Q_0 = 0).
    pub fn new() -> DelayEstimator {
        let mut boundaries = VecDeque::new();
        boundaries.push_back(Boundary { mark: 0, born: Dur::ZERO });
        DelayEstimator { boundaries, clock: Dur::ZERO, arrived: 0, q_old: 0, estimate: Dur::ZERO }
    }

    /// An observation: `queue` bytes queued (the BSR), `served` bytes received
    /// since the previous observation, `dt` since it. Returns the estimated
    /// head-of-line delay.
    pub fn observe(&mut self, queue: u64, served: u64, dt: Dur) -> Dur {
        self.clock += dt;
        if queue == 0 {
            self.boundaries.clear();
            self.boundaries.push_back(Boundary { mark: self.arrived, born: self.clock });
            self.q_old = 0;
            self.estimate = Dur::ZERO;
            return self.estimate;
        }
        self.arrived += (queue + served).saturating_sub(self.q_old);
        self.boundaries.push_back(Boundary { mark: self.arrived, born: self.clock });
        let pos = |b: &Boundary| self.arrived - b.mark;
        // Drop the boundaries served past: keep the newest one at or beyond the head.
        while pos(&self.boundaries[1]) >= queue {
            self.boundaries.pop_front();
        }
        let age = |b: &Boundary| self.clock - b.born;
        self.estimate = Dur((age(&self.boundaries[0]).0 + age(&self.boundaries[1]).0) / 2);
        // The head becomes the oldest boundary, with the estimated age.
        self.boundaries[0] = Boundary { mark: self.arrived - queue, born: self.clock - self.estimate };
        self.q_old = queue;
        self.estimate
    }

    /// An observation at simulated time `now`: Δt is the time since the
    /// previous one (or since time zero, where the estimator starts from an
    /// empty queue). `now` must not go back.
    pub fn observe_at(&mut self, now: Time, queue: u64, served: u64) -> Dur {
        let dt = now.since(Time::ZERO + self.clock);
        self.observe(queue, served, dt)
    }

    /// After an empty report, the data reported next arrived at or after
    /// `earliest` (on the clock of [`DelayEstimator::observe_at`]): the empty
    /// queue's boundary is born no earlier. No effect while data is queued.
    pub fn arrivals_from(&mut self, earliest: Time) {
        if self.q_old == 0 {
            let back = self.boundaries.back_mut().expect("an empty queue keeps its boundary");
            back.born = back.born.max(earliest.since(Time::ZERO));
        }
    }

    /// The latest estimate.
    pub fn estimate(&self) -> Dur {
        self.estimate
    }

    /// The queue length of the latest observation, bytes.
    pub fn queue(&self) -> u64 {
        self.q_old
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    const DT1: Dur = Dur::from_millis(20);
    const DT2: Dur = Dur::from_millis(40);

    /// An SR at 1000 ms bounds the arrival of data after an empty report at
    /// 100 ms: the next report at 1020 ms estimates (1020 − 990)/2 = 15 ms with
    /// the bound (SR period 10 ms), 460 ms without.
    #[test]
    fn an_sr_bounds_the_arrivals_after_an_empty_report() {
        let at = |ms: u64| Time::ZERO + Dur::from_millis(ms);
        let (mut bounded, mut plain) = (DelayEstimator::new(), DelayEstimator::new());
        for e in [&mut bounded, &mut plain] {
            e.observe_at(at(50), 3000, 0);
            e.observe_at(at(100), 0, 3000);
        }
        bounded.arrivals_from(at(990));
        assert_eq!(bounded.observe_at(at(1020), 1500, 0), Dur::from_millis(15));
        assert_eq!(plain.observe_at(at(1020), 1500, 0), Dur::from_millis(460));
        // With data queued the bound does not apply: the head (15 ms old at
        // 1020 ms) and the 1020 ms boundary bracket it, (35 + 20)/2 = 27.5 ms.
        bounded.arrivals_from(at(1030));
        assert_eq!(bounded.observe_at(at(1040), 1500, 0), Dur::from_micros(27_500));
    }

    #[test]
    fn first_observation_is_half_the_interval() {
        // Q_0 = 0; Q_1 = 3000 B after Δt_1 with nothing served: D_1 = Δt_1/2.
        let mut e = DelayEstimator::new();
        assert_eq!(e.observe(3000, 0, DT1), Dur::from_millis(10));
    }

    #[test]
    fn second_observation_with_interval_one_data_left() {
        // L_2 = 1000 < Q_1 = 3000: the head is still in interval 1's data.
        // D_2 = Δt_2 + Δt_1/4 = 40 + 5 = 45 ms.
        let mut e = DelayEstimator::new();
        e.observe(3000, 0, DT1);
        assert_eq!(e.observe(4000, 1000, DT2), Dur::from_millis(45));
    }

    #[test]
    fn second_observation_with_interval_one_served() {
        // L_2 = 3500 > Q_1 = 3000: all of interval 1 was served. D_2 = Δt_2/2 = 20 ms.
        let mut e = DelayEstimator::new();
        e.observe(3000, 0, DT1);
        assert_eq!(e.observe(2000, 3500, DT2), Dur::from_millis(20));
    }

    #[test]
    fn observations_at_times_take_the_intervals_between_them() {
        // The worked example D_2 = Δt_2 + Δt_1/4 with BSRs at 20 ms and 60 ms.
        let mut e = DelayEstimator::new();
        assert_eq!(e.observe_at(Time(20_000_000), 3000, 0), Dur::from_millis(10));
        assert_eq!(e.observe_at(Time(60_000_000), 4000, 1000), Dur::from_millis(45));
    }

    #[test]
    fn empty_report_resets() {
        let mut e = DelayEstimator::new();
        e.observe(3000, 0, DT1);
        assert_eq!(e.observe(0, 3000, DT1), Dur::ZERO);
        // Starts afresh: as a first observation.
        assert_eq!(e.observe(800, 0, DT2), Dur::from_millis(20));
    }

    /// A synthetic fluid queue in 1 ms steps: arrivals at 1.5 Mb/s for 2 s,
    /// then 0.5 Mb/s; service 1 Mb/s; a BSR every 20 ms. The true head-of-line
    /// delay (age of the oldest queued byte) reaches 2000/3 ≈ 667 ms at 2 s;
    /// the estimate stays within 10 ms (half a BSR period) of it at every BSR
    /// (the largest error seen is 9 ms).
    #[test]
    fn tracks_the_true_head_of_line_delay() {
        let mut chunks: VecDeque<(u64, u64)> = VecDeque::new(); // (arrival ms, bytes)
        let mut e = DelayEstimator::new();
        let (mut served_since_bsr, mut max_err, mut max_true) = (0u64, 0.0f64, 0.0f64);
        for ms in 1..=5000u64 {
            let arrive = if ms <= 2000 { 187 + (ms % 2) } else { 62 + (ms % 2) }; // 187.5 / 62.5 B per ms
            chunks.push_back((ms, arrive));
            let mut budget = 125u64; // 1 Mb/s
            while budget > 0 {
                let Some(front) = chunks.front_mut() else { break };
                let take = front.1.min(budget);
                front.1 -= take;
                budget -= take;
                served_since_bsr += take;
                if front.1 == 0 {
                    chunks.pop_front();
                }
            }
            if ms % 20 == 0 {
                let q: u64 = chunks.iter().map(|c| c.1).sum();
                let est = e.observe(q, served_since_bsr, Dur::from_millis(20)).as_millis_f64();
                served_since_bsr = 0;
                let truth = chunks.front().map_or(0.0, |c| (ms - c.0) as f64);
                max_err = max_err.max((est - truth).abs());
                max_true = max_true.max(truth);
            }
        }
        assert!(max_true > 600.0, "the queue built up: {max_true} ms");
        assert!(max_err <= 10.0, "estimate off by {max_err} ms");
    }
}
