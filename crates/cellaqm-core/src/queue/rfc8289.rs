//! RFC 8289 (CoDel) as a test oracle: a deliberately plain transcription of
//! the pseudocode of its Section 5 (`enqueue`, `dequeue`, `dodequeue`,
//! `control_law`) with its own FIFO and variables (the RFC's names, trailing
//! underscores kept), and the replay test that requires [`Codel`] to take the
//! same decision at every step.
//!
//! Times are signed integer nanoseconds, as the RFC's `time_t` is signed:
//! `now - drop_next_` may be negative. Where cellaqm departs from the
//! pseudocode (listed in `codel.rs`'s module doc), this model follows cellaqm;
//! every such place is marked `CELLAQM:` and says what the RFC does.

use std::collections::VecDeque;

/// A queued packet: `tstamp` is its arrival time.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    uid: u64,
    size: u32,
    tstamp: i64,
    ecn_capable: bool,
}

/// The constants of the RFC, and cellaqm's switches.
#[derive(Clone, Debug)]
pub struct Config {
    /// TARGET, nanoseconds.
    pub target: i64,
    /// INTERVAL, nanoseconds.
    pub interval: i64,
    /// maxpacket_, bytes. The RFC's constant is 512 ("SHOULD use interface
    /// MTU"); CELLAQM: the `mtu` parameter.
    pub maxpacket: u64,
    /// CELLAQM: mark instead of drop (the RFC's pseudocode only drops).
    pub ecn: bool,
    /// CELLAQM: the buffer's byte limit (the RFC leaves `queue_t` unspecified).
    pub limit_bytes: Option<u64>,
    /// CELLAQM: the buffer's packet limit.
    pub limit_packets: Option<u32>,
}

/// What one `dequeue()` did: the packet sent (uid, marked) and the packets dropped.
pub type Dequeued = (Option<(u64, bool)>, Vec<u64>);

pub struct RefCodel {
    cfg: Config,
    queue_: VecDeque<Pkt>,
    pub first_above_time_: i64,
    pub drop_next_: i64,
    pub count_: u32,
    pub lastcount_: u32,
    pub dropping_: bool,
}

/// `dodequeue_result`.
struct DodequeueResult {
    p: Option<Pkt>,
    ok_to_drop: bool,
}

impl RefCodel {
    /// The per-queue state of §5.2 at its initial values.
    pub fn new(cfg: Config) -> RefCodel {
        RefCodel {
            cfg,
            queue_: VecDeque::new(),
            first_above_time_: 0,
            drop_next_: 0,
            count_: 0,
            lastcount_: 0,
            dropping_: false,
        }
    }

    /// `bytes()`: the bytes queued.
    fn bytes(&self) -> u64 {
        self.queue_.iter().map(|p| p.size as u64).sum()
    }

    /// `enqueue(pkt)` at `now`; false if the buffer refused it.
    pub fn enqueue(&mut self, uid: u64, size: u32, ecn_capable: bool, now: i64) -> bool {
        // CELLAQM: a packet that does not fit the buffer limits is tail-dropped.
        let over_bytes = self.cfg.limit_bytes.is_some_and(|limit| self.bytes() + size as u64 > limit);
        let over_packets = self.cfg.limit_packets.is_some_and(|limit| self.queue_.len() + 1 > limit as usize);
        if over_bytes || over_packets {
            return false;
        }
        // pkt->tstamp = clock(); queue_t::enqueue(pkt);
        self.queue_.push_back(Pkt { uid, size, tstamp: now, ecn_capable });
        true
    }

    /// `control_law(t, count)`: `t + INTERVAL / sqrt(count)`, in whole
    /// nanoseconds (truncated, as cellaqm's integer clock holds them).
    fn control_law(&self, t: i64, count: u32) -> i64 {
        t + (self.cfg.interval as f64 / (count as f64).sqrt()) as i64
    }

