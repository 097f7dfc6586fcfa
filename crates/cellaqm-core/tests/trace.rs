//! Run traces (`RunOptions::trace`): recorded only when asked, consistent with
//! the summary, and without any effect on the simulation.

mod common;

use cellaqm_core::metrics::Trace;
use cellaqm_core::{run, RunOptions, RunResult, Scenario};
use common::{run_seed, scenario};
use std::path::Path;

/// One long NewReno flow filling a 30 kB tail-drop buffer at 384 kb/s.
fn bulk() -> Scenario {
    scenario(
        r#"
        duration = "30s"
        [tcp]
        recovery = "newreno"
        rwnd = "1MB"
        [traffic]
        model = "bulk"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "384kbps"
        buffer = "30kB"
        queue = { scheme = "tail_drop" }
        [uplink]
        rate = "64kbps"
        "#,
    )
}

fn with_trace(s: &Scenario, seed: u64) -> (RunResult, RunResult) {
    let off = run_seed(s, seed);
    let on = run(s, seed, &RunOptions { trace: true, ..RunOptions::default() });
    (off, on)
}

/// Tracing must not change the simulation: same summary (but the wall clock), flows, downloads.
fn assert_same_run(off: &RunResult, on: &RunResult) {
    let strip = |r: &RunResult| {
        let mut s = r.summary.clone();
        s.wall_s = 0.0;
        s.sim_seconds_per_wall_second = 0.0;
        s.events_per_second = 0.0;
        s
    };
    assert_eq!(strip(off), strip(on));
    assert_eq!(off.flows, on.flows);
    assert_eq!(off.downloads, on.downloads);
}

/// The trace agrees with the summary: one drop row per bottleneck drop, one
/// delivered row per delivered downlink data packet, columns of equal length.
fn assert_consistent(r: &RunResult, t: &Trace) {
    let drops: u64 = r.summary.drops.values().sum();
    assert_eq!(t.drops.time_s.len() as u64, drops);
    assert_eq!(t.delivered.time_s.len() as u64, r.summary.delay_ms.count);
    let c = &t.cwnd;
    for n in [c.flow.len(), c.dir.len(), c.cwnd_bytes.len(), c.ssthresh_bytes.len()] {
        assert_eq!(n, c.time_s.len());
    }
    assert_eq!(t.queue.bytes.len(), t.queue.time_s.len());
    assert_eq!(t.queue.packets.len(), t.queue.time_s.len());
    for times in [&c.time_s, &t.queue.time_s, &t.drops.time_s, &t.delivered.time_s] {
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "times go back");
    }
}

#[test]
fn trace_is_none_unless_asked_and_changes_nothing() {
    let s = bulk();
    let (off, on) = with_trace(&s, 1);
    assert!(off.trace.is_none());
    assert!(off.packets.is_none());
    let t = on.trace.as_ref().expect("trace recorded when asked");
    assert_same_run(&off, &on);
    assert_consistent(&on, t);
}

#[test]
fn cwnd_halves_after_a_drop_and_the_queue_stays_within_its_limit() {
    let s = bulk();
    let r = run(&s, 1, &RunOptions { trace: true, ..RunOptions::default() });
    let t = r.trace.as_ref().unwrap();

    // Occupancy: within the 30 kB buffer, and it did fill (tail drop with a 1 MB window).
    let max = *t.queue.bytes.iter().max().unwrap();
    assert!(max <= 30_000, "queue {max} bytes above the 30 kB limit");
    assert!(max > 20_000, "queue never filled: max {max} bytes");
    assert!(t.queue.packets.iter().all(|&p| p <= 30_000 / 40));

    // The first drop, then the sender's first reduction: ssthresh ≈ half the window it had.
    let first_drop = t.drops.time_s[0];
    assert!(t.drops.cause.iter().all(|&c| c == "overflow"), "{:?}", &t.drops.cause[..3]);
    let c = &t.cwnd;
    let down: Vec<usize> = (0..c.time_s.len()).filter(|&i| c.flow[i] == 0 && c.dir[i] == "down").collect();
    assert!(c.dir.iter().all(|&d| d == "down"), "only the server sends data");
    let cut = *down.iter().find(|&&i| c.ssthresh_bytes[i] != u64::MAX).expect("a window reduction");
    assert!(c.time_s[cut] >= first_drop, "reduced at {} before the first drop at {first_drop}", c.time_s[cut]);
    let before = down.iter().filter(|&&i| i < cut).map(|&i| c.cwnd_bytes[i]).max().unwrap();
    let ssthresh = c.ssthresh_bytes[cut];
    let ratio = ssthresh as f64 / before as f64;
    assert!((0.35..=0.65).contains(&ratio), "ssthresh {ssthresh} after cwnd {before}: ratio {ratio}");
    // After recovery the window itself is down to about half.
    assert!(
        down.iter().any(|&i| i > cut && c.cwnd_bytes[i] as f64 <= 0.65 * before as f64),
        "cwnd never came down to about half of {before}"
    );
    // Samples are taken on change only.
    assert!(down
        .windows(2)
        .all(|w| (c.cwnd_bytes[w[0]], c.ssthresh_bytes[w[0]]) != (c.cwnd_bytes[w[1]], c.ssthresh_bytes[w[1]])));

    // Delivered sequence numbers: new data arrives in order; the drops come back as retransmissions.
    let d = &t.delivered;
    let fresh: Vec<u64> = (0..d.seq.len()).filter(|&i| !d.retransmission[i]).map(|i| d.seq[i]).collect();
    assert!(fresh.windows(2).all(|w| w[0] < w[1]), "new data out of order");
    assert_eq!(fresh[0], 1, "data starts after the SYN");
    assert!(d.retransmission.iter().any(|&r| r));
    let last = d.seq.iter().zip(&d.len).map(|(s, l)| s + *l as u64).max().unwrap();
    assert!(last >= r.summary.delivered_bytes, "last byte {last} < delivered {}", r.summary.delivered_bytes);
}

#[test]
fn radio_trace_follows_the_pdcp_buffer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wcdma/td/hsdpa500-file-rwnd30-30kB.toml");
    let s = Scenario::from_file(&path, &["duration=60s".to_string()]).unwrap();
    let (off, on) = with_trace(&s, 3);
    assert_same_run(&off, &on);
    let t = on.trace.as_ref().unwrap();
    assert_consistent(&on, t);
    let max = *t.queue.bytes.iter().max().unwrap();
    assert!(max > 0 && max <= 30_000, "PDCP occupancy max {max} bytes");
}
