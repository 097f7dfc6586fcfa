//! Random early drop with a fixed probability: the smallest example scheme
//! (docs/queues.md).
//!
//! Rule: an arrival that does not fit the buffer limits is dropped
//! (`overflow`, by the wrapper); otherwise it is dropped with probability `p`
//! (`early`), else queued. Served first-in first-out.

use super::{DropCause, Fifo, QueueCtx, Scheme, Tally};
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
    pub fn new(params: &FixedDropParams, rng: Rng) -> FixedDrop {
        FixedDrop { fifo: Fifo::default(), p: params.p, rng }
    }
}

impl Scheme for FixedDrop {
    /// The arrival fits the buffer limits (the wrapper has checked them).
    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, tally: &mut Tally) {
        if self.rng.random::<f64>() < self.p {
            tally.drop(pkt, DropCause::Early);
        } else {
            self.fifo.push_back(pkt);
        }
    }

    fn dequeue(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
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
    use crate::queue::{Disc, Limits, QueueDisc};
    use crate::rng::stream;

    /// The scheme in its wrapper, as `QueueConfig::build` makes it.
    fn fixed_drop(p: f64, limits: Limits) -> Disc<FixedDrop> {
        Disc::new(limits, FixedDrop::new(&FixedDropParams { p }, stream(1, "queue")))
    }

    #[test]
    fn scripted_p_0_and_p_1() {
        // p = 0 is tail drop: the second packet overflows a one-packet buffer.
        let one = Limits { bytes: None, packets: Some(1) };
        let mut q = fixed_drop(0.0, one);
        run(
            &mut q,
            &[Arrive(0.0, pkt(1, 1000), &[]), Arrive(1.0, pkt(2, 1000), &[(2, Overflow)]), Depart(2.0, Some(1), &[])],
        );
        // p = 1 drops every arrival early.
        let mut q = fixed_drop(1.0, Limits::default());
        run(&mut q, &[Arrive(0.0, pkt(1, 1000), &[(1, Early)]), Depart(1.0, None, &[])]);
    }

    #[test]
    fn drops_a_fraction_p() {
        let mut q = fixed_drop(0.1, Limits::default());
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
            check_invariants(&mut fixed_drop(0.2, limits), &ops);
        }
    }
}
