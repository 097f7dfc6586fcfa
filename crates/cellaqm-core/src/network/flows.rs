//! The flow table: TCP connections and UDP streams, each of one user.

use crate::metrics::FlowSummary;
use crate::packet::{Dir, FlowId};
use crate::tcp::Endpoint;
use crate::time::Time;
use crate::traffic::NetView;

/// A TCP connection.
pub(super) struct Conn {
    /// Both endpoints; dropped once both ends closed and all is acknowledged
    /// (a late packet for the connection is then discarded, as by a host
    /// without a matching socket).
    pub(super) ends: Option<Box<[Endpoint; 2]>>,
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
    /// Counters (both ends), kept when the endpoints are dropped (boxed: read only then).
    pub(super) counters: Box<FlowSummary>,
    /// Both ends closed and all acknowledged.
    pub(super) finished: bool,
}

impl Conn {
    pub(super) fn rtos(&self) -> u64 {
        match &self.ends {
            Some(ends) => ends.iter().map(|e| e.stats().rtos).sum(),
            None => self.counters.rtos,
        }
    }
    pub(super) fn counters(&self) -> FlowSummary {
        match &self.ends {
            Some(ends) => {
                let mut s = FlowSummary::default();
                s.add_tcp(ends[0].stats());
                s.add_tcp(ends[1].stats());
                s
            }
            None => (*self.counters).clone(),
        }
    }
}

/// A UDP stream.
pub(super) struct Stream {
    pub(super) dir: Dir,
    pub(super) delivered_bytes: u64,
    pub(super) last: Option<Time>,
}

pub(super) enum Kind {
    Tcp(Conn),
    Udp(Stream),
}

pub(super) struct Flow {
    pub(super) source: u16,
    pub(super) user: u32,
    pub(super) tag: u32,
    pub(super) start: Time,
    pub(super) kind: Kind,
}

/// What the applications may read about the flows.
pub(super) struct FlowsView<'a>(pub(super) &'a [Flow]);

impl NetView for FlowsView<'_> {
    fn rtos(&self, conn: FlowId) -> u64 {
        match self.0.get(conn as usize).map(|f| &f.kind) {
            Some(Kind::Tcp(c)) => c.rtos(),
            _ => 0,
        }
    }
    fn stream_delivery(&self, stream: FlowId) -> (u64, Option<Time>) {
        match self.0.get(stream as usize).map(|f| &f.kind) {
            Some(Kind::Udp(s)) => (s.delivered_bytes, s.last),
            _ => (0, None),
        }
    }
}

pub(super) fn conn_mut(flows: &mut [Flow], flow: FlowId) -> Option<&mut Conn> {
    match flows.get_mut(flow as usize).map(|f| &mut f.kind) {
        Some(Kind::Tcp(c)) => Some(c),
        _ => None,
    }
}
