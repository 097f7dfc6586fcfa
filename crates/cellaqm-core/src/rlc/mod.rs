//! RLC acknowledged mode (3GPP TS 25.322), the selective-repeat ARQ between
//! the RNC (or eNodeB) and the UE, as a reusable component.
//!
//! ```text
//!   PDCP ──SDUs──▶ AmSender ──AMD PDUs──▶ MAC/air ──▶ AmReceiver ──SDUs──▶ IP
//!                     ▲                                   │
//!                     └──── STATUS (ACK/NACK bitmap) ◀────┘  (reverse link)
//! ```
//!
//! One [`AmEntity`] sits at each end of a bearer: its sender carries that
//! end's data, its receiver answers the peer's data with STATUS PDUs, which
//! travel on the reverse link in the same transport blocks as the reverse
//! data. Everything is driven from outside: the MAC asks an entity for a PDU
//! per transmission opportunity ([`AmEntity::next_pdu`]) and hands it what
//! arrived ([`AmEntity::receive`]); timers are polled through
//! [`AmEntity::next_timer`]. No clock is read; `now` is an argument.
//!
//! Files: [`config`] (parameters), [`pdu`] (AMD, STATUS, MRW, MRW_ACK, RESET), [`status`]
//! (STATUS coverage and building), [`sender`], [`receiver`].

pub mod config;
pub mod pdu;
pub mod receiver;
pub mod sender;
pub mod status;
#[cfg(test)]
mod tests;

pub use config::{MissingPdu, PollConfig, RlcConfig, StatusConfig};
pub use pdu::{DataPdu, Mrw, MrwAck, Pdu, Reset, SduId, Sn, StatusPdu};
pub use receiver::{AmReceiver, Delivery, ReceiverStats};
pub use sender::{AmSender, Release, SduSource, SenderStats};

use crate::time::{earliest, Dur, Time};

/// One end of an AM bearer: the sender of this end's data and the receiver of the peer's.
///
/// It also runs the RLC reset (TS 25.322 §11.4) that MaxMRW asks for: the
/// initiator resets its sender at once and, in RESET_PENDING, sends only its
/// RESET PDU (again each Timer_RST) until the RESET ACK comes; the peer resets
/// both its sides on the RESET and answers (a repeated RESET, with the same RSN,
/// is answered again without a second reset); the RESET ACK resets the
/// initiator's receiver. Crossing RESETs end both procedures.
pub struct AmEntity {
    pub tx: AmSender,
    pub rx: AmReceiver,
    reset_timer: Dur,
    /// RESET_PENDING: our RESET, whether it is due, and when Timer_RST sends it again.
    pending: Option<(Reset, bool, Time)>,
    /// The RESET ACK owed, and the last RESET answered (the peer's RSN, our answer).
    ack_due: bool,
    answered: Option<Reset>,
    next_rsn: u32,
}

impl AmEntity {
    pub fn new(cfg: &RlcConfig) -> AmEntity {
        AmEntity {
            tx: AmSender::new(cfg),
            rx: AmReceiver::new(cfg),
            reset_timer: cfg.reset_timer,
            pending: None,
            ack_due: false,
            answered: None,
            next_rsn: 0,
        }
    }

    /// A PDU from the peer arrives.
    pub fn receive(&mut self, now: Time, pdu: &Pdu) {
        match pdu {
            Pdu::Data(d) => self.rx.on_data(now, d),
            Pdu::Status(s) => self.tx.on_status(now, s),
            Pdu::Mrw(m) => self.rx.on_mrw(now, m),
            Pdu::MrwAck(a) => self.tx.on_mrw_ack(now, a),
            Pdu::Reset(r) => self.on_reset(r),
            Pdu::ResetAck(r) => {
                if self.pending.is_some_and(|(ours, _, _)| ours.rsn == r.rsn) {
                    self.rx.reset(r.next_sn, r.sdus_before);
                    self.pending = None;
                }
            }
        }
    }

