//! The sending side of an RLC AM entity (TS 25.322 §9.4 state variables,
//! §11.3 "Data transfer procedure", §11.3.4 SDU discard).
//!
//! SDUs are pulled lazily from an [`SduSource`] (the PDCP buffer) when a PDU
//! is built, segmented and concatenated into fixed-size AMD PDUs with one
//! length indicator per SDU end. Each transmission opportunity takes, in
//! order: a pending MRW command; the lowest NACKed PDU (retransmissions before
//! new data, §11.3.2); a new PDU if the window allows; or, when a poll is due
//! and nothing else is to send, the highest unacknowledged PDU again carrying
//! the poll (§11.3.2.1.1). A PDU NACKed after `max_dat` transmissions has its
//! SDU discarded together with every unconfirmed SDU before it, and the
//! receiver is told to move its window: the SDU discard with explicit
//! signalling (§11.6) sends an MRW, sends it again each time Timer_MRW expires
//! (the same MRW, even if more SDUs were discarded meanwhile) and ends only on
//! an MRW_ACK that reaches it (SN_ACK beyond SN_MRW_LENGTH, or equal with the
//! same N_LENGTH, §11.6.4); discards made meanwhile start the next procedure
//! then. A STATUS never ends it: one built before the MRW arrived still NACKs
//! the PDUs the sender gave up, and the receiver would wait for them for ever.
//! With MaxMRW, the Timer_MRW expiry after the MaxMRW-th transmission asks for
//! an RLC reset instead ([`AmSender::reset`], run by [`super::AmEntity`]).

use super::config::RlcConfig;
use super::pdu::{DataPdu, Mrw, MrwAck, Pdu, SduId, Sn, StatusPdu};
use crate::storage::ShrinkEmpty;
use crate::time::{earliest, Time};
use std::collections::{BTreeSet, VecDeque};

/// Where the sender takes SDUs from, one at a time, when it needs bytes.
pub trait SduSource {
    /// The size in bytes (≥ 1) of the next SDU, which the sender names `id`; `None` if there is none.
    fn next_sdu(&mut self, id: SduId) -> Option<u32>;
    /// Whether an SDU waits. [`SduSource::next_sdu`] may still give none: a
    /// PDCP discipline that decides at the hand-over may drop what waits.
    fn has_sdu(&self) -> bool;
}

/// A plain FIFO of SDU sizes (tests, unmanaged buffers).
impl SduSource for VecDeque<u32> {
    fn next_sdu(&mut self, _id: SduId) -> Option<u32> {
        self.pop_front()
    }
    fn has_sdu(&self) -> bool {
        !self.is_empty()
    }
}

/// What became of an SDU on the sending side, in SDU order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// All its PDUs are acknowledged (cumulatively): the PDCP may let it go.
    Confirmed(SduId),
    /// Given up after MaxDAT (the receiver decides whether it was delivered).
    Discarded(SduId),
}

/// Counters of a sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// AMD PDUs handed to the MAC, retransmissions included.
    pub pdus_sent: u64,
    pub retransmissions: u64,
    pub polls: u64,
    pub statuses_received: u64,
    pub sdus_discarded: u64,
    /// MRW transmissions (Timer_MRW resends included).
    pub mrws_sent: u64,
    /// SDU discard procedures ended by an MRW_ACK.
    pub mrws_acknowledged: u64,
    /// RLC resets this sender went through (§11.4).
    pub resets: u64,
}

#[derive(Clone, Copy, Debug)]
struct TxEntry {
    pdu: DataPdu,
    acked: bool,
    /// Transmissions so far (VT(DAT)).
    dat: u32,
    /// In the retransmission set.
    queued: bool,
}

/// An SDU discard with explicit signalling in progress (TS 25.322 §11.6).
#[derive(Clone, Copy, Debug)]
struct MrwProcedure {
    mrw: Mrw,
    /// To send at the next transmission opportunity (new, or Timer_MRW expired).
    due: bool,
    /// Timer_MRW: when the MRW is sent again unless acknowledged (while not `due`).
    resend_at: Time,
    /// Transmissions so far.
    sent: u32,
}

impl MrwProcedure {
    fn start(mrw: Mrw) -> MrwProcedure {
        MrwProcedure { mrw, due: true, resend_at: Time::ZERO, sent: 0 }
    }
}

