//! The LTE uplink radio model (`[radio] bearer = "lte_uplink"`, issue 21) in
//! the full simulator, with the scenarios of scenarios/lte-uplink/radio/.

mod common;

use cellaqm_core::metrics::Summary;
use cellaqm_core::radio::ran::lte_ul::LteStats;
use cellaqm_core::radio::ran::SystemSection;
use cellaqm_core::{RunResult, Scenario};
use std::sync::OnceLock;

/// The run's LTE uplink counters (`summary.lte`).
fn lte_stats(s: &Summary) -> LteStats {
    match &s.system {
        Some(SystemSection::Lte(lte)) => *lte,
        other => panic!("LTE counters, not {other:?}"),
    }
}

fn load(name: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lte-uplink/radio").join(name);
    Scenario::from_file(&path, &sets).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn drop_tail() -> &'static RunResult {
    static RUN: OnceLock<RunResult> = OnceLock::new();
    RUN.get_or_init(|| common::run_seed(&load("drop-tail.toml", &["duration=40s"]), 1))
}

fn up_mean(r: &RunResult) -> f64 {
    r.summary.delay_up_ms.mean.expect("uplink packets measured")
}

/// A bulk upload at 2 Mb/s of transport blocks: the goodput is the block rate
/// less the headers (MAC 3 B + RLC 2 B per 250-byte block, PDCP 2 B and an RLC
/// length indicator per 1500-byte packet, a 2-byte BSR every 20 ms: about
/// 2 % in all) and TCP/IP's 40 B per 1500; drop-tail fills the 1.25 MB buffer
/// (about 5 s at 2 Mb/s), so the mean delay is seconds.
#[test]
fn drop_tail_runs_at_the_block_rate_less_headers_and_fills_the_buffer() {
    let r = drop_tail();
    let s = &r.summary;
    let app = s.goodput_bps;
    assert!((1.86e6..1.94e6).contains(&app), "goodput {app}");
    let lte = lte_stats(s);
    assert!(lte.ue.bsrs > 1500 && lte.ue.srs >= 1, "{lte:?}");
    assert_eq!(lte.harq.retransmissions, 0);
    assert!(up_mean(r) > 2000.0, "{}", up_mean(r));
    assert_eq!(s.cells[0].downlink, "lte_uplink");
    // The eNodeB's BSR view, the extended levels (the default): the 1.25 MB queue is seen,
    // read at most at its level's upper edge (1 067 031 < BS ≤ 1 312 097).
    let b = s.bsr.as_ref().expect("BSR summary");
    assert!(b.reports > 1500 && (500_000.0..=1_312_097.0).contains(&b.mean_reported_bytes), "{b:?}");
}

/// R-AQM reading the quantised BSRs keeps the delay far below drop-tail's.
#[test]
fn raqm_on_quantised_bsrs_cuts_the_delay() {
    let r = common::run_seed(&load("raqm.toml", &["duration=40s"]), 1);
    assert!(up_mean(&r) < up_mean(drop_tail()) / 3.0, "{} vs {}", up_mean(&r), up_mean(drop_tail()));
    assert!(r.summary.goodput_bps > 0.85 * drop_tail().summary.goodput_bps);
    assert!(r.summary.uplink.drops.get("receiver").copied().unwrap_or(0) > 0, "{:?}", r.summary.uplink.drops);
}

/// Every scenario file of the directory runs and balances its byte ledger
/// (common::run_seed checks it); the HARQ one retransmits.
#[test]
fn the_scenario_files_run() {
    for name in ["taqm.toml", "combined-downswitch.toml", "square-wave-harq.toml"] {
        let r = common::run_seed(&load(name, &["duration=30s"]), 1);
        assert!(r.summary.goodput_bps > 0.0, "{name}");
        if name == "square-wave-harq.toml" {
            assert!(lte_stats(&r.summary).harq.retransmissions > 0);
        }
    }
}

