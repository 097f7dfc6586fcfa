//! Forward Acknowledgement, FACK (Mathis & Mahdavi, "Forward Acknowledgement:
//! Refining TCP Congestion Control", SIGCOMM 1996), `tcp.fack = true` on top of
//! SACK recovery (`recovery = "sack"`), as Linux 2.4 ran it with SACK.
//!
//! The sender keeps `snd.fack`, the forward-most byte the receiver holds: the end
//! of the highest SACKed block, or `snd_una` without one. Three rules replace
//! their RFC 6675 counterparts:
//!
//! - *Trigger* (§3): recovery starts when snd.fack − snd.una > DupThresh·SMSS
//!   (or on DupThresh duplicate ACKs, as without FACK). A burst of losses whose
//!   first SACK already reports data four segments up starts recovery on that
//!   first duplicate instead of the third.
//! - *Loss* (§3): every un-SACKed byte below snd.fack is lost (RFC 6675's IsLost
//!   wants DupThresh segments SACKed above it), so all holes of a burst are
//!   retransmitted in the first round trip of recovery (`Scoreboard::lost`).
//! - *Window* (§3): the data in the network is awnd = snd.nxt − snd.fack +
//!   retran_data (snd.nxt the highest byte sent, retran_data the retransmitted
//!   bytes not yet SACKed or acknowledged), and recovery sends while awnd < cwnd,
//!   cwnd halved on entry. With the FACK loss rule RFC 6675's SetPipe counts
//!   exactly this (above snd.fack nothing is SACKed or lost; below it only the
//!   retransmitted holes count), so awnd is [`Sender::pipe`].
//!
//! Not modelled (*simplifications*): the paper's rampdown and Linux 2.4's rate
//! halving (cwnd lowered by one segment every second ACK instead of at once;
//! `recovery_window = "prr"` is the modern equivalent), Linux's reordering
//! estimate (a fixed DupThresh of 3), and its exemption of the DupThresh holes
//! nearest snd.fack from the loss rule (`tcp_mark_head_lost`).

use super::scoreboard::DUP_THRESH;
use super::sender::Sender;

impl Sender {
    /// snd.fack: the end of the highest SACKed block, or `snd_una`.
    pub(super) fn snd_fack(&self) -> u64 {
        self.scoreboard.highest().map_or(self.snd_una, |end| end.max(self.snd_una))
    }

    /// FACK's trigger: snd.fack − snd.una > DupThresh·SMSS.
    pub(super) fn fack_trigger(&self) -> bool {
        self.snd_fack() - self.snd_una > DUP_THRESH * self.mss
    }

    /// FACK's window rule during recovery: awnd < cwnd.
    pub(super) fn fack_window_open(&self) -> bool {
        self.pipe() < self.cc.window()
    }
}

#[cfg(test)]
mod tests {
    use super::super::scoreboard::Scoreboard;

    const MSS: u64 = 100;

    /// A FACK scoreboard holding `blocks` above `snd_una`.
    fn board(snd_una: u64, blocks: &[(u64, u64)]) -> Scoreboard {
        let mut sb = Scoreboard::new(true);
        sb.update(snd_una, blocks.iter().copied());
        sb
    }

    /// Segments 1–20 of 100 bytes (sequence 1–2001), 1–3 lost, 4 SACKed: every hole
    /// below snd.fack = 401 is lost with FACK, though only one segment lies above it
    /// (RFC 6675 wants three); awnd = snd.nxt − snd.fack = 2001 − 401 = 1600.
    #[test]
    fn every_hole_below_the_forward_ack_is_lost() {
        let sb = board(1, &[(301, 401)]);
        assert!(sb.is_lost(1, MSS) && sb.is_lost(201, MSS));
        assert_eq!(sb.pipe(1, 2001, 1, MSS), 1600);
        let mut rfc = Scoreboard::new(false);
        rfc.update(1, [(301, 401)].into_iter());
        assert!(!rfc.is_lost(1, MSS));
        assert_eq!(rfc.pipe(1, 2001, 1, MSS), 1900, "RFC 6675: the holes still count as in flight");
        // Retransmitting the first hole adds it to retran_data: awnd 1700.
        assert_eq!(sb.pipe(1, 2001, 101, MSS), 1700);
        // SACK of 5–12 moves snd.fack to 1201: awnd = 2001 − 1201 + 100 retransmitted.
        let sb = board(1, &[(301, 1201)]);
        assert_eq!(sb.pipe(1, 2001, 101, MSS), 900);
        // The retransmission SACKed (the hole [1,101) closes from below: snd_una 101): retran_data 0.
        let sb = board(101, &[(301, 1201)]);
        assert_eq!(sb.pipe(101, 2001, 101, MSS), 800);
    }

    proptest::proptest! {
        /// Mathis & Mahdavi's awnd = snd.nxt − snd.fack + retran_data is SetPipe under the
        /// FACK loss rule, retran_data being the un-SACKed bytes below HighRxt.
        #[test]
        fn pipe_is_awnd(
            blocks in proptest::collection::vec((0u64..400, 1u64..60), 0..8),
            snd_una in 0u64..100,
            flight in 0u64..500,
            high_rxt in 0u64..600,
        ) {
            let snd_max = snd_una + flight;
            let blocks: Vec<_> = blocks.into_iter().map(|(s, len)| (s, (s + len).min(snd_max))).collect();
            let sb = board(snd_una, &blocks);
            let fack = sb.highest().map_or(snd_una, |e| e.max(snd_una));
            let sacked = |x: u64| blocks.iter().any(|&(s, e)| s <= x && x < e);
            let retran_data = (snd_una..snd_max.min(high_rxt)).filter(|&x| !sacked(x)).count() as u64;
            proptest::prop_assert_eq!(sb.pipe(snd_una, snd_max, high_rxt, MSS), snd_max - fack + retran_data);
        }
    }
}
