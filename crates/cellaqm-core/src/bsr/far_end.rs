//! The far end of a link with Buffer Status Reports: the eNodeB of the LTE
//! uplink (Tan, MSc thesis, 2009: the queue-delay estimator and R-AQM).
//!
//! It counts the bytes of every packet it receives. A packet carrying a BSR
//! first gives the queue-delay estimator ([`DelayEstimator`]) one
//! observation:
//! - Q_i: the report (bytes waiting in the UE buffer after the carrier left);
//! - L_i: the bytes received since the previous BSR's carrier, this carrier
//!   included: the study's "bytes received by the eNodeB between two BSRs",
//!   which are exactly the bytes the UE buffer sent between the two reports;
//! - Δt_i: the time since the previous BSR arrived.
//!
//! Then the receiver-side filter, if any (R-AQM, [`Raqm`]), delivers the
//! packet onwards or drops it, reading the estimator's latest queue size and
//! estimate. Without a filter the estimate is only measured.
//!
//! L_i counts what arrives, so it differs from what the UE buffer served when
//! packets are lost on the link (their reports with them) or discarded by the
//! UE's discipline (PDCP discard, T-AQM, drop-from-front): the eNodeB cannot
//! see those, and the estimate errs, as the study's does with HARQ
//! retransmissions.

use super::Report;
use super::{DelayEstimator, Raqm, ReceiverConfig, Verdict};
use crate::metrics::{BsrTrace, Histogram};
use crate::packet::Packet;
use crate::time::{Dur, Time};
use serde::Serialize;

/// How well the estimate followed the truth, over every BSR that arrived
/// (`summary.json` `bsr`). The truth is the head-of-line delay when the BSR
/// was sent; the estimate is made when it arrives.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BsrSummary {
    /// BSRs that reached the far end.
    pub reports: u64,
    /// Mean buffer occupancy they reported, bytes.
    pub mean_reported_bytes: f64,
    /// Mean estimated head-of-line delay, ms.
    pub mean_estimate_ms: f64,
    /// Mean true head-of-line delay, ms.
    pub mean_true_ms: f64,
    /// Estimate − truth, ms.
    pub error_ms: EstimateError,
}

/// Statistics of estimate − truth, ms.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EstimateError {
    /// Mean (the bias).
    pub mean: f64,
    /// Mean of the absolute error.
    pub mean_abs: f64,
    /// 95th percentile of the absolute error.
    pub p95_abs: f64,
    /// Largest absolute error.
    pub max_abs: f64,
}

/// The eNodeB's side of the BSRs.
pub struct FarEnd {
    estimator: DelayEstimator,
    /// L: bytes received since the previous BSR's carrier.
    received: u64,
    filter: Option<Raqm>,
    reported: Histogram,
    estimates: Histogram,
    truths: Histogram,
    /// Σ (estimate − truth), ns.
    error_sum: i128,
    abs_errors: Histogram,
    trace: Option<BsrTrace>,
}

impl FarEnd {
    pub fn new(receiver: Option<&ReceiverConfig>) -> FarEnd {
        FarEnd {
            estimator: DelayEstimator::new(),
            received: 0,
            filter: receiver.map(ReceiverConfig::build),
            reported: Histogram::default(),
            estimates: Histogram::default(),
            truths: Histogram::default(),
            error_sum: 0,
            abs_errors: Histogram::default(),
            trace: None,
        }
    }

    /// Keep one [`BsrTrace`] row per BSR from now on.
    pub fn record_trace(&mut self) {
        self.trace = Some(BsrTrace::default());
    }

    /// `pkt` arrives at `now` with `report` riding on it, if any: deliver it
    /// or drop it. The carrier counts in the L of its own report.
    pub fn arrived(&mut self, now: Time, pkt: &Packet, report: Option<Report>) -> Verdict {
        self.received += pkt.size as u64;
        if let Some(r) = report {
            self.observe(now, r.queue_bytes, r.true_delay);
        }
        self.judge(now, pkt)
    }

    /// A BSR reporting `queue_bytes` (as the eNodeB reads it) arrives at
    /// `now`, when the true head-of-line delay was `true_delay`: one
    /// observation of the estimator, L being the bytes delivered since the
    /// previous one. For a radio whose BSRs ride in MAC PDUs rather than with
    /// packets ([`crate::radio::ran::lte_ul`]).
    pub fn observe(&mut self, now: Time, queue_bytes: u64, true_delay: Dur) {
        let estimate = self.estimator.observe_at(now, queue_bytes, self.received);
        if let Some(t) = &mut self.trace {
            t.time_s.push(now.as_secs_f64());
            t.queue_bytes.push(queue_bytes);
            t.received_bytes.push(self.received);
            t.estimate_s.push(estimate.as_secs_f64());
            t.true_s.push(true_delay.as_secs_f64());
        }
        self.received = 0;
        self.reported.record(queue_bytes);
        self.estimates.record(estimate.0);
        self.truths.record(true_delay.0);
        self.error_sum += estimate.0 as i128 - true_delay.0 as i128;
        self.abs_errors.record(estimate.0.abs_diff(true_delay.0));
    }

