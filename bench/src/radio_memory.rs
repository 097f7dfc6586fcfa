//! Memory flat in simulated time on every radio (issue 39): for each kind of
//! radio access, one shipped scenario whose connections open and close all
//! run long (web pages, sessions, packet calls, uploads), simulated for 300 s
//! and for 3000 s, each in a fresh process ([`memory`]): the ratio of the two
//! peaks. Target: at most 1.2 on every radio with the totals only
//! ([`RunOptions::totals_only`], as sweeps run): ten times the connections
//! must not take ten times the memory. With a row per flow and per download
//! (`cellaqm run`, whose tables list them) the rows grow with the run; that
//! ratio is printed too.
//!
//! Run with `make bench-memory` (release build; a few minutes on one core).

mod memory;

use cellaqm_core::{run, RunOptions, Scenario};
use memory::{measure_in_child, peak_rss_kb, MEMORY_CHILD};
use std::path::Path;

/// (radio, scenario file under scenarios/, overrides).
const CASES: [(&str, &str, &[&str]); 5] = [
    ("DCH, R99 384 kb/s, web", "wcdma/td/dch384-web-rwnd30-100kB.toml", &[]),
    ("HSDPA cell, 8 web users", "cells/hsdpa-8-web-two-channels.toml", &[]),
    ("HS-DSCH system, 200 users, sessions", "hsdsch/web-sir.toml", &[]),
    ("DSCH system, 400 web users + TCP user", "dsch/tcp-400.toml", &[]),
    (
        "LTE uplink, 500 kB uploads 1 s apart",
        "lte-uplink/radio/realistic.toml",
        &["traffic.files=1000000", "traffic.size=500kB", "traffic.idle=1s"],
    ),
];

fn scenario(case: usize, duration: &str) -> Scenario {
    let (_, file, sets) = CASES[case];
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios").join(file);
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.push(format!("duration={duration}"));
    Scenario::from_file(&path, &sets).expect("benchmark scenario is valid")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, duration, case, rows] if flag == MEMORY_CHILD => {
            let opts = RunOptions { totals_only: rows == "totals", ..RunOptions::default() };
            let events = run(&scenario(case.parse().expect("a case number"), duration), 1, &opts).summary.events;
            println!("{} {events}", peak_rss_kb().map_or("-".to_string(), |kb| kb.to_string()));
        }
        [] => {
            for (i, (radio, _, _)) in CASES.iter().enumerate() {
                let case = i.to_string();
                for (rows, label) in [("totals", "totals only"), ("rows", "with rows")] {
                    let (short, long) =
                        (measure_in_child("300s", &[&case, rows]), measure_in_child("3000s", &[&case, rows]));
                    memory::report(&format!("{radio}, {label}"), short, long);
                }
            }
        }
        _ => {
            eprintln!("usage: radio-memory (or {MEMORY_CHILD} DURATION CASE totals|rows, used by radio-memory itself)");
            std::process::exit(2);
        }
    }
}
