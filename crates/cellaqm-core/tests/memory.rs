//! Keeping only the totals of flows and downloads (`RunOptions::totals_only`,
//! as sweeps run, memory flat in the run's duration) changes no total: the
//! summary and the per-user rows are those of a run that keeps every row,
//! bit for bit, whatever the order in which connections close.

mod common;

use cellaqm_core::{run, RunOptions, Scenario};
use std::path::Path;

fn shipped(file: &str, sets: &[&str]) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_file(&path, &sets).expect("a valid shipped scenario")
}

/// The summary as JSON, without the host's timings.
fn totals(s: &Scenario, totals_only: bool) -> (serde_json::Value, String) {
    let r = run(s, 3, &RunOptions { totals_only, ..RunOptions::default() });
    assert_eq!(r.flows.is_empty(), totals_only || r.summary.flows == 0);
    assert_eq!(r.downloads.is_empty(), totals_only || r.summary.downloads.all.count == 0);
    let mut summary = serde_json::to_value(&r.summary).unwrap();
    for key in ["wall_s", "sim_seconds_per_wall_second", "events_per_second"] {
        summary.as_object_mut().unwrap().remove(key);
    }
    (summary, format!("{:?}", r.users))
}

#[test]
fn keeping_only_totals_changes_no_total() {
    let mixed = common::scenario(
        r#"
        duration = "60s"
        [[traffic]]
        model = "web"
        users = 3
        reading_time = "1s"
        [[traffic]]
        model = "file_download"
        first_user = 3
        size = "200kB"
        reading_time = "2s"
        [[traffic]]
        model = "cbr"
        first_user = 4
        rate = "64kbps"
        [bottleneck]
        rate = "2Mbps"
        buffer = "30kB"
        loss = 0.01
        "#,
    );
    for s in [
        mixed,
        shipped("hsdsch/web-sir.toml", &["duration=8s"]),
        shipped("wcdma/red/dch384-web-rwnd30-100kB.toml", &["duration=60s"]),
        shipped("dsch/tcp-400.toml", &["duration=8s"]),
    ] {
        assert_eq!(totals(&s, true), totals(&s, false), "{}", s.name);
    }
}
