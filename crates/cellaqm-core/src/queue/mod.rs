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
//! What every scheme does alike is done once, by the fixed wrapper [`Disc`]
//! (`disc.rs`): the enqueue time stamp, admission against the buffer
//! [`Limits`], and the counts of drops by [`DropCause`] and of ECN marks
//! ([`QueueStats`]); a scheme implements only its rule, as the hooks of
//! [`Scheme`]. One file per scheme; [`AnyQueue`] is the closed set the
//! simulator dispatches on statically, [`QueueConfig`] its scenario form, and
//! [`SCHEMES`] the table the scenario reader and the catalogue derive from
//! (docs/queues.md, "Adding a scheme in Rust").

/// `Scheme::bytes` and `Scheme::packets` of a scheme whose backlog is its
/// `fifo` field (a [`Fifo`]); used inside the scheme's `impl Scheme`.
macro_rules! fifo_backlog {
    () => {
        fn bytes(&self) -> u64 {
            self.fifo.bytes()
        }

        fn packets(&self) -> usize {
            self.fifo.len()
        }

        fn shrink_empty(&mut self) {
            self.fifo.shrink_empty()
        }
    };
}

/// The rest of a counter-paced arrival scheme's `impl Scheme` (PDPC, TTLRED1:
/// a `fifo`, a `position` for signals and overflows, and a [`pdpc::DropCounter`]
/// `counter` that every queued packet counts down): overflow at `position`,
/// enqueue counting down, dequeue from the head, the backlog.
macro_rules! counted_fifo {
    () => {
        fn on_overflow(&mut self, pkt: Packet, limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
            overflow(&mut self.fifo, pkt, self.position, limits, tally)
        }

        fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
            self.counter.queued();
            self.fifo.push_back(pkt);
        }

        fn dequeue(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
            self.fifo.pop_front()
        }

        fifo_backlog!();
    };
}

mod at_head;
pub mod catalogue;
pub mod codel;
mod dff;
mod disc;
/// docs/queues.md's example scheme, compiled and tested with the crate (the
/// page shows the file verbatim; tests/test_queues.py checks it does), but
/// not registered: tests/test_queue_recipe.py registers it, in a copy of the
/// crate, by following the page's recipe (under the name `fixed_drop`, which
/// is why this module has another).
#[cfg(test)]
#[path = "../../../../docs/examples/fixed_drop.rs"]
mod example_fixed_drop;
mod fifo;
mod fq_codel;
pub(crate) mod parse;
mod passive;
mod pdcp_discard;
mod pdpc;
mod pie;
mod red;
mod registry;
#[cfg(test)]
mod rfc8033;
#[cfg(test)]
pub(crate) mod rfc8289;
mod signal;
mod taqm;
#[cfg(test)]
pub(crate) mod testkit;
mod thresholds;
mod ttlred1;
mod ttlred2;

pub use at_head::{AtHead, HeadRule};
pub use codel::{Codel, CodelParams};
pub use dff::Dff;
pub use disc::{Backlog, Disc, Limits, QueueStats, Scheme, Tally};
pub use fifo::Fifo;
pub use fq_codel::{FqCodel, FqCodelParams};
pub use passive::{DropFront, Passive, TailDrop};
pub use pdcp_discard::{PdcpDiscard, PdcpDiscardParams};
pub use pdpc::{Pdpc, PdpcParams};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};
pub use registry::{ParamDoc, Registration, SCHEMES};
pub use signal::DropPosition;
pub use taqm::{Taqm, TaqmParams};
pub use thresholds::{Level, Thresholds};
pub use ttlred1::{Ttlred1, Ttlred1Params};
pub use ttlred2::{Ttlred2, Ttlred2Params};

use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::Time;
use serde::Serialize;

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
    /// The buffer limit was reached and the oldest packet made room (drop-from-front).
    OverflowFront,
    /// An arrival-side AQM decision (RED, ARED, PDPC, TTLRED1), on the arrival or the head.
    Early,
    /// The packet outlived its lifetime (TTLRED2's scan).
    Expired,
    /// The head's sojourn time stayed above target for an interval (CoDel, FQ-CoDel).
    TargetExceeded,
    /// At departure, the packet had been in the buffer too long (PDCP discard, T-AQM).
    Age,
    /// A receiver-side filter at the far end of the link dropped it on delivery (R-AQM).
    Receiver,
}

