//! Link adaptation of the HS-DSCH study (hsdsch-buffer-mgmt.md): the
//! highest transport format whose SIR threshold the user's SIR reaches.
//!
//! | coding | modulation | SIR (dB) | rate (Mb/s) | block (B / 2 ms) |
//! |---|---|---|---|---|
//! | 1/4 | QPSK | −3.5 | 1.44 | 360 |
//! | 1/2 | QPSK | 0 | 2.88 | 720 |
//! | 3/8 | 16QAM | 3.5 | 4.32 | 1080 |
//! | 5/8 | 16QAM | 7.5 | 7.20 | 1800 |
//!
//! Rates (derived): 12 codes × 240 ksym/s × bits/symbol × code rate; block =
//! rate × 2 ms. Below −3.5 dB the user is not schedulable (our choice).

/// One transport format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mcs {
    /// Its index in the table (0: QPSK 1/4).
    pub index: usize,
    pub sir_db: f64,
    pub rate_bps: f64,
    /// The radio block of one TTI at full codes and power, bytes.
    pub block_bytes: u32,
}

/// Symbols per second of one spreading-factor-16 code (3.84 Mchip/s / 16).
const SYMBOLS_PER_CODE: f64 = 240e3;

/// Modulation bits per symbol, code rate and SIR threshold (dB) of each format.
const FORMATS: [(f64, f64, f64); 4] = [(2.0, 0.25, -3.5), (2.0, 0.5, 0.0), (4.0, 0.375, 3.5), (4.0, 0.625, 7.5)];

/// The table for `codes` codes and a TTI of `tti_s` s.
pub fn table(codes: u32, tti_s: f64) -> Vec<Mcs> {
    FORMATS
        .iter()
        .enumerate()
        .map(|(index, &(bits, rate, sir_db))| {
            let rate_bps = codes as f64 * SYMBOLS_PER_CODE * bits * rate;
            Mcs { index, sir_db, rate_bps, block_bytes: (rate_bps * tti_s / 8.0).round() as u32 }
        })
        .collect()
}

/// The highest format of `table` whose threshold is at most `sir_db`; `None` below the lowest.
pub fn select(table: &[Mcs], sir_db: f64) -> Option<&Mcs> {
    table.iter().rev().find(|m| m.sir_db <= sir_db)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_codes_give_the_studys_rates_and_blocks() {
        let t = table(12, 0.002);
        let got: Vec<_> = t.iter().map(|m| (m.rate_bps, m.block_bytes)).collect();
        assert_eq!(got, [(1.44e6, 360), (2.88e6, 720), (4.32e6, 1080), (7.2e6, 1800)]);
    }

    #[test]
    fn the_highest_format_at_or_below_the_sir() {
        let t = table(12, 0.002);
        let pick = |s: f64| select(&t, s).map(|m| m.index);
        assert_eq!(pick(-3.51), None);
        assert_eq!(pick(-3.5), Some(0));
        assert_eq!(pick(-0.01), Some(0));
        assert_eq!(pick(0.0), Some(1));
        assert_eq!(pick(3.49), Some(1));
        assert_eq!(pick(3.5), Some(2));
        assert_eq!(pick(7.49), Some(2));
        assert_eq!(pick(7.5), Some(3));
        assert_eq!(pick(30.0), Some(3));
    }
}
