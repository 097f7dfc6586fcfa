//! Frame errors on a Rayleigh-fading channel as a two-state Markov chain
//! (M. Zorzi, R. R. Rao, L. B. Milstein, "On the accuracy of a first-order
//! Markov model for data block transmission on fading channels", ICUPC 1995;
//! used by A. Chockalingam, M. Zorzi, R. R. Rao, "Performance of TCP on
//! wireless fading links with memory", ICC 1998, and by the RLC study,
//! Alcaraz et al., IEEE Communications Magazine, for its radio channel).
//!
//! A frame is lost when the Rayleigh envelope's power is below a threshold;
//! the fading margin F (mean power over threshold) sets the frame error ratio
//! ε, and the envelope's correlation over one frame, ρ = J0(2π f_d T) (Jakes),
//! sets how long the fades last. From the joint (bivariate Rayleigh)
//! distribution of two consecutive envelopes:
//! ```text
//! F = −1 / ln(1 − ε)                                # ε = 1 − e^(−1/F)
//! ρ = J0(2π f_d T)
//! θ = sqrt( (2/F) / (1 − ρ²) )
//! r = [Q1(θ, ρθ) − Q1(ρθ, θ)] / (e^(1/F) − 1)       # P(frame ok | previous lost)
//! p = r · ε / (1 − ε)                               # P(frame lost | previous ok)
//! ```
//! with Q1 the first-order Marcum Q function. The chain's stationary loss is
//! p / (p + r) = ε and its mean burst 1/r frames: the [`super::gilbert`]
//! chain with `mean = ε`, `burst = 1/r`. Lower Doppler, longer bursts:
//! ε = 0.1 at f_d·T = 0.01 gives r ≈ 0.0731 (13.7 frames).
//! One chain state per radio frame (TTI); every PDU of a TTI shares its fate
//! ([`super::dch`]); or, with `errors = "pdu"`, one state per PDU slot (the
//! TTI's PDUs in order), each PDU a "frame" of the chain with the same f_d·T.
//! Valid for 0 < f_d·T ≤ 0.38: at the first zero of J0 (f_d·T ≈ 0.3827)
//! consecutive frames are uncorrelated (r = 1 − ε).

use super::gilbert::GilbertConfig;
use serde::{Deserialize, Serialize};

/// `fading = { mean = 0.1, doppler = 0.01 }` on a DCH.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FadingConfig {
    /// Mean frame (TTI) error ratio ε, in (0, 1).
    pub mean: f64,
    /// Normalised Doppler frequency f_d·T, T the DCH's TTI, in (0, 0.38].
    pub doppler: f64,
    /// What one state of the chain decides: a whole radio frame, or one PDU.
    #[serde(default, skip_serializing_if = "FadingErrors::is_frame")]
    pub errors: FadingErrors,
}

/// The unit of the chain (`fading.errors`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FadingErrors {
    /// One state per radio frame (TTI): its PDUs share their fate.
    #[default]
    Frame,
    /// One state per PDU slot of the TTI, in order: a burst can start or end inside a frame.
    Pdu,
}

impl FadingErrors {
    pub fn is_frame(&self) -> bool {
        *self == FadingErrors::Frame
    }
}

/// The largest normalised Doppler accepted: just below the first zero of J0 over 2π.
const MAX_DOPPLER: f64 = 0.38;

impl FadingConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(self.mean > 0.0 && self.mean < 1.0) {
            return Err(format!("{key}.mean: expected a frame error ratio in (0, 1), got {}", self.mean));
        }
        if !(self.doppler > 0.0 && self.doppler <= MAX_DOPPLER) {
            return Err(format!(
                "{key}.doppler: expected a normalised Doppler frequency f_d·T in (0, {MAX_DOPPLER}], got {}",
                self.doppler
            ));
        }
        Ok(())
    }

    /// P(frame ok | previous frame lost), `r` of the module doc.
    pub fn recovery(&self) -> f64 {
        let f = -1.0 / (1.0 - self.mean).ln();
        let rho = bessel_j0(2.0 * std::f64::consts::PI * self.doppler);
        let theta = ((2.0 / f) / (1.0 - rho * rho)).sqrt();
        let r = (marcum_q1(theta, rho * theta) - marcum_q1(rho * theta, theta)) / (1.0 / f).exp_m1();
        r.clamp(f64::MIN_POSITIVE, 1.0 - self.mean)
    }

    /// The two-state chain with the same transitions.
    pub fn chain(&self) -> GilbertConfig {
        GilbertConfig { mean: self.mean, burst: 1.0 / self.recovery() }
    }
}

