//! PIE, Proportional Integral controller Enhanced (RFC 8033).
//!
//! Rule: every `tupdate` (T_UPDATE, 15 ms) the drop probability moves by
//! `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)`, the step scaled
//! down while the probability is small (§4.2 auto-tuning), and decays by 2 %
//! while the queue delay is zero at two updates in a row. An arrival that does
//! not fit the buffer limits is dropped (`overflow`); otherwise, once the
//! burst allowance is spent (§4.4), it is dropped (`early`) with that
//! probability unless the queue is short (§4.1 safeguard: the previous delay
//! under half the target while the probability is under 20 %, or at most two
//! MEAN_PKTSIZE queued). The burst allowance (MAX_BURST, 150 ms) shrinks by
//! T_UPDATE at each update and is refilled when the probability is 0 and both
//! the current and the previous delay are under half the target (§4.4).
//! Options: ECN (§5.1, `ecn`): ECN-capable packets are marked instead of
//! dropped while the probability is at most MAX_ECNTH = 10 %; de-randomisation
//! (§5.4, `derandomize`, off by default): the probability accumulates from
//! arrival to arrival, no drop under 0.85, a forced drop from 8.5, a random one
//! in between, and every drop (an overflow included, Appendix B) restarts the
//! accumulation; the cap on the probability step (§5.5, `cap_drop_adjustment`,
//! on by default): at most +2 % per update once the probability is ≥ 10 %.
//!
//! Where this departs from the basic pseudo-code of Appendix A (the reference
//! model in `rfc8033.rs` follows each choice explicitly):
//! - queue delay: `qdelay = backlog · 8 / rate`, with the link's current rate
//!   from [`QueueCtx::rate_bps`] at the update, instead of the timestamp of the
//!   last departing packet (Appendix A) or the §5.2 dequeue-rate estimator
//!   (the link knows its rate);
//! - the burst allowance is refilled at the update, from the delay samples of
//!   this update and the previous one (§4.4's wording), not on arrival;
//! - the buffer limits are checked first (as Appendix B's `queue_.is_full()`;
//!   the wrapper's admission, PIE's decision coming after it in
//!   [`Scheme::enqueue`]);
//! - PIE is active all the time (no §5.3 active/inactive switch).
//!
//! While the controller sits at its idle fixed point (empty queue, zero
//! probability and delays, full burst allowance) the update timer is parked;
//! it restarts on the next arrival on the same T_UPDATE grid, so decisions
//! equal those of an always-running timer.

use super::{DropCause, Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::units::Bytes;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// PIE's configuration: `{ scheme = "pie", target = "15ms", tupdate = "15ms",
/// alpha = 0.125, beta = 1.25, max_burst = "150ms", ecn = false }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieParams {
    /// QDELAY_REF, the target queue delay (§4.1): 15 ms.
    pub target: Dur,
    /// T_UPDATE, the period of the drop-probability update (§4.2): 15 ms.
    pub tupdate: Dur,
    /// Weight of the deviation from target, per second (§4.2): 0.125.
    pub alpha: f64,
    /// Weight of the delay trend, per second (§4.2): 1.25.
    pub beta: f64,
    /// MAX_BURST, the burst allowance (§4.4): 150 ms.
    pub max_burst: Dur,
    /// Mark ECN-capable packets instead of dropping while the probability is ≤ 10 % (§5.1).
    pub ecn: bool,
    /// De-randomised dropping with the accumulated probability (§5.4).
    pub derandomize: bool,
    /// Cap the probability step at 2 % once the probability is ≥ 10 % (§5.5).
    pub cap_drop_adjustment: bool,
    /// MEAN_PKTSIZE of §4.1, bytes: no early drop with at most two of these queued (1500 B).
    pub mean_packet: Bytes,
}

impl Default for PieParams {
    fn default() -> PieParams {
        PieParams {
            target: Dur::from_millis(15),
            tupdate: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            ecn: false,
            derandomize: false,
            cap_drop_adjustment: true,
            mean_packet: Bytes(1500),
        }
    }
}

impl PieParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.target == Dur::ZERO {
            return Err(format!("{key}.target: must be positive"));
        }
        if self.tupdate == Dur::ZERO {
            return Err(format!("{key}.tupdate: must be positive"));
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{key}.{name}: must be positive, got {v}"));
            }
        }
        Ok(())
    }
}

