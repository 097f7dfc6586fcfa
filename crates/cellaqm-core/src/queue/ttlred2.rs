//! TTLRED2, TTL-based RED on buffered packets (Lakkakorpi & Cuny, WCNC 2006;
//! Lakkakorpi & Cuny, WCNC 2006, scheme 6).
//!
//! Rule: each packet gets a random lifetime on entry —
//! `if U(0,1) < maxDP: U(lowTh, 0.5·highTh) else U(0.5·highTh, highTh)`, lowTh
//! 0.5 s, highTh 3 s, maxDP 0.1 — or the highest, highTh, when it arrives to
//! an empty buffer or is a SYN (a new TCP flow). Every T = 10 ms (on the grid
//! k·T) the buffer is scanned and each packet whose entry time + lifetime has
//! passed is dropped (or ECN-marked, once), unless part of it has already
//! been sent (see [`super::QueueDisc::mark_started`]). Overflow drops the
//! arrival (the wrapper's default).

use super::red::check_probability;
use super::{DropCause, Fifo, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Parameters of `ttlred2` (defaults: the WCDMA study's).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ttlred2Params {
    /// Shortest lifetime (time).
    pub low_th: Dur,
    /// Longest lifetime (time); also the lifetime of a SYN or of a packet arriving to an empty buffer.
    pub high_th: Dur,
    /// Probability of a short lifetime, U(low_th, high_th/2) (probability, in (0, 1]).
    pub max_p: f64,
    /// Scan period T (time, > 0).
    pub scan: Dur,
    /// ECN-mark expired ECT packets instead of dropping them.
    pub ecn: bool,
}

impl Default for Ttlred2Params {
    fn default() -> Self {
        Ttlred2Params {
            low_th: Dur::from_millis(500),
            high_th: Dur::from_secs(3),
            max_p: 0.1,
            scan: Dur::from_millis(10),
            ecn: false,
        }
    }
}

impl Ttlred2Params {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.high_th == Dur::ZERO {
            return Err(format!("{key}.high_th: must be positive"));
        }
        if self.low_th.0 > self.high_th.0 / 2 {
            return Err(format!("{key}.low_th: must not exceed high_th / 2"));
        }
        check_probability(self.max_p, &format!("{key}.max_p"))?;
        if self.scan == Dur::ZERO {
            return Err(format!("{key}.scan: must be positive"));
        }
        Ok(())
    }
}

/// What TTLRED2 keeps per queued packet.
#[derive(Clone, Copy, Debug)]
struct Meta {
    uid: u64,
    /// Entry time + lifetime (`Time::MAX` once marked).
    deadline: Time,
    /// Part of the packet has been sent: it must not be dropped.
    started: bool,
}

pub struct Ttlred2 {
    params: Ttlred2Params,
    fifo: Fifo,
    /// One entry per queued packet, in queue order.
    meta: VecDeque<Meta>,
    /// The lifetime of the current arrival, given on arrival (before the
    /// buffer limits are checked, so an overflowing arrival draws one too).
    lifetime: Dur,
    next_scan: Time,
    rng: Rng,
}

impl Ttlred2 {
    pub fn new(params: &Ttlred2Params, rng: Rng) -> Ttlred2 {
        Ttlred2 {
            params: params.clone(),
            fifo: Fifo::default(),
            meta: VecDeque::new(),
            lifetime: Dur::ZERO,
            next_scan: Time::ZERO,
            rng,
        }
    }

    /// A random lifetime: U(lowTh, highTh/2) with probability maxDP, else U(highTh/2, highTh).
    fn draw_lifetime(&mut self) -> Dur {
        let (low, high) = (self.params.low_th.as_secs_f64(), self.params.high_th.as_secs_f64());
        let (a, b) = if self.rng.random::<f64>() < self.params.max_p { (low, 0.5 * high) } else { (0.5 * high, high) };
        Dur::from_secs_f64(a + (b - a) * self.rng.random::<f64>())
    }

    /// The first scan instant k·T after `now`.
    fn scan_after(&self, now: Time) -> Time {
        let t = self.params.scan.0;
        Time((now.0 / t + 1) * t)
    }
}

impl Scheme for Ttlred2 {
    fn on_arrival(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        self.lifetime = if self.fifo.is_empty() || pkt.is_syn() { self.params.high_th } else { self.draw_lifetime() };
        Some(pkt)
    }

    fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, _tally: &mut Tally) {
        self.meta.push_back(Meta { uid: pkt.uid, deadline: ctx.now + self.lifetime, started: false });
        self.fifo.push_back(pkt);
        if self.next_scan <= ctx.now {
            self.next_scan = self.scan_after(ctx.now);
        }
    }

    fn dequeue(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        self.meta.pop_front();
        self.fifo.pop_front()
    }

    fn on_timer(&mut self, ctx: &QueueCtx, tally: &mut Tally) {
        if ctx.now < self.next_scan {
            return;
        }
        self.next_scan = self.scan_after(ctx.now);
        let mut i = 0;
        while i < self.meta.len() {
            let m = self.meta[i];
            if m.started || m.deadline > ctx.now {
                i += 1;
            } else if tally.try_mark(self.params.ecn, self.fifo.get_mut(i).expect("meta and fifo align")) {
                self.meta[i].deadline = Time::MAX;
                i += 1;
            } else {
                let pkt = self.fifo.remove(i).expect("meta and fifo align");
                self.meta.remove(i);
                tally.drop(pkt, DropCause::Expired);
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        (!self.fifo.is_empty()).then_some(self.next_scan)
    }

    fn mark_started(&mut self, uid: u64) {
        if let Some(m) = self.meta.iter_mut().find(|m| m.uid == uid) {
            m.started = true;
        }
    }

    fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ect, ops, pkt, run, syn, Step::*};
    use crate::queue::DropCause::Expired;
    use crate::queue::{Disc, Limits, QueueDisc};
    use crate::rng::stream;

    /// lowTh 100 ms = highTh/2 and maxDP 1: every ordinary lifetime is U(100 ms, 100 ms) = 100 ms;
    /// a SYN or a packet entering an empty buffer gets highTh = 200 ms.
    fn fixed_lifetimes(ecn: bool) -> Disc<Ttlred2> {
        let params = Ttlred2Params {
            low_th: Dur::from_millis(100),
            high_th: Dur::from_millis(200),
            max_p: 1.0,
            ecn,
            ..Ttlred2Params::default()
        };
        Disc::new(Limits::default(), Ttlred2::new(&params, stream(1, "q")))
    }

    #[test]
    fn scripted_scan_spares_partly_sent_and_gives_syn_and_empty_buffer_the_longer_lifetime() {
        let mut q = fixed_lifetimes(false);
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]),  // empty buffer: lifetime 200 ms → 200 ms
                Arrive(1.0, pkt(2, 1000), &[]),  // 100 ms → 101 ms
                Arrive(2.0, syn(3, 60), &[]),    // SYN: 200 ms → 202 ms
                Arrive(3.0, pkt(4, 1000), &[]),  // → 103 ms
                Timer(5.0, &[]),                 // before the first scan at 10 ms: ignored
                Arrive(95.0, pkt(5, 1000), &[]), // → 195 ms
                Depart(96.0, Some(1), &[]),
                Started(2),                    // the link has sent part of 2 (still queued)
                Timer(100.0, &[]),             // scan at 100 ms: nothing has expired
                Timer(105.0, &[]),             // 4 expired at 103 ms, but the next scan is at 110 ms
                Timer(110.0, &[(4, Expired)]), // 2 expired too but is partly sent: spared
                Timer(200.0, &[(5, Expired)]), // 5 (195 ms) goes; the SYN (202 ms) stays
                Timer(210.0, &[(3, Expired)]),
                Depart(211.0, Some(2), &[]),
            ],
        );
        assert_eq!((q.packets(), q.next_timer()), (0, None));
    }

    #[test]
    fn scripted_ecn_marks_once_and_keeps_the_packet() {
        let mut q = fixed_lifetimes(true);
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]), // → 200 ms
                Arrive(1.0, ect(2, 1000), &[]), // → 101 ms, ECN-capable
                Arrive(2.0, pkt(3, 1000), &[]), // → 102 ms, not ECN-capable
            ],
        );
        assert_eq!(q.next_timer(), Some(Time(10_000_000)));
        run(&mut q, &[Timer(110.0, &[(3, Expired)]), Timer(120.0, &[])]);
        assert_eq!(q.stats().marked, 1);
        run(&mut q, &[Depart(121.0, Some(1), &[]), Depart(122.0, Some(2), &[])]);
    }

    #[test]
    fn lifetimes_follow_the_two_interval_law() {
        // Default: with probability 0.1 U(0.5 s, 1.5 s), else U(1.5 s, 3 s).
        let mut q = Ttlred2::new(&Ttlred2Params::default(), stream(5, "q"));
        let n = 20_000;
        let draws: Vec<f64> = (0..n).map(|_| q.draw_lifetime().as_secs_f64()).collect();
        assert!(draws.iter().all(|&l| (0.5..=3.0).contains(&l)));
        let short = draws.iter().filter(|&&l| l < 1.5).count() as f64 / n as f64;
        assert!((short - 0.1).abs() < 0.01, "{short}");
        let long_mean = draws.iter().filter(|&&l| l >= 1.5).sum::<f64>() / (n as f64 * (1.0 - short));
        assert!((long_mean - 2.25).abs() < 0.02, "{long_mean}");
    }

    #[test]
    fn validation_names_the_key() {
        let k = "bottleneck.queue";
        let p = Ttlred2Params { low_th: Dur::from_secs(2), ..Ttlred2Params::default() };
        assert_eq!(p.validate(k), Err("bottleneck.queue.low_th: must not exceed high_th / 2".into()));
        let p = Ttlred2Params { scan: Dur::ZERO, ..Ttlred2Params::default() };
        assert_eq!(p.validate(k), Err("bottleneck.queue.scan: must be positive".into()));
        let p = Ttlred2Params { max_p: 2.0, ..Ttlred2Params::default() };
        assert!(p.validate(k).unwrap_err().starts_with("bottleneck.queue.max_p:"));
        assert_eq!(Ttlred2Params::default().validate(k), Ok(()));
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::testkit::scenario_queue;
        use crate::queue::QueueConfig;
        let q = scenario_queue(
            r#"{ scheme = "ttlred2", low_th = "0.5s", high_th = "3s", max_p = 0.1, scan = "10ms", ecn = false }"#,
        );
        assert_eq!(q, Ok(QueueConfig::Ttlred2(Ttlred2Params::default())));
        let e = scenario_queue(r#"{ scheme = "ttlred2", scan = "0s" }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.scan: must be positive");
        let e = scenario_queue(r#"{ scheme = "ttlred2", scan = 10 }"#).unwrap_err();
        assert!(e.starts_with("bottleneck.queue.scan: expected a string with a unit, like \"70ms\""), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn invariants(ops in ops(), ecn: bool) {
            // Short lifetimes so the random sequences see expiries.
            let params = Ttlred2Params { low_th: Dur::from_millis(20), high_th: Dur::from_millis(200), ecn, ..Ttlred2Params::default() };
            check_invariants(&mut Disc::new(Limits { bytes: Some(20_000), packets: None }, Ttlred2::new(&params, stream(4, "q"))), &ops);
        }
    }
}
