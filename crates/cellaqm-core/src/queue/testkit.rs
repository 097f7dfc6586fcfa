//! Test helpers for queue disciplines: packet constructors, scripted
//! arrival/departure/timer sequences checked step by step, and the
//! conservation property every scheme must keep under random input.

use super::{DropCause, Dropped, QueueCtx, QueueDisc};
use crate::packet::{flags, Dir, Ecn, Packet, TcpHeader};
use crate::time::Time;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Link rate the helpers tell the queue unless a test says otherwise: 64 kb/s
/// (the adaptive thresholds are then at their 7500 B floor).
pub const RATE_BPS: f64 = 64e3;

/// A downlink data packet `uid` of `size` bytes, not ECN-capable.
pub fn pkt(uid: u64, size: u32) -> Packet {
    let mut p =
        Packet::tcp(0, Dir::Down, size, TcpHeader { len: size.saturating_sub(40) as u16, ..TcpHeader::default() });
    p.uid = uid;
    p
}

/// As [`pkt`], ECN-capable (ECT).
pub fn ect(uid: u64, size: u32) -> Packet {
    Packet { ecn: Ecn::Ect, ..pkt(uid, size) }
}

/// A SYN packet `uid` of `size` bytes.
pub fn syn(uid: u64, size: u32) -> Packet {
    let mut p = pkt(uid, size);
    p.tcp = TcpHeader { flags: flags::SYN, ..TcpHeader::default() };
    p
}

/// The context at `ms` milliseconds and link rate `rate_bps`.
pub fn ctx_at(ms: f64, rate_bps: f64) -> QueueCtx {
    QueueCtx { now: Time::from_secs_f64(ms * 1e-3), rate_bps }
}

/// The drops a step must produce, in order: `(uid, cause)`.
pub type Drops = &'static [(u64, DropCause)];

/// One step of a scripted sequence; times in milliseconds.
pub enum Step {
    /// A packet arrives; the drops this causes.
    Arrive(f64, Packet, Drops),
    /// The link asks for a packet: the uid it gets (or none) and the drops on the way.
    Depart(f64, Option<u64>, Drops),
    /// The scheme's timer is called (early calls allowed); the drops it makes.
    Timer(f64, Drops),
    /// The link reports that part of queued packet `uid` has been sent.
    Started(u64),
}

fn summary(dropped: &[Dropped]) -> Vec<(u64, DropCause)> {
    dropped.iter().map(|d| (d.pkt.uid, d.cause)).collect()
}

/// Runs `steps` against `q` at [`RATE_BPS`], asserting each step's outcome.
pub fn run(q: &mut impl QueueDisc, steps: &[Step]) {
    run_at(q, RATE_BPS, steps)
}

/// Runs `steps` against `q` at link rate `rate_bps`, asserting each step's outcome.
pub fn run_at(q: &mut impl QueueDisc, rate_bps: f64, steps: &[Step]) {
    for (i, step) in steps.iter().enumerate() {
        let mut dropped = Vec::new();
        match step {
            Step::Arrive(ms, p, want) => {
                q.enqueue(*p, &ctx_at(*ms, rate_bps), &mut dropped);
                assert_eq!(summary(&dropped), *want, "step {i}: arrival of {} at {ms} ms", p.uid);
            }
            Step::Depart(ms, uid, want) => {
                let got = q.dequeue(&ctx_at(*ms, rate_bps), &mut dropped).map(|p| p.uid);
                assert_eq!((got, summary(&dropped)), (*uid, want.to_vec()), "step {i}: departure at {ms} ms");
            }
            Step::Timer(ms, want) => {
                q.on_timer(&ctx_at(*ms, rate_bps), &mut dropped);
                assert_eq!(summary(&dropped), *want, "step {i}: timer at {ms} ms");
            }
            Step::Started(uid) => q.mark_started(*uid),
        }
    }
}

/// One random input for the property test; `dt_us` advances the clock first.
#[derive(Clone, Debug)]
pub enum Op {
    Arrive {
        dt_us: u64,
        size: u32,
        syn: bool,
        ect: bool,
    },
    Depart {
        dt_us: u64,
    },
    Timer {
        dt_us: u64,
    },
    /// Report the `nth` queued packet (modulo the backlog) as partly sent.
    Started {
        nth: usize,
    },
}

