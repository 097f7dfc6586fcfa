//! A log-linear histogram of non-negative integers (nanoseconds), for
//! percentiles in memory that does not grow with the number of samples.
//!
//! Values below 2^10 have a bucket each; above, every power of two is split
//! into 2^10 buckets, so a reported percentile is within 0.1% of the true
//! sample value. Mean and maximum are exact.

const SUB_BITS: u32 = 10;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
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
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

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

    /// The `q`-quantile (0 < q ≤ 1): the smallest recorded value with at least
    /// `ceil(q·n)` samples at or below it, to bucket precision.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return value(i).min(self.max);
            }
        }
        self.max
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
