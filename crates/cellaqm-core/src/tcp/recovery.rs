//! Loss recovery and congestion signals (RFC 5681 §3.2, RFC 6582, RFC 6675, RFC 6937, RFC 3168 §6.1.2).
//!
//! Three duplicate ACKs (or, with SACK, a lost hole per IsLost) trigger fast
//! retransmit: ssthresh = max(FlightSize/2, 2·SMSS). Reno leaves recovery on
//! the first new ACK; NewReno stays until everything outstanding at its start
//! is acknowledged, retransmitting one segment per partial ACK; SACK recovery
//! chooses the segments to send by NextSeg (FACK, `fack.rs`, changes when it
//! starts, which holes are lost and the window rule). How much recovery sends
//! is `recovery_window`'s: with `"rfc"`, Reno and NewReno inflate cwnd by one
//! SMSS per duplicate ACK (deflating on partial ACKs) and SACK sends while
//! cwnd − pipe ≥ SMSS (FACK: awnd < cwnd); with `"prr"`, each ACK in recovery allows the sndcnt of
//! RFC 6937 (`prr.rs`) and cwnd is left at ssthresh. The fast retransmission
//! and NewReno's partial-ACK retransmissions are sent whatever the rule
//! allows, and under PRR they count in prr_out like any other segment. An
//! ECN-Echo reduces cwnd the same way without a retransmission. The window is
//! reduced at most once per window of data: not again until `snd_una` passes
//! `recover` (RFC 6582 §3.2 (2), RFC 6675 §5.1; as ns-2's `bug_fix_`, Reno
//! obeys it too).

use super::congestion::Signal;
use super::ns2_sack1::Sack1;
use super::prr::Prr;
use super::scoreboard::DUP_THRESH;
use super::sender::Sender;
use super::{Recovery, RecoveryWindow, RtoRestart};
use crate::packet::{Packet, TcpHeader};
use crate::time::Time;

#[derive(Default)]
pub(super) struct LossRecovery {
    /// In fast recovery.
    pub active: bool,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint, as an exclusive end:
    /// `snd_max` when the window was last reduced.
    recover: u64,
    /// Duplicate ACKs since `snd_una` last advanced (RFC 5681 §3.2 DupThresh).
    pub dupacks: u64,
    /// Bytes reported delivered by duplicate ACKs, one SMSS each, and not yet covered by
    /// the cumulative ACK: what a sender without SACK knows of SACKd (see `Sender::sackd`).
    pub dupacked: u64,
    /// RFC 6675 HighRxt (exclusive end): retransmissions of this recovery reached here
    /// (without SACK: the end of the latest fast or partial-ACK retransmission; ns-2 Sack1's
    /// `h_seqno_`).
    pub high_rxt: u64,
    /// RFC 6675 RescueRxt (exclusive end).
    rescue_rxt: u64,
    /// Partial ACKs so far in this recovery.
    partial_acks: u32,
    /// RFC 6937 state, with `recovery_window = "prr"`.
    pub prr: Prr,
    /// ns-2's Sack1 state, with `recovery = "ns2_sack1"`.
    pub sack1: Sack1,
}

impl LossRecovery {
    /// RFC 6582 §3.2 (4), RFC 6675 §5.1: a timeout ends recovery, and no new
    /// reduction happens until what was sent before it is acknowledged.
    pub fn after_timeout(&mut self, snd_max: u64) {
        let sack1 = Sack1 { after_timeout: true, ..Sack1::default() };
        *self = LossRecovery { recover: snd_max, sack1, ..LossRecovery::default() };
    }

    /// `recover` (exclusive end): loss recovery, or a timeout's, covers the data below it.
    pub fn recover(&self) -> u64 {
        self.recover
    }

