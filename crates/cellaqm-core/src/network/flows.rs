//! The flow table: the flows of a run (TCP connections and UDP streams, each
//! of one user) that are open or still have packets in the network, by id.
//!
//! Each flow counts the bytes of its packets in the network: sent by one of
//! its ends and neither delivered nor dropped yet (the run's byte ledger, flow
//! by flow: their sum is the ledger's bytes in flight). A connection that is
//! over (both ends closed, everything acknowledged) stays in the table while
//! it has bytes in the network: a late packet (a spurious retransmission, a
//! duplicate ACK) still needs its flow's user (its bearer, its user's delays
//! and drops), and is then discarded, as by a host without a matching socket.
//! It stays at least until the event in which it closed is over
//! ([`Flows::compact`]): that event may still read it (the application hears
//! of the last bytes it delivered). Then it leaves and nothing of it is kept:
//! its row went into the run's totals ([`FlowTotals`]) and, unless only totals
//! are kept, the rows as it closed; its goodput into the run's mean over
//! flows, summed in flow order ([`GoodputSum`]); its final RTO count goes to
//! its application as it leaves ([`crate::traffic::Application::over`]). So a
//! run in which connections come and go holds the flows open at the moment
//! and the few still draining, not a trace of every connection it had: memory
//! flat in the run's duration.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

use crate::metrics::FlowSummary;
use crate::packet::{Dir, FlowId, Packet};
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
/// still read of it. A late packet for it is discarded, as by a host without
/// a matching socket.
pub(super) struct Closed {
    pub(super) delivered: [u64; 2],
    pub(super) rtos: u64,
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
    /// A connection over before the event being handled, its last packets
    /// still in the network (discarded as they arrive): its RTO count.
    Draining {
        rtos: u64,
    },
    Udp(Stream),
}

pub(super) struct Flow {
    pub(super) id: FlowId,
    pub(super) source: u16,
    pub(super) user: u32,
    pub(super) tag: u32,
    pub(super) start: Time,
    /// Bytes of its packets in the network: sent (counted as an endpoint or
    /// a stream hands them to `flush`), neither delivered nor dropped yet
    /// ([`Flows::gone`]). Every packet has a header: none is empty.
    pub(super) in_network: u64,
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
            Kind::Closed(_) | Kind::Draining { .. } => unreachable!("a closed flow's row was made as it closed"),
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

/// The flows in the table (see the module doc).
#[derive(Default)]
pub(super) struct Flows {
    /// By id: a hash map with rustc's integer hash (`FxHashMap`: a
    /// multiplication; SipHash's defence against keys an adversary chooses is
    /// not needed for the ids a run gives out). It holds the flows open at
    /// the moment, whatever ids they have: a flow open the whole run beside
    /// short ones makes it no larger, as a window of ids from the oldest flow
    /// still present would.
    table: FxHashMap<FlowId, Flow>,
    /// Flows opened so far: the id of the next.
    opened: FlowId,
    /// Flows that closed, or drained of their last packet after their close, in the event being handled.
    settling: Vec<FlowId>,
    goodputs: GoodputSum,
}

impl Flows {
    /// Adds a flow (its id is the next).
    pub(super) fn push(&mut self, flow: Flow) {
        debug_assert_eq!(flow.id, self.opened, "flow ids are given in order");
        self.opened += 1;
        self.table.insert(flow.id, flow);
    }

    /// Flow `id`, unless it left the table.
    #[inline]
    pub(super) fn get(&self, id: FlowId) -> Option<&Flow> {
        self.table.get(&id)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: FlowId) -> Option<&mut Flow> {
        self.table.get_mut(&id)
    }

    /// The open connection `id`, if it is one.
    #[inline]
    pub(super) fn conn_mut(&mut self, id: FlowId) -> Option<&mut Conn> {
        match self.get_mut(id).map(|f| &mut f.kind) {
            Some(Kind::Tcp(c)) => Some(c),
            _ => None,
        }
    }

    /// The user of flow `id`, which has a packet in the network.
    #[inline]
    pub(super) fn user(&self, id: FlowId) -> u32 {
        self.table[&id].user
    }

