//! The LTE downlink by hand: rates at a fixed SINR, the schedulers' shares,
//! RLC UM and AM under HARQ losses, conservation per UE.

use super::bearer::Bearer;
use super::config::LteDownlinkConfig;
use super::LteDl;
use crate::capacity::Schedule;
use crate::engine::EventQueue;
use crate::packet::Packet;
use crate::queue::testkit::pkt;
use crate::queue::{DropCause, Dropped, Limits, QueueConfig, QueueDisc};
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::lte::capacity::{Blocks, Capacity, Offer};
use crate::radio::lte::link_adaptation::DOWNLINK;
use crate::radio::ran::interface::Ran;
use crate::rng::stream;
use crate::time::{Dur, Time};

fn config(extra: &str) -> LteDownlinkConfig {
    let text = format!("bandwidth = \"9MHz\"\nuplink_delay = \"10ms\"\nsinr_db = 10.0\n{extra}");
    let c: LteDownlinkConfig = toml::from_str(&text).unwrap();
    c.validate("radio.lte_downlink").unwrap();
    c
}

/// A cell of `dl` whose UE u has the fixed SINR `sinrs[u]` and a PDCP buffer of `limit` bytes (tail drop).
fn cell(dl: &LteDownlinkConfig, sinrs: &[f64], limit: Option<u64>) -> LteDl {
    let bearers = (0..sinrs.len())
        .map(|u| {
            let q = QueueConfig::TailDrop.build(Limits { bytes: limit, packets: None }, stream(u as u64, "q"));
            Bearer::new(q, dl.peak_bps(), dl.rlc, &dl.harq, stream(u as u64, "harq"), dl.tti, dl.status_delay)
        })
        .collect();
    let fixed = |&s: &f64| Blocks::new(Capacity::Schedule(Schedule::fixed(9e6 * DOWNLINK.efficiency(s))), dl.tti);
    LteDl::with(dl, bearers, Offer::per_ue(sinrs.iter().map(fixed).collect()), None)
}

/// Round robin, one UE per TTI, RLC AM.
const ONE_AM: &str = "scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"";

pub(super) fn ms(v: u64) -> Time {
    Time::ZERO + Dur::from_millis(v)
}

/// What a run gave: packets delivered to the UEs with their times, and drops.
pub(super) struct Outcome {
    pub delivered: Vec<(Time, Packet)>,
    pub dropped: Vec<Dropped>,
}

/// Runs `ran` with downlink `arrivals` (time, UE, packet) until `end`.
pub(super) fn run(ran: &mut LteDl, arrivals: Vec<(Time, usize, Packet)>, end: Time) -> Outcome {
    let mut q: EventQueue<Result<RadioEvent, (usize, Packet)>> = EventQueue::new();
    for (t, u, p) in arrivals {
        q.schedule(t, Err((u, p)));
    }
    let mut out = RadioOut::default();
    let mut got = Outcome { delivered: Vec::new(), dropped: Vec::new() };
    while let Some((now, ev)) = q.pop_until(end) {
        match ev {
            Ok(ev) => ran.handle(now, ev, &mut out),
            Err((u, p)) => ran.arrive_down(now, u, p, &mut out),
        }
        for (at, ev) in out.schedule.drain(..) {
            q.schedule(at, Ok(ev));
        }
        got.delivered.extend(out.to_ue.drain(..).map(|p| (now, p)));
        got.dropped.append(&mut out.dropped);
    }
    got
}

/// `n` packets of 1500 B for each of `ues` UEs at time 0; packet k of UE u has uid k·ues + u.
pub(super) fn backlog(ues: usize, n: u64) -> Vec<(Time, usize, Packet)> {
    (0..n * ues as u64).map(|k| (Time::ZERO, (k % ues as u64) as usize, pkt(k, 1500))).collect()
}

