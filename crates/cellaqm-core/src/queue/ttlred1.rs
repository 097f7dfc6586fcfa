//! TTLRED1, TTL-based RED on incoming packets (Lakkakorpi & Cuny, WCNC 2006;
//! Lakkakorpi & Cuny, WCNC 2006, scheme 5).
//!
//! Rule: every packet is timestamped on entry. On each arrival the sojourn
//! time of the oldest queued packet (now − its timestamp; 0 when empty) takes
//! the place of the average queue in gentle RED with lowTh 0.25 s, highTh
//! 1.5 s, maxDP 0.1 (and RED's count correction). A drop counter also applies:
//! only every N-th packet may be dropped or marked, even above highTh — after
//! a signal the next N−1 accepted packets are accepted without asking RED.
//!
//! N is not given by the study; the default N = 10 = 1/maxDP caps the signal
//! rate at maxDP, the rate gentle RED reaches at highTh. Above highTh the
//! oldest packet's sojourn stays high for a whole queue-drain time after the
//! first drops, so without the counter RED would drop bursts there; with it,
//! TTLRED1 drops at most about three packets per 30-packet advertised window
//! (the study's), one congestion signal per round trip in the study's setting.

use super::pdpc::DropCounter;
use super::red::{check_probability, RedCurve};
use super::signal::{overflow, signal, DropPosition};
use super::{Fifo, Limits, QueueCtx, Scheme, Tally};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::Dur;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Parameters of `ttlred1` (defaults: the WCDMA study's; `every` our choice, see the module doc).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ttlred1Params {
    /// Sojourn time of the oldest packet where signalling starts (time).
    pub low_th: Dur,
    /// Sojourn time where the probability reaches `max_p` (time); it then rises to 1 at 2·high_th.
    pub high_th: Dur,
    /// Drop probability at `high_th` (probability, in (0, 1]).
    pub max_p: f64,
    /// N: only every N-th packet may be dropped or marked (packets, ≥ 1; 1 = no limit).
    pub every: u32,
    /// Which packet a signal falls on: `"tail"` (the arrival) or `"front"` (the oldest).
    pub drop: DropPosition,
    /// ECN-mark ECT packets instead of dropping them.
    pub ecn: bool,
}

impl Default for Ttlred1Params {
    fn default() -> Self {
        Ttlred1Params {
            low_th: Dur::from_millis(250),
            high_th: Dur::from_millis(1500),
            max_p: 0.1,
            every: 10,
            drop: DropPosition::Tail,
            ecn: false,
        }
    }
}

impl Ttlred1Params {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        super::signal::check_not_ns2(self.drop, &format!("{key}.drop"))?;
        if self.high_th <= self.low_th {
            return Err(format!("{key}.high_th: must exceed low_th"));
        }
        check_probability(self.max_p, &format!("{key}.max_p"))?;
        if self.every == 0 {
            return Err(format!("{key}.every: must be at least 1"));
        }
        Ok(())
    }
}

pub struct Ttlred1 {
    fifo: Fifo,
    low_s: f64,
    high_s: f64,
    curve: RedCurve,
    counter: DropCounter,
    position: DropPosition,
    ecn: bool,
    rng: Rng,
}

impl Ttlred1 {
    pub fn new(params: &Ttlred1Params, rng: Rng) -> Ttlred1 {
        Ttlred1 {
            fifo: Fifo::default(),
            low_s: params.low_th.as_secs_f64(),
            high_s: params.high_th.as_secs_f64(),
            curve: RedCurve::new(params.max_p, true),
            counter: DropCounter::new(params.every - 1),
            position: params.drop,
            ecn: params.ecn,
            rng,
        }
    }
}

impl Scheme for Ttlred1 {
    fn on_arrival(&mut self, pkt: Packet, ctx: &QueueCtx, tally: &mut Tally) -> Option<Packet> {
        let sojourn = self.fifo.front().map_or(Dur::ZERO, |head| ctx.now.since(head.enqueued_at));
        let rng = &mut self.rng;
        let hit = self.counter.ready()
            && self.curve.decide(sojourn.as_secs_f64(), self.low_s, self.high_s, || rng.random::<f64>());
        match self.counter.arrival(hit) {
            true => signal(&mut self.fifo, pkt, self.position, self.ecn, tally),
            false => Some(pkt),
        }
    }