/// PIE's state (RFC 8033 §4 variables).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PieVars {
    /// Current drop probability, in [0, 1].
    pub drop_prob: f64,
    /// Queue delay at the previous update, seconds.
    pub qdelay_old: f64,
    /// Burst allowance left.
    pub burst_allowance: Dur,
    /// Accumulated probability for de-randomisation (§5.4).
    pub accu_prob: f64,
    /// When the next update is due; `None` while parked at the idle fixed point.
    pub next_update: Option<Time>,
    /// The update grid's origin (the first update time).
    pub grid: Time,
}

impl PieVars {
    /// Whether an update left the variables it changes exactly (bit for bit) as they were.
    fn same_state(&self, before: &PieVars) -> bool {
        self.drop_prob.to_bits() == before.drop_prob.to_bits()
            && self.qdelay_old.to_bits() == before.qdelay_old.to_bits()
            && self.burst_allowance == before.burst_allowance
    }
}

/// PIE on a FIFO; arrivals that do not fit the buffer limits are tail-dropped.
pub struct Pie {
    fifo: Fifo,
    params: PieParams,
    /// `params.target` in seconds.
    target_s: f64,
    vars: PieVars,
    rng: Rng,
}

impl Pie {
    pub fn new(params: &PieParams, rng: Rng) -> Pie {
        let vars = PieVars {
            burst_allowance: params.max_burst,
            next_update: Some(Time::ZERO + params.tupdate),
            grid: Time::ZERO + params.tupdate,
            ..PieVars::default()
        };
        let target_s = params.target.as_secs_f64();
        Pie { fifo: Fifo::default(), params: params.clone(), target_s, vars, rng }
    }

    pub fn vars(&self) -> &PieVars {
        &self.vars
    }

    fn qdelay(&self, rate_bps: f64) -> f64 {
        self.fifo.bytes() as f64 * 8.0 / rate_bps
    }

    /// §4.1 `drop_early`: whether to drop (or mark) an arrival, given the
    /// burst allowance is spent.
    fn drop_early(&mut self) -> bool {
        let (p, v) = (&self.params, &mut self.vars);
        // §4.1: safeguard to keep PIE work-conserving; `fifo.bytes()` is the
        // backlog the packet finds, not counting it.
        if (v.qdelay_old < self.target_s / 2.0 && v.drop_prob < 0.2) || self.fifo.bytes() <= 2 * p.mean_packet.0 {
            return false;
        }
        if p.derandomize {
            // §5.4: accumulate the probability; no drop below 0.85, a forced one
            // from 8.5, a random one in between. [`Pie::drop`] restarts it.
            if v.drop_prob == 0.0 {
                v.accu_prob = 0.0;
            }
            v.accu_prob += v.drop_prob;
            if v.accu_prob < 0.85 {
                return false;
            }
            if v.accu_prob >= 8.5 {
                return true;
            }
        }
        self.rng.random::<f64>() < v.drop_prob
    }

    /// Drops the arrival `pkt`. §5.4, Appendix B: every drop, an overflow
    /// included, restarts the accumulated probability (`accu_prob_ = 0`).
    fn drop(&mut self, pkt: Packet, cause: DropCause, tally: &mut Tally) {
        self.vars.accu_prob = 0.0;
        tally.drop(pkt, cause);
    }

