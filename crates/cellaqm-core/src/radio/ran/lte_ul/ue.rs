//! One UE's uplink MAC: its buffer with the queue discipline, the RLC
//! transmitting side, the BSR procedure and HARQ (lte-uplink-raqm.md: "UE:
//! TCP sender → PDCP → RLC transmission buffer → MAC → PHY").
//!
//! The buffer is the study's RLC transmission buffer (1.25 MB) managed by a
//! discipline (drop-tail, DFF, PDCP discard, T-AQM, …), which decides on an
//! SDU when the RLC takes it for a grant ([`crate::radio::lte::rlc_tx`]). A grant builds
//! one MAC PDU: the BSR control element if one goes out ([`super::bsr`]),
//! then the RLC PDU; the BSR reports the bytes left after the PDU (TS 36.321
//! §6.1.3.1), counting queued IP packets as PDCP SDUs and the RLC's bytes as
//! PDCP PDUs (TS 36.323 §4.5), headers of RLC and MAC not included. HARQ draws
//! the block's fate at once ([`crate::radio::lte::harq`]); a block given up has its data
//! sent again by RLC AM after `status_delay`.

use super::bsr::{BsrCe, BsrConfig, BsrProcedure, LCGS};
use crate::bsr::HeadOfLine;
use crate::packet::Packet;
use crate::queue::{AnyQueue, Dropped, QueueCtx, QueueDisc};
use crate::radio::lte::harq::{Harq, HarqConfig, HarqStats, Outcome};
use crate::radio::lte::rlc_tx::{mac_pdu_bytes, RlcPdu, RlcTx, MAC_SUBHEADER, PDCP_HEADER};
use crate::radio::sap::TxOpportunity;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use serde::Serialize;

/// A BSR as the UE sent it, with what the eNodeB cannot see (for measurement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentBsr {
    pub ce: BsrCe,
    /// The exact bytes it quantises.
    pub exact: u64,
    /// The true head-of-line delay of the buffer when it was built.
    pub true_delay: Dur,
}

/// A transport block as sent in a TTI.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its first transmission (the TTI of the grant).
    pub first: Time,
    pub outcome: Outcome,
    pub pdu: RlcPdu,
    pub bsr: Option<SentBsr>,
}

/// Counters of a UE's MAC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UeStats {
    /// Grants used, and their bytes.
    pub grants: u64,
    pub granted_bytes: u64,
    /// Data bytes sent (RLC SDU bytes, new and RLC retransmissions).
    pub data_bytes: u64,
    pub bsrs: u64,
    pub srs: u64,
}

/// One UE's uplink MAC entity.
pub struct Ue {
    queue: AnyQueue,
    rate_bps: f64,
    rlc: RlcTx,
    bsr: BsrProcedure,
    harq: Harq,
    tti: Dur,
    status_delay: Dur,
    head: HeadOfLine,
    stats: UeStats,
}

impl Ue {
    /// A UE whose buffer is `queue` (its discipline told `rate_bps`), with
    /// BSR configuration `bsr`, HARQ `harq` drawing from `rng`, TTI `tti`, and RLC
    /// recovery `status_delay` after HARQ gives a block up.
    pub fn new(
        queue: AnyQueue,
        rate_bps: f64,
        bsr: &BsrConfig,
        harq: &HarqConfig,
        rng: Rng,
        tti: Dur,
        status_delay: Dur,
    ) -> Ue {
        Ue {
            queue,
            rate_bps,
            rlc: RlcTx::default(),
            bsr: BsrProcedure::new(bsr),
            harq: Harq::new(harq, rng),
            tti,
            status_delay,
            head: HeadOfLine::default(),
            stats: UeStats::default(),
        }
    }

    fn ctx(&self, now: Time) -> QueueCtx {
        QueueCtx { now, rate_bps: self.rate_bps }
    }

    /// The bytes a BSR would report now (the Buffer Size).
    pub fn buffered(&self, now: Time) -> u64 {
        self.queue.bytes() + self.rlc.pending(now).0
    }

    fn groups(&self, now: Time) -> [u64; LCGS] {
        [self.buffered(now), 0, 0, 0]
    }