/// UE `u`'s bytes (of `ues`, packet k going to UE k mod `ues`) by `end` ms:
/// (arrived, delivered, dropped, held in its PDCP buffer and RLC receiver).
pub(super) fn accounts(
    ran: &LteDl,
    arrivals: &[(Time, usize, Packet)],
    o: &Outcome,
    ues: u64,
    u: u64,
    end: u64,
) -> (u64, u64, u64, u64) {
    let arrived = arrivals.iter().filter(|a| a.0 <= ms(end) && a.1 as u64 == u).map(|a| a.2.size as u64).sum();
    let delivered = o.delivered.iter().filter(|d| d.1.uid % ues == u).map(|d| d.1.size as u64).sum();
    let dropped = o.dropped.iter().filter(|d| d.pkt.uid % ues == u).map(|d| d.pkt.size as u64).sum();
    let s = ran.system();
    let held = s.bearers[u as usize].queue().bytes() + s.receivers[u as usize].bytes();
    (arrived, delivered, dropped, held)
}

fn bytes_of(o: &Outcome, ues: u64, u: u64, from: Time, to: Time) -> u64 {
    o.delivered.iter().filter(|(t, p)| p.uid % ues == u && *t > from && *t <= to).map(|(_, p)| p.size as u64).sum()
}

/// At 10 dB: 0.6·log2(11) = 2.075659 bit/s/Hz over 9 MHz, 18.681 Mb/s,
/// 2335.116 B per TTI (the fraction carried). A saturated UE gets every TTI's
/// block (TTIs 0 to 1100 ms: 1101 of them); per 1000 TTIs 2 335 116 B, of
/// which the MAC subheader (3 B) and RLC header (2 B) take 5 B per block, a
/// length indicator about 1.5 B per SDU boundary and PDCP 2 B per 1500-byte
/// packet: 2 330 116 × 1500 / 1503.5 = 2 324 692 B of IP, 18.60 Mb/s.
#[test]
fn a_saturated_ue_gets_bandwidth_times_efficiency_less_headers() {
    let dl = config(ONE_AM);
    let mut c = cell(&dl, &[10.0], None);
    let o = run(&mut c, backlog(1, 3000), ms(1100));
    let granted = c.system().bearers[0].granted_bytes;
    assert_eq!(granted, (9e6 * DOWNLINK.efficiency(10.0) * 1.101 / 8.0).floor() as u64, "1101 TTIs of blocks");
    assert_eq!(granted, 2_570_963);
    let ip = bytes_of(&o, 1, 0, ms(50), ms(1050));
    assert!(ip.abs_diff(2_324_692) <= 1500 + 2_324_692 / 1000, "{ip}");
    assert!(o.dropped.is_empty());
}

/// Two saturated UEs at 0 dB (0.6 bit/s/Hz: 675 B per TTI) and 10 dB (2335.1 B),
/// one UE per TTI, over the 1001 TTIs from 0 to 1000 ms:
/// - round robin: 501 and 500 TTIs, bytes in the ratio of the rates, 3.459;
/// - max C/I: every TTI to the 10 dB UE;
/// - proportional fair: with fixed channels r/R̄ is equal when each has half
///   the TTIs: 500 each (± a few while the averages settle), bytes 3.459 : 1.
#[test]
fn the_schedulers_share_the_ttis_by_their_rules() {
    let shares = |scheduler: &str| {
        let dl = config(&format!("scheduler = \"{scheduler}\"\nues_per_tti = 1\nrlc = \"am\""));
        let mut c = cell(&dl, &[0.0, 10.0], None);
        run(&mut c, backlog(2, 3000), ms(1000));
        let b = &c.system().bearers;
        assert_eq!(c.system().counts.ttis_served, 1001, "TTIs 0 to 1000 ms");
        (b[0].opportunities, b[1].opportunities, b[0].granted_bytes, b[1].granted_bytes)
    };
    let (t0, t1, b0, b1) = shares("round_robin");
    assert_eq!((t0, t1), (501, 500));
    assert!((b1 as f64 / b0 as f64 - 2335.1 / 675.0).abs() < 0.01, "{b0} {b1}");
    let best = (9e6 * DOWNLINK.efficiency(10.0) * 1.001 / 8.0).floor() as u64;
    assert_eq!(shares("max_ci"), (0, 1001, 0, best), "all to the best");
    let (t0, t1, b0, b1) = shares("proportional_fair");
    assert!(t0.abs_diff(500) <= 3, "{t0} {t1}");
    assert!((b1 as f64 / b0 as f64 - 2335.1 / 675.0).abs() < 0.05, "{b0} {b1}");
}

