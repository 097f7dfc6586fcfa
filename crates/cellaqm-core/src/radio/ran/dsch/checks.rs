//! The availability checks of the DSCH study's resource manager, each on
//! the links a cell would carry in the frame (its conversational DCH users
//! and the interactive transmissions admitted so far, plus the candidate):
//!
//! - codes: Kraft's inequality over the DSCH sub-tree, Σ 1/SF_i ≤ 1/4, and
//!   (our reading, *choice*) at most 16 simultaneous DSCH users;
//! - load: η = Σ_i [(1 − α) + f_DL] / [SF_i · (Eb/N0)_i⁻¹ + (1 − α)] ≤ φ;
//! - power: P_T = P_N / (1 − η) · Σ_i L_i / [SF_i · (Eb/N0)_i⁻¹ + (1 − α)] ≤ δ · P_max,
//!   with L_i the path loss (linear, ≥ 1) from the base station to user i.
//!
//! α = 0.4 (orthogonality) and f_DL = 0.6 (other-to-own-cell interference)
//! are the paper's.

/// Orthogonality factor α (the paper).
pub const ALPHA: f64 = 0.4;
/// Other-to-own-cell interference f_DL (the paper).
pub const F_DL: f64 = 0.6;
/// The DSCH's share of the code tree (the paper: one quarter).
pub const DSCH_CODES: f64 = 0.25;
/// Most simultaneous DSCH users (our reading, *choice*).
pub const MAX_DSCH_USERS: usize = 16;

/// One downlink a cell carries in a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub sf: u32,
    /// The Eb/N0 target, linear.
    pub eb_n0: f64,
    /// Path loss to the user, linear (≥ 1).
    pub loss: f64,
}

impl Link {
    /// SF · (Eb/N0)⁻¹ + (1 − α): the denominator both sums share.
    fn denominator(&self) -> f64 {
        self.sf as f64 / self.eb_n0 + (1.0 - ALPHA)
    }
}

/// The DSCH codes in use in a cell: how many users, and Σ 1/SF.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Codes {
    pub users: usize,
    pub share: f64,
}

impl Codes {
    /// With a code of spreading factor `sf` more.
    pub fn with(self, sf: u32) -> Codes {
        Codes { users: self.users + 1, share: self.share + 1.0 / sf as f64 }
    }

    /// Whether they fit the DSCH sub-tree (Kraft) and the user cap.
    pub fn fit(&self) -> bool {
        self.users <= MAX_DSCH_USERS && self.share <= DSCH_CODES + 1e-12
    }
}

/// Whether DSCH codes of spreading factors `sfs` fit the DSCH sub-tree.
pub fn codes_fit(sfs: impl IntoIterator<Item = u32>) -> bool {
    sfs.into_iter().fold(Codes::default(), Codes::with).fit()
}

/// The two sums of η and P_T over a cell's links, kept as links are added
/// (so that each availability check costs O(1)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Load {
    /// η = Σ [(1 − α) + f_DL] / denominator.
    pub eta: f64,
    /// Σ L / denominator.
    loss: f64,
}

impl Load {
    /// With `l` more.
    pub fn with(self, l: &Link) -> Load {
        let d = l.denominator();
        Load { eta: self.eta + ((1.0 - ALPHA) + F_DL) / d, loss: self.loss + l.loss / d }
    }

    /// P_T with noise `noise_w`, W (infinite when η ≥ 1: no power serves the links).
    pub fn power(&self, noise_w: f64) -> f64 {
        if self.eta >= 1.0 {
            return f64::INFINITY;
        }
        noise_w / (1.0 - self.eta) * self.loss
    }
}

/// The sums of `links`.
pub fn load(links: &[Link]) -> Load {
    links.iter().fold(Load::default(), Load::with)
}

/// The load factor η of `links`.
pub fn load_factor(links: &[Link]) -> f64 {
    load(links).eta
}

/// The transmit power P_T the cell needs for `links` with noise `noise_w`, W
/// (infinite when η ≥ 1: no power serves them).
pub fn transmit_power(links: &[Link], noise_w: f64) -> f64 {
    load(links).power(noise_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn kraft_over_a_quarter_of_the_tree() {
        // 2 users at SF 8: 1/8 + 1/8 = 1/4 fits; a third code does not.
        assert!(codes_fit([8, 8]));
        assert!(!codes_fit([8, 8, 128]));
        // 16 users at SF 128: 16/128 = 1/8 fits; the 17th is refused by the cap, not by Kraft.
        assert!(codes_fit([128; 16]));
        assert!(!codes_fit([128; 17]));
        // SF 16 + 2 × SF 32 + 4 × SF 128 = 1/16 + 1/16 + 1/32 = 0.156 fits.
        assert!(codes_fit([16, 32, 32, 128, 128, 128, 128]));
    }

    /// One conversational link (SF 32, 5 dB) and one interactive (SF 8, 3 dB):
    /// denominators 32/3.162 + 0.6 = 10.719 and 8/1.995 + 0.6 = 4.610; each
    /// numerator (1 − 0.4) + 0.6 = 1.2; η = 1.2/10.719 + 1.2/4.610 = 0.1119 + 0.2603 = 0.3723.
    #[test]
    fn load_factor_and_power_hand_computed() {
        let conv = Link { sf: 32, eb_n0: db(5.0), loss: db(120.0) };
        let web = Link { sf: 8, eb_n0: db(3.0), loss: db(110.0) };
        let eta = load_factor(&[conv, web]);
        assert!((eta - 0.3723).abs() < 1e-4, "{eta}");
        // P_T = P_N/(1 − η) · (L1/10.719 + L2/4.610), P_N = −99 dBm = 1.259e-13 W:
        // 1.259e-13/0.6277 · (1e12/10.719 + 1e11/4.610) = 2.0055e-13 · 1.1498e11 = 0.02306 W.
        let p = transmit_power(&[conv, web], 1e-3 * db(-99.0));
        assert!((p - 0.02306).abs() < 2e-5, "{p}");
        // η ≥ 1: no power suffices.
        let many = vec![web; 5];
        assert!(load_factor(&many) > 1.0 && transmit_power(&many, 1e-13).is_infinite());
    }
}
