//! A log-linear histogram of non-negative integers (nanoseconds, bytes), for
//! percentiles in memory that does not grow with the number of samples.
//!
//! Values below 2^b have a bucket each; above, every power of two is split
//! into 2^b buckets, so a reported percentile is within 2^-b of the true
//! sample value. A run's distributions take b = 10 ([`RUN_BITS`], within
//! 0.1%); each user's take b = 7 ([`USER_BITS`], within 1%): a user's
//! distribution fills, over a long run, towards every bucket of its range,
//! and at 0.1% that bound is 30 to 70 kB a distribution, four a user (its
//! delays both ways, its buffer's backlog in bytes and packets), where at 1%
//! it is an eighth of that; what a user's percentiles are read for,
//! comparing users, needs no finer. Mean and maximum are exact. Only the buckets that hold a
//! sample are stored, in bucket order, each as its place in its page of 32
//! buckets (a byte) and its count; an index of the pages (from the smallest
//! sample's to the largest's) gives where each page's buckets start. A
//! user's delays of seconds and a buffer's backlog in bytes touch a few
//! hundred to a few thousand of the tens of thousands of buckets below them
//! (about 2 of 16 per page of delays, 6 of 16 of backlogs, at 3000 s on the
//! HS-DSCH system), and a user's bearer keeps one for the run: 5 bytes per
//! bucket held and 4 per page, where a dense page took 8 per bucket.
//!
//! A bucket's count is kept in 32 bits: a count of packets never comes near
//! 2^32, but a time weight in nanoseconds passes it after 4.3 s, which the
//! busiest backlogs of a long run reach (at 3000 s on the HS-DSCH system,
//! a few dozen of a user's thousands of buckets). What a bucket's count
//! carries beyond 32 bits is kept apart, by bucket: the counts stay exact.
//!
//! A sample counts once ([`Histogram::record`]) or with a weight
//! ([`Histogram::add`]), such as the time a buffer held a given backlog:
//! then the quantiles are time quantiles (see [`super::Occupancy`]).

/// A run's distributions: 2^10 buckets per power of two (within 0.1%).
pub const RUN_BITS: u8 = 10;
/// Each user's distributions: 2^7 buckets per power of two (within 1%).
pub const USER_BITS: u8 = 7;
/// Buckets per page.
const PAGE: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// `starts[k]`: how many stored buckets lie below page `lo + k`; one
    /// entry more than the pages indexed (the last: all stored buckets).
    starts: Vec<u32>,
    lo: u32,
    /// Buckets per power of two, as a power of two ([`RUN_BITS`], [`USER_BITS`]).
    bits: u8,
    /// The stored buckets in increasing order: each one's place in its page
    /// and its count (the total weight of its samples) modulo 2^32.
    places: Vec<u8>,
    counts: Vec<u32>,
    /// For the few buckets whose count reached 2^32, in bucket order: the
    /// bucket and its count's bits above the lowest 32.
    carries: Vec<(u32, u32)>,
    /// The total of the samples' values times their weights.
    sum: u128,
    max: u64,
}

// A user keeps four or more (its delays both ways, its buffer's backlog in
// bytes and packets): 10 000 users hold 40 000, most of them near empty.
const _: () = assert!(std::mem::size_of::<Histogram>() <= 128);

