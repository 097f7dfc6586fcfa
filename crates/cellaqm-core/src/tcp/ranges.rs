//! Sets of sequence ranges, as kept by SACK (RFC 2018) on both sides.
//!
//! Ranges `[start, end)` are stored sorted, disjoint and non-touching: an
//! inserted range merges with every range it overlaps or abuts. The number of
//! values covered is kept up to date, so reading it costs nothing.

#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct RangeSet {
    ranges: Vec<(u64, u64)>,
    /// Sum of the ranges' lengths.
    covered: u64,
}

fn len((start, end): (u64, u64)) -> u64 {
    end - start
}

impl RangeSet {
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        // The ranges it overlaps or abuts are a contiguous run [first, last).
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        let merged = match self.ranges.get(first..last) {
            Some([a, .., b]) | Some([a @ b]) => (start.min(a.0), end.max(b.1)),
            _ => (start, end),
        };
        self.covered += len(merged);
        match last - first {
            0 => self.ranges.insert(first, merged),
            _ => {
                self.covered -= self.ranges[first..last].iter().copied().map(len).sum::<u64>();
                self.ranges[first] = merged;
                self.ranges.drain(first + 1..last);
            }
        }
    }

    /// Drops everything below `seq`.
    pub fn remove_below(&mut self, seq: u64) {
        let gone = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.covered -= self.ranges.drain(..gone).map(len).sum::<u64>();
        if let Some(first) = self.ranges.first_mut() {
            self.covered -= seq.saturating_sub(first.0);
            first.0 = first.0.max(seq);
        }
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.covered = 0;
    }

    /// How many values the ranges cover.
    pub fn covered(&self) -> u64 {
        self.covered
    }

    /// The range holding `seq`.
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges.get(i).copied().filter(|&(s, _)| s <= seq)
    }

    pub fn first(&self) -> Option<(u64, u64)> {
        self.ranges.first().copied()
    }

    pub fn last(&self) -> Option<(u64, u64)> {
        self.ranges.last().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_overlapping_and_touching_ranges() {
        let mut r = RangeSet::default();
        r.insert(30, 40);
        r.insert(10, 20);
        r.insert(20, 25);
        r.insert(50, 60);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 25), (30, 40), (50, 60)]);
        assert_eq!(r.covered(), 15 + 10 + 10);
        r.insert(24, 55);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 60)]);
        assert_eq!(r.covered(), 50);
        r.remove_below(15);
        assert_eq!(r.first(), Some((15, 60)));
        assert_eq!(r.covered(), 45);
        assert_eq!(r.containing(59), Some((15, 60)));
        assert_eq!(r.containing(60), None);
    }

    proptest::proptest! {
        /// Agrees with a set of sequence numbers on random inserts and removals.
        #[test]
        fn behaves_as_a_set_of_numbers(ops in proptest::collection::vec((0u64..60, 0u64..12, proptest::bool::weighted(0.2)), 1..40)) {
            let mut r = RangeSet::default();
            let mut plain = std::collections::BTreeSet::new();
            for (a, len, remove) in ops {
                if remove {
                    r.remove_below(a);
                    plain.retain(|&x| x >= a);
                } else {
                    r.insert(a, a + len);
                    plain.extend(a..a + len);
                }
                let ranges: Vec<_> = r.iter().collect();
                proptest::prop_assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0), "sorted, disjoint, not touching: {:?}", ranges);
                let covered: std::collections::BTreeSet<u64> = ranges.iter().flat_map(|&(s, e)| s..e).collect();
                proptest::prop_assert_eq!(&covered, &plain);
                proptest::prop_assert_eq!(r.covered(), plain.len() as u64);
                for x in 0..75 {
                    proptest::prop_assert_eq!(r.containing(x).is_some(), plain.contains(&x));
                }
            }
        }
    }
}
