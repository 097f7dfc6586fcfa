//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993), gentle as in
//! Lakkakorpi & Cuny, WCNC 2006 (schemes 2 and 3, RED and rate-adaptive ARED),
//! the HS-DSCH study (RED with drop-front, thresholds in packets) and
//! Alcaraz et al., IEEE Commun. Mag. (RED in the RLC buffer, in SDUs).
//!
//! Rule: on each arrival, update the average queue `avg ← (1−w_q)·avg + w_q·q`
//! (w_q = 1: the instantaneous queue); below minTh accept; between minTh and
//! maxTh signal with p_b = maxP·(avg−minTh)/(maxTh−minTh), corrected for the
//! `count` of packets accepted since the last signal, p_a = p_b/(1−count·p_b);
//! gentle: between maxTh and 2·maxTh p_b rises maxP → 1 (same correction);
//! above (2·)maxTh always signal. The signal drops or ECN-marks the arrival or
//! the head ([`DropPosition`]), before admission ([`Scheme::on_arrival`]); the
//! buffer limits are the absolute limit, overflowing at the same position.
//! ARED is this with [`Thresholds::Adaptive`].
//!
//! `ns2 = true` follows ns-2.27's RED (`queue/red.cc`), as the HS-DSCH study
//! ran it: every arrival counts (count = arrivals since the last drop, this
//! one included); with the average at or above minTh and more than one packet
//! queued, the forced level (2·maxTh gentle, else maxTh) forces a drop, the
//! first such arrival after the average crossed minTh only restarts the
//! count (count = 1, no drop), and later ones drop early with ns-2's *wait*
//! rule: p_a = 0 while count·p_b < 1, p_b/(2 − count·p_b) while below 2, else
//! 1; below minTh (or with ≤ 1 packet queued) nothing is dropped and the next
//! crossing is awaited. Any drop restarts the count at 0. With
//! `drop = "ns2_front"` early drops take the arrival and forced drops the
//! second queued packet ([`DropPosition::Ns2Front`]); `drop = "front"` gives
//! true drop-front on early drops too.

use super::signal::{forced, overflow, signal, DropPosition};
use super::thresholds::{Measure, Thresholds};
use super::{Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::Time;
use crate::units::Bytes;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// RED's drop-probability curve and its count since the last signal: the
/// part of RED shared with TTLRED1 (which feeds it a sojourn time instead of a queue).
#[derive(Clone, Debug)]
pub(super) struct RedCurve {
    max_p: f64,
    gentle: bool,
    /// Arrivals in the drop region since the last signal (the paper's `count`;
    /// with ns-2's rules, every arrival since the last drop).
    count: u32,
    /// ns-2's `old`: the average is above minTh since an earlier arrival.
    crossed: bool,
}

/// A RED decision on an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    Accept,
    /// A random (unforced) signal.
    Early,
    /// At the forced level.
    Forced,
}

impl RedCurve {
    pub fn new(max_p: f64, gentle: bool) -> RedCurve {
        RedCurve { max_p, gentle, count: 0, crossed: false }
    }

    /// The level at which every arrival is signalled: 2·maxTh (gentle) or maxTh.
    fn forced_level(&self, max: f64) -> f64 {
        if self.gentle {
            2.0 * max
        } else {
            max
        }
    }

    /// ns-2.27's decision (see the module doc) at average `x` with `queued`
    /// packets before the arrival; `draw` gives U(0,1), called only when the
    /// probability is strictly between 0 and 1.
    pub fn decide_ns2(&mut self, x: f64, min: f64, max: f64, queued: usize, draw: impl FnOnce() -> f64) -> Decision {
        self.count += 1;
        if x < min || queued <= 1 {
            self.crossed = false;
            return Decision::Accept;
        }
        let decision = if x >= self.forced_level(max) {
            Decision::Forced
        } else if !self.crossed {
            self.crossed = true;
            self.count = 1;
            return Decision::Accept;
        } else {
            let (p_b, c) = (self.p_b(x, min, max), self.count as f64);
            let p_a = if c * p_b < 1.0 {
                0.0
            } else if c * p_b < 2.0 {
                p_b / (2.0 - c * p_b)
            } else {
                1.0
            };
            match p_a >= 1.0 || (p_a > 0.0 && draw() <= p_a) {
                true => Decision::Early,
                false => Decision::Accept,
            }
        };
        if decision != Decision::Accept {
            self.count = 0;
        }
        decision
    }

