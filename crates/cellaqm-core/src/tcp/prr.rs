//! Proportional Rate Reduction with the Slow Start Reduction Bound (RFC 6937 §3, PRR-SSRB).
//!
//! PRR decides how many bytes fast recovery may send in answer to each ACK;
//! which bytes go (a retransmission or new data) stays with the recovery
//! algorithm. At the start of recovery (RFC 6937 §3):
//!
//! ```text
//! ssthresh      = CongCtrlAlg()       (the controller's reduction)
//! prr_delivered = 0                   bytes delivered to the receiver during recovery
//! prr_out       = 0                   bytes sent during recovery
//! RecoverFS     = snd.nxt − snd.una   FlightSize at the start of recovery
//! ```
//!
//! On every ACK during recovery, with DeliveredData the bytes this ACK says
//! reached the receiver and pipe the RFC 6675 estimate of the bytes in flight:
//!
//! ```text
//! prr_delivered += DeliveredData
//! if pipe > ssthresh:   sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out
//! else:                 limit  = MAX(prr_delivered − prr_out, DeliveredData) + MSS
//!                       sndcnt = MIN(ssthresh − pipe, limit)
//! ```
//!
//! The first branch spreads the reduction from RecoverFS to ssthresh evenly
//! over the ACKs of one round trip; the second (the reduction bound) lets pipe
//! grow back towards ssthresh after heavy losses by at most one MSS more than
//! was delivered per ACK (slow start). Every byte sent in recovery counts in
//! prr_out, and what is sent in answer to one ACK never exceeds its sndcnt.
//! All quantities are bytes; a segment goes out only if it fits whole.

/// PRR state of one recovery episode.
#[derive(Default)]
pub(super) struct Prr {
    /// RecoverFS: FlightSize when recovery began.
    recover_fs: u64,
    /// prr_delivered.
    delivered: u64,
    /// prr_out.
    out: u64,
    /// What the latest ACK's sndcnt still allows.
    sndcnt: u64,
}

impl Prr {
    /// RFC 6937 §3 initialisation, `flight` = snd.nxt − snd.una at the start of recovery.
    pub fn start(flight: u64) -> Prr {
        Prr { recover_fs: flight, ..Prr::default() }
    }

    /// RFC 6937 §3, on an ACK during recovery: adds `delivered` (DeliveredData)
    /// and sets sndcnt from `pipe` and `ssthresh` (all in bytes).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) {
        self.delivered += delivered;
        self.sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction.
            let target = (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs.max(1) as u128);
            (target as u64).saturating_sub(self.out)
        } else {
            // Slow Start Reduction Bound.
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
    }

    /// Whether a segment of `bytes` (sequence space) fits in what sndcnt still allows.
    pub fn allows(&self, bytes: u64) -> bool {
        bytes <= self.sndcnt
    }

    /// RFC 6937 §3: `prr_out += (data sent)`, for every transmission during recovery.
    pub fn on_send(&mut self, bytes: u64) {
        self.out += bytes;
        self.sndcnt = self.sndcnt.saturating_sub(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §3.1's setting: FlightSize 20 segments at the loss, ssthresh 10. Feeds `acks`
    /// ACKs, each reporting one segment delivered (SACKed) and so lowering pipe by one; the
    /// first starts recovery, leaving pipe = `first_pipe` segments, and its fast
    /// retransmission goes out whatever sndcnt says. Returns the segments sent in answer to
    /// each ACK (as many as sndcnt allows), each raising pipe by one.
    fn sends(first_pipe: u64, acks: usize) -> Vec<u64> {
        let (ssthresh, mut pipe) = (10 * MSS, first_pipe * MSS);
        let mut prr = Prr::start(20 * MSS);
        let mut sent = Vec::new();
        for ack in 0..acks {
            if ack > 0 {
                pipe -= MSS; // the ACK reports one more segment delivered
            }
            prr.on_ack(MSS, pipe, ssthresh, MSS);
            let mut n = 0;
            if ack == 0 {
                prr.on_send(MSS); // the fast retransmission
                n += 1;
            }
            while prr.allows(MSS) {
                prr.on_send(MSS);
                n += 1;
            }
            pipe += n * MSS;
            sent.push(n);
        }
        sent
    }

    /// RFC 6937 §3.1, one lost segment of 20 (no limited transmit, so the third duplicate
    /// ACK leaves pipe = 20 − 3 delivered − 1 lost = 16). While pipe > ssthresh, sndcnt =
    /// ⌈prr_delivered·10/20⌉ − prr_out: the retransmission covers ACKs 3–5 (⌈0.5⌉, 1, ⌈1.5⌉
    /// segments, in bytes 500, 1000, 1500 − 1000 sent), then one new segment every second ACK
    /// (ACKs 6, 8, 10, 12) while pipe falls from 16 to 10. At ACK 14 pipe = 10 = ssthresh:
    /// the reduction bound takes over and sends ssthresh − pipe = 0, then one segment per
    /// ACK (ACKs 15–19, pipe 9 each time) holds pipe at ssthresh. Ten segments in all,
    /// ending with pipe = ssthresh. The RFC's table has the same shape, shifted by the two
    /// limited-transmit segments it sends before the retransmission.
    #[test]
    fn one_loss_halves_the_flight_in_proportion_then_holds_it_at_ssthresh() {
        let per_ack = sends(16, 17);
        //                       ACK 3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19
        assert_eq!(per_ack, vec![1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(per_ack.iter().sum::<u64>(), 10);
    }

    /// RFC 6937 §3.1, segments 0–14 of 20 lost: the third duplicate ACK (for segment 17)
    /// leaves pipe = 20 − 3 − 15 = 2 ≤ ssthresh, so the Slow Start Reduction Bound applies:
    /// limit = max(prr_delivered − prr_out, DeliveredData) + MSS = 2 segments on each ACK,
    /// and ssthresh − pipe (8, 7, 6) does not bind: 2 retransmissions per ACK, pipe rising by
    /// one per ACK, as the RFC's PRR-SSRB row ("2R 2R 2R"; its pipe 4, 5, 6 includes two
    /// limited-transmit segments cellaqm does not send).
    #[test]
    fn a_burst_loss_grows_the_flight_back_by_one_segment_per_ack() {
        assert_eq!(sends(2, 3), vec![2, 2, 2]);
    }

    #[test]
    fn sndcnt_never_exceeds_ssthresh_minus_pipe_nor_goes_negative() {
        let mut prr = Prr::start(20 * MSS);
        prr.on_ack(5 * MSS, 9 * MSS, 10 * MSS, MSS);
        assert!(prr.allows(MSS) && !prr.allows(MSS + 1), "min(ssthresh − pipe, 5 + 1 segments)");
        prr.on_send(3 * MSS); // e.g. retransmissions sent regardless
        assert!(!prr.allows(1));
        prr.on_ack(MSS, 15 * MSS, 10 * MSS, MSS);
        assert!(!prr.allows(1), "⌈6·10/20⌉ = 3 segments ≤ prr_out: nothing");
    }
}
