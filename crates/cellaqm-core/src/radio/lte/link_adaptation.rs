//! Link adaptation: the spectral efficiency a transport block gets at a
//! signal-to-interference-and-noise ratio.
//!
//! 3GPP TR 36.942 Annex A.1/A.2 models LTE's adaptive modulation and coding
//! (the MCS and TBS tables of TS 36.213 with link adaptation to a 10% BLER
//! target) as an attenuated and truncated Shannon bound:
//!
//! ```text
//! Thr(SINR) = 0                     SINR < SINR_MIN
//!           = α · log2(1 + SINR)    SINR_MIN ≤ SINR and α·log2(1 + SINR) < Thr_MAX
//!           = Thr_MAX               above
//! ```
//!
//! in bit/s/Hz, with the uplink baseline of its Table A.2-1: α = 0.4,
//! SINR_MIN = −10 dB (0.1), Thr_MAX = 2.0 bit/s/Hz (16QAM at the highest code rate),
//! and the downlink baseline of its Annex A.1: α = 0.6, SINR_MIN = −10 dB,
//! Thr_MAX = 4.4 bit/s/Hz (64QAM at the highest code rate). One rule, two
//! parameter sets ([`Shannon`]: [`UPLINK`], [`DOWNLINK`]).

/// α of the uplink (TR 36.942 Table A.2-1).
pub const ALPHA: f64 = 0.4;
/// SINR_MIN of the uplink, −10 dB, linear.
pub const SINR_MIN: f64 = 0.1;
/// Thr_MAX of the uplink, bit/s/Hz.
pub const THR_MAX: f64 = 2.0;

/// The attenuated and truncated Shannon bound of one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shannon {
    /// α: the implementation losses.
    pub alpha: f64,
    /// SINR_MIN, linear: below it, nothing.
    pub sinr_min: f64,
    /// Thr_MAX, bit/s/Hz: the highest MCS.
    pub thr_max: f64,
}

/// The uplink baseline (TR 36.942 Table A.2-1).
pub const UPLINK: Shannon = Shannon { alpha: ALPHA, sinr_min: SINR_MIN, thr_max: THR_MAX };
/// The downlink baseline (TR 36.942 Annex A.1).
pub const DOWNLINK: Shannon = Shannon { alpha: 0.6, sinr_min: 0.1, thr_max: 4.4 };

impl Shannon {
    /// The spectral efficiency at `sinr_db`, bit/s/Hz.
    pub fn efficiency(&self, sinr_db: f64) -> f64 {
        self.efficiency_of_ratio(10f64.powf(sinr_db / 10.0))
    }

    /// The spectral efficiency at the linear SINR `sinr`, bit/s/Hz.
    pub fn efficiency_of_ratio(&self, sinr: f64) -> f64 {
        if sinr < self.sinr_min {
            return 0.0;
        }
        (self.alpha * (1.0 + sinr).log2()).min(self.thr_max)
    }

    /// The linear SINR from which the bound is Thr_MAX: 2^(Thr_MAX/α) − 1.
    pub fn sinr_at_cap(&self) -> f64 {
        2f64.powf(self.thr_max / self.alpha) - 1.0
    }
}

/// The uplink's spectral efficiency at `sinr_db`, bit/s/Hz.
pub fn efficiency(sinr_db: f64) -> f64 {
    UPLINK.efficiency(sinr_db)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attenuated_shannon_bound_at_hand_computed_points() {
        // Below −10 dB nothing; at −10 dB 0.4·log2(1.1) = 0.0550; at 0 dB 0.4·log2 2 = 0.4;
        // at 10 dB 0.4·log2 11 = 1.3838; the cap 2.0 from 0.4·log2(1 + x) = 2, x = 31 (14.91 dB).
        assert_eq!(efficiency(-10.01), 0.0);
        assert!((efficiency(-10.0) - 0.05500).abs() < 1e-5);
        assert!((efficiency(0.0) - 0.4).abs() < 1e-12);
        assert!((efficiency(10.0) - 1.38377).abs() < 1e-5);
        assert!((efficiency(14.9) - 1.99825).abs() < 1e-4);
        assert_eq!(efficiency(14.92), THR_MAX);
        assert_eq!(efficiency(40.0), THR_MAX);
    }

    #[test]
    fn the_downlink_baseline_at_hand_computed_points() {
        // 0 dB: 0.6·log2 2 = 0.6; 10 dB: 0.6·log2 11 = 2.07566; 22 dB: 0.6·log2 159.49 = 4.39039;
        // the cap 4.4 from log2(1 + x) = 7.333, x = 160.3 (22.05 dB); below −10 dB nothing.
        let e = |db| DOWNLINK.efficiency(db);
        assert_eq!(e(-10.01), 0.0);
        assert!((e(0.0) - 0.6).abs() < 1e-12);
        assert!((e(10.0) - 2.07565).abs() < 1e-5);
        assert!((e(22.0) - 4.39039).abs() < 1e-5);
        assert_eq!(e(22.1), 4.4);
    }

    /// SINR_MIN is −10 dB in both directions.
    #[test]
    fn the_threshold_is_minus_ten_db() {
        assert_eq!([UPLINK.sinr_min, DOWNLINK.sinr_min], [10f64.powf(-1.0); 2]);
        assert!(DOWNLINK.efficiency_of_ratio(0.0999) == 0.0 && DOWNLINK.efficiency_of_ratio(0.1) > 0.0);
    }

    /// The cap starts at 2^(4.4/0.6) − 1 = 160.27 (22.05 dB) on the downlink, 31 on the uplink.
    #[test]
    fn the_cap_starts_where_the_bound_reaches_thr_max() {
        assert!((DOWNLINK.sinr_at_cap() - 160.27).abs() < 0.01 && (UPLINK.sinr_at_cap() - 31.0).abs() < 1e-9);
        for s in [UPLINK, DOWNLINK] {
            assert_eq!(s.efficiency_of_ratio(s.sinr_at_cap() * (1.0 + 1e-12)), s.thr_max);
            assert!(s.efficiency_of_ratio(s.sinr_at_cap() * (1.0 - 1e-9)) < s.thr_max);
        }
    }
}
