//! Whole runs over the WCDMA radio access bearer (`[radio]`): the study's
//! scenario files load, every scheme runs with the byte ledger balanced, and
//! the results have the shape the study reports.

mod common;
use cellaqm_core::Scenario;
use common::run_seed;
use std::path::Path;

fn wcdma(scheme: &str, case: &str, duration: &str) -> Scenario {
    wcdma_with(scheme, case, &[&format!("duration={duration}")])
}

/// A case of the study with `--set` overrides.
fn wcdma_with(scheme: &str, case: &str, sets: &[&str]) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/wcdma/{scheme}/{case}.toml"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_file(&path, &sets).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_generated_scenario_file_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wcdma");
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            Scenario::from_file(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert_eq!(n, 6 * 33);
}

#[test]
fn a_384k_dch_download_runs_near_the_bearer_rate_and_aqm_cuts_the_delay() {
    let td = run_seed(&wcdma("td", "dch384-file-rwnd30-100kB", "300s"), 1).summary;
    let radio = td.radio.as_ref().expect("a radio summary");
    assert!(radio.retransmissions > 0 && radio.down_pdus_lost > 0, "{radio:?}");
    let g = td.downloads.all.mean_goodput_bps.expect("downloads completed");
    assert!(g > 200e3 && g < 384e3, "TD goodput {g}");
    let ared = run_seed(&wcdma("ared", "dch384-file-rwnd30-100kB", "300s"), 1).summary;
    let (ared, td) = (ared.delay_ms.p95.expect("packets delivered"), td.delay_ms.p95.expect("packets delivered"));
    assert!(ared < td, "ARED p95 {ared} vs TD {td}");
}

#[test]
fn every_scheme_runs_on_every_bearer() {
    for scheme in ["td", "red", "ared", "pdpc", "ttlred1", "ttlred2"] {
        for case in ["dch64-web-rwnd30-100kB", "hsdpa500-file-rwnd30-30kB", "hsdpa3600-web-rwnd60-100kB"] {
            let s = run_seed(&wcdma(scheme, case, "60s"), 3).summary;
            assert!(s.downloads.all.completed > 0, "{scheme} {case}: no download completed");
        }
    }
}

/// The departure-side schemes decide when the RLC takes a packet (docs/queues.md):
/// each runs on the PDCP buffer of every bearer kind (R99 DCH, HSDPA, the
/// HS-DSCH and DSCH systems) with the byte ledger balanced and data delivered.
#[test]
fn departure_side_schemes_run_on_every_bearer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let cases = [
        ("wcdma/td/dch64-web-rwnd30-100kB.toml", "60s"),
        ("wcdma/td/hsdpa3600-file-rwnd60-100kB.toml", "60s"),
        ("hsdsch/long-rr.toml", "20s"),
        ("dsch/tcp-400.toml", "30s"),
    ];
    for queue in [
        r#"{ scheme = "codel" }"#,
        r#"{ scheme = "pie" }"#,
        r#"{ scheme = "fq_codel" }"#,
        r#"{ scheme = "dff" }"#,
        r#"{ scheme = "pdcp_discard", delay_threshold = "300ms" }"#,
        r#"{ scheme = "taqm" }"#,
    ] {
        for (case, duration) in cases {
            let sets = [format!("duration={duration}"), format!("radio.queue={queue}")];
            let s = Scenario::from_file(&root.join(case), &sets).unwrap_or_else(|e| panic!("{case}: {e}"));
            let s = run_seed(&s, 1).summary;
            assert!(s.goodput_bps > 0.0, "{queue} {case}: nothing delivered");
        }
    }
}

