//! Send half: segmentation, sending window and retransmission timer (RFC 793, RFC 5681, RFC 6298).
//!
//! The sequence space is the SYN (0), the application's bytes (from 1) and the
//! FIN. New segments of up to one SMSS go out while they fit in
//! min(cwnd, rwnd) above `snd_una`. The retransmission timer runs while data
//! is outstanding; on expiry the sender backs off, shrinks cwnd to one segment
//! and goes back to `snd_una` (go-back-N). Fast retransmit and recovery are in
//! `recovery.rs`.

use super::congestion::{self, Controller};
use super::eifel::Eifel;
use super::eifel_response::Undo;
use super::frto::{self, Frto};
use super::recovery::LossRecovery;
use super::rtt::{RttEstimator, RttMetrics};
use super::rtt_timing::RttTiming;
use super::scoreboard::Scoreboard;
use super::{Recovery, RecoveryWindow, RtoRestart, SpuriousRto, TcpConfig, TcpStats};
use crate::packet::{flags, ts_clock, Dir, Ecn, FlowId, Packet, TcpHeader};
use crate::time::{Dur, Time};

pub(super) struct Sender {
    flow: FlowId,
    dir: Dir,
    header: u32,
    pub kind: Recovery,
    pub recovery_window: RecoveryWindow,
    pub rto_restart: RtoRestart,
    pub mss: u64,
    /// The initial window in bytes, and whether an idle sender goes back to it (RFC 5681 §4.1).
    initial_window: u64,
    restart_after_idle: bool,
    /// When data (new or retransmitted) was last sent.
    last_data_sent: Option<Time>,
    ecn: bool,
    /// `tcp.cwnd_validation` (RFC 7661).
    pub cwnd_validation: bool,
    /// `tcp.limited_transmit` (RFC 3042).
    pub limited_transmit: bool,
    timestamps: bool,
    /// The SYN may go out (active open, or the peer's SYN arrived).
    opened: bool,
    /// Application bytes written so far (saturating: `u64::MAX` is an endless source).
    written: u64,
    /// The application closed: a FIN follows the written bytes.
    closing: bool,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send (rewound to `snd_una` by a timeout).
    pub snd_nxt: u64,
    /// One past the highest sequence number sent.
    pub snd_max: u64,
    /// The peer's advertised window.
    pub peer_wnd: u64,
    pub cc: Box<dyn Controller>,
    rtt: RttEstimator,
    /// Without timestamps: the segments being timed.
    rtt_timing: RttTiming,
    pub rto_deadline: Option<Time>,
    /// `snd_una` at the last timeout, to recognise a repeated timeout of the same segment.
    last_rto_una: Option<u64>,
    /// Timeouts since new data was last acknowledged (see [`Sender::stalled`]).
    timeouts_without_progress: u32,
    /// Mark the next retransmission as the first one after a timeout.
    mark_rto: bool,
    /// `tcp.spurious_rto`, and what the last timeout left to judge (Eifel's, or F-RTO's steps).
    spurious_rto: SpuriousRto,
    eifel: Option<Eifel>,
    frto: Option<Frto>,
    /// Set CWR on the next new data segment (RFC 3168 §6.1.2).
    pub cwr_pending: bool,
    pub scoreboard: Scoreboard,
    pub recovery: LossRecovery,
    pub stats: TcpStats,
}

/// Consecutive timeouts without progress after which [`Sender::stalled`] says so.
pub const STALL_TIMEOUTS: u32 = 3;

impl Sender {
    pub fn new(cfg: &TcpConfig, flow: FlowId, dir: Dir) -> Sender {
        let mss = cfg.mss.0;
        Sender {
            flow,
            dir,
            header: cfg.header.0 as u32,
            kind: cfg.recovery,
            recovery_window: cfg.recovery_window,
            rto_restart: cfg.rto_restart,
            mss,
            initial_window: cfg.initial_window as u64 * mss,
            restart_after_idle: cfg.restart_after_idle,
            last_data_sent: None,
            ecn: cfg.ecn,
            cwnd_validation: cfg.cwnd_validation,
            limited_transmit: cfg.limited_transmit,
            timestamps: cfg.timestamps,
            opened: false,
            written: 0,
            closing: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            peer_wnd: cfg.rwnd.bytes(mss as u32),
            cc: congestion::new(cfg),
            rtt: RttEstimator::new(cfg),
            rtt_timing: RttTiming::new(cfg.rtt_samples),
            rto_deadline: None,
            last_rto_una: None,
            timeouts_without_progress: 0,
            mark_rto: false,
            spurious_rto: cfg.spurious_rto,
            eifel: None,
            frto: None,
            cwr_pending: false,
            scoreboard: Scoreboard::new(cfg.fack),
            recovery: LossRecovery::default(),
            stats: TcpStats::default(),
        }
    }