    /// Packet `pkt` left the network (delivered or dropped): its flow, which
    /// leaves the table after this event if that was the last packet of a
    /// connection already over.
    #[inline]
    pub(super) fn gone(&mut self, pkt: &Packet) -> &mut Flow {
        let flow = self.table.get_mut(&pkt.flow).expect("a packet in the network has its flow in the table");
        flow.in_network = flow.in_network.checked_sub(pkt.size as u64).expect("a flow's bytes in the network");
        if flow.in_network == 0 && matches!(flow.kind, Kind::Draining { .. }) {
            self.settling.push(pkt.flow);
        }
        flow
    }

    /// Connection `id` closed with goodput `goodput_bps`: it leaves the table
    /// once the event is over and its packets are out of the network.
    pub(super) fn close(&mut self, id: FlowId, closed: Closed, goodput_bps: f64) {
        self.get_mut(id).expect("an open connection").kind = Kind::Closed(closed);
        self.settling.push(id);
        self.goodputs.add(id, goodput_bps);
    }

    /// After an event: the connections that closed in it keep their place
    /// while they have packets in the network (draining); those with none
    /// left leave the table, in flow order, each handed to `left` with its
    /// final RTO count.
    #[inline]
    pub(super) fn compact(&mut self, left: impl FnMut(Flow, u64)) {
        if !self.settling.is_empty() {
            self.settle(left);
        }
    }

    #[cold]
    fn settle(&mut self, mut left: impl FnMut(Flow, u64)) {
        let mut settling = std::mem::take(&mut self.settling);
        settling.sort_unstable();
        for &id in &settling {
            let f = self.table.get_mut(&id).expect("settling in the table");
            let rtos = match f.kind {
                Kind::Closed(Closed { rtos, .. }) | Kind::Draining { rtos } => rtos,
                Kind::Tcp(_) | Kind::Udp(_) => unreachable!("only connections over settle"),
            };
            if f.in_network > 0 {
                f.kind = Kind::Draining { rtos };
            } else {
                left(self.table.remove(&id).expect("just found"), rtos);
            }
        }
        settling.clear();
        self.settling = settling;
    }

    /// The flows in the table.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = &Flow> {
        self.table.values()
    }

    /// The flows opened so far.
    #[cfg(test)]
    pub(super) fn opened(&self) -> FlowId {
        self.opened
    }

    /// The bytes in the network of every flow: the ledger's bytes in flight.
    pub(super) fn in_network(&self) -> u64 {
        self.table.values().map(|f| f.in_network).sum()
    }

    /// The flows still open (not those over, whose rows were made as they closed), in id order.
    pub(super) fn open_in_order(&self) -> Vec<&Flow> {
        let mut open: Vec<&Flow> =
            self.table.values().filter(|f| matches!(f.kind, Kind::Tcp(_) | Kind::Udp(_))).collect();
        open.sort_unstable_by_key(|f| f.id);
        open
    }

    /// The sum of every flow's goodput in flow order, `goodput(flow)` giving
    /// those of the flows still open.
    pub(super) fn goodput_sum(&self, goodput: impl Fn(FlowId) -> f64) -> f64 {
        self.goodputs.total(self.opened, goodput)
    }
}

/// The flows' goodputs summed in flow order, as the rows' sum would take them
/// (bit for bit: floating-point addition is not associative), as flows close:
/// the prefix of flows all over is summed; a flow over beyond it waits (NaN:
/// not yet) until the prefix reaches it.
///
/// So it holds 8 bytes for each flow since the oldest one still open: on the
/// HS-DSCH system's `web-sir.toml` (57 sessions a second) at most 2 021 in
/// 300 s and 4 071 in 3000 s (32 kB; a session open for over a minute),
/// but beside a flow open the whole run, every flow after it (8 bytes a
/// connection). That cannot be bounded without changing the sum's bits: a
/// sum in flow order needs the early flow's goodput before any later one.
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
        match self.0.get(conn).map(|f| &f.kind) {
            Some(Kind::Tcp(c)) => c.ends.iter().map(|e| e.stats().rtos).sum(),
            Some(Kind::Closed(c)) => c.rtos,
            Some(&Kind::Draining { rtos }) => rtos,
            Some(Kind::Udp(_)) => 0,
            None => {
                // Not opened yet (asked for in the hook now running): none.
                debug_assert!(
                    conn >= self.0.opened,
                    "RTOs asked of connection {conn}, which left (`Application::over` told them)"
                );
                0
            }
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
