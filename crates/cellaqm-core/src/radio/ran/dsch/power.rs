//! Link power and block errors of the DSCH study (Ferrús et al.; our choices for
//! the physical layer the paper emulates with unpublished link-level data).
//!
//! - Interference at a user of cell k, from cell powers P_c (W) and path
//!   gains g_c (linear, 1/L): I = (1 − α)·(P_k − p)·g_k + Σ_{c≠k} P_c·g_c, the
//!   own cell's other links reduced by the orthogonality α and the other
//!   cells in full.
//! - Power control, eq. (1) held with equality: p = (Eb/N0)·(I + P_N) / (SF·g_k),
//!   with I of the previous frame.
//! - Achieved Eb/N0 = p·SF·g_k / (I + P_N) with the current frame's I.
//! - Block error ratio: the target while the achieved Eb/N0 reaches the
//!   target; short of it by x dB, min(1, BLER_target · 10^(x / slope)), slope 1 dB.

use super::checks::ALPHA;

/// The interference (W) at a user of power `p` of cell `k` with `gains`
/// (linear) given the cells' total powers `powers` (W) and their sum weighted
/// by the gains, `weighted` = Σ_c P_c g_c.
pub fn interference(weighted: f64, own_cell_w: f64, own_gain: f64, p: f64) -> f64 {
    let own = own_cell_w * own_gain;
    (weighted - own).max(0.0) + (1.0 - ALPHA) * (own_cell_w - p).max(0.0) * own_gain
}

/// Σ_c P_c g_c.
pub fn weighted(powers: &[f64], gains: &[f64]) -> f64 {
    powers.iter().zip(gains).map(|(p, g)| p * g).sum()
}

/// The power (W) that meets `eb_n0` (linear) at spreading factor `sf`, gain
/// `gain`, with interference `interference_w` and noise `noise_w`.
pub fn power(eb_n0: f64, sf: u32, gain: f64, interference_w: f64, noise_w: f64) -> f64 {
    eb_n0 * (interference_w + noise_w) / (sf as f64 * gain)
}

/// The Eb/N0 (linear) that power `p` achieves.
pub fn achieved(p: f64, sf: u32, gain: f64, interference_w: f64, noise_w: f64) -> f64 {
    p * sf as f64 * gain / (interference_w + noise_w)
}

/// The block error ratio at `achieved` (linear) against `target` (linear)
/// with target BLER `bler`, ×10 per `slope_db` dB short.
pub fn bler(achieved: f64, target: f64, bler: f64, slope_db: f64) -> f64 {
    if achieved >= target {
        return bler;
    }
    let short_db = 10.0 * (target / achieved.max(1e-300)).log10();
    (bler * 10f64.powf(short_db / slope_db)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    /// Two cells, one user in cell 0 at 120 dB from it and 130 dB from cell 1,
    /// cell powers 10 W and 5 W, the user's own 0.5 W:
    ///   g0 = 1e-12, g1 = 1e-13; I = (1 − 0.4)·(10 − 0.5)·1e-12 + 5·1e-13 = 5.7e-12 + 5e-13 = 6.2e-12 W;
    ///   at SF 32, 5 dB (3.1623), P_N 1.2589e-13: p = 3.1623·(6.2e-12 + 1.2589e-13)/(32·1e-12) = 0.62514 W.
    #[test]
    fn power_control_by_hand() {
        let (powers, gains) = ([10.0, 5.0], [1e-12, 1e-13]);
        let w = weighted(&powers, &gains);
        let i = interference(w, 10.0, 1e-12, 0.5);
        assert!((i - 6.2e-12).abs() < 1e-18, "{i}");
        let n = 1e-3 * db(-99.0);
        let p = power(db(5.0), 32, 1e-12, i, n);
        assert!((p - 0.62514).abs() < 1e-4, "{p}");
        assert!((achieved(p, 32, 1e-12, i, n) - db(5.0)).abs() < 1e-12);
        // Interference 1 dB above the previous frame's: the target is missed by 1 dB.
        let i2 = (i + n) * db(1.0) - n;
        let got = achieved(p, 32, 1e-12, i2, n);
        assert!((10.0 * got.log10() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn bler_is_the_target_until_the_eb_n0_falls_short() {
        assert_eq!(bler(db(6.0), db(5.0), 0.01, 1.0), 0.01);
        assert_eq!(bler(db(5.0), db(5.0), 0.01, 1.0), 0.01);
        assert!((bler(db(4.0), db(5.0), 0.01, 1.0) - 0.1).abs() < 1e-12);
        assert!((bler(db(4.5), db(5.0), 0.01, 1.0) - 0.01 * 10f64.sqrt()).abs() < 1e-12);
        assert_eq!(bler(db(2.0), db(5.0), 0.01, 1.0), 1.0);
        assert_eq!(bler(0.0, db(3.0), 0.1, 1.0), 1.0);
    }
}
