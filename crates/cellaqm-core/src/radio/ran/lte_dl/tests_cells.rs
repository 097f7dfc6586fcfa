//! The LTE downlink with several cells, by hand: the SNR rate when the other
//! cells are idle, the SINR between two loaded sites, each cell scheduling
//! only its own UEs, conservation across a handover (determinism:
//! tests/lte_downlink.rs).

use super::bearer::Bearer;
use super::config::LteDownlinkConfig;
use super::links::Links;
use super::tests::{accounts, backlog, ms, run};
use super::{set_rates, LteDl};
use crate::queue::testkit::pkt;
use crate::queue::{Limits, QueueConfig};
use crate::radio::env::layout::{Layout, Point};
use crate::radio::env::rayleigh::Rayleigh;
use crate::radio::env::track::Track;
use crate::radio::env::EnvironmentKeys;
use crate::radio::lte::channel::{DOWNLINK_BUDGET, PATH_LOSS};
use crate::radio::lte::link_adaptation::DOWNLINK;
use crate::radio::ran::interface::Ran;
use crate::rng::stream;
use crate::time::Time;
use rand::Rng as _;

const CHANNEL: &str = "[channel]\nspeed = \"0m/s\"\ncell_radius = \"500m\"\ncarrier = \"2GHz\"\n";

fn config(extra: &str) -> LteDownlinkConfig {
    let text = format!("bandwidth = \"9MHz\"\nuplink_delay = \"10ms\"\n{extra}\n{CHANNEL}");
    let c: LteDownlinkConfig = toml::from_str(&text).unwrap();
    c.validate("radio.lte_downlink").unwrap();
    c
}

/// Seven 500 m cells with wrap-around (`env`: more `[radio.environment]` keys), UE u on `tracks[u]`.
fn links(dl: &LteDownlinkConfig, env: &str, tracks: Vec<Track>) -> Links {
    let keys: EnvironmentKeys = toml::from_str(&format!("layout = \"hex7\"\n{env}")).unwrap();
    let env = dl.environment("radio.lte_downlink", Some(("radio.environment", &keys))).unwrap().unwrap();
    let rngs = (0..tracks.len()).map(|u| stream(u as u64, "links")).collect();
    let mut l = Links::new(&env, dl.bandwidth.0, &DOWNLINK_BUDGET, rngs);
    for (u, t) in tracks.into_iter().enumerate() {
        l.place(u, t);
    }
    l
}

/// The system of `dl` on `links`, PDCP buffers of `limit` bytes (tail drop).
fn system(dl: &LteDownlinkConfig, links: Links, limit: Option<u64>) -> LteDl {
    let bearers = (0..links.ues())
        .map(|u| {
            let q = QueueConfig::TailDrop.build(Limits { bytes: limit, packets: None }, stream(u as u64, "q"));
            Bearer::new(q, dl.peak_bps(), dl.rlc, &dl.harq, stream(u as u64, "harq"), dl.tti, dl.status_delay)
        })
        .collect();
    LteDl::with(dl, bearers, set_rates(dl, &links), Some(links))
}

/// Site `c` of the seven, moved by `r` m at `deg` degrees.
fn near(c: usize, r: f64, deg: f64) -> Point {
    let s = Layout::hex7(500.0, true).site(c);
    (s.0 + r * deg.to_radians().cos(), s.1 + r * deg.to_radians().sin())
}

fn standing(points: &[Point]) -> Vec<Track> {
    points.iter().map(|&p| Track::fixed(p)).collect()
}

/// UE noise over 9 MHz: −174 + 69.542 + 9 = −95.458 dBm.
fn noise_dbm() -> f64 {
    -174.0 + 10.0 * 9e6f64.log10() + 9.0
}

