//! The DSCH transport formats of the DSCH study (Ferrús et al.): 336-bit transport blocks
//! (320 bits of payload) in a 20 ms TTI; TF0 sends nothing, TF1–TF6 send 1,
//! 2, 4, 8, 12 or 16 blocks (16 … 256 kb/s) at spreading factor 128, 64, 32,
//! 16, 8, 8.

use crate::time::Dur;

/// Payload bits of a transport block.
pub const PAYLOAD_BITS: u32 = 320;
/// The radio frame (a TTI is two).
pub const FRAME: Dur = Dur(10_000_000);
/// Bits of a transport block on the air.
pub const BLOCK_BITS: u32 = 336;

/// A DSCH transport format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tf(u8);

/// (blocks, spreading factor) of TF0 … TF6.
const TABLE: [(u32, u32); 7] = [(0, 0), (1, 128), (2, 64), (4, 32), (8, 16), (12, 8), (16, 8)];

impl Tf {
    pub const NONE: Tf = Tf(0);
    pub const MAX: Tf = Tf(6);

    /// TF `k` (0–6).
    pub fn new(k: u8) -> Tf {
        assert!(k <= 6, "TF0 … TF6");
        Tf(k)
    }

    pub fn index(self) -> u8 {
        self.0
    }

    /// Transport blocks per TTI.
    pub fn blocks(self) -> u32 {
        TABLE[self.0 as usize].0
    }

    /// Payload bits per 20 ms TTI.
    pub fn payload_bits(self) -> u32 {
        self.blocks() * PAYLOAD_BITS
    }

    /// The payload rate, b/s (16 000 per block).
    pub fn rate_bps(self) -> f64 {
        self.payload_bits() as f64 / 0.020
    }

    /// The spreading factor (none for TF0).
    pub fn sf(self) -> Option<u32> {
        (self.0 > 0).then(|| TABLE[self.0 as usize].1)
    }

    /// The lowest format whose payload carries `bits` in a TTI, at most TF6.
    pub fn for_bits(bits: u64) -> Tf {
        (0..=6).map(Tf).find(|tf| tf.payload_bits() as u64 >= bits).unwrap_or(Tf::MAX)
    }

    /// The format at twice the spreading factor (half the rate, or less:
    /// TF6 and TF5 both go to TF4), or none below TF1.
    pub fn halved(self) -> Option<Tf> {
        match self.0 {
            0 | 1 => None,
            5 | 6 => Some(Tf(4)),
            k => Some(Tf(k - 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_s_table() {
        let rates: Vec<f64> = (0..=6).map(|k| Tf::new(k).rate_bps() / 1e3).collect();
        assert_eq!(rates, [0.0, 16.0, 32.0, 64.0, 128.0, 192.0, 256.0]);
        let sfs: Vec<Option<u32>> = (0..=6).map(|k| Tf::new(k).sf()).collect();
        assert_eq!(sfs, [None, Some(128), Some(64), Some(32), Some(16), Some(8), Some(8)]);
    }

    #[test]
    fn lowest_format_that_carries_the_bits_and_halving() {
        assert_eq!(Tf::for_bits(0), Tf::NONE);
        assert_eq!(Tf::for_bits(1), Tf::new(1));
        assert_eq!(Tf::for_bits(320), Tf::new(1));
        assert_eq!(Tf::for_bits(321), Tf::new(2));
        assert_eq!(Tf::for_bits(1280), Tf::new(3));
        assert_eq!(Tf::for_bits(2561), Tf::new(5));
        assert_eq!(Tf::for_bits(100_000), Tf::MAX);
        let chain: Vec<u8> = std::iter::successors(Some(Tf::MAX), |t| t.halved()).map(Tf::index).collect();
        assert_eq!(chain, [6, 4, 3, 2, 1]);
        assert_eq!(Tf::new(5).halved(), Some(Tf::new(4)));
    }
}
