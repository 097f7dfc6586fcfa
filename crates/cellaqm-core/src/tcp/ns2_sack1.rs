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
//!   ssthresh = cwnd = ⌊⌊min(cwnd, rwnd)⌋ / 2⌋ (`slowdown`; ssthresh at least 2), `pipe_` =
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
//! - *Exit*: an ACK at or beyond `recover` (snd_max at entry); cwnd stays halved, `recover_` = 0.
//! - *Timeout* (`timeout`): recovery ends, the scoreboard is cleared, and duplicate ACKs are
//!   ignored (neither counted nor read for SACK blocks) until new data is acknowledged
//!   (`timeout_`); ssthresh = ⌊window / 2⌋ on every timeout, a repeated one too (so 2 segments).
//! - Outside recovery the scoreboard holds only what duplicate ACKs reported since the last
//!   new ACK (`ClearScoreBoard` on each).
//!
//! Consequences: `pipe_` leaves nothing out for lost segments, so when one window loses many
//! packets too few ACKs return to bring it below cwnd and the sender waits for its timer; a
//! lost retransmission waits for it too; and once the last new segment has gone, recovery sends
//! nothing, not even retransmissions (ns-2 changed that on 2006-12-24, after 2.27).
//!
//! Not modelled: ⌊window / 2⌋ = 1 for a window of 2–3 segments (ours is at least 2);
//! `t_backoff_ = 1` on a partial ACK; after a timeout the sender skips segments that duplicate
//! ACKs SACKed since the last new ACK, which ns-2 resends in order.

use super::sender::Sender;

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
    /// `dupack_action`: `pipe_` = outstanding segments − 3 (the retransmission is sent by the caller).
    pub(super) fn sack1_enter(&mut self) {
        let outstanding = (self.snd_max.min(self.data_end()) - self.snd_una).div_ceil(self.mss);
        self.recovery.sack1 = Sack1 { pipe: outstanding as i64 - 3, entering: true, after_timeout: false };
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
