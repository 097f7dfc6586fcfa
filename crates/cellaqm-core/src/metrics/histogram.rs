//! A log-linear histogram of non-negative integers (nanoseconds, bytes), for
//! percentiles in memory that does not grow with the number of samples.
//!
//! Values below 2^10 have a bucket each; above, every power of two is split
//! into 2^10 buckets, so a reported percentile is within 0.1% of the true
//! sample value. Mean and maximum are exact. The buckets are stored in
//! pages of 16, and only the pages that hold a sample (an index of pages
//! covers the smallest sample's to the largest's): delays of seconds would
//! otherwise keep some 20 000 empty buckets below them, and a buffer's
//! backlog in bytes, a few dozen multiples of the packet size, some 6 000
//! (a user's bearer keeps one for the run).
//!
//! A sample counts once ([`Histogram::record`]) or with a weight
//! ([`Histogram::add`]), such as the time a buffer held a given backlog:
//! then the quantiles are time quantiles (see [`super::Occupancy`]).

const SUB_BITS: u32 = 10;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets per page.
const PAGE: usize = 16;

type Page = Box<[u64; PAGE]>;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// The pages of buckets `lo · PAGE`, `(lo + 1) · PAGE`, ..., each stored once it holds a sample.
    pages: Vec<Option<Page>>,
    lo: usize,
    n: u64,
    sum: u128,
    max: u64,
}

fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // floor(log2 v) >= SUB_BITS
    let shift = e - SUB_BITS;
    let top = v >> shift; // in [SUB, 2·SUB)
    ((shift as u64 + 1) * SUB + (top - SUB)) as usize
}

