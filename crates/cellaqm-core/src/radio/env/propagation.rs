//! Path loss, and the SIR of an HS-DSCH user.
//!
//! - Path loss `L = L_1km + S·log10(d / km)` dB, at least `min_loss_db`;
//!   distances below `min_distance` count as `min_distance`:
//!   - HS-DSCH study (hsdsch-buffer-mgmt.md): S = 35 (exponent 3.5, the
//!     study's), L_1km = 128.1 dB (our choice: the 3GPP TR 25.942 macro-cell
//!     constant), no floor;
//!   - DSCH study (Ferrús et al.): 128.1 + 37.6·log10(d/km) (our choice: TR 25.942), no floor;
//!   - LTE uplink (lte-uplink-raqm.md): 128.1 + 37.6·log10(d/km) (TR 36.942 §4.5,
//!     macro cell at 2 GHz), at least the minimum coupling loss 70 dB (TR 36.942 Table 4.1).
//! - SIR of user `u` served by cell `s` (the formula is our choice, the
//!   constants 0.4 (orthogonality loss) and 0.1 (self-interference) the HS-DSCH study's):
//!   `P_u g_us / (0.4 (P_s − P_u) g_us + 0.1 P_u g_us + Σ_{c≠s} P_c g_uc + N)`.

/// Path loss parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathLoss {
    /// Loss at 1 km, dB.
    pub at_1km_db: f64,
    /// Loss per decade of distance, dB (10 × the distance exponent).
    pub db_per_decade: f64,
    /// Distances below this count as this (m).
    pub min_distance: f64,
    /// The least loss, dB (the minimum coupling loss; `-inf`: none).
    pub min_loss_db: f64,
}

impl PathLoss {
    /// A law of exponent `exponent` with `at_1km_db` dB at 1 km, distances below `min_distance` m as that, no floor.
    pub fn exponent(at_1km_db: f64, exponent: f64, min_distance: f64) -> PathLoss {
        PathLoss { at_1km_db, db_per_decade: 10.0 * exponent, min_distance, min_loss_db: f64::NEG_INFINITY }
    }

    /// The loss at `d` m, dB.
    pub fn loss_db(&self, d: f64) -> f64 {
        let km = d.max(self.min_distance) / 1000.0;
        (self.at_1km_db + self.db_per_decade * km.log10()).max(self.min_loss_db)
    }

    /// The path gain at `d` m with `shadow_db` dB of shadowing, linear.
    pub fn gain(&self, d: f64, shadow_db: f64) -> f64 {
        10f64.powf((shadow_db - self.loss_db(d)) / 10.0)
    }
}

/// The constants of the SIR formula.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interference {
    /// Orthogonality loss (study: 0.4).
    pub orthogonality_loss: f64,
    /// Self-interference (study: 0.1).
    pub self_interference: f64,
    /// Thermal noise power, W.
    pub noise_w: f64,
}

impl Interference {
    /// The SIR (linear) of a user given `p_user` of the serving cell's `p_cell`
    /// W at gain `g_serving`, other cells' interference `other_w` W received
    /// (Σ P_c g_uc).
    pub fn sir(&self, p_user: f64, p_cell: f64, g_serving: f64, other_w: f64) -> f64 {
        let signal = p_user * g_serving;
        let own = self.orthogonality_loss * (p_cell - p_user) * g_serving + self.self_interference * signal;
        signal / (own + other_w + self.noise_w)
    }
}

/// dB of a linear ratio.
pub fn db(x: f64) -> f64 {
    10.0 * x.log10()
}

/// W of a power in dBm.
pub fn dbm_to_w(dbm: f64) -> f64 {
    10f64.powf((dbm - 30.0) / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PL: PathLoss =
        PathLoss { at_1km_db: 128.1, db_per_decade: 35.0, min_distance: 10.0, min_loss_db: f64::NEG_INFINITY };

    #[test]
    fn path_loss_is_128_1_db_at_1_km_and_35_db_per_decade() {
        assert!((db(PL.gain(1000.0, 0.0)) + 128.1).abs() < 1e-9);
        assert!((db(PL.gain(100.0, 0.0)) + 93.1).abs() < 1e-9);
        // 500 m: 128.1 + 35·log10(0.5) = 117.564 dB; 6 dB of shadowing gains 6 dB.
        assert!((db(PL.gain(500.0, 6.0)) + 117.564 - 6.0).abs() < 1e-3);
        assert_eq!(PL.gain(1.0, 0.0), PL.gain(10.0, 0.0), "closer than 10 m counts as 10 m");
    }

    #[test]
    fn sir_of_a_two_cell_layout_by_hand() {
        let i = Interference { orthogonality_loss: 0.4, self_interference: 0.1, noise_w: dbm_to_w(-100.0) };
        assert!((i.noise_w - 1e-13).abs() < 1e-25);
        // A user 500 m from its base station and 1000 m from the other, no shadowing, both
        // cells sending 10 W, the user given all 10 W:
        //   g_s = 10^-11.7564 = 1.7523e-12, g_o = 10^-12.81 = 1.5488e-13;
        //   S = 1.7523e-11 W; own = 0.1·S = 1.7523e-12; other = 1.5488e-12; N = 1e-13
        //   SIR = 1.7523e-11 / 3.4011e-12 = 5.1521 = 7.12 dB.
        let (gs, go) = (PL.gain(500.0, 0.0), PL.gain(1000.0, 0.0));
        let sir = i.sir(10.0, 10.0, gs, 10.0 * go);
        assert!((sir - 5.1521).abs() < 1e-3, "{sir}");
        // The other cell silent: S / (0.1 S + N) = 1.7523e-11 / 1.8523e-12 = 9.460 (9.76 dB).
        assert!((i.sir(10.0, 10.0, gs, 0.0) - 9.460).abs() < 1e-3);
        // Half the power to this user: own-cell 0.4·5 W·g_s + 0.1·5 W·g_s = 0.5·S' with S' = 5 W·g_s:
        //   8.7614e-12 / (4.3807e-12 + 1.5488e-12 + 1e-13) = 1.4531.
        assert!((i.sir(5.0, 10.0, gs, 10.0 * go) - 1.4531).abs() < 1e-3);
    }
}