pub struct AmSender {
    cfg: RlcConfig,
    payload: u32,
    li: u32,
    /// Poll_Window (§9.7.1) as a count: the PDUs in use (VT(S) − VT(A)) at which the
    /// share of the window reaches the configured one (the smallest count at or above it).
    poll_window_at: Option<u64>,
    /// The SDU being segmented: (id, size, bytes already in PDUs).
    seg: Option<(SduId, u32, u32)>,
    next_id: SduId,
    /// VT(A): first unacknowledged SN; VT(S): next new SN.
    vt_a: Sn,
    vt_s: Sn,
    /// Sent PDUs `[vt_a, vt_s)`.
    tx: VecDeque<TxEntry>,
    /// NACKed PDUs awaiting retransmission: exactly the entries with `queued`
    /// (none acknowledged, none below VT(A)), so its emptiness tells whether a
    /// retransmission is the last one (the "last retransmitted PDU" poll).
    retx: BTreeSet<Sn>,
    /// Fully segmented SDUs not yet released: (id, SN of the PDU it ends in).
    unconfirmed: VecDeque<(SduId, Sn)>,
    pdus_since_poll: u32,
    sdus_since_poll: u32,
    poll_due: bool,
    poll_prohibit_until: Time,
    /// Timer_Poll: deadline and the SN that carried the poll.
    poll_timer: Option<(Time, Sn)>,
    periodic_at: Option<Time>,
    mrw: Option<MrwProcedure>,
    /// What the discards made while `mrw` runs give up (the latest covers the earlier ones).
    next_mrw: Option<Mrw>,
    /// MaxMRW was reached: the entity is to reset the RLC.
    reset_requested: bool,
    released: Vec<Release>,
    stats: SenderStats,
}

impl AmSender {
    pub fn new(cfg: &RlcConfig) -> AmSender {
        AmSender {
            cfg: cfg.clone(),
            payload: cfg.payload(),
            li: cfg.li_size(),
            poll_window_at: cfg.poll.window.map(|w| (w * cfg.window as f64).ceil() as u64),
            seg: None,
            next_id: 0,
            vt_a: 0,
            vt_s: 0,
            tx: VecDeque::new(),
            retx: BTreeSet::new(),
            unconfirmed: VecDeque::new(),
            pdus_since_poll: 0,
            sdus_since_poll: 0,
            poll_due: false,
            poll_prohibit_until: Time::ZERO,
            poll_timer: None,
            periodic_at: None,
            mrw: None,
            next_mrw: None,
            reset_requested: false,
            released: Vec::new(),
            stats: SenderStats::default(),
        }
    }

    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// PDUs sent and not yet acknowledged (VT(S) − VT(A)).
    pub fn outstanding(&self) -> u64 {
        self.vt_s - self.vt_a
    }

    /// PDUs waiting to be sent again.
    pub fn retx_pending(&self) -> u64 {
        self.retx.len() as u64
    }

    fn window_open(&self) -> bool {
        self.vt_s - self.vt_a < self.cfg.window as u64
    }

    fn entry(&mut self, sn: Sn) -> &mut TxEntry {
        &mut self.tx[(sn - self.vt_a) as usize]
    }

    /// Timers that expired by `now` raise their flags.
    fn expire(&mut self, now: Time) {
        if self.poll_timer.is_some_and(|(at, _)| at <= now) {
            // TS 25.322 §9.5 a) Timer_Poll expired: poll again.
            self.poll_timer = None;
            self.poll_due = true;
        }
        if let Some(at) = self.periodic_at.filter(|&at| at <= now) {
            // §9.5 d) Timer_Poll_Periodic.
            self.poll_due = true;
            self.periodic_at = (self.vt_a < self.vt_s).then(|| at.max(now) + self.cfg.poll.periodic.expect("armed"));
        }
        if let Some(m) = &mut self.mrw {
            if !m.due && m.resend_at <= now {
                if self.cfg.max_mrw.is_some_and(|max| m.sent >= max) {
                    self.reset_requested = true; // §11.6.5: MaxMRW reached, RLC reset
                } else {
                    m.due = true; // §9.5 e) Timer_MRW
                }
            }
        }
    }

    /// Gives back the storage of its window, its unconfirmed SDUs and its release list where they hold nothing.
    pub fn shrink_empty(&mut self) {
        self.tx.shrink_empty();
        self.unconfirmed.shrink_empty();
        self.released.shrink_empty();
    }

    /// Whether MaxMRW was reached since the last call (the entity then resets).
    #[inline]
    pub fn take_reset_request(&mut self, now: Time) -> bool {
        self.expire(now);
        std::mem::take(&mut self.reset_requested)
    }