    /// p_b at level `x` with thresholds `min < max`: 0 below min, 1 where the signal is forced.
    pub fn p_b(&self, x: f64, min: f64, max: f64) -> f64 {
        if x < min {
            0.0
        } else if x < max {
            self.max_p * (x - min) / (max - min)
        } else if self.gentle && x < 2.0 * max {
            self.max_p + (1.0 - self.max_p) * (x - max) / max
        } else {
            1.0
        }
    }

    /// Whether to signal an arrival at level `x`; `draw` gives U(0,1) and is
    /// called only when the probability is strictly between 0 and 1.
    pub fn decide(&mut self, x: f64, min: f64, max: f64, draw: impl FnOnce() -> f64) -> bool {
        let p_b = self.p_b(x, min, max);
        if x < min {
            self.count = 0;
            return false;
        }
        let c = self.count as f64;
        let p_a = if c * p_b < 1.0 { p_b / (1.0 - c * p_b) } else { 1.0 };
        let hit = p_a >= 1.0 || (p_a > 0.0 && draw() < p_a);
        self.count = if hit { 0 } else { self.count + 1 };
        hit
    }
}

/// Parameters of `red` and `ared` (defaults: the WCDMA study's gentle RED).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedParams {
    /// Thresholds on the average queue (see [`Thresholds`]): bytes
    /// `{ min = "10kB", max = "30kB" }`, packets `{ min = 5, max = 20 }` or
    /// `"adaptive"`. Absent: 10 kB / 30 kB for `red`, adaptive for `ared`.
    pub thresholds: Option<Thresholds>,
    /// Drop probability at maxTh (probability, in (0, 1]).
    pub max_p: f64,
    /// Gentle RED: p_b rises maxP → 1 between maxTh and 2·maxTh instead of jumping to 1.
    pub gentle: bool,
    /// Queue weight of the average (in (0, 1]; 1 = instantaneous queue).
    pub w_q: f64,
    /// Typical packet size (bytes), for the average's decay while the queue is idle (w_q < 1).
    pub mean_packet: Bytes,
    /// Which packet a signal falls on: `"tail"` (the arrival) or `"front"` (the oldest).
    pub drop: DropPosition,
    /// ECN-mark ECT packets instead of dropping them.
    pub ecn: bool,
    /// ns-2.27's decision rules (the wait rule, the first arrival after
    /// crossing minTh, none with ≤ 1 packet queued): the HS-DSCH study's RED.
    pub ns2: bool,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            thresholds: None,
            max_p: 0.1,
            gentle: true,
            w_q: 1.0,
            mean_packet: Bytes(1500),
            drop: DropPosition::Tail,
            ecn: false,
            ns2: false,
        }
    }
}

impl RedParams {
    /// The WCDMA study's fixed RED thresholds with the 30 kB buffer.
    pub const FIXED: Thresholds = Thresholds::Fixed {
        min: super::thresholds::Level::Bytes(Bytes(10_000)),
        max: super::thresholds::Level::Bytes(Bytes(30_000)),
    };

    /// Checks ranges; `adaptive` for `ared`, whose thresholds must be rate-adaptive.
    pub fn validate(&self, key: &str, adaptive: bool) -> Result<(), String> {
        check_probability(self.max_p, &format!("{key}.max_p"))?;
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(format!("{key}.w_q: must be in (0, 1], got {}", self.w_q));
        }
        if self.mean_packet.0 == 0 {
            return Err(format!("{key}.mean_packet: must be positive"));
        }
        if let Some(t) = &self.thresholds {
            if adaptive && !matches!(t, Thresholds::Adaptive { .. }) {
                return Err(format!(
                    "{key}.thresholds: ared's thresholds are rate-adaptive; use scheme \"red\" for fixed ones"
                ));
            }
            t.validate(&format!("{key}.thresholds"))?;
        }
        Ok(())
    }
}