    /// §4.2 `calculate_drop_prob` and §4.4 burst allowance, at one update
    /// that finds the queue delay `qdelay` (seconds).
    fn update(&mut self, qdelay: f64) {
        let (p, v, target) = (&self.params, &mut self.vars, self.target_s);
        let mut step = p.alpha * (qdelay - target) + p.beta * (qdelay - v.qdelay_old);
        // §4.2: auto-tune the step to the current probability's range (divide
        // by 2, 8, ..., 2048 below 10%, 1%, ..., 0.0001%: multiplying by the
        // reciprocal powers of two is exact). Tested from the top, where a
        // congested PIE spends most updates.
        step *= match v.drop_prob {
            x if x >= 0.1 => 1.0,
            x if x >= 0.01 => 1.0 / 2.0,
            x if x >= 0.001 => 1.0 / 8.0,
            x if x >= 0.0001 => 1.0 / 32.0,
            x if x >= 0.00001 => 1.0 / 128.0,
            x if x >= 0.000001 => 1.0 / 512.0,
            _ => 1.0 / 2048.0,
        };
        // §5.5: cap drop adjustment.
        if p.cap_drop_adjustment && v.drop_prob >= 0.1 && step > 0.02 {
            step = 0.02;
        }
        v.drop_prob += step;
        // §4.2: decay when the queue has been empty at two updates.
        if qdelay == 0.0 && v.qdelay_old == 0.0 {
            v.drop_prob *= 0.98;
        }
        v.drop_prob = v.drop_prob.clamp(0.0, 1.0);
        // §4.4: spend the burst allowance; refill it when congestion is gone.
        v.burst_allowance = v.burst_allowance - p.tupdate;
        if v.drop_prob == 0.0 && qdelay < target / 2.0 && v.qdelay_old < target / 2.0 {
            v.burst_allowance = p.max_burst;
        }
        v.qdelay_old = qdelay;
    }

    /// Runs the updates due by `ctx.now`, one per `tupdate` on the grid, before
    /// anything else happens at `now`. The updates change only PIE's state, which is
    /// read at the next arrival, and the backlog and rate they read do not change
    /// between calls, so running them late gives the same decisions as a timer would
    /// (see [`super::QueueDisc::on_timer`]) without an event every 15 ms.
    ///
    /// For the same reason, once an update leaves the state as it was (the
    /// probability pinned at 0 or 1 behind a steady backlog, the burst allowance
    /// spent), every further update due by `now` would too: they are skipped to
    /// the first grid point after `now`. On a slow link, where a packet takes
    /// many update periods, that is most of them.
    fn catch_up(&mut self, ctx: &QueueCtx) {
        let Some(mut due) = self.vars.next_update.filter(|&t| t <= ctx.now) else { return };
        let (tupdate, qdelay) = (self.params.tupdate, self.qdelay(ctx.rate_bps));
        while due <= ctx.now {
            let before = self.vars;
            self.update(qdelay);
            if self.idle() {
                self.vars.next_update = None;
                return;
            }
            due = match self.vars.same_state(&before) {
                true => due + tupdate * (ctx.now.since(due).0 / tupdate.0 + 1),
                false => due + tupdate,
            };
        }
        self.vars.next_update = Some(due);
    }

    /// Whether the controller is at its idle fixed point, where updates change nothing.
    fn idle(&self) -> bool {
        self.fifo.is_empty()
            && self.vars.drop_prob == 0.0
            && self.vars.qdelay_old == 0.0
            && self.vars.burst_allowance == self.params.max_burst
    }
}

impl Scheme for Pie {
    /// The updates due by now, before the arrival is judged.
    fn on_arrival(&mut self, pkt: Packet, ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        self.catch_up(ctx);
        if self.vars.next_update.is_none() {
            // Restart the parked timer on its grid: the first grid point after now.
            let k = ctx.now.since(self.vars.grid).0 / self.params.tupdate.0 + 1;
            self.vars.next_update = Some(self.vars.grid + self.params.tupdate * k);
        }
        Some(pkt)
    }

    /// Appendix B: an overflow drop restarts the accumulated probability too.
    fn on_overflow(&mut self, pkt: Packet, _limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        self.drop(pkt, DropCause::Overflow, tally);
        None
    }

    /// §4.1, §4.4: random early drop once the burst allowance is spent.
    fn enqueue(&mut self, mut pkt: Packet, _ctx: &QueueCtx, tally: &mut Tally) {
        if self.vars.burst_allowance == Dur::ZERO && self.drop_early() {
            // §5.1: mark instead while the probability is at most MAX_ECNTH.
            let marked = self.vars.drop_prob <= 0.1 && tally.try_mark(self.params.ecn, &mut pkt);
            if !marked {
                self.drop(pkt, DropCause::Early, tally);
                return;
            }
        }
        self.fifo.push_back(pkt);
    }

    fn dequeue(&mut self, ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        self.catch_up(ctx);
        self.fifo.pop_front()
    }

