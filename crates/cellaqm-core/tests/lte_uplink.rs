//! The LTE uplink study (lte-uplink-raqm.md) in the full simulator, with the
//! scenarios of scenarios/lte-uplink/: one 100 MB upload over a 2 Mb/s
//! uplink into a 1.25 MB UE buffer, 60 ms core delay, SACK; drop-tail,
//! R-AQM at the eNodeB (BSRs every 20 ms), combined AQM (PDCP discard 1 s at
//! the UE plus R-AQM) and T-AQM plus R-AQM.

mod common;

use cellaqm_core::metrics::Summary;
use cellaqm_core::{run, RunOptions, RunResult, Scenario};
use std::sync::OnceLock;

fn load(name: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lte-uplink").join(name);
    Scenario::from_file(&path, &sets).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The drop-tail and R-AQM runs with one flow, run once for all the tests.
fn drop_tail() -> &'static RunResult {
    static RUN: OnceLock<RunResult> = OnceLock::new();
    RUN.get_or_init(|| common::run_seed(&load("drop-tail.toml", &[]), 1))
}

fn raqm() -> &'static RunResult {
    static RUN: OnceLock<RunResult> = OnceLock::new();
    RUN.get_or_init(|| common::run_seed(&load("raqm.toml", &[]), 1))
}

fn show(name: &str, r: &RunResult) {
    let s = &r.summary;
    println!(
        "{name:<16} goodput {:>5.0} kb/s  uplink TCP delay mean {:>5.0} ms, max {:>5.0} ms  RTOs {}  uplink drops {:?}",
        s.goodput_bps / 1e3,
        up_mean(s),
        up_max(s),
        s.rtos,
        s.uplink.drops
    );
}

/// Mean and maximum one-way delay of the uplink TCP data packets, ms.
fn up_mean(s: &Summary) -> f64 {
    s.delay_up_ms.mean.expect("uplink packets measured")
}
fn up_max(s: &Summary) -> f64 {
    s.delay_up_ms.max.expect("uplink packets measured")
}

/// Serialisation time of a full-sized packet (1500 B) on the 2 Mb/s uplink, ms.
const PACKET_MS: f64 = 6.0;
/// One-way delay after the UE buffer: the packet's serialisation, the core's
/// 60 ms, and its serialisation at the core's 100 Mb/s (0.12 ms), ms.
const PATH_MS: f64 = PACKET_MS + 60.0 + 0.12;

/// Drop-tail fills the 1.25 MB buffer (5 s at 2 Mb/s); R-AQM keeps the head of
/// the UE buffer near its 0.2 s minAge by dropping at the eNodeB, at a
/// throughput cost within 5 %.
#[test]
fn raqm_lowers_the_mean_tcp_delay_at_a_modest_throughput_cost() {
    let (td, raqm) = (drop_tail(), raqm());
    show("drop-tail", td);
    show("raqm", raqm);
    let (td, raqm) = (&td.summary, &raqm.summary);
    assert!(up_mean(td) > 1000.0, "drop-tail should build a queue of seconds: {} ms", up_mean(td));
    assert!(td.uplink.drops.contains_key("overflow") && !td.uplink.drops.contains_key("receiver"));
    assert!(up_mean(raqm) < up_mean(td) / 4.0, "R-AQM mean delay {} ms vs drop-tail {} ms", up_mean(raqm), up_mean(td));
    assert!(raqm.goodput_bps > 0.95 * td.goodput_bps, "goodput {} vs {}", raqm.goodput_bps, td.goodput_bps);
    // Every loss is R-AQM's, booked under the uplink as `receiver`.
    assert_eq!(raqm.uplink.drops.keys().copied().collect::<Vec<_>>(), ["receiver"]);
    assert!(raqm.uplink.drops["receiver"] > 0);
}

/// The far end's estimate tracks the true head-of-line delay of the UE buffer.
/// Reports ride with departures, so the 20 ms period stretches to whole
/// packet times: one every 24 ms (4 × 6 ms) while the buffer is busy. The
/// estimator takes arrivals as uniform within an interval, so it can miss by
/// half an interval (12 ms), and the truth (the age of the oldest packet)
/// moves in packet steps: within 12 + 6 ms at every report, and unbiased to
/// within a packet time on average.
#[test]
fn the_estimate_tracks_the_true_head_of_line_delay() {
    let b = raqm().summary.bsr.as_ref().expect("BSRs on the uplink");
    let e = &b.error_ms;
    println!(
        "{} BSRs: mean reported {:.0} B, mean estimate {:.1} ms vs true {:.1} ms; error mean {:.2} ms, mean |error| {:.2} ms, \
         p95 |error| {:.2} ms, max |error| {:.2} ms",
        b.reports, b.mean_reported_bytes, b.mean_estimate_ms, b.mean_true_ms, e.mean, e.mean_abs, e.p95_abs, e.max_abs
    );
    let interval_ms = (20.0 / PACKET_MS).ceil() * PACKET_MS;
    assert!(b.reports as f64 >= 120e3 / interval_ms * 0.95, "{} reports in 120 s", b.reports);
    assert!(b.mean_true_ms > 50.0, "a standing queue to estimate: {} ms", b.mean_true_ms);
    assert!(e.max_abs <= interval_ms / 2.0 + PACKET_MS, "max |error| {} ms", e.max_abs);
    assert!(e.mean.abs() <= PACKET_MS, "bias {} ms", e.mean);
}

