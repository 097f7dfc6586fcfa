//! Loss recovery and congestion signals (RFC 5681 §3.2, RFC 6582, RFC 6675, RFC 3168 §6.1.2).
//!
//! Three duplicate ACKs (or, with SACK, a lost hole per IsLost) trigger fast
//! retransmit: ssthresh = max(FlightSize/2, 2·SMSS). Reno inflates cwnd per
//! duplicate ACK and leaves recovery on the first new ACK; NewReno stays until
//! everything outstanding at its start is acknowledged, retransmitting one
//! segment per partial ACK; SACK recovery sends while cwnd − pipe ≥ SMSS,
//! choosing segments by NextSeg. An ECN-Echo reduces cwnd the same way without
//! a retransmission. The window is reduced at most once per window of data:
//! not again until `snd_una` passes `recover` (RFC 6582 §3.2 (2), RFC 6675
//! §5.1; as ns-2's `bug_fix_`, Reno obeys it too).

use super::scoreboard::DUP_THRESH;
use super::sender::Sender;
use super::{Recovery, RtoRestart};
use crate::packet::{Packet, TcpHeader};
use crate::time::Time;

#[derive(Default)]
pub(super) struct LossRecovery {
    /// In fast recovery.
    pub active: bool,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint, as an exclusive end:
    /// `snd_max` when the window was last reduced.
    recover: u64,
    dupacks: u64,
    /// RFC 6675 HighRxt (exclusive end): retransmissions of this recovery reached here.
    high_rxt: u64,
    /// RFC 6675 RescueRxt (exclusive end).
    rescue_rxt: u64,
    /// Partial ACKs so far in this recovery.
    partial_acks: u32,
}

impl LossRecovery {
    /// RFC 6582 §3.2 (4), RFC 6675 §5.1: a timeout ends recovery, and no new
    /// reduction happens until what was sent before it is acknowledged.
    pub fn after_timeout(&mut self, snd_max: u64) {
        *self = LossRecovery { recover: snd_max, ..LossRecovery::default() };
    }
}

/// Which RFC 6675 NextSeg rule chose a segment.
enum Rule {
    /// Rules (1) and (3): a hole, retransmitted.
    Hole,
    /// Rule (2): new data.
    NewData,
    /// Rule (4): the rescue retransmission.
    Rescue,
}

impl Sender {
    /// `acked` bytes newly acknowledged (`snd_una` already advanced). Returns
    /// whether the ACK restarts the retransmission timer.
    pub(super) fn on_new_ack(&mut self, now: Time, acked: u64, handshake: bool, out: &mut Vec<Packet>) -> bool {
        self.recovery.dupacks = 0;
        if !self.recovery.active {
            if !handshake {
                self.cc.on_ack(now, acked);
            }
        } else if self.snd_una >= self.recovery.recover || self.kind == Recovery::Reno {
            // RFC 5681 §3.2 (6): Reno deflates on the first new ACK; RFC 6582 §3.2 (3): a full
            // ACK ends NewReno (cwnd = ssthresh); RFC 6675 §5 (A): ACK beyond RecoveryPoint.
            self.recovery.active = false;
            self.cc.set_window(self.cc.ssthresh());
        } else {
            if self.kind == Recovery::NewReno {
                // RFC 6582 §3.2 (5) partial ACK: retransmit the first unacknowledged segment, deflate
                // by the amount acknowledged and add back one SMSS if at least one SMSS was.
                self.send_at(now, self.snd_una, out);
                let add_back = if acked >= self.mss { self.mss } else { 0 };
                self.cc.set_window(self.cc.window().saturating_sub(acked) + add_back);
            }
            self.recovery.partial_acks += 1;
            return self.rto_restart == RtoRestart::Always || self.recovery.partial_acks == 1;
        }
        true
    }

