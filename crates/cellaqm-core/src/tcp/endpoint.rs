//! A connection endpoint: handshake and dispatch (RFC 793 §3.4, RFC 9293 §3.5).
//!
//! Three-way handshake: the client's SYN (seq 0) is answered by the server's
//! SYN-ACK and acknowledged by the client; SYNs are retransmitted by the send
//! half's timer like data. Each arriving packet feeds its acknowledgement to
//! the send half and its sequence space to the receive half; every packet
//! sent carries the current acknowledgement, and a bare ACK goes out when one
//! is due and nothing else was sent.

use super::congestion::Metrics;
use super::receiver::Receiver;
use super::rtt::RttMetrics;
use super::sender::Sender;
use super::{Role, TcpConfig, TcpStats};
use crate::packet::{flags, Dir, FlowId, Packet};
use crate::time::{Dur, Time};

/// One end of a TCP connection.
pub struct Endpoint {
    role: Role,
    sender: Sender,
    receiver: Receiver,
}

impl Endpoint {
    /// A closed endpoint of flow `flow`; its packets travel in direction `dir`.
    pub fn new(cfg: &TcpConfig, flow: FlowId, role: Role, dir: Dir) -> Endpoint {
        Endpoint { role, sender: Sender::new(cfg, flow, dir), receiver: Receiver::new(cfg) }
    }

    /// Active open (client): sends the SYN.
    pub fn connect(&mut self, now: Time, out: &mut Vec<Packet>) {
        debug_assert_eq!(self.role, Role::Client, "a server opens passively, on the client's SYN");
        let first = out.len();
        self.sender.open();
        self.finish(now, first, out);
    }

    /// The application writes `bytes` more bytes (`u64::MAX`: unlimited, a bulk source).
    pub fn send(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        let first = out.len();
        self.sender.write(bytes);
        self.finish(now, first, out);
    }

    /// The application closes its sending half: a FIN follows the queued data.
    pub fn close(&mut self, now: Time, out: &mut Vec<Packet>) {
        let first = out.len();
        self.sender.close();
        self.finish(now, first, out);
    }

    /// A packet of this flow arrived from the peer.
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let first = out.len();
        let h = &pkt.tcp;
        if h.has(flags::SYN) {
            self.sender.open(); // passive open
        }
        if h.has(flags::ACK) {
            self.sender.on_ack(now, h, h.seq_len() == 0, out);
        }
        let duplicate = self.receiver.on_packet(now, pkt);
        if duplicate && pkt.rto_retransmission {
            self.sender.stats.spurious_rtos += 1;
        }
        self.finish(now, first, out);
    }

    /// Timer expiry; must tolerate being called early or more than once.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let first = out.len();
        self.sender.on_timer(now);
        self.finish(now, first, out);
    }

    /// Sends what the window allows, or a bare ACK if one is due, and puts the
    /// acknowledgement on every packet sent since `out[first]`.
    fn finish(&mut self, now: Time, first: usize, out: &mut Vec<Packet>) {
        self.sender.transmit(now, out);
        if out.len() == first && self.receiver.ack_due(now) {
            out.push(self.sender.bare_ack(now));
        }
        for pkt in &mut out[first..] {
            self.receiver.fill_ack(&mut pkt.tcp);
        }
    }

    /// Earliest pending timer deadline (RTO, delayed ACK, ...), if any.
    pub fn next_timer(&self) -> Option<Time> {
        match (self.sender.next_timer(), self.receiver.next_timer()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Payload bytes delivered in order to the application so far.
    pub fn delivered(&self) -> u64 {
        self.receiver.delivered()
    }

    /// Payload bytes of ours that the peer has cumulatively acknowledged.
    pub fn acked(&self) -> u64 {
        self.sender.acked()
    }

    /// True once the handshake completed.
    pub fn is_established(&self) -> bool {
        self.sender.snd_una > 0 && self.receiver.syn_received()
    }

    /// True once the peer's FIN has been received in order.
    pub fn peer_closed(&self) -> bool {
        self.receiver.peer_closed()
    }

    /// Data outstanding with no progress over the last 3+ timeouts ([`Sender::stalled`](super::sender::Sender::stalled)).
    pub fn stalled(&self) -> bool {
        self.sender.stalled()
    }

    /// Counters; `spurious_rtos` counts the peer's spurious timeouts, detected here.
    pub fn stats(&self) -> &TcpStats {
        &self.sender.stats
    }

    /// Current congestion window in bytes (for traces).
    pub fn cwnd(&self) -> u64 {
        self.sender.cc.window()
    }

    /// Current slow-start threshold in bytes (`u64::MAX` until the first reduction).
    pub fn ssthresh(&self) -> u64 {
        self.sender.cc.ssthresh()
    }

    /// The congestion controller's state (window, ssthresh and, for CUBIC, W_max and K).
    pub fn cc_metrics(&self) -> Metrics {
        self.sender.cc.metrics()
    }

    /// Smoothed round-trip time, once measured.
    pub fn srtt(&self) -> Option<Dur> {
        self.sender.srtt()
    }

    /// The RTT estimator's samples, SRTT and retransmission timeout (for traces).
    pub fn rtt_metrics(&self) -> RttMetrics {
        self.sender.rtt_metrics()
    }
}
