//! How much a STATUS PDU can report, and building one from the receive state
//! (TS 25.322 §9.2.1.6, §9.2.2.11).
//!
//! A STATUS PDU has the size of an AMD PDU. It holds a 4-bit header (D/C, PDU
//! type), an ACK SUFI (4-bit type + 12-bit LSN) and as many BITMAP SUFIs as
//! fit, each 4-bit type + 4-bit length + 12-bit first SN + up to 16 octets of
//! bitmap (128 sequence numbers). Missing PDUs beyond what fits are reported
//! in the next STATUS: the LSN then stops at the end of the reported range.

use super::pdu::{Sn, StatusPdu};

/// Sequence numbers one STATUS PDU of `pdu_bytes` can cover with bitmaps (at least 8).
pub fn coverage(pdu_bytes: u64) -> u64 {
    const HEADER_AND_ACK: u64 = 4 + 16;
    const BITMAP_FIXED: u64 = 4 + 4 + 12;
    let bits = (pdu_bytes * 8).saturating_sub(HEADER_AND_ACK);
    let full = bits / (BITMAP_FIXED + 128);
    let rest = bits - full * (BITMAP_FIXED + 128);
    let partial = if rest > BITMAP_FIXED + 8 { (rest - BITMAP_FIXED) / 8 * 8 } else { 0 };
    (full * 128 + partial).max(8)
}

/// The STATUS for a receive window starting at `vr_r` (next in-sequence SN)
/// and ending before `vr_h` (highest received + 1), where `received(sn)` tells
/// which PDUs arrived, covering at most `cover` sequence numbers.
pub fn build(vr_r: Sn, vr_h: Sn, cover: u64, received: impl Fn(Sn) -> bool) -> StatusPdu {
    let end = vr_h.min(vr_r + cover);
    let nacks = (vr_r..end).filter(|&sn| !received(sn)).collect();
    StatusPdu { lsn: end, nacks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_42_byte_status_covers_two_full_bitmaps() {
        assert_eq!(coverage(42), 256);
        assert_eq!(coverage(4), 8);
        assert!(coverage(1500) > 5000);
    }

    #[test]
    fn lsn_stops_at_the_covered_range() {
        let got = build(10, 20, 5, |sn| sn != 12);
        assert_eq!(got, StatusPdu { lsn: 15, nacks: vec![12] });
        let got = build(10, 20, 100, |sn| sn % 4 != 0);
        assert_eq!(got, StatusPdu { lsn: 20, nacks: vec![12, 16] });
    }
}