    /// `dodequeue(now)`.
    fn dodequeue(&mut self, now: i64) -> DodequeueResult {
        let mut r = DodequeueResult { p: self.queue_.pop_front(), ok_to_drop: false };
        let Some(p) = r.p else {
            // queue empty - reset first_above_time
            self.first_above_time_ = 0;
            return r;
        };
        let sojourn_time = now - p.tstamp;
        if sojourn_time < self.cfg.target || self.bytes() <= self.cfg.maxpacket {
            // went below - stay below for at least INTERVAL
            self.first_above_time_ = 0;
        } else if self.first_above_time_ == 0 {
            // just went above from below
            self.first_above_time_ = now + self.cfg.interval;
        } else if now >= self.first_above_time_ {
            r.ok_to_drop = true;
        }
        r
    }

    /// CELLAQM: whether the packet that `drop(p)` would discard is marked
    /// instead (with `ecn` on, an ECN-capable packet), as Linux's codel does.
    fn marks(&self, p: &Pkt) -> bool {
        self.cfg.ecn && p.ecn_capable
    }

    /// `dequeue()` at `now`.
    pub fn dequeue(&mut self, now: i64) -> Dequeued {
        let mut dropped = Vec::new();
        let mut marked = false;
        let mut r = self.dodequeue(now);
        if self.dropping_ {
            if !r.ok_to_drop {
                // sojourn time below TARGET - leave drop state
                self.dropping_ = false;
            }
            while now >= self.drop_next_ && self.dropping_ {
                let p = r.p.expect("ok_to_drop implies a packet");
                if self.marks(&p) {
                    // CELLAQM: count and schedule as for a drop, send the marked
                    // packet, and stop.
                    self.count_ += 1;
                    self.drop_next_ = self.control_law(self.drop_next_, self.count_);
                    marked = true;
                    break;
                }
                dropped.push(p.uid); // drop(r.p)
                self.count_ += 1;
                r = self.dodequeue(now);
                if !r.ok_to_drop {
                    // leave drop state
                    self.dropping_ = false;
                } else {
                    // schedule the next drop
                    self.drop_next_ = self.control_law(self.drop_next_, self.count_);
                }
            }
        } else if r.ok_to_drop {
            let p = r.p.expect("ok_to_drop implies a packet");
            if self.marks(&p) {
                marked = true; // CELLAQM: mark and send it instead of drop(r.p)
            } else {
                dropped.push(p.uid); // drop(r.p)
                r = self.dodequeue(now);
            }
            self.dropping_ = true;
            let delta = self.count_.wrapping_sub(self.lastcount_);
            self.count_ = 1;
            if delta > 1 && now - self.drop_next_ < 16 * self.cfg.interval {
                self.count_ = delta;
            }
            self.drop_next_ = self.control_law(now, self.count_);
            self.lastcount_ = self.count_;
        }
        (r.p.map(|p| (p.uid, marked)), dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::{Config, RefCodel};
    use crate::packet::Ecn;
    use crate::queue::testkit::{arrival, random_replay, replay_steps, Replay as Step, REPLAY_RATES as RATES};
    use crate::queue::{Codel, CodelParams, Disc, DropCause, Limits, QueueCtx, QueueDisc};
    use crate::rng::stream;
    use crate::time::{Dur, Time};
    use crate::units::Bytes;
    use proptest::prelude::*;

    /// Decisions seen in a replay, to show it exercised what it compares.
    #[derive(Debug, Default)]
    struct Tally {
        dropped: u64,
        marked: u64,
        refused: u64,
        sent: u64,
    }

    /// Replays `steps` through [`Codel`] and [`RefCodel`]: every arrival's
    /// fate and every departure (packet, mark, drops) must agree. CoDel acts
    /// on sojourn times only: the rate changes reach [`Codel`], not the oracle.
    fn replay(cfg: &Config, steps: &[Step]) -> Result<Tally, TestCaseError> {
        let params = CodelParams {
            target: Dur(cfg.target as u64),
            interval: Dur(cfg.interval as u64),
            ecn: cfg.ecn,
            mtu: Bytes(cfg.maxpacket),
        };
        let mut q = Disc::new(Limits { bytes: cfg.limit_bytes, packets: cfg.limit_packets }, Codel::new(&params));
        let mut oracle = RefCodel::new(cfg.clone());
        let mut tally = Tally::default();
        let (mut now, mut rate) = (Time::ZERO, RATES[0]);
        for (uid, step) in steps.iter().enumerate() {
            let uid = uid as u64;
            now += step.dt();
            let ctx = QueueCtx { now, rate_bps: rate };
            let mut d = Vec::new();
            match *step {
                Step::Arrive { size, ect, .. } => {
                    q.enqueue(arrival(uid, size, ect), &ctx, &mut d);
                    let accepted = d.is_empty();
                    prop_assert!(d.iter().all(|x| x.pkt.uid == uid && x.cause == DropCause::Overflow), "{:?}", d);
                    prop_assert_eq!(
                        accepted,
                        oracle.enqueue(uid, size, ect, now.0 as i64),
                        "arrival {} at {}",
                        uid,
                        now
                    );
                    tally.refused += !accepted as u64;
                }
                Step::Depart { .. } => {
                    let sent = q.dequeue(&ctx, &mut d).map(|p| (p.uid, p.ecn == Ecn::Ce));
                    prop_assert!(d.iter().all(|x| x.cause == DropCause::TargetExceeded), "{:?}", d);
                    let got = (sent, d.iter().map(|x| x.pkt.uid).collect::<Vec<_>>());
                    let want = oracle.dequeue(now.0 as i64);
                    prop_assert_eq!(&got, &want, "departure at {}", now);
                    tally.sent += sent.is_some() as u64;
                    tally.marked += sent.is_some_and(|(_, ce)| ce) as u64;
                    tally.dropped += got.1.len() as u64;
                }
                Step::Rate { i, .. } => {
                    q.on_timer(&ctx, &mut d);
                    prop_assert!(d.is_empty(), "CoDel's timer dropped {:?}", d);
                    rate = RATES[i];
                }
            }
            let v = q.scheme().vars();
            prop_assert_eq!(
                (v.count, v.lastcount, v.dropping),
                (oracle.count_, oracle.lastcount_, oracle.dropping_),
                "at {}",
                now
            );
        }
        Ok(tally)
    }

    fn config() -> impl Strategy<Value = Config> {
        (
            prop::sample::select(vec![(1i64, 20i64), (5, 100), (5, 50), (20, 300)]),
            prop::sample::select(vec![300u64, 1500, 9000]),
            any::<bool>(),
            prop_oneof![
                (10_000..80_000u64).prop_map(|b| (Some(b), None)),
                (5..60u32).prop_map(|n| (None, Some(n))),
                Just((None, None)),
            ],
        )
            .prop_map(|((target_ms, interval_ms), maxpacket, ecn, (limit_bytes, limit_packets))| Config {
                target: target_ms * 1_000_000,
                interval: interval_ms * 1_000_000,
                maxpacket,
                ecn,
                limit_bytes,
                limit_packets,
            })
    }

    proptest! {
        #[test]
        fn codel_matches_rfc_8289(cfg in config(), steps in replay_steps((5, 5, 1))) {
            replay(&cfg, &steps)?;
        }
    }

    /// The replay is not vacuous: on 60 000 random steps (more arrivals than
    /// departures, no rate changes), with and without ECN, CoDel drops, the buffer refuses
    /// packets and, with ECN, CoDel marks, in agreement.
    #[test]
    fn drops_marks_and_overflow_are_exercised() {
        let steps = random_replay(&mut stream(5, "steps"), (5, 4, 0), 6_000);
        for ecn in [false, true] {
            let cfg = Config {
                target: 5_000_000,
                interval: 100_000_000,
                maxpacket: 1500,
                ecn,
                limit_bytes: Some(60_000),
                limit_packets: None,
            };
            let tally = replay(&cfg, &steps).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            assert!(tally.dropped > 0 && tally.refused > 0 && tally.sent > 0, "{cfg:?}: {tally:?}");
            assert_eq!(tally.marked > 0, ecn, "{cfg:?}: {tally:?}");
        }
    }
}
