//! The receiving side of an RLC AM entity (TS 25.322 §9.4 VR(R)/VR(H),
//! §11.3.3 reception, §11.5 STATUS transmission, §11.6 MRW reception).
//!
//! Received PDUs wait in a window from VR(R) (next in-sequence SN) to VR(H)
//! (highest received + 1); duplicates are counted and dropped. With
//! in-sequence delivery SDUs go up in order as VR(R) passes the PDU they end
//! in; without it, an SDU goes up as soon as all its PDUs are in. A STATUS is
//! triggered (§9.7.2) by a poll bit; by missing-PDU detection, on the PDU that
//! opens a gap or on every PDU while one persists ([`MissingPdu`]); by
//! Timer_Status_Periodic; and by the estimated PDU counter: Timer_EPC after a
//! STATUS with NACKs, as many PDUs as it NACKed arrive (VR(EP) counts them
//! down) and one of the NACKed is still missing. Timer_Status_Prohibit spaces
//! STATUS PDUs (a trigger while it runs waits for it). An MRW is
//! answered by an MRW_ACK (§11.6.3) at the next opportunity, which the
//! prohibit timer does not hold back (it covers the ACK, LIST, BITMAP and
//! RLIST SUFIs only, §9.5).

use super::config::{MissingPdu, RlcConfig};
use super::pdu::{DataPdu, Mrw, MrwAck, SduId, Sn, StatusPdu};
use super::status;
use crate::storage::ShrinkEmpty;
use crate::time::{earliest, Dur, Time};
use std::collections::{BTreeSet, VecDeque};

/// What became of an SDU on the receiving side, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    Delivered(SduId),
    /// Incomplete when the sender's MRW gave up on it.
    Discarded(SduId),
}

/// Counters of a receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub pdus_received: u64,
    pub duplicates: u64,
    /// STATUS PDUs with ACK and BITMAP SUFIs (MRW_ACKs apart).
    pub statuses_sent: u64,
    pub mrw_acks_sent: u64,
    pub sdus_delivered: u64,
    pub sdus_discarded: u64,
}

/// The estimated PDU counter after a STATUS with NACKs (TS 25.322 §9.4 VR(EP), §9.5 Timer_EPC).
struct Epc {
    /// When Timer_EPC expires: PDUs arriving from then on count.
    counts_from: Time,
    /// VR(EP): PDUs still to arrive before the check.
    left: usize,
    /// The PDUs the STATUS NACKed.
    nacked: Vec<Sn>,
}

pub struct AmReceiver {
    in_sequence: bool,
    missing_pdu: MissingPdu,
    prohibit: Dur,
    periodic: Option<Dur>,
    epc_timer: Option<Dur>,
    /// The estimated PDU counter after the last STATUS with NACKs.
    epc: Option<Epc>,
    cover: u64,
    vr_r: Sn,
    vr_h: Sn,
    /// PDUs `[vr_r, vr_h)`; `None` = missing.
    rx: VecDeque<Option<DataPdu>>,
    /// Every SDU below is delivered or discarded.
    next_sdu: SduId,
    /// SDUs at or above `next_sdu` already delivered out of sequence.
    early: BTreeSet<SduId>,
    status_due: bool,
    /// The MRW_ACK to send.
    mrw_ack: Option<MrwAck>,
    prohibit_until: Time,
    periodic_at: Option<Time>,
    received_since_periodic: bool,
    out: Vec<Delivery>,
    stats: ReceiverStats,
}

