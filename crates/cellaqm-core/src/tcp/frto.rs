//! F-RTO, Forward RTO-Recovery (RFC 5682): finding a retransmission timeout
//! spurious by sending new data instead of retransmissions after it,
//! `tcp.spurious_rto = "frto"` (no TCP option needed). A timeout found
//! spurious is undone by the Eifel response (RFC 4015, `eifel_response.rs`),
//! the response RFC 5682 §4 points to.
//!
//! With SACK the SACK-enhanced algorithm (§3), without it the basic one (§2.1):
//!
//! 1. At a timeout the first unacknowledged segment is retransmitted as usual.
//!    F-RTO starts only if no loss recovery is under way (RecoveryPoint /
//!    "recover" below SND.UNA); a timeout again while waiting in step 2 starts
//!    step 1 over with F-RTO kept.
//! 2. The first ACK after it that acknowledges new data sets RecoveryPoint to
//!    SND.MAX. (2a) If it covers RecoveryPoint (basic: also when it leaves part
//!    of the retransmitted segment unacknowledged), conventional recovery goes
//!    on. (2b) Else up to two new (never sent) segments go out and step 3
//!    waits; if none can (receive window, no data), conventional recovery.
//!    Duplicate ACKs before it: SACK waits for the ACK of new data; basic takes
//!    one as step 2a.
//! 3. The next duplicate or new ACK (other ACKs are ignored). (3a) SACK: its
//!    cumulative or SACK information covers more than RecoveryPoint, or it is
//!    a duplicate ACK SACKing nothing new below it; basic: a duplicate ACK —
//!    cwnd at most 3 SMSS and conventional recovery, retransmitting the
//!    unacknowledged segments. (3b) Else it acknowledges data sent before the
//!    timeout and never retransmitted: the timeout was spurious — the response,
//!    and "recover" ← SND.UNA (§2.1 step 3b; applied with SACK too, so that a
//!    later loss is again recovered by fast retransmit).

use super::eifel_response::EifelResponse;

/// RFC 5682 §2.1/§3 step 1: F-RTO may start at a timeout when no loss recovery
/// is under way: `recover` (RFC 6582 recover, RFC 6675 RecoveryPoint; an
/// exclusive end here) is not above `snd_una`.
pub fn may_start(recover: u64, snd_una: u64) -> bool {
    recover <= snd_una
}

/// F-RTO in progress after a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frto {
    /// The SACK-enhanced algorithm (§3), else the basic one (§2.1).
    sack: bool,
    stage: Stage,
    response: EifelResponse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Step 2: waiting for the first ACK of new data; the timeout resent the data up to `retransmitted`.
    First { retransmitted: u64 },
    /// Step 3: two new segments went out above `recovery_point` (SND.MAX when step 2 passed).
    Second { recovery_point: u64 },
}

/// One ACK as F-RTO sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// The cumulative acknowledgment field.
    pub ack: u64,
    /// It acknowledges new data (advances SND.UNA).
    pub advances: bool,
    /// A duplicate ACK (RFC 5681 §2).
    pub duplicate: bool,
    /// SND.MAX when it arrived.
    pub snd_max: u64,
    /// Step 3 with SACK: one of its SACK blocks ends above RecoveryPoint.
    pub sacks_beyond: bool,
    /// Step 3 with SACK: it SACKs data below RecoveryPoint not SACKed before.
    pub sacks_new_below: bool,
}

/// What the sender does with an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Nothing decided yet.
    Wait,
    /// Step 2b: send up to two new segments (none possible: conventional recovery).
    SendNew,
    /// Steps 2a and 3a: conventional recovery; after step 3a cwnd at most `cap_segments` SMSS
    /// and the unacknowledged segments are retransmitted.
    Conventional { cap_segments: Option<u64> },
    /// Step 3b: the timeout was spurious; respond.
    Spurious(EifelResponse),
}

