//! The radio environment's cost at scale (issue 37): the HS-DSCH system of
//! scenarios/hsdsch/long-rr.toml (250 kB sessions, round robin, DT 30) from
//! 7 to 61 cells (`layout = "hex"`, 1 to 4 rings) and from 200 to 10 000
//! users, 20 simulated seconds each, seed 1. The offered load per cell is the
//! study's (a session every 0.3 s on average per 7 cells: the interarrival
//! scaled by 7 / cells); the users are the pool sessions go to.
//!
//! Prints per case the CPU time (this thread's), simulated seconds per CPU
//! second (the speed on one core), the CPU cost per simulated user-second and
//! its ratio to the 200-user case of the same layout, the sessions, and for
//! the largest case the peak RSS of 10, 40, 80 and 160 s runs (each in a
//! fresh process, [`memory`]): memory flat in simulated time when the ratio
//! of the longest to the shortest is about 1 (the users a run reaches grow
//! from about 290 to 3 700 of the 10 000 over those durations).
//!
//! Run with `make bench-scale` (release build; a few minutes on one core).
//! Target (issue 37): 61 cells (the 57) and 10 000 users at least as
//! fast as real time; the cost per user-second within 2× from 200 to 10 000 users.

mod cpu;
mod memory;

use cellaqm_core::{run, RunOptions, Scenario};
use cpu::cpu_s;
use memory::{measure_in_child, peak_rss_kb, MEMORY_CHILD};
use std::path::Path;

/// Rings of cells around the central one (1: the study's seven cells).
const RINGS: [u32; 4] = [1, 2, 3, 4];
const USERS: [u32; 3] = [200, 1_000, 10_000];
const SIMULATED: &str = "20s";
/// The durations of the largest case whose peak memory is measured.
const MEMORY_AT: [&str; 4] = ["10s", "40s", "80s", "160s"];

fn scenario(rings: u32, users: u32, duration: &str) -> Scenario {
    let cells = 3 * rings * (rings + 1) + 1;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/hsdsch/long-rr.toml");
    let layout = if rings == 1 { "hex7" } else { "hex" };
    let sets = [
        format!("duration={duration}"),
        format!("radio.cells.layout=\"{layout}\""),
        format!("radio.cells.rings={rings}"),
        format!("traffic.users={users}"),
        format!("traffic.interarrival.max=\"{}s\"", 0.6 * 7.0 / cells as f64),
    ];
    Scenario::from_file(&path, &sets).expect("benchmark scenario is valid")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, duration, rings, users] if flag == MEMORY_CHILD => {
            let s = scenario(rings.parse().expect("rings"), users.parse().expect("users"), duration);
            let events = run(&s, 1, &RunOptions { totals_only: true, ..RunOptions::default() }).summary.events;
            println!("{} {events}", peak_rss_kb().map_or("-".to_string(), |kb| kb.to_string()));
        }
        [] => {
            println!("| cells | users | CPU s | simulated s per CPU s | µs CPU per user-second | vs 200 users | sessions offered / served / lost |");
            println!("|---|---|---|---|---|---|---|");
            for rings in RINGS {
                let mut base = None;
                for users in USERS {
                    let s = scenario(rings, users, SIMULATED);
                    let t0 = cpu_s();
                    let r = run(&s, 1, &RunOptions { totals_only: true, ..RunOptions::default() }).summary;
                    let cpu = cpu_s() - t0;
                    let sim = s.duration.as_secs_f64();
                    let per_user_s = cpu / (users as f64 * sim) * 1e6;
                    let ratio = per_user_s / *base.get_or_insert(per_user_s);
                    println!(
                        "| {} | {users} | {cpu:.2} | {:.1} | {per_user_s:.2} | {ratio:.2} | {} / {} / {} |",
                        3 * rings * (rings + 1) + 1,
                        sim / cpu,
                        r.sessions.offered,
                        r.sessions.served,
                        r.sessions.lost,
                    );
                }
            }
            let (rings, users) = (RINGS[RINGS.len() - 1].to_string(), USERS[USERS.len() - 1].to_string());
            let mut peaks: Vec<_> = MEMORY_AT.iter().map(|d| measure_in_child(d, &[&rings, &users])).collect();
            for (peak, events, duration) in &peaks[1..peaks.len() - 1] {
                let kb = peak.map_or("-".to_string(), |kb| kb.to_string());
                println!(
                    "memory (61 cells, {users} users): peak RSS {kb} kB for {duration} simulated ({events} events)"
                );
            }
            let long = peaks.pop().expect("durations");
            memory::report(&format!("61 cells, {users} users"), peaks.swap_remove(0), long);
        }
        _ => {
            eprintln!("usage: hsdsch-scale (or {MEMORY_CHILD} DURATION RINGS USERS, used by hsdsch-scale itself)");
            std::process::exit(2);
        }
    }
}