    /// An SDU `pkt` is delivered in sequence at `now`: it counts in L (even
    /// if the filter drops it, our choice), then the filter judges it.
    /// The UE asked for a grant (an SR): data reported next arrived at or after `earliest`.
    pub fn requested(&mut self, earliest: Time) {
        self.estimator.arrivals_from(earliest);
    }

    pub fn deliver(&mut self, now: Time, pkt: &Packet) -> Verdict {
        self.received += pkt.size as u64;
        self.judge(now, pkt)
    }

    fn judge(&mut self, now: Time, pkt: &Packet) -> Verdict {
        match &mut self.filter {
            Some(f) => f.on_deliver(now, pkt, &self.estimator),
            None => Verdict::Deliver,
        }
    }

    pub fn summary(&self) -> BsrSummary {
        let ms = |ns: f64| ns / 1e6;
        let n = self.reported.count();
        BsrSummary {
            reports: n,
            mean_reported_bytes: self.reported.mean(),
            mean_estimate_ms: ms(self.estimates.mean()),
            mean_true_ms: ms(self.truths.mean()),
            error_ms: EstimateError {
                mean: if n == 0 { 0.0 } else { ms(self.error_sum as f64 / n as f64) },
                mean_abs: ms(self.abs_errors.mean()),
                p95_abs: ms(self.abs_errors.quantile(0.95) as f64),
                max_abs: ms(self.abs_errors.max() as f64),
            },
        }
    }

    /// The rows recorded since [`FarEnd::record_trace`].
    pub fn take_trace(&mut self) -> Option<BsrTrace> {
        self.trace.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bsr::RaqmParams;
    use crate::queue::testkit::pkt;
    use crate::units::Bytes;

    fn ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    fn report(carrier: u64, queue_bytes: u64, true_ms: u64) -> Option<Report> {
        Some(Report { carrier, queue_bytes, true_delay: Dur::from_millis(true_ms) })
    }

    /// The study's worked example through the far end (Δt_1 = 20 ms, Δt_2 =
    /// 40 ms, L_2 < Q_1: D_1 = 10 ms, D_2 = 40 + 20/4 = 45 ms), with L counted
    /// from the packets received, and R-AQM judging each packet after the
    /// report it carries has updated the estimate.
    #[test]
    fn reports_and_received_bytes_feed_the_estimator_then_the_filter_judges() {
        let raqm = RaqmParams {
            lower_drop_threshold: Bytes(1000),
            min_age: Dur::from_millis(20),
            min_inter_drop: Dur::from_millis(600),
        };
        let mut f = FarEnd::new(Some(&ReceiverConfig::Raqm(raqm)));
        f.record_trace();
        // 20 ms: packet 1 (1000 B) with Q_1 = 3000 B: L_1 = 1000, D_1 = 10 ms ≤ 20 ms.
        assert_eq!(f.arrived(ms(20), &pkt(1, 1000), report(1, 3000, 12)), Verdict::Deliver);
        // Packet 2 carries nothing: counted in L_2.
        assert_eq!(f.arrived(ms(40), &pkt(2, 1000), None), Verdict::Deliver);
        // 60 ms: packet 3 with Q_2 = 4000 B: L_2 = 2000 < Q_1, D_2 = 45 ms > 20 ms: dropped.
        assert_eq!(f.arrived(ms(60), &pkt(3, 1000), report(3, 4000, 50)), Verdict::Drop);
        // 70 ms: the previous drop only 10 ms ago.
        assert_eq!(f.arrived(ms(70), &pkt(4, 1000), None), Verdict::Deliver);
        let t = f.take_trace().unwrap();
        assert_eq!(t.time_s, [0.02, 0.06]);
        assert_eq!(t.queue_bytes, [3000, 4000]);
        assert_eq!(t.received_bytes, [1000, 2000]);
        assert_eq!(t.estimate_s, [0.01, 0.045]);
        assert_eq!(t.true_s, [0.012, 0.05]);
        // Errors −2 ms and −5 ms.
        let s = f.summary();
        assert_eq!((s.reports, s.mean_reported_bytes, s.mean_estimate_ms, s.mean_true_ms), (2, 3500.0, 27.5, 31.0));
        assert_eq!((s.error_ms.mean, s.error_ms.mean_abs, s.error_ms.max_abs), (-3.5, 3.5, 5.0));
    }

    #[test]
    fn without_a_filter_everything_is_delivered_and_the_estimate_measured() {
        let mut f = FarEnd::new(None);
        assert_eq!(f.arrived(ms(600), &pkt(1, 1500), report(1, 100_000, 300)), Verdict::Deliver);
        assert_eq!(f.summary().mean_estimate_ms, 300.0);
        assert_eq!(f.take_trace(), None);
    }
}
