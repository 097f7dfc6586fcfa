//! Random early drop with a fixed probability: the smallest example scheme
//! (docs/queues.md).
//!
//! Rule: an arrival that does not fit the buffer limits is dropped
//! (`overflow`); otherwise it is dropped with probability `p` (`early`), else
//! queued. Served first-in first-out.

use super::{DropCause, Dropped, Fifo, Limits, QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::rng::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Parameters of `fixed_drop`: `{ scheme = "fixed_drop", p = 0.01 }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FixedDropParams {
    /// Probability of dropping an arrival that fits (probability, in [0, 1]).
    pub p: f64,
}

impl Default for FixedDropParams {
    fn default() -> Self {
        FixedDropParams { p: 0.01 }
    }
}

impl FixedDropParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.p) {
            return Err(format!("{key}.p: must be in [0, 1], got {}", self.p));
        }
        Ok(())
    }
}

pub struct FixedDrop {
    fifo: Fifo,
    p: f64,
    rng: Rng,
}

impl FixedDrop {
    pub fn new(params: &FixedDropParams, limits: Limits, rng: Rng) -> FixedDrop {
        FixedDrop { fifo: Fifo::new(limits), p: params.p, rng }
    }
}

impl QueueDisc for FixedDrop {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) {
        if self.fifo.would_overflow(pkt.size) {
            dropped.push(Dropped { pkt, cause: DropCause::Overflow });
        } else if self.rng.random::<f64>() < self.p {
            dropped.push(Dropped { pkt, cause: DropCause::Early });
        } else {
            pkt.enqueued_at = ctx.now; // sojourn-time schemes and metrics read it
            self.fifo.push_back(pkt);
        }
    }

    fn dequeue(&mut self, _ctx: &QueueCtx, _dropped: &mut Vec<Dropped>) -> Option<Packet> {
        self.fifo.pop_front()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn packets(&self) -> usize {
        self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::DropCause::{Early, Overflow};
    use crate::rng::stream;

    #[test]
    fn scripted_p_0_and_p_1() {
        // p = 0 is tail drop: the second packet overflows a one-packet buffer.
        let one = Limits { bytes: None, packets: Some(1) };
        let mut q = FixedDrop::new(&FixedDropParams { p: 0.0 }, one, stream(1, "queue"));
        run(
            &mut q,
            &[Arrive(0.0, pkt(1, 1000), &[]), Arrive(1.0, pkt(2, 1000), &[(2, Overflow)]), Depart(2.0, Some(1), &[])],
        );
        // p = 1 drops every arrival early.
        let mut q = FixedDrop::new(&FixedDropParams { p: 1.0 }, Limits::default(), stream(1, "queue"));
        run(&mut q, &[Arrive(0.0, pkt(1, 1000), &[(1, Early)]), Depart(1.0, None, &[])]);
    }

    #[test]
    fn drops_a_fraction_p() {
        let mut q = FixedDrop::new(&FixedDropParams { p: 0.1 }, Limits::default(), stream(1, "queue"));
        let ctx = QueueCtx { now: crate::time::Time::ZERO, rate_bps: 1e6 };
        let mut dropped = Vec::new();
        for uid in 0..100_000 {
            q.enqueue(pkt(uid, 100), &ctx, &mut dropped);
        }
        assert!((dropped.len() as f64 / 1e5 - 0.1).abs() < 0.005, "{}", dropped.len());
    }

    #[test]
    fn validation_names_the_key() {
        let p = FixedDropParams { p: 1.5 };
        assert_eq!(p.validate("bottleneck.queue").unwrap_err(), "bottleneck.queue.p: must be in [0, 1], got 1.5");
    }

    proptest::proptest! {
        #[test]
        fn conservation(ops in ops()) {
            let limits = Limits { bytes: Some(30_000), packets: None };
            check_invariants(&mut FixedDrop::new(&FixedDropParams { p: 0.2 }, limits, stream(1, "queue")), &ops);
        }
    }
}