/// Checks that a probability parameter is in (0, 1].
pub(super) fn check_probability(p: f64, key: &str) -> Result<(), String> {
    if p > 0.0 && p <= 1.0 {
        Ok(())
    } else {
        Err(format!("{key}: must be in (0, 1], got {p}"))
    }
}

pub struct Red {
    fifo: Fifo,
    thresholds: Thresholds,
    measure: Measure,
    curve: RedCurve,
    w_q: f64,
    /// Bits of a typical packet (the idle decay counts how many could have been sent).
    mean_packet_bits: f64,
    position: DropPosition,
    ecn: bool,
    ns2: bool,
    /// The average queue, in the unit of `measure`.
    avg: f64,
    /// Since when the queue has been empty (and the average not yet decayed for it).
    idle_since: Option<Time>,
    rng: Rng,
}

impl Red {
    /// RED with `params`, using `default_thresholds` if the params give none.
    pub fn new(params: &RedParams, default_thresholds: Thresholds, rng: Rng) -> Red {
        let thresholds = params.thresholds.unwrap_or(default_thresholds);
        Red {
            fifo: Fifo::default(),
            thresholds,
            measure: thresholds.measure(),
            curve: RedCurve::new(params.max_p, params.gentle),
            w_q: params.w_q,
            mean_packet_bits: params.mean_packet.0 as f64 * 8.0,
            position: params.drop,
            ecn: params.ecn,
            ns2: params.ns2,
            avg: 0.0,
            idle_since: None,
            rng,
        }
    }

    /// Updates the average for an arrival at `ctx.now` (Floyd & Jacobson §4):
    /// on an empty queue it first decays by (1−w_q)^m, m = the number of
    /// typical packets the link could have sent while idle.
    fn update_avg(&mut self, ctx: &QueueCtx) {
        let q = self.measure.of(&self.fifo);
        if self.fifo.is_empty() {
            let m = match self.idle_since {
                Some(t) if ctx.rate_bps > 0.0 => ctx.now.since(t).as_secs_f64() * ctx.rate_bps / self.mean_packet_bits,
                _ => 0.0,
            };
            self.avg *= (1.0 - self.w_q).powf(m);
        }
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
    }
}

impl Scheme for Red {
    fn on_arrival(&mut self, pkt: Packet, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        self.update_avg(ctx);
        let (min, max) = self.thresholds.at(ctx.rate_bps);
        let rng = &mut self.rng;
        let decision = match self.ns2 {
            true => self.curve.decide_ns2(self.avg, min, max, self.fifo.len(), || rng.random::<f64>()),
            false if self.curve.decide(self.avg, min, max, || rng.random::<f64>()) => Decision::Early,
            false => Decision::Accept,
        };
        let arrival = match decision {
            Decision::Accept => Some(pkt),
            Decision::Early => signal(&mut self.fifo, pkt, self.position, self.ecn, tally),
            Decision::Forced => forced(&mut self.fifo, pkt, self.position, self.ecn, tally),
        };
        // The average has decayed up to now: an idle period restarts here,
        // unless the arrival is queued ([`Scheme::enqueue`]).
        self.idle_since = self.fifo.is_empty().then_some(ctx.now);
        arrival
    }