    /// MAC PDU bytes (headers included, no BSR) that would carry every pending byte.
    fn need(&self, now: Time) -> u64 {
        let (bytes, pieces) = self.rlc.pending(now);
        let packets = self.queue.packets() as u64;
        mac_pdu_bytes(bytes + self.queue.bytes() + PDCP_HEADER * packets, pieces + packets)
    }

    /// An IP packet from the UE's TCP/IP enters the buffer.
    pub fn arrive(&mut self, now: Time, pkt: Packet, dropped: &mut Vec<Dropped>) {
        let before = self.groups(now);
        let from = dropped.len();
        self.head.entered(pkt.uid, now);
        let ctx = self.ctx(now);
        self.queue.enqueue(pkt, &ctx, dropped);
        self.head.dropped(&dropped[from..]);
        if !dropped[from..].iter().any(|d| d.pkt.uid == pkt.uid) {
            self.bsr.data_arrived(0, &before);
        }
    }

    /// Runs the discipline's and the BSR timers up to `now`.
    pub fn on_timer(&mut self, now: Time, dropped: &mut Vec<Dropped>) {
        let from = dropped.len();
        let ctx = self.ctx(now);
        self.queue.on_timer(&ctx, dropped);
        self.head.dropped(&dropped[from..]);
        // RLC retransmissions now due are data newly available (TS 36.321 §5.4.5).
        let due = self.rlc.announce(now);
        if due > 0 {
            self.bsr.data_arrived(0, &[self.buffered(now) - due, 0, 0, 0]);
        }
        let has_data = self.buffered(now) > 0;
        self.bsr.expire(now, has_data);
    }

    /// The discipline's next timer.
    pub fn next_queue_timer(&self) -> Option<Time> {
        self.queue.next_timer()
    }

    /// Whether a Scheduling Request is pending.
    pub fn sr_pending(&self) -> bool {
        self.bsr.sr_pending()
    }

    /// The UE signals an SR.
    pub fn sent_sr(&mut self) {
        self.stats.srs += 1;
    }

    /// Whether the UE holds data (queued, being segmented, or to retransmit now or later).
    pub fn has_data(&self, now: Time) -> bool {
        self.buffered(now) > 0 || self.rlc.next_retx().is_some()
    }

    /// The UE uses its grant (the transmission opportunity of its BSR) in the TTI starting at `now`.
    pub fn transmit(&mut self, now: Time, grant: TxOpportunity, dropped: &mut Vec<Dropped>) -> Block {
        let grant = grant.bytes;
        let has_data = self.buffered(now) > 0;
        self.bsr.expire(now, has_data);
        let trigger = self.bsr.triggered();
        let format = self.bsr.on_grant(now, grant, self.need(now), &self.groups(now));
        let room = grant.saturating_sub(MAC_SUBHEADER + format.map_or(0, |f| f.bytes()));
        let ctx = self.ctx(now);
        let (queue, head) = (&mut self.queue, &mut self.head);
        let pdu = self.rlc.fill(now, room, || {
            let from = dropped.len();
            let got = queue.dequeue(&ctx, dropped);
            head.dropped(&dropped[from..]);
            got
        });
        for &uid in &pdu.completed {
            self.head.left(uid);
        }
        let bsr = format.map(|f| SentBsr {
            ce: self.bsr.fill(f, trigger, &self.groups(now)),
            exact: self.buffered(now),
            true_delay: self.head.delay(now),
        });
        let outcome = self.harq.send();
        if !outcome.decoded {
            self.rlc.lost(outcome.done_at(now, self.harq.rtt(), self.tti) + self.status_delay, &pdu.ranges);
        }
        self.stats.grants += 1;
        self.stats.granted_bytes += grant;
        self.stats.data_bytes += pdu.data;
        self.stats.bsrs += bsr.is_some() as u64;
        Block { first: now, outcome, pdu, bsr }
    }

    pub fn queue(&self) -> &AnyQueue {
        &self.queue
    }

    pub fn stats(&self) -> UeStats {
        self.stats
    }

    pub fn harq_stats(&self) -> HarqStats {
        self.harq.stats()
    }
}