    /// RLC reset (§11.4): every SDU with a segment sent is given up (released as
    /// discarded, in order), retransmissions, polls and discard procedures end, and
    /// sending goes on at VT(S) with the next SDU. Returns (VT(S), the next SDU's id):
    /// what the peer's receiver restarts from.
    pub fn reset(&mut self) -> (Sn, SduId) {
        let partial = self.seg.take().map(|(id, _, _)| id);
        for id in self.unconfirmed.drain(..).map(|(id, _)| id).chain(partial) {
            self.released.push(Release::Discarded(id));
            self.stats.sdus_discarded += 1;
        }
        self.tx.clear();
        self.retx.clear();
        self.vt_a = self.vt_s;
        (self.pdus_since_poll, self.sdus_since_poll, self.poll_due) = (0, 0, false);
        (self.poll_prohibit_until, self.poll_timer, self.periodic_at) = (Time::ZERO, None, None);
        (self.mrw, self.next_mrw, self.reset_requested) = (None, None, false);
        self.stats.resets += 1;
        (self.vt_s, self.next_id)
    }

    /// Whether a transmission opportunity at `now` would be used.
    pub fn has_work(&mut self, now: Time, src: &impl SduSource) -> bool {
        self.expire(now);
        self.mrw.is_some_and(|m| m.due)
            || !self.retx.is_empty()
            || (self.window_open() && (self.seg.is_some() || src.has_sdu()))
            || (self.poll_due && now >= self.poll_prohibit_until && self.vt_a < self.vt_s)
    }

    /// When a timer next wants a transmission opportunity.
    pub fn next_timer(&self) -> Option<Time> {
        let prohibit = (self.poll_due && self.vt_a < self.vt_s).then_some(self.poll_prohibit_until);
        earliest([
            self.poll_timer.map(|(at, _)| at),
            self.periodic_at,
            self.mrw.filter(|m| !m.due).map(|m| m.resend_at),
            prohibit,
        ])
    }

    /// The PDU for one transmission opportunity at `now`, if there is anything to send.
    /// (A loop, not a recursion after a discard, so that it can be inlined: the PDU is
    /// then written where the caller stores it, not read back from a return slot just
    /// written, which stalls the store forwarding.)
    #[inline(always)]
    pub fn next_pdu(&mut self, now: Time, src: &mut impl SduSource) -> Option<Pdu> {
        loop {
            self.expire(now);
            if let Some(m) = &mut self.mrw {
                if m.due {
                    m.due = false;
                    m.resend_at = now + self.cfg.mrw_timer;
                    m.sent += 1;
                    self.stats.mrws_sent += 1;
                    return Some(Pdu::Mrw(m.mrw));
                }
            }
            // §11.3.2: retransmissions have priority over new PDUs.
            if let Some(sn) = self.retx.pop_first() {
                let max_dat = self.cfg.max_dat;
                let e = self.entry(sn);
                debug_assert!(e.queued && !e.acked, "retx holds unacknowledged NACKed PDUs only");
                e.queued = false;
                if e.dat >= max_dat {
                    self.discard(sn); // §11.3.4.3 SDU discard after MaxDAT transmissions
                    continue; // its MRW first, if it starts a procedure
                }
                e.dat += 1;
                let pdu = e.pdu;
                self.stats.retransmissions += 1;
                let last = self.cfg.poll.last_retransmitted && self.retx.is_empty();
                return Some(Pdu::Data(self.stamp(now, pdu, last)));
            }
            if self.window_open() && (self.seg.is_some() || src.has_sdu()) {
                if let Some((pdu, completed)) = self.build(src) {
                    self.tx.push_back(TxEntry { pdu, acked: false, dat: 1, queued: false });
                    self.vt_s += 1;
                    let poll = &self.cfg.poll;
                    let mut trigger = poll.last_pdu_in_buffer && self.seg.is_none() && !src.has_sdu();
                    self.sdus_since_poll += completed;
                    trigger |= poll.every_sdus.is_some_and(|n| completed > 0 && self.sdus_since_poll >= n);
                    // Poll_Window (§9.7.1): on the PDU that brings the window in use to its share.
                    trigger |= self.poll_window_at == Some(self.vt_s - self.vt_a);
                    if let (Some(p), None) = (poll.periodic, self.periodic_at) {
                        self.periodic_at = Some(now + p);
                    }
                    return Some(Pdu::Data(self.stamp(now, pdu, trigger)));
                }
                // The SDUs that waited were dropped at their hand-over: the PDU sent last was the
                // last in the buffer after all, and unless a poll awaits its STATUS (Timer_Poll
                // running) one is due (TS 25.322 §9.7.1), riding on the highest unacknowledged PDU.
                self.poll_due |= self.cfg.poll.last_pdu_in_buffer && self.vt_a < self.vt_s && self.poll_timer.is_none();
            }
            if self.poll_due && now >= self.poll_prohibit_until {
                // Nothing else to send: the poll rides on the highest unacknowledged PDU.
                if let Some(sn) = (self.vt_a..self.vt_s).rev().find(|&sn| !self.tx[(sn - self.vt_a) as usize].acked) {
                    let max_dat = self.cfg.max_dat;
                    let e = self.entry(sn);
                    if e.dat >= max_dat {
                        self.discard(sn);
                        continue;
                    }
                    e.dat += 1;
                    let pdu = e.pdu;
                    self.stats.retransmissions += 1;
                    return Some(Pdu::Data(self.stamp(now, pdu, true)));
                }
                self.poll_due = false;
            }
            return None;
        }
    }