/// The midpoint of bucket `i`.
fn value(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i;
    }
    let shift = i / SUB - 1;
    let top = i % SUB + SUB;
    (top << shift) + ((1u64 << shift) >> 1)
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        self.add(v, 1);
    }

    /// Records `v` with weight `w` (> 0), as `w` samples of `v`.
    #[inline]
    pub fn add(&mut self, v: u64, w: u64) {
        debug_assert!(w > 0, "a sample of no weight");
        let i = index(v);
        // Below `lo` wraps around to a huge offset: one test covers both ends.
        let mut k = (i / PAGE).wrapping_sub(self.lo);
        if k >= self.pages.len() {
            k = self.make_room(i / PAGE);
        }
        self.pages[k].get_or_insert_with(|| Box::new([0; PAGE]))[i % PAGE] += w;
        self.n += w;
        self.sum += v as u128 * w as u128;
        self.max = self.max.max(v);
    }

    /// Indexes page `p`, outside the indexed range (or the first); returns its offset.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, p: usize) -> usize {
        if self.pages.is_empty() {
            self.lo = p;
        } else if p < self.lo {
            self.pages.splice(0..0, std::iter::repeat_with(|| None).take(self.lo - p));
            self.lo = p;
        }
        let k = p - self.lo;
        if k >= self.pages.len() {
            self.pages.resize_with(k + 1, || None);
        }
        k
    }

    /// The number of samples (the total weight).
    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// The value bucket `i` stands for: its midpoint, or the exact maximum in
    /// the maximum's bucket (so that the top of the distribution is the maximum).
    fn reported(&self, i: usize) -> u64 {
        if i == index(self.max) {
            self.max
        } else {
            value(i)
        }
    }

    /// The `q`-quantile (0 < q ≤ 1): the smallest recorded value with at least
    /// `ceil(q·n)` samples at or below it, to bucket precision.
    pub fn quantile(&self, q: f64) -> u64 {
        self.quantiles([q])[0]
    }

    /// Several quantiles (`qs` ascending) in one pass over the buckets.
    pub fn quantiles<const N: usize>(&self, qs: [f64; N]) -> [u64; N] {
        debug_assert!(qs.windows(2).all(|w| w[0] <= w[1]), "quantiles in ascending order");
        if self.n == 0 {
            return [0; N];
        }
        let ranks = qs.map(|q| ((q * self.n as f64).ceil() as u64).clamp(1, self.n));
        let mut out = [self.max; N];
        let (mut next, mut seen) = (0, 0);
        // Whole pages that do not reach the next rank are passed with one
        // sum: a buffer's backlog histogram, say, is mostly empty buckets
        // between multiples of the packet size.
        for (b, page) in self.pages.iter().enumerate() {
            let Some(page) = page else { continue };
            let sum: u64 = page.iter().sum();
            if seen + sum < ranks[next] {
                seen += sum;
                continue;
            }
            for (j, &c) in page.iter().enumerate() {
                seen += c;
                while next < N && seen >= ranks[next] {
                    out[next] = self.reported((self.lo + b) * PAGE + j);
                    next += 1;
                }
            }
            if next == N {
                break;
            }
        }
        out
    }

    /// The non-empty buckets in increasing order: (value, weight), the value
    /// as [`Histogram::quantile`] reports it.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let stored = self.pages.iter().enumerate().filter_map(|(b, page)| Some(((self.lo + b) * PAGE, page.as_ref()?)));
        stored
            .flat_map(|(first, page)| page.iter().enumerate().map(move |(j, &c)| (first + j, c)))
            .filter(|&(_, c)| c > 0)
            .map(|(i, c)| (self.reported(i), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_tight() {
        for v in [0u64, 1, 1023, 1024, 1025, 2047, 2048, 70_000_000, u64::MAX / 3] {
            let mid = value(index(v));
            assert!((mid as f64 - v as f64).abs() <= v as f64 / 1024.0 + 1.0, "{v} -> {mid}");
        }
        for v in 1000..5000u64 {
            assert!(index(v + 1) == index(v) || index(v + 1) == index(v) + 1);
        }
    }

    #[test]
    fn weights_count_as_that_many_samples_and_the_top_is_the_maximum() {
        let (mut counted, mut weighted) = (Histogram::default(), Histogram::default());
        for (v, w) in [(5u64, 3u64), (19_500, 2), (700, 4)] {
            weighted.add(v, w);
            (0..w).for_each(|_| counted.record(v));
        }
        for q in [0.1, 0.3, 0.5, 0.7, 0.9, 1.0] {
            assert_eq!(weighted.quantile(q), counted.quantile(q), "{q}");
        }
        assert_eq!((weighted.count(), weighted.mean()), (counted.count(), counted.mean()));
        // 19 500 shares its bucket (midpoint 19 496) with others: reported exactly, as the maximum.
        assert_eq!(value(index(19_500)), 19_496);
        assert_eq!(weighted.buckets().collect::<Vec<_>>(), [(5, 3), (700, 4), (19_500, 2)]);
        assert_eq!(weighted.quantile(0.99), 19_500);
    }

    #[test]
    fn samples_below_the_first_extend_the_stored_range_downwards() {
        let (mut ascending, mut descending) = (Histogram::default(), Histogram::default());
        let values = [3u64, 900, 5_000, 70_000_000, 3_000_000_000];
        values.iter().for_each(|&v| ascending.record(v));
        values.iter().rev().for_each(|&v| descending.record(v));
        for h in [&ascending, &descending] {
            assert_eq!(
                h.buckets().map(|(v, _)| v).collect::<Vec<_>>(),
                [3, 900, value(index(5_000)), value(index(70_000_000)), 3_000_000_000]
            );
            assert_eq!(h.quantiles([0.2, 0.4, 0.6]), [3, 900, value(index(5_000))]);
        }
        assert_eq!(descending.pages.len(), ascending.pages.len());
    }

    #[test]
    fn only_pages_with_samples_are_stored() {
        let mut h = Histogram::default();
        for k in 0..30u64 {
            h.add(k * 1500, 7);
        }
        let stored = h.pages.iter().filter(|p| p.is_some()).count();
        assert_eq!(stored, 30, "a page per multiple of 1500 B");
        assert!(h.pages.len() > 300, "the index covers 0 to 43 500 B: {}", h.pages.len());
        assert_eq!(h.quantiles([0.5, 1.0]), [value(index(21_000)), 43_500]);
        assert_eq!(h.buckets().count(), 30);
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        let p95 = h.quantile(0.95) as f64;
        assert!((p95 / 95_000_000.0 - 1.0).abs() < 1e-3, "{p95}");
        assert_eq!(h.max(), 100_000_000);
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
    }
}