/// Random sequences of arrivals (weighted towards them, so queues build up),
/// departures, timer calls and partly-sent reports.
pub fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        5 => (0..60_000u64, 40..1500u32, proptest::bool::weighted(0.05), any::<bool>())
            .prop_map(|(dt_us, size, syn, ect)| Op::Arrive { dt_us, size, syn, ect }),
        3 => (0..200_000u64).prop_map(|dt_us| Op::Depart { dt_us }),
        1 => (0..30_000u64).prop_map(|dt_us| Op::Timer { dt_us }),
        1 => any::<usize>().prop_map(|nth| Op::Started { nth }),
    ];
    proptest::collection::vec(op, 0..400)
}

/// Replays `ops` and checks after every step: accepted = departed +
/// dropped from the queue + backlog; `bytes()`/`packets()` match the packets
/// actually held; nothing departs or is dropped twice or without being queued;
/// `stats()` counts every drop reported, by cause.
pub fn check_invariants(q: &mut impl QueueDisc, ops: &[Op]) {
    let mut held: BTreeMap<u64, u32> = BTreeMap::new();
    let mut by_cause: BTreeMap<DropCause, u64> = BTreeMap::new();
    let (mut accepted, mut departed, mut dropped_from_queue) = (0u64, 0u64, 0u64);
    let mut now = Time::ZERO;
    for (uid, op) in ops.iter().enumerate() {
        let uid = uid as u64;
        let mut dropped = Vec::new();
        let dt = match op {
            Op::Arrive { dt_us, .. } | Op::Depart { dt_us } | Op::Timer { dt_us } => *dt_us,
            Op::Started { .. } => 0,
        };
        now = Time(now.0 + dt * 1000);
        let ctx = QueueCtx { now, rate_bps: RATE_BPS };
        let mut arrival = None;
        match *op {
            Op::Arrive { size, syn: is_syn, ect: is_ect, .. } => {
                let mut p = if is_syn { syn(uid, size) } else { pkt(uid, size) };
                if is_ect {
                    p.ecn = Ecn::Ect;
                }
                arrival = Some((uid, size));
                q.enqueue(p, &ctx, &mut dropped);
            }
            Op::Depart { .. } => {
                if let Some(p) = q.dequeue(&ctx, &mut dropped) {
                    assert_eq!(held.remove(&p.uid), Some(p.size), "packet {} departed but was not queued", p.uid);
                    departed += 1;
                }
            }
            Op::Timer { .. } => q.on_timer(&ctx, &mut dropped),
            Op::Started { nth } => {
                if !held.is_empty() {
                    q.mark_started(*held.keys().nth(nth % held.len()).unwrap());
                }
            }
        }
        let mut arrival_dropped = false;
        for d in &dropped {
            assert_ne!(d.cause, DropCause::LinkLoss);
            *by_cause.entry(d.cause).or_default() += 1;
            if arrival.is_some_and(|(a, _)| a == d.pkt.uid) {
                assert!(!arrival_dropped, "arrival {} dropped twice", d.pkt.uid);
                arrival_dropped = true;
            } else {
                assert_eq!(
                    held.remove(&d.pkt.uid),
                    Some(d.pkt.size),
                    "packet {} dropped but was not queued",
                    d.pkt.uid
                );
                dropped_from_queue += 1;
            }
        }
        if let Some((a, size)) = arrival {
            if !arrival_dropped {
                accepted += 1;
                held.insert(a, size);
            }
        }
        assert_eq!(accepted, departed + dropped_from_queue + q.packets() as u64, "conservation after op {uid}: {op:?}");
        assert_eq!(q.packets(), held.len(), "packets() after op {uid}");
        assert_eq!(q.bytes(), held.values().map(|&s| s as u64).sum::<u64>(), "bytes() after op {uid}");
        for (&cause, &n) in &by_cause {
            assert_eq!(q.stats().dropped(cause), n, "stats().dropped({cause:?}) after op {uid}");
        }
    }
    // Drain: everything still held leaves exactly once.
    let ctx = QueueCtx { now, rate_bps: RATE_BPS };
    let mut dropped = Vec::new();
    while let Some(p) = q.dequeue(&ctx, &mut dropped) {
        assert_eq!(held.remove(&p.uid), Some(p.size), "packet {} departed but was not queued", p.uid);
    }
    for d in &dropped {
        assert_eq!(held.remove(&d.pkt.uid), Some(d.pkt.size), "packet {} dropped but was not queued", d.pkt.uid);
    }
    assert!(held.is_empty(), "packets never left: {held:?}");
    assert_eq!((q.packets(), q.bytes()), (0, 0));
}