    /// The peer's RESET: reset both sides (unless it repeats the one answered) and owe the RESET ACK.
    fn on_reset(&mut self, r: &Reset) {
        self.ack_due = true;
        if self.answered.is_some_and(|a| a.rsn == r.rsn) {
            return;
        }
        self.rx.reset(r.next_sn, r.sdus_before);
        let (next_sn, sdus_before) = self.tx.reset();
        self.answered = Some(Reset { rsn: r.rsn, next_sn, sdus_before });
        self.pending = None; // crossing RESETs: the peer's resets our receiver too
    }

    /// Lets the sender's timers expire at `now` and starts the reset MaxMRW asked for, if
    /// it did: the sender resets, the RESET is due.
    #[inline]
    fn start_reset(&mut self, now: Time) {
        if self.tx.take_reset_request(now) {
            let (next_sn, sdus_before) = self.tx.reset();
            self.next_rsn += 1;
            self.pending = Some((Reset { rsn: self.next_rsn, next_sn, sdus_before }, true, Time::ZERO));
        }
    }

    /// Gives back the storage of the sender's and receiver's windows where they
    /// hold nothing (an idle bearer: 2 047 PDUs' worth each at the HS-DSCH study's window).
    pub fn shrink_empty(&mut self) {
        self.tx.shrink_empty();
        self.rx.shrink_empty();
    }

    /// Whether a transmission opportunity at `now` would be used. Both sides' timers
    /// expire here (the sender's in [`AmEntity::start_reset`]): a Timer_Poll due now
    /// raises its poll even when a STATUS waits too, so a STATUS arriving later cannot
    /// cancel it.
    pub fn has_work(&mut self, now: Time, src: &impl SduSource) -> bool {
        self.start_reset(now);
        if let Some((_, due, at)) = self.pending {
            return self.ack_due || due || at <= now;
        }
        self.ack_due || self.rx.has_status(now) || self.tx.has_work(now, src)
    }

    /// The PDU for one transmission opportunity: a RESET ACK owed, then (in RESET_PENDING
    /// only the RESET) a due MRW_ACK or STATUS (control before data, TS 25.322 §11.5.2),
    /// then the sender's. (Inlined, as the sender's is: see [`AmSender::next_pdu`].)
    #[inline(always)]
    pub fn next_pdu(&mut self, now: Time, src: &mut impl SduSource) -> Option<Pdu> {
        self.start_reset(now);
        if std::mem::take(&mut self.ack_due) {
            return self.answered.map(Pdu::ResetAck);
        }
        if let Some((ours, due, at)) = &mut self.pending {
            if !*due && *at > now {
                return None;
            }
            (*due, *at) = (false, now + self.reset_timer);
            return Some(Pdu::Reset(*ours));
        }
        if let Some(ack) = self.rx.mrw_ack_pdu() {
            return Some(Pdu::MrwAck(ack));
        }
        if let Some(st) = self.rx.status_pdu(now) {
            return Some(Pdu::Status(st));
        }
        self.tx.next_pdu(now, src)
    }

    /// Up to `max` PDUs for one transmission opportunity of several, each the one
    /// [`AmEntity::next_pdu`] gives next, to `out`. Returns how many (fewer: nothing was left).
    pub fn next_pdus(&mut self, now: Time, src: &mut impl SduSource, max: u64, out: &mut Vec<Pdu>) -> u64 {
        let mut given = 0;
        while given < max {
            let Some(pdu) = self.next_pdu(now, src) else { break };
            out.push(pdu);
            given += 1;
        }
        given
    }

    /// When a timer of either side (or Timer_RST) next wants a transmission opportunity.
    pub fn next_timer(&self) -> Option<Time> {
        match self.pending {
            Some((_, due, at)) => (!due).then_some(at),
            None => earliest([self.tx.next_timer(), self.rx.next_timer()]),
        }
    }
}
