//! CoDel, Controlled Delay (RFC 8289).
//!
//! Rule: at each departure, look at the sojourn time of the head packet. When
//! it has stayed at or above `target` for a whole `interval` (and more than
//! one MTU is queued, RFC 8289 §4.2), enter the dropping state: drop the head,
//! then drop again at times spaced by the control law `interval / √count`
//! (§4.3), until the sojourn time falls below `target` (drops are
//! `target_exceeded`; ECN-capable packets are marked instead when `ecn` is on).
//!
//! As in Linux (`include/net/codel.h`), the state is split into
//! [`CodelParams`] (configuration) and [`CodelVars`] (the controller's state);
//! Linux's third part, `codel_stats`, is the wrapper's [`super::QueueStats`]
//! (drops by cause, marks), which [`dequeue`] reports to through a [`Tally`].
//! The algorithm reaches its packets only through the [`CodelQueue`] trait,
//! so the single-queue [`Codel`] and FQ-CoDel's per-flow queues share one
//! implementation. The square root is computed exactly (no Newton step as in Linux).
//!
//! Where this departs from RFC 8289's pseudocode (the reference model in
//! `rfc8289.rs` follows each choice explicitly):
//! - `maxpacket` is the `mtu` parameter (the RFC's constant is 512 bytes,
//!   "SHOULD use interface MTU");
//! - with `ecn` on, where the pseudocode drops an ECN-capable packet it is
//!   marked CE and sent instead, as in Linux: entering the dropping state sets
//!   `count` and `drop_next` as for a drop; in the dropping state the mark
//!   counts and schedules the next signal as a drop would, and ends the
//!   departure;
//! - an arrival that does not fit the buffer limits is tail-dropped
//!   (`overflow`, the wrapper's default); the RFC leaves the queue's limit to `queue_t`;
//! - times are integer nanoseconds, the control law's `interval/√count`
//!   truncated to whole nanoseconds.

use super::{DropCause, Fifo, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::time::{Dur, Time};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// CoDel's configuration: `{ scheme = "codel", target = "5ms", interval = "100ms", ecn = false }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelParams {
    /// Acceptable standing queue delay (sojourn time), RFC 8289 §4.4: 5 ms.
    pub target: Dur,
    /// Window over which the sojourn time must stay above `target` before
    /// dropping starts, and the base of the control law, §4.5: 100 ms.
    pub interval: Dur,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
    /// MAXPACKET of §4.2, in bytes: with this much or less queued after the
    /// head leaves, the sojourn time never counts as above target (1500 B).
    pub mtu: Bytes,
}

impl Default for CodelParams {
    fn default() -> CodelParams {
        CodelParams { target: Dur::from_millis(5), interval: Dur::from_millis(100), ecn: false, mtu: Bytes(1500) }
    }
}

impl CodelParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.target == Dur::ZERO {
            return Err(format!("{key}.target: must be positive"));
        }
        if self.interval == Dur::ZERO {
            return Err(format!("{key}.interval: must be positive"));
        }
        if self.target >= self.interval {
            return Err(format!("{key}.target: must be less than interval ({})", self.interval));
        }
        if self.mtu.0 == 0 {
            return Err(format!("{key}.mtu: must be positive"));
        }
        Ok(())
    }
}

/// The controller's state (RFC 8289 §5.2 member variables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops (or marks) since entering the dropping state.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// Whether in the dropping state.
    pub dropping: bool,
    /// When the sojourn time will have been above target for an interval;
    /// `None` while it is below target.
    pub first_above_time: Option<Time>,
    /// When the next drop is due in the dropping state.
    pub drop_next: Time,
}

/// The queue CoDel dequeues from.
pub trait CodelQueue {
    /// Removes and returns the head packet.
    fn pop(&mut self) -> Option<Packet>;
    /// Bytes still queued.
    fn backlog(&self) -> u64;
}

impl CodelQueue for Fifo {
    fn pop(&mut self) -> Option<Packet> {
        self.pop_front()
    }
    fn backlog(&self) -> u64 {
        self.bytes()
    }
}

/// RFC 8289 §4.3: the next drop time, `t + interval / √count`.
pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    t + Dur((interval.0 as f64 / (count as f64).sqrt()) as u64)
}

/// RFC 8289 §5.4 `dodequeue`: the head packet and whether it may be dropped.
fn do_dequeue(q: &mut impl CodelQueue, p: &CodelParams, v: &mut CodelVars, now: Time) -> (Option<Packet>, bool) {
    let Some(pkt) = q.pop() else {
        v.first_above_time = None; // §5.4: the queue is empty
        return (None, false);
    };
    let sojourn = now.since(pkt.enqueued_at);
    // §4.2: below target, or no more than one MTU left behind.
    if sojourn < p.target || q.backlog() <= p.mtu.0 {
        v.first_above_time = None;
        (Some(pkt), false)
    } else if let Some(first_above) = v.first_above_time {
        (Some(pkt), now >= first_above)
    } else {
        v.first_above_time = Some(now + p.interval);
        (Some(pkt), false)
    }
}

