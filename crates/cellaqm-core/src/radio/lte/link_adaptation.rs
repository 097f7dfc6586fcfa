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
//! SINR_MIN = −10 dB, Thr_MAX = 2.0 bit/s/Hz (16QAM at the highest code rate).

/// α of the uplink (TR 36.942 Table A.2-1).
pub const ALPHA: f64 = 0.4;
/// SINR_MIN of the uplink, dB.
pub const SINR_MIN_DB: f64 = -10.0;
/// Thr_MAX of the uplink, bit/s/Hz.
pub const THR_MAX: f64 = 2.0;

/// The spectral efficiency at `sinr_db`, bit/s/Hz.
pub fn efficiency(sinr_db: f64) -> f64 {
    if sinr_db < SINR_MIN_DB {
        return 0.0;
    }
    (ALPHA * (1.0 + 10f64.powf(sinr_db / 10.0)).log2()).min(THR_MAX)
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
}
