//! TCP: one [`Endpoint`] per end of a connection, exchanging real packets.
//!
//! An endpoint is driven from outside with the current time and returns the
//! packets it wants to send in `out`; it never reads a clock. Its next timer
//! deadline is exposed by [`Endpoint::next_timer`]; the network calls
//! [`Endpoint::on_timer`] when that time comes (lazily: a stale wake-up is
//! harmless). Sequence numbers are 64-bit byte offsets, ISN 0.
//!
//! Connection life: the client calls [`Endpoint::connect`] (SYN); the server
//! answers SYN-ACK; the client's ACK establishes the connection. Either end may
//! then [`Endpoint::send`] bytes (data flows both ways, each half with its own
//! congestion control) and [`Endpoint::close`] (FIN after its queued data).
//!
//! Files: `endpoint` (handshake, dispatch), `sender` (send half: segments,
//! window, retransmission timer), `recovery` (fast retransmit/recovery for
//! Reno, NewReno and SACK; ECN-Echo), `ns2_sack1` (ns-2.27's Sack1 recovery), `fack` (Forward Acknowledgement on SACK), `prr` (Proportional Rate Reduction:
//! how much recovery sends per ACK), `limited_transmit` (RFC 3042), spurious timeouts found by
//! `eifel` (timestamps, RFC 3522) or `frto` (F-RTO, RFC 5682) and undone by `eifel_response`
//! (RFC 4015), `scoreboard` (SACK scoreboard), `rtt`
//! (RTO estimator), `congestion` (controller interface) with `reno` and `cubic`,
//! `receiver` (receive half: reassembly, ACKs, SACK blocks) and `ranges`.

pub mod config;
mod congestion;
mod cubic;
mod eifel;
mod eifel_response;
mod endpoint;
mod fack;
mod frto;
mod limited_transmit;
mod ns2_sack1;
mod prr;
mod ranges;
mod receiver;
mod recovery;
mod reno;
mod rtt;
mod rtt_timing;
mod scoreboard;
mod sender;
#[cfg(test)]
mod tests;

pub use config::{
    CongestionControl, Recovery, RecoveryWindow, RtoFormula, RtoRestart, RttSamples, SpuriousRto, TcpConfig, Window,
    MAX_IP_PACKET, MAX_WINDOW,
};
pub use congestion::Metrics;
pub use endpoint::Endpoint;
pub use rtt::RttMetrics;

/// Which end of the connection: the client opens it actively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

/// Counters of one endpoint's sending half (`spurious_rtos`: of its peer's, see there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Data segments sent, including retransmissions.
    pub segments_sent: u64,
    /// Payload bytes sent, including retransmissions.
    pub bytes_sent: u64,
    /// Payload bytes retransmitted.
    pub bytes_retransmitted: u64,
    /// Retransmission timeouts.
    pub rtos: u64,
    /// Retransmission timeouts after which the timed-out segment turned out not to have been lost
    /// (detected at the receiver: the retransmitted copy arrived as a duplicate). Unlike the other
    /// counters it is kept by the RECEIVING endpoint, counting its peer's spurious timeouts: sum
    /// both endpoints' stats to get a flow's total.
    pub spurious_rtos: u64,
    /// Timeouts this sender found spurious and undid (`tcp.spurious_rto = "eifel"` or `"frto"`).
    pub rtos_undone: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// ECN-Echo reactions (window reductions caused by CE marks).
    pub ecn_reductions: u64,
}