/// RFC 8289 §5.5 `dequeue`: the next packet to send from `q` at `now`;
/// packets dropped on the way go to `tally` (cause `target_exceeded`), as
/// marks do (ECN-capable packets, when `ecn` is on).
pub fn dequeue(
    q: &mut impl CodelQueue,
    p: &CodelParams,
    v: &mut CodelVars,
    now: Time,
    tally: &mut Tally,
) -> Option<Packet> {
    let (mut pkt, mut ok_to_drop) = do_dequeue(q, p, v, now);
    let Some(mut head) = pkt else {
        v.dropping = false;
        return None;
    };
    if v.dropping {
        if !ok_to_drop {
            v.dropping = false; // §5.5: sojourn time below target, leave the dropping state
        }
        // §4.3: drop at the control-law times while still above target.
        while v.dropping && now >= v.drop_next {
            v.count += 1;
            if tally.try_mark(p.ecn, &mut head) {
                v.drop_next = control_law(v.drop_next, p.interval, v.count);
                return Some(head);
            }
            tally.drop(head, DropCause::TargetExceeded);
            (pkt, ok_to_drop) = do_dequeue(q, p, v, now);
            match pkt {
                Some(next) if ok_to_drop => {
                    head = next;
                    v.drop_next = control_law(v.drop_next, p.interval, v.count);
                }
                Some(next) => {
                    head = next;
                    v.dropping = false;
                }
                None => {
                    v.dropping = false;
                    return None;
                }
            }
        }
        Some(head)
    } else if ok_to_drop {
        // §4.3, §5.5: enter the dropping state with one drop (or mark).
        let out = if tally.try_mark(p.ecn, &mut head) {
            Some(head)
        } else {
            tally.drop(head, DropCause::TargetExceeded);
            do_dequeue(q, p, v, now).0
        };
        v.dropping = true;
        // §5.5: resume near the previous drop rate if the last dropping state was recent.
        let delta = v.count.wrapping_sub(v.lastcount);
        v.count = if delta > 1 && now.since(v.drop_next) < p.interval * 16 { delta } else { 1 };
        v.drop_next = control_law(now, p.interval, v.count);
        v.lastcount = v.count;
        out
    } else {
        Some(head)
    }
}

/// CoDel on a single FIFO; arrivals that do not fit the buffer limits are tail-dropped.
pub struct Codel {
    fifo: Fifo,
    params: CodelParams,
    vars: CodelVars,
}

