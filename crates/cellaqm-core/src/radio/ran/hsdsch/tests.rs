//! The HS-DSCH system TTI by TTI with real bearers: link adaptation of a lone
//! user, code multiplexing, block errors and the handover's lost TTI.

use super::config::{CellsConfig, OtherCells};
use super::system::HsDsch;
use crate::packet::{Dir, Packet, TcpHeader};
use crate::radio::bearer::Bearer;
use crate::radio::config::{BearerKind, RadioConfig};
use crate::radio::env::layout::Layout;
use crate::radio::env::track::Track;
use crate::radio::env::EnvironmentKeys;
use crate::radio::event::RadioOut;
use crate::radio::ran::hsdpa::HsdpaConfig;
use crate::radio::scheduler::SchedulerKind;
use crate::time::{Dur, Time};
use crate::units::Speed;

/// No shadowing and no block errors unless asked: every figure below is hand-worked.
fn quiet() -> CellsConfig {
    let env = EnvironmentKeys { shadowing_sigma: Some(0.0), speed_max: Some(Speed(0.0)), ..EnvironmentKeys::default() };
    CellsConfig { env, bler: 0.0, ..CellsConfig::default() }
}

fn bearers(n: usize) -> Vec<Bearer> {
    let cfg: RadioConfig = toml::from_str("bearer = \"hsdpa\"\n[hsdpa]\n[rlc]\nwindow = 4095").unwrap();
    assert_eq!(cfg.bearer, BearerKind::Hsdpa);
    (0..n).map(|u| Bearer::new(u as u32, &cfg.bearer(u as u32), 7.2e6, 1)).collect()
}

/// Offers user `u` `n` IP packets of `size` bytes.
fn offer(b: &mut Bearer, n: u64, size: u32) {
    let mut out = RadioOut::default();
    for uid in 0..n {
        let mut p = Packet::tcp(0, Dir::Down, size, TcpHeader { len: (size - 40) as u16, ..TcpHeader::default() });
        p.uid = uid;
        b.arrive_down(Time::ZERO, p, &mut out);
    }
    assert!(out.dropped.is_empty());
}

/// Runs TTIs `from..to`; returns, per TTI, the PDUs each user got on the air.
fn run(h: &mut HsDsch, b: &mut [Bearer], from: u64, to: u64) -> Vec<Vec<usize>> {
    let tti = Dur::from_millis(2);
    let mut served = Vec::new();
    let mut pdus = Vec::new();
    (from..to)
        .map(|k| {
            let now = Time::ZERO + Dur(tti.0 * k);
            for (u, bearer) in b.iter_mut().enumerate() {
                h.set_busy(u, bearer.buffer_status(now).ready);
            }
            h.tti(now, b, &mut served);
            (0..b.len())
                .map(|u| {
                    pdus.clear();
                    h.air(u).arrivals(now + tti, &mut pdus);
                    pdus.len()
                })
                .collect()
        })
        .collect()
}

fn system(cfg: &CellsConfig, users: usize, scheduler: SchedulerKind) -> HsDsch {
    let hsdpa = HsdpaConfig { scheduler, air_delay: Dur::ZERO, ..HsdpaConfig::default() };
    HsDsch::new(cfg, &cfg.environment("radio.cells", None).unwrap(), users, &hsdpa, 42, 7)
}

