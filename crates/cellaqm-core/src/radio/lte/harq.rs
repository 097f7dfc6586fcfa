//! Uplink HARQ of one UE: synchronous, non-adaptive retransmission of a
//! transport block that the eNodeB failed to decode (TS 36.321 §5.4.2; LTE
//! FDD: 8 processes, a retransmission 8 TTIs after the previous
//! transmission, TS 36.213 §8).
//!
//! Each transmission of a block fails independently with the block error
//! probability `bler` (lte-uplink-raqm.md: 0, 10, 30, 50 % in §7.1). After
//! `max_tx` transmissions (TS 36.331 maxHARQ-Tx; the spec's choice: 4) a
//! block still in error is given up, and RLC AM recovers its data. The eNodeB
//! learns each outcome when it decodes, at the end of the transmission's TTI
//! (*our choice*: no extra decoding delay), so a retransmission is known
//! before the grants of its TTI are made (they are made `grant_delay` ≤ 8
//! TTIs ahead). All draws of a block are made at its first transmission, in
//! TTI order, from the UE's own stream: the same seed gives the same errors.

use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// `[radio.lte.harq]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HarqConfig {
    /// Time from a transmission to its retransmission (LTE FDD: 8 ms; the spec's choice).
    pub rtt: Dur,
    /// Probability that one transmission of a block is not decoded (0 ≤ bler < 1).
    pub bler: f64,
    /// Transmissions of a block before it is given up (maxHARQ-Tx; the spec's choice: 4).
    pub max_tx: u32,
}

impl Default for HarqConfig {
    fn default() -> HarqConfig {
        HarqConfig { rtt: Dur::from_millis(8), bler: 0.0, max_tx: 4 }
    }
}

impl HarqConfig {
    /// Checks ranges; `key` names the section.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.bler) {
            return Err(format!("{key}.bler: must be in [0, 1), got {}", self.bler));
        }
        if self.max_tx == 0 {
            return Err(format!("{key}.max_tx: must be at least 1"));
        }
        if self.rtt == Dur::ZERO {
            return Err(format!("{key}.rtt: must be positive"));
        }
        Ok(())
    }
}

/// What became of a transport block first sent at `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Transmissions made (1 = decoded at once).
    pub transmissions: u32,
    /// Whether the last one was decoded (else the block was given up).
    pub decoded: bool,
}

impl Outcome {
    /// The start of transmission `k` (0-based) of a block first sent at `first`.
    pub fn tx_at(first: Time, k: u32, rtt: Dur) -> Time {
        first + rtt * k as u64
    }

    /// When the eNodeB has the block (decoded) or gives it up: the end of the
    /// last transmission's TTI.
    pub fn done_at(self, first: Time, rtt: Dur, tti: Dur) -> Time {
        Outcome::tx_at(first, self.transmissions - 1, rtt) + tti
    }
}

/// Counters of a UE's HARQ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HarqStats {
    pub blocks: u64,
    pub retransmissions: u64,
    /// Blocks given up after `max_tx` transmissions.
    pub failed: u64,
}

/// One UE's HARQ entity.
pub struct Harq {
    cfg: HarqConfig,
    rng: Rng,
    stats: HarqStats,
}

impl Harq {
    pub fn new(cfg: &HarqConfig, rng: Rng) -> Harq {
        Harq { cfg: cfg.clone(), rng, stats: HarqStats::default() }
    }

    pub fn rtt(&self) -> Dur {
        self.cfg.rtt
    }

    /// A new block: draws the outcome of each of its transmissions.
    pub fn send(&mut self) -> Outcome {
        let mut transmissions = 0;
        let mut decoded = false;
        while transmissions < self.cfg.max_tx && !decoded {
            transmissions += 1;
            // No draw at bler 0: the stream is untouched by error-free runs.
            decoded = self.cfg.bler == 0.0 || self.rng.random::<f64>() >= self.cfg.bler;
        }
        self.stats.blocks += 1;
        self.stats.retransmissions += transmissions as u64 - 1;
        self.stats.failed += (!decoded) as u64;
        Outcome { transmissions, decoded }
    }

    pub fn stats(&self) -> HarqStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    const TTI: Dur = Dur::from_millis(1);

    #[test]
    fn retransmissions_come_every_rtt_and_the_block_is_done_at_the_end_of_the_last() {
        let first = Time::ZERO + Dur::from_millis(12);
        let rtt = Dur::from_millis(8);
        // Decoded on the third transmission: sent at 12, 20 and 28 ms; the eNodeB has it at 29 ms.
        let o = Outcome { transmissions: 3, decoded: true };
        assert_eq!([0, 1, 2].map(|k| Outcome::tx_at(first, k, rtt).0 / 1_000_000), [12, 20, 28]);
        assert_eq!(o.done_at(first, rtt, TTI), Time::ZERO + Dur::from_millis(29));
        // At once: 13 ms.
        assert_eq!(Outcome { transmissions: 1, decoded: true }.done_at(first, rtt, TTI).0, 13_000_000);
    }

    #[test]
    fn error_free_blocks_need_one_transmission() {
        let mut h = Harq::new(&HarqConfig::default(), stream(1, "h"));
        for _ in 0..100 {
            assert_eq!(h.send(), Outcome { transmissions: 1, decoded: true });
        }
        assert_eq!(h.stats(), HarqStats { blocks: 100, retransmissions: 0, failed: 0 });
    }

    /// At bler p and 4 transmissions: P(k transmissions) = p^(k−1)(1−p) for k ≤ 4,
    /// and a block fails with p^4. At p = 0.5: 1/2, 1/4, 1/8, 1/16 decoded; 1/16 fails;
    /// mean transmissions 1 + p + p² + p³ = 1.875.
    #[test]
    fn transmissions_follow_the_geometric_law_up_to_max_tx() {
        let cfg = HarqConfig { bler: 0.5, ..HarqConfig::default() };
        let mut h = Harq::new(&cfg, stream(7, "h"));
        let n = 200_000;
        let mut count = [0u32; 5];
        for _ in 0..n {
            let o = h.send();
            count[if o.decoded { o.transmissions as usize - 1 } else { 4 }] += 1;
        }
        let want = [0.5, 0.25, 0.125, 0.0625, 0.0625];
        for (c, w) in count.iter().zip(want) {
            assert!((*c as f64 / n as f64 - w).abs() < 0.004, "{count:?}");
        }
        let s = h.stats();
        let mean = (s.blocks + s.retransmissions) as f64 / s.blocks as f64;
        assert!((mean - 1.875).abs() < 0.01, "{mean}");
        assert_eq!(s.failed, count[4] as u64);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = HarqConfig { bler: 1.0, ..HarqConfig::default() };
        assert_eq!(bad.validate("radio.lte.harq").unwrap_err(), "radio.lte.harq.bler: must be in [0, 1), got 1");
        let bad = HarqConfig { max_tx: 0, ..HarqConfig::default() };
        assert_eq!(bad.validate("radio.lte.harq").unwrap_err(), "radio.lte.harq.max_tx: must be at least 1");
    }
}
