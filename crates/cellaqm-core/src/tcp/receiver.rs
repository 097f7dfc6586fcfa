//! Receive half: reassembly and acknowledgement (RFC 793, RFC 5681 §4.2, RFC 2018, RFC 7323, RFC 3168).
//!
//! In-order bytes advance the cumulative ACK point `rcv_nxt`; out-of-order
//! segments are kept as ranges and reported in SACK blocks, the block holding
//! the most recent segment first. An out-of-order, duplicate or gap-filling
//! segment is acknowledged at once; otherwise, with delayed ACKs, every second
//! full-sized segment or after the delayed-ACK timeout. ACKs echo the peer's
//! timestamp and, after a CE mark, carry ECN-Echo until the peer sends CWR.

use super::ranges::RangeSet;
use super::TcpConfig;
use crate::packet::{flags, Ecn, Packet, SackBlocks, TcpHeader};
use crate::time::{Dur, Time};

/// At most this many SACK blocks per ACK (the option space left beside timestamps).
const MAX_SACK_BLOCKS: usize = 3;

pub(super) struct Receiver {
    mss: u64,
    /// `None` without delayed ACKs.
    delack_timeout: Option<Dur>,
    sack: bool,
    rwnd: u32,
    /// Next sequence number expected; 0 until the peer's SYN arrives.
    rcv_nxt: u64,
    out_of_order: RangeSet,
    /// Starts of recently received out-of-order segments, newest first, one per range.
    recent: Vec<u64>,
    /// Sequence number of the peer's FIN, once seen.
    fin: Option<u64>,
    /// In-order payload bytes received since the last ACK sent.
    unacked: u64,
    /// When an ACK must be sent (now, for an immediate ACK).
    ack_due: Option<Time>,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: u32,
    last_ack_sent: u64,
    /// RFC 3168: echo ECE until the peer's CWR.
    ece: bool,
}

impl Receiver {
    pub fn new(cfg: &TcpConfig) -> Receiver {
        let mss = cfg.mss.0;
        Receiver {
            mss,
            delack_timeout: cfg.delayed_ack.then_some(cfg.delack_timeout),
            sack: cfg.recovery.uses_sack(),
            rwnd: cfg.rwnd.bytes(mss as u32) as u32, // validated: at most 1 GiB
            rcv_nxt: 0,
            out_of_order: RangeSet::default(),
            recent: Vec::new(),
            fin: None,
            unacked: 0,
            ack_due: None,
            ts_recent: 0,
            last_ack_sent: 0,
            ece: false,
        }
    }

    /// Takes in a packet from the peer; true if it carried only sequence space already received.
    pub fn on_packet(&mut self, now: Time, pkt: &Packet) -> bool {
        let h = &pkt.tcp;
        if h.seq <= self.last_ack_sent {
            // RFC 7323 §4.3 (2): keep the newest TSval (modular comparison of the 32-bit clock).
            if (h.ts_val.wrapping_sub(self.ts_recent) as i32) > 0 {
                self.ts_recent = h.ts_val;
            }
        }
        if h.has(flags::CWR) {
            self.ece = false; // RFC 3168 §6.1.3
        }
        if pkt.ecn == Ecn::Ce {
            self.ece = true; // RFC 3168 §6.1.3
        }
        let (start, end) = (h.seq, h.seq + h.seq_len());
        if start == end || (!self.syn_received() && !h.has(flags::SYN)) {
            return false; // a bare ACK, or a segment before the connection exists
        }
        if h.has(flags::FIN) {
            self.fin = Some(end - 1);
        }
        let duplicate = end <= self.rcv_nxt || self.out_of_order.containing(start).is_some_and(|(_, e)| end <= e);
        let filled_gap = !self.out_of_order.is_empty();
        let in_order = start <= self.rcv_nxt && self.rcv_nxt < end;
        if in_order && !filled_gap {
            self.rcv_nxt = end; // the common case: in order, nothing held out of order
        } else {
            self.out_of_order.insert(start, end);
            if let Some((_, e)) = self.out_of_order.first().filter(|&(s, _)| s <= self.rcv_nxt) {
                self.rcv_nxt = self.rcv_nxt.max(e);
            }
            self.out_of_order.remove_below(self.rcv_nxt);
        }
        if !in_order && !duplicate {
            self.recent.insert(0, start); // RFC 2018 §4: the newest segment's block goes first
        }
        self.prune_recent();

        // RFC 5681 §4.2: immediate ACK for out-of-order, duplicate and gap-filling segments;
        // SYN and FIN are acknowledged at once too.
        let immediate = !in_order || filled_gap || h.has(flags::SYN) || h.has(flags::FIN);
        self.unacked += if in_order { h.len as u64 } else { 0 };
        self.ack_due = match self.delack_timeout {
            // RFC 5681 §4.2: ACK at least every second full-sized segment, and within the timeout.
            Some(timeout) if !immediate && self.unacked < 2 * self.mss => Some(self.ack_due.unwrap_or(now + timeout)),
            _ => Some(now),
        };
        duplicate
    }