#[test]
fn a_lone_user_near_its_base_station_gets_the_top_format() {
    // 50 m from the centre site, all other cells idle: S/(0.1·S + N) with S = 10 W · g(50 m)
    // = 10 · 10^-(128.1 − 45.54)/10 ≈ 5.5e-8 W: SIR → 10 dB, above 7.5 dB: 16QAM 5/8,
    // 1800 B per TTI = 42.86 PDUs of 42 B (fractions carried over): 3857 PDUs in 90 TTIs
    // (within the RLC window of 4095: the test hands nothing back to the UE's RLC).
    let mut h = system(&quiet(), 1, SchedulerKind::RoundRobin);
    h.place(0, Track::fixed((50.0, 0.0)));
    let mut b = bearers(1);
    offer(&mut b[0], 1000, 1500);
    let got = run(&mut h, &mut b, 0, 90);
    assert_eq!(got.iter().map(|g| g[0]).sum::<usize>(), 90 * 1800 / 42);
    assert_eq!(h.cell_stats(0).mcs_use, [0, 0, 0, 90]);
    // With 10% block errors the user gets 90% of that, each lost block sent again at once.
    // One code (150 B blocks: 3.57 PDUs a TTI) keeps 1000 TTIs within the RLC window.
    let mut h = system(&CellsConfig { bler: 0.1, codes: 1, ..quiet() }, 1, SchedulerKind::RoundRobin);
    h.place(0, Track::fixed((50.0, 0.0)));
    let mut b = bearers(1);
    offer(&mut b[0], 200, 1500);
    let got: usize = run(&mut h, &mut b, 0, 1000).iter().map(|g| g[0]).sum();
    let share = got as f64 / (1000.0 * 150.0 / 42.0);
    assert!((share - 0.9).abs() < 0.03, "{share}");
    let s = h.cell_stats(0);
    assert_eq!(s.ttis_on_air, s.blocks + s.blocks_lost, "every loss is one more TTI");
}

#[test]
fn a_lone_user_at_each_formats_sir_gets_its_rate_less_the_block_errors() {
    // 50 m from the centre site, other cells idle: S = 10 W · 10^-(128.1 − 45.54)/10 = 5.5416e-8 W,
    // and the noise sets the SIR = S/(0.1 S + N):
    //   N = −40 dBm: 5.5416e-8 / 1.0554e-7 = 0.525 (−2.80 dB): QPSK 1/4;
    //   N = −45 dBm: 5.5416e-8 / 3.7164e-8 = 1.491 (1.73 dB): QPSK 1/2;
    //   N = −50 dBm: 5.5416e-8 / 1.5542e-8 = 3.566 (5.52 dB): 16QAM 3/8;
    //   N = −60 dBm: 5.5416e-8 / 6.5416e-9 = 8.471 (9.28 dB): 16QAM 5/8.
    // One code (120, 240, 360, 600 kb/s: 30, 60, 90, 150 B a TTI) keeps 1000 TTIs within the
    // RLC window; with 10% block errors the user gets 90% of that format's rate.
    for (m, noise_dbm, block) in [(0, -40.0, 30.0), (1, -45.0, 60.0), (2, -50.0, 90.0), (3, -60.0, 150.0)] {
        let q = quiet();
        let cfg = CellsConfig {
            bler: 0.1,
            codes: 1,
            env: EnvironmentKeys { noise_dbm: Some(noise_dbm), ..q.env.clone() },
            ..q
        };
        let mut h = system(&cfg, 1, SchedulerKind::RoundRobin);
        h.place(0, Track::fixed((50.0, 0.0)));
        let mut b = bearers(1);
        offer(&mut b[0], 250, 1500);
        let got: usize = run(&mut h, &mut b, 0, 1000).iter().map(|g| g[0]).sum();
        let share = got as f64 * 42.0 / (1000.0 * block);
        assert!((share - 0.9).abs() < 0.03, "format {m}: {share}");
        let s = h.cell_stats(0);
        assert_eq!(s.mcs_use.iter().sum::<u64>(), s.mcs_use[m], "format {m} only: {:?}", s.mcs_use);
    }
}

