//! SACK scoreboard (RFC 6675 §4).
//!
//! Records which sequence ranges above the cumulative ACK the receiver has
//! SACKed (RFC 2018). A hole is lost once DupThresh discontiguous SACKed ranges,
//! or more than (DupThresh − 1)·SMSS SACKed bytes, lie above it (IsLost), or,
//! with FACK (`fack.rs`), once any SACKed byte lies above it; the data in
//! flight is estimated by counting un-SACKed bytes not lost, plus those
//! retransmitted in this recovery (SetPipe).

use super::ranges::RangeSet;
use std::iter::once;

/// RFC 6675 §2: DupThresh.
pub(super) const DUP_THRESH: u64 = 3;

/// SACKed ranges above the cumulative ACK.
#[derive(Default)]
pub(super) struct Scoreboard {
    sacked: RangeSet,
    /// FACK's loss rule (`tcp.fack`): every hole below the highest SACKed byte is lost.
    pub fack: bool,
}

impl Scoreboard {
    pub fn new(fack: bool) -> Scoreboard {
        Scoreboard { sacked: RangeSet::default(), fack }
    }

    /// RFC 6675 IsLost, given the SACKed `blocks` and `bytes` above a sequence number;
    /// with FACK (Mathis & Mahdavi 1996 §3), any SACKed block above it.
    fn lost(&self, blocks: u64, bytes: u64, mss: u64) -> bool {
        blocks >= DUP_THRESH || bytes > (DUP_THRESH - 1) * mss || (self.fack && blocks > 0)
    }

    /// RFC 6675 Update(): adds the blocks of one ACK and forgets what `snd_una` now covers.
    pub fn update(&mut self, snd_una: u64, blocks: impl Iterator<Item = (u64, u64)>) {
        for (start, end) in blocks {
            self.sacked.insert(start, end);
        }
        self.sacked.remove_below(snd_una);
    }

    /// RFC 6675 §5.1: forget all SACK information after a retransmission timeout.
    pub fn clear(&mut self) {
        self.sacked.clear();
    }

