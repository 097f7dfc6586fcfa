//! ns-2.27's `Agent/TCP/Sack1` loss recovery (`tcp.recovery = "ns2_sack1"`), the TCP the
//! HS-DSCH study ran.
//!
//! Read in ns-2's source as released in 2.27 (18 January 2004): `tcp/tcp-sack1.cc` (`recv`,
//! `dupack_action`, `send_much`, `timeout`), its scoreboard `tcp/scoreboard-rq.cc`
//! (`GetNextRetran`, `UpdateScoreBoard`, `CheckUpdate`) and `tcp/tcp.cc` (`slowdown`,
//! `timeout`), with that release's defaults (`tcl/lib/ns-default.tcl`: `bugFix_ true`,
//! `partial_ack_ false`, `oldCode_ false`, `LimTransmitFix_ false`, `numdupacks_ 3`,
//! `maxburst_ 0`). In segments:
//!
//! - *Entry* (`recv`, `dupack_action`): the third duplicate ACK that SACKs new data
//!   (`CheckUpdate`; no other trigger), only once a packet sent after the last timeout is
//!   acknowledged (`bugFix_`: `highest_ack_ > recover_`, `recover_` 0 at the start and on
//!   leaving recovery, so a lost first data packet waits for the timer):
//!   with w = ⌊min(cwnd, rwnd)⌋, cwnd = ⌊w / 2⌋ and ssthresh = max(⌊w / 2⌋, 2) (`slowdown`
//!   floors `ssthresh_`, not `cwnd_`: a window of 2–3 leaves cwnd 1), `pipe_` =
//!   the outstanding segments − 3, the lost ones and limited transmit's two included
//!   (`LimTransmitFix_` off). The first unacknowledged segment is retransmitted (not counted in
//!   `pipe_`) and nothing else goes on that ACK.
//! - *Every ACK in recovery*: `pipe_` − 1; a partial ACK once more (`partial_ack_` off: "so
//!   that we never do worse than slow-start").
//! - *Sending* (`send_much`): while `pipe_` < cwnd and unsent data remains (`t_seqno_ <
//!   curseq_`): the first un-SACKed segment above the last retransmitted one and below the
//!   highest SACKed byte (`GetNextRetran`: any SACK above a hole marks it lost), else new
//!   data; either within the receiver's window; `pipe_` + 1 per segment. Each hole goes once
//!   per recovery.
//! - *Exit*: an ACK at or beyond `recover` (snd_max at entry); cwnd stays at ⌊w / 2⌋ (not
//!   raised to ssthresh), `recover_` = 0.
//! - *Timeout* (`timeout`): recovery ends, the scoreboard is cleared, and duplicate ACKs are
//!   ignored (neither counted nor read for SACK blocks) until new data is acknowledged
//!   (`timeout_`); ssthresh = max(⌊window / 2⌋, 2) on every timeout, a repeated one too (so 2
//!   segments), cwnd 1 (`tcp.cc` `timeout`, `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`).
//! - *Outside recovery* the scoreboard holds only what duplicate ACKs reported since the last
//!   new ACK (`ClearScoreBoard` on each) and sending never reads it: `send_much` and limited
//!   transmit (`tcp.cc` `send_one`: one segment on each of the first two duplicates while
//!   `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`) send `t_seqno_`, whole segments in order.
//!   So during a timeout's go-back-N the first two duplicate ACKs each send the next segment,
//!   even one they SACKed, and nothing skips SACKed data ([`Sender::resends_sacked`]).
//!
//! Consequences: `pipe_` leaves nothing out for lost segments, so when one window loses many
//! packets too few ACKs return to bring it below cwnd and the sender waits for its timer; a
//! lost retransmission waits for it too; and once the last new segment has gone, recovery sends
//! nothing, not even retransmissions (ns-2 changed that on 2006-12-24, after 2.27).
//!
//! `recv` also sets the timer's back-off to 1 on a partial ACK (`t_backoff_ = 1`, after
//! `newtimer`); it is 1 there already, so nothing models it: a timeout ends recovery, and the
//! next one needs `highest_ack_ > recover_` (`maxseq_` at the timeout), an ACK covering the
//! first packet sent beyond `maxseq_`, the one timed after the timeout (`reset_rtx_timer`
//! clears `rtt_active_`, `output` times the first packet above `maxseq_`), whose RTT sample
//! resets the back-off (`newack`), here as there.
//!
//! Not modelled: a fast retransmit at a window of one segment, where ns-2's cwnd_ becomes
//! ⌊1 / 2⌋ = 0 until the next ACK (ours is 1 segment).

