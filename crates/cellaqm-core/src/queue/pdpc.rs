//! PDPC, the Packet Discard Prevention Counter (Sågfors et al.), as in
//! Lakkakorpi & Cuny, WCNC 2006 (scheme 4, with ARED's rate-adaptive thresholds) and
//! the HS-DSCH study ("PDPC n (drop-front): t_min = n, counter spacing
//! 2·t_min, upper threshold 4·t_min", in packets: our reading of it drops
//! when q > n, so it is `thresholds = { min = n + 1, max = 4n }`, `counter = 2n`,
//! `drop = "front"`, tested packet for packet against that reading).
//!
//! Rule, deterministic, on the instantaneous queue at each arrival: below minTh
//! accept; between minTh and maxTh signal only when the counter is 0; at or
//! above maxTh signal. A signal sets the counter to N (default 20); every
//! accepted packet decrements it, so N packets are accepted between signals
//! unless maxTh is reached. The signal drops or ECN-marks the arrival (tail)
//! or the oldest packet (front).

use super::signal::{overflow, signal, DropPosition};
use super::thresholds::Thresholds;
use super::{Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// Parameters of `pdpc` (defaults: the WCDMA study's).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PdpcParams {
    /// Thresholds on the instantaneous queue (see [`Thresholds`]); default rate-adaptive as ARED.
    pub thresholds: Thresholds,
    /// N: packets that must be accepted after a signal before the next one below maxTh (packets).
    pub counter: u32,
    /// Which packet a signal falls on: `"tail"` (the arrival) or `"front"` (the oldest).
    pub drop: DropPosition,
    /// ECN-mark ECT packets instead of dropping them.
    pub ecn: bool,
}

impl Default for PdpcParams {
    fn default() -> Self {
        PdpcParams { thresholds: Thresholds::ADAPTIVE, counter: 20, drop: DropPosition::Tail, ecn: false }
    }
}

impl PdpcParams {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        super::signal::check_not_ns2(self.drop, &format!("{key}.drop"))?;
        self.thresholds.validate(&format!("{key}.thresholds"))
    }
}

/// A counter of packets that must be accepted before the next congestion
/// signal (PDPC's N; TTLRED1's "every N-th packet"): a signal sets it, every
/// packet queued without one counts it down.
#[derive(Clone, Copy, Debug)]
pub(super) struct DropCounter {
    /// The value a signal sets.
    reset: u32,
    left: u32,
    /// Whether the current arrival signalled (it then does not count down).
    hit: bool,
}

impl DropCounter {
    pub fn new(reset: u32) -> DropCounter {
        DropCounter { reset, left: 0, hit: false }
    }
    /// Whether a signal is allowed now.
    pub fn ready(&self) -> bool {
        self.left == 0
    }
    /// An arrival, which signals if `hit`; returns `hit`.
    pub fn arrival(&mut self, hit: bool) -> bool {
        self.hit = hit;
        if hit {
            self.left = self.reset;
        }
        hit
    }
    /// The arrival was queued.
    pub fn queued(&mut self) {
        if !self.hit {
            self.left = self.left.saturating_sub(1);
        }
    }
}

pub struct Pdpc {
    fifo: Fifo,
    thresholds: Thresholds,
    counter: DropCounter,
    position: DropPosition,
    ecn: bool,
}

impl Pdpc {
    pub fn new(params: &PdpcParams) -> Pdpc {
        Pdpc {
            fifo: Fifo::default(),
            thresholds: params.thresholds,
            counter: DropCounter::new(params.counter),
            position: params.drop,
            ecn: params.ecn,
        }
    }
}

impl Scheme for Pdpc {
    fn on_arrival(&mut self, pkt: Packet, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        let q = self.thresholds.measure().of(&self.fifo);
        let (min, max) = self.thresholds.at(ctx.rate_bps);
        let hit = q >= max || (q >= min && self.counter.ready());
        match self.counter.arrival(hit) {
            true => signal(&mut self.fifo, pkt, self.position, self.ecn, tally),
            false => Some(pkt),
        }
    }

