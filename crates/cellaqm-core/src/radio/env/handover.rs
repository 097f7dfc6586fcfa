//! Which cell serves a user, and when it hands over.
//!
//! - [`best_cell`], the DSCH study (Ferrús et al.): every 100 ms a user moves
//!   to the best cell (the strongest pilot: every cell's pilot has the same
//!   power, so the best cell has the highest path gain) if it beats the
//!   serving cell by the hysteresis (the paper: 1 dB).
//! - [`serving`], the HS-DSCH system: at each channel step the user is
//!   served by the nearest base station (the HS-DSCH study) or the one with
//!   the highest path gain, shadowing included (`attach = "strongest"`, 3GPP
//!   system simulations' rule), without hysteresis.

use super::layout::{Layout, Point};
use serde::{Deserialize, Serialize};

/// `attach` in `[radio.cells]`: which base station serves a user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Attach {
    /// The nearest (wrap-around distance; the study).
    #[default]
    Nearest,
    /// The one with the highest path gain, shadowing included (3GPP system simulations' rule).
    Strongest,
}

/// The cell that serves a user at `position` with path `gains` under `attach`
/// (the lowest index among equals).
pub fn serving(attach: Attach, layout: &Layout, position: Point, gains: &[f64]) -> usize {
    match attach {
        Attach::Nearest => layout.nearest(position),
        Attach::Strongest => best_cell(gains, 0, 1.0),
    }
}

/// The cell to serve a user with path `gains` (linear) now served by
/// `serving`, with `hysteresis` (linear ratio, 1 dB = 1.259).
pub fn best_cell(gains: &[f64], serving: usize, hysteresis: f64) -> usize {
    let mut best = serving;
    for (c, &g) in gains.iter().enumerate() {
        if g > gains[best] {
            best = c;
        }
    }
    if gains[best] > gains[serving] * hysteresis {
        best
    } else {
        serving
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user walking from cell 0 towards cell 1: the gain difference (dB)
    /// goes 3, 1, 0, −0.5, −1.2, −0.8, −3; with 1 dB hysteresis it hands
    /// over only when cell 1 is more than 1 dB better (at −1.2), and does not
    /// come back at −0.8 (cell 0 is then 0.8 dB worse, not 1 dB better).
    #[test]
    fn hysteresis_scripted() {
        let h = 10f64.powf(0.1);
        let mut serving = 0;
        let mut path = Vec::new();
        for diff_db in [3.0, 1.0, 0.0, -0.5, -1.2, -0.8, -0.5, 0.5, 1.1, -3.0] {
            let gains = [10f64.powf(diff_db / 10.0) * 1e-12, 1e-12, 1e-15];
            serving = best_cell(&gains, serving, h);
            path.push(serving);
        }
        assert_eq!(path, [0, 0, 0, 0, 1, 1, 1, 1, 0, 1]);
        // Without hysteresis every sign change hands over.
        let plain: Vec<usize> = [1.0, -0.1, 0.1]
            .iter()
            .scan(0, |s, d: &f64| {
                *s = best_cell(&[10f64.powf(d / 10.0), 1.0], *s, 1.0);
                Some(*s)
            })
            .collect();
        assert_eq!(plain, [0, 1, 0]);
    }
}