impl AmReceiver {
    pub fn new(cfg: &RlcConfig) -> AmReceiver {
        AmReceiver {
            in_sequence: cfg.in_sequence,
            missing_pdu: cfg.status.missing_pdu,
            prohibit: cfg.status.prohibit.unwrap_or(Dur::ZERO),
            periodic: cfg.status.periodic,
            epc_timer: cfg.status.epc,
            epc: None,
            cover: status::coverage(cfg.pdu_size.0),
            vr_r: 0,
            vr_h: 0,
            rx: VecDeque::new(),
            next_sdu: 0,
            early: BTreeSet::new(),
            status_due: false,
            mrw_ack: None,
            prohibit_until: Time::ZERO,
            periodic_at: None,
            received_since_periodic: false,
            out: Vec::new(),
            stats: ReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// VR(R): the next SN expected in sequence.
    pub fn vr_r(&self) -> Sn {
        self.vr_r
    }

    fn get(&self, sn: Sn) -> Option<&DataPdu> {
        if sn < self.vr_r {
            return None;
        }
        self.rx.get((sn - self.vr_r) as usize).and_then(Option::as_ref)
    }

    /// An AMD PDU arrives (§11.3.3).
    pub fn on_data(&mut self, now: Time, pdu: &DataPdu) {
        self.stats.pdus_received += 1;
        self.received_since_periodic = true;
        if let (Some(p), None) = (self.periodic, self.periodic_at) {
            self.periodic_at = Some(now + p);
        }
        if pdu.poll {
            self.status_due = true; // §11.3.3: a poll triggers a STATUS
        }
        let sn = pdu.sn;
        if sn < self.vr_r || self.get(sn).is_some() {
            self.stats.duplicates += 1; // duplicate detection
        } else if self.in_sequence && sn == self.vr_r && self.rx.is_empty() {
            // The next in sequence with none waiting passes straight through (as
            // storing it and advancing VR(R) over it would).
            self.vr_h = self.vr_h.max(sn + 1);
            self.pass(pdu);
        } else {
            if sn > self.vr_h && self.missing_pdu == MissingPdu::NewGap {
                self.status_due = true; // missing-PDU detection: SNs vr_h..sn are missing
            }
            let i = (sn - self.vr_r) as usize;
            if self.rx.len() <= i {
                self.rx.resize(i + 1, None);
            }
            self.rx[i] = Some(*pdu);
            self.vr_h = self.vr_h.max(sn + 1);
            if !self.in_sequence {
                self.deliver_complete(pdu);
            }
            self.advance();
        }
        self.count_down_epc(now);
        if self.missing_pdu == MissingPdu::WhileGap && self.vr_r < self.vr_h {
            self.status_due = true; // missing-PDU detection: VR(R) is still missing
        }
    }

    /// VR(EP): a PDU arrived at `now`; once Timer_EPC expired, it counts towards the
    /// retransmissions the last STATUS asked for, and when as many arrived as it NACKed,
    /// a NACKed PDU still missing triggers a STATUS.
    fn count_down_epc(&mut self, now: Time) {
        let Some(epc) = self.epc.as_mut().filter(|e| now >= e.counts_from) else { return };
        epc.left -= 1;
        if epc.left == 0 {
            let epc = self.epc.take().expect("checked");
            let vr_r = self.vr_r;
            self.status_due |= epc.nacked.iter().any(|&sn| sn >= vr_r && self.get(sn).is_none());
        }
    }

    /// Out-of-sequence delivery: the SDUs of `pdu` whose PDUs are all in.
    fn deliver_complete(&mut self, pdu: &DataPdu) {
        for id in pdu.sdu_first..=pdu.sdu_last {
            if id < self.next_sdu || self.early.contains(&id) || !self.complete(id, pdu.sn) {
                continue;
            }
            self.early.insert(id);
            self.out.push(Delivery::Delivered(id));
            self.stats.sdus_delivered += 1;
        }
    }

    /// Whether SDU `id`, with bytes in received PDU `sn`, has all its PDUs in.
    fn complete(&self, id: SduId, sn: Sn) -> bool {
        let mut k = sn;
        loop {
            match self.get(k) {
                None => return false,
                Some(p) if p.starts_sdu(id) => break,
                Some(_) if k == self.vr_r => break, // started below VR(R): all in
                Some(_) => k -= 1,
            }
        }
        let mut k = sn;
        loop {
            match self.get(k) {
                None => return false,
                Some(p) if p.ends_sdu(id) => return true,
                Some(_) => k += 1,
            }
        }
    }

    /// SDU `id` (≥ next_sdu) is done: delivered or discarded, unless it went up early.
    fn finish(&mut self, id: SduId, delivered: bool) {
        debug_assert!(id >= self.next_sdu);
        if !self.early.remove(&id) {
            if delivered {
                self.out.push(Delivery::Delivered(id));
                self.stats.sdus_delivered += 1;
            } else {
                self.out.push(Delivery::Discarded(id));
                self.stats.sdus_discarded += 1;
            }
        }
        self.next_sdu = id + 1;
    }

    /// Moves VR(R) over in-sequence PDUs, finishing the SDUs that end in them.
    fn advance(&mut self) {
        while let Some(Some(_)) = self.rx.front() {
            let p = self.rx.pop_front().flatten().expect("checked");
            self.pass(&p);
        }
    }

    /// VR(R) moves over PDU `p` (the next in sequence), finishing the SDUs that end in it.
    fn pass(&mut self, p: &DataPdu) {
        debug_assert_eq!(p.sn, self.vr_r);
        self.vr_r += 1;
        for id in p.ending_sdus() {
            if id >= self.next_sdu {
                self.finish(id, true);
            }
        }
    }

    /// Gives back the storage of its window where it holds nothing.
    pub fn shrink_empty(&mut self) {
        self.rx.shrink_empty();
    }

    /// The peer's sender was reset (§11.4): it goes on at `next_sn` and gave up every SDU
    /// before `sdus_before`. PDUs below `next_sn` are dropped (those above, already from
    /// after the reset, kept), the SDUs it gave up that this side has not delivered are
    /// discarded, and no STATUS or MRW_ACK is owed any more.
    pub fn reset(&mut self, next_sn: Sn, sdus_before: SduId) {
        if next_sn > self.vr_r {
            let stale = ((next_sn - self.vr_r) as usize).min(self.rx.len());
            self.rx.drain(..stale);
            self.vr_r = next_sn;
            self.vr_h = self.vr_h.max(next_sn);
        }
        for id in self.next_sdu..sdus_before {
            self.finish(id, false);
        }
        (self.status_due, self.epc, self.mrw_ack) = (false, None, None);
        self.advance();
    }

    /// The sender gave up below `m.sn` and on SDUs up to `m.discard_through` (§11.6).
    pub fn on_mrw(&mut self, _now: Time, m: &Mrw) {
        let mut gap = false;
        while self.vr_r < m.sn {
            match self.rx.pop_front().flatten() {
                Some(p) => {
                    if gap {
                        // The SDUs in progress across the gap lost bytes.
                        let upto = if p.starts { p.sdu_first } else { p.sdu_first + 1 };
                        for id in self.next_sdu..upto {
                            self.finish(id, false);
                        }
                        gap = false;
                    }
                    for id in p.ending_sdus() {
                        if id >= self.next_sdu {
                            self.finish(id, true);
                        }
                    }
                }
                None => gap = true,
            }
            self.vr_r += 1;
        }
        self.vr_h = self.vr_h.max(self.vr_r);
        for id in self.next_sdu..=m.discard_through {
            self.finish(id, false);
        }
        self.advance();
        // §11.6.3: SN_ACK = the new VR(R); N = N_LENGTH if that is SN_MRW_LENGTH, else 0.
        let discard_through = (self.vr_r == m.sn).then_some(m.discard_through);
        self.mrw_ack = Some(MrwAck { sn: self.vr_r, discard_through });
    }

    #[inline]
    fn expire(&mut self, now: Time) {
        if let Some(at) = self.periodic_at.filter(|&at| at <= now) {
            self.status_due = true; // Timer_Status_Periodic
            let active = self.received_since_periodic || self.vr_r < self.vr_h;
            self.received_since_periodic = false;
            self.periodic_at = active.then(|| at.max(now) + self.periodic.expect("armed"));
        }
    }

    /// Whether an MRW_ACK or a STATUS PDU may go out at `now`.
    pub fn has_status(&mut self, now: Time) -> bool {
        self.mrw_ack.is_some() || self.status_allowed(now)
    }

    #[inline]
    fn status_allowed(&mut self, now: Time) -> bool {
        self.expire(now);
        self.status_due && now >= self.prohibit_until
    }

    /// When a timer next wants a transmission opportunity.
    pub fn next_timer(&self) -> Option<Time> {
        earliest([self.status_due.then_some(self.prohibit_until), self.periodic_at])
    }

    /// The MRW_ACK to send, if an MRW came in.
    pub fn mrw_ack_pdu(&mut self) -> Option<MrwAck> {
        let ack = self.mrw_ack.take()?;
        self.stats.mrw_acks_sent += 1;
        Some(ack)
    }

    /// The STATUS PDU for a transmission opportunity at `now`, if one is due and allowed.
    #[inline]
    pub fn status_pdu(&mut self, now: Time) -> Option<StatusPdu> {
        if !self.status_allowed(now) {
            return None;
        }
        Some(self.build_status(now))
    }

    /// Builds the STATUS PDU due at `now` (its timers start).
    fn build_status(&mut self, now: Time) -> StatusPdu {
        let st = status::build(self.vr_r, self.vr_h, self.cover, |sn| self.get(sn).is_some());
        self.status_due = false;
        if let Some(t) = self.epc_timer.filter(|_| !st.nacks.is_empty()) {
            // Timer_EPC starts; VR(EP) = the PDUs this STATUS asks for again.
            self.epc = Some(Epc { counts_from: now + t, left: st.nacks.len(), nacked: st.nacks.clone() });
        }
        self.prohibit_until = now + self.prohibit; // Timer_Status_Prohibit starts
        self.stats.statuses_sent += 1;
        st
    }

    /// SDUs delivered or discarded since the last call.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Delivery> {
        self.out.drain(..)
    }
}