/// Three UEs share the cell under proportional fair, one TTI each: the two
/// drop-tail UEs get equal shares (within 1 %), the UE whose buffer T-AQM
/// manages (a group) nearly as much (within 5 %: its TCP backs off at each
/// drop, and its short queue sometimes has nothing to send) at a tenth of
/// their delay; the cell stays busy.
#[test]
fn three_ues_share_the_cell_under_proportional_fair() {
    let r = common::run_seed(&load("three-ues-pf.toml", &["duration=40s"]), 1);
    let users = &r.users;
    let (a, b, c) = (users[0].goodput_bps, users[1].goodput_bps, users[2].goodput_bps);
    assert!((a - b).abs() < 0.01 * a && (a - c).abs() < 0.05 * a, "{a} {b} {c}");
    assert!(r.summary.cells[0].tti_utilisation.unwrap() > 0.95, "{:?}", r.summary.cells[0]);
    let mean = |u: usize| users[u].delay_up_ms.mean.expect("measured");
    assert!(mean(2) < mean(0) / 10.0, "{} vs {}", mean(2), mean(0));
    // Each user's row has its own UE buffer: T-AQM's holds a tenth of drop-tail's.
    let queue = |u: usize| users[u].buffer.as_ref().expect("the UE's buffer").mean_queue_bytes;
    assert!(queue(2) < queue(0) / 10.0 && queue(0) > 500_000.0, "{} vs {}", queue(2), queue(0));
}

#[test]
fn umts_keys_are_refused_with_the_lte_uplink() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lte-uplink/radio/drop-tail.toml"),
    )
    .unwrap();
    let err = |extra: &str| {
        let t = text.replace("[radio.lte]", &format!("{extra}\n[radio.lte]"));
        Scenario::from_toml_str(&t, &[]).unwrap_err().0
    };
    assert_eq!(err("buffer = \"30kB\""), "radio.buffer: not used with bearer = \"lte_uplink\" (see [radio.lte])");
    assert_eq!(
        err("[radio.hsdpa]\nrate = \"1Mbps\""),
        "radio.hsdpa: given, but radio.bearer is \"lte_uplink\" (use [radio.lte])"
    );
    let t = text.replace("[radio.lte]\nrate = \"2Mbps\"\nbsr_period = \"20ms\"\n", "");
    assert_eq!(
        Scenario::from_toml_str(&t, &[]).unwrap_err().0,
        "radio.lte: missing (required with bearer = \"lte_uplink\")"
    );
}

/// Without HARQ errors and with exact BSRs (`bsr_table = "exact"`), the
/// eNodeB's estimate of the head-of-line delay follows the truth: under
/// R-AQM (a queue of a few hundred ms) within one BSR period (20 ms) for 95 %
/// of the reports; under drop-tail (seconds of queue) within 1 % on average.
/// With the extended levels (about 23 % apart) drop-tail's estimate is within
/// 10 % on average; the legacy levels stop at 150 000 B, so under drop-tail's
/// 1.25 MB queue the estimate falls seconds short.
#[test]
fn the_estimate_follows_the_truth_with_exact_bsrs() {
    let with = |name: &str, table: &str| {
        let r = common::run_seed(&load(name, &["duration=40s", &format!("radio.lte.bsr_table={table}")]), 1);
        let b = r.summary.bsr.expect("BSR summary");
        assert!(b.reports > 1900, "{name}: {b:?}");
        b
    };
    let b = with("raqm.toml", "exact");
    assert!(b.error_ms.p95_abs < 20.0 && b.error_ms.mean_abs < 20.0, "{b:?}");
    let b = with("drop-tail.toml", "exact");
    assert!(b.mean_true_ms > 2000.0 && b.error_ms.mean_abs < 0.01 * b.mean_true_ms, "{b:?}");
    let extended = drop_tail().summary.bsr.as_ref().expect("BSR summary");
    assert!(extended.error_ms.mean_abs < 0.1 * extended.mean_true_ms, "{extended:?}");
    let legacy = with("drop-tail.toml", "legacy");
    assert!(legacy.error_ms.mean < -1000.0, "{legacy:?}");
}

/// Four UEs on their own fading channels (scenarios/lte-uplink/radio/four-ues-fading.toml):
/// each moves and fades on its own, so their goodputs differ; together they
/// share the cell.
#[test]
fn four_ues_on_their_own_channels() {
    let r = common::run_seed(&load("four-ues-fading.toml", &["duration=20s"]), 1);
    let users = &r.users;
    assert_eq!(users.len(), 4);
    assert!(users.iter().all(|u| u.bytes_up > 100_000), "{:?}", users.iter().map(|u| u.bytes_up).collect::<Vec<_>>());
    let mut up: Vec<u64> = users.iter().map(|u| u.bytes_up).collect();
    up.dedup();
    assert_eq!(up.len(), 4, "every UE its own goodput: {up:?}");
}