#[test]
fn far_users_get_lower_formats_and_beyond_the_edge_none() {
    // A lone user 400 m out, noise only: S = 10·10^-(128.1 − 13.93)/10 = 3.83e-11 W,
    // SIR = S/(0.1 S + 1e-13) = 9.75 (9.9 dB): still the top format.
    let mut h = system(&quiet(), 2, SchedulerKind::RoundRobin);
    h.place(0, Track::fixed((400.0, 0.0)));
    let l = Layout::hex7(500.0, true);
    h.place(1, Track::fixed((l.site(1).0 + 10.0, l.site(1).1))); // next to cell 1's site
    let mut b = bearers(2);
    offer(&mut b[0], 1000, 1500);
    run(&mut h, &mut b, 0, 10);
    assert_eq!(h.cell_stats(0).mcs_use, [0, 0, 0, 10], "9.9 dB alone");
    // User 0 moves to the cell edge (midway, 433 m from sites 0 and 1) and user 1 gets data:
    // in the first TTI cell 1 was silent in the last one, so SIR = S/(0.1 S + N) = 9.8 dB;
    // from then on cell 1 transmits and SIR = S/(0.1 S + S + N) = −0.4 dB: QPSK 1/4
    // (at least −3.5 dB, below QPSK 1/2's 0 dB).
    let mid = (l.site(1).0 / 2.0 - 0.01, l.site(1).1 / 2.0 - 0.01);
    h.place(0, Track::fixed(mid));
    offer(&mut b[1], 1000, 1500);
    run(&mut h, &mut b, 10, 20);
    assert_eq!(h.cell_stats(0).mcs_use, [9, 0, 0, 11], "−0.4 dB at the edge with cell 1 on air");
    assert_eq!(h.cell_stats(1).mcs_use, [0, 0, 0, 10]);
}

#[test]
fn code_multiplexing_splits_one_tti_by_hand() {
    // Two users near the centre site, both at 16QAM 5/8 (1800 B). User 0 has one 400 B packet:
    // 10 PDUs of 40 B payload = 420 B, 0.2333 of the block. User 1 gets the remaining
    // 0.7667 × 1800 = 1380 B: 32 PDUs (1344 B), 36 B carried over.
    let mut h = system(&quiet(), 2, SchedulerKind::RoundRobin);
    h.place(0, Track::fixed((30.0, 0.0)));
    h.place(1, Track::fixed((0.0, 30.0)));
    let mut b = bearers(2);
    offer(&mut b[0], 1, 400);
    offer(&mut b[1], 100, 1500);
    let got = run(&mut h, &mut b, 0, 2);
    assert_eq!(got[0], [10, 32]);
    // Next TTI: user 1 alone, the full block plus the 36 B carried: 1836 B = 43 PDUs (1806 B).
    assert_eq!(got[1], [0, 43]);
    let s = h.cell_stats(0);
    assert_eq!((s.blocks, s.users_served), (2, 3));
}

#[test]
fn a_handover_costs_exactly_one_tti() {
    // A user walking at 10 m/s from cell 0 towards cell 1 along the line between the two
    // sites, starting 0.51 m before the midpoint (433 m from each): 2 cm per TTI, the channel
    // updated every centimetre. It crosses in TTI 26 and is served in every TTI but that one.
    let q = quiet();
    let cfg =
        CellsConfig { env: EnvironmentKeys { channel_step: Some(crate::units::Meters(0.01)), ..q.env.clone() }, ..q };
    let mut h = system(&cfg, 1, SchedulerKind::MaxCi);
    let l = Layout::hex7(500.0, true);
    let (sx, sy) = l.site(1);
    let len = (sx * sx + sy * sy).sqrt();
    let (ux, uy) = (sx / len, sy / len);
    let start = (ux * (len / 2.0 - 0.51), uy * (len / 2.0 - 0.51));
    h.place(0, Track::moving(start, (10.0 * ux, 10.0 * uy), Time::ZERO));
    let mut b = bearers(1);
    offer(&mut b[0], 1000, 1500);
    let got = run(&mut h, &mut b, 0, 60);
    let idle: Vec<usize> = got.iter().enumerate().filter(|(_, g)| g[0] == 0).map(|(k, _)| k).collect();
    assert_eq!(idle, [26], "the one TTI without service");
    assert_eq!((h.handovers(0), h.cell_of(0)), (1, 1));
    assert_eq!(h.cell_stats(1).handovers_in, 1);
}