impl DropCause {
    /// How many causes there are: the last variant's index + 1 (keep `Receiver` last, or change this).
    pub const COUNT: usize = DropCause::Receiver as usize + 1;

    pub fn name(self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::LinkLoss => "link_loss",
            DropCause::OverflowFront => "overflow_front",
            DropCause::Early => "early",
            DropCause::Expired => "expired",
            DropCause::TargetExceeded => "target_exceeded",
            DropCause::Age => "age",
            DropCause::Receiver => "receiver",
        }
    }
}

/// A packet a queue or link discarded, and why.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    pub pkt: Packet,
    pub cause: DropCause,
}

/// The interface the simulator drives a queue discipline through; [`Disc`]
/// implements it around each scheme.
pub trait QueueDisc {
    /// A packet arrives; dropped packets (the arrival or others) go to `dropped`.
    fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, dropped: &mut Vec<Dropped>);
    /// The link is free: the next packet to send, if any; packets dropped on the way go to `dropped`.
    fn dequeue(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) -> Option<Packet>;
    /// A timer of the scheme fired (see [`QueueDisc::next_timer`]); tolerate early calls.
    /// The owner also calls it just before the rate it reports in [`QueueCtx`] changes,
    /// so that a scheme may run periodic updates lazily, on its next call, at the rate
    /// that held when they were due (PIE does).
    fn on_timer(&mut self, _ctx: &QueueCtx, _dropped: &mut Vec<Dropped>) {}
    /// When the scheme next wants [`QueueDisc::on_timer`].
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Bytes queued (IP packet sizes).
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> usize;
    /// The link has sent part of queued packet `uid` (its first RLC PDU) while the
    /// packet stays queued until acknowledged (the RLC/PDCP model: a packet stays
    /// in the PDCP buffer until its last PDU is acknowledged). Schemes that must
    /// never drop a partly sent packet (TTLRED2) remember it; unknown uids are
    /// ignored. In the wired model a sent packet has left the queue, so this is
    /// never called.
    fn mark_started(&mut self, _uid: u64) {}
    /// The owner now carries `carried` outside the discipline, in the same buffer:
    /// packets the discipline let go that still take room until the owner is done
    /// with them (a PDCP buffer's packets the RLC carries until acknowledged, when
    /// the discipline lets packets go as the RLC takes them). The buffer limits
    /// count them: arrivals are admitted against the limits less `carried`. In the
    /// wired model a sent packet has left the buffer, so this is never called.
    fn carry(&mut self, _carried: Backlog) {}
    /// Gives back the storage of its packets if it holds none (the owner calls
    /// it while the buffer is idle: a user between sessions keeps no packet
    /// storage). Storage only: no decision changes.
    fn shrink_empty(&mut self) {}
    /// Drops by cause and ECN marks so far.
    fn stats(&self) -> QueueStats;
}

/// A queue discipline as written in a scenario: `queue = { scheme = "tail_drop" }`.
/// Read by hand (see `parse.rs`) so errors name the parameter; written tagged by `scheme`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(tag = "scheme", rename_all = "snake_case")]
pub enum QueueConfig {
    /// Drop the arriving packet when the buffer is full.
    #[default]
    TailDrop,
    /// Drop from the front of the buffer when the arrival does not fit.
    DropFront,
    /// RED (gentle by default), thresholds fixed unless given as adaptive.
    Red(RedParams),
    /// RED with the rate-adaptive thresholds of the WCDMA study.
    Ared(RedParams),
    /// Packet Discard Prevention Counter.
    Pdpc(PdpcParams),
    /// RED on the sojourn time of the oldest packet, with a drop counter.
    Ttlred1(Ttlred1Params),
    /// Random lifetimes given on entry, expired packets dropped by a 10 ms scan.
    Ttlred2(Ttlred2Params),
    /// CoDel (RFC 8289): drops at departure when the sojourn time stays above target.
    Codel(CodelParams),
    /// PIE (RFC 8033): random early drop with a PI-controlled probability.
    Pie(PieParams),
    /// FQ-CoDel (RFC 8290): per-flow queues, DRR, CoDel per queue.
    FqCodel(FqCodelParams),
    /// Drop-from-front with the buffer limit checked at departure (LTE uplink).
    Dff,
    /// Discard at departure packets older than a threshold (3GPP PDCP discard timer).
    PdcpDiscard(PdcpDiscardParams),
    /// Delay-based transmitter AQM at departure (LTE uplink).
    Taqm(TaqmParams),
}

