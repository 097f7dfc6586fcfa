//! FQ-CoDel, the flow-queue CoDel packet scheduler (RFC 8290).
//!
//! Rule: arrivals are hashed by flow into `flows` queues (§4.1.1); a queue
//! that becomes active joins the new-flows list with one quantum of credit.
//! Departures serve the new-flows list before the old-flows list by deficit
//! round robin with `quantum` bytes (§4.2); each queue runs its own CoDel
//! ([`super::codel::dequeue`], §4.3). When an arrival does not fit the buffer
//! limits it is queued all the same, then packets are dropped from the head of
//! the queue holding the most bytes until the limits hold (§4.1, cause
//! `overflow_front`; [`Scheme::on_overflow`]).
//!
//! The hash is a fixed multiplicative hash of [`Packet::flow`] (no
//! perturbation: runs are deterministic).

use super::codel::{self, CodelParams, CodelQueue, CodelVars};
use super::{DropCause, Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::time::Dur;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// FQ-CoDel's configuration: `{ scheme = "fq_codel", flows = 1024, quantum =
/// "1514B", target = "5ms", interval = "100ms", ecn = false }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelParams {
    /// Number of flow queues (§4.1.1): 1024.
    pub flows: u32,
    /// DRR quantum in bytes (§4.2, §5.1): one MTU, 1514 B.
    pub quantum: Bytes,
    /// CoDel target per queue (§5.2): 5 ms.
    pub target: Dur,
    /// CoDel interval per queue (§5.2): 100 ms.
    pub interval: Dur,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for FqCodelParams {
    fn default() -> FqCodelParams {
        let c = CodelParams::default();
        FqCodelParams { flows: 1024, quantum: Bytes(1514), target: c.target, interval: c.interval, ecn: c.ecn }
    }
}

impl FqCodelParams {
    fn codel(&self) -> CodelParams {
        CodelParams { target: self.target, interval: self.interval, ecn: self.ecn, mtu: self.quantum }
    }

    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.flows == 0 {
            return Err(format!("{key}.flows: must be at least 1"));
        }
        if self.quantum.0 == 0 {
            return Err(format!("{key}.quantum: must be positive"));
        }
        self.codel().validate(key)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

/// One flow queue with its CoDel state and DRR credit.
#[derive(Debug, Default)]
struct FlowQueue {
    fifo: Fifo,
    codel: CodelVars,
    deficit: i64,
    list: Option<List>,
}

/// A flow queue seen by CoDel: popping also updates the scheduler's totals.
struct Counted<'a> {
    fifo: &'a mut Fifo,
    bytes: &'a mut u64,
    packets: &'a mut usize,
}

impl CodelQueue for Counted<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.fifo.pop_front()?;
        *self.bytes -= p.size as u64;
        *self.packets -= 1;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        self.fifo.bytes()
    }
}

pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    codel: CodelParams,
    quantum: i64,
    bytes: u64,
    packets: usize,
}

impl FqCodel {
    pub fn new(params: &FqCodelParams) -> FqCodel {
        FqCodel {
            queues: (0..params.flows).map(|_| FlowQueue::default()).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            codel: params.codel(),
            quantum: params.quantum.0 as i64,
            bytes: 0,
            packets: 0,
        }
    }

    /// §4.1.1: the queue of `pkt`'s flow.
    fn classify(&self, pkt: &Packet) -> usize {
        let h = (pkt.flow as u64 ^ 0x5bd1_e995).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        (h % self.queues.len() as u64) as usize
    }

    /// Whether the queued packets exceed `limits`.
    fn over(&self, limits: Limits) -> bool {
        limits.bytes.is_some_and(|b| self.bytes > b) || limits.packets.is_some_and(|p| self.packets > p as usize)
    }