/// The bucket of `v` with 2^`bits` buckets per power of two.
#[inline]
fn index(v: u64, bits: u8) -> usize {
    let (bits, sub) = (bits as u32, 1u64 << bits);
    if v < sub {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // floor(log2 v) >= bits
    let shift = e - bits;
    let top = v >> shift; // in [sub, 2·sub)
    ((shift as u64 + 1) * sub + (top - sub)) as usize
}

/// The midpoint of bucket `i` with 2^`bits` buckets per power of two.
fn value(i: usize, bits: u8) -> u64 {
    let (i, sub) = (i as u64, 1u64 << bits);
    if i < sub {
        return i;
    }
    let shift = i / sub - 1;
    let top = i % sub + sub;
    (top << shift) + ((1u64 << shift) >> 1)
}

impl Default for Histogram {
    /// A run's distribution, within 0.1%.
    fn default() -> Histogram {
        Histogram::new(RUN_BITS)
    }
}

impl Histogram {
    /// An empty histogram of 2^`bits` buckets per power of two.
    pub fn new(bits: u8) -> Histogram {
        Histogram {
            starts: Vec::new(),
            lo: 0,
            bits,
            places: Vec::new(),
            counts: Vec::new(),
            carries: Vec::new(),
            sum: 0,
            max: 0,
        }
    }

    /// A user's distribution, within 1%.
    pub fn per_user() -> Histogram {
        Histogram::new(USER_BITS)
    }

    pub fn record(&mut self, v: u64) {
        self.add(v, 1);
    }

    /// Records `v` with weight `w` (> 0), as `w` samples of `v`.
    #[inline]
    pub fn add(&mut self, v: u64, w: u64) {
        debug_assert!(w > 0, "a sample of no weight");
        let i = index(v, self.bits);
        // Below `lo` wraps around to a huge offset: one test covers both ends.
        let mut k = (i / PAGE).wrapping_sub(self.lo as usize);
        if k >= self.starts.len().saturating_sub(1) {
            k = self.make_room(i / PAGE);
        }
        let (first, end) = (self.starts[k] as usize, self.starts[k + 1] as usize);
        let place = (i % PAGE) as u8;
        let j = first + self.places[first..end].iter().position(|&p| p >= place).unwrap_or(end - first);
        if j < end && self.places[j] == place {
            let count = self.counts[j] as u64 + w;
            self.counts[j] = count as u32;
            if count >> 32 != 0 {
                self.carry(i, count >> 32);
            }
        } else {
            self.store(k, j, place, w);
            if w >> 32 != 0 {
                self.carry(i, w >> 32);
            }
        }
        self.sum += v as u128 * w as u128;
        self.max = self.max.max(v);
    }

    /// Adds `high` · 2^32 to bucket `i`'s count.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, i: usize, high: u64) {
        // A count is at most the total weight, below 2^64: its high bits fit 32.
        let (i, high) = (i as u32, high as u32);
        match self.carries.binary_search_by_key(&i, |&(bucket, _)| bucket) {
            Ok(k) => self.carries[k].1 += high,
            Err(k) => {
                // One at a time: they are few, and most histograms have none or one.
                self.carries.reserve_exact(1);
                self.carries.insert(k, (i, high));
            }
        }
    }

    /// Bucket `i`'s count above its lowest 32 bits.
    fn carried(&self, i: usize) -> u64 {
        match self.carries.binary_search_by_key(&(i as u32), |&(bucket, _)| bucket) {
            Ok(k) => (self.carries[k].1 as u64) << 32,
            Err(_) => 0,
        }
    }

    /// Stores a bucket not yet held, of page offset `k`, at `place` in that
    /// page and position `j` among the stored buckets, with count `w` modulo 2^32.
    #[cold]
    #[inline(never)]
    fn store(&mut self, k: usize, j: usize, place: u8, w: u64) {
        // Grown by an eighth, not doubled: the buckets held grow slowly
        // through a run, and spare room would be most of the memory.
        if self.counts.len() == self.counts.capacity() {
            let more = self.counts.len() / 8 + 4;
            self.counts.reserve_exact(more);
            self.places.reserve_exact(more);
        }
        self.places.insert(j, place);
        self.counts.insert(j, w as u32);
        self.starts[k + 1..].iter_mut().for_each(|s| *s += 1);
    }

    /// Indexes page `p`, outside the indexed range (or the first); returns its offset.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, p: usize) -> usize {
        let lo = self.lo as usize;
        if self.starts.is_empty() {
            self.lo = p as u32;
            self.starts.push(0);
        } else if p < lo {
            // The new pages below hold nothing yet: no stored bucket lies below them.
            self.starts.splice(0..0, std::iter::repeat_n(0, lo - p));
            self.lo = p as u32;
        }
        let k = p - self.lo as usize;
        if k + 1 >= self.starts.len() {
            let held = self.counts.len() as u32;
            self.starts.resize(k + 2, held);
        }
        k
    }

    /// The stored buckets in increasing order: (bucket, count).
    fn stored(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.starts.windows(2).enumerate().flat_map(move |(k, w)| {
            let first = (self.lo as usize + k) * PAGE;
            let (a, b) = (w[0] as usize, w[1] as usize);
            self.places[a..b].iter().zip(&self.counts[a..b]).map(move |(&p, &c)| {
                let i = first + p as usize;
                (i, self.carried(i) + c as u64)
            })
        })
    }

    /// The number of samples (the total weight): the buckets' counts summed.
    pub fn count(&self) -> u64 {
        let high: u64 = self.carries.iter().map(|&(_, high)| (high as u64) << 32).sum();
        high + self.counts.iter().map(|&c| c as u64).sum::<u64>()
    }

    pub fn mean(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.sum as f64 / n as f64,
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// The value bucket `i` stands for: its midpoint, or the exact maximum in
    /// the maximum's bucket (so that the top of the distribution is the maximum).
    fn reported(&self, i: usize) -> u64 {
        if i == index(self.max, self.bits) {
            self.max
        } else {
            value(i, self.bits)
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
        let n = self.count();
        if n == 0 {
            return [0; N];
        }
        let ranks = qs.map(|q| ((q * n as f64).ceil() as u64).clamp(1, n));
        let mut out = [self.max; N];
        let (mut next, mut seen) = (0, 0);
        for (i, c) in self.stored() {
            seen += c;
            while next < N && seen >= ranks[next] {
                out[next] = self.reported(i);
                next += 1;
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
        self.stored().map(|(i, c)| (self.reported(i), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_tight() {
        for v in [0u64, 1, 1023, 1024, 1025, 2047, 2048, 70_000_000, u64::MAX / 3] {
            let mid = value(index(v, RUN_BITS), RUN_BITS);
            assert!((mid as f64 - v as f64).abs() <= v as f64 / 1024.0 + 1.0, "{v} -> {mid}");
        }
        for v in 1000..5000u64 {
            assert!(index(v + 1, RUN_BITS) == index(v, RUN_BITS) || index(v + 1, RUN_BITS) == index(v, RUN_BITS) + 1);
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
        assert_eq!(value(index(19_500, RUN_BITS), RUN_BITS), 19_496);
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
                [
                    3,
                    900,
                    value(index(5_000, RUN_BITS), RUN_BITS),
                    value(index(70_000_000, RUN_BITS), RUN_BITS),
                    3_000_000_000
                ]
            );
            assert_eq!(h.quantiles([0.2, 0.4, 0.6]), [3, 900, value(index(5_000, RUN_BITS), RUN_BITS)]);
        }
        assert_eq!(descending.starts, ascending.starts);
        assert_eq!(
            (descending.places.as_slice(), descending.counts.as_slice()),
            (ascending.places.as_slice(), ascending.counts.as_slice())
        );
    }

    #[test]
    fn only_buckets_with_samples_are_stored() {
        let mut h = Histogram::default();
        for k in 0..30u64 {
            h.add(k * 1500, 7);
        }
        assert_eq!((h.places.len(), h.counts.len()), (30, 30), "a bucket per multiple of 1500 B");
        assert!(h.starts.len() > 150, "the index covers 0 to 43 500 B: {}", h.starts.len());
        assert_eq!(h.quantiles([0.5, 1.0]), [value(index(21_000, RUN_BITS), RUN_BITS), 43_500]);
        assert_eq!(h.buckets().count(), 30);
    }

    /// Samples in any order, several to a page and below and above those
    /// stored: the stored buckets are those of a dense count, in order.
    #[test]
    fn stored_buckets_are_a_dense_count_in_order() {
        let mut h = Histogram::default();
        let mut dense = std::collections::BTreeMap::<usize, u64>::new();
        let mut x = 12_345u64;
        for n in 0..20_000u64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let v = match n % 3 {
                0 => 3_000 + (x >> 40) % 400,      // a few pages, many buckets each
                1 => (x >> 33) % 5_000_000_000,    // spread over octaves
                _ => 25_000_000 + (x >> 50) * 977, // sparse, a bucket or two a page
            };
            let w = 1 + (x >> 60);
            h.add(v, w);
            *dense.entry(index(v, RUN_BITS)).or_default() += w;
        }
        let expected: Vec<(u64, u64)> = dense.iter().map(|(&i, &c)| (h.reported(i), c)).collect();
        assert_eq!(h.buckets().collect::<Vec<_>>(), expected);
        assert_eq!(*h.starts.last().unwrap() as usize, dense.len());
        let total: u64 = dense.values().sum();
        for q in [0.01, 0.25, 0.5, 0.9, 0.999] {
            let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
            let mut seen = 0;
            let (&i, _) = dense
                .iter()
                .find(|(_, &c)| {
                    seen += c;
                    seen >= rank
                })
                .unwrap();
            assert_eq!(h.quantile(q), h.reported(i), "{q}");
        }
    }

    /// Time weights past 2^32 ns (4.3 s), added to a bucket bit by bit or
    /// stored with it: each bucket's count is the exact sum of its weights.
    #[test]
    fn counts_past_32_bits_are_exact() {
        let mut h = Histogram::default();
        let mut dense = std::collections::BTreeMap::<u64, u64>::new();
        let big = 1u64 << 32;
        let samples = [
            (1500, big - 1), // one short of the carry
            (1500, 1),       // carries exactly 1 · 2^32
            (2000, 5 * big + 7),
            (1500, 3 * big - 2),
            (45_000, 1),
            (2000, big - 8),
            (1500, 1 << 45),
            (0, 17),
        ];
        for (v, w) in samples {
            h.add(v, w);
            *dense.entry(v).or_default() += w;
        }
        assert_eq!(h.buckets().collect::<Vec<_>>(), dense.iter().map(|(&v, &c)| (v, c)).collect::<Vec<_>>());
        assert_eq!(h.count(), dense.values().sum::<u64>());
        let total = h.count();
        let below_2000 = dense[&0] + dense[&1500];
        assert_eq!(h.quantile(below_2000 as f64 / total as f64), 1500);
        assert_eq!(h.quantile(1.0), 45_000);
    }

    /// A user's histogram: each value below 2^7 its own bucket, above within
    /// 1% (half a bucket, 2^-8, from the midpoint); over the same samples
    /// several times fewer buckets than a run's, the same exact mean and maximum.
    #[test]
    fn a_users_histogram_is_within_one_percent_in_fewer_buckets() {
        let (mut run, mut user) = (Histogram::default(), Histogram::per_user());
        for v in 0..200_000u64 {
            run.add(v, 3);
            user.add(v, 3);
        }
        for v in [0u64, 1, 127, 128, 129, 255, 256, 5_000, 199_999, 3_000_000_000] {
            let mid = value(index(v, USER_BITS), USER_BITS);
            assert!(mid.abs_diff(v) <= v / 256, "{v} -> {mid}");
        }
        assert_eq!(value(index(127, USER_BITS), USER_BITS), 127);
        let (p50, exact) = (user.quantile(0.5) as f64, 100_000.0);
        assert!((p50 / exact - 1.0).abs() < 0.01, "{p50}");
        assert_eq!((user.count(), user.mean(), user.max()), (run.count(), run.mean(), run.max()));
        assert_eq!(user.quantile(1.0), 199_999);
        let (r, u) = (run.counts.len(), user.counts.len());
        assert!(r > 5 * u, "{r} buckets at 0.1%, {u} at 1%");
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