impl Frto {
    /// Step 1: a timeout that resent the data up to `retransmitted`, with `flight` bytes
    /// outstanding and `ssthresh` before its reduction.
    pub fn at_timeout(sack: bool, retransmitted: u64, flight: u64, ssthresh: u64) -> Frto {
        Frto { sack, stage: Stage::First { retransmitted }, response: EifelResponse::at_timeout(flight, ssthresh) }
    }

    /// Still in step 2 (a timeout again keeps F-RTO: step 1 over).
    pub fn waits_for_first_ack(&self) -> bool {
        matches!(self.stage, Stage::First { .. })
    }

    /// RecoveryPoint once step 2 passed.
    pub fn recovery_point(&self) -> Option<u64> {
        match self.stage {
            Stage::First { .. } => None,
            Stage::Second { recovery_point } => Some(recovery_point),
        }
    }

    /// Steps 2 and 3 on one ACK.
    pub fn on_ack(&mut self, a: &Ack) -> Decision {
        match self.stage {
            Stage::First { retransmitted } => {
                if a.duplicate {
                    return match self.sack {
                        true => Decision::Wait,                                 // §3 step 2
                        false => Decision::Conventional { cap_segments: None }, // §2.1 step 2a
                    };
                }
                if !a.advances {
                    return Decision::Wait;
                }
                let recovery_point = a.snd_max;
                if a.ack >= recovery_point || (!self.sack && a.ack < retransmitted) {
                    return Decision::Conventional { cap_segments: None }; // step 2a
                }
                self.stage = Stage::Second { recovery_point };
                Decision::SendNew // step 2b
            }
            Stage::Second { recovery_point } => {
                if !(a.duplicate || a.advances) {
                    return Decision::Wait;
                }
                let real = match self.sack {
                    // §3 step 3a: covers more than RecoveryPoint, or SACKs nothing new below it.
                    true => a.ack > recovery_point || a.sacks_beyond || !(a.advances || a.sacks_new_below),
                    // §2.1 step 3a: a duplicate ACK.
                    false => a.duplicate,
                };
                match real {
                    true => Decision::Conventional { cap_segments: Some(3) },
                    false => Decision::Spurious(self.response),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A timeout with segments 1..=10 (bytes 1 to 10 000) outstanding, ssthresh ∞
    /// before it; segment 1 is resent.
    fn timeout(sack: bool) -> Frto {
        Frto::at_timeout(sack, 1 + MSS, 10 * MSS, u64::MAX)
    }

    fn new_ack(ack: u64, snd_max: u64) -> Ack {
        Ack { ack, advances: true, snd_max, ..Ack::default() }
    }

    fn dup_ack(ack: u64, snd_max: u64) -> Ack {
        Ack { ack, duplicate: true, snd_max, ..Ack::default() }
    }

    #[test]
    fn it_starts_only_outside_loss_recovery() {
        assert!(may_start(0, 1), "never in recovery");
        assert!(may_start(5001, 5001), "recovery over: recover covered");
        assert!(!may_start(9001, 5001), "in fast recovery, or after a timeout, until recover is covered");
    }

    /// A delay spike: every segment arrives, late, after the timeout. The
    /// originals' ACKs come back in order: the first (ack 1001) acknowledges
    /// segment 1 below RecoveryPoint 10 001 — two new segments (10 001 to
    /// 12 000) go out; the second (ack 2001) acknowledges segment 2, never
    /// retransmitted: spurious. Both variants agree.
    #[test]
    fn a_delay_spike_is_found_spurious() {
        for sack in [true, false] {
            let mut f = timeout(sack);
            assert!(f.waits_for_first_ack());
            assert_eq!(f.on_ack(&new_ack(1001, 10_001)), Decision::SendNew);
            assert_eq!(f.recovery_point(), Some(10_001));
            let d = f.on_ack(&new_ack(2001, 12_001));
            assert_eq!(d, Decision::Spurious(EifelResponse::at_timeout(10 * MSS, u64::MAX)), "sack {sack}");
        }
    }

    /// A real loss of the window: only the retransmission arrives. Its ACK
    /// (1001) passes step 2b; the two new segments are then SACKed (SACK:
    /// blocks above RecoveryPoint) or duplicate-ACKed (basic): step 3a, cwnd
    /// at most 3 SMSS.
    #[test]
    fn a_real_loss_goes_back_to_conventional_recovery() {
        let mut f = timeout(true);
        assert_eq!(f.on_ack(&new_ack(1001, 10_001)), Decision::SendNew);
        let sacked = Ack { sacks_beyond: true, ..dup_ack(1001, 12_001) };
        assert_eq!(f.on_ack(&sacked), Decision::Conventional { cap_segments: Some(3) });
        let mut f = timeout(false);
        assert_eq!(f.on_ack(&new_ack(1001, 10_001)), Decision::SendNew);
        assert_eq!(f.on_ack(&dup_ack(1001, 12_001)), Decision::Conventional { cap_segments: Some(3) });
    }

    /// Step 2 with duplicate ACKs first: SACK waits for the ACK of new data
    /// (then goes on), the basic algorithm gives up at once (step 2a).
    #[test]
    fn duplicate_acks_in_step_2() {
        let mut f = timeout(true);
        assert_eq!(f.on_ack(&dup_ack(1, 10_001)), Decision::Wait);
        assert_eq!(f.on_ack(&Ack { ack: 1, snd_max: 10_001, ..Ack::default() }), Decision::Wait, "not dup, not new");
        assert_eq!(f.on_ack(&new_ack(3001, 10_001)), Decision::SendNew);
        let mut f = timeout(false);
        assert_eq!(f.on_ack(&dup_ack(1, 10_001)), Decision::Conventional { cap_segments: None });
    }

    /// Step 2a: the first ACK covers RecoveryPoint (everything sent before the
    /// timeout): nothing to judge. Basic only: an ACK inside the retransmitted
    /// segment (501) does not acknowledge all of it.
    #[test]
    fn step_2a_covers_the_recovery_point_or_part_of_the_retransmission() {
        for sack in [true, false] {
            let mut f = timeout(sack);
            assert_eq!(f.on_ack(&new_ack(10_001, 10_001)), Decision::Conventional { cap_segments: None });
        }
        assert_eq!(timeout(false).on_ack(&new_ack(501, 10_001)), Decision::Conventional { cap_segments: None });
        assert_eq!(timeout(true).on_ack(&new_ack(501, 10_001)), Decision::SendNew);
    }

    /// Step 3 with SACK: a duplicate ACK SACKing original data below
    /// RecoveryPoint is spurious (an original arrived); one SACKing nothing
    /// new is real; a cumulative ACK past RecoveryPoint is real too (§3 step
    /// 3a), where the basic algorithm calls any ACK of new data spurious.
    #[test]
    fn step_3_with_sack_information() {
        let second = |sack: bool| {
            let mut f = timeout(sack);
            assert_eq!(f.on_ack(&new_ack(1001, 10_001)), Decision::SendNew);
            f
        };
        let below = Ack { sacks_new_below: true, ..dup_ack(1001, 12_001) };
        assert!(matches!(second(true).on_ack(&below), Decision::Spurious(_)));
        assert_eq!(second(true).on_ack(&dup_ack(1001, 12_001)), Decision::Conventional { cap_segments: Some(3) });
        assert_eq!(second(true).on_ack(&new_ack(11_001, 12_001)), Decision::Conventional { cap_segments: Some(3) });
        assert!(matches!(second(false).on_ack(&new_ack(11_001, 12_001)), Decision::Spurious(_)));
        // An ACK neither new nor duplicate (a window update) is ignored.
        let mut f = second(true);
        assert_eq!(f.on_ack(&Ack { ack: 1001, snd_max: 12_001, ..Ack::default() }), Decision::Wait);
        assert_eq!(f.recovery_point(), Some(10_001));
    }
}