/// Bessel function of the first kind, order 0, by its power series
/// J0(z) = Σ (−z²/4)^k / (k!)²; accurate to ~1e-15 for |z| ≤ 2.5 (the range used).
pub fn bessel_j0(z: f64) -> f64 {
    let q = -z * z / 4.0;
    let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, 0.0f64);
    while term.abs() > 1e-18 * sum.abs().max(1e-300) {
        k += 1.0;
        term *= q / (k * k);
        sum += term;
    }
    sum
}

/// First-order Marcum Q function Q1(a, b) = P(X > b²) for X noncentral
/// chi-square with 2 degrees of freedom and noncentrality a²; summed as a
/// Poisson(a²/2) mixture of central chi-squares with 2k + 2 degrees of freedom,
/// whose tails are Poisson(b²/2) distribution functions:
/// `Q1(a, b) = Σ_k e^(−x) x^k/k! · Σ_{j≤k} e^(−y) y^j/j!`, x = a²/2, y = b²/2.
/// Every term is positive (no cancellation). The sum stops once the mixture
/// weights left are below 1e-17, or once past the mode (k > x) a bound on
/// everything left is below 1e-17 of the sum: no later term could then move
/// it (each is under half a unit in its last place). The first test alone
/// may never be met: the weights summed in floating point need not come
/// within 1e-17 of 1 (at ε = 0.1, f_d·T = 0.01, the RLC study's fading, it ran to its
/// guard of a million terms, 90 ms per call).
pub fn marcum_q1(a: f64, b: f64) -> f64 {
    marcum_q1_terms(a, b).0
}

