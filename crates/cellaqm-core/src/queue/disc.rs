//! The fixed wrapper around every scheme: what all queue disciplines do alike
//! is done here, once, and a scheme implements only its own rule.
//!
//! The pattern is ns-3's (`src/traffic-control/model/queue-disc.{h,cc}`): the
//! public `QueueDisc::Enqueue` and `Dequeue` keep the statistics and call the
//! subclass's `DoEnqueue` and `DoDequeue`, and a subclass reports every
//! discarded packet through `DropBeforeEnqueue`, `DropAfterDequeue` or
//! `Mark`, with its reason, so that the counts by reason are kept in one
//! place. Here [`Disc`] is the wrapper, [`Scheme`] the hooks a scheme
//! implements, and [`Tally`] the one way a hook drops or marks a packet.
//!
//! An arrival goes through these steps, in this order (fixed: a scheme cannot
//! reorder them, only fill in the hooks):
//! 1. the stamp: `pkt.enqueued_at = now` (sojourn-time schemes, departure-time
//!    schemes and the departing packet's record read it);
//! 2. [`Scheme::on_arrival`]: the scheme's own decision before admission, on
//!    the queue the arrival finds (RED, PDPC, TTLRED1 signal congestion here,
//!    on the arrival or on the head; TTLRED2 draws the lifetime; PIE runs its
//!    due updates). Default: go on;
//! 3. admission: if the arrival does not fit the buffer [`Limits`] next to
//!    what is queued ([`Scheme::bytes`], [`Scheme::packets`]),
//!    [`Scheme::on_overflow`] decides. Default: drop the arrival (`overflow`);
//!    drop-from-front drops heads until it fits; FQ-CoDel queues it and drops
//!    from the fattest flow queue;
//! 4. [`Scheme::enqueue`]: the scheme queues the packet, or (a decision after
//!    admission, as PIE's) drops or marks it.
//!
//! Departures ([`Scheme::dequeue`]) and timers ([`Scheme::on_timer`]) are the
//! scheme's; their drops and marks are counted as the arrival's are, in the
//! wrapper's [`QueueStats`].
//!
//! The owner may carry packets that have left the discipline but still take
//! room in the buffer (a PDCP buffer's packets the RLC carries until they are
//! acknowledged, `radio/bearer/pdcp.rs`): told of them ([`QueueDisc::carry`]), the
//! wrapper admits arrivals against the limits less that backlog and passes
//! those reduced limits to [`Scheme::on_overflow`].

use super::{DropCause, Dropped, QueueCtx, QueueDisc};
use crate::packet::{Ecn, Packet};
use crate::time::Time;

/// Buffer limits; `None` means no limit of that kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub bytes: Option<u64>,
    pub packets: Option<u32>,
}

impl Limits {
    /// Whether a packet of `size` bytes fits next to `bytes` and `packets` queued.
    pub fn fits(&self, bytes: u64, packets: usize, size: u32) -> bool {
        !(self.bytes.is_some_and(|b| bytes + size as u64 > b) || self.packets.is_some_and(|p| packets as u32 + 1 > p))
    }

    /// The room these limits leave once `held` is in the buffer (none below zero).
    pub fn less(&self, held: Backlog) -> Limits {
        Limits {
            bytes: self.bytes.map(|b| b.saturating_sub(held.bytes)),
            packets: self.packets.map(|p| p.saturating_sub(u32::try_from(held.packets).unwrap_or(u32::MAX))),
        }
    }
}

/// Bytes and packets in a buffer (IP packet sizes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub bytes: u64,
    pub packets: usize,
}

/// Counters every queue discipline keeps (in its wrapper, [`Disc`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets ECN-marked instead of dropped.
    pub marked: u64,
    /// Packets dropped, indexed by [`DropCause`].
    dropped: [u64; DropCause::COUNT],
}

impl QueueStats {
    /// Packets dropped with `cause`.
    pub fn dropped(&self, cause: DropCause) -> u64 {
        self.dropped[cause as usize]
    }
}

/// How a scheme's hooks drop and mark packets: each drop goes to the
/// caller's list with its cause, and drops and marks are counted by cause in
/// the wrapper's [`QueueStats`].
pub struct Tally<'a> {
    dropped: &'a mut Vec<Dropped>,
    stats: &'a mut QueueStats,
}