/// CoDel on a 384 kb/s DCH's PDCP buffer keeps the delay well under tail
/// drop's; with ECN it marks, the marks reach the UE, and the sender backs off.
#[test]
fn codel_in_the_pdcp_buffer_cuts_the_delay_and_marks() {
    let run = |sets: &[&str]| run_seed(&wcdma_with("td", "dch384-file-rwnd30-100kB", sets), 1);
    let p95 = |r: &cellaqm_core::RunResult| r.summary.delay_ms.p95.expect("packets delivered");
    let td = run(&["duration=300s"]);
    let codel = run(&["duration=300s", "radio.queue.scheme=codel"]);
    let drops = codel.summary.drops.get("target_exceeded").copied().unwrap_or(0);
    println!("p95 delay: tail drop {:.0} ms, CoDel {:.0} ms ({drops} drops)", p95(&td), p95(&codel));
    assert!(p95(&codel) < p95(&td) / 2.0 && drops > 0, "{} vs {}", p95(&codel), p95(&td));
    let ecn = run(&["duration=300s", "radio.queue={ scheme = \"codel\", ecn = true }", "tcp.ecn=true"]);
    let reductions: u64 = ecn.flows.iter().map(|f| f.ecn_reductions).sum();
    assert!(ecn.summary.bottleneck.marked > 0 && reductions > 0, "{:?}", ecn.summary.bottleneck);
    assert_eq!(ecn.summary.drops.get("target_exceeded").copied().unwrap_or(0), 0, "{:?}", ecn.summary.drops);
}

#[test]
fn ecn_in_the_pdcp_buffer_marks_instead_of_dropping_and_the_sender_backs_off() {
    // R99 64k file downloads under ARED: minTh = max(7.5 kB, 0.5 s × 8 kB/s) = 7.5 kB, far
    // below the 30-packet window, so the discipline signals often.
    let run = |tcp_ecn: bool| {
        let ecn = format!("tcp.ecn={tcp_ecn}");
        run_seed(&wcdma_with("ared", "dch64-file-rwnd30-100kB", &["duration=120s", "radio.queue.ecn=true", &ecn]), 1)
    };
    let r = run(true);
    let early = r.summary.drops.get("early").copied().unwrap_or(0);
    let reductions: u64 = r.flows.iter().map(|f| f.ecn_reductions).sum();
    // Marks, not early drops; the marked packets reach the UE, whose ECN-Echo halves the window.
    assert!(r.summary.bottleneck.marked > 20, "{:?}", r.summary.bottleneck);
    assert_eq!(early, 0, "{:?}", r.summary.drops);
    assert!(reductions > 10, "ECN window reductions {reductions}");
    assert!(r.summary.downloads.all.completed > 0);
    // Without ECN-capable TCP the same discipline drops instead.
    let r = run(false);
    assert_eq!(r.summary.bottleneck.marked, 0);
    assert!(r.summary.drops.get("early").copied().unwrap_or(0) > 10, "{:?}", r.summary.drops);
    assert_eq!(r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>(), 0);
}

#[test]
fn radio_scenarios_are_checked_key_by_key() {
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wcdma/td/dch384-web-rwnd30-100kB.toml"),
    )
    .unwrap();
    let err = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        Scenario::from_toml_str(&base, &sets).unwrap_err().0
    };
    assert!(err(&["radio.bearer=lte"]).starts_with("radio.bearer:"));
    assert_eq!(err(&["radio.bearer=hsdpa"]), "radio.dch: given, but radio.bearer is \"hsdpa\" (use [radio.hsdpa])");
    assert!(err(&["radio.dch.tti=0ms"]).starts_with("radio.dch.tti: must be positive"));
    assert!(err(&["radio.rlc.poll.window=2"]).starts_with("radio.rlc.poll.window:"));
    assert!(err(&["radio.rlc.max_dat=0"]).starts_with("radio.rlc.max_dat:"));
    assert!(err(&["radio.dch.loss.mean=1.5"]).starts_with("radio.dch.loss.mean:"));
    assert!(
        err(&["radio.rlc.pdu_sise=40B"]).starts_with("radio.rlc.pdu_sise: unknown key"),
        "{}",
        err(&["radio.rlc.pdu_sise=40B"])
    );
    assert!(err(&["radio.queue.ecn=true"]).starts_with("radio.queue"), "{}", err(&["radio.queue.ecn=true"]));
    assert!(
        err(&["radio.queue={ scheme = \"ttlred2\", ecn = true }"])
            .starts_with("radio.queue.ecn: not supported in the PDCP buffer"),
        "{}",
        err(&["radio.queue={ scheme = \"ttlred2\", ecn = true }"])
    );
    assert_eq!(err(&["bottleneck.rate=1Mbps"]), "bottleneck: not used with [radio] (the radio bearer replaces it)");
}

