//! The Eifel response algorithm (RFC 4015): what a sender does once a
//! detection algorithm found a retransmission timeout spurious — the Eifel
//! detection by timestamps (RFC 3522, `eifel.rs`) or F-RTO (RFC 5682,
//! `frto.rs`). One piece for both detectors:
//!
//! - step 1, at the timeout, before its reduction: pipe_prev = max(FlightSize, ssthresh);
//! - step 4, on detection: resume with new data, SND.NXT ← SND.MAX (the sender does it);
//! - step 5: unless the ACK carries an ECN-Echo, restore the congestion state:
//!   cwnd = FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev.
//!
//! The RTO adaptation of step 6 is not modelled (*simplification*: the
//! backed-off RTO returns to normal with the next samples).

/// What a timeout leaves for the response (RFC 4015 step 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EifelResponse {
    /// max(FlightSize, ssthresh) before the timeout (RFC 4015's pipe_prev).
    pipe_prev: u64,
}

/// The restored congestion state of a spurious timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    pub cwnd: u64,
    pub ssthresh: u64,
}

impl EifelResponse {
    /// A timeout with `flight` bytes outstanding and `ssthresh` before its reduction.
    pub fn at_timeout(flight: u64, ssthresh: u64) -> EifelResponse {
        EifelResponse { pipe_prev: flight.max(ssthresh) }
    }

    /// RFC 4015 step 5 on the ACK that showed the timeout spurious: `acked` the bytes it
    /// acknowledges, `flight` what is outstanding after it; nothing with an ECN-Echo.
    pub fn undo(self, ece: bool, acked: u64, flight: u64, initial_window: u64) -> Option<Undo> {
        (!ece).then(|| Undo { cwnd: flight + acked.min(initial_window), ssthresh: self.pipe_prev })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restores_the_flight_and_the_larger_of_flight_and_ssthresh() {
        // Timeout with 20 000 B outstanding, ssthresh 12 000: pipe_prev 20 000.
        let r = EifelResponse::at_timeout(20_000, 12_000);
        // The ACK acknowledges 2000 B, 18 000 remain; IW 3000: cwnd 18 000 + 2000, ssthresh 20 000.
        assert_eq!(r.undo(false, 2000, 18_000, 3000), Some(Undo { cwnd: 20_000, ssthresh: 20_000 }));
        // min(bytes_acked, IW): a cumulative ACK of 10 000 B adds only the IW.
        assert_eq!(r.undo(false, 10_000, 10_000, 3000).map(|u| u.cwnd), Some(13_000));
        // ssthresh above the flight is kept.
        assert_eq!(EifelResponse::at_timeout(5000, 40_000).undo(false, 0, 5000, 3000).unwrap().ssthresh, 40_000);
        // An ECN-Echo keeps the reduction (step 5).
        assert_eq!(r.undo(true, 2000, 18_000, 3000), None);
    }
}