    fn on_timer(&mut self, ctx: &QueueCtx, _tally: &mut Tally) {
        self.catch_up(ctx);
    }

    fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ctx_at, ect, ops, pkt, run, Step::*};
    use crate::queue::DropCause::{Early, Overflow};
    use crate::queue::{Disc, QueueDisc};
    use crate::rng::stream;
    use proptest::prelude::*;

    const RATE: f64 = 1e6;

    fn pie(params: &PieParams, limits: Limits, rng: crate::rng::Rng) -> Disc<Pie> {
        Disc::new(limits, Pie::new(params, rng))
    }

    fn vars(q: &mut Disc<Pie>) -> &mut PieVars {
        &mut q.scheme_mut().vars
    }

    fn tick(q: &mut Disc<Pie>, ms: f64) {
        q.on_timer(&ctx_at(ms, RATE), &mut Vec::new());
    }

    #[test]
    fn update_follows_the_pi_law_with_auto_tuning() {
        let mut q = pie(&PieParams::default(), Limits::default(), stream(1, "pie"));
        let mut d = Vec::new();
        // 30 packets of 1250 B = 37 500 B = 300 ms of queue at 1 Mb/s.
        for uid in 0..30 {
            q.enqueue(pkt(uid, 1250), &ctx_at(1.0, RATE), &mut d);
        }
        assert!(d.is_empty(), "burst allowance protects the burst");
        // First update at 15 ms: p = 0.125·(0.3 − 0.015) + 1.25·(0.3 − 0) = 0.410625,
        // divided by 2048 as drop_prob < 1e-6: 0.000200500...
        tick(&mut q, 15.0);
        let p1 = (0.125 * (0.3 - 0.015) + 1.25 * 0.3) / 2048.0;
        assert!((q.scheme().vars().drop_prob - p1).abs() < 1e-12);
        assert_eq!(q.scheme().vars().burst_allowance, Dur::from_millis(135));
        // Second update: delay unchanged, p = 0.125·0.285 = 0.035625, drop_prob in
        // [1e-4, 1e-3) so divided by 32.
        tick(&mut q, 30.0);
        let p2 = p1 + 0.125 * 0.285 / 32.0;
        assert!((q.scheme().vars().drop_prob - p2).abs() < 1e-12);
        // Ten updates spend the burst allowance (150 ms / 15 ms).
        for k in 3..=10 {
            tick(&mut q, 15.0 * k as f64);
        }
        assert_eq!(q.scheme().vars().burst_allowance, Dur::ZERO);
    }

    #[test]
    fn drops_early_after_the_burst_allowance_and_idles_back() {
        let params = PieParams { max_burst: Dur::ZERO, ..PieParams::default() };
        let mut q = pie(&params, Limits::default(), stream(2, "pie"));
        vars(&mut q).drop_prob = 1.0;
        vars(&mut q).qdelay_old = 0.1;
        let mut d = Vec::new();
        // Arrivals finding ≤ 2·MEAN_PKTSIZE = 3000 B queued are accepted (0, 1, 2),
        // the fourth is dropped (probability 1).
        for uid in 0..4 {
            q.enqueue(pkt(uid, 1500), &ctx_at(0.0, RATE), &mut d);
        }
        assert_eq!(d.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(3, DropCause::Early)]);
        // ECN (with de-randomisation to force the decision: accu_prob reaches 8.5):
        // at a probability of 10 % an ECT arrival is marked, above it dropped.
        let ecn = PieParams { ecn: true, derandomize: true, ..params.clone() };
        let mut q2 = pie(&ecn, Limits::default(), stream(2, "pie"));
        let v = vars(&mut q2);
        (v.drop_prob, v.qdelay_old, v.accu_prob) = (0.1, 0.1, 8.4);
        d.clear();
        for uid in 0..4 {
            q2.enqueue(ect(uid, 1500), &ctx_at(0.0, RATE), &mut d);
        }
        assert_eq!((d.len(), q2.packets(), q2.stats().marked), (0, 4, 1));
        let v = vars(&mut q2);
        (v.drop_prob, v.accu_prob) = (0.11, 8.4);
        q2.enqueue(ect(4, 1500), &ctx_at(0.0, RATE), &mut d);
        assert_eq!(d.iter().map(|d| d.pkt.uid).collect::<Vec<_>>(), vec![4]);
        // Drain and let it idle: the update schedule parks at the fixed point.
        while q.dequeue(&ctx_at(1.0, RATE), &mut d).is_some() {}
        vars(&mut q).drop_prob = 0.0;
        vars(&mut q).burst_allowance = params.max_burst;
        tick(&mut q, 15.0);
        assert_eq!(vars(&mut q).next_update, None);
        // The next arrival at 100 ms restarts it on the 15 ms grid: 105 ms.
        q.enqueue(pkt(9, 100), &ctx_at(100.0, RATE), &mut d);
        assert_eq!(vars(&mut q).next_update, Some(Time::from_secs_f64(0.105)));
        // The updates run lazily, at the next call: PIE never asks for a timer event.
        assert_eq!(q.next_timer(), None);
    }

    /// RFC 8033 §5.4 and Appendix B: every drop, forced or drawn, and every
    /// overflow drop restarts the accumulated probability at 0.
    #[test]
    fn derandomised_accumulation_restarts_at_every_drop() {
        let params = PieParams { max_burst: Dur::ZERO, derandomize: true, ..PieParams::default() };
        let limits = Limits { bytes: None, packets: Some(5) };
        let mut q = pie(&params, limits, stream(4, "pie"));
        // Congested (qdelay_old ≥ target/2) at probability 0.4, without updates.
        let v = vars(&mut q);
        (v.drop_prob, v.qdelay_old) = (0.4, 0.1);
        // Three 1500 B packets: the third finds 3000 B ≤ 2·MEAN_PKTSIZE queued, so
        // drop_early returns before accumulating; accu_prob stays 0.
        run(&mut q, &[Arrive(0.0, pkt(0, 1500), &[]), Arrive(0.0, pkt(1, 1500), &[]), Arrive(0.0, pkt(2, 1500), &[])]);
        assert_eq!(vars(&mut q).accu_prob, 0.0);
        // accu_prob 8.2 + 0.4 = 8.6 ≥ 8.5: forced drop, accu_prob := 0. Then
        // 0.4 < 0.85 and 0.8 < 0.85: both accepted (no random draw either time).
        vars(&mut q).accu_prob = 8.2;
        run(
            &mut q,
            &[Arrive(1.0, pkt(3, 1500), &[(3, Early)]), Arrive(2.0, pkt(4, 1500), &[]), Arrive(3.0, pkt(5, 1500), &[])],
        );
        assert!((vars(&mut q).accu_prob - 0.8).abs() < 1e-12, "{}", vars(&mut q).accu_prob);
        // The buffer (5 packets) is full: the overflow drop restarts it too, so the
        // next arrival, after a departure, accumulates 0.4 and is accepted.
        vars(&mut q).accu_prob = 8.3;
        run(
            &mut q,
            &[Arrive(4.0, pkt(6, 1500), &[(6, Overflow)]), Depart(5.0, Some(0), &[]), Arrive(6.0, pkt(7, 1500), &[])],
        );
        assert!((vars(&mut q).accu_prob - 0.4).abs() < 1e-12, "{}", vars(&mut q).accu_prob);
    }

    #[test]
    fn validation_names_the_key() {
        let p = PieParams { alpha: -1.0, ..PieParams::default() };
        assert_eq!(p.validate("bottleneck.queue").unwrap_err(), "bottleneck.queue.alpha: must be positive, got -1");
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::{testkit::scenario_queue, QueueConfig};
        let q = scenario_queue(
            r#"{ scheme = "pie", target = "15ms", tupdate = "15ms", alpha = 0.125, beta = 1.25, max_burst = "150ms", ecn = false }"#,
        )
        .unwrap();
        assert_eq!(q, QueueConfig::Pie(PieParams::default()));
        let e = scenario_queue(r#"{ scheme = "pie", tupdate = "0s" }"#).unwrap_err();
        assert!(e.contains("bottleneck.queue.tupdate: must be positive"), "{e}");
    }

    proptest! {
        #[test]
        fn conservation(ops in ops()) {
            let mut q = pie(&PieParams::default(), Limits { bytes: Some(30_000), packets: None }, stream(3, "pie"));
            check_invariants(&mut q, &ops);
        }
    }
}
