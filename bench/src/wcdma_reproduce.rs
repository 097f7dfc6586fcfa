//! The full headline experiment of `cellaqm reproduce wcdma-rnc-aqm`, timed
//! in the core alone: 8 bearer × traffic rows (rwnd 30, PDCP 100 kB) plus
//! the HSDPA 3.6 Mb/s 2.5 MB case, × 6 schemes × 6 replications of 1200 s,
//! from the scenario files under scenarios/wcdma/, on all cores (or
//! `--jobs N`). Prints the wall time, the slowest single run and the
//! simulated-seconds-per-wall-second rate.
//!
//! `cargo run --release -p cellaqm-bench --bin wcdma-reproduce [-- --jobs N --reps N]`

use cellaqm_core::{run, RunOptions, Scenario};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const SCHEMES: [&str; 6] = ["td", "red", "ared", "pdpc", "ttlred1", "ttlred2"];
const CASES: [&str; 9] = [
    "dch64-web-rwnd30-100kB",
    "dch64-file-rwnd30-100kB",
    "dch384-web-rwnd30-100kB",
    "dch384-file-rwnd30-100kB",
    "hsdpa500-web-rwnd30-100kB",
    "hsdpa500-file-rwnd30-100kB",
    "hsdpa3600-web-rwnd30-100kB",
    "hsdpa3600-file-rwnd30-100kB",
    "hsdpa3600-file2.5M-rwnd30-100kB",
];

fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| v.parse().expect("a number"))
}

fn main() {
    let jobs = arg("--jobs").unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let reps = arg("--reps").unwrap_or(6) as u64;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/wcdma");
    let mut tasks = Vec::new();
    for case in CASES {
        for scheme in SCHEMES {
            let path = root.join(scheme).join(format!("{case}.toml"));
            let s = Scenario::from_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            for seed in 1..=reps {
                tasks.push((format!("{case} {scheme} seed {seed}"), s.clone(), seed));
            }
        }
    }
    let next = AtomicUsize::new(0);
    let times = Mutex::new(Vec::new());
    let t0 = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, s, seed)) = tasks.get(i) else { break };
                let t = Instant::now();
                let r = run(s, *seed, &RunOptions::default());
                let wall = t.elapsed().as_secs_f64();
                times.lock().unwrap().push((wall, name.clone(), r.summary.duration_s, r.summary.events));
            });
        }
    });
    let wall = t0.elapsed().as_secs_f64();
    let times = times.into_inner().unwrap();
    let sim: f64 = times.iter().map(|t| t.2).sum();
    let events: u64 = times.iter().map(|t| t.3).sum();
    let slowest = times.iter().max_by(|a, b| a.0.total_cmp(&b.0)).expect("runs");
    println!(
        "wcdma-rnc-aqm headline: {} runs ({} cases x {} schemes x {reps} replications) on {jobs} threads",
        times.len(),
        CASES.len(),
        SCHEMES.len()
    );
    println!("  wall {wall:.1} s (budget 120 s); slowest run {:.2} s ({})", slowest.0, slowest.1);
    println!(
        "  {:.0} simulated s per wall s per thread; {:.1} M events/s in total",
        sim / wall / jobs as f64,
        events as f64 / wall / 1e6
    );
}
