//! The Buffer Size field of an LTE Buffer Status Report (3GPP TS 36.321
//! §6.1.3.1), and what the eNodeB reads from it (`[radio.lte] bsr_table`).
//!
//! The field is 6 bits: index 0 reports BS = 0; index k in 1..=62 reports
//! `EDGES[k−1] < BS ≤ EDGES[k]` bytes; index 63 reports BS above the last
//! edge. BS counts the data available for transmission in RLC and PDCP of the
//! logical channel group once every MAC PDU of the TTI is built; RLC and MAC
//! headers are not counted (§6.1.3.1). Two tables give the edges:
//!
//! - Table 6.1.3.1-1 "Buffer size levels for BSR" (Rel-8, `"legacy"`): up to
//!   150 000 B, about 17 % apart at the top;
//! - Table 6.1.3.1-2 "Extended Buffer size levels for BSR" (Rel-10, used when
//!   RRC configures `extendedBSR-Sizes`, `"extended"`): up to 3 000 000 B,
//!   about 23 % apart.
//!
//! Source: the tables as printed in TS 36.321 (v8.x–v15.x for the first,
//! v10.x on for the second). Several open implementations carry typos in the
//! first (93749 for 93479, 4667 for 4677, 105 for 107); the tests below pin
//! the edges they disagree on.
//!
//! What the eNodeB makes of an index is not standardised: here it reads the
//! level's upper edge (the largest buffer the index allows, as ns-3 LENA
//! does), and for index 63 the table's last edge (*our choice*). `"exact"` is
//! not a standard option but a modelling one: the UE sends the extended
//! table's index and the eNodeB is handed the exact byte count.

use serde::{Deserialize, Serialize};

/// Upper edges of the levels 0..=62 of Table 6.1.3.1-1, bytes (level 63 is everything above the last).
const LEGACY: [u64; 63] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234, 274, 321, 376, 440,
    515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413, 3995, 4677, 5476, 6411, 7505, 8787, 10287,
    12043, 14099, 16507, 19325, 22624, 26487, 31009, 36304, 42502, 49759, 58255, 68201, 79846, 93479, 109439, 128125,
    150000,
];

/// Upper edges of the levels 0..=62 of Table 6.1.3.1-2 (extendedBSR-Sizes), bytes.
const EXTENDED: [u64; 63] = [
    0, 10, 13, 16, 19, 23, 29, 35, 43, 53, 65, 80, 98, 120, 147, 181, 223, 274, 337, 414, 509, 625, 769, 945, 1162,
    1429, 1757, 2161, 2657, 3267, 4017, 4940, 6074, 7469, 9185, 11294, 13888, 17077, 20999, 25822, 31752, 39045, 48012,
    59039, 72598, 89272, 109774, 134986, 165989, 204111, 250990, 308634, 379519, 466683, 573866, 705666, 867737,
    1067031, 1312097, 1613447, 1984009, 2439678, 3000000,
];

/// Which Buffer Size levels the UE's BSRs use, and what the eNodeB reads (`[radio.lte] bsr_table`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BsrTable {
    /// Table 6.1.3.1-1 (Rel-8): every backlog above 150 000 B reads as 150 000 B.
    Legacy,
    /// Table 6.1.3.1-2 (Rel-10 `extendedBSR-Sizes`): up to 3 000 000 B.
    #[default]
    Extended,
    /// The eNodeB is handed the exact bytes (a modelling sensitivity; the UE sends the extended index).
    Exact,
}