    /// RFC 6937 §2 SACKd: bytes the scoreboard shows delivered above the cumulative ACK.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.covered()
    }

    /// SACKed bytes below `seq` (F-RTO's "SACKed data below RecoveryPoint", RFC 5682 §3).
    pub fn sacked_below(&self, seq: u64) -> u64 {
        self.sacked.iter().take_while(|&(s, _)| s < seq).map(|(s, e)| e.min(seq) - s).sum()
    }

    /// End of the highest SACKed range.
    pub fn highest(&self) -> Option<u64> {
        self.sacked.last().map(|(_, end)| end)
    }

    /// `seq`, or the end of the SACKed range containing it.
    pub fn skip_sacked(&self, seq: u64) -> u64 {
        self.sacked.containing(seq).map_or(seq, |(_, end)| end)
    }

    /// Start of the first SACKed range above `seq` (where a segment from `seq` must end).
    pub fn next_sacked(&self, seq: u64) -> u64 {
        self.sacked.iter().map(|(s, _)| s).find(|&s| s > seq).unwrap_or(u64::MAX)
    }

    /// Un-SACKed ranges between `snd_una` and `limit`.
    fn holes(&self, snd_una: u64, limit: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let starts = self.sacked.iter().map(|(s, _)| s).chain(once(limit));
        let ends = once(snd_una).chain(self.sacked.iter().map(|(_, e)| e));
        ends.zip(starts).filter(|(a, b)| a < b)
    }

    /// RFC 6675 IsLost(seq) for an un-SACKed `seq`.
    pub fn is_lost(&self, seq: u64, mss: u64) -> bool {
        let above = self.sacked.iter().filter(|&(s, _)| s > seq);
        let (blocks, bytes) = above.fold((0, 0), |(n, b), (s, e)| (n + 1, b + e - s));
        self.lost(blocks, bytes, mss)
    }

    /// RFC 6675 SetPipe(): bytes in flight. Within a hole IsLost is the same for
    /// every byte, so it is evaluated once per hole, from the SACKed blocks and
    /// bytes above it, counted on one pass down from `snd_max`; bytes below
    /// `high_rxt` were retransmitted in this recovery and count once more (S1.b).
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, mss: u64) -> u64 {
        let hole = |a: u64, b: u64, blocks: u64, bytes: u64| {
            if a >= b {
                return 0;
            }
            let in_flight = if self.lost(blocks, bytes, mss) { 0 } else { b - a }; // RFC 6675 SetPipe (a)
            in_flight + b.min(high_rxt).saturating_sub(a) // RFC 6675 SetPipe (b)
        };
        let (mut pipe, mut top, mut blocks, mut bytes) = (0, snd_max, 0, 0);
        for (s, e) in self.sacked.iter().rev() {
            pipe += hole(e, top, blocks, bytes);
            (top, blocks, bytes) = (s, blocks + 1, bytes + e - s);
        }
        pipe + hole(snd_una, top, blocks, bytes)
    }

    /// RFC 6675 NextSeg (1.a)/(1.b): the first un-SACKed byte at or above `from`
    /// and below the highest SACKed byte.
    pub fn first_hole(&self, snd_una: u64, from: u64) -> Option<u64> {
        let limit = self.highest()?;
        self.holes(snd_una, limit).find(|&(_, b)| b > from).map(|(a, _)| a.max(from))
    }

    /// The highest un-SACKed range below `snd_max` (RFC 6675 NextSeg (4)).
    pub fn last_hole(&self, snd_una: u64, snd_max: u64) -> Option<(u64, u64)> {
        self.holes(snd_una, snd_max).last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 100;

    fn board(snd_una: u64, blocks: &[(u64, u64)]) -> Scoreboard {
        let mut sb = Scoreboard::default();
        sb.update(snd_una, blocks.iter().copied());
        sb
    }

    #[test]
    fn merges_and_prunes_ranges() {
        let mut sb = board(1, &[(301, 401), (101, 201), (201, 301)]);
        assert_eq!(sb.sacked.iter().collect::<Vec<_>>(), vec![(101, 401)]);
        assert_eq!(sb.sacked_bytes(), 300);
        assert_eq!((sb.sacked_below(101), sb.sacked_below(151), sb.sacked_below(1000)), (0, 50, 300));
        sb.update(151, std::iter::empty());
        assert_eq!(sb.sacked.iter().collect::<Vec<_>>(), vec![(151, 401)]);
        assert_eq!(sb.sacked_bytes(), 250);
        assert_eq!(sb.skip_sacked(200), 401);
        assert_eq!(sb.next_sacked(1), 151);
    }

    #[test]
    fn a_hole_is_lost_with_three_segments_sacked_above() {
        let sb = board(1, &[(101, 301)]);
        assert!(!sb.is_lost(1, MSS), "two segments above");
        let sb = board(1, &[(101, 401)]);
        assert!(sb.is_lost(1, MSS), "three segments above");
        let sb = board(1, &[(101, 111), (201, 211), (301, 311)]);
        assert!(sb.is_lost(1, MSS), "three discontiguous ranges above");
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted_bytes() {
        // Holes [1,101) (lost) and [401,601) (not lost, nothing above).
        let sb = board(1, &[(101, 401)]);
        assert_eq!(sb.pipe(1, 601, 1, MSS), 200);
        assert_eq!(sb.pipe(1, 601, 101, MSS), 300, "the retransmitted hole counts again");
        assert_eq!(sb.first_hole(1, 1), Some(1));
        assert_eq!(sb.first_hole(1, 101), None, "no hole below the highest SACK");
        assert_eq!(sb.last_hole(1, 601), Some((401, 601)));
    }

    proptest::proptest! {
        /// SetPipe's one pass equals RFC 6675's definition byte by byte: every
        /// un-SACKed byte in flight counts once if not IsLost and once more if below HighRxt.
        #[test]
        fn pipe_counts_bytes_as_rfc_6675_defines(
            blocks in proptest::collection::vec((0u64..400, 1u64..60), 0..8),
            snd_una in 0u64..100,
            flight in 0u64..500,
            high_rxt in 0u64..600,
        ) {
            let snd_max = snd_una + flight;
            let blocks = blocks.into_iter().map(|(s, len)| (s, (s + len).min(snd_max)));
            let sb = board(snd_una, &blocks.collect::<Vec<_>>());
            let by_byte: u64 = (snd_una..snd_max)
                .filter(|&x| sb.sacked.containing(x).is_none())
                .map(|x| u64::from(!sb.is_lost(x, MSS)) + u64::from(x < high_rxt))
                .sum();
            proptest::prop_assert_eq!(sb.pipe(snd_una, snd_max, high_rxt, MSS), by_byte);
        }
    }
}
