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
//! Files: [`config`] (parameters), [`pdu`] (AMD, STATUS, MRW), [`status`]
//! (STATUS coverage and building), [`sender`], [`receiver`].

pub mod config;
pub mod pdu;
pub mod receiver;
pub mod sender;
pub mod status;
#[cfg(test)]
mod tests;

pub use config::{MissingPdu, PollConfig, RlcConfig, StatusConfig};
pub use pdu::{DataPdu, Mrw, MrwAck, Pdu, SduId, Sn, StatusPdu};
pub use receiver::{AmReceiver, Delivery, ReceiverStats};
pub use sender::{AmSender, Release, SduSource, SenderStats};

use crate::time::{earliest, Time};

/// One end of an AM bearer: the sender of this end's data and the receiver of the peer's.
pub struct AmEntity {
    pub tx: AmSender,
    pub rx: AmReceiver,
}

impl AmEntity {
    pub fn new(cfg: &RlcConfig) -> AmEntity {
        AmEntity { tx: AmSender::new(cfg), rx: AmReceiver::new(cfg) }
    }

    /// A PDU from the peer arrives.
    pub fn receive(&mut self, now: Time, pdu: &Pdu) {
        match pdu {
            Pdu::Data(d) => self.rx.on_data(now, d),
            Pdu::Status(s) => self.tx.on_status(now, s),
            Pdu::Mrw(m) => self.rx.on_mrw(now, m),
            Pdu::MrwAck(a) => self.tx.on_mrw_ack(now, a),
        }
    }

    /// Whether a transmission opportunity at `now` would be used.
    pub fn has_work(&mut self, now: Time, src: &impl SduSource) -> bool {
        self.rx.has_status(now) || self.tx.has_work(now, src)
    }

    /// The PDU for one transmission opportunity: a due MRW_ACK or STATUS first
    /// (control before data, TS 25.322 §11.5.2), then the sender's.
    pub fn next_pdu(&mut self, now: Time, src: &mut impl SduSource) -> Option<Pdu> {
        if let Some(ack) = self.rx.mrw_ack_pdu() {
            return Some(Pdu::MrwAck(ack));
        }
        if let Some(st) = self.rx.status_pdu(now) {
            return Some(Pdu::Status(st));
        }
        self.tx.next_pdu(now, src)
    }

    /// When a timer of either side next wants a transmission opportunity.
    pub fn next_timer(&self) -> Option<Time> {
        earliest([self.tx.next_timer(), self.rx.next_timer()])
    }
}