/// The UE's uplink buffer takes a queue discipline (`radio.uplink_queue`), as
/// the RNC's PDCP buffer does. An upload over the study's 64 kb/s uplink DCH fills
/// a 100 kB UE buffer (12.5 s of queue) under tail drop; TTLRED1 (RED on the oldest
/// packet's sojourn, 0.25–1.5 s) keeps the uplink delay far lower, and so
/// does PDCP discard (1 s), deciding when the RLC takes a packet.
#[test]
fn the_ue_uplink_buffer_takes_a_queue_discipline() {
    let upload = |queue: &str| {
        Scenario::from_toml_str(
            &format!(
                r#"
                duration = "300s"
                [tcp]
                recovery = "sack"
                rwnd = "1MB"
                [traffic]
                model = "upload"
                size = "100MB"
                [core]
                delay = "70ms"
                [radio]
                bearer = "dch"
                uplink_buffer = "100kB"
                uplink_queue = {queue}
                [radio.dch]
                rate = "384kbps"
                "#
            ),
            &[],
        )
    };
    let mean = |queue: &str| {
        let s = run_seed(&upload(queue).expect("valid"), 1).summary;
        (s.delay_up_ms.mean.expect("uplink packets delivered"), s.goodput_bps, s.uplink.drops)
    };
    let (td, td_goodput, _) = mean(r#"{ scheme = "tail_drop" }"#);
    let (red, red_goodput, drops) = mean(r#"{ scheme = "ttlred1" }"#);
    println!(
        "uplink delay mean: tail drop {td:.0} ms ({:.1} kb/s), TTLRED1 {red:.0} ms ({:.1} kb/s, drops {drops:?})",
        td_goodput / 1e3,
        red_goodput / 1e3
    );
    assert!(td > 5_000.0, "tail drop should queue for seconds: {td} ms");
    assert!(red < td / 3.0 && drops.get("early").copied().unwrap_or(0) > 0, "{red} ms vs {td} ms, {drops:?}");
    // PDCP discard decides when the RLC takes a packet (its hand-over): at 1 s it bounds the delay too.
    let (discard, _, drops) = mean(r#"{ scheme = "pdcp_discard", delay_threshold = "1s" }"#);
    println!("PDCP discard 1 s: {discard:.0} ms, drops {drops:?}");
    assert!(discard < td / 3.0 && drops.get("age").copied().unwrap_or(0) > 0, "{discard} ms vs {td} ms, {drops:?}");
}

/// The summary's `uplink` with `[radio]` is the bearers' uplink (the DCH and the
/// UE buffer), not the unused wired uplink, which reported zeros.
#[test]
fn the_uplink_block_reports_the_radio_uplink() {
    let s = run_seed(&wcdma("td", "hsdpa3600-file-rwnd60-100kB", "120s"), 1).summary;
    let up = &s.uplink;
    assert!(up.packets_sent > 1000 && up.bytes_sent >= 40 * up.packets_sent, "{up:?}");
    // The used TTIs carried the delivered bytes (and RLC headers) at 64 kb/s.
    let carried = up.bytes_sent as f64 * 8.0 / (64e3 * s.duration_s);
    assert!(up.utilisation > carried && up.utilisation < 1.0, "{up:?}");
    assert!(up.mean_queue_bytes > 0.0 && up.mean_queue_packets > 0.0, "{up:?}");
    assert_eq!(up.queue_bytes.p95, None, "UE buffer percentiles are not tracked");
    // Every uplink packet the RNC delivered reached the server: ACKs (and requests) only here.
    let acks_and_requests = s.ledger.sent_bytes - s.ledger.dropped_bytes - s.ledger.in_flight_bytes;
    assert!(up.bytes_sent < acks_and_requests, "{up:?}");
}