    counted_fifo!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testkit::{check_invariants, ops, pkt, run, Step::*};
    use crate::queue::DropCause::Early;
    use crate::queue::{Disc, QueueDisc};
    use crate::rng::stream;

    #[test]
    fn scripted_sojourn_thresholds_and_drop_counter() {
        // lowTh 0.25 s, highTh 1.5 s, gentle: the signal is certain once the oldest packet
        // has waited 2·highTh = 3 s. N = 3: after a signal two packets are accepted unasked.
        let params = Ttlred1Params { every: 3, ..Ttlred1Params::default() };
        let mut q = Disc::new(Limits::default(), Ttlred1::new(&params, stream(1, "q")));
        run(
            &mut q,
            &[
                Arrive(0.0, pkt(1, 1000), &[]),              // empty: sojourn 0
                Arrive(200.0, pkt(2, 1000), &[]),            // oldest (1) waited 0.2 s < lowTh
                Arrive(3000.0, pkt(3, 1000), &[(3, Early)]), // 1 waited 3 s ≥ 2·highTh: drop
                Arrive(3001.0, pkt(4, 1000), &[]),           // counter: 1st accepted unasked
                Arrive(3002.0, pkt(5, 1000), &[]),           // 2nd accepted unasked
                Arrive(3003.0, pkt(6, 1000), &[(6, Early)]), // 3rd: RED again, sojourn > 3 s: drop
                Depart(3004.0, Some(1), &[]),
                Depart(3005.0, Some(2), &[]),
                Depart(3006.0, Some(4), &[]),      // oldest now 5, entered at 3.002 s
                Arrive(3010.0, pkt(7, 1000), &[]), // counter 2 → 1
                Arrive(3011.0, pkt(8, 1000), &[]), // counter 1 → 0
                Arrive(3012.0, pkt(9, 1000), &[]), // RED asked: 5 waited 10 ms < lowTh: accept
            ],
        );
        assert_eq!(q.packets(), 4);
    }

    #[test]
    fn validation_names_the_key() {
        let k = "bottleneck.queue";
        let p = Ttlred1Params { high_th: Dur::from_millis(100), ..Ttlred1Params::default() };
        assert_eq!(p.validate(k), Err("bottleneck.queue.high_th: must exceed low_th".into()));
        let p = Ttlred1Params { max_p: 0.0, ..Ttlred1Params::default() };
        assert!(p.validate(k).unwrap_err().starts_with("bottleneck.queue.max_p:"));
        let p = Ttlred1Params { every: 0, ..Ttlred1Params::default() };
        assert!(p.validate(k).unwrap_err().starts_with("bottleneck.queue.every:"));
        let e = toml::from_str::<Ttlred1Params>("low_th = \"-1s\"").unwrap_err();
        assert!(e.message().contains("non-negative"), "{e}");
    }

    #[test]
    fn scenario_syntax() {
        use crate::queue::testkit::scenario_queue;
        use crate::queue::QueueConfig;
        let q = scenario_queue(
            r#"{ scheme = "ttlred1", low_th = "0.25s", high_th = "1.5s", max_p = 0.1, every = 10, ecn = false }"#,
        );
        assert_eq!(q, Ok(QueueConfig::Ttlred1(Ttlred1Params::default())));
        let e = scenario_queue(r#"{ scheme = "ttlred1", high_th = "100ms" }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.high_th: must exceed low_th");
        let e = scenario_queue(r#"{ scheme = "ttlred1", low_th = "-1s" }"#).unwrap_err();
        assert_eq!(e, "bottleneck.queue.low_th: a duration must be non-negative, got \"-1s\"");
    }

    proptest::proptest! {
        #[test]
        fn invariants(ops in ops(), front: bool, ecn: bool, every in 1..12u32) {
            // Short thresholds so the random sequences reach every region.
            let params = Ttlred1Params {
                low_th: Dur::from_millis(20),
                high_th: Dur::from_millis(100),
                every,
                drop: if front { DropPosition::Front } else { DropPosition::Tail },
                ecn,
                ..Ttlred1Params::default()
            };
            check_invariants(&mut Disc::new(Limits { bytes: Some(20_000), packets: None }, Ttlred1::new(&params, stream(2, "q"))), &ops);
        }
    }
}
