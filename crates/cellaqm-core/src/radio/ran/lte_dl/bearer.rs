//! One UE's bearer at the eNodeB: the PDCP buffer with its queue discipline,
//! the RLC transmitting side and the HARQ entity (TS 36.323, 36.322, 36.321).
//!
//! The PDCP buffer holds a packet until the RLC takes it for a transmission
//! opportunity (the RLC asks for an SDU only when there is room for at
//! least one of its bytes, [`crate::radio::lte::rlc_tx`]): that is the
//! discipline's departure, where CoDel, PIE, FQ-CoDel, PDCP discard and
//! T-AQM decide; the arrival-side schemes decide on arrival. A packet the
//! RLC took is no longer in the buffer (*simplification*: the buffer counts
//! what waits for the RLC, TS 36.322's transmission buffer being the RLC's).
//! One opportunity builds one MAC PDU: the MAC subheader, one RLC PDU
//! (TS 36.321 §6.1.2: one logical channel). HARQ draws the block's fate at
//! once ([`crate::radio::lte::harq`]); in AM, a block given up has its bytes
//! sent again `status_delay` after, before new data (TS 36.322 §5.2.1).

use super::config::RlcMode;
use crate::packet::Packet;
use crate::queue::{AnyQueue, Dropped, QueueCtx, QueueDisc};
use crate::radio::lte::harq::{Harq, HarqConfig, HarqStats, Outcome};
use crate::radio::lte::rlc_tx::{mac_pdu_bytes, RlcPdu, RlcTx, MAC_SUBHEADER, PDCP_HEADER};
use crate::radio::sap::TxOpportunity;
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// A transport block as sent in a TTI.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its first transmission.
    pub first: Time,
    pub outcome: Outcome,
    pub pdu: RlcPdu,
}

/// One UE's bearer at the eNodeB.
pub struct Bearer {
    queue: AnyQueue,
    rate_bps: f64,
    rlc: RlcTx,
    mode: RlcMode,
    harq: Harq,
    tti: Dur,
    status_delay: Dur,
    /// Opportunities used, their bytes, and the data bytes (RLC SDU bytes, new and again) they carried.
    pub opportunities: u64,
    pub granted_bytes: u64,
    pub data_bytes: u64,
}

impl Bearer {
    /// A bearer whose PDCP buffer is `queue` (its discipline told `rate_bps`),
    /// in RLC `mode`, with HARQ `harq` drawing from `rng`.
    pub fn new(
        queue: AnyQueue,
        rate_bps: f64,
        mode: RlcMode,
        harq: &HarqConfig,
        rng: Rng,
        tti: Dur,
        status_delay: Dur,
    ) -> Bearer {
        Bearer {
            queue,
            rate_bps,
            rlc: RlcTx::default(),
            mode,
            harq: Harq::new(harq, rng),
            tti,
            status_delay,
            opportunities: 0,
            granted_bytes: 0,
            data_bytes: 0,
        }
    }

    fn ctx(&self, now: Time) -> QueueCtx {
        QueueCtx { now, rate_bps: self.rate_bps }
    }

    /// A packet from the core enters the PDCP buffer.
    pub fn arrive(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) {
        let ctx = self.ctx(now);
        self.queue.enqueue(pkt, &ctx, dropped);
    }

    /// Runs the discipline's timers up to `now`.
    pub fn on_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) {
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
    }

    /// The discipline's next timer.
    pub fn next_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// The bearer's buffer status before a TTI, as the scheduler reads it:
    /// the MAC PDU bytes that would carry every byte it could send at `now`
    /// (queued packets, the SDU being segmented, retransmissions due).
    pub fn need(&self, now: Time) -> u64 {
        let (bytes, pieces) = self.rlc.pending(now);
        let packets = self.queue.packets() as u64;
        mac_pdu_bytes(bytes + self.queue.bytes() + PDCP_HEADER * packets, pieces + packets)
    }

    /// Whether anything waits, now or later (an AM retransmission not yet due).
    pub fn has_data(&self, now: Time) -> bool {
        self.need(now) > 0 || self.rlc.next_retx().is_some()
    }

    /// Fills the opportunity `op` of the TTI starting at `now`: one MAC PDU.
    pub fn transmit(&mut self, now: Time, op: TxOpportunity, dropped: &mut Vec<Dropped>) -> Block {
        let room = op.bytes.saturating_sub(MAC_SUBHEADER);
        let ctx = self.ctx(now);
        let queue = &mut self.queue;
        let pdu = self.rlc.fill(now, room, || queue.dequeue(&ctx, dropped));
        let outcome = self.harq.send();
        if !outcome.decoded && self.mode == RlcMode::Am {
            self.rlc.lost(outcome.done_at(now, self.harq.rtt(), self.tti) + self.status_delay, &pdu.ranges);
        }
        self.opportunities += 1;
        self.granted_bytes += op.bytes;
        self.data_bytes += pdu.data;
        Block { first: now, outcome, pdu }
    }

    pub fn mode(&self) -> RlcMode {
        self.mode
    }

    pub fn harq_rtt(&self) -> Dur {
        self.harq.rtt()
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    pub fn harq_stats(&self) -> HarqStats {
        self.harq.stats()
    }
}
