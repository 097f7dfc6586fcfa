//! Cell speed benchmark: 100 users browsing the web (the WCDMA study's HTTP
//! model: 4 connections, 65 kB objects, 6 s reading time) on one 3.6 Mb/s
//! HSDPA cell under round robin, each with its own bearer (100 kB tail-drop
//! PDCP buffer, RLC AM, 64 kb/s uplink DCH), 300 simulated seconds.
//! Prints simulated seconds per wall second and events per second (best of
//! three), then peak memory for 60 s and 300 s simulated in fresh processes
//! ([`memory`]).
//!
//! Run with `make bench` (release build). Target (issue 20): at least 100
//! simulated seconds per wall second on one core, memory flat in duration.

mod memory;

use cellaqm_core::{run, RunOptions, Scenario};
use memory::{measure_in_child, peak_rss_kb, MEMORY_CHILD};

fn scenario(duration: &str) -> Scenario {
    let text = format!(
        r#"
        name = "bench-cell-100-web"
        duration = "{duration}"
        [tcp]
        mss = "1440B"
        header = "60B"
        initial_window = 2
        rwnd = 30
        [traffic]
        model = "web"
        users = 100
        connections = 4
        main_size = "65kB"
        inlines = 3
        inline_size = "65kB"
        reading_time = "6s"
        [core]
        delay = "70ms"
        [radio]
        bearer = "hsdpa"
        buffer = "100kB"
        [radio.hsdpa]
        rate = "3.6Mbps"
        scheduler = "round_robin"
        [radio.rlc]
        window = 2047
        "#
    );
    Scenario::from_toml_str(&text, &[]).expect("benchmark scenario is valid")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, duration] if flag == MEMORY_CHILD => {
            let events = run(&scenario(duration), 1, &RunOptions::default()).summary.events;
            println!("{} {events}", peak_rss_kb().map_or("-".to_string(), |kb| kb.to_string()));
        }
        [] => {
            let s = scenario("300s");
            let best = (0..3)
                .map(|_| run(&s, 1, &RunOptions::default()).summary)
                .min_by(|a, b| a.wall_s.total_cmp(&b.wall_s))
                .expect("three runs");
            println!(
                "100 web users, one 3.6 Mb/s HSDPA cell, 300 s: wall {:.3} s, {:.0} simulated s per wall s, \
                 {:.3e} events/s ({} events), cell goodput {:.0} kb/s, {} pages completed",
                best.wall_s,
                best.sim_seconds_per_wall_second,
                best.events_per_second,
                best.events,
                best.goodput_bps / 1e3,
                best.downloads.all.completed
            );
            memory::report("100 web users", measure_in_child("60s", &[]), measure_in_child("300s", &[]));
        }
        _ => {
            eprintln!("usage: cell-speed (or {MEMORY_CHILD} DURATION, used by cell-speed itself)");
            std::process::exit(2);
        }
    }
}
