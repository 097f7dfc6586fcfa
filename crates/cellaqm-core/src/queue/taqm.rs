//! T-AQM, the delay-based transmitter AQM of Rathonyi & Nilsson, as used in
//! the LTE uplink study (Tan, MSc thesis, 2009).
//!
//! Rule, for each outgoing packet (`size` = packets queued, the outgoing one
//! included; `delay` = its time in the buffer):
//! ```text
//! if size <= lowerDropThreshold: transmit
//! else if (delay > minAgeThreshold and now - previousDropTime > minInterDropTime)
//!         or delay > maxAgeThreshold: discard (cause `age`); previousDropTime = now
//! else: transmit
//! ```
//! Before the first drop, `now - previousDropTime` counts as infinite.
//! Arrivals that do not fit the buffer limits are dropped at the tail, or
//! with `overflow = "front"` from the front ([`Overflow`]; the study does not
//! say, the tail is our choice).

use super::at_head::{AtHead, HeadRule, Overflow};
use super::{Backlog, DropCause};
use crate::packet::Packet;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

/// `{ scheme = "taqm", min_age = "0.2s", min_inter_drop = "0.6s", lower_drop_threshold = 5, max_age = "0.8s" }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TaqmParams {
    /// minAgeThreshold: a packet older than this may be dropped (0.2 s).
    pub min_age: Dur,
    /// minInterDropTime: least time between two minAge drops (0.6 s).
    pub min_inter_drop: Dur,
    /// lowerDropThreshold, in packets: never drop with this many or fewer queued (5).
    pub lower_drop_threshold: u32,
    /// maxAgeThreshold: a packet older than this is dropped regardless of
    /// minInterDropTime (0.8 s).
    pub max_age: Dur,
    /// A full buffer's fallback for an arrival: `"tail"` (default) or `"front"`.
    pub overflow: Overflow,
}

impl Default for TaqmParams {
    fn default() -> TaqmParams {
        TaqmParams {
            min_age: Dur::from_millis(200),
            min_inter_drop: Dur::from_millis(600),
            lower_drop_threshold: 5,
            max_age: Dur::from_millis(800),
            overflow: Overflow::Tail,
        }
    }
}

impl TaqmParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.max_age < self.min_age {
            return Err(format!("{key}.max_age: must be at least min_age ({})", self.min_age));
        }
        Ok(())
    }
}

/// T-AQM's head rule and its state.
#[derive(Clone, Debug)]
pub struct TaqmRule {
    params: TaqmParams,
    previous_drop: Option<Time>,
}

impl HeadRule for TaqmRule {
    fn discard(&mut self, head: &Packet, backlog: Backlog, now: Time) -> Option<DropCause> {
        let p = &self.params;
        if backlog.packets <= p.lower_drop_threshold as usize {
            return None;
        }
        let delay = now.since(head.enqueued_at);
        let spaced = self.previous_drop.is_none_or(|t| now.since(t) > p.min_inter_drop);
        if (delay > p.min_age && spaced) || delay > p.max_age {
            self.previous_drop = Some(now);
            Some(DropCause::Age)
        } else {
            None
        }
    }
}

pub type Taqm = AtHead<TaqmRule>;

impl Taqm {
    pub fn new(params: &TaqmParams) -> Taqm {
        AtHead::with_rule(TaqmRule { params: params.clone(), previous_drop: None }, params.overflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::{Disc, Limits};
    use proptest::prelude::*;
    use DropCause::Age;

    #[test]
    fn scripted_decisions() {
        let mut q = Disc::new(Limits::default(), Taqm::new(&TaqmParams::default()));
        let mut steps: Vec<_> = (0..10).map(|uid| Arrive(0.0, pkt(uid, 1000), &[])).collect();
        steps.extend([
            // 10 queued, head 0 waited 100 ms ≤ minAge: transmit.
            Depart(100.0, Some(0), &[]),
            // 9 queued, head 1 waited 250 ms > 200 and no drop yet: discard
            // (previousDropTime = 250). 8 queued, head 2: 250 − 250 = 0 ≤ 600 and
            // 250 ≤ 800: transmit.
            Depart(250.0, Some(2), &[(1, Age)]),
            // 7 queued, head 3 waited 700 ms > 200 but 700 − 250 = 450 ≤ 600 and
            // 700 ≤ maxAge: minInterDropTime holds, transmit.
            Depart(700.0, Some(3), &[]),
            // 6 queued, head 4 waited 850 ms: 850 − 250 = 600 is not > 600, but
            // 850 > maxAge overrides: discard (previousDropTime = 850). Then 5
            // queued ≤ lowerDropThreshold: head 5 (850 ms > maxAge) is transmitted.
            Depart(850.0, Some(5), &[(4, Age)]),
            Arrive(900.0, pkt(10, 1000), &[]),
            Arrive(900.0, pkt(11, 1000), &[]),
            Arrive(900.0, pkt(12, 1000), &[]),
            // 7 queued: heads 6 and 7 (1000 ms > maxAge) are discarded at the same
            // instant; with 5 left, head 8 is transmitted.
            Depart(1000.0, Some(8), &[(6, Age), (7, Age)]),
            // 4 queued: never drop.
            Depart(5000.0, Some(9), &[]),
        ]);
        run(&mut q, &steps);
    }

    #[test]
    fn validation_names_the_key() {
        let p = TaqmParams { max_age: Dur::from_millis(100), ..TaqmParams::default() };
        assert_eq!(p.validate("ue.queue").unwrap_err(), "ue.queue.max_age: must be at least min_age (200ms)");
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::{testkit::scenario_queue, QueueConfig};
        let q = scenario_queue(
            r#"{ scheme = "taqm", min_age = "0.2s", min_inter_drop = "0.6s", lower_drop_threshold = 5, max_age = "0.8s" }"#,
        )
        .unwrap();
        assert_eq!(q, QueueConfig::Taqm(TaqmParams::default()));
        assert_eq!(scenario_queue(r#"{ scheme = "dff" }"#).unwrap(), QueueConfig::Dff);
        let q = scenario_queue(r#"{ scheme = "pdcp_discard", delay_threshold = "150ms" }"#).unwrap();
        assert_eq!(q, QueueConfig::PdcpDiscard(crate::queue::PdcpDiscardParams::default()));
    }

    proptest! {
        #[test]
        fn conservation(ops in ops()) {
            let params = TaqmParams { lower_drop_threshold: 2, min_age: Dur::from_millis(50), ..TaqmParams::default() };
            check_invariants(&mut Disc::new(Limits { bytes: Some(20_000), packets: None }, Taqm::new(&params)), &ops);
        }
    }
}