impl<'a> Tally<'a> {
    /// Reports to `dropped`, counting in `stats`.
    pub fn new(dropped: &'a mut Vec<Dropped>, stats: &'a mut QueueStats) -> Tally<'a> {
        Tally { dropped, stats }
    }

    /// Drops `pkt` (the arrival, or a packet taken out of the queue) for `cause`.
    pub fn drop(&mut self, pkt: Packet, cause: DropCause) {
        self.stats.dropped[cause as usize] += 1;
        self.dropped.push(Dropped { pkt, cause });
    }

    /// Marks `pkt` CE instead of dropping it if `ecn` is on and `pkt` is
    /// ECN-capable (ECT); returns whether it did.
    pub fn try_mark(&mut self, ecn: bool, pkt: &mut Packet) -> bool {
        if ecn && pkt.ecn == Ecn::Ect {
            pkt.ecn = Ecn::Ce;
            self.stats.marked += 1;
            true
        } else {
            false
        }
    }
}

/// A scheme's own rule, as hooks of the fixed wrapper [`Disc`] (see the
/// module doc for the order they are called in). The scheme holds its
/// packets; it reports every packet it discards through the [`Tally`].
pub trait Scheme {
    /// Decides on an arrival (already stamped) before the buffer limits are
    /// checked: returns it to go on to admission, or `None` if the hook
    /// dropped it. Default: go on.
    fn on_arrival(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
        Some(pkt)
    }

    /// The arrival does not fit within `limits`: returns it for
    /// [`Scheme::enqueue`] once there is room, or `None` once the hook has
    /// dealt with it. Default: drop the arrival (`overflow`).
    fn on_overflow(&mut self, pkt: Packet, _limits: Limits, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        tally.drop(pkt, DropCause::Overflow);
        None
    }

    /// Queues an admitted arrival; a scheme that decides after admission
    /// (PIE) may drop or mark it here instead.
    fn enqueue(&mut self, pkt: Packet, ctx: &QueueCtx, tally: &mut Tally);

    /// The link is free: the next packet to send, if any, dropping on the way
    /// the packets the scheme discards at departure.
    fn dequeue(&mut self, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet>;

    /// See [`QueueDisc::on_timer`].
    fn on_timer(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) {}

    /// See [`QueueDisc::next_timer`].
    fn next_timer(&self) -> Option<Time> {
        None
    }

    /// See [`QueueDisc::mark_started`].
    fn mark_started(&mut self, _uid: u64) {}

    /// See [`QueueDisc::carry`]: the wrapper already admits against the
    /// limits less `carried`; a scheme that applies the buffer limits itself
    /// (DFF, at departure) counts `carried` in them too. Default: nothing.
    fn carry(&mut self, _carried: Backlog) {}

    /// See [`QueueDisc::shrink_empty`]. Default: nothing (a scheme whose
    /// backlog is its `fifo` gives it back, `fifo_backlog!`).
    fn shrink_empty(&mut self) {}

    /// Bytes queued (IP packet sizes).
    fn bytes(&self) -> u64;

    /// Packets queued.
    fn packets(&self) -> usize;
}

/// A scheme in the fixed wrapper: the queue discipline the simulator drives.
pub struct Disc<S> {
    scheme: S,
    limits: Limits,
    /// What the owner carries outside the discipline in the same buffer ([`QueueDisc::carry`]).
    carried: Backlog,
    stats: QueueStats,
}

impl<S: Scheme> Disc<S> {
    /// `scheme` managing a buffer with arrival `limits`.
    pub fn new(limits: Limits, scheme: S) -> Disc<S> {
        Disc { scheme, limits, carried: Backlog::default(), stats: QueueStats::default() }
    }

    /// The scheme, to read its state.
    pub fn scheme(&self) -> &S {
        &self.scheme
    }

