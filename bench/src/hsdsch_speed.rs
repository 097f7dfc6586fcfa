//! HS-DSCH system speed benchmark: the study's two session loads in seven
//! cells (scenarios/hsdsch/long-rr.toml: 60 users, 250 kB sessions, round
//! robin; scenarios/hsdsch/web-sir.toml: 200 users, Pareto web sessions,
//! max-SIR), 300 simulated seconds each, seed 1, five repetitions. Prints the
//! median CPU time of a run (this thread's, so other work on a shared machine
//! does not count), simulated seconds per CPU second — the speed on one
//! core —, the median wall time, and the system goodput per cell and the
//! sessions.
//!
//! Run with `make bench` (release build). Target (issue 22): at least 100
//! simulated seconds per second on one core for the 200-user web load.

mod cpu;

use cellaqm_core::{run, RunOptions, Scenario};
use cpu::cpu_s;

/// Repetitions of each run (the median is reported).
const REPS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/hsdsch");
    for name in ["long-rr", "web-sir"] {
        let path = format!("{root}/{name}.toml");
        let text = std::fs::read_to_string(&path).expect("the scenario file");
        let s = Scenario::from_toml_str(&text, &[]).expect("benchmark scenario is valid");
        let (mut cpu, mut wall) = (Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..REPS {
            let t0 = cpu_s();
            let r = run(&s, 1, &RunOptions::default()).summary;
            cpu.push(cpu_s() - t0);
            wall.push(r.wall_s);
            last = Some(r);
        }
        let r = last.expect("at least one repetition");
        let (cpu, wall, sim) = (median(cpu), median(wall), s.duration.as_secs_f64());
        let sessions = &r.sessions;
        println!(
            "{name}: {sim:.0} s in {cpu:.2} s CPU ({:.0} simulated s per CPU s; median of {REPS}), {wall:.2} s wall; \
             goodput per cell {:.0} kb/s; sessions offered {}, served {}, lost {}, unfinished {}",
            sim / cpu,
            r.goodput_per_cell_bps.unwrap_or(f64::NAN) / 1e3,
            sessions.offered,
            sessions.served,
            sessions.lost,
            sessions.unfinished,
        );
    }
}
