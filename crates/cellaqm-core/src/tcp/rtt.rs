//! Retransmission timeout estimation (RFC 6298, and ns-2's tick-counting estimator).
//!
//! SRTT and RTTVAR follow each RTT sample with gains 1/8 and 1/4; the timeout
//! is SRTT + max(G, K·RTTVAR) (K = 4, G = `timer_tick`, 0 by default),
//! clamped to the configured minimum and maximum — or, with `rto_formula =
//! "linux"`, SRTT + max(G, K·RTTVAR, minimum), as Linux keeps its variance term
//! (`rttvar`) at least `tcp_rto_min` (its per-round-trip peak holding of the
//! deviation is not modelled). Each expiry doubles it (back-off) until the
//! next valid sample recomputes it.
//!
//! `rto_formula = "ns2"` is ns-2's estimator (`tcp/tcp.cc`, `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`; Jacobson's integer form, SIGCOMM 1988): time
//! is counted in whole ticks of `timer_tick` (ns-2's `tcpTick_`). A sample is
//! the number of tick boundaries between the segment's sending and its ACK
//! (at least one; with timestamps, the delay rounded to the nearest tick);
//! `t_srtt` holds 8·SRTT and `t_rttvar` 4·RTTVAR in ticks, updated by shifts
//! with truncation (so RTTVAR never decays below 3/4 of a tick), and the RTO
//! is ⌊SRTT + 4·RTTVAR⌋ ticks. The timeout is max(that, minimum) times the
//! back-off factor (RFC 2988: the minimum applies before backing off; ns-2's
//! `rfc2988_`), at most the maximum and at least two ticks. After the fourth
//! back-off in a row (a factor above 8) the next sample starts the estimate
//! afresh, as ns-2 clears `t_srtt` then (RFC 6298 §5 allows it).
//! Simplification: every sender's ticks start at time 0 (ns-2 gives each a
//! random phase, `boot_time_`).

use super::{RtoFormula, TcpConfig};
use crate::time::{Dur, Time};

pub(super) struct RttEstimator {
    /// Samples taken so far, and the last one (for traces).
    samples: u64,
    last: Option<Dur>,
    srtt: Option<Dur>,
    rttvar: Dur,
    /// The timeout before back-off.
    base: Dur,
    /// The back-off factor: 1, 2, 4, … (RFC 6298 (5.5)).
    backoff: u64,
    min: Dur,
    max: Dur,
    formula: RtoFormula,
    /// G, or ns-2's tick.
    tick: Dur,
    /// ns-2's integer state: 8·SRTT and 4·RTTVAR in ticks (`t_srtt_`, `t_rttvar_`; 0: no estimate).
    ticks: Ticks,
    /// Samples come from timestamps (ns-2 rounds them to the nearest tick).
    timestamps: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Ticks {
    srtt8: i64,
    rttvar4: i64,
}

impl Ticks {
    /// ns-2's `rtt_update` with a sample of `m` ticks; returns the RTO in ticks.
    fn sample(&mut self, m: i64) -> i64 {
        if self.srtt8 != 0 {
            let delta = m - (self.srtt8 >> 3); // d = m − SRTT
            self.srtt8 = (self.srtt8 + delta).max(1); // SRTT += d/8
            let dev = delta.abs() - (self.rttvar4 >> 2); // |d| − RTTVAR
            self.rttvar4 = (self.rttvar4 + dev).max(1); // RTTVAR += (|d| − RTTVAR)/4
        } else {
            self.srtt8 = m << 3; // SRTT = m
            self.rttvar4 = m << 1; // RTTVAR = m/2
        }
        ((self.rttvar4 << 3) + self.srtt8) >> 3 // SRTT + 4·RTTVAR, truncated
    }
}

impl RttEstimator {
    pub fn new(cfg: &TcpConfig) -> RttEstimator {
        let (min, max) = (cfg.rto_min, cfg.rto_max);
        RttEstimator {
            samples: 0,
            last: None,
            srtt: None,
            rttvar: Dur::ZERO,
            // RFC 6298 (2.1): RTO before any sample.
            base: cfg.rto_initial.clamp(min, max),
            backoff: 1,
            min,
            max,
            formula: cfg.rto_formula,
            tick: cfg.timer_tick,
            ticks: Ticks::default(),
            timestamps: cfg.timestamps,
        }
    }

    /// Takes one RTT measurement `r`, ending at `now` (it must not come from an ambiguous retransmission).
    pub fn sample(&mut self, r: Dur, now: Time) {
        self.samples += 1;
        self.last = Some(r);
        if self.formula == RtoFormula::Ns2 {
            return self.sample_ticks(r, now);
        }
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
        // RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, K*RTTVAR) with K = 4;
        // (2.4)/(2.5): clamped to [min, max]. A new sample also ends any back-off (5.5).
        let var = (self.rttvar * 4).max(self.tick);
        self.base = match self.formula {
            RtoFormula::Rfc => (srtt + var).clamp(self.min, self.max),
            RtoFormula::Linux => (srtt + var.max(self.min)).min(self.max),
            RtoFormula::Ns2 => unreachable!("ns-2's estimator counts ticks (sample_ticks)"),
        };
        self.backoff = 1;
    }

