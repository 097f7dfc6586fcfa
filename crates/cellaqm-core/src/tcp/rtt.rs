//! Retransmission timeout estimation (RFC 6298).
//!
//! SRTT and RTTVAR follow each RTT sample with gains 1/8 and 1/4; the timeout
//! is SRTT + K·RTTVAR (K = 4, clock granularity G taken as 0), clamped to the
//! configured minimum and maximum — or, with `rto_formula = "linux"`, SRTT +
//! max(K·RTTVAR, minimum), as Linux keeps its variance term (`rttvar`) at least
//! `tcp_rto_min` (its per-round-trip peak holding of the deviation is not
//! modelled). Each expiry doubles it (back-off) until the next valid sample
//! recomputes it.

use super::RtoFormula;
use crate::time::Dur;

pub(super) struct RttEstimator {
    /// Samples taken so far, and the last one (for traces).
    samples: u64,
    last: Option<Dur>,
    srtt: Option<Dur>,
    rttvar: Dur,
    rto: Dur,
    min: Dur,
    max: Dur,
    formula: RtoFormula,
}

impl RttEstimator {
    pub fn new(initial: Dur, min: Dur, max: Dur, formula: RtoFormula) -> RttEstimator {
        // RFC 6298 (2.1): RTO before any sample.
        RttEstimator {
            samples: 0,
            last: None,
            srtt: None,
            rttvar: Dur::ZERO,
            rto: initial.clamp(min, max),
            min,
            max,
            formula,
        }
    }

    /// Takes one RTT measurement `r` (which must not come from an ambiguous retransmission).
    pub fn sample(&mut self, r: Dur) {
        self.samples += 1;
        self.last = Some(r);
        let srtt = match self.srtt {
            // RFC 6298 (2.2): SRTT = R, RTTVAR = R/2.
            None => {
                self.rttvar = Dur(r.0 / 2);
                r
            }
            // RFC 6298 (2.3): RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT = 7/8 SRTT + 1/8 R.
            Some(srtt) => {
                self.rttvar = Dur((3 * self.rttvar.0 + srtt.0.abs_diff(r.0)) / 4);
                Dur((7 * srtt.0 + r.0) / 8)
            }
        };
        self.srtt = Some(srtt);
        // RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, K*RTTVAR) with G = 0, K = 4;
        // (2.4)/(2.5): clamped to [min, max]. A new sample also ends any back-off (5.5).
        self.rto = match self.formula {
            RtoFormula::Rfc => (srtt + self.rttvar * 4).clamp(self.min, self.max),
            RtoFormula::Linux => (srtt + (self.rttvar * 4).max(self.min)).min(self.max),
        };
    }

    /// RFC 6298 (5.5): the timer expired, double the timeout (up to the maximum).
    pub fn back_off(&mut self) {
        self.rto = (self.rto * 2).min(self.max);
    }

    pub fn rto(&self) -> Dur {
        self.rto
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    /// The estimator's state for traces: samples so far, the last one, SRTT, RTTVAR and the RTO.
    pub fn metrics(&self) -> RttMetrics {
        RttMetrics {
            samples: self.samples,
            last_sample: self.last,
            srtt: self.srtt,
            rttvar: self.rttvar,
            rto: self.rto,
        }
    }
}

/// A TCP sender's RTT estimator at one moment (see [`RttEstimator::metrics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttMetrics {
    /// RTT samples taken so far.
    pub samples: u64,
    pub last_sample: Option<Dur>,
    pub srtt: Option<Dur>,
    /// RTTVAR (0 before the first sample).
    pub rttvar: Dur,
    /// The retransmission timeout, back-off included.
    pub rto: Dur,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }

    #[test]
    fn follows_rfc_6298_formulas() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000), RtoFormula::Rfc);
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100));
        // SRTT 100, RTTVAR 50, RTO 100 + 200 = 300.
        assert_eq!((e.srtt(), e.rto()), (Some(ms(100)), ms(300)));
        e.sample(ms(200));
        // RTTVAR = 37.5 + 25 = 62.5, SRTT = 87.5 + 25 = 112.5, RTO = 112.5 + 250.
        assert_eq!(e.srtt(), Some(Dur::from_micros(112_500)));
        assert_eq!(e.rto(), Dur::from_micros(362_500));
    }

    #[test]
    fn backs_off_to_the_maximum_and_a_sample_resets() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(3000), RtoFormula::Rfc);
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.back_off();
        assert_eq!(e.rto(), ms(3000));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(200), "clamped to the minimum");
    }

    /// A steady 1 s RTT: RTTVAR decays from 500 ms by 3/4 per sample, to 500·(3/4)^19 ms after
    /// 20 samples. RFC 6298's RTO follows SRTT + 4·RTTVAR down to just above 1 s; Linux's keeps
    /// rto_min (200 ms) above SRTT. Both give 3 s after the first sample (SRTT + 4·R/2).
    #[test]
    fn linux_keeps_rto_min_above_srtt() {
        let run = |formula| {
            let mut e = RttEstimator::new(ms(3000), ms(200), ms(60_000), formula);
            e.sample(ms(1000));
            let first = e.rto();
            (1..20).for_each(|_| e.sample(ms(1000)));
            (first, e.srtt().unwrap(), e.rto())
        };
        let rttvar_ns = (500e6 * 0.75f64.powi(19)) as u64;
        let (first, srtt, rto) = run(RtoFormula::Rfc);
        assert_eq!((first, srtt), (ms(3000), ms(1000)));
        assert!(rto.0.abs_diff(srtt.0 + 4 * rttvar_ns) <= 4 * 20, "{rto} vs 1 s + 4·{rttvar_ns} ns");
        let (first, srtt, rto) = run(RtoFormula::Linux);
        assert_eq!((first, srtt, rto), (ms(3000), ms(1000), ms(1200)));
    }
}
