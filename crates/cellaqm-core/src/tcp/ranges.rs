//! Sets of sequence ranges, as kept by SACK (RFC 2018) on both sides.
//!
//! Ranges `[start, end)` are stored sorted, disjoint and non-touching: an
//! inserted range merges with every range it overlaps or abuts.

#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct RangeSet(Vec<(u64, u64)>);

impl RangeSet {
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let (mut start, mut end) = (start, end);
        self.0.retain(|&(s, e)| {
            let apart = e < start || s > end;
            if !apart {
                start = start.min(s);
                end = end.max(e);
            }
            apart
        });
        let at = self.0.partition_point(|&(s, _)| s < start);
        self.0.insert(at, (start, end));
    }

    /// Drops everything below `seq`.
    pub fn remove_below(&mut self, seq: u64) {
        self.0.retain(|&(_, end)| end > seq);
        if let Some(first) = self.0.first_mut() {
            first.0 = first.0.max(seq);
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The range holding `seq`.
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        self.0.iter().copied().find(|&(s, e)| s <= seq && seq < e)
    }

    pub fn first(&self) -> Option<(u64, u64)> {
        self.0.first().copied()
    }

    pub fn last(&self) -> Option<(u64, u64)> {
        self.0.last().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().copied()
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
        r.insert(24, 55);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 60)]);
        r.remove_below(15);
        assert_eq!(r.first(), Some((15, 60)));
        assert_eq!(r.containing(59), Some((15, 60)));
        assert_eq!(r.containing(60), None);
    }
}