/// The trace shows every BSR (estimate and truth) and every R-AQM drop, as an
/// uplink drop of cause `receiver`; the same scenario and seed give the same
/// trace and summary.
#[test]
fn the_trace_shows_reports_and_receiver_drops_and_runs_repeat_exactly() {
    let s = load("raqm.toml", &[]);
    let traced = |s: &Scenario| {
        let mut r = run(s, 1, &RunOptions { trace: true, ..RunOptions::default() });
        (r.summary.wall_s, r.summary.sim_seconds_per_wall_second, r.summary.events_per_second) = (0.0, 0.0, 0.0);
        r
    };
    let (a, b) = (traced(&s), traced(&s));
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
    let (ta, tb) = (a.trace.unwrap(), b.trace.unwrap());
    assert_eq!(ta, tb);
    assert_eq!(ta.bsr.time_s.len() as u64, a.summary.bsr.unwrap().reports);
    let receiver: Vec<usize> = (0..ta.drops.cause.len()).filter(|&i| ta.drops.cause[i] == "receiver").collect();
    assert_eq!(receiver.len() as u64, a.summary.uplink.drops["receiver"]);
    assert!(receiver.iter().all(|&i| ta.drops.dir[i] == "up"));
    // A drop-tail run has no BSRs: no summary entry, an empty table.
    let td = run(&load("drop-tail.toml", &[]), 1, &RunOptions { trace: true, ..RunOptions::default() });
    assert!(td.summary.bsr.is_none() && td.trace.unwrap().bsr.time_s.is_empty());
}

/// Combined AQM and T-AQM + R-AQM are configurable and act. With one flow at a
/// fixed rate R-AQM keeps the UE buffer's delay under 1 s, so the combined
/// scheme's PDCP discard timer never fires and the run equals R-AQM's. With 8
/// uploads in parallel, R-AQM's one drop per 0.6 s cannot hold the queue, and
/// the UE-side timer (PDCP discard 1 s, T-AQM's maxAge 0.8 s) bounds the delay
/// R-AQM alone lets grow: no packet waits longer than the threshold in the
/// UE buffer.
#[test]
fn combined_aqm_and_taqm_with_raqm() {
    let (td, raqm) = (drop_tail(), raqm());
    let combined = common::run_seed(&load("combined.toml", &[]), 1);
    let both = common::run_seed(&load("taqm-raqm.toml", &[]), 1);
    for (name, r) in [("combined", &combined), ("taqm+raqm", &both)] {
        show(name, r);
        assert!(up_mean(&r.summary) < up_mean(&td.summary) / 4.0, "{name}");
        assert!(r.summary.goodput_bps > 0.95 * td.summary.goodput_bps, "{name}");
    }
    assert_eq!(combined.summary.uplink.drops, raqm.summary.uplink.drops);
    assert_eq!(combined.summary.delay_up_ms, raqm.summary.delay_up_ms);
    assert!(both.summary.uplink.drops["age"] > 0 && both.summary.uplink.drops["receiver"] > 0);

    let eight = ["traffic.files=8", "traffic.concurrent=true"];
    let raqm = common::run_seed(&load("raqm.toml", &eight), 1);
    show("raqm, 8 flows", &raqm);
    for (name, file, threshold_ms) in
        [("combined, 8", "combined.toml", 1000.0), ("taqm+raqm, 8", "taqm-raqm.toml", 800.0)]
    {
        let r = common::run_seed(&load(file, &eight), 1);
        show(name, &r);
        let s = &r.summary;
        assert!(s.uplink.drops["age"] > 0 && s.uplink.drops["receiver"] > 0, "{name}: {:?}", s.uplink.drops);
        assert!(up_max(s) <= threshold_ms + PATH_MS, "{name}: max {} ms", up_max(s));
        assert!(up_max(&raqm.summary) > threshold_ms + PATH_MS, "R-AQM alone: max {} ms", up_max(&raqm.summary));
    }
}

/// BSRs make the uplink event-driven even without a buffer limit or a
/// discipline (reports ride with departures, which the unmanaged link's
/// shortcut does not have): 10 s of a greedy upload at 2 Mb/s fills the
/// unlimited buffer up to the receive window, and a report arrives every 24 ms.
#[test]
fn bsrs_on_an_otherwise_unmanaged_uplink() {
    let s = common::scenario(
        r#"
        duration = "10s"
        [tcp]
        rwnd = "200kB"
        [traffic]
        model = "upload"
        files = 1
        size = "100MB"
        [bottleneck]
        rate = "10Mbps"
        [uplink]
        rate = "2Mbps"
        bsr_period = "20ms"
        "#,
    );
    let r = common::run_seed(&s, 1);
    let b = r.summary.bsr.expect("BSRs");
    assert!(b.reports as f64 >= 10e3 / 24.0 * 0.9, "{} reports", b.reports);
    assert!(b.mean_reported_bytes > 50e3, "the window's worth queues: {} B", b.mean_reported_bytes);
    assert!(r.summary.uplink.drops.is_empty());
}
