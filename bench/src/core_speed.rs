//! Core speed benchmark: one NewReno bulk flow for 1200 simulated seconds over
//! a 70 ms core delay and a 100 kB tail-drop bottleneck at 384 kb/s, 3.6 Mb/s
//! and 50 Mb/s. Prints simulated seconds per wall second and events per second.
//!
//! Memory: a process's peak resident memory (VmHWM) only ever rises, so the
//! 3.6 Mb/s case is measured in fresh processes: the binary runs itself
//! (`core-speed --memory-child DURATION`) once for 120 s and once for 1200 s
//! simulated, and each child reports its own peak. Memory is flat in the
//! simulated duration when the ratio is about 1.
//!
//! Run with `make bench` (release build). Target (issue #2): the 3.6 Mb/s run
//! in under 0.3 s wall on one core.

mod memory;

use cellaqm_core::{run, RunOptions, Scenario};
use memory::{measure_in_child, peak_rss_kb, MEMORY_CHILD};

fn scenario(rate: &str, duration: &str) -> Scenario {
    let text = format!(
        r#"
        name = "bench-{rate}"
        duration = "{duration}"
        [tcp]
        recovery = "newreno"
        rwnd = "10MB"
        [traffic]
        model = "bulk"
        [core]
        rate = "100Mbps"
        delay = "70ms"
        [bottleneck]
        rate = "{rate}"
        buffer = "100kB"
        "#
    );
    Scenario::from_toml_str(&text, &[]).expect("benchmark scenario is valid")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, duration] if flag == MEMORY_CHILD => memory_child(duration),
        [] => {
            speed();
            memory();
        }
        _ => {
            eprintln!("usage: core-speed (or {MEMORY_CHILD} DURATION, used by core-speed itself)");
            std::process::exit(2);
        }
    }
}

fn speed() {
    println!(
        "{:>10} {:>9} {:>14} {:>14} {:>12} {:>10}",
        "rate", "wall_s", "sim_s/wall_s", "events/s", "events", "goodput"
    );
    for rate in ["384kbps", "3.6Mbps", "50Mbps"] {
        let s = scenario(rate, "1200s");
        let best = (0..3)
            .map(|_| run(&s, 1, &RunOptions::default()).summary)
            .min_by(|a, b| a.wall_s.total_cmp(&b.wall_s))
            .expect("three runs");
        println!(
            "{:>10} {:>9.3} {:>14.0} {:>14.3e} {:>12} {:>8.0}kb/s",
            rate,
            best.wall_s,
            best.sim_seconds_per_wall_second,
            best.events_per_second,
            best.events,
            best.goodput_bps / 1e3
        );
    }
}

/// In a child process: simulate the 3.6 Mb/s case for `duration`, then print
/// "<peak RSS kB> <events>" (the peak is "-" where /proc is missing).
fn memory_child(duration: &str) {
    let events = run(&scenario("3.6Mbps", duration), 1, &RunOptions::default()).summary.events;
    let peak = peak_rss_kb().map_or("-".to_string(), |kb| kb.to_string());
    println!("{peak} {events}");
}

fn memory() {
    memory::report("3.6 Mb/s", measure_in_child("120s", &[]), measure_in_child("1200s", &[]));
}
