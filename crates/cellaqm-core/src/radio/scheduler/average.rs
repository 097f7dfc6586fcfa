//! A user's average served rate for the proportional fair scheduler: an
//! exponentially weighted moving average over TTIs with window `W` TTIs,
//! R̄(k) = (1 − 1/W)·R̄(k−1) + r(k)/W, where r(k) is the rate served in TTI k
//! (0 when not served). TTIs in which the user is not served only decay R̄,
//! so the decay is applied when R̄ is next read or updated: O(1) per served
//! user per TTI, however many users the cell has.

/// An exponentially weighted average rate over TTIs.
#[derive(Clone, Debug)]
pub struct RateAverage {
    keep: f64,
    avg_bps: f64,
    /// The TTI index `avg_bps` is as of.
    at: u64,
}

impl RateAverage {
    /// An average over a window of `window` TTIs (at least 1).
    pub fn new(window: u32) -> RateAverage {
        RateAverage { keep: 1.0 - 1.0 / window.max(1) as f64, avg_bps: 0.0, at: 0 }
    }

    /// The average as of TTI `tti`, before that TTI's service.
    pub fn value(&self, tti: u64) -> f64 {
        self.avg_bps * self.keep.powi(tti.saturating_sub(self.at).min(i32::MAX as u64) as i32)
    }

    /// [`RateAverage::value`] with `decay[k]` = (1 − 1/W)^k for the first
    /// TTIs unserved, as [`RateAverage::decay`] gives them: the same value,
    /// without the power (a cell that reads every user's average each TTI).
    pub fn value_with(&self, tti: u64, decay: &[f64]) -> f64 {
        match decay.get(tti.saturating_sub(self.at) as usize) {
            Some(d) => self.avg_bps * d,
            None => self.value(tti),
        }
    }

    /// (1 − 1/W)^k for k below `n`, each computed as [`RateAverage::value`] does.
    pub fn decay(&self, n: usize) -> Vec<f64> {
        (0..n).map(|k| self.keep.powi(k as i32)).collect()
    }

    /// The user was served at `bps` in TTI `tti`.
    pub fn serve(&mut self, tti: u64, bps: f64) {
        self.avg_bps = self.value(tti) * self.keep + bps * (1.0 - self.keep);
        self.at = tti + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decays_over_unserved_ttis_as_the_recursion_does() {
        let (mut lazy, mut eager) = (RateAverage::new(10), 0.0f64);
        for tti in 0..50u64 {
            let bps = if tti % 7 == 0 { 1e6 } else { 0.0 };
            eager = 0.9 * eager + 0.1 * bps;
            if bps > 0.0 {
                lazy.serve(tti, bps);
            }
            assert!((lazy.value(tti + 1) - eager).abs() < 1e-6 * 1e6, "{tti}: {} vs {eager}", lazy.value(tti + 1));
        }
    }

    #[test]
    fn the_decay_table_gives_the_same_bits() {
        let mut a = RateAverage::new(100);
        a.serve(3, 2.5e6);
        let decay = a.decay(64);
        for tti in 0..200 {
            assert_eq!(a.value_with(tti, &decay).to_bits(), a.value(tti).to_bits(), "TTI {tti}");
        }
    }
}