    pub(super) fn on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.recovery.active {
            if self.kind != Recovery::Sack {
                self.cc.set_window(self.cc.window() + self.mss); // RFC 5681 §3.2 (4)
            }
            return;
        }
        self.recovery.dupacks += 1;
        // RFC 5681 §3.2 (2): the third duplicate; RFC 6675 §5 (2): or IsLost(HighACK + 1).
        let lost = self.recovery.dupacks >= DUP_THRESH
            || (self.kind == Recovery::Sack && self.scoreboard.is_lost(self.snd_una, self.mss));
        if lost && self.snd_una >= self.recovery.recover {
            // RFC 6582 §3.2 (2): not again for losses in the window already reduced for.
            self.enter_recovery(now, out);
        }
    }

    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.fast_retransmits += 1;
        self.recovery.active = true;
        self.recovery.partial_acks = 0;
        self.recovery.recover = self.snd_max; // RFC 6582 §3.2 (2), RFC 6675 (4.1)
        self.cc.on_congestion(now, self.snd_max - self.snd_una); // RFC 5681 (4), RFC 6675 (4.2)
        let end = self.send_at(now, self.snd_una, out); // RFC 5681 §3.2 (3), RFC 6675 (4.3)
        if self.rto_restart == RtoRestart::Always {
            // As ns-2 and Linux: RFC 6298 (5.1) alone leaves the timer running from the last
            // new ACK, and behind a full buffer it expires before the retransmission's ACK returns.
            self.restart_timer(now);
        }
        if self.kind == Recovery::Sack {
            self.recovery.high_rxt = end; // RFC 6675 (4.3)
            self.recovery.rescue_rxt = end;
        } else {
            self.cc.set_window(self.cc.ssthresh() + 3 * self.mss); // RFC 5681 §3.2 (3)
        }
    }

    /// RFC 6675 §5 (C): send while cwnd − pipe ≥ 1 SMSS.
    pub(super) fn transmit_sack_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        loop {
            let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, self.recovery.high_rxt, self.mss);
            if pipe + self.mss > self.cc.window() {
                break;
            }
            let Some((rule, h)) = self.next_seg() else { break };
            self.emit(now, h, out);
            match rule {
                // RFC 6675 (C.2)
                Rule::Hole => self.recovery.high_rxt = h.seq + h.seq_len(),
                // RFC 6675 NextSeg (4)
                Rule::Rescue => self.recovery.rescue_rxt = self.recovery.recover,
                // RFC 6675 (C.3): `emit` advanced snd_max
                Rule::NewData => {}
            }
        }
    }

    /// RFC 6675 §4 NextSeg().
    fn next_seg(&self) -> Option<(Rule, TcpHeader)> {
        let from = self.recovery.high_rxt.max(self.snd_una);
        let hole = self.scoreboard.first_hole(self.snd_una, from);
        if let Some(h) = hole.filter(|&seq| self.scoreboard.is_lost(seq, self.mss)).and_then(|seq| self.segment(seq)) {
            return Some((Rule::Hole, h)); // rule (1)
        }
        let fits = |h: &TcpHeader| self.snd_nxt + h.len as u64 <= self.snd_una + self.peer_wnd;
        if let Some(h) = self.segment(self.snd_nxt).filter(fits) {
            return Some((Rule::NewData, h)); // rule (2)
        }
        if let Some(h) = hole.and_then(|seq| self.segment(seq)) {
            return Some((Rule::Hole, h)); // rule (3)
        }
        if self.snd_una > self.recovery.rescue_rxt {
            // Rule (4): one segment ending with the highest un-SACKed byte, once per recovery.
            let (start, end) = self.scoreboard.last_hole(self.snd_una, self.snd_max)?;
            return self.segment(start.max(end.saturating_sub(self.mss))).map(|h| (Rule::Rescue, h));
        }
        None
    }

    /// RFC 3168 §6.1.2: ECN-Echo halves the window as a loss would, once per window of data,
    /// without a retransmission; the next new data segment carries CWR.
    pub(super) fn on_ece(&mut self, now: Time) {
        // ACKs of data sent before the last reduction may still echo the CE that caused it:
        // react only to an ACK covering data sent since (the first of which carried CWR).
        if self.recovery.active || self.snd_una <= self.recovery.recover {
            return;
        }
        self.recovery.recover = self.snd_max;
        self.cc.on_congestion(now, self.snd_max - self.snd_una);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }
}