#[test]
fn max_sir_serves_the_better_channel_and_round_robin_takes_turns() {
    // Both users reach the top format (30 m: SIR 9.99 dB; 300 m: 9.9 dB), one user per TTI:
    // max-SIR ranks by SIR, not by format, so the nearer user gets every TTI while it has
    // data; round robin alternates. 1800 B a TTI: 42 PDUs (36 B carried), then 43 (30 B carried)…
    let cfg = CellsConfig { users_per_tti: 1, ..quiet() };
    for (kind, want) in [
        (SchedulerKind::MaxCi, [[42, 0], [43, 0], [43, 0], [43, 0]]),
        (SchedulerKind::RoundRobin, [[42, 0], [0, 42], [43, 0], [0, 43]]),
    ] {
        let mut h = system(&cfg, 2, kind);
        h.place(0, Track::fixed((30.0, 0.0)));
        h.place(1, Track::fixed((-300.0, 0.0)));
        let mut b = bearers(2);
        offer(&mut b[0], 100, 1500);
        offer(&mut b[1], 100, 1500);
        let got = run(&mut h, &mut b, 0, 4);
        assert_eq!(got, want, "{kind:?}");
    }
}

#[test]
fn fully_loaded_neighbours_interfere_in_every_tti() {
    // A lone user at the edge between cells 0 and 1 (433 m from both sites), no shadowing.
    // Neighbours idle (`on_air`): S/(0.1 S + N) = 9.8 dB, the top format. Every other cell
    // at 10 W in every TTI (`full`): site 1 alone sends as much as the serving site, so
    // SIR < S/(0.1 S + S) = −0.4 dB; sites 2 and 6 at 750 m add 2·(433/750)^3.5 = 0.29 S and
    // the farther ones about 0.1 S: −1.7 dB, QPSK 1/4 (at least −3.5 dB).
    let l = Layout::hex7(500.0, true);
    let mid = (l.site(1).0 / 2.0 - 0.01, l.site(1).1 / 2.0 - 0.01);
    for (interference, want) in [(OtherCells::OnAir, [0, 0, 0, 10]), (OtherCells::Full, [10, 0, 0, 0])] {
        let mut h = system(&CellsConfig { interference, ..quiet() }, 1, SchedulerKind::RoundRobin);
        h.place(0, Track::fixed(mid));
        let mut b = bearers(1);
        offer(&mut b[0], 1000, 1500);
        run(&mut h, &mut b, 0, 10);
        assert_eq!(h.cell_stats(0).mcs_use, want, "{interference:?}");
    }
}

/// Three saturated users at the top format, up to three per TTI, round
/// robin: the first picked fills the block but for 36 B, less than a PDU.
/// Each user gets its turn (within 10 % over 30 TTIs). Before, the cell asked
/// for three users at once and the turn moved past all three: user 0 got
/// 42–43 PDUs in every TTI, user 1 one PDU in 12 TTIs, user 2 none.
#[test]
fn round_robin_turns_past_the_user_served_when_one_fills_the_block() {
    let mut h = system(&CellsConfig { users_per_tti: 3, ..quiet() }, 3, SchedulerKind::RoundRobin);
    h.place(0, Track::fixed((30.0, 0.0)));
    h.place(1, Track::fixed((-30.0, 0.0)));
    h.place(2, Track::fixed((0.0, 30.0)));
    let mut b = bearers(3);
    for bearer in &mut b {
        offer(bearer, 100, 1500);
    }
    let got = run(&mut h, &mut b, 0, 30);
    let pdus: Vec<usize> = (0..3).map(|u| got.iter().map(|tti| tti[u]).sum()).collect();
    assert!(pdus.iter().all(|&p| p.abs_diff(430) <= 43), "{pdus:?}");
    let first: Vec<Option<usize>> = got[..6].iter().map(|tti| tti.iter().position(|&n| n > 0)).collect();
    assert_eq!(first, [Some(0), Some(1), Some(2), Some(0), Some(1), Some(2)]);
}
