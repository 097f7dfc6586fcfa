//! The Buffer Size field of an LTE Buffer Status Report: 3GPP TS 36.321
//! §6.1.3.1, Table 6.1.3.1-1 "Buffer size levels for BSR" (Rel-8).
//!
//! The field is 6 bits: index 0 reports BS = 0; index k in 1..=62 reports
//! `EDGES[k−1] < BS ≤ EDGES[k]` bytes; index 63 reports BS > 150 000 B.
//! BS counts the data available for transmission in RLC and PDCP of the
//! logical channel group once every MAC PDU of the TTI is built; RLC and MAC
//! headers are not counted (§6.1.3.1).
//!
//! Source: the table as printed in TS 36.321 (v8.x–v15.x). Several open
//! implementations carry typos in it (93749 for 93479, 4667 for 4677, 105 for
//! 107); the tests below pin the edges they disagree on.
//!
//! What the eNodeB makes of an index is not standardised: here it reads the
//! level's upper edge (the largest buffer the index allows, as ns-3 LENA
//! does), and for index 63 the table's last edge, 150 000 B (*our choice*).

/// Upper edges of the levels 0..=62, bytes (level 63 is everything above the last).
const EDGES: [u64; 63] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234, 274, 321, 376, 440,
    515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413, 3995, 4677, 5476, 6411, 7505, 8787, 10287,
    12043, 14099, 16507, 19325, 22624, 26487, 31009, 36304, 42502, 49759, 58255, 68201, 79846, 93479, 109439, 128125,
    150000,
];

/// The 6-bit Buffer Size index that reports `bytes` (Table 6.1.3.1-1).
pub fn index(bytes: u64) -> u8 {
    // The first level whose upper edge is at or above `bytes`; beyond the last edge, 63.
    EDGES.partition_point(|&edge| edge < bytes) as u8
}

/// The bytes index `i` reports as the eNodeB reads it: the level's upper edge,
/// 150 000 B for index 63 (see the module doc).
pub fn reported_bytes(i: u8) -> u64 {
    EDGES[(i as usize).min(EDGES.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes index `i` stands for: (exclusive lower, inclusive upper)
    /// edge; no upper edge for index 63, no lower one for index 0 (BS = 0).
    fn level(i: u8) -> (Option<u64>, Option<u64>) {
        let i = i as usize;
        (i.checked_sub(1).map(|k| EDGES[k]), EDGES.get(i).copied())
    }

    #[test]
    fn the_table_has_64_levels_that_grow() {
        assert_eq!(EDGES.len() + 1, 64);
        assert!(EDGES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(index(u64::MAX), 63);
    }

    /// Edges of several levels, hand-read from Table 6.1.3.1-1: each level
    /// holds its upper edge and starts one byte above the previous one's.
    #[test]
    fn indices_at_the_edges_of_levels() {
        let cases = [
            (0, 0),      // index 0: BS = 0
            (1, 1),      // index 1: 0 < BS ≤ 10
            (10, 1),     //
            (11, 2),     // index 2: 10 < BS ≤ 12
            (12, 2),     //
            (13, 3),     // index 3: 12 < BS ≤ 14
            (107, 16),   // index 16: 91 < BS ≤ 107 (some tables print 105)
            (108, 17),   // index 17: 107 < BS ≤ 125
            (4677, 40),  // index 40: 3995 < BS ≤ 4677 (some print 4667)
            (4678, 41),  // index 41: 4677 < BS ≤ 5476
            (7500, 43),  // 60 kbit, R-AQM's lowerDropThreshold: index 43, 6411 < BS ≤ 7505
            (7505, 43),  //
            (7506, 44),  // index 44: 7505 < BS ≤ 8787
            (93479, 59), // index 59: 79846 < BS ≤ 93479 (some print 93749)
            (93480, 60), // index 60: 93479 < BS ≤ 109439
            (150000, 62),
            (150001, 63), // index 63: BS > 150000
            (1_250_000, 63),
        ];
        for (bytes, want) in cases {
            assert_eq!(index(bytes), want, "{bytes} B");
        }
    }

    #[test]
    fn the_enodeb_reads_the_upper_edge() {
        assert_eq!(reported_bytes(index(0)), 0);
        assert_eq!(reported_bytes(index(1)), 10);
        assert_eq!(reported_bytes(index(1500)), 1552);
        assert_eq!(reported_bytes(index(7500)), 7505);
        assert_eq!(reported_bytes(index(1_000_000)), 150_000);
        assert_eq!(level(0), (None, Some(0)));
        assert_eq!(level(43), (Some(6411), Some(7505)));
        assert_eq!(level(63), (Some(150_000), None));
        // Every size lies in the level of its index.
        for bytes in (0..200_000).step_by(37) {
            let (lo, hi) = level(index(bytes));
            assert!(lo.is_none_or(|lo| lo < bytes) && hi.is_none_or(|hi| bytes <= hi), "{bytes}");
        }
    }
}
