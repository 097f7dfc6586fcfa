//! The Eifel detection algorithm (RFC 3522): finding a retransmission timeout
//! spurious by timestamps, `tcp.spurious_rto = "eifel"` (needs
//! `tcp.timestamps`); the response is RFC 4015's (`eifel_response.rs`).
//!
//! Rule (RFC 3522 §3.2): at the first timeout of a segment, remember the
//! timestamp the retransmission carries; the first ACK of new data after it
//! echoes an older timestamp when it acknowledges the *original* transmission,
//! i.e. the timeout was spurious (a delay spike, not a loss).

use super::eifel_response::EifelResponse;

/// What a first timeout leaves for the next ACK to judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eifel {
    /// The timestamp value of the retransmission (RFC 3522's RetransmitTS).
    retransmit_ts: u32,
    response: EifelResponse,
}

impl Eifel {
    /// A first timeout at timestamp clock `ts`, with `flight` bytes outstanding and `ssthresh` before it.
    pub fn at_timeout(ts: u32, flight: u64, ssthresh: u64) -> Eifel {
        Eifel { retransmit_ts: ts, response: EifelResponse::at_timeout(flight, ssthresh) }
    }

    /// The first ACK of new data after the timeout, echoing `ts_ecr`: the response to
    /// apply if the timeout was spurious.
    pub fn judge(self, ts_ecr: u32) -> Option<EifelResponse> {
        // RFC 3522: spurious if the echo is older than the retransmission (wrapping compare).
        let older = (self.retransmit_ts.wrapping_sub(ts_ecr) as i32) > 0;
        older.then_some(self.response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_echo_finds_the_timeout_spurious() {
        // Timeout at ts 5000 with 20 000 B outstanding, ssthresh 12 000.
        let e = Eifel::at_timeout(5000, 20_000, 12_000);
        // The ACK of the original (echo 4800): spurious, with the response of that timeout.
        assert_eq!(e.judge(4800), Some(EifelResponse::at_timeout(20_000, 12_000)));
        // The retransmission's own echo (5000) or a later one: a real loss.
        assert_eq!(e.judge(5000), None);
        assert_eq!(e.judge(5100), None);
        // Wrapping: a retransmission just after the clock wrapped still sees an older echo.
        assert!(Eifel::at_timeout(10, 1000, 0).judge(u32::MAX - 5).is_some());
    }
}