    /// ns-2's `rtt_update` on a sample `r` taken at `now`, then `rtt_timeout`'s minimum (see the module doc).
    fn sample_ticks(&mut self, r: Dur, now: Time) {
        let tick = self.tick.0;
        let m = if self.timestamps {
            (r.0 + tick / 2) / tick
        } else {
            now.0 / tick - (now.0 - r.0) / tick // tick boundaries crossed since the segment left
        };
        if self.backoff > 8 {
            self.ticks = Ticks::default(); // ns-2 `rtt_backoff`: a long back-off clears the estimate
        }
        let rto = Dur(tick) * self.ticks.sample(m.max(1) as i64) as u64;
        self.srtt = Some(Dur(self.ticks.srtt8 as u64 * tick / 8));
        self.rttvar = Dur(self.ticks.rttvar4 as u64 * tick / 4);
        self.base = rto.max(self.min);
        self.backoff = 1;
    }

    /// RFC 6298 (5.5): the timer expired, double the timeout (up to the maximum).
    pub fn back_off(&mut self) {
        if self.base * self.backoff < self.max {
            self.backoff *= 2;
        }
    }

    pub fn rto(&self) -> Dur {
        let rto = (self.base * self.backoff).min(self.max);
        match self.formula {
            RtoFormula::Ns2 => rto.max(self.tick * 2), // ns-2 `rtt_timeout`: at least two ticks
            _ => rto,
        }
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
            rto: self.rto(),
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
    /// The RTT variation (RFC 6298's RTTVAR; zero before the first sample).
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

    fn at(v: u64) -> Time {
        Time(ms(v).0)
    }

    fn estimator(initial: u64, min: u64, max: u64, formula: RtoFormula) -> RttEstimator {
        let cfg = TcpConfig {
            rto_initial: ms(initial),
            rto_min: ms(min),
            rto_max: ms(max),
            rto_formula: formula,
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    /// ns-2.27's defaults: 10 ms ticks, a 1 s minimum, 6 s before any sample, maxrto_ 100 000 s.
    fn ns2(min: u64) -> RttEstimator {
        let cfg = TcpConfig {
            rto_initial: ms(6000),
            rto_min: ms(min),
            rto_max: Dur::from_secs(100_000),
            rto_formula: RtoFormula::Ns2,
            timer_tick: ms(10),
            ..TcpConfig::default()
        };
        RttEstimator::new(&cfg)
    }

    #[test]
    fn follows_rfc_6298_formulas() {
        let mut e = estimator(1000, 200, 60_000, RtoFormula::Rfc);
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100), at(1000));
        // SRTT 100, RTTVAR 50, RTO 100 + 200 = 300.
        assert_eq!((e.srtt(), e.rto()), (Some(ms(100)), ms(300)));
        e.sample(ms(200), at(2000));
        // RTTVAR = 37.5 + 25 = 62.5, SRTT = 87.5 + 25 = 112.5, RTO = 112.5 + 250.
        assert_eq!(e.srtt(), Some(Dur::from_micros(112_500)));
        assert_eq!(e.rto(), Dur::from_micros(362_500));
    }

    #[test]
    fn backs_off_to_the_maximum_and_a_sample_resets() {
        let mut e = estimator(1000, 200, 3000, RtoFormula::Rfc);
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.back_off();
        assert_eq!(e.rto(), ms(3000));
        e.back_off();
        assert_eq!(e.rto(), ms(3000));
        e.sample(ms(10), at(100));
        assert_eq!(e.rto(), ms(200), "clamped to the minimum");
    }

    /// RFC 6298 (2.3): with a clock granularity G the variance term is at least G.
    #[test]
    fn clock_granularity_floors_the_variance_term() {
        let mut e = RttEstimator::new(&TcpConfig { rto_min: ms(1), timer_tick: ms(100), ..TcpConfig::default() });
        e.sample(ms(100), at(100));
        assert_eq!(e.rto(), ms(300), "100 + max(100, 4·50)");
        (0..30).for_each(|i| e.sample(ms(100), at(200 + 100 * i)));
        assert_eq!(e.rto(), ms(200), "100 + G once RTTVAR has decayed");
    }

    /// A steady 1 s RTT: RTTVAR decays from 500 ms by 3/4 per sample, to 500·(3/4)^19 ms after
    /// 20 samples. RFC 6298's RTO follows SRTT + 4·RTTVAR down to just above 1 s; Linux's keeps
    /// rto_min (200 ms) above SRTT. Both give 3 s after the first sample (SRTT + 4·R/2).
    #[test]
    fn linux_keeps_rto_min_above_srtt() {
        let run = |formula| {
            let mut e = estimator(3000, 200, 60_000, formula);
            e.sample(ms(1000), at(1000));
            let first = e.rto();
            (1..20).for_each(|i| e.sample(ms(1000), at(1000 * (i + 1))));
            (first, e.srtt().unwrap(), e.rto())
        };
        let rttvar_ns = (500e6 * 0.75f64.powi(19)) as u64;
        let (first, srtt, rto) = run(RtoFormula::Rfc);
        assert_eq!((first, srtt), (ms(3000), ms(1000)));
        assert!(rto.0.abs_diff(srtt.0 + 4 * rttvar_ns) <= 4 * 20, "{rto} vs 1 s + 4·{rttvar_ns} ns");
        let (first, srtt, rto) = run(RtoFormula::Linux);
        assert_eq!((first, srtt, rto), (ms(3000), ms(1000), ms(1200)));
    }

    /// ns-2's estimator worked by hand with 10 ms ticks and no minimum (2 ticks). A sample counts
    /// the tick boundaries crossed: 55 ms sent at 8 ms (acked at 63 ms) crosses 10, …, 60: 6 ticks.
    /// First sample: t_srtt = 48, t_rttvar = 12, RTO = (96 + 48) >> 3 = 18 ticks = 180 ms.
    /// Then 6 ticks again: delta 0, t_rttvar = 12 − 3 = 9, RTO = (72 + 48) >> 3 = 15 ticks; then
    /// 9 − 2 = 7 → 13 ticks; 7 − 1 = 6 → 12; 6 − 1 = 5 → 11; 5 − 1 = 4 → 10; 4 − 1 = 3 → 9; and
    /// t_rttvar stays at 3 (3 >> 2 = 0): the RTO never falls below SRTT + 3 ticks.
    #[test]
    fn ns2_counts_ticks_with_integer_shifts() {
        let mut e = ns2(0);
        assert_eq!(e.rto(), ms(6000), "rtxcur_init_ before any sample");
        e.sample(ms(55), at(63));
        assert_eq!((e.srtt(), e.rto()), (Some(ms(60)), ms(180)));
        let mut rtos = vec![];
        for i in 1..=8 {
            e.sample(ms(60), at(100 * i));
            rtos.push(e.rto().as_millis_f64() as u64);
        }
        assert_eq!(rtos, [150, 130, 120, 110, 100, 90, 90, 90]);
        // A sample of 41 ms: sent at 100 (on a boundary) and acked at 141: 4 ticks; sent at 109 and
        // acked at 150: 5 ticks. ns-2 never measures less than one tick.
        let mut a = ns2(0);
        a.sample(ms(41), at(141));
        let mut b = ns2(0);
        b.sample(ms(41), at(150));
        let mut c = ns2(0);
        c.sample(ms(3), at(104));
        assert_eq!((a.srtt(), b.srtt(), c.srtt()), (Some(ms(40)), Some(ms(50)), Some(ms(10))));
    }

    /// ns-2's `rtt_timeout` with `rfc2988_`: max(RTO, minrto_) times the back-off factor, at most
    /// maxrto_, at least two ticks; after the fourth back-off the next sample starts afresh.
    #[test]
    fn ns2_minimum_before_back_off_and_a_fresh_start_after_a_long_one() {
        let mut e = ns2(1000);
        e.sample(ms(60), at(60));
        assert_eq!(e.rto(), ms(1000), "180 ms lifted to minrto_ 1 s");
        let mut backed = vec![];
        for _ in 0..4 {
            e.back_off();
            backed.push(e.rto().as_millis_f64() as u64);
        }
        assert_eq!(backed, [2000, 4000, 8000, 16_000]);
        e.sample(ms(2000), at(30_000)); // factor 16 > 8: a first sample again
        assert_eq!((e.srtt(), e.rto()), (Some(ms(2000)), ms(6000)), "SRTT 2 s, RTTVAR 1 s");
        let mut f = ns2(0);
        f.sample(ms(1), at(1));
        assert_eq!(f.rto(), ms(30), "1 tick + 4·½ tick = 3 ticks");
        let mut short = RttEstimator::new(&TcpConfig {
            rto_min: ms(1),
            rto_initial: ms(1),
            rto_formula: RtoFormula::Ns2,
            timer_tick: ms(10),
            ..TcpConfig::default()
        });
        assert_eq!(short.rto(), ms(20), "never below two ticks");
        short.back_off();
        assert_eq!(short.rto(), ms(20), "2 × 1 ms, still two ticks");
    }
}
