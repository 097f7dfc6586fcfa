//! Time series of one run, the material of the studies' trace figures
//! (recorded on request only: [`crate::RunOptions::trace`]).
//!
//! Column by column like [`super::PacketLog`]; every time is in seconds of
//! simulated time and rows are in the order they happened.
//!
//! - [`CwndTrace`]: the congestion controller's state of every TCP sender
//!   that has sent data (window, slow-start threshold, and CUBIC's W_max and
//!   K), sampled whenever any of it changes.
//! - [`RttTrace`]: every TCP sender's RTT samples, SRTT, RTTVAR and
//!   retransmission timeout (the RLC study's Fig. 3, the LTE study's timeout
//!   at the end of slow start), one row per sample and per change of the RTO
//!   (a new sample, a back-off).
//! - [`QueueTrace`]: the downlink managed buffer's occupancy (the bottleneck
//!   link's queue, or with `[radio]` the PDCP buffer) at every change.
//! - [`DropTrace`]: every packet lost in the access network: downlink at the
//!   managed buffer or on its link, uplink at the uplink buffer, on the
//!   uplink or by the receiver-side filter at its far end (queue discipline,
//!   overflow, RLC, link loss, R-AQM), with its cause and direction.
//! - [`DeliveredTrace`]: every downlink TCP data segment reaching the client,
//!   with its sequence number (time–sequence plots).
//! - [`RadioLossTrace`]: every TTI in which a user's DCH (downlink or
//!   uplink) lost PDUs on the air, with how many (the radio frame errors of
//!   the RLC study's Fig. 3).
//! - [`BsrTrace`]: every Buffer Status Report reaching the far end of the
//!   uplink (`bsr_period`), with the delay estimate it gave and the true
//!   head-of-line delay (the LTE uplink study's "estimated vs true" figure).

use crate::packet::{FlowId, Packet};
use crate::queue::Dropped;
use crate::tcp::{Endpoint, Metrics, RttMetrics};
use crate::time::Time;
use serde::Serialize;

/// Congestion controller samples: one row per change of a sender's [`Metrics`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CwndTrace {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    /// Direction of the data the sender sends: `"down"` (the server) or `"up"` (the client).
    pub dir: Vec<&'static str>,
    /// Congestion window, bytes.
    pub cwnd_bytes: Vec<u64>,
    /// Slow-start threshold, bytes; `u64::MAX` until the sender's first reduction.
    pub ssthresh_bytes: Vec<u64>,
    /// CUBIC's W_max (RFC 9438 §4.2), bytes; `u64::MAX` with Reno and before CUBIC's first reduction.
    pub w_max_bytes: Vec<u64>,
    /// CUBIC's K (RFC 9438 §4.2), seconds; `None` with Reno and outside congestion avoidance.
    pub k_s: Vec<Option<f64>>,
}

/// RTT samples and the retransmission timeout of each TCP sender that has sent
/// data: a row per new sample or change of the RTO (times in seconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RttTrace {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    /// Direction of the data the sender sends: `"down"` (the server) or `"up"` (the client).
    pub dir: Vec<&'static str>,
    /// The RTT sample taken at this moment; `None` on a row for an RTO change only (a back-off).
    pub sample_s: Vec<Option<f64>>,
    /// The smoothed RTT (RFC 6298), once measured.
    pub srtt_s: Vec<Option<f64>>,
    /// RTTVAR (RFC 6298), once measured.
    pub rttvar_s: Vec<Option<f64>>,
    /// The retransmission timeout now in force, back-off included.
    pub rto_s: Vec<f64>,
}

/// Occupancy of the downlink managed buffer, one row per change (first row: empty at time 0).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueueTrace {
    pub time_s: Vec<f64>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u32>,
}

/// Packets lost in the access network (see the module documentation), one row each.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DropTrace {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    /// `"down"` (towards the client) or `"up"` (towards the server).
    pub dir: Vec<&'static str>,
    pub uid: Vec<u64>,
    /// IP packet size, bytes.
    pub size: Vec<u32>,
    /// [`crate::queue::DropCause::name`].
    pub cause: Vec<&'static str>,
}

/// Downlink TCP data segments arriving at the client, one row each.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeliveredTrace {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    /// Sequence number of the segment's first byte (byte offset in the flow;
    /// the SYN takes sequence number 0, so data starts at 1).
    pub seq: Vec<u64>,
    /// Payload bytes.
    pub len: Vec<u32>,
    /// The sender sent it as a retransmission.
    pub retransmission: Vec<bool>,
}

/// TTIs of the users' DCHs that lost PDUs on the air, one row each (TTI start, in seconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RadioLossTrace {
    pub time_s: Vec<f64>,
    pub user: Vec<u32>,
    /// `"down"` (the user's DCH downlink) or `"up"` (its uplink DCH).
    pub dir: Vec<&'static str>,
    /// PDUs lost in that TTI (all of the TTI's with frame errors).
    pub pdus: Vec<u32>,
}

