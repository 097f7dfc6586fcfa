//! The DSCH system (`bearer = "dsch"`, Ferrús et al.) end to end: the
//! scenario file runs a TCP user under test on the DSCH granted by the
//! resource manager, reports the central cell's measures, repeats bit for
//! bit, and its errors name the key.

mod common;
use cellaqm_core::radio::ran::SystemSection;
use cellaqm_core::Scenario;
use common::run_seed;
use std::path::Path;

/// `scenarios/dsch/tcp-400.toml` with `--set` overrides.
fn dsch(sets: &[&str]) -> Result<Scenario, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dsch/tcp-400.toml");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_file(&path, &sets).map_err(|e| e.to_string())
}

#[test]
fn the_tcp_user_downloads_over_the_granted_dsch() {
    // A light system (100 calls, 100 web users: the central cell has room) so that the user under test is granted.
    let s = dsch(&["duration=40s", "radio.dsch.web_users=100", "radio.dsch.conversational_users=100"]).unwrap();
    let r = run_seed(&s, 2);
    let sum = &r.summary;
    let Some(SystemSection::Dsch(d)) = &sum.system else { panic!("summary.dsch with bearer = \"dsch\"") };
    // 40 s of 10 ms frames (from the first packet at t = 0).
    assert!((3_990..=4_000).contains(&d.frames), "{}", d.frames);
    assert!(d.requests > 0 && d.conversational_sdus > 0 && d.test_requests > 0, "{d:?}");
    assert!(d.test_acceptance > 0.0 && d.test_acceptance <= 1.0, "{d:?} {}", sum.delivered_bytes);
    // The user's goodput is at most the top TF's 256 kb/s (less RLC headers), and it got data.
    assert!(sum.delivered_bytes > 20_000, "{}", sum.delivered_bytes);
    assert!(sum.goodput_bps < 256e3, "{}", sum.goodput_bps);
    // summary.cells: the 37 DSCH cells, each with its users at the end; the
    // central one's mean load factor is summary.dsch's (no warm-up here), its
    // DSCH payload rate that of its blocks; the user's goodput is its last cell's.
    assert_eq!(sum.cells.len(), 37);
    assert!(sum.cells.iter().all(|c| c.downlink == "dsch" && c.scheduler == Some("service_credit")));
    assert_eq!(sum.cells.iter().map(|c| c.users).sum::<u32>(), 1 + 100 + 100);
    let centre = &sum.cells[0];
    assert!((centre.dsch().unwrap().mean_eta - d.mean_eta).abs() < 1e-9, "{centre:?} {d:?}");
    assert!((centre.dsch().unwrap().air_bps / d.dsch_bps - 1.0).abs() < 0.01, "{centre:?} {d:?}");
    assert!(centre.tti_utilisation.unwrap() > 0.0 && centre.users_per_tti.unwrap() >= 1.0, "{centre:?}");
    let mine = r.users[0].cell as usize;
    assert!(sum.cells.iter().enumerate().all(|(c, row)| (row.goodput_bps > 0.0) == (c == mine)), "{mine}");
    // Same seed, same run.
    let again = run_seed(&s, 2);
    assert_eq!(again.summary.system, sum.system);
    assert_eq!(again.summary.delivered_bytes, sum.delivered_bytes);
    assert_eq!(again.summary.cells, sum.cells);
}

#[test]
fn errors_name_the_key() {
    let e = dsch(&["radio.dsch.phi=0"]).unwrap_err();
    assert!(e.contains("radio.dsch.phi"), "{e}");
    let e = dsch(&["radio.dsch.rings=0"]).unwrap_err();
    assert!(e.contains("radio.dsch.rings"), "{e}");
    let e = dsch(&["radio.dsch.shadowing_sigma=\"x\""]).unwrap_err();
    assert_eq!(e, "radio.dsch.shadowing_sigma: expected a number, got \"x\"", "an environment key, flattened");
    let e = dsch(&["radio.dsch.phy=0.5"]).unwrap_err();
    assert!(e.contains("phy"), "{e}");
    let e = dsch(&["radio.bearer=\"dch\""]).unwrap_err();
    assert!(e.contains("radio.dsch"), "{e}");
}
