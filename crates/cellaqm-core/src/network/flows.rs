//! The flow table: TCP connections and UDP streams, each of one user, by id.
//!
//! The open flows live in a dense table; of a connection that is over (both
//! ends closed, everything acknowledged) only its user and its RTO count are
//! kept by id (8 bytes): what a late packet and its application can still
//! ask. Its row went into the run's totals ([`FlowTotals`]) and, unless only
//! totals are kept, the rows; its goodput into the run's mean over flows,
//! summed in flow order ([`GoodputSum`]). So a run in which connections come
//! and go holds a few bytes per connection it had, not its endpoints (a
//! kilobyte and more): memory flat in the run's duration.
//!
//! A connection that closes stays in the open table until the event in which
//! it closed is over ([`Flows::compact`]): that event may still read it (the
//! application hears of the last bytes it delivered).

use std::collections::VecDeque;
use std::num::NonZeroU32;

use crate::metrics::FlowSummary;
use crate::packet::{Dir, FlowId};
use crate::tcp::Endpoint;
use crate::time::Time;
use crate::traffic::NetView;

/// A TCP connection while it is open.
pub(super) struct Conn {
    pub(super) ends: [Endpoint; 2],
    /// Deadline of the pending timer event of each end.
    pub(super) timer_at: [Option<Time>; 2],
    /// Bytes delivered to each end's application.
    pub(super) delivered: [u64; 2],
    /// Tell the application when `delivered[side]` reaches this.
    pub(super) notify_at: [u64; 2],
    /// The application closed this side.
    pub(super) closed: [bool; 2],
    /// When an application last received bytes.
    pub(super) last_byte: Option<Time>,
}

impl Conn {
    /// Both ends closed and quiet: all acknowledged, no timer left.
    pub(super) fn is_over(&self) -> bool {
        self.closed == [true, true] && self.ends.iter().all(|e| e.peer_closed() && e.next_timer().is_none())
    }

    /// The counters of both ends.
    pub(super) fn counters(&self) -> FlowSummary {
        let mut s = FlowSummary::default();
        s.add_tcp(self.ends[0].stats());
        s.add_tcp(self.ends[1].stats());
        s
    }
}

/// A connection that closed in the event being handled: what that event may
/// still read of it, and its goodput for the run's mean over flows. A late
/// packet for it is discarded, as by a host without a matching socket.
pub(super) struct Closed {
    pub(super) delivered: [u64; 2],
    pub(super) rtos: u64,
    pub(super) goodput_bps: f64,
}

/// A UDP stream.
pub(super) struct Stream {
    pub(super) dir: Dir,
    pub(super) delivered_bytes: u64,
    pub(super) last: Option<Time>,
}

pub(super) enum Kind {
    Tcp(Box<Conn>),
    Closed(Closed),
    Udp(Stream),
}

pub(super) struct Flow {
    pub(super) id: FlowId,
    pub(super) source: u16,
    pub(super) user: u32,
    pub(super) tag: u32,
    pub(super) start: Time,
    pub(super) kind: Kind,
}

impl Flow {
    /// The `flows.csv` row of this flow (`id`): a connection's at its close
    /// or the run's `end`, a stream's at `end`. Not for a closed flow (its
    /// row was made as it closed).
    pub(super) fn row(&self, id: FlowId, end: Time) -> FlowSummary {
        let (mut s, down, up, completion) = match &self.kind {
            Kind::Tcp(c) => {
                let stalled = c.ends.iter().any(|e| e.stalled());
                let s = FlowSummary { transport: "tcp", stalled, ..c.counters() };
                let [down, up] = c.delivered;
                (s, down, up, c.last_byte.filter(|_| c.is_over()))
            }
            Kind::Udp(st) => {
                let s = FlowSummary { transport: "udp", ..FlowSummary::default() };
                match st.dir {
                    Dir::Down => (s, st.delivered_bytes, 0, st.last),
                    Dir::Up => (s, 0, st.delivered_bytes, st.last),
                }
            }
            Kind::Closed(_) => unreachable!("a closed flow's row was made as it closed"),
        };
        let delivered = down + up;
        let span = completion.unwrap_or(end).since(self.start).as_secs_f64();
        s.flow = id;
        s.source = self.source as u32;
        s.user = self.user;
        s.bytes_delivered = delivered;
        s.bytes_down = down;
        s.bytes_up = up;
        s.goodput_bps = if span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 };
        s.start_s = self.start.as_secs_f64();
        s.completion_s = completion.map(Time::as_secs_f64);
        s
    }
}

