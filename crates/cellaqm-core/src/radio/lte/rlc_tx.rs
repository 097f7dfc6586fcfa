//! The UE's RLC AM transmitting side, and the header bytes of an uplink MAC
//! PDU.
//!
//! One logical channel. PDCP adds its header to each IP packet (a PDCP PDU
//! is an RLC SDU); the RLC SDUs form one byte stream (see
//! [`super::reassembly`]). Each grant carries one RLC PDU (one logical
//! channel: TS 36.321 §5.4.3.1 gives it the whole grant), filled in order
//! with: byte ranges due for RLC retransmission, the rest of the SDU being
//! segmented, then new SDUs taken from the UE buffer one at a time, each only
//! when there is room for at least one of its bytes (so the buffer's queue
//! discipline decides on an SDU exactly when it is taken for transmission).
//!
//! Header bytes (*simplification*: fixed sizes, from the standards' formats):
//! - PDCP: 2 B per SDU (TS 36.323 §6.2.3, data PDU with a 12-bit SN);
//! - RLC AM PDU: 2 B fixed part, plus a 12-bit length indicator per SDU
//!   boundary inside the PDU, padded to whole bytes (TS 36.322 §6.2.1.4);
//! - MAC: 3 B subheader of the RLC PDU (TS 36.321 §6.1.2, 15-bit L field),
//!   plus the BSR control element with its subheader when there is one.
//!
//! RLC AM recovery of a block HARQ gave up: its byte ranges are sent again
//! once the UE learns of the loss, `status_delay` later (*our choice*:
//! t-Reordering at the eNodeB plus the STATUS PDU's trip, 40 ms), before any
//! new data.

use crate::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

/// PDCP header bytes per SDU.
pub const PDCP_HEADER: u64 = 2;
/// MAC subheader bytes of the RLC PDU.
pub const MAC_SUBHEADER: u64 = 3;
/// RLC AM header bytes of a PDU holding `segments` (≥ 1) pieces of SDUs:
/// 2 B plus 12 bits per length indicator (one per boundary), in whole bytes.
pub fn rlc_header(segments: u64) -> u64 {
    2 + (3 * segments.saturating_sub(1)).div_ceil(2)
}

/// MAC PDU bytes (without a BSR) that carry `data` bytes in `segments`
/// pieces: the MAC subheader, the RLC header and the data; 0 for no data.
pub fn mac_pdu_bytes(data: u64, segments: u64) -> u64 {
    match data {
        0 => 0,
        _ => MAC_SUBHEADER + rlc_header(segments) + data,
    }
}

/// One RLC PDU as built for a grant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RlcPdu {
    /// Byte ranges `[start, end)` of the stream it carries.
    pub ranges: Vec<(u64, u64)>,
    /// SDUs that entered the stream with it: (end offset, packet).
    pub new_sdus: Vec<(u64, Packet)>,
    /// SDUs whose last byte it carries for the first time (uids).
    pub completed: Vec<u64>,
    /// Data bytes (RLC SDU bytes, PDCP headers included).
    pub data: u64,
}

/// The UE's RLC transmitting side.
#[derive(Debug, Default)]
pub struct RlcTx {
    /// The next new byte of the stream.
    next: u64,
    /// The SDU being segmented: (its end offset, uid).
    current: Option<(u64, u64)>,
    /// Ranges to retransmit, with when the UE may: (from, start, end).
    retx: VecDeque<(Time, u64, u64)>,
    /// Of those, the first not yet announced as due ([`RlcTx::announce`]).
    announced: usize,
}

impl RlcTx {
    /// The ranges of a block HARQ gave up, to be sent again from `at`.
    pub fn lost(&mut self, at: Time, ranges: &[(u64, u64)]) {
        for &(s, e) in ranges {
            self.retx.push_back((at, s, e));
        }
    }

    /// Retransmission ranges the UE may send at `now`: (bytes, count).
    fn retx_due(&self, now: Time) -> (u64, u64) {
        self.retx.iter().filter(|r| r.0 <= now).fold((0, 0), |(b, n), r| (b + r.2 - r.1, n + 1))
    }

    /// Bytes of retransmissions that became due by `now` since the previous
    /// call: data newly available in RLC, for the BSR triggers.
    pub fn announce(&mut self, now: Time) -> u64 {
        let mut bytes = 0;
        while let Some(&(at, s, e)) = self.retx.get(self.announced) {
            if at > now {
                break;
            }
            bytes += e - s;
            self.announced += 1;
        }
        bytes
    }

    /// When the next retransmission becomes due, if one waits.
    pub fn next_retx(&self) -> Option<Time> {
        self.retx.iter().map(|r| r.0).min()
    }

