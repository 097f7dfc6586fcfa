//! Queue disciplines: the managed buffer in front of a link.
//!
//! A scheme decides at three points, each told the current time and the
//! link's rate through [`QueueCtx`]:
//! - on arrival ([`QueueDisc::enqueue`]): accept, drop the arrival, or drop
//!   queued packets (drop-from-front);
//! - on departure ([`QueueDisc::dequeue`]): hand the head packet to the link,
//!   or drop it first (sojourn-time schemes such as CoDel, PDCP discard);
//! - on a timer ([`QueueDisc::on_timer`], due at [`QueueDisc::next_timer`]):
//!   periodic scans (TTLRED2).
//!
//! Every dropped packet is reported with its [`DropCause`]; a scheme may
//! instead mark an ECN-capable packet (`pkt.ecn = Ce`) and count it in its
//! [`QueueStats`]. One file per scheme; [`AnyQueue`] is the closed set the
//! simulator dispatches on statically, and [`QueueConfig`] its scenario form.

mod fifo;
mod tail_drop;

pub use fifo::{Fifo, Limits};
pub use tail_drop::TailDrop;

use crate::packet::Packet;
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// What the queue is told besides the packet.
#[derive(Clone, Copy, Debug)]
pub struct QueueCtx {
    pub now: Time,
    /// The link's current service rate in bits per second.
    pub rate_bps: f64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The buffer limit was reached.
    Overflow,
    /// Random link loss after transmission (not a queue decision).
    LinkLoss,
}

impl DropCause {
    pub fn name(self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::LinkLoss => "link_loss",
        }
    }
}

/// A packet a queue or link discarded, and why.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    pub pkt: Packet,
    pub cause: DropCause,
}

/// Counters every scheme keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets ECN-marked instead of dropped.
    pub marked: u64,
}

/// The interface every queue discipline implements.
pub trait QueueDisc {
    /// A packet arrives; dropped packets (the arrival or others) go to `dropped`.
    fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, dropped: &mut Vec<Dropped>);
    /// The link is free: the next packet to send, if any; packets dropped on the way go to `dropped`.
    fn dequeue(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) -> Option<Packet>;
    /// A timer of the scheme fired (see [`QueueDisc::next_timer`]); tolerate early calls.
    fn on_timer(&mut self, _ctx: &QueueCtx, _dropped: &mut Vec<Dropped>) {}
    /// When the scheme next wants [`QueueDisc::on_timer`].
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Bytes queued (IP packet sizes).
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> usize;
    fn stats(&self) -> QueueStats {
        QueueStats::default()
    }
}

/// A queue discipline as written in a scenario: `queue = { scheme = "tail_drop" }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(tag = "scheme", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// Drop the arriving packet when the buffer is full.
    #[default]
    TailDrop,
}

impl QueueConfig {
    /// Checks parameter ranges; `key` is where the config sits in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        let _ = key;
        match self {
            QueueConfig::TailDrop => Ok(()),
        }
    }

    /// The scheme managing a buffer with `limits`.
    pub fn build(&self, limits: Limits) -> AnyQueue {
        match self {
            QueueConfig::TailDrop => AnyQueue::TailDrop(TailDrop::new(limits)),
        }
    }
}

/// Every scheme, dispatched statically.
pub enum AnyQueue {
    TailDrop(TailDrop),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::TailDrop($q) => $e,
        }
    };
}

impl QueueDisc for AnyQueue {
    fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) {
        dispatch!(self, q => q.enqueue(pkt, ctx, dropped))
    }
    fn dequeue(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(ctx, dropped))
    }
    fn on_timer(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) {
        dispatch!(self, q => q.on_timer(ctx, dropped))
    }
    fn next_timer(&self) -> Option<Time> {
        dispatch!(self, q => q.next_timer())
    }
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    fn packets(&self) -> usize {
        dispatch!(self, q => q.packets())
    }
    fn stats(&self) -> QueueStats {
        dispatch!(self, q => q.stats())
    }
}
