//! The eNodeB's RLC AM receiver of one UE: reordering and in-sequence
//! delivery (TS 36.322 §5.1.3.2: SDUs are reassembled from the received PDUs
//! and delivered to PDCP in ascending order of sequence number; a later SDU
//! waits for an earlier one still missing).
//!
//! The UE's RLC is modelled as one byte stream of RLC SDUs (PDCP PDUs), each
//! occupying `[start, end)` of it ([`super::rlc_tx`]); a transport block
//! carries byte ranges of that stream, new or retransmitted. This is RLC AM
//! with re-segmentation seen at byte granularity (*simplification*: sequence
//! numbers, segment offsets and windows are not modelled; their headers are).
//! An SDU is delivered once every byte up to its end has arrived.

use crate::packet::Packet;
use std::collections::{BTreeMap, VecDeque};

/// In-sequence reassembly of one UE's RLC byte stream.
#[derive(Debug, Default)]
pub struct Reassembly {
    /// Every byte before this has arrived.
    next: u64,
    /// Ranges received beyond a gap: start → end.
    held: BTreeMap<u64, u64>,
    /// SDUs in the stream not yet delivered: (end offset, packet), in order.
    sdus: VecDeque<(u64, Packet)>,
}

impl Reassembly {
    /// The UE's RLC put `pkt` in the stream, ending at offset `end`.
    pub fn expect(&mut self, end: u64, pkt: Packet) {
        debug_assert!(self.sdus.back().is_none_or(|s| s.0 < end), "SDUs in stream order");
        self.sdus.push_back((end, pkt));
    }

    /// Bytes `[start, end)` of the stream arrived; the SDUs this completes in
    /// order go to `delivered`.
    pub fn receive(&mut self, start: u64, end: u64, delivered: &mut Vec<Packet>) {
        if end <= self.next {
            return; // a duplicate
        }
        if start > self.next {
            // Beyond a gap: merge into the held ranges.
            let e = self.held.entry(start).or_insert(end);
            *e = (*e).max(end);
            return;
        }
        self.next = end;
        // Held ranges the new prefix now reaches.
        while let Some((&s, &e)) = self.held.first_key_value() {
            if s > self.next {
                break;
            }
            self.held.pop_first();
            self.next = self.next.max(e);
        }
        while self.sdus.front().is_some_and(|s| s.0 <= self.next) {
            delivered.push(self.sdus.pop_front().expect("checked").1);
        }
    }

    /// Bytes of SDUs not yet delivered.
    pub fn bytes(&self) -> u64 {
        self.sdus.iter().map(|s| s.1.size as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;

    fn uids(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.uid).collect()
    }

    /// Three SDUs of 1000 B: [0, 1000), [1000, 2000), [2000, 3000). Blocks
    /// of 700 B carry [0, 700), [700, 1400), [1400, 2100), [2100, 3000).
    /// The second block needs a HARQ retransmission and arrives last but one:
    /// SDU 1 waits for it, SDU 2 waits for SDU 1, and both go together.
    #[test]
    fn a_later_sdu_waits_for_an_earlier_one_being_retransmitted() {
        let mut r = Reassembly::default();
        for (k, end) in [1000, 2000, 3000].into_iter().enumerate() {
            r.expect(end, pkt(k as u64 + 1, 1000));
        }
        let mut got = Vec::new();
        r.receive(0, 700, &mut got);
        assert!(got.is_empty());
        r.receive(1400, 2100, &mut got); // block 2 lost: held
        r.receive(2100, 3000, &mut got);
        assert!(got.is_empty(), "SDU 1 lacks [700, 1000)");
        assert_eq!(r.bytes(), 3000);
        r.receive(700, 1400, &mut got); // the retransmission
        assert_eq!(uids(&got), [1, 2, 3]);
        assert_eq!(r.bytes(), 0);
        // A late duplicate changes nothing.
        r.receive(700, 1400, &mut got);
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn in_order_ranges_deliver_as_each_sdu_completes() {
        let mut r = Reassembly::default();
        r.expect(1500, pkt(1, 1500));
        r.expect(1600, pkt(2, 100));
        let mut got = Vec::new();
        r.receive(0, 1499, &mut got);
        assert!(got.is_empty());
        r.receive(1499, 1600, &mut got);
        assert_eq!(uids(&got), [1, 2]);
    }
}
