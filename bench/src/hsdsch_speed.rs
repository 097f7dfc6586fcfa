//! HS-DSCH system speed benchmark: the study's two loads in seven wrapped
//! cells (scenarios/hsdsch/long-rr.toml: 60 users, 250 kB sessions, round
//! robin; scenarios/hsdsch/web-sir.toml: 200 users, Pareto web sessions,
//! max-SIR), 300 simulated seconds each, seed 1. Prints wall time, simulated
//! seconds per wall second, the system goodput per cell and the sessions.
//!
//! Run with `make bench` (release build). Target (issue 22): at least 100
//! simulated seconds per wall second on one core for the 200-user web load.

use cellaqm_core::{run, RunOptions, Scenario};

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/hsdsch");
    for name in ["long-rr", "web-sir"] {
        let path = format!("{root}/{name}.toml");
        let text = std::fs::read_to_string(&path).expect("the scenario file");
        let s = Scenario::from_toml_str(&text, &[]).expect("benchmark scenario is valid");
        let r = run(&s, 1, &RunOptions::default()).summary;
        let sessions = &r.sessions;
        println!(
            "{name}: 300 s in {:.2} s wall ({:.0} simulated s per wall s, {:.3e} events/s); \
             goodput per cell {:.0} kb/s; sessions offered {}, served {}, lost {}, unfinished {}",
            r.wall_s,
            r.sim_seconds_per_wall_second,
            r.events_per_second,
            r.goodput_per_cell_bps.unwrap_or(f64::NAN) / 1e3,
            sessions.offered,
            sessions.served,
            sessions.lost,
            sessions.unfinished,
        );
    }
}
