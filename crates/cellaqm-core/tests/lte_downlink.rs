//! The LTE downlink radio (`[radio] bearer = "lte_downlink"`, issue 41) in
//! the full simulator, with the scenarios of scenarios/lte-downlink/.

mod common;

use cellaqm_core::{RunResult, Scenario};

fn load(name: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lte-downlink").join(name);
    Scenario::from_file(&path, &sets).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn describe(r: &RunResult) -> String {
    let s = &r.summary;
    format!(
        "goodput {:.2} Mb/s, delay mean {:?} p95 {:?} ms, drops {:?}, cells {:?}, users {:?}",
        s.goodput_bps / 1e6,
        s.delay_ms.mean,
        s.delay_ms.p95,
        s.drops,
        s.cells,
        r.users.iter().map(|u| (u.goodput_bps / 1e6 * 100.0).round() / 100.0).collect::<Vec<_>>()
    )
}

/// One UE at a fixed 15 dB SINR: 9 MHz × 0.6·log2(1 + 31.62) = 27.15 Mb/s of
/// transport blocks. HARQ at 10 % block errors sends a block 1/(1 − 0.1) =
/// 1.11 times on average (up to 4), leaving 24.4 Mb/s of new blocks; headers
/// (MAC, RLC, PDCP: about 0.6 %) and TCP/IP (40 B per 1500) leave 23.6 Mb/s
/// of goodput once TCP fills the pipe. The 300 kB tail-drop buffer drains in
/// about 100 ms at that rate: the delay stays below 150 ms beyond the 30 ms
/// base (20 ms core, 10 ms uplink), and overflows make TCP back off.
#[test]
fn one_ue_runs_at_the_block_rate_less_harq_and_headers() {
    let r = common::run_seed(&load("one-ue.toml", &[]), 1);
    let s = &r.summary;
    assert!((21.5e6..23.7e6).contains(&s.goodput_bps), "{}", describe(&r));
    assert!(s.delay_ms.p95.unwrap() < 180.0, "{}", describe(&r));
    assert!(s.drops.get("overflow").copied().unwrap_or(0) > 0, "{}", describe(&r));
    let c = &s.cells[0];
    assert_eq!((c.downlink, c.scheduler, c.users), ("lte_downlink", Some("round_robin"), 1));
    assert!(c.harq_delayed.unwrap() > 0);
}

/// Ten UEs on fading channels under proportional fair: the cell is busy,
/// every UE gets a share within a factor 1.5 of the mean (proportional
/// fairness over time, each UE near its own peaks), CoDel keeps the p95
/// delay below 100 ms, and its drops are CoDel's.
#[test]
fn ten_ues_share_a_fading_cell_under_proportional_fair() {
    let r = common::run_seed(&load("ten-ues-pf-fading.toml", &[]), 1);
    let s = &r.summary;
    let mean = s.goodput_bps / 10.0;
    assert!(r.users.iter().all(|u| u.goodput_bps > mean / 1.5 && u.goodput_bps < mean * 1.5), "{}", describe(&r));
    assert!(s.cells[0].tti_utilisation.unwrap() > 0.9, "{}", describe(&r));
    assert!(s.delay_ms.p95.unwrap() < 100.0, "{}", describe(&r));
    assert!(s.drops.keys().all(|k| *k == "target_exceeded"), "{}", describe(&r));
}

/// The same scenario and seed give the same summary, run alone or on four threads at once.
#[test]
fn same_seed_same_results_on_any_thread() {
    let scenario = load("ten-ues-pf-fading.toml", &["duration=5s"]);
    let summary = |seed| {
        let mut s = common::run_seed(&scenario, seed).summary;
        (s.wall_s, s.sim_seconds_per_wall_second, s.events_per_second) = (0.0, 0.0, 0.0);
        serde_json::to_string(&s).unwrap()
    };
    let alone = summary(3);
    let together: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4).map(|_| scope.spawn(|| summary(3))).collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(together.iter().all(|t| *t == alone));
    assert_ne!(summary(4), alone, "another seed, other fading");
}

/// Seven cells (scenarios/lte-downlink/seven-cells.toml, 5 s): the same seed
/// gives the same summary alone or on two threads, another seed another;
/// a row per cell, each user in one of them, and handovers counted per user.
#[test]
fn seven_cells_same_seed_same_results() {
    let scenario = load("seven-cells.toml", &["duration=5s"]);
    let summary = |seed| {
        let r = common::run_seed(&scenario, seed);
        let mut s = r.summary;
        (s.wall_s, s.sim_seconds_per_wall_second, s.events_per_second) = (0.0, 0.0, 0.0);
        let handovers: Vec<u64> = r.users.iter().map(|u| u.handovers.expect("several cells")).collect();
        (serde_json::to_string(&s).unwrap(), handovers, s.cells.iter().map(|c| c.users).sum::<u32>())
    };
    let alone = summary(1);
    let together: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2).map(|_| scope.spawn(|| summary(1))).collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(together.iter().all(|t| *t == alone));
    assert_eq!(
        (alone.2, serde_json::from_str::<serde_json::Value>(&alone.0).unwrap()["cells"].as_array().unwrap().len()),
        (21, 7)
    );
    assert_ne!(summary(2).0, alone.0, "another seed, other places");
}

/// Every queue scheme runs as the eNodeB's PDCP discipline (the departure-side
/// ones decide when the RLC takes a packet), over RLC UM and AM, and balances
/// its byte ledger (common::run_seed checks it).
#[test]
fn every_scheme_runs_on_the_pdcp_buffer() {
    for scheme in cellaqm_core::queue::SCHEMES {
        for rlc in ["am", "um"] {
            let sets = [
                format!("radio.queue.scheme={}", scheme.name),
                format!("radio.lte_downlink.rlc={rlc}"),
                "duration=3s".into(),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let r = common::run_seed(&load("ten-ues-pf-fading.toml", &sets), 1);
            assert!(r.summary.goodput_bps > 10e6, "{} {rlc}: {}", scheme.name, describe(&r));
        }
    }
}

/// ACK delay control acts on a UMTS bearer's uplink: both LTE radios refuse
/// it with a one-line reason naming the key and the bearer.
#[test]
fn ack_delay_is_refused_on_the_lte_radios() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lte-downlink/one-ue.toml");
    let text = std::fs::read_to_string(&path).expect("the scenario");
    let with = format!("{text}\n[ack_delay]\nmode = \"variable\"\nmin_th = 20\nmin_d = \"20ms\"\n");
    let err = Scenario::from_toml_str(&with, &[]).expect_err("refused");
    assert_eq!(err.to_string(), "ack_delay: not with radio.bearer = \"lte_downlink\" (not modelled there)");
}
