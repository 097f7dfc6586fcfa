//! Log-normal shadow fading of one user towards every base station
//! (hsdsch-buffer-mgmt.md, scenario 2: σ = 8 dB, correlation 0.5 between
//! base stations, exponential autocorrelation along the user's track over
//! 40 m; umts-dsch-rrm.md: σ 8 dB over 50 m).
//!
//! - Between sites: `s_k = √r·a + √(1−r)·b_k` (study: r = 0.5), with `a`
//!   common to all sites and `b_k` the site's own, all N(0, σ²): any two
//!   sites correlate r.
//! - Along the track (Gudmundson 1991): after the user moved `Δd` m, each
//!   component becomes `ρ·x + √(1−ρ²)·N(0, σ²)` with `ρ = exp(−Δd / d_c)`
//!   (`d_c` = 40 m, the decorrelation distance). Successive updates compose
//!   exactly (ρ multiplies), so it may be advanced at any step size.
//! - A new session gives the user a new position: all components are drawn afresh.

use crate::rng::Rng;
use rand::Rng as _;
use rand_distr::StandardNormal;

/// One user's shadowing, in dB.
#[derive(Clone, Debug)]
pub struct Shadowing {
    sigma: f64,
    decorrelation: f64,
    /// √r and √(1 − r) for the inter-site correlation r.
    weights: (f64, f64),
    common: f64,
    own: Vec<f64>,
    /// `s_k`, kept up to date.
    db: Vec<f64>,
}

fn normal(rng: &mut Rng) -> f64 {
    rng.sample::<f64, _>(StandardNormal)
}

impl Shadowing {
    /// Independent draws for a user towards `cells` base stations, σ `sigma`
    /// dB, inter-site correlation `site_correlation`, decorrelation distance
    /// `decorrelation` m.
    pub fn new(cells: usize, sigma: f64, site_correlation: f64, decorrelation: f64, rng: &mut Rng) -> Shadowing {
        let weights = (site_correlation.sqrt(), (1.0 - site_correlation).sqrt());
        let (own, db) = (vec![0.0; cells], vec![0.0; cells]);
        let mut s = Shadowing { sigma, decorrelation, weights, common: 0.0, own, db };
        s.redraw(rng);
        s
    }

    /// All components drawn afresh (the user jumped to a new position).
    pub fn redraw(&mut self, rng: &mut Rng) {
        self.common = self.sigma * normal(rng);
        for b in &mut self.own {
            *b = self.sigma * normal(rng);
        }
        self.combine();
    }

    /// The user moved `moved` m along its track.
    pub fn advance(&mut self, moved: f64, rng: &mut Rng) {
        if moved <= 0.0 {
            return;
        }
        let rho = (-moved / self.decorrelation).exp();
        let fresh = (1.0 - rho * rho).sqrt() * self.sigma;
        self.common = rho * self.common + fresh * normal(rng);
        for b in &mut self.own {
            *b = rho * *b + fresh * normal(rng);
        }
        self.combine();
    }

    fn combine(&mut self) {
        let (w, v) = self.weights;
        for (s, b) in self.db.iter_mut().zip(&self.own) {
            *s = w * self.common + v * b;
        }
    }

    /// The shadowing towards base station `c`, dB.
    pub fn db(&self, c: usize) -> f64 {
        self.db[c]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// Sample correlation of pairs.
    fn corr(pairs: &[(f64, f64)]) -> f64 {
        let n = pairs.len() as f64;
        let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
        let cov = pairs.iter().map(|p| (p.0 - ma) * (p.1 - mb)).sum::<f64>() / n;
        let va = pairs.iter().map(|p| (p.0 - ma).powi(2)).sum::<f64>() / n;
        let vb = pairs.iter().map(|p| (p.1 - mb).powi(2)).sum::<f64>() / n;
        cov / (va * vb).sqrt()
    }

    #[test]
    fn sites_correlate_one_half_with_sigma_8_db() {
        let mut rng = stream(1, "shadow");
        let pairs: Vec<_> = (0..40_000)
            .map(|_| {
                let s = Shadowing::new(7, 8.0, 0.5, 40.0, &mut rng);
                (s.db(0), s.db(3))
            })
            .collect();
        let sd = (pairs.iter().map(|p| p.0 * p.0).sum::<f64>() / pairs.len() as f64).sqrt();
        assert!((sd - 8.0).abs() < 0.1, "σ {sd}");
        let r = corr(&pairs);
        assert!((r - 0.5).abs() < 0.015, "{r}");
    }

    #[test]
    fn the_track_autocorrelation_is_exponential_with_40_m() {
        let mut rng = stream(2, "shadow");
        for (step, moved) in [(1.0, 40.0), (4.0, 20.0), (10.0, 80.0)] {
            let pairs: Vec<_> = (0..20_000)
                .map(|_| {
                    let mut s = Shadowing::new(7, 8.0, 0.5, 40.0, &mut rng);
                    let before = s.db(2);
                    let mut d = 0.0;
                    while d < moved - 1e-9 {
                        s.advance(step, &mut rng);
                        d += step;
                    }
                    (before, s.db(2))
                })
                .collect();
            let r = corr(&pairs);
            let want = (-moved / 40.0f64).exp();
            assert!((r - want).abs() < 0.02, "{moved} m in {step} m steps: {r} vs {want}");
        }
    }
}