    /// RFC 5682 §2.1 step 3b: a timeout found spurious leaves no recovery behind: `recover` ← SND.UNA.
    pub fn forget_timeout(&mut self, snd_una: u64) {
        self.recover = snd_una;
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
    /// Recovery is on and PRR (RFC 6937) sets how much it sends.
    pub(super) fn prr_active(&self) -> bool {
        self.recovery.active && self.recovery_window == RecoveryWindow::Prr
    }

    /// RFC 6937 §2 SACKd: bytes above `snd_una` the receiver is known to hold. Without
    /// SACK, RFC 6937 §2 estimates DeliveredData as one SMSS per duplicate ACK and, on a
    /// partial or full ACK, as the change in `snd_una` less one SMSS per preceding duplicate
    /// ACK. SACKd is estimated accordingly as `recovery.dupacked`: one SMSS per duplicate
    /// ACK, less what cumulative ACKs have since covered. DeliveredData = the change in
    /// `snd_una` plus the change in SACKd then follows the RFC's estimate, and where a
    /// partial ACK covers fewer bytes than the duplicates before it reported (those came
    /// from data above the next hole), the rest stays counted as delivered instead of
    /// being counted again later: DeliveredData adds up to the progress of `snd_una`, as
    /// RFC 6937 §2 requires of it.
    pub(super) fn sackd(&self) -> u64 {
        match self.kind {
            Recovery::Sack | Recovery::Ns2Sack1 => self.scoreboard.sacked_bytes(),
            Recovery::Reno | Recovery::NewReno => self.recovery.dupacked,
        }
    }

    /// RFC 6675 SetPipe() during recovery: bytes not SACKed and not lost, plus those
    /// retransmitted. With SACK, from the scoreboard. Without, from what a NewReno sender
    /// knows: duplicate ACKs reported segments that left the network (SACKd above), and
    /// the first unacknowledged segment is lost (RFC 6582 retransmits it on entry and on
    /// every partial ACK) until its retransmission is sent, when it counts once again:
    /// pipe = FlightSize − SACKd − (SMSS while that retransmission is still to go), at least 0.
    pub(super) fn pipe(&self) -> u64 {
        if self.kind.uses_sack() {
            return self.scoreboard.pipe(self.snd_una, self.snd_max, self.recovery.high_rxt, self.mss);
        }
        let lost = if self.recovery.high_rxt > self.snd_una { 0 } else { self.mss };
        (self.snd_max - self.snd_una).saturating_sub(self.sackd() + lost)
    }

    /// RFC 6937 §3 on an ACK in recovery that reports `delivered` bytes (DeliveredData).
    pub(super) fn prr_on_ack(&mut self, delivered: u64) {
        let pipe = self.pipe();
        self.recovery.prr.on_ack(delivered, pipe, self.cc.ssthresh(), self.mss);
    }

    /// RFC 5681 §3.2 window inflation and RFC 6582 deflation set the amount sent:
    /// no SACK and `recovery_window = "rfc"`.
    fn inflates(&self) -> bool {
        !self.kind.uses_sack() && self.recovery_window == RecoveryWindow::Rfc
    }

    /// Whether an ACK of `acked` bytes may grow cwnd: always, but with
    /// `cwnd_validation` (RFC 7661) only while the flight before the ACK filled at
    /// least half of cwnd (RFC 7661's pipeACK ≥ cwnd/2, the flight standing in for
    /// pipeACK): a sender held back by the receive window keeps its cwnd.
    fn may_grow(&self, acked: u64) -> bool {
        !self.cwnd_validation || 2 * (self.snd_max - self.snd_una + acked) >= self.cc.window()
    }

    /// `acked` bytes newly acknowledged (`snd_una` already advanced), `delivered` bytes
    /// reported delivered (RFC 6937 DeliveredData). Returns whether the ACK restarts the
    /// retransmission timer.
    pub(super) fn on_new_ack(
        &mut self,
        now: Time,
        acked: u64,
        delivered: u64,
        handshake: bool,
        out: &mut Vec<Packet>,
    ) -> bool {
        if !self.recovery.active {
            if !handshake && self.may_grow(acked) {
                self.cc.on_ack(now, acked);
            }
        } else if self.snd_una >= self.recovery.recover || self.kind == Recovery::Reno {
            // RFC 5681 §3.2 (6): Reno deflates on the first new ACK; RFC 6582 §3.2 (3): a full
            // ACK ends NewReno (cwnd = ssthresh); RFC 6675 §5 (A): ACK beyond RecoveryPoint.
            // With PRR too, recovery ends with cwnd = ssthresh.
            self.recovery.active = false;
            if self.kind == Recovery::Ns2Sack1 {
                // ns-2 Sack1's `recv`: recover_ = 0 on leaving recovery; cwnd_ stays as `slowdown` left it.
                self.recovery.recover = 0;
            } else {
                self.cc.set_window(self.cc.ssthresh());
            }
        } else {
            if self.recovery_window == RecoveryWindow::Prr {
                self.prr_on_ack(delivered);
            }
            if self.kind == Recovery::NewReno {
                // RFC 6582 §3.2 (5) partial ACK: retransmit the first unacknowledged segment.
                self.recovery.high_rxt = self.send_at(now, self.snd_una, out);
            }
            if self.inflates() {
                // RFC 6582 §3.2 (5): deflate by the amount acknowledged and add back one
                // SMSS if at least one SMSS was.
                let add_back = if acked >= self.mss { self.mss } else { 0 };
                self.cc.set_window(self.cc.window().saturating_sub(acked) + add_back);
            }
            self.recovery.partial_acks += 1;
            return self.rto_restart == RtoRestart::Always || self.recovery.partial_acks == 1;
        }
        true
    }

    /// A duplicate ACK (already counted in `recovery.dupacks`) reporting `delivered` bytes.
    pub(super) fn on_dupack(&mut self, now: Time, delivered: u64, out: &mut Vec<Packet>) {
        if self.recovery.active {
            if self.recovery_window == RecoveryWindow::Prr {
                self.prr_on_ack(delivered);
            } else if self.inflates() {
                self.cc.set_window(self.cc.window() + self.mss); // RFC 5681 §3.2 (4)
            }
            return;
        }
        // RFC 5681 §3.2 (2): the third duplicate; RFC 6675 §5 (2): or IsLost(HighACK + 1);
        // with FACK, its trigger instead (`fack.rs`).
        let lost = self.recovery.dupacks >= DUP_THRESH
            || match self.kind {
                Recovery::Sack if self.scoreboard.fack => self.fack_trigger(),
                Recovery::Sack => self.scoreboard.is_lost(self.snd_una, self.mss),
                Recovery::Reno | Recovery::NewReno | Recovery::Ns2Sack1 => false,
            };
        let recovered = match self.kind {
            // ns-2 Sack1's `dupack_action` (bugFix_): highest_ack_ > recover_ in packets, i.e. a packet
            // sent after the last timeout acknowledged (recover_ 0 at the start: the SYN's end).
            Recovery::Ns2Sack1 => self.snd_una > self.recovery.recover.max(1),
            _ => self.snd_una >= self.recovery.recover,
        };
        if lost && recovered {
            // RFC 6582 §3.2 (2): not again for losses in the window already reduced for.
            self.enter_recovery(now, delivered, out);
        }
    }

    fn enter_recovery(&mut self, now: Time, delivered: u64, out: &mut Vec<Packet>) {
        let base = self.reduction_base(); // before recovery starts
        self.stats.fast_retransmits += 1;
        self.recovery.active = true;
        self.recovery.partial_acks = 0;
        self.recovery.recover = self.snd_max; // RFC 6582 §3.2 (2), RFC 6675 (4.1)
        let flight = self.snd_max - self.snd_una;
        self.cc.on_congestion(now, base, Signal::Loss); // RFC 5681 (4), RFC 6675 (4.2)
        if self.kind == Recovery::Ns2Sack1 {
            self.sack1_enter(base); // before the retransmission, which pipe_ does not count
        }
        if self.recovery_window == RecoveryWindow::Prr {
            // RFC 6937 §3: RecoverFS = FlightSize; the ACK that starts recovery is its first.
            self.recovery.prr = Prr::start(flight);
            self.prr_on_ack(delivered);
        }
        let end = self.send_at(now, self.snd_una, out); // RFC 5681 §3.2 (3), RFC 6675 (4.3)
        if self.rto_restart == RtoRestart::Always {
            // As ns-2 and Linux: RFC 6298 (5.1) alone leaves the timer running from the last
            // new ACK, and behind a full buffer it expires before the retransmission's ACK returns.
            self.restart_timer(now);
        }
        self.recovery.high_rxt = end; // RFC 6675 (4.3)
        if self.kind == Recovery::Sack {
            self.recovery.rescue_rxt = end;
        }
        if self.inflates() {
            self.cc.set_window(self.cc.ssthresh() + 3 * self.mss); // RFC 5681 §3.2 (3)
        }
    }

    /// RFC 6675 §5 (C): send the segments NextSeg chooses while cwnd − pipe ≥ 1 SMSS
    /// (`"rfc"`; with FACK while awnd = pipe < cwnd) or while they fit in sndcnt (`"prr"`, RFC 6937).
    pub(super) fn transmit_sack_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        while let Some((rule, h)) = self.next_seg() {
            let allowed = match self.recovery_window {
                RecoveryWindow::Rfc if self.scoreboard.fack => self.fack_window_open(),
                RecoveryWindow::Rfc => self.pipe() + self.mss <= self.cc.window(),
                RecoveryWindow::Prr => self.recovery.prr.allows(h.seq_len()),
            };
            if !allowed {
                break;
            }
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
        self.cc.on_congestion(now, self.reduction_base(), Signal::Ecn);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }
}