    pub fn open(&mut self) {
        self.opened = true;
    }

    pub fn write(&mut self, bytes: u64) {
        self.written = self.written.saturating_add(bytes);
    }

    pub fn close(&mut self) {
        self.closing = true;
    }

    /// Sequence number just past the written data (where the FIN goes).
    pub(super) fn data_end(&self) -> u64 {
        self.written.saturating_add(1)
    }

    /// The segment starting at `seq`: the SYN, up to one SMSS of data (not running
    /// into SACKed data, unless [`Sender::resends_sacked`]), and the FIN if it ends the
    /// data; `None` if nothing is there.
    pub fn segment(&self, seq: u64) -> Option<TcpHeader> {
        if seq == 0 {
            return Some(TcpHeader { flags: flags::SYN, ..TcpHeader::default() });
        }
        if self.snd_una == 0 {
            return None; // data waits for the handshake
        }
        let data_end = self.data_end();
        let sacked = if self.resends_sacked() { u64::MAX } else { self.scoreboard.next_sacked(seq) };
        let len = self.mss.min(data_end.saturating_sub(seq)).min(sacked - seq);
        let fin = self.closing && seq + len == data_end;
        (len > 0 || fin).then(|| TcpHeader {
            seq,
            len: len as u16, // validated: MSS + header ≤ 65 535
            flags: if fin { flags::FIN } else { 0 },
            ..TcpHeader::default()
        })
    }

    fn packet(&self, now: Time, mut h: TcpHeader) -> Packet {
        if self.timestamps {
            h.ts_val = ts_clock(now);
        }
        Packet::tcp(self.flow, self.dir, h.len as u32 + self.header, h)
    }

    /// Sends segment `h`, keeping the books: statistics, RTT timing, timer, `snd_nxt`/`snd_max`.
    pub fn emit(&mut self, now: Time, mut h: TcpHeader, out: &mut Vec<Packet>) {
        let retransmission = h.seq < self.snd_max;
        let fresh_data = h.len > 0 && !retransmission;
        if fresh_data && std::mem::take(&mut self.cwr_pending) {
            h.flags |= flags::CWR; // RFC 3168 §6.1.2
        }
        let mut pkt = self.packet(now, h);
        if h.len > 0 {
            self.stats.segments_sent += 1;
            self.stats.bytes_sent += h.len as u64;
            self.last_data_sent = Some(now);
        }
        if retransmission {
            self.stats.bytes_retransmitted += h.len as u64;
            pkt.retransmission = true;
            pkt.rto_retransmission = std::mem::take(&mut self.mark_rto);
            self.rtt_timing.on_retransmit(h.seq, h.seq + h.seq_len());
        } else if !self.timestamps {
            self.rtt_timing.on_send(h.seq, h.seq + h.seq_len(), now);
        }
        if self.ecn && fresh_data {
            pkt.ecn = Ecn::Ect; // RFC 3168 §6.1.5: retransmissions are not ECT
        }
        if self.prr_active() {
            self.recovery.prr.on_send(h.seq_len()); // RFC 6937 §3: prr_out
        }
        if h.seq == self.snd_nxt {
            self.snd_nxt += h.seq_len();
        }
        self.snd_max = self.snd_max.max(h.seq + h.seq_len());
        self.rto_deadline.get_or_insert(now + self.rtt.rto()); // RFC 6298 (5.1)
        out.push(pkt);
    }

    /// Sends the segment at `seq` (a retransmission if below `snd_max`); returns where it ends.
    pub fn send_at(&mut self, now: Time, seq: u64, out: &mut Vec<Packet>) -> u64 {
        match self.segment(seq) {
            Some(h) => {
                self.emit(now, h, out);
                h.seq + h.seq_len()
            }
            None => seq,
        }
    }

