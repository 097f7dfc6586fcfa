//! Congestion control interface (RFC 5681 §3.1), one file per algorithm.
//!
//! A [`Controller`] owns the congestion window and slow-start threshold of one
//! sending half. The sender tells it about acknowledged data, RTT samples and
//! congestion signals; during fast recovery the sender sets the window itself
//! (inflation and deflation, RFC 5681 §3.2), so controllers only implement the
//! growth and reduction rules. Hooks an algorithm may ignore have no-op
//! defaults, and [`Controller::metrics`] is the view the trace records. Reno is
//! in `reno.rs`, CUBIC (RFC 9438) in `cubic.rs`; [`new`] picks one from
//! `tcp.congestion`.

use super::cubic::Cubic;
use super::reno::Reno;
use super::{CongestionControl, TcpConfig};
use crate::time::{Dur, Time};

/// What reported the congestion: RFC 9438 §4.6 lets an ECN-Echo take cwnd to 1 SMSS, a loss to 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signal {
    /// Loss detected by duplicate ACKs or SACK (fast retransmit).
    Loss,
    /// An ECN-Echo (RFC 3168 §6.1.2).
    Ecn,
}

/// A controller's state as the trace records it (`w_max` and `k` are CUBIC's, RFC 9438 §4.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` until the first reduction).
    pub ssthresh: u64,
    /// The window before the last reduction, bytes (CUBIC's W_max, once set).
    pub w_max: Option<u64>,
    /// Seconds from the start of the congestion avoidance stage until the window is back at W_max
    /// (CUBIC's K, while in a stage).
    pub k: Option<f64>,
}

pub(super) trait Controller {
    /// Congestion window, bytes.
    fn window(&self) -> u64;
    /// Slow-start threshold, bytes.
    fn ssthresh(&self) -> u64;
    /// `acked` new bytes were cumulatively acknowledged by one ACK, outside loss recovery.
    fn on_ack(&mut self, now: Time, acked: u64);
    /// Loss detected by duplicate ACKs, or an ECN-Echo: lower ssthresh from `flight`
    /// (the sender's `reduction_base`: FlightSize, at most the window) and the window with it.
    fn on_congestion(&mut self, now: Time, flight: u64, signal: Signal);
    /// Retransmission timeout: lower ssthresh from `flight` as above, window to one segment.
    fn on_rto(&mut self, now: Time, flight: u64);
    /// Sets the window (fast-recovery inflation and deflation, loss window after a lost SYN,
    /// restart after idle).
    fn set_window(&mut self, bytes: u64);
    /// Sets the slow-start threshold (the Eifel response restoring it after a spurious timeout).
    fn set_ssthresh(&mut self, bytes: u64);
    /// The smoothed RTT after a new sample (RFC 6298).
    fn on_rtt_sample(&mut self, _srtt: Dur) {}
    /// The state the trace records.
    fn metrics(&self) -> Metrics {
        Metrics { cwnd: self.window(), ssthresh: self.ssthresh(), w_max: None, k: None }
    }
}

/// The controller `cfg.congestion` names, with `cfg.initial_window` segments of `cfg.mss`.
pub(super) fn new(cfg: &TcpConfig) -> Box<dyn Controller> {
    let (mss, iw) = (cfg.mss.0, cfg.initial_window);
    match cfg.congestion {
        CongestionControl::Reno => Box::new(Reno::new(mss, iw)),
        CongestionControl::Cubic => Box::new(Cubic::new(mss, iw, cfg.cubic_fast_convergence)),
    }
}

/// RFC 5681 (2), slow start: cwnd grows by min(N, SMSS) for an ACK of N new bytes.
pub(super) fn slow_start_increase(acked: u64, mss: u64) -> u64 {
    acked.min(mss)
}