    /// §4.1: drop the head of the fattest queue.
    fn drop_from_fattest(&mut self, tally: &mut Tally) {
        let fat = (0..self.queues.len()).max_by_key(|&i| self.queues[i].fifo.bytes()).expect("at least one queue");
        let head = self.queues[fat].fifo.pop_front().expect("over the limit with packets queued");
        self.bytes -= head.size as u64;
        self.packets -= 1;
        tally.drop(head, DropCause::OverflowFront);
    }
}

impl Scheme for FqCodel {
    /// §4.1: queue the arrival, then drop from the fattest queue until the limits hold.
    fn on_overflow(&mut self, pkt: Packet, limits: Limits, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        self.enqueue(pkt, ctx, tally);
        while self.over(limits) {
            self.drop_from_fattest(tally);
        }
        None
    }

    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        let i = self.classify(&pkt);
        self.bytes += pkt.size as u64;
        self.packets += 1;
        let q = &mut self.queues[i];
        q.fifo.push_back(pkt);
        // §4.1: a newly active queue joins the new-flows list with a fresh quantum.
        if q.list.is_none() {
            q.list = Some(List::New);
            q.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
    }

    fn dequeue(&mut self, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        loop {
            // §4.2: new flows first, then old flows.
            let (i, list) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, List::New),
                (None, Some(&i)) => (i, List::Old),
                (None, None) => return None,
            };
            let from = if list == List::New { &mut self.new_flows } else { &mut self.old_flows };
            let q = &mut self.queues[i];
            if q.deficit <= 0 {
                // §4.2: out of credit: top up and go to the end of the old list.
                q.deficit += self.quantum;
                from.pop_front();
                q.list = Some(List::Old);
                self.old_flows.push_back(i);
                continue;
            }
            let mut view = Counted { fifo: &mut q.fifo, bytes: &mut self.bytes, packets: &mut self.packets };
            match codel::dequeue(&mut view, &self.codel, &mut q.codel, ctx.now, tally) {
                Some(pkt) => {
                    q.deficit -= pkt.size as i64;
                    return Some(pkt);
                }
                None => {
                    // §4.2: an empty new queue moves to the old list (no starvation
                    // by re-entering as new); an empty old queue leaves the lists.
                    from.pop_front();
                    if list == List::New {
                        q.list = Some(List::Old);
                        self.old_flows.push_back(i);
                    } else {
                        q.list = None;
                    }
                }
            }
        }
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ctx_at, ops, pkt};
    use crate::queue::{Disc, Dropped, QueueDisc, QueueStats};
    use proptest::prelude::*;

    fn fq_codel(params: &FqCodelParams, limits: Limits) -> Disc<FqCodel> {
        Disc::new(limits, FqCodel::new(params))
    }

    fn flow_pkt(uid: u64, size: u32, flow: u32) -> Packet {
        Packet { flow, ..pkt(uid, size) }
    }

    #[test]
    fn a_new_sparse_flow_overtakes_a_backlogged_one() {
        let mut q = fq_codel(&FqCodelParams::default(), Limits::default());
        let mut d = Vec::new();
        // Flow 1 queues 5 × 1500 B and is served while its credit is positive:
        // deficit 1514 → 14 → −1486.
        for uid in 0..5 {
            q.enqueue(flow_pkt(uid, 1500, 1), &ctx_at(0.0, 1e6), &mut d);
        }
        assert_eq!(q.dequeue(&ctx_at(1.0, 1e6), &mut d).map(|p| p.uid), Some(0));
        assert_eq!(q.dequeue(&ctx_at(1.0, 1e6), &mut d).map(|p| p.uid), Some(1));
        // Flow 2 arrives and joins the new list behind flow 1. Flow 1, out of
        // credit, moves to the old list (deficit 28); flow 2 is served, then
        // (empty) moves to the old list behind flow 1, which sends packet 2.
        q.enqueue(flow_pkt(10, 100, 2), &ctx_at(2.0, 1e6), &mut d);
        assert_eq!(q.dequeue(&ctx_at(2.0, 1e6), &mut d).map(|p| p.uid), Some(10));
        assert_eq!(q.dequeue(&ctx_at(2.0, 1e6), &mut d).map(|p| p.uid), Some(2));
        assert!(d.is_empty());
    }

    #[test]
    fn drr_shares_bytes_equally_between_backlogged_flows() {
        let mut q = fq_codel(&FqCodelParams::default(), Limits::default());
        let mut d = Vec::new();
        // Flow 1 sends 1500 B packets, flow 2 sends 500 B packets: each gets one
        // quantum per round, so at any point the byte counts differ by at most
        // the DRR bound, quantum + largest packet = 3014 B (a FIFO would give
        // flow 1 three times flow 2's bytes).
        for uid in 0..40 {
            q.enqueue(flow_pkt(uid, 1500, 1), &ctx_at(0.0, 1e9), &mut d);
            q.enqueue(flow_pkt(1000 + uid, 500, 2), &ctx_at(0.0, 1e9), &mut d);
            q.enqueue(flow_pkt(2000 + uid, 500, 2), &ctx_at(0.0, 1e9), &mut d);
            q.enqueue(flow_pkt(3000 + uid, 500, 2), &ctx_at(0.0, 1e9), &mut d);
        }
        let (mut b1, mut b2) = (0u64, 0u64);
        for _ in 0..60 {
            let p = q.dequeue(&ctx_at(0.0, 1e9), &mut d).unwrap();
            *if p.flow == 1 { &mut b1 } else { &mut b2 } += p.size as u64;
        }
        assert!(b1.abs_diff(b2) <= 1514 + 1500, "{b1} vs {b2}");
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        let mut q = fq_codel(&FqCodelParams::default(), Limits { bytes: None, packets: Some(4) });
        let mut d = Vec::new();
        for uid in 0..3 {
            q.enqueue(flow_pkt(uid, 1000, 1), &ctx_at(0.0, 1e6), &mut d);
        }
        q.enqueue(flow_pkt(3, 1000, 2), &ctx_at(0.0, 1e6), &mut d);
        // The fifth packet (flow 2) exceeds 4 packets: flow 1 (3000 B) loses its head.
        q.enqueue(flow_pkt(4, 1000, 2), &ctx_at(0.0, 1e6), &mut d);
        assert_eq!(d.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(), vec![(0, DropCause::OverflowFront)]);
        assert_eq!(q.packets(), 4);
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::{testkit::scenario_queue, QueueConfig};
        let q = scenario_queue(
            r#"{ scheme = "fq_codel", flows = 1024, quantum = "1514B", target = "5ms", interval = "100ms" }"#,
        )
        .unwrap();
        assert_eq!(q, QueueConfig::FqCodel(FqCodelParams::default()));
        let e = scenario_queue(r#"{ scheme = "fq_codel", flows = 0 }"#).unwrap_err();
        assert!(e.contains("bottleneck.queue.flows: must be at least 1"), "{e}");
    }

    proptest! {
        #[test]
        fn conservation(ops in ops(), flows in 1..6u32) {
            // Spread the testkit's packets over flows by uid via a wrapper queue.
            struct Spread(Disc<FqCodel>, u32);
            impl QueueDisc for Spread {
                fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, d: &mut Vec<Dropped>) {
                    let flow = (pkt.uid % self.1 as u64) as u32;
                    self.0.enqueue(Packet { flow, ..pkt }, ctx, d)
                }
                fn dequeue(&mut self, ctx: &QueueCtx, d: &mut Vec<Dropped>) -> Option<Packet> {
                    self.0.dequeue(ctx, d)
                }
                fn bytes(&self) -> u64 { self.0.bytes() }
                fn packets(&self) -> usize { self.0.packets() }
                fn stats(&self) -> QueueStats { self.0.stats() }
            }
            let params = FqCodelParams { flows: 4, ..FqCodelParams::default() };
            let mut q = Spread(fq_codel(&params, Limits { bytes: Some(20_000), packets: Some(15) }), flows);
            check_invariants(&mut q, &ops);
        }
    }
}