    /// Bytes the RLC holds for transmission at `now` (due retransmissions and
    /// the rest of the SDU being segmented) and how many pieces they make.
    pub fn pending(&self, now: Time) -> (u64, u64) {
        let (b, n) = self.retx_due(now);
        match self.current {
            Some((end, _)) => (b + end - self.next, n + 1),
            None => (b, n),
        }
    }

    /// Builds the RLC PDU for `room` bytes (the grant less the MAC subheader
    /// and any BSR) at `now`, taking new SDUs from `take` as room remains.
    pub fn fill(&mut self, now: Time, room: u64, mut take: impl FnMut() -> Option<Packet>) -> RlcPdu {
        let mut pdu = RlcPdu::default();
        let mut segments = 0u64;
        loop {
            let avail = room.saturating_sub(rlc_header(segments + 1) + pdu.data);
            if avail == 0 {
                break;
            }
            // A due retransmission first, then the current SDU, then a new one.
            if let Some(k) = self.retx.iter().position(|r| r.0 <= now) {
                let (at, s, e) = self.retx[k];
                let n = avail.min(e - s);
                pdu.ranges.push((s, s + n));
                if s + n < e {
                    self.retx[k] = (at, s + n, e);
                } else {
                    self.retx.remove(k);
                    self.announced -= (k < self.announced) as usize;
                }
                pdu.data += n;
                segments += 1;
                continue;
            }
            if self.current.is_none() {
                let Some(pkt) = take() else { break };
                let end = self.next + pkt.size as u64 + PDCP_HEADER;
                self.current = Some((end, pkt.uid));
                pdu.new_sdus.push((end, pkt));
            }
            let (end, uid) = self.current.expect("set above");
            let n = avail.min(end - self.next);
            pdu.ranges.push((self.next, self.next + n));
            self.next += n;
            pdu.data += n;
            segments += 1;
            if self.next == end {
                self.current = None;
                pdu.completed.push(uid);
            }
        }
        pdu
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::pkt;
    use crate::time::Dur;

    #[test]
    fn header_sizes() {
        assert_eq!([1, 2, 3, 4].map(rlc_header), [2, 4, 5, 7]);
        assert_eq!(mac_pdu_bytes(0, 0), 0);
        assert_eq!(mac_pdu_bytes(1502, 1), 3 + 2 + 1502);
    }

    /// 1498-byte IP packets are 1500-byte RLC SDUs. A 1000-byte room: the
    /// RLC header (2 B) leaves 998 B of SDU 1. Next 1000 B: SDU 1's last 502 B,
    /// then a second piece needs 2 more header bytes (4 B in all): 494 B of SDU 2.
    #[test]
    fn segments_and_concatenates_sdus_to_fill_the_room() {
        let mut q: VecDeque<Packet> = (1..=3).map(|u| pkt(u, 1498)).collect();
        let mut rlc = RlcTx::default();
        let now = Time::ZERO;
        let a = rlc.fill(now, 1000, || q.pop_front());
        assert_eq!((a.ranges.clone(), a.data), (vec![(0, 998)], 998));
        assert_eq!(a.new_sdus.iter().map(|s| (s.0, s.1.uid)).collect::<Vec<_>>(), [(1500, 1)]);
        assert_eq!(rlc.pending(now), (502, 1));
        let b = rlc.fill(now, 1000, || q.pop_front());
        assert_eq!(b.ranges, [(998, 1500), (1500, 1994)]);
        assert_eq!((b.data, b.completed.clone()), (996, vec![1]));
        assert_eq!(q.len(), 1, "SDU 3 not taken");
        // A room of 2 B holds only the header: nothing taken.
        assert_eq!(rlc.fill(now, 2, || q.pop_front()), RlcPdu::default());
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn lost_ranges_go_first_once_due() {
        let mut q: VecDeque<Packet> = (1..=2).map(|u| pkt(u, 998)).collect();
        let mut rlc = RlcTx::default();
        let t0 = Time::ZERO;
        let a = rlc.fill(t0, 602, || q.pop_front()); // [0, 600)
        rlc.lost(t0 + Dur::from_millis(40), &a.ranges);
        assert_eq!(rlc.next_retx(), Some(t0 + Dur::from_millis(40)));
        // Not due yet: new data.
        let b = rlc.fill(t0 + Dur::from_millis(10), 402, || q.pop_front());
        assert_eq!(b.ranges, [(600, 1000)]);
        assert_eq!(rlc.pending(t0 + Dur::from_millis(39)), (0, 0));
        assert_eq!(rlc.pending(t0 + Dur::from_millis(40)), (600, 1));
        // Due: the lost range, then SDU 2 in the remaining room (a second piece: 4 B of header).
        let c = rlc.fill(t0 + Dur::from_millis(40), 700, || q.pop_front());
        assert_eq!(c.ranges, [(0, 600), (1000, 1096)]);
        assert_eq!(rlc.next_retx(), None);
    }
}