/// One UE with data, 480 m east of site 0 (its nearest: sites 1 and 6 are
/// 510 m away), another standing idle in cell 3: no cell but the UE's own
/// transmits, so its SINR is its SNR, 46 − 116.115 + 95.458 = 25.34 dB, times
/// the fading of its link, and its grants are 9 MHz × the efficiency of that
/// each TTI (the fraction of a byte carried) — the one-cell rule at its distance.
#[test]
fn with_the_other_cells_idle_the_rate_is_that_of_the_snr() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"");
    let l = links(&dl, "", standing(&[near(0, 480.0, 0.0), near(3, 100.0, 0.0)]));
    assert_eq!((l.cell(0), l.cell(1)), (0, 3));
    let mut ran = system(&dl, l, None);
    run(&mut ran, backlog(1, 5000), ms(1000));
    // The fading of UE 0's link, drawn as the links draw it: place, speed, heading, then the paths.
    let mut rng = stream(0, "links");
    Layout::hex7(500.0, true).place_uniform(&mut rng);
    rng.random::<f64>();
    Track::heading((0.0, 0.0), Time::ZERO, 0.0, &mut rng);
    let mut fading = Rayleigh::new(0.0, 2e9, &mut rng);
    let snr = 10f64.powf((46.0 - PATH_LOSS.loss_db(480.0) - noise_dbm()) / 10.0);
    assert!((10.0 * snr.log10() - 25.34).abs() < 0.01);
    let (mut carry, mut want) = (0.0, 0u64);
    for k in 0..=1000 {
        let exact = carry + 9e6 * DOWNLINK.efficiency_of_ratio(fading.gain(ms(k)) * snr) * 1e-3 / 8.0;
        want += exact as u64;
        carry = exact - (exact as u64) as f64;
    }
    let s = ran.system();
    assert!(s.bearers[0].granted_bytes.abs_diff(want) <= 3, "{} vs {want}", s.bearers[0].granted_bytes);
    let served: Vec<u64> = s.cells.iter().map(|c| c.stats.ttis_served).collect();
    assert_eq!(served, [1001, 0, 0, 0, 0, 0, 0]);
}

/// Midway between sites 0 and 1 (433.01 m from each): path loss 114.432 dB,
/// received −68.432 dBm from each, S/N = 27.025 dB = 504.10. Both loaded:
/// SINR = 504.10 / (1 + 504.10) = 0.99802 (−0.0086 dB); site 1 at half load:
/// 504.10 / (1 + 252.05) = 1.9921 (2.99 dB); the serving cell's own load and
/// idle sites change nothing.
#[test]
fn midway_between_two_loaded_sites_the_sinr_is_0_db_less_the_noise() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"");
    let (a, b) = (near(0, 0.0, 0.0), near(1, 0.0, 0.0));
    let l = links(&dl, "", standing(&[((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)]));
    assert_eq!(l.cell(0), 0, "the lower index of two equal sites");
    let loads = |l0: f64, l1: f64| [l0, l1, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert!((l.mean_sinr(0, &loads(1.0, 1.0)) - 0.998_020).abs() < 1e-5, "{}", l.mean_sinr(0, &loads(1.0, 1.0)));
    assert_eq!(l.mean_sinr(0, &loads(0.0, 1.0)), l.mean_sinr(0, &loads(1.0, 1.0)));
    assert!((l.mean_sinr(0, &loads(1.0, 0.5)) - 1.992_096).abs() < 1e-5);
    assert!((l.mean_sinr(0, &loads(1.0, 0.0)) - 504.098).abs() < 1e-2);
}

/// The load is what the cell used of its TTI: two saturated UEs standing
/// near sites 0 and 1 fill their cells' TTIs (load 1 each, the others 0), so
/// a third UE midway sees the SINR of two loaded sites; with UE 1 idle, only
/// the noise.
#[test]
fn a_cell_interferes_with_what_it_used_of_the_previous_tti() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"");
    let (a, b) = (near(0, 0.0, 0.0), near(1, 0.0, 0.0));
    let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    for (busy, want) in [(vec![0, 1], 0.998_020), (vec![0], 504.098)] {
        let l = links(&dl, "", standing(&[near(0, 100.0, 210.0), near(1, 100.0, 30.0), mid]));
        let mut ran = system(&dl, l, None);
        let arrivals = (0..200).flat_map(|k| busy.iter().map(move |&u| (Time::ZERO, u, pkt(k * 3 + u as u64, 1500))));
        run(&mut ran, arrivals.collect(), ms(50));
        let s = ran.system();
        let sinr = s.links().unwrap().mean_sinr(2, s.loads());
        assert!((sinr - want).abs() < 1e-2 * want, "UEs {busy:?} busy: loads {:?}, SINR {sinr}", s.loads());
    }
}