/// The totals of the flows' rows, run-wide and per user, added as each
/// connection closes and, for the rest, at the end of the run.
#[derive(Default)]
pub(super) struct FlowTotals {
    pub(super) flows: u64,
    pub(super) delivered_bytes: u64,
    pub(super) udp_bytes: u64,
    pub(super) rtos: u64,
    pub(super) spurious_rtos: u64,
    pub(super) rtos_undone: u64,
    pub(super) fast_retransmits: u64,
    pub(super) retransmitted_bytes: u64,
    pub(super) stalled_flows: u64,
    /// By user: flows, bytes down, bytes up, RTOs, retransmitted bytes.
    pub(super) users: Vec<UserTotals>,
}

#[derive(Clone, Copy, Default)]
pub(super) struct UserTotals {
    pub(super) flows: u32,
    pub(super) bytes_down: u64,
    pub(super) bytes_up: u64,
    pub(super) rtos: u64,
    pub(super) retransmitted_bytes: u64,
}

impl FlowTotals {
    pub(super) fn new(users: usize) -> FlowTotals {
        FlowTotals { users: vec![UserTotals::default(); users], ..FlowTotals::default() }
    }

    pub(super) fn add(&mut self, row: &FlowSummary) {
        self.flows += 1;
        self.delivered_bytes += row.bytes_delivered;
        if row.transport == "udp" {
            self.udp_bytes += row.bytes_delivered;
        }
        self.rtos += row.rtos;
        self.spurious_rtos += row.spurious_rtos;
        self.rtos_undone += row.rtos_undone;
        self.fast_retransmits += row.fast_retransmits;
        self.retransmitted_bytes += row.retransmitted_bytes;
        self.stalled_flows += row.stalled as u64;
        let u = &mut self.users[row.user as usize];
        u.flows += 1;
        u.bytes_down += row.bytes_down;
        u.bytes_up += row.bytes_up;
        u.rtos += row.rtos;
        u.retransmitted_bytes += row.retransmitted_bytes;
    }
}

/// Where flow `id` is: open (its place in [`Flows::open`]) or over (what is
/// kept of it). Eight bytes: the RTO count is kept plus one, never zero, and
/// that spare value tells the two apart.
#[derive(Clone, Copy)]
enum Entry {
    Open(u32),
    Over { user: u32, rtos_plus_one: NonZeroU32 },
}

/// Every flow of the run by id (see the module doc).
#[derive(Default)]
pub(super) struct Flows {
    ids: Vec<Entry>,
    open: Vec<Flow>,
    /// Flows that closed in the event being handled.
    closing: Vec<FlowId>,
    goodputs: GoodputSum,
}

impl Flows {
    /// Adds a flow (its id is the next).
    pub(super) fn push(&mut self, flow: Flow) {
        debug_assert_eq!(flow.id as usize, self.ids.len(), "flow ids are given in order");
        self.ids.push(Entry::Open(self.open.len() as u32));
        self.open.push(flow);
    }

