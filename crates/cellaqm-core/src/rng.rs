//! Seeded random-number streams, one per component.
//!
//! Each component (a link's loss process, each user of a traffic source, a
//! queue discipline) draws from its own stream, derived from the run seed and
//! the component's name (`traffic::Streams` names the traffic streams). Adding draws in one component therefore never shifts the
//! draws of another, and the same seed gives bit-identical runs.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The generator type every component uses.
pub type Rng = Pcg64Mcg;

/// SplitMix64 finaliser: a well-mixed 64-bit function of a 64-bit input.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of component `name` for run seed `seed`.
///
/// ```
/// use cellaqm_core::rng::stream;
/// use rand::Rng;
/// let a: u64 = stream(1, "bottleneck.loss").random();
/// let b: u64 = stream(1, "bottleneck.loss").random();
/// let c: u64 = stream(1, "traffic").random();
/// assert_eq!(a, b);
/// assert_ne!(a, c);
/// ```
pub fn stream(seed: u64, name: &str) -> Rng {
    // FNV-1a over the name, then mixed with the seed: stable across platforms
    // and Rust versions (unlike std's hasher).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    let s1 = splitmix64(seed ^ h);
    let s2 = splitmix64(s1 ^ seed.rotate_left(32));
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&s1.to_le_bytes());
    bytes[8..].copy_from_slice(&s2.to_le_bytes());
    Rng::from_seed(bytes)
}