impl BsrTable {
    fn edges(self) -> &'static [u64; 63] {
        match self {
            BsrTable::Legacy => &LEGACY,
            BsrTable::Extended | BsrTable::Exact => &EXTENDED,
        }
    }

    /// The 6-bit Buffer Size index that reports `bytes`.
    pub fn index(self, bytes: u64) -> u8 {
        // The first level whose upper edge is at or above `bytes`; beyond the last edge, 63.
        self.edges().partition_point(|&edge| edge < bytes) as u8
    }

    /// The bytes the eNodeB reads from a BSR with index `i` about a buffer of `exact` bytes:
    /// the level's upper edge (the last edge for index 63), or `exact` with `"exact"`.
    pub fn read(self, i: u8, exact: u64) -> u64 {
        match self {
            BsrTable::Exact => exact,
            BsrTable::Legacy | BsrTable::Extended => self.edges()[(i as usize).min(62)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BsrTable::{Exact, Extended, Legacy};

    /// The sizes index `i` stands for: (exclusive lower, inclusive upper)
    /// edge; no upper edge for index 63, no lower one for index 0 (BS = 0).
    fn level(t: BsrTable, i: u8) -> (Option<u64>, Option<u64>) {
        let (i, edges) = (i as usize, t.edges());
        (i.checked_sub(1).map(|k| edges[k]), edges.get(i).copied())
    }

    #[test]
    fn each_table_has_64_levels_that_grow() {
        for t in [Legacy, Extended] {
            assert!(t.edges().windows(2).all(|w| w[0] < w[1]), "{t:?}");
            assert_eq!(t.index(u64::MAX), 63);
        }
        assert_eq!((LEGACY[62], EXTENDED[62]), (150_000, 3_000_000));
    }

    /// Edges of several levels, hand-read from Table 6.1.3.1-1: each level
    /// holds its upper edge and starts one byte above the previous one's.
    #[test]
    fn legacy_indices_at_the_edges_of_levels() {
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
            assert_eq!(Legacy.index(bytes), want, "{bytes} B");
        }
    }

    /// Edges hand-read from Table 6.1.3.1-2: the bottom (which differs from
    /// the legacy table from index 2), R-AQM's 60 kbit, the legacy table's
    /// top, the study's 1.25 MB buffer and the table's own top.
    #[test]
    fn extended_indices_at_the_edges_of_levels() {
        let cases = [
            (0, 0),          // index 0: BS = 0
            (10, 1),         // index 1: 0 < BS ≤ 10
            (11, 2),         // index 2: 10 < BS ≤ 13
            (13, 2),         //
            (14, 3),         // index 3: 13 < BS ≤ 16
            (7469, 33),      // index 33: 6074 < BS ≤ 7469
            (7500, 34),      // 60 kbit: index 34, 7469 < BS ≤ 9185
            (134_986, 47),   // index 47: 109774 < BS ≤ 134986
            (150_000, 48),   // the legacy top: index 48, 134986 < BS ≤ 165989
            (150_001, 48),   //   one byte more: still seen (legacy: 63, read 150 000)
            (165_990, 49),   // index 49: 165989 < BS ≤ 204111
            (1_067_031, 57), // index 57: 867737 < BS ≤ 1067031
            (1_250_000, 58), // the study's UE buffer: index 58, 1067031 < BS ≤ 1312097
            (1_312_098, 59), // index 59: 1312097 < BS ≤ 1613447
            (2_439_678, 61), // index 61: 1984009 < BS ≤ 2439678
            (3_000_000, 62), // index 62: 2439678 < BS ≤ 3000000
            (3_000_001, 63), // index 63: BS > 3000000
        ];
        for (bytes, want) in cases {
            assert_eq!(Extended.index(bytes), want, "{bytes} B");
            assert_eq!(Exact.index(bytes), want, "{bytes} B: exact sends the extended index");
        }
    }

    #[test]
    fn the_enodeb_reads_the_upper_edge() {
        let read = |t: BsrTable, bytes: u64| t.read(t.index(bytes), bytes);
        assert_eq!(read(Legacy, 0), 0);
        assert_eq!(read(Legacy, 1), 10);
        assert_eq!(read(Legacy, 1500), 1552);
        assert_eq!(read(Legacy, 7500), 7505);
        // A 1 MB backlog: 150 000 B by the legacy table, its extended level's upper edge
        // (index 57: 867 737 < BS ≤ 1 067 031), itself when exact.
        assert_eq!(read(Legacy, 1_000_000), 150_000);
        assert_eq!(read(Extended, 1_000_000), 1_067_031);
        assert_eq!(read(Exact, 1_000_000), 1_000_000);
        assert_eq!(read(Extended, 7500), 9185);
        assert_eq!(read(Extended, 5_000_000), 3_000_000);
        assert_eq!(level(Legacy, 0), (None, Some(0)));
        assert_eq!(level(Legacy, 43), (Some(6411), Some(7505)));
        assert_eq!(level(Legacy, 63), (Some(150_000), None));
        assert_eq!(level(Extended, 58), (Some(1_067_031), Some(1_312_097)));
        assert_eq!(level(Extended, 63), (Some(3_000_000), None));
        // Every size lies in the level of its index, and reads at or above itself up to the top edge.
        for t in [Legacy, Extended] {
            let top = t.edges()[62];
            for bytes in (0..3_200_000).step_by(997) {
                let (lo, hi) = level(t, t.index(bytes));
                assert!(lo.is_none_or(|lo| lo < bytes) && hi.is_none_or(|hi| bytes <= hi), "{t:?} {bytes}");
                assert_eq!(read(t, bytes) >= bytes, bytes <= top, "{t:?} {bytes}");
            }
        }
    }
}
