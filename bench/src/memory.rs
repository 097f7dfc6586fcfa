//! Peak memory of a simulation, measured in a fresh process: a process's peak
//! resident memory (VmHWM) only ever rises, so each duration runs in a child
//! (`<benchmark> --memory-child DURATION`) that reports its own peak. Memory
//! is flat in the simulated duration when the ratio of two peaks is about 1.

use std::process::Command;

/// The argument that makes a benchmark binary a memory-measuring child.
pub const MEMORY_CHILD: &str = "--memory-child";

/// Peak resident memory of this process in kB (Linux), if known.
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs this binary as a memory child for `duration` (`<benchmark> --memory-child DURATION
/// [ARGS]`): its peak RSS in kB (if known) and its events.
pub fn measure_in_child(duration: &str, args: &[&str]) -> (Option<u64>, u64, String) {
    let exe = std::env::current_exe().expect("path of this benchmark");
    let out = Command::new(exe).args([MEMORY_CHILD, duration]).args(args).output().expect("start a memory child");
    assert!(out.status.success(), "memory child failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("memory child prints text");
    let mut fields = text.split_whitespace();
    let peak = fields.next().and_then(|p| p.parse().ok());
    let events = fields.next().and_then(|e| e.parse().ok()).expect("memory child prints its events");
    (peak, events, duration.to_string())
}

/// Prints the peaks of a short and a long run of case `label`, and their ratio.
pub fn report(label: &str, short: (Option<u64>, u64, String), long: (Option<u64>, u64, String)) {
    match (short, long) {
        ((Some(a), ea, da), (Some(b), eb, db)) => println!(
            "memory ({label}, one process each): peak RSS {a} kB for {da} simulated ({ea} events), \
             {b} kB for {db} ({eb} events): ratio {:.2}",
            b as f64 / a as f64
        ),
        _ => println!("memory: peak RSS unknown (needs Linux /proc/self/status)"),
    }
}
