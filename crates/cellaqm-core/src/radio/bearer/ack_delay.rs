//! ACK delay control on the uplink (J. J. Alcaraz, F. Cerdán, J. García-Haro,
//! "Optimizing TCP and RLC interaction in the UMTS radio access network",
//! IEEE Communications Magazine: its buffer management added to RLC).
//!
//! The study: "when the downlink RLC buffer exceeds min_th, the next uplink
//! TCP ACK is delayed by min_d; while occupancy keeps growing the delay rises
//! linearly up to max_d"; a fixed-delay variant also exists. Exact rule used
//! here, with `n` the forward buffer occupancy (SDUs/packets) when an uplink
//! ACK is handed over, `n_prev` the occupancy at the previous ACK and `C` the
//! forward buffer's capacity in packets:
//! ```text
//! n <= min_th                      → 0
//! fixed variant, n > min_th        → min_d
//! variable, n > min_th, n > n_prev → min(max_d, min_d + (max_d − min_d)·(n − min_th)/(C − min_th))
//! variable, n > min_th, otherwise  → min_d
//! linear, n > min_th               → min(max_d, min_d + (max_d − min_d)·(n − min_th)/(C − min_th))
//! ```
//! so while the buffer keeps filling the delay grows linearly with the
//! occupancy and reaches max_d when the buffer is full. `linear` is our
//! reading of the study's "augmented linearly" (the delay a function of the
//! occupancy alone, growing or not), and the slopes our choice. ACKs keep their order:
//! an ACK never leaves before the one handed over before it.

use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

/// Which variant of ACK delay control.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AckDelayMode {
    /// min_d above min_th, rising linearly while the buffer grows (the study's proposal).
    #[default]
    Variable,
    /// min_d whenever the occupancy exceeds min_th.
    Fixed,
    /// min_d at min_th rising linearly with the occupancy to max_d at the capacity, growing or not.
    Linear,
}

/// `{ mode = "variable", min_th = 20, min_d = "20ms", max_d = "200ms" }`
/// (defaults: the study's 40–50 SDU buffer column).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AckDelayParams {
    pub mode: AckDelayMode,
    /// Occupancy threshold of the forward buffer, packets (SDUs): 20.
    pub min_th: u32,
    /// Delay once above `min_th`: 20 ms.
    pub min_d: Dur,
    /// Largest delay (variable variant): 200 ms.
    pub max_d: Dur,
}

impl Default for AckDelayParams {
    fn default() -> AckDelayParams {
        AckDelayParams {
            mode: AckDelayMode::Variable,
            min_th: 20,
            min_d: Dur::from_millis(20),
            max_d: Dur::from_millis(200),
        }
    }
}

impl AckDelayParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.min_d > self.max_d {
            return Err(format!("{key}.max_d: must be at least min_d ({})", self.min_d));
        }
        Ok(())
    }
}

/// The ACK delay controller of one reverse path.
#[derive(Clone, Debug)]
pub struct AckDelay {
    params: AckDelayParams,
    capacity: u32,
    prev_occupancy: u32,
    last_release: Time,
}

impl AckDelay {
    /// A controller for a forward buffer holding up to `capacity` packets.
    pub fn new(params: &AckDelayParams, capacity: u32) -> AckDelay {
        AckDelay { params: params.clone(), capacity, prev_occupancy: 0, last_release: Time::ZERO }
    }

    /// The delay for an ACK handed over with forward occupancy `occupancy`
    /// (packets); records the occupancy for the next ACK.
    pub fn delay(&mut self, occupancy: u32) -> Dur {
        let p = &self.params;
        let growing = occupancy > self.prev_occupancy;
        self.prev_occupancy = occupancy;
        if occupancy <= p.min_th {
            return Dur::ZERO;
        }
        if p.mode == AckDelayMode::Fixed || (p.mode == AckDelayMode::Variable && !growing) {
            return p.min_d;
        }
        let span = self.capacity.saturating_sub(p.min_th).max(1) as f64;
        let frac = ((occupancy - p.min_th) as f64 / span).min(1.0);
        p.min_d + Dur(((p.max_d - p.min_d).0 as f64 * frac).round() as u64)
    }

