//! Decide at the head: the loop shared by the transmitter-side schemes of the
//! LTE uplink study (Tan, MSc thesis, 2009: drop-from-front with a limit, PDCP
//! discard, T-AQM), which "act on each outgoing RLC SDU at the head of the buffer".
//!
//! Rule: when the link asks for a packet, the scheme's [`HeadRule`] judges
//! the head: discard it (and judge the next head) or transmit it. An arrival
//! that does not fit the buffer's limits is dropped by the [`Overflow`]
//! fallback: at the tail (the arrival; our choice, the thesis does not say:
//! an arrival that would exceed 1.25 MB is dropped at the tail) or from the front (the
//! oldest packets until it fits: DFF as the full buffer's fallback).

use super::passive::make_room;
use super::{Backlog, DropCause, Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// What a full buffer drops for an arrival that does not fit (`overflow = "tail"` or `"front"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// The arrival (cause `overflow`).
    #[default]
    Tail,
    /// Head packets until the arrival fits (cause `overflow_front`).
    Front,
}

/// A transmitter-side decision on the outgoing packet.
pub trait HeadRule {
    /// `Some(cause)` to discard `head` (queued with `backlog`, head included) at `now`.
    fn discard(&mut self, head: &Packet, backlog: Backlog, now: Time) -> Option<DropCause>;

    /// See [`Scheme::carry`]. Default: nothing.
    fn carry(&mut self, _carried: Backlog) {}
}

/// A FIFO whose outgoing packets pass the head rule `R`.
pub struct AtHead<R> {
    fifo: Fifo,
    rule: R,
    overflow: Overflow,
}

impl<R: HeadRule> AtHead<R> {
    /// A buffer that judges heads by `rule` and drops by `overflow` when full.
    pub fn with_rule(rule: R, overflow: Overflow) -> AtHead<R> {
        AtHead { fifo: Fifo::default(), rule, overflow }
    }

    pub fn rule(&self) -> &R {
        &self.rule
    }
}

impl<R: HeadRule> Scheme for AtHead<R> {
    fn on_overflow(&mut self, pkt: Packet, limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        match self.overflow {
            Overflow::Tail => {
                tally.drop(pkt, DropCause::Overflow);
                None
            }
            Overflow::Front => make_room(&mut self.fifo, pkt, limits, tally),
        }
    }

    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        self.fifo.push_back(pkt);
    }

    fn carry(&mut self, carried: Backlog) {
        self.rule.carry(carried)
    }

    fn dequeue(&mut self, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        loop {
            let backlog = Backlog { bytes: self.fifo.bytes(), packets: self.fifo.len() };
            let cause = self.rule.discard(self.fifo.front()?, backlog, ctx.now);
            let head = self.fifo.pop_front().expect("the head was just judged");
            match cause {
                Some(cause) => tally.drop(head, cause),
                None => return Some(head),
            }
        }
    }

    fifo_backlog!();
}
