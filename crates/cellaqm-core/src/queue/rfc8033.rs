//! RFC 8033 (PIE) as a test oracle: a deliberately plain transcription of
//! Appendix A, "The Basic PIE Pseudocode", with its own FIFO and variables
//! (the RFC's names, trailing underscores kept), and the replay test that
//! requires [`Pie`] to take the same decision at every step.
//!
//! The optional elements of §5 that cellaqm offers are added where Appendix B
//! ("Pseudocode for PIE with Optional Enhancement") puts them, each behind its
//! switch: ECN marking (§5.1, MAX_ECNTH = 10 %), de-randomisation (§5.4) and
//! the cap on the probability step (§5.5). Where cellaqm departs from
//! Appendix A (listed in `pie.rs`'s module doc), this model follows cellaqm;
//! every such place is marked `CELLAQM:` and says what Appendix A does.
//!
//! The update timer runs every T_UPDATE whether or not the queue is idle
//! (cellaqm parks it at the idle fixed point), and times are integer
//! nanoseconds, converted to seconds as `ns / 1e9` like cellaqm's.

use crate::rng::Rng;
use rand::Rng as _;
use std::collections::VecDeque;

/// MAX_ECNTH of Appendix B: above this probability ECN-capable packets are dropped too.
const MAX_ECNTH: f64 = 0.1;

/// Appendix A's configurable and internal parameters, and the §5 switches.
#[derive(Clone, Debug)]
pub struct Config {
    /// QDELAY_REF, nanoseconds.
    pub qdelay_ref_ns: u64,
    /// T_UPDATE, nanoseconds.
    pub t_update_ns: u64,
    /// MAX_BURST, nanoseconds.
    pub max_burst_ns: u64,
    pub alpha: f64,
    pub beta: f64,
    /// MEAN_PKTSIZE, bytes.
    pub mean_pktsize: u64,
    pub ecn: bool,
    pub derandomize: bool,
    pub cap_drop_adjustment: bool,
    /// CELLAQM: the buffer's byte limit (Appendix A has none; Appendix B's `queue_.is_full()`).
    pub limit_bytes: Option<u64>,
    /// CELLAQM: the buffer's packet limit.
    pub limit_packets: Option<u32>,
}

/// What `enque` did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enque {
    Enqueued,
    /// Enqueued with an ECN mark (§5.1).
    Marked,
    /// `drop_early()` said DROP.
    DroppedEarly,
    /// The buffer was full.
    DroppedFull,
}

pub struct RefPie {
    cfg: Config,
    /// `queue_`: (uid, size) of each packet, oldest first.
    queue_: VecDeque<(u64, u32)>,
    pub drop_prob_: f64,
    pub burst_allowance_: u64,
    pub qdelay_old_: f64,
    pub accu_prob_: f64,
    rng: Rng,
}

impl RefPie {
    /// PIE at start-up: probability and delays 0, the full burst allowance.
    pub fn new(cfg: Config, rng: Rng) -> RefPie {
        let burst_allowance_ = cfg.max_burst_ns;
        RefPie {
            cfg,
            queue_: VecDeque::new(),
            drop_prob_: 0.0,
            burst_allowance_,
            qdelay_old_: 0.0,
            accu_prob_: 0.0,
            rng,
        }
    }

    fn qdelay_ref(&self) -> f64 {
        self.cfg.qdelay_ref_ns as f64 / 1e9
    }

    /// `queue_.byte_length()`: the bytes queued.
    fn byte_length(&self) -> u64 {
        self.queue_.iter().map(|&(_, size)| size as u64).sum()
    }