    /// Counts the PDU and sets its poll bit if a trigger fired and polling is not prohibited.
    fn stamp(&mut self, now: Time, mut pdu: DataPdu, trigger: bool) -> DataPdu {
        self.stats.pdus_sent += 1;
        self.pdus_since_poll += 1;
        let every = self.cfg.poll.every_pdus.is_some_and(|n| self.pdus_since_poll >= n);
        self.poll_due |= trigger || every;
        pdu.poll = false;
        if self.poll_due && now >= self.poll_prohibit_until {
            pdu.poll = true;
            self.poll_due = false;
            self.pdus_since_poll = 0;
            self.sdus_since_poll = 0;
            self.stats.polls += 1;
            if let Some(p) = self.cfg.poll.prohibit {
                self.poll_prohibit_until = now + p; // Timer_Poll_Prohibit
            }
            if let Some(t) = self.cfg.poll.timer {
                self.poll_timer = Some((now + t, pdu.sn)); // Timer_Poll
            }
        }
        pdu
    }

    /// Builds the next new PDU (§11.3.2.1 segmentation and concatenation);
    /// returns it and how many SDUs end in it, or `None` if the source gave no byte.
    /// (Inlined into [`AmSender::next_pdu`] for the same reason as it.)
    #[inline(always)]
    fn build(&mut self, src: &mut impl SduSource) -> Option<(DataPdu, u32)> {
        let sn = self.vt_s;
        let mut room = self.payload;
        let mut pdu =
            DataPdu { sn, poll: false, sdu_first: 0, sdu_last: 0, starts: false, ends: false, payload: 0, lis: 0 };
        let mut first = true;
        let mut completed = 0;
        loop {
            if self.seg.is_none() {
                if !first && (!self.cfg.concatenation || room < self.li + 1) {
                    break; // padding
                }
                match src.next_sdu(self.next_id) {
                    Some(size) => {
                        assert!(size > 0, "an SDU must have at least one byte");
                        self.seg = Some((self.next_id, size, 0));
                        self.next_id += 1;
                    }
                    None if first => return None,
                    None => break,
                }
            }
            let (id, size, off) = self.seg.expect("an SDU in segmentation");
            if first {
                pdu.sdu_first = id;
                pdu.starts = off == 0;
                first = false;
            }
            pdu.sdu_last = id;
            let rest = size - off;
            if rest + self.li <= room {
                // The SDU ends here, marked by a length indicator (§9.2.2.8).
                room -= rest + self.li;
                pdu.payload += rest;
                pdu.lis += 1;
                pdu.ends = true;
                self.seg = None;
                self.unconfirmed.push_back((id, sn));
                completed += 1;
            } else if rest == room {
                // Fills the PDU exactly; its LI ("0000000") would open the next PDU: not charged.
                pdu.payload += rest;
                pdu.ends = true;
                self.seg = None;
                self.unconfirmed.push_back((id, sn));
                completed += 1;
                break;
            } else {
                pdu.payload += room;
                pdu.ends = false;
                self.seg = Some((id, size, off + room));
                break;
            }
        }
        Some((pdu, completed))
    }