    counted_fifo!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ect, ops, pkt, run, Step::*};
    use crate::queue::DropCause::{Early, Overflow};
    use crate::queue::{Disc, QueueDisc};
    use proptest::prelude::*;

    fn pdpc(params: &PdpcParams, limits: Limits) -> Disc<Pdpc> {
        Disc::new(limits, Pdpc::new(params))
    }

    #[test]
    fn scripted_counter_below_and_above_max_th() {
        // Packet thresholds minTh 2, maxTh 5, N = 3; q is the queue before the arrival.
        let params = PdpcParams { thresholds: Thresholds::packets(2, 5), counter: 3, ..PdpcParams::default() };
        let mut q = pdpc(&params, Limits::default());
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]),           // q 0 < minTh: accept (counter stays 0)
                Arrive(1.0, pkt(2, 1000), &[]),           // q 1
                Arrive(2.0, pkt(3, 1000), &[(3, Early)]), // q 2, counter 0: drop; counter := 3
                Arrive(3.0, pkt(4, 1000), &[]),           // q 2, counter 3: accept → 2
                Arrive(4.0, pkt(5, 1000), &[]),           // q 3: accept → 1
                Arrive(5.0, pkt(6, 1000), &[]),           // q 4: accept → 0
                Arrive(6.0, pkt(7, 1000), &[(7, Early)]), // q 5 ≥ maxTh: drop; counter := 3
                Arrive(7.0, pkt(8, 1000), &[(8, Early)]), // q 5 ≥ maxTh: drop although counter 3; := 3
                Depart(8.0, Some(1), &[]),
                Depart(9.0, Some(2), &[]),
                Depart(10.0, Some(4), &[]),
                Depart(11.0, Some(5), &[]),                  // q = 1: [6]
                Arrive(12.0, pkt(9, 1000), &[]),             // q 1 < minTh: accepted, counts: 3 → 2
                Arrive(13.0, pkt(10, 1000), &[]),            // q 2: counter 2 → accept → 1
                Arrive(14.0, pkt(11, 1000), &[]),            // q 3: counter 1 → accept → 0
                Arrive(15.0, pkt(12, 1000), &[(12, Early)]), // q 4, counter 0: drop
            ],
        );
        assert_eq!(q.packets(), 4);
    }

    #[test]
    fn scripted_hsdsch_front_variant_with_ecn_and_overflow() {
        // HS-DSCH "PDPC n" with n = 1: t_min 1, upper 4·t_min = 4, counter 2·t_min = 2, drop-front;
        // buffer 8·t_min = 8 packets is far away, so use a 4-packet buffer to show front overflow.
        let params =
            PdpcParams { thresholds: Thresholds::packets(1, 4), counter: 2, drop: DropPosition::Front, ecn: true };
        let mut q = pdpc(&params, Limits { bytes: None, packets: Some(4) });
        run(
            &mut q,
            &[
                Arrive(0.0, ect(1, 1000), &[]),           // q 0 < minTh
                Arrive(1.0, pkt(2, 1000), &[]), // q 1, counter 0: signal on the head: 1 is ECT → marked; 2 in; := 2
                Arrive(2.0, pkt(3, 1000), &[]), // q 2: counter 2 → 1
                Arrive(3.0, pkt(4, 1000), &[]), // q 3: counter 1 → 0
                Arrive(4.0, pkt(5, 1000), &[(1, Early)]), // q 4 ≥ maxTh: head 1 is CE (not ECT) → dropped; 5 in
                Arrive(5.0, pkt(6, 1000), &[(2, Early)]), // q 4 again: head 2 dropped
                Depart(6.0, Some(3), &[]),
            ],
        );
        assert_eq!((q.packets(), q.stats().marked), (3, 1));
        // Overflow at the front: thresholds out of reach, 2-packet buffer.
        let far =
            PdpcParams { thresholds: Thresholds::packets(10, 40), drop: DropPosition::Front, ..PdpcParams::default() };
        let mut q = pdpc(&far, Limits { bytes: None, packets: Some(2) });
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 100), &[]),
                Arrive(0.0, pkt(2, 100), &[]),
                Arrive(0.0, pkt(3, 100), &[(1, crate::queue::DropCause::OverflowFront)]),
            ],
        );
        let tail = PdpcParams { thresholds: Thresholds::packets(10, 40), ..PdpcParams::default() };
        let mut q = pdpc(&tail, Limits { bytes: None, packets: Some(1) });
        run(&mut q, &[Arrive(0.0, pkt(1, 100), &[]), Arrive(0.0, pkt(2, 100), &[(2, Overflow)])]);
    }

    /// The HS-DSCH study's "PDPC n" as we read it (the study does not reproduce Sågfors' state chart):
    /// ```text
    /// on arrival (q = packets queued): enqueue;
    ///   if q >= 4n: drop oldest; C := 2n  elif q > n and C == 0: drop oldest; C := 2n  else C := max(0, C − 1)
    /// ```
    /// is this scheme with thresholds { min = n + 1, max = 4n } packets,
    /// counter 2n and drop-front (q > n is q ≥ n + 1): the same drops, packet
    /// for packet, on random arrivals and departures.
    fn spec_pdpc(n: usize, ops: &[bool]) -> Vec<Vec<u64>> {
        let (mut queue, mut c, mut out) = (std::collections::VecDeque::new(), 0usize, Vec::new());
        for (uid, &arrive) in ops.iter().enumerate() {
            let mut dropped = Vec::new();
            if arrive {
                let q = queue.len();
                queue.push_back(uid as u64);
                if q >= 4 * n || (q > n && c == 0) {
                    dropped.push(queue.pop_front().expect("q ≥ 1"));
                    c = 2 * n;
                } else {
                    c = c.saturating_sub(1);
                }
            } else {
                queue.pop_front();
            }
            out.push(dropped);
        }
        out
    }

    proptest! {
        #[test]
        fn the_hsdsch_spec_pdpc_n_is_this_scheme(n in 1usize..6, ops in proptest::collection::vec(proptest::bool::weighted(0.65), 1..400)) {
            let params = PdpcParams {
                thresholds: Thresholds::packets(n as u32 + 1, 4 * n as u32),
                counter: 2 * n as u32,
                drop: DropPosition::Front,
                ecn: false,
            };
            let mut q = pdpc(&params, Limits::default());
            let ctx = QueueCtx { now: crate::time::Time::ZERO, rate_bps: 1e6 };
            let ours: Vec<Vec<u64>> = ops.iter().enumerate().map(|(uid, &arrive)| {
                let mut dropped = Vec::new();
                if arrive {
                    q.enqueue(pkt(uid as u64, 1500), &ctx, &mut dropped);
                } else {
                    q.dequeue(&ctx, &mut dropped);
                }
                dropped.iter().map(|d| d.pkt.uid).collect()
            }).collect();
            prop_assert_eq!(ours, spec_pdpc(n, &ops));
        }
    }

    #[test]
    fn defaults_are_the_wcdma_study_and_validation_names_the_key() {
        let p: PdpcParams = toml::from_str("").unwrap();
        assert_eq!((p.thresholds, p.counter, p.drop, p.ecn), (Thresholds::ADAPTIVE, 20, DropPosition::Tail, false));
        let bad = PdpcParams { thresholds: Thresholds::packets(4, 4), ..PdpcParams::default() };
        assert_eq!(bad.validate("bottleneck.queue"), Err("bottleneck.queue.thresholds.max: must exceed min".into()));
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::testkit::scenario_queue;
        use crate::queue::QueueConfig;
        assert_eq!(scenario_queue(r#"{ scheme = "pdpc" }"#), Ok(QueueConfig::Pdpc(PdpcParams::default())));
        // HS-DSCH "PDPC n", n = 10.
        let q =
            scenario_queue(r#"{ scheme = "pdpc", thresholds = { min = 10, max = 40 }, counter = 20, drop = "front" }"#);
        let want =
            PdpcParams { thresholds: Thresholds::packets(10, 40), counter: 20, drop: DropPosition::Front, ecn: false };
        assert_eq!(q, Ok(QueueConfig::Pdpc(want)));
        let e = scenario_queue(r#"{ scheme = "pdpc", thresholds = { ratio = 0.5 } }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.thresholds.ratio: must exceed 1, got 0.5");
        let e = scenario_queue(r#"{ scheme = "pdpc", counter = -1 }"#).unwrap_err();
        assert!(e.starts_with("bottleneck.queue"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn invariants(ops in ops(), front: bool, ecn: bool, counter in 0..30u32) {
            let params = PdpcParams {
                thresholds: Thresholds::bytes(3000, 12_000),
                counter,
                drop: if front { DropPosition::Front } else { DropPosition::Tail },
                ecn,
            };
            check_invariants(&mut pdpc(&params, Limits { bytes: Some(20_000), packets: Some(30) }), &ops);
        }
    }
}