/// Round robin with room for every UE in a TTI (`ues_per_tti` = 3, three
/// saturated UEs at 10 dB): each UE's need fills the TTI, so one UE is served
/// per TTI and the turn moves past it: 0, 1, 2, 0, … — 101, 100 and 100 of
/// the 301 TTIs from 0 to 300 ms. (A turn moved past the last UE *picked*
/// rather than served came back to the same UE every TTI: 301, 0, 0.)
#[test]
fn round_robin_turns_past_the_ue_served_not_every_ue_picked() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 3\nrlc = \"am\"");
    let mut c = cell(&dl, &[10.0; 3], None);
    run(&mut c, backlog(3, 3000), ms(300));
    let served: Vec<u64> = c.system().bearers.iter().map(|b| b.opportunities).collect();
    assert_eq!(served, [101, 100, 100]);
}

/// HARQ at 30 %: in AM every packet arrives once and in order; in UM the
/// SDUs touched by a block given up (4 failed transmissions: 0.3⁴ = 0.81 %
/// of blocks) are discarded as link losses, the others arrive in order.
#[test]
fn am_recovers_what_harq_gives_up_and_um_discards_it() {
    for rlc in ["am", "um"] {
        let dl =
            config(&format!("scheduler = \"round_robin\"\nues_per_tti = 1\nharq = {{ bler = 0.3 }}\nrlc = \"{rlc}\""));
        let mut c = cell(&dl, &[0.0], None);
        let arrivals: Vec<_> = (0..1000).map(|k| (ms(k * 3), 0, pkt(k, 1500))).collect();
        let o = run(&mut c, arrivals, ms(20_000));
        let got: Vec<u64> = o.delivered.iter().map(|d| d.1.uid).collect();
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{rlc}: in order");
        let failed = c.system().harq().failed;
        assert!(failed > 0, "{rlc}: some blocks given up");
        match rlc {
            "am" => assert_eq!((got.len(), o.dropped.len()), (1000, 0)),
            _ => {
                assert!(o.dropped.iter().all(|d| d.cause == DropCause::LinkLoss));
                assert!(!o.dropped.is_empty() && o.dropped.len() as u64 <= 3 * failed, "{} {failed}", o.dropped.len());
                assert_eq!(got.len() + o.dropped.len(), 1000);
            }
        }
    }
}

/// Per UE, at any instant: bytes arrived = delivered + dropped + in flight
/// (PDCP buffer, and the RLC stream not yet delivered), with overflow drops
/// at a small buffer and UM losses at 30 % BLER, three UEs under proportional fair.
#[test]
fn every_byte_of_each_ue_is_delivered_dropped_or_in_flight() {
    let dl = config("scheduler = \"proportional_fair\"\nues_per_tti = 2\nrlc = \"um\"\nharq = { bler = 0.3 }");
    let arrivals: Vec<_> = (0..6000u64).map(|k| (Time(k * 500_000), (k % 3) as usize, pkt(k, 1500))).collect();
    for end in [150, 1500, 3001] {
        let mut c = cell(&dl, &[-3.0, 5.0, 20.0], Some(30_000));
        let o = run(&mut c, arrivals.clone(), ms(end));
        for u in 0..3 {
            let (arrived, delivered, dropped, held) = accounts(&c, &arrivals, &o, 3, u, end);
            assert_eq!(arrived, delivered + dropped + held, "UE {u} at {end} ms");
        }
        if end == 3001 {
            let causes = |c: DropCause| o.dropped.iter().any(|d| d.cause == c);
            assert!(causes(DropCause::Overflow) && causes(DropCause::LinkLoss), "both kinds of drops happen");
        }
    }
}