use super::sender::Sender;
use super::Recovery;

/// Sack1's own state during and around one recovery.
#[derive(Default)]
pub(super) struct Sack1 {
    /// ns-2's `pipe_`, in segments (may go negative).
    pub pipe: i64,
    /// Recovery started on the ACK being processed: `dupack_action` sends the retransmission alone.
    pub entering: bool,
    /// ns-2's `timeout_`: a timeout happened and no new data has been acknowledged since.
    pub after_timeout: bool,
}

impl Sender {
    /// `dupack_action`, after the controller's reduction from `base` ([`Sender::sack1_reduction_base`]):
    /// `pipe_` = outstanding segments − 3 (the retransmission is sent by the caller), and cwnd =
    /// ⌊window / 2⌋ where the controller's floor of 2 segments lifted it (`slowdown` floors
    /// `ssthresh_` at 2, not `cwnd_`: a window of 2–3 leaves cwnd 1).
    pub(super) fn sack1_enter(&mut self, base: u64) {
        let outstanding = (self.snd_max.min(self.data_end()) - self.snd_una).div_ceil(self.mss);
        self.recovery.sack1 = Sack1 { pipe: outstanding as i64 - 3, entering: true, after_timeout: false };
        if base / 2 < 2 * self.mss {
            self.cc.set_window(base / 2);
        }
    }

    /// ns-2 sends whole packets, and outside recovery in order: `send_much` sends `t_seqno_`
    /// unless `GetNextRetran` finds a hole, and there the scoreboard is empty (cleared by each
    /// new ACK and by the timeout, and `send_much` is not called on duplicate ACKs);
    /// `send_one` (limited transmit) sends `t_seqno_` too. So after a timeout, segments that
    /// duplicate ACKs SACKed during go-back-N are sent again.
    pub(super) fn resends_sacked(&self) -> bool {
        self.kind == Recovery::Ns2Sack1
    }

    /// `slowdown`'s window to halve: ⌊min(cwnd, rwnd)⌋ in whole segments, made even so that
    /// the controller's half is ns-2's ⌊window / 2⌋.
    pub(super) fn sack1_reduction_base(&self) -> u64 {
        let window = self.cc.window().min(self.peer_wnd) / self.mss;
        window / 2 * 2 * self.mss
    }

    /// After an ACK (`new_ack`: it acknowledged new data) was processed; `in_recovery`: before it.
    pub(super) fn sack1_after_ack(&mut self, in_recovery: bool, new_ack: bool) {
        if new_ack {
            self.recovery.sack1.after_timeout = false;
        }
        if in_recovery && self.recovery.active {
            self.recovery.sack1.pipe -= if new_ack { 2 } else { 1 };
        } else if new_ack {
            self.scoreboard.clear();
        }
    }

    /// `send_much` during recovery.
    pub(super) fn transmit_sack1_recovery(&mut self, now: crate::time::Time, out: &mut Vec<crate::packet::Packet>) {
        if std::mem::take(&mut self.recovery.sack1.entering) {
            return;
        }
        let cwnd = (self.cc.window() / self.mss) as i64;
        while self.recovery.sack1.pipe < cwnd && self.segment(self.snd_nxt).is_some_and(|h| h.len > 0) {
            let from = self.recovery.high_rxt.max(self.snd_una);
            let hole = self.scoreboard.first_hole(self.snd_una, from);
            let Some(h) = self.segment(hole.unwrap_or(self.snd_nxt)) else { break };
            if h.seq + h.len as u64 > self.snd_una + self.peer_wnd {
                break;
            }
            self.emit(now, h, out);
            if hole.is_some() {
                self.recovery.high_rxt = h.seq + h.seq_len(); // MarkRetran
            }
            self.recovery.sack1.pipe += 1;
        }
    }
}
