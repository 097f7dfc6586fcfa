//! The Eifel detection (RFC 3522) and response (RFC 4015) algorithms: undoing
//! a spurious retransmission timeout, `tcp.spurious_rto = "eifel"` (needs
//! `tcp.timestamps`).
//!
//! Detection (RFC 3522 §3.2): at the first timeout of a segment, remember the
//! timestamp the retransmission carries; the first ACK of new data after it
//! echoes an older timestamp when it acknowledges the *original* transmission,
//! i.e. the timeout was spurious (a delay spike, not a loss).
//!
//! Response (RFC 4015 §3.2): with pipe_prev = max(FlightSize, ssthresh) taken
//! before the timeout's reduction (step 1), a spurious timeout resumes with new
//! data (SND.NXT ← SND.MAX, step 4) and restores the congestion state (step 5):
//! cwnd ← FlightSize + min(bytes_acked, IW), ssthresh ← pipe_prev — unless
//! the ACK carries an ECN-Echo. The RTO adaptation of step 6 is not modelled
//! (*simplification*: the backed-off RTO returns to normal with the next samples).

/// What a first timeout leaves for the next ACK to judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eifel {
    /// The timestamp value of the retransmission (RFC 3522's RetransmitTS).
    retransmit_ts: u32,
    /// max(FlightSize, ssthresh) before the timeout (RFC 4015's pipe_prev).
    pipe_prev: u64,
}

/// The restored congestion state of a spurious timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    pub cwnd: u64,
    pub ssthresh: u64,
}

impl Eifel {
    /// A first timeout at timestamp clock `ts`, with `flight` bytes outstanding and `ssthresh` before it.
    pub fn at_timeout(ts: u32, flight: u64, ssthresh: u64) -> Eifel {
        Eifel { retransmit_ts: ts, pipe_prev: flight.max(ssthresh) }
    }

    /// The first ACK of new data after the timeout: `ts_ecr` its echoed timestamp,
    /// `acked` the bytes it acknowledges, `flight` what is outstanding after it.
    /// The restored state if the timeout was spurious (and no ECN-Echo came with it).
    pub fn judge(self, ts_ecr: u32, ece: bool, acked: u64, flight: u64, initial_window: u64) -> Option<Undo> {
        // RFC 3522: spurious if the echo is older than the retransmission (wrapping compare).
        let older = (self.retransmit_ts.wrapping_sub(ts_ecr) as i32) > 0;
        (older && !ece).then(|| Undo { cwnd: flight + acked.min(initial_window), ssthresh: self.pipe_prev })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_echo_undoes_the_timeout() {
        // Timeout at ts 5000 with 20 000 B outstanding, ssthresh 12 000: pipe_prev 20 000.
        let e = Eifel::at_timeout(5000, 20_000, 12_000);
        // The ACK of the original (echo 4800) acknowledges 2000 B, 18 000 remain; IW 3000:
        // cwnd 18 000 + 2000, ssthresh 20 000.
        assert_eq!(e.judge(4800, false, 2000, 18_000, 3000), Some(Undo { cwnd: 20_000, ssthresh: 20_000 }));
        // min(bytes_acked, IW): a cumulative ACK of 10 000 B adds only the IW.
        assert_eq!(e.judge(4800, false, 10_000, 10_000, 3000).map(|u| u.cwnd), Some(13_000));
        // The retransmission's own echo (5000) or a later one: a real loss, nothing undone.
        assert_eq!(e.judge(5000, false, 2000, 18_000, 3000), None);
        assert_eq!(e.judge(5100, false, 2000, 18_000, 3000), None);
        // An ECN-Echo keeps the reduction (RFC 4015 step 5).
        assert_eq!(e.judge(4800, true, 2000, 18_000, 3000), None);
        // Wrapping: a retransmission just after the clock wrapped still sees an older echo.
        assert!(Eifel::at_timeout(10, 1000, 0).judge(u32::MAX - 5, false, 1000, 0, 1000).is_some());
    }
}