impl Codel {
    pub fn new(params: &CodelParams) -> Codel {
        Codel { fifo: Fifo::default(), params: params.clone(), vars: CodelVars::default() }
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl Scheme for Codel {
    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        self.fifo.push_back(pkt);
    }

    fn dequeue(&mut self, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        dequeue(&mut self.fifo, &self.params, &mut self.vars, ctx.now, tally)
    }

    fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::testkit::{check_invariants, ctx_at, ect, ops, pkt};
    use crate::queue::{Disc, Dropped, Limits, QueueDisc};
    use proptest::prelude::*;

    fn codel(params: &CodelParams, limits: Limits) -> Disc<Codel> {
        Disc::new(limits, Codel::new(params))
    }

    fn drops(d: &[Dropped]) -> Vec<u64> {
        d.iter().map(|d| d.pkt.uid).collect()
    }

    /// ns-3's hand-timed scenario (codel-queue-disc-test-suite, "dropping
    /// state" case), replayed with target 5 ms, interval 100 ms: 20 packets of
    /// 1000 B at t = 0, then dequeues at chosen times.
    #[test]
    fn drop_spacing_follows_interval_over_sqrt_count() {
        let mut q = codel(&CodelParams::default(), Limits::default());
        let mut d = Vec::new();
        for uid in 0..20 {
            q.enqueue(pkt(uid, 1000), &ctx_at(0.0, 1e6), &mut d);
        }
        fn deq(q: &mut Disc<Codel>, ms: f64, d: &mut Vec<Dropped>) -> Option<u64> {
            q.dequeue(&ctx_at(ms, 1e6), d).map(|p| p.uid)
        }
        // t = 10 ms (2·target): sojourn 10 ms ≥ target, first_above_time := 110 ms; sent.
        assert_eq!(deq(&mut q, 10.0, &mut d), Some(0));
        // t = 60 ms: still above target but before first_above_time; sent.
        assert_eq!(deq(&mut q, 60.0, &mut d), Some(1));
        assert!(d.is_empty());
        // t = 110 ms = first_above_time: ok_to_drop, packet 2 dropped, count = 1,
        // drop_next = 110 + 100/√1 = 210 ms; packet 3 sent.
        assert_eq!(deq(&mut q, 110.0, &mut d), Some(3));
        assert_eq!(drops(&d), vec![2]);
        assert_eq!((q.scheme().vars().count, q.scheme().vars().drop_next), (1, Time::from_secs_f64(0.210)));
        // t = 209 ms: before drop_next, no drop.
        d.clear();
        assert_eq!(deq(&mut q, 209.0, &mut d), Some(4));
        assert!(d.is_empty());
        // t = 210 ms: drop packet 5, count = 2, drop_next = 210 + 100/√2 = 280.710678 ms.
        assert_eq!(deq(&mut q, 210.0, &mut d), Some(6));
        assert_eq!(drops(&d), vec![5]);
        assert_eq!(q.scheme().vars().count, 2);
        assert_eq!(q.scheme().vars().drop_next, Time(210_000_000 + 70_710_678));
        // t = 281 ms: drop packet 7, count = 3, spacing 100/√3 = 57.735026 ms.
        d.clear();
        assert_eq!(deq(&mut q, 281.0, &mut d), Some(8));
        assert_eq!(drops(&d), vec![7]);
        assert_eq!(q.scheme().vars().drop_next, Time(280_710_678 + 57_735_026));
        // t = 400 ms: past drop_next (338.4 ms) by more than one spacing: the loop
        // drops packet 9 (count 4, next 338.4 + 50 = 388.4 ms), then packet 10
        // (count 5, next 388.4 + 44.7 = 433.2 ms > 400), and sends 11.
        d.clear();
        assert_eq!(deq(&mut q, 400.0, &mut d), Some(11));
        assert_eq!(drops(&d), vec![9, 10]);
        assert_eq!(q.scheme().vars().count, 5);
    }

    #[test]
    fn leaves_the_dropping_state_below_target_and_keeps_one_mtu() {
        let mut q = codel(&CodelParams::default(), Limits::default());
        let mut d = Vec::new();
        for uid in 0..3 {
            q.enqueue(pkt(uid, 1000), &ctx_at(0.0, 1e6), &mut d);
        }
        // Sojourn 200 ms but after taking packet 0 only 2000 B > 1500 B remain:
        // first_above_time := 300 ms. Packet 1 leaves 1000 B ≤ MTU: reset.
        assert_eq!(q.dequeue(&ctx_at(200.0, 1e6), &mut d).map(|p| p.uid), Some(0));
        assert_eq!(q.scheme().vars().first_above_time, Some(Time::from_secs_f64(0.3)));
        assert_eq!(q.dequeue(&ctx_at(400.0, 1e6), &mut d).map(|p| p.uid), Some(1));
        assert_eq!(q.scheme().vars().first_above_time, None);
        assert!(d.is_empty());
    }

    #[test]
    fn marks_ect_packets_instead_of_dropping() {
        let params = CodelParams { ecn: true, ..CodelParams::default() };
        let mut q = codel(&params, Limits::default());
        let mut d = Vec::new();
        for uid in 0..10 {
            q.enqueue(ect(uid, 1000), &ctx_at(0.0, 1e6), &mut d);
        }
        q.dequeue(&ctx_at(10.0, 1e6), &mut d);
        // At first_above_time the head is marked, not dropped, and still sent.
        let p = q.dequeue(&ctx_at(110.0, 1e6), &mut d).unwrap();
        assert_eq!((p.uid, p.ecn, d.len()), (1, Ecn::Ce, 0));
        assert!(q.scheme().vars().dropping);
        assert_eq!(q.stats().marked, 1);
    }

    #[test]
    fn validation_names_the_key() {
        let p = CodelParams { target: Dur::ZERO, ..CodelParams::default() };
        assert_eq!(p.validate("bottleneck.queue").unwrap_err(), "bottleneck.queue.target: must be positive");
        let p = CodelParams { target: Dur::from_millis(200), ..CodelParams::default() };
        assert!(p.validate("q").unwrap_err().starts_with("q.target: must be less than interval"));
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::{testkit::scenario_queue, QueueConfig};
        let q = scenario_queue(r#"{ scheme = "codel", target = "5ms", interval = "100ms", ecn = false }"#).unwrap();
        assert_eq!(q, QueueConfig::Codel(CodelParams::default()));
        let e = scenario_queue(r#"{ scheme = "codel", target = "0ms" }"#).unwrap_err();
        assert!(e.contains("bottleneck.queue.target: must be positive"), "{e}");
        assert!(scenario_queue(r#"{ scheme = "codel", tagret = "5ms" }"#).is_err());
    }

    proptest! {
        #[test]
        fn conservation(ops in ops()) {
            let mut q = codel(&CodelParams::default(), Limits { bytes: Some(30_000), packets: None });
            check_invariants(&mut q, &ops);
        }
    }
}
