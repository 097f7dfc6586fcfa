//! R-AQM, the receiver-side AQM of the LTE uplink (Y. Tan, MSc thesis,
//! Helsinki University of Technology, 2009).
//!
//! The eNodeB estimates the head-of-line delay of the UE's buffer from Buffer
//! Status Reports and received bytes ([`DelayEstimator`]) and drops RLC SDUs
//! when delivering them to higher layers:
//! ```text
//! if bsrSize < lowerDropThreshold: deliver
//! else if estimated_delay > minAgeThreshold and now - lastDropTime > minInterDropTime:
//!     drop; lastDropTime = now
//! else: deliver
//! ```
//! bsrSize is the queue size of the latest BSR and estimated_delay the
//! estimate made when it arrived: both are read from the eNodeB's estimator,
//! which the BSRs feed ([`Raqm::on_deliver`] takes it). Before the first drop
//! `now − lastDropTime` counts as infinite. There is no maxAgeThreshold.
//! R-AQM is not a buffer, so it has its own interface rather than
//! [`crate::queue::QueueDisc`]; in a scenario it is the `receiver` of the uplink
//! (`crate::bsr`).
//!
//! Combined AQM = R-AQM at the eNodeB plus PDCP discard with a large
//! threshold (0.8–1 s) at the UE buffer ([`crate::queue::PdcpDiscard`]): both are
//! configured, nothing else is needed.

use super::DelayEstimator;
use crate::packet::Packet;
use crate::time::{Dur, Time};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// `{ lower_drop_threshold = "60kbit", min_age = "0.2s", min_inter_drop = "0.6s" }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RaqmParams {
    /// lowerDropThreshold: no drop while the latest BSR reports less than this (60 kbit = 7500 B).
    pub lower_drop_threshold: Bytes,
    /// minAgeThreshold: drop only when the estimated delay exceeds this (0.2 s).
    pub min_age: Dur,
    /// minInterDropTime: least time between two drops (0.6 s).
    pub min_inter_drop: Dur,
}

impl Default for RaqmParams {
    fn default() -> RaqmParams {
        RaqmParams {
            lower_drop_threshold: Bytes(7500),
            min_age: Dur::from_millis(200),
            min_inter_drop: Dur::from_millis(600),
        }
    }
}

impl RaqmParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.min_age == Dur::ZERO {
            return Err(format!("{key}.min_age: must be positive"));
        }
        Ok(())
    }
}

/// What to do with an RLC SDU being delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deliver,
    Drop,
}

/// R-AQM's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RaqmStats {
    pub drops: u64,
    pub dropped_bytes: u64,
}

/// The receiver-side filter; the estimator it reads is the eNodeB's.
#[derive(Clone, Debug)]
pub struct Raqm {
    params: RaqmParams,
    last_drop: Option<Time>,
    stats: RaqmStats,
}

impl Raqm {
    pub fn new(params: &RaqmParams) -> Raqm {
        Raqm { params: params.clone(), last_drop: None, stats: RaqmStats::default() }
    }

    /// An RLC SDU `pkt` is about to be delivered to higher layers at `now`;
    /// `bsrs` is the estimator the BSRs received so far fed (its latest queue
    /// size and estimate).
    pub fn on_deliver(&mut self, now: Time, pkt: &Packet, bsrs: &DelayEstimator) -> Verdict {
        let p = &self.params;
        if bsrs.queue() < p.lower_drop_threshold.0 {
            return Verdict::Deliver;
        }
        let spaced = self.last_drop.is_none_or(|t| now.since(t) > p.min_inter_drop);
        if bsrs.estimate() > p.min_age && spaced {
            self.last_drop = Some(now);
            self.stats.drops += 1;
            self.stats.dropped_bytes += pkt.size as u64;
            Verdict::Drop
        } else {
            Verdict::Deliver
        }
    }

    pub fn stats(&self) -> RaqmStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;
    use Verdict::{Deliver, Drop};

    fn at(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    #[test]
    fn filter_decisions() {
        let (mut r, mut e) = (Raqm::new(&RaqmParams::default()), DelayEstimator::new());
        let p = pkt(1, 1500);
        // No BSR yet: bsrSize 0 < 7500 B.
        assert_eq!(r.on_deliver(at(10), &p, &e), Deliver);
        // BSR at 600 ms: 100 kB queued, nothing received: estimate 300 ms.
        assert_eq!(e.observe_at(at(600), 100_000, 0), Dur::from_millis(300));
        // 300 ms > minAge, no drop yet: drop (lastDropTime = 610 ms).
        assert_eq!(r.on_deliver(at(610), &p, &e), Drop);
        // 1200 − 610 = 590 ≤ 600 ms: deliver.
        assert_eq!(r.on_deliver(at(1200), &p, &e), Deliver);
        // 1211 − 610 = 601 > 600 ms: drop again.
        assert_eq!(r.on_deliver(at(1211), &p, &e), Drop);
        // A BSR below lowerDropThreshold (7000 B < 7500 B) blocks drops, although
        // the estimate (the head arrived in the last 700 ms: 350 ms) exceeds minAge.
        assert_eq!(e.observe_at(at(1300), 7000, 100_000), Dur::from_millis(350));
        assert_eq!(r.on_deliver(at(2000), &p, &e), Deliver);
        assert_eq!(r.stats(), RaqmStats { drops: 2, dropped_bytes: 3000 });
    }

    #[test]
    fn small_estimate_does_not_drop() {
        let (mut r, mut e) = (Raqm::new(&RaqmParams::default()), DelayEstimator::new());
        // 60 kbit exactly reported, estimate 100 ms ≤ 200 ms: deliver.
        assert_eq!(e.observe_at(at(200), 7500, 0), Dur::from_millis(100));
        assert_eq!(r.on_deliver(at(210), &pkt(1, 1500), &e), Deliver);
    }

    #[test]
    fn validation_names_the_key() {
        let p = RaqmParams { min_age: Dur::ZERO, ..RaqmParams::default() };
        assert_eq!(p.validate("enb.raqm").unwrap_err(), "enb.raqm.min_age: must be positive");
    }
}