    fn on_overflow(&mut self, pkt: Packet, limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        overflow(&mut self.fifo, pkt, self.position, limits, tally)
    }

    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        self.fifo.push_back(pkt);
        self.idle_since = None;
    }

    fn dequeue(&mut self, ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        let pkt = self.fifo.pop_front();
        if self.fifo.is_empty() && self.idle_since.is_none() {
            self.idle_since = Some(ctx.now);
        }
        pkt
    }

    fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ect, ops, pkt, run, run_at, Step::*};
    use crate::queue::DropCause::{Early, Overflow};
    use crate::queue::{Disc, QueueDisc};
    use crate::rng::stream;

    fn red(params: RedParams, limits: Limits) -> Disc<Red> {
        Disc::new(limits, Red::new(&params, RedParams::FIXED, stream(7, "test.queue")))
    }

    fn no_draw() -> f64 {
        panic!("the decision should not need a random draw")
    }

    /// ns-2.27's rules at minTh 10, maxTh 30, maxP 0.1, gentle; at x = 20 p_b = 0.05.
    #[test]
    fn ns2_wait_rule_crossing_and_forced_level() {
        use Decision::{Accept, Early, Forced};
        let mut c = RedCurve::new(0.1, true);
        assert_eq!(c.decide_ns2(5.0, 10.0, 30.0, 5, no_draw), Accept); // below minTh
        assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 5, no_draw), Accept); // first after crossing: count := 1
                                                                        // Wait rule: p_a = 0 while count·p_b < 1, i.e. for counts 2..=19, without a draw.
        for _ in 2..20 {
            assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 5, no_draw), Accept);
        }
        // count 20: count·p_b = 1 → p_a = 0.05/(2 − 1) = 0.05: 0.06 accepts.
        assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 5, || 0.06), Accept);
        // count 21: p_a = 0.05/(2 − 1.05) = 0.05263: 0.052 drops (uncorrected 0.05 would accept).
        assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 5, || 0.052), Early);
        // The count restarts at 0: the next arrival has count 1, p_a = 0.
        assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 5, no_draw), Accept);
        // One packet queued: no drop, and the next arrival above minTh is a new crossing.
        assert_eq!(c.decide_ns2(20.0, 10.0, 30.0, 1, no_draw), Accept);
        assert_eq!(c.decide_ns2(45.0, 10.0, 30.0, 5, no_draw), Accept, "crossing, though p_b = 0.55");
        // count 2 at x = 45: count·p_b = 1.1 → p_a = 0.55/0.9 = 0.611.
        assert_eq!(c.decide_ns2(45.0, 10.0, 30.0, 5, || 0.6), Early);
        // count 1: 0.55 < 1, p_a = 0; count 2: p_a = 0.611, 0.99 accepts; count 3:
        // 1.65 → p_a = 0.55/0.35 ≥ 1, a drop without a draw.
        assert_eq!(c.decide_ns2(45.0, 10.0, 30.0, 5, no_draw), Accept);
        assert_eq!(c.decide_ns2(45.0, 10.0, 30.0, 5, || 0.99), Accept);
        assert_eq!(c.decide_ns2(45.0, 10.0, 30.0, 5, no_draw), Early);
        // At 2·maxTh (gentle) every arrival is forced.
        assert_eq!(c.decide_ns2(60.0, 10.0, 30.0, 5, no_draw), Forced);
        let mut hard = RedCurve::new(0.1, false);
        assert_eq!(hard.decide_ns2(30.0, 10.0, 30.0, 5, no_draw), Forced, "not gentle: forced at maxTh");
    }

    /// The HS-DSCH study's "RED n" (n = 2: minTh 2, maxTh 8, limit 16) with
    /// ns-2's drop-front: forced drops take the second queued packet.
    #[test]
    fn scripted_ns2_front_forced_drops_spare_the_head() {
        let params = RedParams {
            thresholds: Some(Thresholds::packets(2, 3)),
            max_p: 1.0,
            gentle: false,
            drop: DropPosition::Ns2Front,
            ns2: true,
            ..RedParams::default()
        };
        let mut q = red(params, Limits { bytes: None, packets: Some(16) });
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1500), &[]),           // q 0
                Arrive(1.0, pkt(2, 1500), &[]),           // q 1: one packet queued, no drop
                Arrive(2.0, pkt(3, 1500), &[]),           // q 2 = minTh: the crossing, count 1
                Arrive(3.0, pkt(4, 1500), &[(2, Early)]), // q 3 = maxTh (not gentle): forced, 2nd packet
                Arrive(4.0, pkt(5, 1500), &[(3, Early)]), // again
                Depart(5.0, Some(1), &[]),
                Arrive(6.0, pkt(6, 1500), &[]), // q 2: p_b 0
            ],
        );
        let left: Vec<u64> = q.scheme().fifo.iter().map(|p| p.uid).collect();
        assert_eq!(left, [4, 5, 6]);
    }

    #[test]
    fn count_correction_and_gentle_curve() {
        // minTh 10, maxTh 30, maxP 0.1; at x = 20: p_b = 0.1·(20−10)/(30−10) = 0.05.
        let mut c = RedCurve::new(0.1, true);
        assert!(!c.decide(20.0, 10.0, 30.0, || 0.06)); // count 0: p_a = 0.05; 0.06 ≥ 0.05 → accept, count 1
                                                       // count 1: p_a = 0.05/(1−0.05) = 0.05263; 0.052 < p_a → signal (uncorrected 0.05 would accept).
        assert!(c.decide(20.0, 10.0, 30.0, || 0.052));
        assert!(!c.decide(20.0, 10.0, 30.0, || 0.051)); // count back to 0: p_a = 0.05 → accept, count 1
        assert!(!c.decide(5.0, 10.0, 30.0, no_draw)); // below minTh: accept, count reset to 0
                                                      // 19 accepts from count 0 (draws 0.999); then count 19: p_a = 0.05/(1−19·0.05) = 1: signal for sure.
        for _ in 0..19 {
            assert!(!c.decide(20.0, 10.0, 30.0, || 0.999));
        }
        assert!(c.decide(20.0, 10.0, 30.0, || 0.99));
        // Gentle: x = 45 → p_b = 0.1 + 0.9·(45−30)/30 = 0.55; with count 1: p_a = 0.55/0.45 > 1 → signal.
        assert!(!c.decide(20.0, 10.0, 30.0, || 0.5)); // count 0 → 1
        assert!(c.decide(45.0, 10.0, 30.0, no_draw));
        assert!((c.p_b(45.0, 10.0, 30.0) - 0.55).abs() < 1e-12);
        assert!(c.decide(60.0, 10.0, 30.0, no_draw)); // ≥ 2·maxTh: forced
                                                      // Not gentle: at maxTh already forced.
        let mut hard = RedCurve::new(0.1, false);
        assert!(hard.decide(30.0, 10.0, 30.0, no_draw));
        assert_eq!(hard.p_b(29.0, 10.0, 30.0), 0.1 * 19.0 / 20.0);
    }

    /// Packet thresholds minTh 2, maxTh 4, maxP 1, not gentle: p_b = (q−2)/2, so
    /// q = 2 gives p_b = 0 (accept, count +1) and q = 3 gives p_b = 0.5, which the
    /// count correction turns into p_a = 0.5/(1−1·0.5) = 1 after one such accept.
    fn deterministic() -> RedParams {
        RedParams { thresholds: Some(Thresholds::packets(2, 4)), max_p: 1.0, gentle: false, ..RedParams::default() }
    }

    #[test]
    fn scripted_tail_drop_with_count_correction() {
        let mut q = red(deterministic(), Limits { bytes: None, packets: Some(5) });
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]),           // q = 0 < minTh
                Arrive(1.0, pkt(2, 1000), &[]),           // q = 1
                Arrive(2.0, pkt(3, 1000), &[]),           // q = 2: p_b = 0, count 1
                Arrive(3.0, pkt(4, 1000), &[(4, Early)]), // q = 3: p_a = 1 → drop the arrival, count 0
                Depart(4.0, Some(1), &[]),
                Arrive(5.0, pkt(5, 1000), &[]),           // q = 2: count 1
                Arrive(6.0, pkt(6, 1000), &[(6, Early)]), // q = 3: p_a = 1
            ],
        );
        assert_eq!((q.packets(), q.stats().marked), (3, 0));
        // The absolute limit: thresholds out of reach, 3-packet buffer → forced drop of the 4th.
        let far = RedParams { thresholds: Some(Thresholds::packets(10, 20)), ..RedParams::default() };
        let mut q = red(far, Limits { bytes: None, packets: Some(3) });
        let fill = [Arrive(0.0, pkt(1, 100), &[]), Arrive(0.0, pkt(2, 100), &[]), Arrive(0.0, pkt(3, 100), &[])];
        run(&mut q, &fill);
        run(&mut q, &[Arrive(0.0, pkt(4, 100), &[(4, Overflow)])]);
    }

    #[test]
    fn scripted_front_drop_with_ecn() {
        let params = RedParams { drop: DropPosition::Front, ecn: true, ..deterministic() };
        let mut q = red(params, Limits::default());
        run(
            &mut q,
            &[
                Arrive(0.0, ect(1, 1000), &[]),
                Arrive(1.0, pkt(2, 1000), &[]),
                Arrive(2.0, pkt(3, 1000), &[]),           // q = 2: count 1
                Arrive(3.0, pkt(4, 1000), &[]),           // q = 3: p_a = 1 → head 1 is ECT: marked; 4 accepted
                Arrive(4.0, pkt(5, 1000), &[(1, Early)]), // q = 4 ≥ maxTh: forced; head 1 is CE now → dropped
                Arrive(5.0, pkt(6, 1000), &[(2, Early)]), // q = 4: forced, head 2 dropped
                Depart(6.0, Some(3), &[]),
            ],
        );
        assert_eq!((q.packets(), q.stats().marked), (3, 1));
    }

    #[test]
    fn average_decays_over_idle_time() {
        let params = RedParams { w_q: 0.5, thresholds: Some(Thresholds::packets(10, 20)), ..RedParams::default() };
        let mut q = red(params, Limits::default());
        // avg: 0 (q=0), 0.5·0 + 0.5·1 = 0.5 (q=1), 0.25 + 1 = 1.25 (q=2).
        run(&mut q, &[Arrive(0.0, pkt(1, 1500), &[]), Arrive(0.0, pkt(2, 1500), &[]), Arrive(0.0, pkt(3, 1500), &[])]);
        assert_eq!(q.scheme().avg, 1.25);
        run(&mut q, &[Depart(0.0, Some(1), &[]), Depart(0.0, Some(2), &[]), Depart(0.0, Some(3), &[])]);
        // Idle 375 ms at 64 kb/s with 1500-B typical packets: m = 0.375·64000/12000 = 2;
        // avg = 1.25·0.5² = 0.3125, then the sample q = 0: 0.15625.
        run(&mut q, &[Arrive(375.0, pkt(4, 1500), &[])]);
        assert!((q.scheme().avg - 0.15625).abs() < 1e-9, "{}", q.scheme().avg);
    }

    #[test]
    fn ared_thresholds_follow_the_link_rate() {
        // ared, maxP 1, not gentle, 7500-B packets. At 64 kb/s: minTh = 7500 B (floor), maxTh = 22500 B:
        // q = 0 accept; q = 7500: p_b = 0, count 1; q = 15000: p_b = 0.5, p_a = 0.5/0.5 = 1 → drop.
        let params = RedParams { max_p: 1.0, gentle: false, ..RedParams::default() };
        let mut q = Disc::new(Limits::default(), Red::new(&params, Thresholds::ADAPTIVE, stream(1, "q")));
        run_at(
            &mut q,
            64e3,
            &[Arrive(0.0, pkt(1, 7500), &[]), Arrive(1.0, pkt(2, 7500), &[]), Arrive(2.0, pkt(3, 7500), &[(3, Early)])],
        );
        // At 3.6 Mb/s: minTh = 0.5 s · 450000 B/s = 225000 B: 30 packets of 7500 B all enter
        // (the last one at q = 217500 < minTh) and the 31st at q = 225000 = minTh (p_b = 0).
        let mut q = Disc::new(Limits::default(), Red::new(&params, Thresholds::ADAPTIVE, stream(1, "q")));
        for uid in 0..31 {
            run_at(&mut q, 3.6e6, &[Arrive(uid as f64, pkt(uid, 7500), &[])]);
        }
        assert_eq!(q.bytes(), 232_500);
    }

    /// Long-run drop fraction at a fixed queue between the thresholds.
    ///
    /// Let X be the number of arrivals from just after one drop up to and
    /// including the next. The n-th of them sees count = n−1, so
    /// P(X = n) = p_a(n−1)·Π_{i<n−1}(1 − p_a(i)). Since
    /// 1 − p_a(i) = (1 − (i+1)·p_b)/(1 − i·p_b), the product telescopes to
    /// 1 − (n−1)·p_b, and P(X = n) = p_b for n = 1 … 1/p_b: X is uniform.
    /// E[X] = (1 + 1/p_b)/2, and by renewal-reward the fraction of arrivals
    /// dropped is 1/E[X] = 2·p_b/(1 + p_b).
    #[test]
    fn long_run_drop_fraction_matches_the_uniform_inter_drop_law() {
        // Bytes thresholds 10 kB / 30 kB, maxP 0.1, queue held at 20 kB: p_b = 0.05,
        // expected fraction 0.1/1.05 = 0.0952 (without the correction it would be 0.05).
        let mut q = red(RedParams::default(), Limits::default());
        let ctx = QueueCtx { now: Time::ZERO, rate_bps: 1e6 };
        let mut dropped = Vec::new();
        let mut uid = 0;
        while q.bytes() < 20_000 {
            q.enqueue(pkt(uid, 1000), &ctx, &mut dropped);
            uid += 1;
        }
        assert_eq!(q.bytes(), 20_000);
        dropped.clear();
        let n = 100_000;
        for _ in 0..n {
            q.enqueue(pkt(uid, 1000), &ctx, &mut dropped);
            uid += 1;
            if q.bytes() > 20_000 {
                q.dequeue(&ctx, &mut dropped);
            }
        }
        let p_b: f64 = 0.1 * (20_000.0 - 10_000.0) / 20_000.0;
        let expected = 2.0 * p_b / (1.0 + p_b);
        let got = dropped.len() as f64 / n as f64;
        assert!((got - expected).abs() < 0.01, "drop fraction {got}, expected {expected}");
    }

    /// RED in the RLC buffer of Alcaraz et al., IEEE Commun. Mag. (Table 2, B = 40 SDUs): the
    /// instantaneous queue in SDUs (w_q = 1), min_th 30, max_th = B, max_p 0.02,
    /// no gentle region. Held at 35 SDUs: p_b = 0.02·5/10 = 0.01, so the same
    /// uniform inter-drop law gives a drop fraction of 0.02/1.01 = 0.0198;
    /// below min_th nothing is dropped.
    #[test]
    fn red_in_sdus_drops_the_uniform_law_fraction() {
        let params = RedParams {
            thresholds: Some(Thresholds::packets(30, 40)),
            max_p: 0.02,
            gentle: false,
            w_q: 1.0,
            ..RedParams::default()
        };
        let ctx = QueueCtx { now: Time::ZERO, rate_bps: 384e3 };
        for (held, expected) in [(35usize, 0.02 / 1.01), (29, 0.0)] {
            let mut q = red(params.clone(), Limits { bytes: None, packets: Some(40) });
            let (mut dropped, mut uid) = (Vec::new(), 0);
            while q.packets() < held {
                q.enqueue(pkt(uid, 1500), &ctx, &mut dropped);
                uid += 1;
            }
            dropped.clear();
            let n = 200_000;
            for _ in 0..n {
                q.enqueue(pkt(uid, 1500), &ctx, &mut dropped);
                uid += 1;
                if q.packets() > held {
                    q.dequeue(&ctx, &mut dropped);
                }
            }
            let got = dropped.len() as f64 / n as f64;
            assert!((got - expected).abs() < 0.002, "held {held}: drop fraction {got}, expected {expected}");
        }
    }

    #[test]
    fn validation_names_the_key() {
        let k = "bottleneck.queue";
        let bad_p = RedParams { max_p: 1.5, ..RedParams::default() };
        assert_eq!(bad_p.validate(k, false), Err("bottleneck.queue.max_p: must be in (0, 1], got 1.5".into()));
        let bad_w = RedParams { w_q: 0.0, ..RedParams::default() };
        assert!(bad_w.validate(k, false).unwrap_err().starts_with("bottleneck.queue.w_q:"));
        let bad_t = RedParams { thresholds: Some(Thresholds::bytes(30_000, 10_000)), ..RedParams::default() };
        assert_eq!(bad_t.validate(k, false), Err("bottleneck.queue.thresholds.max: must exceed min".into()));
        let fixed = RedParams { thresholds: Some(RedParams::FIXED), ..RedParams::default() };
        assert!(fixed.validate(k, true).unwrap_err().starts_with("bottleneck.queue.thresholds:"));
        assert_eq!(RedParams::default().validate(k, true), Ok(()));
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::testkit::scenario_queue;
        use crate::queue::QueueConfig;
        let q = scenario_queue(
            r#"{ scheme = "red", thresholds = { min = "10kB", max = "30kB" }, max_p = 0.1, gentle = true, w_q = 1.0, drop = "tail", ecn = false }"#,
        );
        assert_eq!(q, Ok(QueueConfig::Red(RedParams { thresholds: Some(RedParams::FIXED), ..RedParams::default() })));
        // HS-DSCH "RED n" with n = 10: t_min 10, t_max 40 packets, drop-front.
        let q = scenario_queue(r#"{ scheme = "red", thresholds = { min = 10, max = 40 }, drop = "front" }"#).unwrap();
        let want = RedParams {
            thresholds: Some(Thresholds::packets(10, 40)),
            drop: DropPosition::Front,
            ..RedParams::default()
        };
        assert_eq!(q, QueueConfig::Red(want));
        assert_eq!(scenario_queue(r#"{ scheme = "ared" }"#), Ok(QueueConfig::Ared(RedParams::default())));
        let e = scenario_queue(r#"{ scheme = "red", max_p = 0 }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.max_p: must be in (0, 1], got 0");
        let e = scenario_queue(r#"{ scheme = "red", thresholds = { min = "30kB", max = "10kB" } }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.thresholds.max: must exceed min");
        let e = scenario_queue(r#"{ scheme = "red", drop = "middle" }"#).unwrap_err();
        assert!(e.starts_with("bottleneck.queue"), "{e}");
        // Parse errors and range errors both name the parameter.
        let e = scenario_queue(r#"{ scheme = "red", maxp = 0.1 }"#).unwrap_err();
        assert!(e.starts_with("bottleneck.queue.maxp: unknown key (expected one of `thresholds`, `max_p`"), "{e}");
        assert!(!e.contains('\n'));
    }

    proptest::proptest! {
        #[test]
        fn invariants(ops in ops(), front: bool, ecn: bool, w_q in 0.01..=1.0f64) {
            let params = RedParams {
                thresholds: Some(Thresholds::bytes(3000, 9000)),
                drop: if front { DropPosition::Front } else { DropPosition::Tail },
                ecn,
                w_q,
                ..RedParams::default()
            };
            check_invariants(&mut red(params, Limits { bytes: Some(20_000), packets: Some(30) }), &ops);
        }

        #[test]
        fn ared_invariants(ops in ops()) {
            let mut q = Disc::new(Limits { bytes: Some(30_000), packets: None }, Red::new(&RedParams::default(), Thresholds::ADAPTIVE, stream(3, "q")));
            check_invariants(&mut q, &ops);
        }
    }
}