impl QueueConfig {
    /// Checks parameter ranges; `key` is where the config sits in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        match self {
            QueueConfig::TailDrop => Ok(()),
            QueueConfig::DropFront => Ok(()),
            QueueConfig::Red(p) => p.validate(key, false),
            QueueConfig::Ared(p) => p.validate(key, true),
            QueueConfig::Pdpc(p) => p.validate(key),
            QueueConfig::Ttlred1(p) => p.validate(key),
            QueueConfig::Ttlred2(p) => p.validate(key),
            QueueConfig::Codel(p) => p.validate(key),
            QueueConfig::Pie(p) => p.validate(key),
            QueueConfig::FqCodel(p) => p.validate(key),
            QueueConfig::Dff => Ok(()),
            QueueConfig::PdcpDiscard(p) => p.validate(key),
            QueueConfig::Taqm(p) => p.validate(key),
        }
    }

    /// The scheme managing a buffer with `limits`; randomised schemes draw from `rng`.
    pub fn build(&self, limits: Limits, rng: Rng) -> AnyQueue {
        match self {
            QueueConfig::TailDrop => AnyQueue::TailDrop(Disc::new(limits, TailDrop::default())),
            QueueConfig::DropFront => AnyQueue::DropFront(Disc::new(limits, DropFront::default())),
            QueueConfig::Red(p) => AnyQueue::Red(Disc::new(limits, Red::new(p, RedParams::FIXED, rng))),
            QueueConfig::Ared(p) => AnyQueue::Red(Disc::new(limits, Red::new(p, Thresholds::ADAPTIVE, rng))),
            QueueConfig::Pdpc(p) => AnyQueue::Pdpc(Disc::new(limits, Pdpc::new(p))),
            QueueConfig::Ttlred1(p) => AnyQueue::Ttlred1(Disc::new(limits, Ttlred1::new(p, rng))),
            QueueConfig::Ttlred2(p) => AnyQueue::Ttlred2(Disc::new(limits, Ttlred2::new(p, rng))),
            QueueConfig::Codel(p) => AnyQueue::Codel(Disc::new(limits, Codel::new(p))),
            QueueConfig::Pie(p) => AnyQueue::Pie(Disc::new(limits, Pie::new(p, rng))),
            QueueConfig::FqCodel(p) => AnyQueue::FqCodel(Disc::new(limits, FqCodel::new(p))),
            // DFF applies the limits at departure: arrivals are never refused.
            QueueConfig::Dff => AnyQueue::Dff(Disc::new(Limits::default(), Dff::new(limits))),
            QueueConfig::PdcpDiscard(p) => AnyQueue::PdcpDiscard(Disc::new(limits, PdcpDiscard::new(p))),
            QueueConfig::Taqm(p) => AnyQueue::Taqm(Disc::new(limits, Taqm::new(p))),
        }
    }
}

/// Every scheme, dispatched statically.
pub enum AnyQueue {
    TailDrop(Disc<TailDrop>),
    DropFront(Disc<DropFront>),
    Red(Disc<Red>),
    Pdpc(Disc<Pdpc>),
    Ttlred1(Disc<Ttlred1>),
    Ttlred2(Disc<Ttlred2>),
    Codel(Disc<Codel>),
    Pie(Disc<Pie>),
    FqCodel(Disc<FqCodel>),
    Dff(Disc<Dff>),
    PdcpDiscard(Disc<PdcpDiscard>),
    Taqm(Disc<Taqm>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::TailDrop($q) => $e,
            AnyQueue::DropFront($q) => $e,
            AnyQueue::Red($q) => $e,
            AnyQueue::Pdpc($q) => $e,
            AnyQueue::Ttlred1($q) => $e,
            AnyQueue::Ttlred2($q) => $e,
            AnyQueue::Codel($q) => $e,
            AnyQueue::Pie($q) => $e,
            AnyQueue::FqCodel($q) => $e,
            AnyQueue::Dff($q) => $e,
            AnyQueue::PdcpDiscard($q) => $e,
            AnyQueue::Taqm($q) => $e,
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
    fn mark_started(&mut self, uid: u64) {
        dispatch!(self, q => q.mark_started(uid))
    }
    fn carry(&mut self, carried: Backlog) {
        dispatch!(self, q => q.carry(carried))
    }
    fn shrink_empty(&mut self) {
        dispatch!(self, q => q.shrink_empty())
    }
    fn stats(&self) -> QueueStats {
        dispatch!(self, q => q.stats())
    }
}
