//! Completed downloads' times, every one kept, for exact time percentiles
//! (nearest rank) and an exact mean, in 4 bytes each where a time in seconds
//! took 8: a time is a whole number of nanoseconds, kept as its lowest 32
//! bits in the group of the times that share the bits above them (a group
//! spans 2^32 ns, 4.3 s; a run has a group per 4.3 s of its longest
//! download at most). Every download still adds a time: the memory grows
//! with the downloads, by half as much as before.

use crate::time::Dur;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Times {
    /// By the times' nanoseconds above the lowest 32 bits: the lowest 32 bits
    /// of each, in the order they came (ascending once [`Times::sort`]ed).
    groups: BTreeMap<u32, Vec<u32>>,
    len: usize,
}

impl Times {
    pub fn push(&mut self, t: Dur) {
        let high = u32::try_from(t.0 >> 32).expect("a download shorter than 584 years");
        self.groups.entry(high).or_default().push(t.0 as u32);
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `other`'s times.
    pub fn extend(&mut self, other: &Times) {
        for (&high, lows) in &other.groups {
            self.groups.entry(high).or_default().extend_from_slice(lows);
        }
        self.len += other.len;
    }

    /// Sorts the times, in place, for [`Times::ascending`].
    pub fn sort(&mut self) {
        self.groups.values_mut().for_each(|lows| lows.sort_unstable());
    }

    /// The times in ascending order, in seconds (as [`Dur::as_secs_f64`]
    /// gives them); once [`Times::sort`]ed.
    pub fn ascending(&self) -> impl Iterator<Item = f64> + '_ {
        debug_assert!(self.groups.values().all(|lows| lows.is_sorted()), "sorted first");
        self.groups
            .iter()
            .flat_map(|(&high, lows)| lows.iter().map(move |&low| Dur((high as u64) << 32 | low as u64).as_secs_f64()))
    }

    /// The `q`-quantile: the smallest time with at least `ceil(q·n)` times
    /// at or below it (nearest rank); `None` if there are none. Once [`Times::sort`]ed.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let rank = (q * self.len as f64).ceil().max(1.0) as usize;
        let mut k = rank.min(self.len).checked_sub(1)?;
        for (&high, lows) in &self.groups {
            match lows.get(k) {
                Some(&low) => return Some(Dur((high as u64) << 32 | low as u64).as_secs_f64()),
                None => k -= lows.len(),
            }
        }
        unreachable!("k < len")
    }

    /// The largest; `None` if there are none.
    pub fn max(&self) -> Option<f64> {
        let (&high, lows) = self.groups.last_key_value()?;
        lows.iter().max().map(|&low| Dur((high as u64) << 32 | low as u64).as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times below and far above 2^32 ns, in any order: the same order
    /// statistics as the sorted times in seconds.
    #[test]
    fn order_statistics_are_those_of_the_sorted_seconds() {
        let mut x = 7u64;
        let ns: Vec<u64> = (0..3_000)
            .map(|i| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                match i % 4 {
                    0 => x >> 34,               // up to 2^30 ns
                    1 => (1 << 32) + (x >> 40), // just above 4.3 s
                    2 => x >> 24,               // up to 12 days
                    _ => 1_000_000_000,         // ties
                }
            })
            .collect();
        let mut times = Times::default();
        ns.iter().for_each(|&t| times.push(Dur(t)));
        times.sort();
        let mut secs: Vec<f64> = ns.iter().map(|&t| Dur(t).as_secs_f64()).collect();
        secs.sort_by(f64::total_cmp);
        assert_eq!(times.len(), secs.len());
        assert_eq!(
            times.ascending().map(f64::to_bits).collect::<Vec<_>>(),
            secs.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        );
        for q in [0.0, 0.001, 0.5, 0.9, 0.95, 0.99, 1.0] {
            let rank = ((q * secs.len() as f64).ceil() as usize).clamp(1, secs.len());
            assert_eq!(times.quantile(q), Some(secs[rank - 1]), "{q}");
        }
        assert_eq!(times.max(), secs.last().copied());
        assert_eq!((Times::default().quantile(0.5), Times::default().max()), (None, None));
    }
}