/// [`marcum_q1`] and the number of terms it summed.
fn marcum_q1_terms(a: f64, b: f64) -> (f64, u64) {
    let (x, y) = (a * a / 2.0, b * b / 2.0);
    // Logs of the Poisson(x) weight and of the Poisson(y) probability of j = k.
    let (mut log_w, mut log_v) = (-x, -y);
    let (mut cdf, mut sum, mut weights) = (0.0f64, 0.0f64, 0.0f64);
    let mut k = 0u64;
    loop {
        cdf += log_v.exp();
        let w = log_w.exp();
        sum += w * cdf.min(1.0);
        weights += w;
        let kf = k as f64;
        // Past the mode the weights fall at least geometrically, by x/(k+2) from the next on.
        let left = w * x / (kf + 1.0) / (1.0 - x / (kf + 2.0));
        let negligible = kf + 2.0 > x && left <= 1e-17 * sum;
        if (kf > x && (1.0 - weights < 1e-17 || negligible)) || k > 1_000_000 {
            return (sum.min(1.0), k + 1);
        }
        k += 1;
        log_w += x.ln() - (k as f64).ln();
        log_v += y.ln() - (k as f64).ln();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::bearer::gilbert::{loss_and_burst, Gilbert};
    use crate::rng::stream;

    /// Values from SciPy (scipy.special.j0; Q1(a, b) = scipy.stats.ncx2.sf(b², 2, a²)).
    #[test]
    fn j0_and_marcum_q1_match_reference_values() {
        assert!((bessel_j0(0.0) - 1.0).abs() < 1e-15);
        assert!((bessel_j0(1.0) - 0.765197686557966).abs() < 1e-14);
        assert!((bessel_j0(2.0) - 0.223890779141236).abs() < 1e-14);
        assert!(bessel_j0(2.404825557695773).abs() < 1e-12); // first zero
        for (a, b, q) in [
            (1.0, 2.0, 0.26901206003591),
            (2.0, 1.0, 0.918107696369406),
            (10.4, 10.3, 0.558980606547545),
            (0.5, 3.0, 0.0178436733864822),
            (3.0, 0.5, 0.998300232705539),
            (0.0, 1.5, 0.32465246735835), // Q1(0, b) = e^(−b²/2)
            (100.0, 99.0, 0.842557654839447),
        ] {
            let got = marcum_q1(a, b);
            assert!((got - q).abs() < 1e-12, "Q1({a}, {b}) = {got}, expected {q}");
        }
    }

    /// The RLC study's values (ε = 0.1 → r ≈ 0.073; ε = 0.2 → r ≈ 0.047 at f_d·T = 0.01)
    /// and SciPy's values of the same formulas elsewhere (to 1e-7: at small
    /// f_d·T, 1 − ρ² cancels digits in both).
    #[test]
    fn transition_probabilities_match_the_model() {
        for (mean, doppler, r) in [
            (0.1, 0.01, 0.073148866614),
            (0.2, 0.01, 0.0473412053822),
            (0.1, 0.1, 0.62979054027),
            (0.05, 0.001, 0.01078608615),
            (0.3, 0.05, 0.173394402886),
            (0.01, 0.02, 0.470717102026),
        ] {
            let got = FadingConfig { mean, doppler, errors: FadingErrors::Frame }.recovery();
            assert!((got / r - 1.0).abs() < 1e-7, "ε {mean}, f_dT {doppler}: r = {got}, expected {r}");
        }
        // Uncorrelated frames at the first zero of J0: r = 1 − ε (i.i.d. losses).
        let iid = FadingConfig {
            mean: 0.1,
            doppler: 2.404825557695773 / (2.0 * std::f64::consts::PI),
            errors: FadingErrors::Frame,
        };
        assert!((iid.recovery() - 0.9).abs() < 1e-9, "{}", iid.recovery());
        // Lower Doppler, longer bursts.
        let burst = |d: f64| FadingConfig { mean: 0.1, doppler: d, errors: FadingErrors::Frame }.chain().burst;
        assert!(burst(0.001) > burst(0.01) && burst(0.01) > burst(0.1) && burst(0.1) > 1.0);
    }

    /// A long run of the chain: its loss ratio is ε and its mean burst 1/r.
    #[test]
    fn simulated_loss_and_burst_length_match_the_chain() {
        for (mean, doppler) in [(0.1, 0.01), (0.2, 0.01), (0.1, 0.1), (0.3, 0.05)] {
            let cfg = FadingConfig { mean, doppler, errors: FadingErrors::Frame };
            let burst = 1.0 / cfg.recovery();
            let (loss, len) = loss_and_burst(&mut Gilbert::new(&cfg.chain(), stream(3, "fading")), 4_000_000);
            assert!((loss / mean - 1.0).abs() < 0.05, "ε {mean}, f_dT {doppler}: loss {loss}");
            assert!((len / burst - 1.0).abs() < 0.05, "ε {mean}, f_dT {doppler}: burst {len} vs {burst}");
        }
    }

    /// The series stops within a few terms past the Poisson weights' mode
    /// (x = a²/2) plus a few standard deviations, for every argument the
    /// fading channel can ask (f_d·T down to 0.001, ε from 0.01 to 0.9).
    #[test]
    fn the_marcum_series_converges_in_few_terms() {
        for (a, b) in
            [(1.0, 2.0), (2.0, 1.0), (10.4, 10.3), (0.0, 1.5), (100.0, 99.0), (10.336, 10.326), (15.042, 15.027)]
        {
            let (_, terms) = marcum_q1_terms(a, b);
            let x = a * a / 2.0;
            assert!((terms as f64) < x + 20.0 * x.sqrt() + 60.0, "Q1({a}, {b}): {terms} terms");
        }
        for mean in [0.01, 0.1, 0.5, 0.9] {
            for doppler in [0.001, 0.01, 0.1, 0.38] {
                let f = -1.0 / (1.0f64 - mean).ln();
                let rho = bessel_j0(2.0 * std::f64::consts::PI * doppler);
                let theta = ((2.0 / f) / (1.0 - rho * rho)).sqrt();
                for (a, b) in [(theta, rho * theta), (rho * theta, theta)] {
                    let (_, terms) = marcum_q1_terms(a, b);
                    let x = a * a / 2.0;
                    assert!((terms as f64) < x + 20.0 * x.sqrt() + 60.0, "ε {mean}, f_dT {doppler}: {terms} terms");
                }
            }
        }
    }

    #[test]
    fn validation_names_the_key() {
        let e = FadingConfig { mean: 0.0, doppler: 0.01, errors: FadingErrors::Frame }
            .validate("radio.dch.fading")
            .unwrap_err();
        assert!(e.starts_with("radio.dch.fading.mean:"), "{e}");
        let e = FadingConfig { mean: 0.1, doppler: 0.5, errors: FadingErrors::Frame }
            .validate("radio.dch.fading")
            .unwrap_err();
        assert!(e.starts_with("radio.dch.fading.doppler:"), "{e}");
        assert_eq!(
            FadingConfig { mean: 0.1, doppler: 0.01, errors: FadingErrors::Frame }.validate("radio.dch.fading"),
            Ok(())
        );
    }
}