/// Buffer Status Reports reaching the far end of the uplink, one row each.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BsrTrace {
    /// When the report reached the far end.
    pub time_s: Vec<f64>,
    /// Bytes waiting in the uplink buffer, as reported.
    pub queue_bytes: Vec<u64>,
    /// Bytes received since the previous report (L), this report's carrier included.
    pub received_bytes: Vec<u64>,
    /// The head-of-line delay the far end estimated from it.
    pub estimate_s: Vec<f64>,
    /// The true head-of-line delay when the report was sent.
    pub true_s: Vec<f64>,
}

/// The time series of a run (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    pub cwnd: CwndTrace,
    pub rtt: RttTrace,
    pub queue: QueueTrace,
    pub drops: DropTrace,
    pub delivered: DeliveredTrace,
    pub radio_losses: RadioLossTrace,
    pub bsr: BsrTrace,
    /// Last metrics recorded per flow and side (client, server).
    #[serde(skip)]
    last_window: Vec<[Option<Metrics>; 2]>,
    #[serde(skip)]
    last_rtt: Vec<[Option<RttMetrics>; 2]>,
}

impl Default for Trace {
    fn default() -> Trace {
        Trace::new()
    }
}

impl Trace {
    /// An empty trace whose buffer starts empty at time zero.
    pub fn new() -> Trace {
        let mut queue = QueueTrace::default();
        queue.time_s.push(0.0);
        queue.bytes.push(0);
        queue.packets.push(0);
        Trace {
            cwnd: CwndTrace::default(),
            rtt: RttTrace::default(),
            queue,
            drops: DropTrace::default(),
            delivered: DeliveredTrace::default(),
            radio_losses: RadioLossTrace::default(),
            bsr: BsrTrace::default(),
            last_window: Vec::new(),
            last_rtt: Vec::new(),
        }
    }

    /// Samples the windows and RTT estimators of both ends of `flow` (client,
    /// server), if they sent data and changed since the last sample.
    pub fn windows(&mut self, now: Time, flow: FlowId, ends: &[Endpoint; 2]) {
        let i = flow as usize;
        if self.last_window.len() <= i {
            self.last_window.resize(i + 1, [None; 2]);
            self.last_rtt.resize(i + 1, [None; 2]);
        }
        for (side, (end, dir)) in ends.iter().zip(["up", "down"]).enumerate() {
            if end.stats().segments_sent == 0 {
                continue;
            }
            let r = end.rtt_metrics();
            let last = self.last_rtt[i][side];
            if last != Some(r) {
                self.last_rtt[i][side] = Some(r);
                let t = &mut self.rtt;
                t.time_s.push(now.as_secs_f64());
                t.flow.push(flow);
                t.dir.push(dir);
                let new_sample = r.samples != last.map_or(0, |l| l.samples);
                t.sample_s.push(r.last_sample.filter(|_| new_sample).map(|d| d.as_secs_f64()));
                t.srtt_s.push(r.srtt.map(|d| d.as_secs_f64()));
                t.rttvar_s.push(r.srtt.map(|_| r.rttvar.as_secs_f64()));
                t.rto_s.push(r.rto.as_secs_f64());
            }
            let m = end.cc_metrics();
            if self.last_window[i][side] != Some(m) {
                self.last_window[i][side] = Some(m);
                let c = &mut self.cwnd;
                c.time_s.push(now.as_secs_f64());
                c.flow.push(flow);
                c.dir.push(dir);
                c.cwnd_bytes.push(m.cwnd);
                c.ssthresh_bytes.push(m.ssthresh);
                c.w_max_bytes.push(m.w_max.unwrap_or(u64::MAX));
                c.k_s.push(m.k);
            }
        }
    }

    /// Records the managed buffer's occupancy if it changed.
    pub fn occupancy(&mut self, now: Time, bytes: u64, packets: usize) {
        let q = &mut self.queue;
        let packets = packets as u32;
        if q.bytes.last() != Some(&bytes) || q.packets.last() != Some(&packets) {
            q.time_s.push(now.as_secs_f64());
            q.bytes.push(bytes);
            q.packets.push(packets);
        }
    }

    /// Records `dropped`.
    pub fn drops<'a>(&mut self, now: Time, dropped: impl IntoIterator<Item = &'a Dropped>) {
        for d in dropped {
            let t = &mut self.drops;
            t.time_s.push(now.as_secs_f64());
            t.flow.push(d.pkt.flow);
            t.dir.push(d.pkt.dir.name());
            t.uid.push(d.pkt.uid);
            t.size.push(d.pkt.size);
            t.cause.push(d.cause.name());
        }
    }

    /// Records a downlink TCP data segment reaching the client.
    pub fn delivered(&mut self, now: Time, pkt: &Packet) {
        let t = &mut self.delivered;
        t.time_s.push(now.as_secs_f64());
        t.flow.push(pkt.flow);
        t.seq.push(pkt.tcp.seq);
        t.len.push(pkt.tcp.len as u32);
        t.retransmission.push(pkt.retransmission);
    }
}
