//! Whole-run invariants: byte conservation, determinism, and the occupancy
//! distributions against the time-average queues.

mod common;

use cellaqm_core::metrics::{LinkSummary, OccupancyStats};
use cellaqm_core::{RunResult, Scenario};
use common::{run_seed, scenario};
use std::path::Path;

fn lossy(recovery: &str, flows: u32, buffer: &str, loss: f64) -> cellaqm_core::Scenario {
    scenario(&format!(
        r#"
        duration = "30s"
        [tcp]
        recovery = "{recovery}"
        rwnd = 40
        delayed_ack = true
        [traffic]
        model = "bulk"
        flows = {flows}
        spacing = "1s"
        [core]
        delay = "40ms"
        [bottleneck]
        rate = "2Mbps"
        buffer = "{buffer}"
        loss = {loss}
        [uplink]
        rate = "256kbps"
        buffer = "20kB"
        "#
    ))
}

/// Bytes sent = delivered + dropped + in flight, checked by `run_seed` on every run,
/// across recovery variants, flow counts, buffer sizes and loss rates.
#[test]
fn bytes_are_conserved_in_every_configuration() {
    for recovery in ["reno", "newreno", "sack"] {
        for (flows, buffer, loss) in [(1, "10kB", 0.0), (4, "30kB", 0.02), (2, "200kB", 0.005)] {
            let r = run_seed(&lossy(recovery, flows, buffer, loss), 7);
            assert!(r.summary.delivered_bytes > 0, "{recovery}/{flows}/{buffer}: nothing delivered");
        }
    }
}

/// Same scenario and seed: identical results; another seed: different ones.
#[test]
fn same_seed_same_results_other_seed_differs() {
    let s = lossy("sack", 3, "30kB", 0.01);
    let strip = |mut r: cellaqm_core::RunResult| {
        r.summary.wall_s = 0.0;
        r.summary.sim_seconds_per_wall_second = 0.0;
        r.summary.events_per_second = 0.0;
        (format!("{:?}", r.summary), format!("{:?}", r.flows), format!("{:?}", r.occupancy))
    };
    let a = strip(run_seed(&s, 11));
    let b = strip(run_seed(&s, 11));
    let c = strip(run_seed(&s, 12));
    assert_eq!(a, b);
    assert_ne!(a.0, c.0);
}

/// A fixed-size transfer completes, and every byte reaches the application once.
#[test]
fn file_transfers_complete() {
    let s = scenario(
        r#"
        duration = "60s"
        [traffic]
        model = "file"
        flows = 3
        size = "250kB"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "384kbps"
        buffer = "30kB"
        [uplink]
        rate = "64kbps"
        "#,
    );
    let r = run_seed(&s, 3);
    for f in &r.flows {
        assert_eq!(f.bytes_delivered, 250_000, "flow {}", f.flow);
        assert!(f.completion_s.is_some());
    }
    // 750 kB over 384 kb/s needs at least 15.6 s of transmission.
    let last = r.flows.iter().filter_map(|f| f.completion_s).fold(0.0, f64::max);
    assert!(last > 15.6, "completed impossibly fast: {last}");
}

/// A buffer's occupancy distribution in the run's log spans the whole run, its
/// mean is the link's time-average queue (to the histogram's 0.1%), and the
/// summary's time percentiles are read off it.
fn check_occupancy(r: &RunResult, buffer: &str, link: &LinkSummary) {
    let duration = r.summary.duration_s;
    let log = &r.occupancy;
    for (unit, mean, stats) in
        [("bytes", link.mean_queue_bytes, &link.queue_bytes), ("packets", link.mean_queue_packets, &link.queue_packets)]
    {
        let rows: Vec<(u64, f64)> = (0..log.value.len())
            .filter(|&i| log.buffer[i] == buffer && log.unit[i] == unit)
            .map(|i| (log.value[i], log.time_s[i]))
            .collect();
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0), "{buffer} {unit}: increasing backlogs");
        let total: f64 = rows.iter().map(|r| r.1).sum();
        assert!((total / duration - 1.0).abs() < 1e-9, "{buffer} {unit}: {total} s of {duration} s");
        let dist_mean = rows.iter().map(|&(v, t)| v as f64 * t).sum::<f64>() / duration;
        assert!(mean > 0.0, "{buffer} {unit}: the queue never held anything");
        assert!((dist_mean / mean - 1.0).abs() < 1e-3, "{buffer} {unit}: distribution mean {dist_mean} vs {mean}");
        // The time percentile: the smallest backlog held at or below for that fraction of the run.
        let at = |q: f64| {
            let mut seen = 0.0;
            rows.iter()
                .find(|r| {
                    seen += r.1;
                    seen >= q * total * (1.0 - 1e-12)
                })
                .map(|r| r.0)
        };
        let want =
            OccupancyStats { p50: at(0.5), p90: at(0.9), p95: at(0.95), p99: at(0.99), max: rows.last().map(|r| r.0) };
        assert_eq!(stats, &want, "{buffer} {unit}");
        assert!(want.p50 < want.max, "{buffer} {unit}: a queue that varies");
    }
}

#[test]
fn occupancy_distributions_match_the_time_average_queues() {
    // Wired: the bottleneck and a managed (limited) uplink.
    let r = run_seed(&lossy("sack", 3, "30kB", 0.01), 5);
    check_occupancy(&r, "bottleneck", &r.summary.bottleneck);
    check_occupancy(&r, "uplink", &r.summary.uplink);
    // An unlimited tail-drop uplink books its packets' waits in advance: not tracked.
    let s = scenario(
        r#"
        duration = "20s"
        [traffic]
        model = "bulk"
        [bottleneck]
        rate = "384kbps"
        buffer = "30kB"
        [uplink]
        rate = "64kbps"
        "#,
    );
    let r = run_seed(&s, 1);
    check_occupancy(&r, "bottleneck", &r.summary.bottleneck);
    assert!(r.occupancy.buffer.iter().all(|&b| b == "bottleneck"));
    assert_eq!(r.summary.uplink.queue_bytes, OccupancyStats::default());
    // With [radio] the bottleneck is the PDCP buffer.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wcdma/pdpc/dch384-web-rwnd30-100kB.toml");
    let s = Scenario::from_file(&path, &["duration=120s".to_string()]).unwrap();
    let r = run_seed(&s, 2);
    let radio = r.summary.radio.as_ref().expect("a radio summary");
    assert_eq!(radio.mean_pdcp_bytes, r.summary.bottleneck.mean_queue_bytes);
    check_occupancy(&r, "bottleneck", &r.summary.bottleneck);
}