    /// `random()`: uniform in [0, 1).
    fn random(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// `enque(packet)`, called on each packet arrival.
    pub fn enque(&mut self, uid: u64, size: u32, ecn_capable: bool) -> Enque {
        // CELLAQM: the buffer limits come first, as Appendix B's
        // `if (queue_.is_full()) { drop(packet); PIE->accu_prob_ = 0; }`.
        let over_bytes = self.cfg.limit_bytes.is_some_and(|limit| self.byte_length() + size as u64 > limit);
        let over_packets = self.cfg.limit_packets.is_some_and(|limit| self.queue_.len() + 1 > limit as usize);
        if over_bytes || over_packets {
            self.accu_prob_ = 0.0;
            return Enque::DroppedFull;
        }
        // Appendix A refills the burst allowance here, on arrival:
        //     if (PIE->drop_prob_ == 0 && current_qdelay < QDELAY_REF/2
        //         && PIE->qdelay_old_ < QDELAY_REF/2)
        //         PIE->burst_allowance_ = MAX_BURST;
        // CELLAQM: done in calculate_drop_prob instead (§4.4's wording).
        if self.burst_allowance_ == 0 && self.drop_early() {
            // §5.1, Appendix B: mark an ECN-capable packet while drop_prob_ ≤ MAX_ECNTH.
            if self.cfg.ecn && ecn_capable && self.drop_prob_ <= MAX_ECNTH {
                self.queue_.push_back((uid, size));
                return Enque::Marked;
            }
            // Appendix B: drop(packet); PIE->accu_prob_ = 0;
            self.accu_prob_ = 0.0;
            return Enque::DroppedEarly;
        }
        self.queue_.push_back((uid, size));
        Enque::Enqueued
    }

    /// `drop_early()`: true means DROP.
    fn drop_early(&mut self) -> bool {
        // Safeguard PIE to be work conserving. CELLAQM: byte_length() is the
        // backlog the packet finds, not counting it.
        if (self.qdelay_old_ < self.qdelay_ref() / 2.0 && self.drop_prob_ < 0.2)
            || self.byte_length() <= 2 * self.cfg.mean_pktsize
        {
            return false;
        }
        if self.cfg.derandomize {
            // §5.4, Appendix B.
            if self.drop_prob_ == 0.0 {
                self.accu_prob_ = 0.0;
            }
            self.accu_prob_ += self.drop_prob_;
            if self.accu_prob_ < 0.85 {
                return false;
            }
            if self.accu_prob_ >= 8.5 {
                return true;
            }
        }
        let u = self.random();
        u < self.drop_prob_
    }

    /// `deque()`: the uid of the packet sent. Appendix A takes
    /// `current_qdelay = packet.timestamp_delay()` here; CELLAQM: the delay is
    /// taken in calculate_drop_prob, from the backlog and the link rate.
    pub fn deque(&mut self) -> Option<u64> {
        self.queue_.pop_front().map(|(uid, _)| uid)
    }

    /// `calculate_drop_prob()`, every T_UPDATE; `link_rate_bps` is the link's rate then.
    #[allow(clippy::manual_clamp)] // bounded as Appendix A writes it
    pub fn calculate_drop_prob(&mut self, link_rate_bps: f64) {
        // CELLAQM: current_qdelay = queue_.byte_length() / link rate.
        let current_qdelay = self.byte_length() as f64 * 8.0 / link_rate_bps;
        let qdelay_ref = self.qdelay_ref();
        let mut p =
            self.cfg.alpha * (current_qdelay - qdelay_ref) + self.cfg.beta * (current_qdelay - self.qdelay_old_);
        if self.drop_prob_ < 0.000001 {
            p /= 2048.0;
        } else if self.drop_prob_ < 0.00001 {
            p /= 512.0;
        } else if self.drop_prob_ < 0.0001 {
            p /= 128.0;
        } else if self.drop_prob_ < 0.001 {
            p /= 32.0;
        } else if self.drop_prob_ < 0.01 {
            p /= 8.0;
        } else if self.drop_prob_ < 0.1 {
            p /= 2.0;
        }
        // §5.5, Appendix B: cap drop adjustment.
        if self.cfg.cap_drop_adjustment && self.drop_prob_ >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob_ += p;
        // Exponentially decay drop prob when congestion goes away.
        if current_qdelay == 0.0 && self.qdelay_old_ == 0.0 {
            self.drop_prob_ *= 0.98;
        }
        // Bound drop probability.
        if self.drop_prob_ < 0.0 {
            self.drop_prob_ = 0.0;
        }
        if self.drop_prob_ > 1.0 {
            self.drop_prob_ = 1.0;
        }
        let previous_qdelay = self.qdelay_old_;
        self.qdelay_old_ = current_qdelay;
        // burst_allowance_ = max(0, burst_allowance_ - T_UPDATE)
        self.burst_allowance_ = self.burst_allowance_.saturating_sub(self.cfg.t_update_ns);
        // CELLAQM (§4.4): the refill Appendix A's enque() makes, here, from this
        // update's sample and the previous one.
        if self.drop_prob_ == 0.0 && current_qdelay < qdelay_ref / 2.0 && previous_qdelay < qdelay_ref / 2.0 {
            self.burst_allowance_ = self.cfg.max_burst_ns;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Config, Enque, RefPie};
    use crate::queue::testkit::{arrival, random_replay, replay_steps, Replay as Step, REPLAY_RATES as RATES};
    use crate::queue::{Disc, DropCause, Limits, Pie, PieParams, QueueCtx, QueueDisc};
    use crate::rng::stream;
    use crate::time::{Dur, Time};
    use crate::units::Bytes;
    use proptest::prelude::*;

    /// Decisions seen in a replay, to show it exercised what it compares.
    #[derive(Debug, Default)]
    struct Tally {
        early: u64,
        full: u64,
        marked: u64,
        sent: u64,
    }

    fn params(cfg: &Config) -> (PieParams, Limits) {
        let params = PieParams {
            target: Dur(cfg.qdelay_ref_ns),
            tupdate: Dur(cfg.t_update_ns),
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_burst: Dur(cfg.max_burst_ns),
            ecn: cfg.ecn,
            derandomize: cfg.derandomize,
            cap_drop_adjustment: cfg.cap_drop_adjustment,
            mean_packet: Bytes(cfg.mean_pktsize),
        };
        (params, Limits { bytes: cfg.limit_bytes, packets: cfg.limit_packets })
    }

    /// Replays `steps` through [`Pie`] (driven as its owners drive it: its
    /// updates run at its next call, and `on_timer` comes before the rate
    /// changes) and [`RefPie`] (updated at every multiple of T_UPDATE), both
    /// drawing from the stream of `seed`; every decision and the probability
    /// after every step must agree.
    fn replay(cfg: &Config, seed: u64, steps: &[Step]) -> Result<Tally, TestCaseError> {
        let (params, limits) = params(cfg);
        let mut q = Disc::new(limits, Pie::new(&params, stream(seed, "pie")));
        let mut oracle = RefPie::new(cfg.clone(), stream(seed, "pie"));
        let mut tally = Tally::default();
        let (mut now, mut rate) = (Time::ZERO, RATES[0]);
        let mut next_update = Time(cfg.t_update_ns);
        for (uid, step) in steps.iter().enumerate() {
            let uid = uid as u64;
            now += step.dt();
            // The updates due by now, at the rate in force since the previous step.
            while next_update <= now {
                oracle.calculate_drop_prob(rate);
                next_update += Dur(cfg.t_update_ns);
            }
            let ctx = QueueCtx { now, rate_bps: rate };
            let mut d = Vec::new();
            match *step {
                Step::Arrive { size, ect, .. } => {
                    let marked_before = q.stats().marked;
                    q.enqueue(arrival(uid, size, ect), &ctx, &mut d);
                    let got = match d.as_slice() {
                        [] if q.stats().marked > marked_before => Enque::Marked,
                        [] => Enque::Enqueued,
                        [x] if x.pkt.uid == uid && x.cause == DropCause::Early => Enque::DroppedEarly,
                        [x] if x.pkt.uid == uid && x.cause == DropCause::Overflow => Enque::DroppedFull,
                        other => return Err(TestCaseError::fail(format!("unexpected drops {other:?}"))),
                    };
                    prop_assert_eq!(got, oracle.enque(uid, size, ect), "arrival {} at {}", uid, now);
                    match got {
                        Enque::DroppedEarly => tally.early += 1,
                        Enque::DroppedFull => tally.full += 1,
                        Enque::Marked => tally.marked += 1,
                        Enque::Enqueued => {}
                    }
                }
                Step::Depart { .. } => {
                    let got = q.dequeue(&ctx, &mut d).map(|p| p.uid);
                    prop_assert!(d.is_empty());
                    prop_assert_eq!(got, oracle.deque(), "departure at {}", now);
                    tally.sent += got.is_some() as u64;
                }
                Step::Rate { i, .. } => {
                    q.on_timer(&ctx, &mut d);
                    prop_assert!(d.is_empty(), "PIE's timer dropped {:?}", d);
                    rate = RATES[i];
                }
            }
            let v = q.scheme().vars();
            prop_assert!(
                (v.drop_prob - oracle.drop_prob_).abs() < 1e-12,
                "drop_prob {} vs {} at {}",
                v.drop_prob,
                oracle.drop_prob_,
                now
            );
            prop_assert_eq!(v.burst_allowance, Dur(oracle.burst_allowance_), "burst allowance at {}", now);
        }
        Ok(tally)
    }

    fn config() -> impl Strategy<Value = Config> {
        (
            (prop::sample::select(vec![5u64, 15, 20, 50]), prop::sample::select(vec![10u64, 15, 30])),
            (0.02..0.5f64, 0.2..3.0f64),
            (prop::sample::select(vec![0u64, 20, 150]), prop::sample::select(vec![500u64, 1500])),
            (any::<bool>(), any::<bool>(), any::<bool>()),
            prop_oneof![(10_000..60_000u64).prop_map(|b| (Some(b), None)), (5..40u32).prop_map(|n| (None, Some(n))),],
        )
            .prop_map(
                |(
                    (target, tupdate),
                    (alpha, beta),
                    (burst, mean),
                    (ecn, derandomize, cap),
                    (limit_bytes, limit_packets),
                )| {
                    Config {
                        qdelay_ref_ns: target * 1_000_000,
                        t_update_ns: tupdate * 1_000_000,
                        max_burst_ns: burst * 1_000_000,
                        alpha,
                        beta,
                        mean_pktsize: mean,
                        ecn,
                        derandomize,
                        cap_drop_adjustment: cap,
                        limit_bytes,
                        limit_packets,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn pie_matches_rfc_8033(cfg in config(), seed in any::<u64>(), steps in replay_steps((6, 3, 1))) {
            replay(&cfg, seed, &steps)?;
        }
    }

    /// The replay is not vacuous: on 60 000 random steps (arrivals as frequent
    /// as departures, the rate switching among [`RATES`]), each combination of
    /// the options drops early, overflows and, with ECN, marks, in agreement.
    #[test]
    fn every_option_combination_is_exercised() {
        let steps = random_replay(&mut stream(7, "steps"), (5, 5, 1), 4_000);
        for bits in 0..8u32 {
            let cfg = Config {
                qdelay_ref_ns: 15_000_000,
                t_update_ns: 15_000_000,
                max_burst_ns: 150_000_000,
                alpha: 0.125,
                beta: 1.25,
                mean_pktsize: 1500,
                ecn: bits & 1 != 0,
                derandomize: bits & 2 != 0,
                cap_drop_adjustment: bits & 4 != 0,
                limit_bytes: Some(40_000),
                limit_packets: None,
            };
            let tally = replay(&cfg, 11, &steps).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            assert!(tally.early > 0 && tally.full > 0 && tally.sent > 0, "{cfg:?}: {tally:?}");
            assert_eq!(tally.marked > 0, cfg.ecn, "{cfg:?}: {tally:?}");
        }
    }
}