/// Two UEs standing in cell 0 and two in cell 3, saturated, round robin with
/// one UE per TTI: each cell serves every TTI (1001 from 0 to 1000 ms), only
/// its own UEs, 501 and 500 TTIs each; the other cells never serve.
#[test]
fn each_cell_schedules_only_the_ues_it_serves() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"");
    let at = [near(0, 100.0, 0.0), near(3, 150.0, 90.0), near(0, 200.0, 180.0), near(3, 50.0, 270.0)];
    let mut ran = system(&dl, links(&dl, "", standing(&at)), None);
    run(&mut ran, backlog(4, 3000), ms(1000));
    let cells: Vec<u32> = (0..4).map(|u| ran.cell_of(u)).collect();
    assert_eq!(cells, [0, 3, 0, 3]);
    let s = ran.system();
    let served: Vec<u64> = s.cells.iter().map(|c| c.stats.ttis_served).collect();
    assert_eq!(served, [1001, 0, 0, 1001, 0, 0, 0]);
    let per_ue: Vec<u64> = s.bearers.iter().map(|b| b.opportunities).collect();
    assert_eq!(per_ue, [501, 501, 500, 500]);
    let rows = ran.cells(ms(1000));
    assert_eq!(rows.iter().map(|r| r.users).collect::<Vec<_>>(), [2, 0, 0, 2, 0, 0, 0]);
    assert!(rows.iter().all(|r| r.downlink == "lte_downlink"));
    assert_eq!(ran.handovers(0), Some(0));
}

/// A UE walks from 350 m out of site 0 towards site 1 at 30 m/s: it is
/// handed over once site 1's gain is 3 dB above site 0's, at
/// 37.6·log10(d0/d1) = 3 dB, d0 = 472.71 m, after 4.0903 s (at the next
/// 0.1 m channel step, by 4.0937 s). Another UE stands
/// in cell 1; both get traffic into 30 kB buffers, RLC UM, 30% BLER.
/// For each UE, before and after the handover: bytes arrived = delivered +
/// dropped + held (PDCP buffer and reassembly).
#[test]
fn every_byte_of_a_ue_handed_over_is_delivered_dropped_or_held() {
    let dl = config("scheduler = \"proportional_fair\"\nues_per_tti = 2\nrlc = \"um\"\nharq = { bler = 0.3 }");
    let dir = 30f64.to_radians();
    let walker = Track::moving(near(0, 350.0, 30.0), (30.0 * dir.cos(), 30.0 * dir.sin()), Time::ZERO);
    let arrivals: Vec<_> = (0..12_000u64).map(|k| (Time(k * 500_000), (k % 2) as usize, pkt(k, 1500))).collect();
    for end in [4000, 4090, 4094, 6000] {
        let l = links(&dl, "", vec![walker.clone(), Track::fixed(near(1, 200.0, 90.0))]);
        let mut ran = system(&dl, l, Some(30_000));
        let o = run(&mut ran, arrivals.clone(), ms(end));
        let handed = ran.handovers(0).unwrap();
        assert_eq!((handed, ran.cell_of(0)), if end < 4094 { (0, 0) } else { (1, 1) }, "at {end} ms");
        for u in 0..2 {
            let (arrived, delivered, dropped, held) = accounts(&ran, &arrivals, &o, 2, u, end);
            assert_eq!(arrived, delivered + dropped + held, "UE {u} at {end} ms");
            assert!(delivered > 0, "UE {u} at {end} ms");
        }
        assert_eq!(ran.system().cells[1].stats.handovers_in, handed);
    }
}

/// `[radio.environment]` for the LTE downlink: hex layouts with tracks, the
/// disc with random waypoint; keys a layout does not use are errors naming them.
#[test]
fn the_environment_accepts_several_cells_and_names_wrong_keys() {
    let dl = config("scheduler = \"round_robin\"\nues_per_tti = 1\nrlc = \"am\"");
    let env = |text: &str| {
        let keys: EnvironmentKeys = toml::from_str(text).unwrap();
        dl.environment("radio.lte_downlink", Some(("radio.environment", &keys))).unwrap()
    };
    let e = env("layout = \"hex\"\nrings = 2\nshadowing_sigma = 8.0").unwrap();
    assert_eq!((e.layout().cells(), e.wrap_around, e.shadowing_site_correlation, e.channel_step), (19, true, 0.5, 0.1));
    assert_eq!(
        env("layout = \"hex7\"\nmobility = \"waypoint\"").unwrap_err(),
        "radio.environment.mobility: the LTE downlink models \"track\", not \"waypoint\""
    );
    assert_eq!(
        env("shadowing_sigma = 8.0").unwrap_err(),
        "radio.environment.shadowing_sigma: not used by the LTE downlink"
    );
    assert_eq!(
        env("layout = \"hex7\"\nnoise_dbm = -100.0").unwrap_err(),
        "radio.environment.noise_dbm: not used by the LTE downlink"
    );
}
