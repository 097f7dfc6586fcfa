//! The Gilbert two-state loss channel (Gilbert 1960; Elliott 1963 with loss
//! probability 1 in the bad state and 0 in the good one).
//!
//! One step per transport unit (an RLC PDU): the state moves first, then the
//! unit is lost if the state is bad. Parameters are the long-run loss rate π
//! and the mean burst length L (consecutive losses, in units):
//! `p(B→G) = 1/L`, `p(G→B) = π/(1−π) · p(B→G)`, so that the stationary share
//! of the bad state is `p(G→B) / (p(G→B) + p(B→G)) = π`. The WCDMA study uses
//! π = 1.5% on the R99 downlink; the initial state is drawn from the
//! stationary distribution.

use crate::rng::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// `loss = { mean = 0.015, burst = 2 }` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertConfig {
    /// Long-run share of lost units (probability in [0, 1)).
    pub mean: f64,
    /// Mean number of consecutive lost units (≥ 1; with 1 the bad state lasts one unit).
    #[serde(default = "one")]
    pub burst: f64,
}

fn one() -> f64 {
    1.0
}

impl GilbertConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.mean) {
            return Err(format!("{key}.mean: expected a loss probability in [0, 1), got {}", self.mean));
        }
        if !(self.burst >= 1.0 && self.burst.is_finite()) {
            return Err(format!("{key}.burst: expected a mean burst length of at least 1 unit, got {}", self.burst));
        }
        if self.mean > 0.0 && self.mean / (1.0 - self.mean) / self.burst > 1.0 {
            return Err(format!(
                "{key}.burst: too short for a mean loss of {} (need burst ≥ mean / (1 − mean))",
                self.mean
            ));
        }
        Ok(())
    }
}

pub struct Gilbert {
    p_gb: f64,
    p_bg: f64,
    bad: bool,
    rng: Rng,
}

impl Gilbert {
    pub fn new(cfg: &GilbertConfig, mut rng: Rng) -> Gilbert {
        let p_bg = 1.0 / cfg.burst;
        let p_gb = cfg.mean / (1.0 - cfg.mean) * p_bg;
        let bad = cfg.mean > 0.0 && rng.random::<f64>() < cfg.mean;
        Gilbert { p_gb, p_bg, bad, rng }
    }

    /// A channel that loses nothing (and draws nothing).
    pub fn lossless(rng: Rng) -> Gilbert {
        Gilbert { p_gb: 0.0, p_bg: 1.0, bad: false, rng }
    }

    /// Steps the channel for one unit; whether that unit is lost.
    pub fn lose(&mut self) -> bool {
        if self.p_gb == 0.0 {
            return false;
        }
        let u = self.rng.random::<f64>();
        self.bad = if self.bad { u >= self.p_bg } else { u < self.p_gb };
        self.bad
    }

    /// Steps the channel `steps` (≥ 1) units at once; whether the last is lost.
    /// A two-state chain forgets its state geometrically:
    /// `P(bad after k | now) = π + (1{bad} − π)·(1 − p(G→B) − p(B→G))^k`, one draw.
    pub fn advance(&mut self, steps: u64) -> bool {
        if steps <= 1 || self.p_gb == 0.0 {
            return self.lose();
        }
        let pi = self.p_gb / (self.p_gb + self.p_bg);
        let lambda = 1.0 - self.p_gb - self.p_bg;
        let p_bad = pi + (self.bad as u8 as f64 - pi) * lambda.powf(steps as f64);
        self.bad = self.rng.random::<f64>() < p_bad;
        self.bad
    }
}

/// Steps `g` over `n` units: the share lost and the mean run of consecutive losses.
#[cfg(test)]
pub(super) fn loss_and_burst(g: &mut Gilbert, n: usize) -> (f64, f64) {
    let (mut lost, mut bursts, mut prev) = (0usize, 0usize, false);
    for _ in 0..n {
        let l = g.lose();
        lost += l as usize;
        bursts += (l && !prev) as usize;
        prev = l;
    }
    (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// Long-run loss rate and mean burst length over `n` units.
    fn measure(mean: f64, burst: f64, n: usize) -> (f64, f64) {
        loss_and_burst(&mut Gilbert::new(&GilbertConfig { mean, burst }, stream(7, "gilbert")), n)
    }

    #[test]
    fn long_run_loss_and_burst_length_match_the_parameters() {
        for &(mean, burst) in &[(0.015, 1.0), (0.015, 3.0), (0.10, 5.0), (0.3, 2.0)] {
            let (loss, len) = measure(mean, burst, 4_000_000);
            assert!((loss / mean - 1.0).abs() < 0.03, "mean {mean} burst {burst}: loss {loss}");
            assert!((len / burst - 1.0).abs() < 0.03, "mean {mean} burst {burst}: burst {len}");
        }
        assert_eq!(measure(0.0, 1.0, 1000).0, 0.0);
    }

    /// Stepping k units at once lands in the bad state as often as k single steps do.
    #[test]
    fn advancing_several_units_matches_single_steps() {
        let cfg = GilbertConfig { mean: 0.1, burst: 10.0 };
        for k in [2u64, 5, 30] {
            let (mut from_bad, mut from_good) = (0usize, 0usize);
            let n = 200_000;
            for i in 0..n {
                let mut g = Gilbert::new(&cfg, stream(i as u64, "advance"));
                g.bad = i % 2 == 0;
                let bad = g.advance(k);
                *if i % 2 == 0 { &mut from_bad } else { &mut from_good } += bad as usize;
            }
            // Hand-worked: π = 0.1, λ = 1 − 0.1/0.9·0.1 − 0.1 = 0.8889.
            let lambda: f64 = 1.0 - 0.1 / 0.9 * 0.1 - 0.1;
            for (got, start) in [(from_bad, 1.0), (from_good, 0.0)] {
                let expected = 0.1 + (start - 0.1) * lambda.powi(k as i32);
                let got = got as f64 / (n / 2) as f64;
                assert!((got - expected).abs() < 0.006, "k {k} from {start}: {got} vs {expected}");
            }
        }
    }

    #[test]
    fn validation_names_the_key() {
        let e = GilbertConfig { mean: 1.5, burst: 1.0 }.validate("radio.loss").unwrap_err();
        assert!(e.starts_with("radio.loss.mean:"), "{e}");
        let e = GilbertConfig { mean: 0.1, burst: 0.5 }.validate("radio.loss").unwrap_err();
        assert!(e.starts_with("radio.loss.burst:"), "{e}");
        let e = GilbertConfig { mean: 0.9, burst: 1.0 }.validate("radio.loss").unwrap_err();
        assert!(e.starts_with("radio.loss.burst: too short"), "{e}");
        assert_eq!(GilbertConfig { mean: 0.015, burst: 1.0 }.validate("radio.loss"), Ok(()));
    }
}