    /// The scheme, for tests that set its state.
    #[cfg(test)]
    pub(crate) fn scheme_mut(&mut self) -> &mut S {
        &mut self.scheme
    }
}

impl<S: Scheme> QueueDisc for Disc<S> {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) {
        let tally = &mut Tally::new(dropped, &mut self.stats);
        pkt.enqueued_at = ctx.now;
        let Some(pkt) = self.scheme.on_arrival(pkt, ctx, tally) else { return };
        let room = self.limits.less(self.carried);
        let pkt = if room.fits(self.scheme.bytes(), self.scheme.packets(), pkt.size) {
            pkt
        } else {
            let Some(pkt) = self.scheme.on_overflow(pkt, room, ctx, tally) else { return };
            pkt
        };
        self.scheme.enqueue(pkt, ctx, tally);
    }

    fn dequeue(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) -> Option<Packet> {
        self.scheme.dequeue(ctx, &mut Tally::new(dropped, &mut self.stats))
    }

    fn on_timer(&mut self, ctx: &QueueCtx, dropped: &mut Vec<Dropped>) {
        self.scheme.on_timer(ctx, &mut Tally::new(dropped, &mut self.stats))
    }

    fn next_timer(&self) -> Option<Time> {
        self.scheme.next_timer()
    }

    fn bytes(&self) -> u64 {
        self.scheme.bytes()
    }

    fn packets(&self) -> usize {
        self.scheme.packets()
    }

    fn mark_started(&mut self, uid: u64) {
        self.scheme.mark_started(uid)
    }

    fn carry(&mut self, carried: Backlog) {
        self.carried = carried;
        self.scheme.carry(carried)
    }

    fn shrink_empty(&mut self) {
        self.scheme.shrink_empty()
    }

    fn stats(&self) -> QueueStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{ect, pkt};
    use crate::queue::{Fifo, QueueDisc};
    use crate::time::Time;

    /// A scheme that records the order of its hooks and refuses every third arrival before admission.
    #[derive(Default)]
    struct Probe {
        fifo: Fifo,
        calls: Vec<&'static str>,
    }

    impl Scheme for Probe {
        fn on_arrival(&mut self, mut pkt: Packet, _ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
            self.calls.push("arrival");
            match pkt.uid % 3 {
                2 => {
                    tally.drop(pkt, DropCause::Early);
                    None
                }
                _ => {
                    tally.try_mark(true, &mut pkt);
                    Some(pkt)
                }
            }
        }
        fn enqueue(&mut self, pkt: Packet, _ctx: &QueueCtx, _tally: &mut Tally) {
            self.calls.push("enqueue");
            self.fifo.push_back(pkt);
        }
        fn dequeue(&mut self, _ctx: &QueueCtx, _tally: &mut Tally) -> Option<Packet> {
            self.fifo.pop_front()
        }
        fifo_backlog!();
    }

    #[test]
    fn stamps_decides_admits_then_enqueues_and_counts_by_cause() {
        let mut q = Disc::new(Limits { bytes: Some(2500), packets: None }, Probe::default());
        let ctx = QueueCtx { now: Time(7), rate_bps: 1e6 };
        let mut d = Vec::new();
        q.enqueue(ect(0, 1000), &ctx, &mut d); // marked, queued
        q.enqueue(pkt(1, 1000), &ctx, &mut d); // queued
        q.enqueue(pkt(2, 100), &ctx, &mut d); // early
        q.enqueue(pkt(3, 1000), &ctx, &mut d); // 3000 B > 2500 B: overflow
        assert_eq!(q.scheme().calls, ["arrival", "enqueue", "arrival", "enqueue", "arrival", "arrival"]);
        assert_eq!(
            d.iter().map(|d| (d.pkt.uid, d.cause)).collect::<Vec<_>>(),
            [(2, DropCause::Early), (3, DropCause::Overflow)]
        );
        let s = q.stats();
        assert_eq!((s.marked, s.dropped(DropCause::Early), s.dropped(DropCause::Overflow)), (1, 1, 1));
        let head = q.dequeue(&ctx, &mut d).unwrap();
        assert_eq!((head.uid, head.enqueued_at, head.ecn), (0, Time(7), Ecn::Ce));
    }

    #[test]
    fn limits_count_the_arrival() {
        let l = Limits { bytes: Some(3000), packets: Some(2) };
        assert!(l.fits(1500, 1, 1500));
        assert!(!l.fits(1500, 1, 1501));
        assert!(!l.fits(0, 2, 1));
        assert!(Limits::default().fits(u64::MAX / 2, usize::MAX / 2, 1500));
    }
}
