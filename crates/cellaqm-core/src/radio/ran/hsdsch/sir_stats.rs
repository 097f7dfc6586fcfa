//! A cell's SIR distribution: the SIR of each backlogged user it serves,
//! once per TTI, in 0.1 dB bins from −30 to +20 dB (values outside fall in
//! the end bins); mean and percentiles for the summary.

use crate::radio::cell_summary::SirSummary;

const LOW_DB: f64 = -30.0;
const BIN_DB: f64 = 0.1;
const BINS: usize = 500;

#[derive(Clone, Debug)]
pub struct SirStats {
    bins: Vec<u64>,
    sum_db: f64,
    count: u64,
}

impl Default for SirStats {
    fn default() -> Self {
        SirStats { bins: vec![0; BINS], sum_db: 0.0, count: 0 }
    }
}

impl SirStats {
    /// The bin of `sir_db` (a user's SIR is recorded every TTI but changes less often: its bin is kept with it).
    pub fn bin(sir_db: f64) -> usize {
        ((sir_db - LOW_DB) / BIN_DB).floor().clamp(0.0, (BINS - 1) as f64) as usize
    }

    /// Records `sir_db`, which falls in bin `bin` ([`SirStats::bin`]).
    pub fn record(&mut self, bin: usize, sir_db: f64) {
        self.bins[bin] += 1;
        self.sum_db += sir_db;
        self.count += 1;
    }

    /// The centre of the bin holding the `q`-quantile.
    fn quantile(&self, q: f64) -> f64 {
        let want = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (k, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= want {
                return LOW_DB + (k as f64 + 0.5) * BIN_DB;
            }
        }
        f64::NAN
    }

    pub fn summary(&self) -> SirSummary {
        if self.count == 0 {
            return SirSummary::default();
        }
        SirSummary {
            samples: self.count,
            mean: self.sum_db / self.count as f64,
            p5: self.quantile(0.05),
            p50: self.quantile(0.5),
            p95: self.quantile(0.95),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_bin_centres() {
        let mut s = SirStats::default();
        for k in 0..100 {
            let sir_db = k as f64 * 0.1 + 0.05; // 0.05 … 9.95 dB, one per bin
            s.record(SirStats::bin(sir_db), sir_db);
        }
        let m = s.summary();
        assert_eq!(m.samples, 100);
        assert!((m.mean - 5.0).abs() < 1e-9);
        // The 50th of 100 values is 4.95 dB, in bin [4.9, 5.0); the 5th 0.45 dB.
        assert!((m.p50 - 4.95).abs() < 1e-6, "{}", m.p50);
        assert!((m.p5 - 0.45).abs() < 1e-6, "{}", m.p5);
    }
}