    /// Keeps one entry per out-of-order range still held, newest first.
    fn prune_recent(&mut self) {
        let ranges = &self.out_of_order;
        let mut kept = 0;
        for i in 0..self.recent.len() {
            let range = ranges.containing(self.recent[i]);
            let new = range.is_some() && self.recent[..kept].iter().all(|&seq| ranges.containing(seq) != range);
            if new {
                self.recent[kept] = self.recent[i];
                kept += 1;
            }
        }
        self.recent.truncate(kept.min(MAX_SACK_BLOCKS));
    }

    /// Fills the acknowledgement fields of an outgoing segment; it acknowledges everything so far.
    pub fn fill_ack(&mut self, h: &mut TcpHeader) {
        h.wnd = self.rwnd;
        if self.rcv_nxt == 0 {
            return; // nothing to acknowledge before the peer's SYN
        }
        h.flags |= flags::ACK;
        h.ack = self.rcv_nxt;
        h.ts_ecr = self.ts_recent;
        if self.ece {
            h.flags |= flags::ECE;
        }
        if self.sack {
            h.sack = self.sack_blocks(h.ack);
        }
        self.last_ack_sent = self.rcv_nxt;
        self.unacked = 0;
        self.ack_due = None;
    }

    /// RFC 2018 §4: the block with the most recent segment first, then the most recently reported.
    fn sack_blocks(&self, ack: u64) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        for &seq in &self.recent {
            if let Some(range) = self.out_of_order.containing(seq) {
                blocks.push(ack, range);
            }
        }
        blocks
    }

    /// True if an ACK is due by `now`.
    pub fn ack_due(&self, now: Time) -> bool {
        self.ack_due.is_some_and(|t| t <= now)
    }

    /// Delayed-ACK deadline.
    pub fn next_timer(&self) -> Option<Time> {
        self.ack_due
    }

    pub fn syn_received(&self) -> bool {
        self.rcv_nxt > 0
    }

    pub fn peer_closed(&self) -> bool {
        self.fin.is_some_and(|fin| self.rcv_nxt > fin)
    }

    /// Payload bytes delivered in order (the sequence space minus SYN and FIN).
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt.saturating_sub(1) - self.peer_closed() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Dir;
    use crate::tcp::Recovery;

    fn cfg() -> TcpConfig {
        TcpConfig { recovery: Recovery::Sack, mss: crate::units::Bytes(100), ..TcpConfig::default() }
    }

    fn seg(seq: u64, len: u16, fl: u8) -> Packet {
        Packet::tcp(0, Dir::Down, len as u32 + 40, TcpHeader { seq, len, flags: fl, ..TcpHeader::default() })
    }

    fn ack(r: &mut Receiver) -> TcpHeader {
        let mut h = TcpHeader::default();
        r.fill_ack(&mut h);
        h
    }

    #[test]
    fn reassembles_and_reports_the_newest_block_first() {
        let mut r = Receiver::new(&cfg());
        r.on_packet(Time::ZERO, &seg(0, 0, flags::SYN));
        r.on_packet(Time::ZERO, &seg(201, 100, 0));
        r.on_packet(Time::ZERO, &seg(501, 100, 0));
        r.on_packet(Time::ZERO, &seg(401, 100, 0));
        let h = ack(&mut r);
        assert_eq!(h.ack, 1);
        assert_eq!(h.sack_blocks().collect::<Vec<_>>(), vec![(401, 601), (201, 301)]);
        assert!(!r.on_packet(Time::ZERO, &seg(1, 200, 0)), "fills the first gap");
        assert!(r.ack_due(Time::ZERO), "a gap-filling segment is acknowledged at once");
        let h = ack(&mut r);
        assert_eq!((h.ack, h.sack.len()), (301, 1));
        assert!(r.on_packet(Time::ZERO, &seg(201, 100, 0)), "a duplicate");
        r.on_packet(Time::ZERO, &seg(301, 100, 0));
        assert_eq!(ack(&mut r).ack, 601);
        r.on_packet(Time::ZERO, &seg(601, 0, flags::FIN));
        assert_eq!(ack(&mut r).ack, 602);
        assert!(r.peer_closed());
        assert_eq!(r.delivered(), 600);
    }
}
