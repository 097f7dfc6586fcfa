//! Core speed benchmark: one NewReno bulk flow for 1200 simulated seconds over
//! a 70 ms core delay and a 100 kB tail-drop bottleneck at 384 kb/s, 3.6 Mb/s
//! and 50 Mb/s. Prints simulated seconds per wall second, events per second,
//! and peak memory after a 120 s and a 1200 s run (flat memory: the two agree).
//!
//! Run with `make bench` (release build). Target (issue #2): the 3.6 Mb/s run
//! in under 0.3 s wall on one core.

use cellaqm_core::{run, RunOptions, Scenario};

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

/// Peak resident memory of this process in kB (Linux), if known.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    println!("{:>10} {:>9} {:>14} {:>14} {:>12} {:>10}", "rate", "wall_s", "sim_s/wall_s", "events/s", "events", "goodput");
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
    let short = run(&scenario("3.6Mbps", "120s"), 1, &RunOptions::default());
    let after_short = peak_rss_kb();
    let long = run(&scenario("3.6Mbps", "1200s"), 1, &RunOptions::default());
    let after_long = peak_rss_kb();
    if let (Some(a), Some(b)) = (after_short, after_long) {
        println!(
            "memory: peak RSS {a} kB after 120 s simulated ({} events), {b} kB after 1200 s ({} events): ratio {:.2}",
            short.summary.events,
            long.summary.events,
            b as f64 / a as f64
        );
    }
}
