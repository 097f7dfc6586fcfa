//! Decide at the head: the loop shared by the transmitter-side schemes of the
//! LTE uplink study (lte-uplink-raqm.md: drop-from-front with a limit, PDCP
//! discard, T-AQM), which "act on each outgoing RLC SDU at the head of the buffer".
//!
//! Rule: arrivals are tail-dropped only when they do not fit the buffer's
//! limits (the wrapper's default); when the link asks for a packet, the
//! scheme's [`HeadRule`] judges the head: discard it (and judge the next
//! head) or transmit it.

use super::{DropCause, Fifo, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::time::Time;

/// The queue as a head rule sees it, head packet included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backlog {
    pub bytes: u64,
    pub packets: usize,
}

/// A transmitter-side decision on the outgoing packet.
pub trait HeadRule {
    /// `Some(cause)` to discard `head` (queued with `backlog`, head included) at `now`.
    fn discard(&mut self, head: &Packet, backlog: Backlog, now: Time) -> Option<DropCause>;
}

/// A FIFO whose outgoing packets pass the head rule `R`.
pub struct AtHead<R> {
    fifo: Fifo,
    rule: R,
}

impl<R: HeadRule> AtHead<R> {
    /// A buffer that judges heads by `rule`.
    pub fn with_rule(rule: R) -> AtHead<R> {
        AtHead { fifo: Fifo::default(), rule }
    }

    pub fn rule(&self) -> &R {
        &self.rule
    }
}

impl<R: HeadRule> Scheme for AtHead<R> {
    fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
        self.fifo.push_back(pkt);
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
