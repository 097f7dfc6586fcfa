//! PDCP discard: the 3GPP discard timer at the transmitter (Tan, MSc thesis, 2009).
//!
//! Rule: `for each outgoing packet: if delay > delayThreshold: discard packet
//! else transmit packet`, delay being the time the packet spent in the buffer
//! (cause `age`). Arrivals that do not fit the buffer limits are dropped at
//! the tail, or with `overflow = "front"` from the front ([`Overflow`]).
//! Combined AQM (R-AQM in the eNodeB plus PDCP discard in the UE with a large
//! threshold, 0.8–1 s) is this scheme at the UE buffer together with
//! [`crate::bsr::Raqm`] at the receiver; no extra code.

use super::at_head::{AtHead, HeadRule, Overflow};
use super::{Backlog, DropCause};
use crate::packet::Packet;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

/// `{ scheme = "pdcp_discard", delay_threshold = "150ms", overflow = "tail" }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PdcpDiscardParams {
    /// Discard timer: a packet older than this at departure is discarded (150 ms).
    pub delay_threshold: Dur,
    /// A full buffer's fallback for an arrival: `"tail"` (default) or `"front"`.
    pub overflow: Overflow,
}

impl Default for PdcpDiscardParams {
    fn default() -> PdcpDiscardParams {
        PdcpDiscardParams { delay_threshold: Dur::from_millis(150), overflow: Overflow::Tail }
    }
}

impl PdcpDiscardParams {
    /// Checks ranges; `key` names the config in the scenario.
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.delay_threshold == Dur::ZERO {
            return Err(format!("{key}.delay_threshold: must be positive"));
        }
        Ok(())
    }
}

/// PDCP discard's head rule.
#[derive(Clone, Copy, Debug)]
pub struct PdcpDiscardRule {
    threshold: Dur,
}

impl HeadRule for PdcpDiscardRule {
    fn discard(&mut self, head: &Packet, _backlog: Backlog, now: Time) -> Option<DropCause> {
        (now.since(head.enqueued_at) > self.threshold).then_some(DropCause::Age)
    }
}

pub type PdcpDiscard = AtHead<PdcpDiscardRule>;

impl PdcpDiscard {
    pub fn new(params: &PdcpDiscardParams) -> PdcpDiscard {
        AtHead::with_rule(PdcpDiscardRule { threshold: params.delay_threshold }, params.overflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::{Disc, Limits};
    use proptest::prelude::*;
    use DropCause::{Age, Overflow, OverflowFront};

    #[test]
    fn discards_packets_older_than_the_threshold_at_departure() {
        let mut q =
            Disc::new(Limits { bytes: None, packets: Some(4) }, PdcpDiscard::new(&PdcpDiscardParams::default()));
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(0, 500), &[]),
                Arrive(50.0, pkt(1, 500), &[]),
                Arrive(100.0, pkt(2, 500), &[]),
                Arrive(200.0, pkt(3, 500), &[]),
                Arrive(200.0, pkt(9, 500), &[(9, Overflow)]),
                // Head 0 waited 100 ms ≤ 150 ms: transmitted.
                Depart(100.0, Some(0), &[]),
                // Head 1 waited 160 ms > 150: discarded; head 2 waited 110 ms: transmitted.
                Depart(210.0, Some(2), &[(1, Age)]),
                // Head 3 waited exactly 150 ms, not more: transmitted.
                Depart(350.0, Some(3), &[]),
                Depart(400.0, None, &[]),
                // A lone old packet is discarded and nothing is sent.
                Arrive(400.0, pkt(4, 500), &[]),
                Depart(600.0, None, &[(4, Age)]),
            ],
        );
    }

    /// With `overflow = "front"` a full buffer drops its oldest packets for an
    /// arrival (DFF as the fallback), and the discard timer still judges heads.
    #[test]
    fn a_full_buffer_can_drop_from_the_front() {
        let params: PdcpDiscardParams = toml::from_str("overflow = \"front\"").unwrap();
        let mut q = Disc::new(Limits { bytes: None, packets: Some(2) }, PdcpDiscard::new(&params));
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(0, 500), &[]),
                Arrive(10.0, pkt(1, 500), &[]),
                Arrive(20.0, pkt(2, 500), &[(0, OverflowFront)]),
                Arrive(30.0, pkt(3, 500), &[(1, OverflowFront)]),
                // Head 2 waited 180 ms > 150: discarded; head 3 (170 ms) too.
                Depart(200.0, None, &[(2, Age), (3, Age)]),
            ],
        );
        assert!(toml::from_str::<PdcpDiscardParams>("overflow = \"middle\"").is_err());
    }

    #[test]
    fn validation_names_the_key() {
        let p = PdcpDiscardParams { delay_threshold: Dur::ZERO, ..PdcpDiscardParams::default() };
        assert_eq!(p.validate("ue.queue").unwrap_err(), "ue.queue.delay_threshold: must be positive");
    }

    proptest! {
        #[test]
        fn conservation(ops in ops()) {
            let params = PdcpDiscardParams { delay_threshold: Dur::from_millis(80), ..PdcpDiscardParams::default() };
            check_invariants(&mut Disc::new(Limits { bytes: Some(20_000), packets: None }, PdcpDiscard::new(&params)), &ops);
        }
    }
}