    /// Flow `id`, unless it is over.
    #[inline]
    pub(super) fn get(&self, id: FlowId) -> Option<&Flow> {
        match self.ids.get(id as usize) {
            Some(&Entry::Open(slot)) => Some(&self.open[slot as usize]),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: FlowId) -> Option<&mut Flow> {
        match self.ids.get(id as usize) {
            Some(&Entry::Open(slot)) => Some(&mut self.open[slot as usize]),
            _ => None,
        }
    }

    /// The open connection `id`, if it is one.
    #[inline]
    pub(super) fn conn_mut(&mut self, id: FlowId) -> Option<&mut Conn> {
        match self.get_mut(id).map(|f| &mut f.kind) {
            Some(Kind::Tcp(c)) => Some(c),
            _ => None,
        }
    }

    /// The user of flow `id`, open or over.
    #[inline]
    pub(super) fn user(&self, id: FlowId) -> u32 {
        match self.ids[id as usize] {
            Entry::Open(slot) => self.open[slot as usize].user,
            Entry::Over { user, .. } => user,
        }
    }

    /// Connection `id` closed: it is dropped from the open table once the event is over.
    pub(super) fn close(&mut self, id: FlowId, closed: Closed) {
        self.get_mut(id).expect("an open connection").kind = Kind::Closed(closed);
        self.closing.push(id);
    }

    /// Drops the flows that closed in the event just handled, keeping their
    /// user and RTO count, and their goodput in the sum.
    #[inline]
    pub(super) fn compact(&mut self) {
        if !self.closing.is_empty() {
            self.drop_closed();
        }
    }

    #[cold]
    fn drop_closed(&mut self) {
        for id in std::mem::take(&mut self.closing) {
            let Entry::Open(slot) = self.ids[id as usize] else { unreachable!("closed once") };
            let f = self.open.swap_remove(slot as usize);
            if let Some(moved) = self.open.get(slot as usize) {
                self.ids[moved.id as usize] = Entry::Open(slot);
            }
            let Kind::Closed(c) = f.kind else { unreachable!("a closed connection") };
            let rtos_plus_one = u32::try_from(c.rtos + 1).ok().and_then(NonZeroU32::new).expect("under 2^32 RTOs");
            self.ids[id as usize] = Entry::Over { user: f.user, rtos_plus_one };
            self.goodputs.add(id, c.goodput_bps);
        }
    }

    /// The flows still open (or closed in the last event), in id order.
    pub(super) fn open_in_order(&self) -> Vec<&Flow> {
        let mut open: Vec<&Flow> = self.open.iter().collect();
        open.sort_unstable_by_key(|f| f.id);
        open
    }

    /// The sum of every flow's goodput in flow order, `goodput(flow)` giving
    /// those of the flows still open (or closed in the last event).
    pub(super) fn goodput_sum(&self, goodput: impl Fn(FlowId) -> f64) -> f64 {
        self.goodputs.total(self.ids.len() as FlowId, goodput)
    }
}

/// The flows' goodputs summed in flow order, as the rows' sum would take them
/// (bit for bit: floating-point addition is not associative), as flows close:
/// the prefix of flows all over is summed; a flow over beyond it waits (NaN:
/// not yet) until the prefix reaches it.
#[derive(Default)]
struct GoodputSum {
    /// The sum of flows `0..next`, from −0.0 as `Iterator::sum` starts.
    sum: Option<f64>,
    next: FlowId,
    waiting: VecDeque<f64>,
}

impl GoodputSum {
    fn add(&mut self, id: FlowId, goodput: f64) {
        let k = (id - self.next) as usize;
        if self.waiting.len() <= k {
            self.waiting.resize(k + 1, f64::NAN);
        }
        self.waiting[k] = goodput;
        while let Some(&g) = self.waiting.front().filter(|g| !g.is_nan()) {
            self.sum = Some(self.sum.unwrap_or(-0.0) + g);
            self.waiting.pop_front();
            self.next += 1;
        }
    }

    /// The sum over flows `0..flows`, `open(flow)` the goodput of each not yet added.
    fn total(&self, flows: FlowId, open: impl Fn(FlowId) -> f64) -> f64 {
        (self.next..flows).fold(self.sum.unwrap_or(-0.0), |sum, id| {
            let g = self.waiting.get((id - self.next) as usize).copied().filter(|g| !g.is_nan());
            sum + g.unwrap_or_else(|| open(id))
        })
    }
}

/// What the applications may read about the flows.
pub(super) struct FlowsView<'a>(pub(super) &'a Flows);

impl NetView for FlowsView<'_> {
    fn rtos(&self, conn: FlowId) -> u64 {
        match (self.0.ids.get(conn as usize), self.0.get(conn).map(|f| &f.kind)) {
            (_, Some(Kind::Tcp(c))) => c.ends.iter().map(|e| e.stats().rtos).sum(),
            (_, Some(Kind::Closed(c))) => c.rtos,
            (Some(&Entry::Over { rtos_plus_one, .. }), _) => rtos_plus_one.get() as u64 - 1,
            _ => 0,
        }
    }
    fn stream_delivery(&self, stream: FlowId) -> (u64, Option<Time>) {
        match self.0.get(stream).map(|f| &f.kind) {
            Some(Kind::Udp(s)) => (s.delivered_bytes, s.last),
            _ => (0, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flows closing out of order: the sum is the in-order sum, bit for bit.
    #[test]
    fn goodputs_are_summed_in_flow_order_whatever_the_closing_order() {
        let goodputs: Vec<f64> = (0..200).map(|i| 1e5 / (1.0 + (i * 7919 % 113) as f64) + 0.1 * i as f64).collect();
        let in_order: f64 = goodputs.iter().sum();
        let mut sum = GoodputSum::default();
        let still_open = [3, 150, 199]; // their goodputs come at the end, from the open flows
        let mut closing: Vec<usize> = (0..200).filter(|i| !still_open.contains(i)).collect();
        closing.sort_by_key(|&i| (i * 37) % 200); // out of order
        for &i in &closing {
            sum.add(i as FlowId, goodputs[i]);
        }
        assert_eq!(sum.total(200, |id| goodputs[id as usize]).to_bits(), in_order.to_bits());
        assert_eq!(
            GoodputSum::default().total(0, |_| unreachable!()).to_bits(),
            [0.0f64; 0].iter().sum::<f64>().to_bits()
        );
    }
}