/// Reads `queue = <inline table>` as the bottleneck's queue of a minimal scenario:
/// the config, or the scenario's one-line error.
pub fn scenario_queue(table: &str) -> Result<super::QueueConfig, String> {
    let text = format!(
        "duration = \"1s\"\n[traffic]\nmodel = \"bulk\"\n[bottleneck]\nrate = \"384kbps\"\nbuffer = \"100kB\"\nqueue = {table}\n"
    );
    crate::Scenario::from_toml_str(&text, &[]).map(|s| s.bottleneck.queue).map_err(|e| e.0)
}

// --------------------------------------------------------------------------- oracle replays

/// Link rates the oracle replays (rfc8033.rs, rfc8289.rs) switch between, bit/s.
pub const REPLAY_RATES: [f64; 4] = [64e3, 384e3, 2e6, 10e6];

/// One step of an oracle replay; `dt_us` advances the clock first.
#[derive(Clone, Debug)]
pub enum Replay {
    /// Packet `uid` (the step's index) of `size` bytes arrives, ECN-capable if `ect`.
    Arrive {
        dt_us: u64,
        size: u32,
        ect: bool,
    },
    Depart {
        dt_us: u64,
    },
    /// The link's rate becomes `REPLAY_RATES[i]`.
    Rate {
        dt_us: u64,
        i: usize,
    },
}

impl Replay {
    /// How far the step advances the clock.
    pub fn dt(&self) -> crate::time::Dur {
        let (Replay::Arrive { dt_us, .. } | Replay::Depart { dt_us } | Replay::Rate { dt_us, .. }) = self;
        crate::time::Dur::from_micros(*dt_us)
    }
}

/// The packet of an arrival step: [`ect`] or [`pkt`].
pub fn arrival(uid: u64, size: u32, is_ect: bool) -> Packet {
    if is_ect {
        ect(uid, size)
    } else {
        pkt(uid, size)
    }
}

/// Proptest's replay steps, weighted (arrivals, departures, rate changes): arrivals
/// and departures up to 20 and 40 ms apart, rate changes up to 100 ms.
pub fn replay_steps(weights: (u32, u32, u32)) -> impl Strategy<Value = Vec<Replay>> {
    let step = prop_oneof![
        weights.0 => (0..20_000u64, 40..1500u32, any::<bool>()).prop_map(|(dt_us, size, ect)| Replay::Arrive { dt_us, size, ect }),
        weights.1 => (0..40_000u64).prop_map(|dt_us| Replay::Depart { dt_us }),
        weights.2 => (0..100_000u64, 0..REPLAY_RATES.len()).prop_map(|(dt_us, i)| Replay::Rate { dt_us, i }),
    ];
    proptest::collection::vec(step, 0..800)
}

/// 60 000 replay steps from `rng`, weighted (arrivals, departures, rate changes):
/// arrivals up to 4 ms apart, departures up to `depart_us`, rate changes up to 20 ms.
pub fn random_replay(rng: &mut crate::rng::Rng, weights: (u32, u32, u32), depart_us: u64) -> Vec<Replay> {
    use rand::Rng as _;
    (0..60_000)
        .map(|_| {
            let k = rng.random_range(0..weights.0 + weights.1 + weights.2);
            if k < weights.0 {
                Replay::Arrive {
                    dt_us: rng.random_range(0..4_000),
                    size: rng.random_range(40..1500),
                    ect: rng.random(),
                }
            } else if k < weights.0 + weights.1 {
                Replay::Depart { dt_us: rng.random_range(0..depart_us) }
            } else {
                Replay::Rate { dt_us: rng.random_range(0..20_000), i: rng.random_range(0..REPLAY_RATES.len()) }
            }
        })
        .collect()
}
