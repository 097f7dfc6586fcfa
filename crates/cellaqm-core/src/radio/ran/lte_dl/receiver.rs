//! One UE's RLC receiving side: in-sequence reassembly of the bearer's byte
//! stream ([`crate::radio::lte::reassembly`]), and in RLC UM the discard of
//! SDUs that lost bytes.
//!
//! TS 36.322 §5.1.2.2: a UM receiver reassembles SDUs from the PDUs it
//! received and discards those it cannot complete once t-Reordering gives up
//! on the missing PDU. *Simplification*: the UE knows a block is lost when
//! HARQ gives it up (no t-Reordering wait); its byte ranges then count as
//! received but damaged, and every SDU with a damaged byte is discarded when
//! its turn in the sequence comes. In AM no range is ever damaged: the
//! eNodeB sends it again.

use crate::packet::Packet;
use crate::radio::lte::reassembly::Reassembly;
use std::collections::VecDeque;

/// One UE's RLC receiver.
#[derive(Debug, Default)]
pub struct Receiver {
    rx: Reassembly,
    /// The SDUs not yet delivered: their `[start, end)` in the stream, in order.
    spans: VecDeque<(u64, u64)>,
    /// Damaged ranges not yet passed by the delivered SDUs.
    damaged: Vec<(u64, u64)>,
    /// The end of the last SDU put in the stream.
    stream_end: u64,
    got: Vec<Packet>,
}

impl Receiver {
    /// The eNodeB's RLC put `pkt` in the stream, ending at offset `end`.
    pub fn expect(&mut self, end: u64, pkt: Packet) {
        self.spans.push_back((self.stream_end, end));
        self.stream_end = end;
        self.rx.expect(end, pkt);
    }

    /// Bytes `[start, end)` arrived (`damaged`: HARQ gave them up, in UM);
    /// the SDUs completed go to `intact` or, with a damaged byte, to `lost`.
    pub fn receive(&mut self, start: u64, end: u64, damaged: bool, intact: &mut Vec<Packet>, lost: &mut Vec<Packet>) {
        if damaged {
            self.damaged.push((start, end));
        }
        self.rx.receive(start, end, &mut self.got);
        for pkt in self.got.drain(..) {
            let (s, e) = self.spans.pop_front().expect("one span per SDU");
            if self.damaged.iter().any(|&(ds, de)| ds < e && s < de) {
                lost.push(pkt);
            } else {
                intact.push(pkt);
            }
            self.damaged.retain(|&(_, de)| de > e);
        }
    }

    /// Bytes of SDUs in the stream not yet delivered.
    pub fn bytes(&self) -> u64 {
        self.rx.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;

    /// Three 998-byte packets are SDUs [0, 1000), [1000, 2000), [2000, 3000).
    /// Blocks carry [0, 700), [700, 1400), [1400, 3000); the second is given
    /// up (UM): SDUs 1 and 2 have damaged bytes and are discarded when the
    /// sequence reaches them; SDU 3 is delivered.
    #[test]
    fn um_discards_the_sdus_a_lost_block_touched() {
        let mut r = Receiver::default();
        for (k, end) in [1000, 2000, 3000].into_iter().enumerate() {
            r.expect(end, pkt(k as u64 + 1, 998));
        }
        let (mut ok, mut lost) = (Vec::new(), Vec::new());
        r.receive(0, 700, false, &mut ok, &mut lost);
        r.receive(1400, 3000, false, &mut ok, &mut lost);
        assert!(ok.is_empty() && lost.is_empty(), "SDU 1 waits for [700, 1000)");
        r.receive(700, 1400, true, &mut ok, &mut lost);
        assert_eq!(ok.iter().map(|p| p.uid).collect::<Vec<_>>(), [3]);
        assert_eq!(lost.iter().map(|p| p.uid).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(r.bytes(), 0);
    }
}