    /// Sends what the window allows.
    pub fn transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.opened {
            return;
        }
        self.restart_if_idle(now);
        match self.kind {
            Recovery::Sack if self.recovery.active => return self.transmit_sack_recovery(now, out),
            Recovery::Ns2Sack1 if self.recovery.active => return self.transmit_sack1_recovery(now, out),
            _ => {}
        }
        // RFC 6937: in recovery PRR's sndcnt, not cwnd, limits what is sent.
        let prr = self.prr_active();
        let window = match prr {
            true => self.peer_wnd,
            false => (self.cc.window() + self.limited_transmit_allowance()).min(self.peer_wnd),
        };
        loop {
            if !self.resends_sacked() {
                self.snd_nxt = self.scoreboard.skip_sacked(self.snd_nxt);
            }
            match self.segment(self.snd_nxt) {
                Some(h)
                    if self.snd_nxt + h.len as u64 <= self.snd_una + window
                        && (!prr || self.recovery.prr.allows(h.seq_len())) =>
                {
                    self.emit(now, h, out)
                }
                _ => break,
            }
        }
    }

    /// RFC 5681 §4.1: "a TCP SHOULD set cwnd to no more than RW before beginning
    /// transmission if the TCP has not sent data in an interval exceeding the
    /// retransmission timeout", RW = min(IW, cwnd). Only with nothing in flight
    /// (an idle connection; data in flight keeps the timer running instead).
    fn restart_if_idle(&mut self, now: Time) {
        if !self.restart_after_idle || self.snd_una != self.snd_max {
            return;
        }
        if self.last_data_sent.is_some_and(|t| now.since(t) > self.rtt.rto()) {
            let rw = self.initial_window.min(self.cc.window());
            self.cc.set_window(rw);
        }
    }

    /// The packet a bare acknowledgement rides on: our SYN again while it is
    /// unacknowledged (a duplicate SYN is answered by a SYN-ACK), else an empty segment.
    pub fn bare_ack(&self, now: Time) -> Packet {
        if self.snd_una == 0 && self.snd_max > 0 {
            let mut pkt = self.packet(now, TcpHeader { flags: flags::SYN, ..TcpHeader::default() });
            pkt.retransmission = true;
            return pkt;
        }
        self.packet(now, TcpHeader { seq: self.snd_nxt, ..TcpHeader::default() })
    }

    /// An acknowledgement arrived; `pure` if it carries no data, SYN or FIN.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader, pure: bool, out: &mut Vec<Packet>) {
        if h.ack > self.snd_max {
            return; // acknowledges something never sent
        }
        self.peer_wnd = h.wnd as u64;
        let new_ack = h.ack > self.snd_una;
        let sack1 = self.kind == Recovery::Ns2Sack1;
        if sack1 && !new_ack && self.recovery.sack1.after_timeout {
            return; // ns-2 Sack1's `timeout_`: duplicates ignored until new data is acknowledged
        }
        let in_recovery = self.recovery.active;
        let sacked_before = self.scoreboard.sacked_bytes();
        let known_delivered = self.snd_una + self.sackd();
        let sacked_below_rp = self.frto.and_then(|f| f.recovery_point()).map(|rp| self.scoreboard.sacked_below(rp));
        let snd_max = self.snd_max;
        self.scoreboard.update(self.snd_una.max(h.ack), h.sack_blocks());
        // RFC 5681 §2: duplicate acknowledgment; ns-2 Sack1 counts it only if it SACKs new data.
        let dupack = !new_ack
            && pure
            && h.ack == self.snd_una
            && self.snd_una < self.snd_max
            && (!sack1 || self.scoreboard.sacked_bytes() > sacked_before);
        let (handshake, acked) = (self.snd_una == 0, h.ack.saturating_sub(self.snd_una));
        if new_ack {
            self.timeouts_without_progress = 0;
            self.judge_timeout(h, acked);
            self.sample_rtt(now, h);
            self.snd_una = h.ack;
            self.snd_nxt = self.snd_nxt.max(h.ack);
            self.recovery.dupacks = 0;
            self.recovery.dupacked = self.recovery.dupacked.saturating_sub(acked);
        } else if dupack {
            self.recovery.dupacks += 1;
            self.recovery.dupacked += self.mss;
        }
        // RFC 6937 §2 DeliveredData: the change in snd_una plus the change in SACKd.
        let delivered = (self.snd_una + self.sackd()).saturating_sub(known_delivered);
        if new_ack {
            let restart = self.on_new_ack(now, acked, delivered, handshake, out);
            // RFC 6298 (5.2): stop the timer when all is acknowledged; (5.3): else restart it
            // (during recovery, as `rto_restart` says).
            if self.snd_una == self.snd_max {
                self.rto_deadline = None;
            } else if restart {
                self.restart_timer(now);
            }
        } else if dupack {
            self.on_dupack(now, delivered, out);
        } else if self.prr_active() {
            self.prr_on_ack(delivered); // RFC 6937 §3: every ACK during recovery
        }
        if self.frto.is_some() && (new_ack || dupack) {
            let rp = self.frto.and_then(|f| f.recovery_point());
            let ack = frto::Ack {
                ack: h.ack,
                advances: new_ack,
                duplicate: dupack,
                snd_max,
                sacks_beyond: rp.is_some_and(|rp| h.sack_blocks().any(|(_, end)| end > rp)),
                sacks_new_below: rp.is_some_and(|rp| self.scoreboard.sacked_below(rp) > sacked_below_rp.unwrap_or(0)),
            };
            self.frto_step(now, &ack, h.has(flags::ECE), acked, out);
        }
        if self.ecn && h.has(flags::ECE) {
            self.on_ece(now);
        }
        if sack1 {
            self.sack1_after_ack(in_recovery, new_ack);
        }
    }

    /// The first ACK of new data after a first timeout: undo it if it was spurious ([`Eifel`]).
    fn judge_timeout(&mut self, h: &TcpHeader, acked: u64) {
        let Some(e) = self.eifel.take() else { return };
        let flight = self.snd_max - h.ack;
        let undo = e.judge(h.ts_ecr).and_then(|r| r.undo(h.has(flags::ECE), acked, flight, self.initial_window));
        if let Some(undo) = undo {
            self.undo_timeout(undo);
        }
    }

    /// F-RTO's steps 2 and 3 ([`Frto`]) on an ACK that acknowledged `acked` new bytes (processed already).
    fn frto_step(&mut self, now: Time, ack: &frto::Ack, ece: bool, acked: u64, out: &mut Vec<Packet>) {
        let Some(f) = self.frto.as_mut() else { return };
        match f.on_ack(ack) {
            frto::Decision::Wait => {}
            frto::Decision::SendNew => {
                // Step 2b: up to two new segments instead of retransmissions, as the receive window allows.
                let back = self.snd_nxt;
                self.snd_nxt = self.snd_max;
                let mut sent = 0;
                while sent < 2 {
                    match self.segment(self.snd_nxt) {
                        Some(h) if h.len > 0 && self.snd_nxt + h.len as u64 <= self.snd_una + self.peer_wnd => {
                            self.emit(now, h, out);
                            sent += 1;
                        }
                        _ => break,
                    }
                }
                if sent == 0 {
                    self.snd_nxt = back; // none could go: conventional recovery
                    self.frto = None;
                }
            }
            frto::Decision::Conventional { cap_segments } => {
                self.frto = None;
                if let Some(n) = cap_segments {
                    // Step 3a: cwnd at most 3 SMSS; retransmit the unacknowledged segments.
                    self.cc.set_window(self.cc.window().min(n * self.mss));
                    self.snd_nxt = self.snd_una;
                }
            }
            frto::Decision::Spurious(response) => {
                self.frto = None;
                self.recovery.forget_timeout(self.snd_una);
                let flight = self.snd_max - self.snd_una;
                match response.undo(ece, acked, flight, self.initial_window) {
                    Some(undo) => self.undo_timeout(undo),
                    None => self.snd_nxt = self.snd_max, // RFC 4015 step 4 even with an ECN-Echo
                }
            }
        }
    }

    /// The Eifel response (RFC 4015) to a timeout found spurious: resume with new data
    /// (step 4) and restore the congestion state (step 5).
    fn undo_timeout(&mut self, undo: Undo) {
        self.snd_nxt = self.snd_max;
        self.cc.set_window(undo.cwnd);
        self.cc.set_ssthresh(undo.ssthresh);
        self.stats.rtos_undone += 1;
    }

    /// RFC 7323 §4.1: with timestamps, every ACK of new data gives a sample from its
    /// echo; without, the segments timed give them ([`RttTiming`], RFC 6298 §3).
    fn sample_rtt(&mut self, now: Time, h: &TcpHeader) {
        let sample = if self.timestamps {
            Some(Dur::from_micros(ts_clock(now).wrapping_sub(h.ts_ecr) as u64))
        } else {
            self.rtt_timing.on_ack(h.ack, now)
        };
        if let Some(r) = sample {
            self.rtt.sample(r, now);
            self.cc.on_rtt_sample(self.rtt.srtt().expect("a sample was just taken"));
        }
    }

    /// What a loss halves (RFC 5681 (4): ssthresh no more than FlightSize/2): FlightSize,
    /// but no more than the congestion window — during fast recovery the recovery's
    /// ssthresh, RFC 5681's inflation of cwnd being temporary. After a long NewReno
    /// recovery FlightSize counts much data delivered above the holes (one repaired
    /// per RTT), and half of it can exceed the path many times over; ns-2 halves its
    /// window and Linux its cwnd.
    pub(super) fn reduction_base(&self) -> u64 {
        if self.kind == Recovery::Ns2Sack1 {
            return self.sack1_reduction_base();
        }
        let cwnd = if self.recovery.active { self.cc.ssthresh() } else { self.cc.window() };
        (self.snd_max - self.snd_una).min(cwnd)
    }

    /// Restarts the retransmission timer: it expires one RTO from `now`.
    pub fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// Retransmission timeout, if due.
    pub fn on_timer(&mut self, now: Time) {
        if self.rto_deadline.is_none_or(|t| t > now) {
            return;
        }
        self.stats.rtos += 1;
        self.timeouts_without_progress += 1;
        if self.snd_una == 0 {
            self.cc.set_window(self.mss); // RFC 5681 §3.1: after a lost SYN the initial window is one segment
        } else if self.last_rto_una != Some(self.snd_una) {
            let (flight, ssthresh) = (self.snd_max - self.snd_una, self.cc.ssthresh());
            match self.spurious_rto {
                SpuriousRto::None => {}
                SpuriousRto::Eifel => self.eifel = Some(Eifel::at_timeout(ts_clock(now), flight, ssthresh)),
                SpuriousRto::Frto => {
                    // RFC 5682 step 1: only outside loss recovery; the timeout resends the first segment.
                    let resent = self.segment(self.snd_una).map_or(self.snd_una, |h| h.seq + h.seq_len());
                    self.frto = frto::may_start(self.recovery.recover(), self.snd_una)
                        .then(|| Frto::at_timeout(self.kind.uses_sack(), resent, flight, ssthresh));
                }
            }
            self.cc.on_rto(now, self.reduction_base()); // RFC 5681 (4) and the loss window
        } else if self.kind == Recovery::Ns2Sack1 {
            self.cc.on_rto(now, self.reduction_base()); // ns-2 `timeout`: halved again (ssthresh 2)
        } else if !self.frto.is_some_and(|f| f.waits_for_first_ack()) {
            // RFC 5681 §3.1: a repeated timeout of the same segment holds ssthresh (cwnd is 1 SMSS
            // already); RFC 5682: F-RTO goes on only from step 2 (step 1 over).
            self.frto = None;
        }
        self.last_rto_una = Some(self.snd_una);
        self.recovery.after_timeout(self.snd_max);
        self.scoreboard.clear(); // RFC 6675 §5.1
        self.rtt.back_off(); // RFC 6298 (5.5)
        self.snd_nxt = self.snd_una; // RFC 6298 (5.4): resend from the earliest unacknowledged segment
        self.mark_rto = true;
        self.rto_deadline = Some(now + self.rtt.rto()); // RFC 6298 (5.6)
    }

    pub fn next_timer(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Stalled: data (or the SYN/FIN) outstanding and [`STALL_TIMEOUTS`] or more
    /// consecutive timeouts with nothing new acknowledged — with the RTO doubling
    /// each time (RFC 6298 (5.5)), at least 7 RTOs without progress. A run's
    /// summary counts the flows stalled at its end (`stalled_flows`), so a
    /// transfer stuck for good never hides in a mean over the finished ones.
    pub fn stalled(&self) -> bool {
        self.snd_una < self.snd_max && self.timeouts_without_progress >= STALL_TIMEOUTS
    }

    /// Payload bytes the peer acknowledged.
    pub fn acked(&self) -> u64 {
        self.snd_una.saturating_sub(1).min(self.written)
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }

    pub fn rtt_metrics(&self) -> RttMetrics {
        self.rtt.metrics()
    }
}