    /// When an ACK handed over at `now` with forward occupancy `occupancy` may
    /// leave: `now + delay`, but not before the previous ACK's release.
    pub fn release_at(&mut self, now: Time, occupancy: u32) -> Time {
        let at = (now + self.delay(occupancy)).max(self.last_release);
        self.last_release = at;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn variable_rule() {
        // Buffer of 50 SDUs, min_th 20, min_d 20 ms, max_d 200 ms: the linear
        // part spans 30 packets, 6 ms per packet above min_th.
        let mut a = AckDelay::new(&AckDelayParams::default(), 50);
        assert_eq!(a.delay(10), Dur::ZERO); // below min_th
        assert_eq!(a.delay(20), Dur::ZERO); // at min_th: not above
        assert_eq!(a.delay(25), Dur::from_millis(20 + 5 * 6)); // growing: 50 ms
        assert_eq!(a.delay(35), Dur::from_millis(20 + 15 * 6)); // still growing: 110 ms
        assert_eq!(a.delay(35), Dur::from_millis(20)); // not growing: min_d
        assert_eq!(a.delay(30), Dur::from_millis(20)); // falling: min_d
        assert_eq!(a.delay(50), Dur::from_millis(200)); // growing to full: max_d
        assert_eq!(a.delay(60), Dur::from_millis(200)); // beyond capacity: capped
        assert_eq!(a.delay(5), Dur::ZERO);
    }

    /// The linear reading: min_d just above min_th, +6 ms per SDU up to max_d,
    /// whether the occupancy rises or falls.
    #[test]
    fn linear_rule_grows_with_occupancy_between_the_thresholds() {
        let params = AckDelayParams { mode: AckDelayMode::Linear, ..AckDelayParams::default() };
        let mut a = AckDelay::new(&params, 50);
        assert_eq!(a.delay(20), Dur::ZERO);
        for n in [21u32, 35, 30, 22, 49, 50] {
            assert_eq!(a.delay(n), Dur::from_millis(20 + (n as u64 - 20) * 6), "occupancy {n}");
        }
        assert_eq!(a.delay(70), Dur::from_millis(200));
    }

    #[test]
    fn fixed_rule() {
        let params = AckDelayParams {
            mode: AckDelayMode::Fixed,
            min_th: 0,
            min_d: Dur::from_millis(30),
            ..AckDelayParams::default()
        };
        let mut a = AckDelay::new(&params, 15);
        assert_eq!(a.delay(0), Dur::ZERO);
        assert_eq!(a.delay(1), Dur::from_millis(30));
        assert_eq!(a.delay(14), Dur::from_millis(30));
    }

    #[test]
    fn releases_keep_ack_order() {
        let mut a = AckDelay::new(&AckDelayParams::default(), 50);
        // Growing to 50: released 200 ms later; the next ACK 1 ms later with a
        // 20 ms delay would overtake it, so it leaves at the same time.
        assert_eq!(a.release_at(Time(0), 50), Time(200_000_000));
        assert_eq!(a.release_at(Time(1_000_000), 50), Time(200_000_000));
        assert_eq!(a.release_at(Time(300_000_000), 0), Time(300_000_000));
    }

    proptest::proptest! {
        /// Under random handovers (occupancy, gap) and parameters: ACKs leave in
        /// the order they came, none before its handover or more than max_d
        /// after it; one not held behind an earlier ACK leaves after exactly
        /// its rule delay, which is 0 at or below min_th and else in [min_d, max_d].
        #[test]
        fn releases_keep_order_and_bounds(
            mode in 0..3u8,
            min_th in 0..40u32,
            (min_d, max_d) in (0..300u64, 0..300u64).prop_map(|(a, b)| (a.min(b), a.max(b))),
            capacity in 1..60u32,
            acks in proptest::collection::vec((0..80u32, 0..50_000u64), 0..300),
        ) {
            let mode = [AckDelayMode::Fixed, AckDelayMode::Variable, AckDelayMode::Linear][mode as usize];
            let params = AckDelayParams { mode, min_th, min_d: Dur::from_millis(min_d), max_d: Dur::from_millis(max_d) };
            let (mut rule, mut control) = (AckDelay::new(&params, capacity), AckDelay::new(&params, capacity));
            let (mut now, mut last) = (Time::ZERO, Time::ZERO);
            for (occupancy, gap_us) in acks {
                now += Dur::from_micros(gap_us);
                let delay = rule.delay(occupancy);
                let at = control.release_at(now, occupancy);
                proptest::prop_assert!(at >= last && at >= now && at <= now + params.max_d);
                proptest::prop_assert!(at == now + delay || at == last);
                if occupancy <= min_th {
                    proptest::prop_assert_eq!(delay, Dur::ZERO);
                } else {
                    proptest::prop_assert!(params.min_d <= delay && delay <= params.max_d);
                }
                last = at;
            }
        }
    }

    #[test]
    fn validation_names_the_key() {
        let p = AckDelayParams { min_d: Dur::from_millis(300), ..AckDelayParams::default() };
        assert_eq!(
            p.validate("reverse.ack_delay").unwrap_err(),
            "reverse.ack_delay.max_d: must be at least min_d (300ms)"
        );
    }
}
