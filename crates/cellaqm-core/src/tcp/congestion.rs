//! Congestion control interface (RFC 5681 §3.1).
//!
//! A [`Controller`] owns the congestion window and slow-start threshold of one
//! sending half. The sender tells it about acknowledged data and congestion
//! signals; during fast recovery the sender sets the window itself (inflation
//! and deflation, RFC 5681 §3.2), so controllers only implement the growth and
//! reduction rules. Reno lives in `reno.rs`; other algorithms plug in beside it.

use crate::time::Time;

pub(super) trait Controller {
    /// Congestion window, bytes.
    fn window(&self) -> u64;
    /// Slow-start threshold, bytes.
    fn ssthresh(&self) -> u64;
    /// `acked` new bytes were cumulatively acknowledged by one ACK, outside loss recovery.
    fn on_ack(&mut self, now: Time, acked: u64);
    /// Loss detected by duplicate ACKs, or an ECN-Echo: lower ssthresh from `flight`
    /// (the sender's `reduction_base`: FlightSize, at most the window) and set the window to it.
    fn on_congestion(&mut self, now: Time, flight: u64);
    /// Retransmission timeout: lower ssthresh from `flight` as above, window to one segment.
    fn on_rto(&mut self, now: Time, flight: u64);
    /// Sets the window (fast-recovery inflation and deflation, loss window after a lost SYN).
    fn set_window(&mut self, bytes: u64);
}