    /// A STATUS PDU arrives from the peer receiver (§11.5 / §9.2.2.11).
    pub fn on_status(&mut self, _now: Time, st: &StatusPdu) {
        self.stats.statuses_received += 1;
        let end = st.lsn.min(self.vt_s);
        if st.nacks.is_empty() && self.retx.is_empty() && end > self.vt_a {
            // Everything below `end` acknowledged and nothing to retransmit: those PDUs
            // leave the window at once (as marking them and advancing over them would).
            self.tx.drain(..(end - self.vt_a) as usize);
            self.vt_a = end;
        }
        let mut nacks = st.nacks.iter().copied().peekable();
        for sn in self.vt_a..end {
            while nacks.next_if(|&n| n < sn).is_some() {}
            let nacked = nacks.next_if_eq(&sn).is_some();
            let e = &mut self.tx[(sn - self.vt_a) as usize];
            if nacked {
                if !e.acked && !e.queued {
                    e.queued = true;
                    self.retx.insert(sn);
                }
            } else {
                e.acked = true;
                if e.queued {
                    // NACKed before, acknowledged now: no longer to retransmit.
                    e.queued = false;
                    self.retx.remove(&sn);
                }
            }
        }
        if self.poll_timer.is_some_and(|(_, psn)| st.lsn > psn) {
            self.poll_timer = None; // the poll was answered
        }
        self.advance();
    }

    /// An MRW_ACK arrives (§11.6.4): it ends the running procedure if it reaches
    /// its MRW (else it answers an earlier one and is ignored, §11.6.6).
    pub fn on_mrw_ack(&mut self, _now: Time, ack: &MrwAck) {
        if self.mrw.is_some_and(|m| ack.acknowledges(&m.mrw)) {
            self.stats.mrws_acknowledged += 1;
            self.mrw = self.next_mrw.take().map(MrwProcedure::start);
        }
    }

    /// Moves VT(A) over acknowledged PDUs and confirms the SDUs that end below it.
    fn advance(&mut self) {
        while self.tx.front().is_some_and(|e| e.acked) {
            self.tx.pop_front();
            self.vt_a += 1;
        }
        while let Some(&(id, _)) = self.unconfirmed.front().filter(|&&(_, last)| last < self.vt_a) {
            self.unconfirmed.pop_front();
            self.released.push(Release::Confirmed(id));
        }
        if self.vt_a == self.vt_s {
            self.periodic_at = None;
        }
    }

    /// SDU discard because PDU `sn` reached MaxDAT (§11.3.4.3): every
    /// unconfirmed SDU up to the last one with bytes in it is dropped, the PDUs
    /// below the first one still needed are given up, and an MRW is scheduled.
    fn discard(&mut self, sn: Sn) {
        let s_last = self.entry(sn).pdu.sdu_last;
        let cut = if self.seg.is_some_and(|(id, _, _)| id == s_last) {
            // Its tail was never sent: drop it, and everything sent so far is given up.
            self.seg = None;
            self.vt_s
        } else {
            let z = self.unconfirmed.iter().find(|(id, _)| *id == s_last).expect("the SDU is unconfirmed").1;
            if self.tx[(z - self.vt_a) as usize].pdu.sdu_last > s_last {
                z // PDU z also carries the start of a later SDU: still needed
            } else {
                z + 1
            }
        };
        while let Some(&(id, _)) = self.unconfirmed.front().filter(|&&(id, _)| id <= s_last) {
            self.unconfirmed.pop_front();
            self.released.push(Release::Discarded(id));
            self.stats.sdus_discarded += 1;
        }
        if self.released.last() != Some(&Release::Discarded(s_last)) {
            self.released.push(Release::Discarded(s_last));
            self.stats.sdus_discarded += 1;
        }
        for e in self.tx.iter_mut().take((cut - self.vt_a) as usize) {
            e.acked = true;
        }
        self.advance();
        self.retx = self.retx.split_off(&self.vt_a);
        let mrw = Mrw { sn: cut, discard_through: s_last };
        match self.mrw {
            Some(_) => self.next_mrw = Some(mrw), // §11.6.2: no new MRW before the running one ends
            None => self.mrw = Some(MrwProcedure::start(mrw)),
        }
    }

    /// SDUs confirmed or discarded since the last call, in SDU order.
    pub fn drain_released(&mut self) -> std::vec::Drain<'_, Release> {
        self.released.drain(..)
    }

    /// Whether nothing is buffered or unacknowledged.
    pub fn is_idle(&self) -> bool {
        self.seg.is_none() && self.vt_a == self.vt_s && self.mrw.is_none()
    }
}
