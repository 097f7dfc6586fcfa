//! Trace-driven and stepped link capacity through whole runs: a saturating
//! source uses every delivery opportunity of a Mahimahi trace, partial
//! opportunities follow Mahimahi's byte rule, a schedule gives its integral,
//! and the shipped trace scenarios read their traces relative to their files.

mod common;

use cellaqm_core::capacity::Trace;
use cellaqm_core::{RunResult, Scenario};
use common::run_seed;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A UDP source above the link's capacity (`per_ms` datagrams a millisecond of
/// `packet` B of payload + 28 B of headers) into a buffer that never runs out,
/// over `rate` (TOML); the core is fast enough never to hold it back.
fn saturate(rate: &str, packet: u32, per_ms: u32, buffer: &str, duration: &str, dir: &Path) -> RunResult {
    let source = packet * 8 * per_ms;
    let text = format!(
        r#"
        duration = "{duration}"
        [traffic]
        model = "cbr"
        rate = "{source}kbps"
        packet = "{packet}B"
        [core]
        rate = "100Gbps"
        [bottleneck]
        rate = {rate}
        {buffer}
        "#
    );
    let s = Scenario::from_toml_str_in(&text, &[], dir).unwrap_or_else(|e| panic!("{e}"));
    run_seed(&s, 1)
}

/// Opportunities of `trace` (looped) at times in (from_ms, end_ms] ms.
fn opportunities_in(trace: &str, from_ms: i64, end_ms: u64) -> u64 {
    let ms: Vec<u64> = trace.lines().map(|l| l.trim().parse().unwrap()).collect();
    let period = *ms.last().unwrap();
    let times = (0..=end_ms / period).flat_map(|pass| ms.iter().map(move |t| pass * period + t));
    times.filter(|&t| from_ms < t as i64 && t <= end_ms).count() as u64
}

/// Opportunities of `trace` (looped) at times in (0, end_ms] ms.
fn opportunities_until(trace: &str, end_ms: u64) -> u64 {
    opportunities_in(trace, 0, end_ms)
}

#[test]
fn a_saturating_source_uses_every_opportunity_of_a_real_trace() {
    // Verizon LTE downlink (Winstein et al., NSDI 2013): at most 16 opportunities in a
    // millisecond, the source brings 25. The first packet reaches the buffer after 0 ms,
    // so every opportunity in (0, 20 s] carries one 1500-byte packet.
    let dir = repo().join("scenarios/traces");
    let text = std::fs::read_to_string(dir.join("data/Verizon-LTE-short.down")).unwrap();
    let want = opportunities_until(&text, 20_000);
    assert!(want > 7_000, "{want}");
    for buffer in ["buffer = \"10MB\"", ""] {
        // Managed (event by event) and unmanaged (Lindley recursion) alike.
        let r = saturate("{ trace = \"data/Verizon-LTE-short.down\" }", 1472, 25, buffer, "20.0005s", &dir);
        let b = &r.summary.bottleneck;
        assert_eq!(b.packets_sent, want, "{buffer}");
        assert_eq!(b.bytes_sent, want * 1500);
        // The utilisation is the share of the opportunities' bytes used: all but those at 0 ms.
        let offered = opportunities_in(&text, -1, 20_000);
        assert!(offered > want);
        assert!((b.utilisation - want as f64 / offered as f64).abs() < 1e-9, "{} {want} {offered}", b.utilisation);
    }
}

#[test]
fn partial_opportunities_follow_mahimahi_and_the_trace_loops() {
    let dir = std::env::temp_dir().join(format!("cellaqm-traces-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Period 7 ms, four opportunities: 1, 1, 4, 7 ms; 1 s is 142 passes and 6 ms.
    std::fs::write(dir.join("short.trace"), "1\n1\n4\n7\n").unwrap();
    let opportunities = opportunities_until("1\n1\n4\n7\n", 1_000);
    assert_eq!(opportunities, 142 * 4 + 3);
    let rate = "{ trace = \"short.trace\" }";
    // 750-byte packets: two share each opportunity (at most 4 in a millisecond, 10 come).
    let r = saturate(rate, 722, 10, "buffer = \"1MB\"", "1.0005s", &dir);
    assert_eq!(r.summary.bottleneck.packets_sent, 2 * opportunities);
    // 1000-byte packets: every other one takes the 500 B left and 500 B of the next
    // opportunity, and leaves with the later: after n opportunities, ⌊1500 n / 1000⌋ have left.
    let r = saturate(rate, 972, 10, "buffer = \"1MB\"", "1.0005s", &dir);
    assert_eq!(r.summary.bottleneck.packets_sent, opportunities * 1500 / 1000);
    // 40-byte packets (ACK-sized): 37 in an opportunity and the 38th across two, so while
    // the queue is never empty no byte is lost: 75 in two opportunities.
    let r = saturate(rate, 12, 100, "buffer = \"1MB\"", "1.0005s", &dir);
    assert_eq!(r.summary.bottleneck.packets_sent, opportunities * 1500 / 40);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stepped_link_carries_the_integral_of_its_rate() {
    // 1 Mb/s for 1 s, 3 Mb/s for 1 s, repeating: 10 s carry 5 × 4 Mbit = 2.5 MB,
    // 1 666.7 packets of 1500 B; the last one is still being sent at the end.
    let steps = "{ steps = [[\"0s\", \"1Mbps\"], [\"1s\", \"3Mbps\"]], repeat = \"2s\" }";
    for buffer in ["buffer = \"1MB\"", ""] {
        let r = saturate(steps, 1472, 1, buffer, "10s", Path::new(""));
        assert_eq!(r.summary.bottleneck.packets_sent, 1_666, "{buffer}");
    }
    // Without repeat the last rate holds: 1 s at 1 Mb/s then 9 s at 3 Mb/s = 28 Mbit = 2 333.3 packets.
    let r = saturate("{ steps = [[\"0s\", \"1Mbps\"], [\"1s\", \"3Mbps\"]] }", 1472, 1, "", "10s", Path::new(""));
    assert_eq!(r.summary.bottleneck.packets_sent, 2_333);
}

#[test]
fn the_shipped_trace_scenarios_read_their_traces_and_report_the_mean_rate() {
    let dir = repo().join("scenarios/traces");
    for (name, down_mbps) in [("umts-driving.toml", 2.0), ("lte-short.toml", 5.0)] {
        let s = Scenario::from_file(&dir.join(name), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cellaqm_core::capacity::LinkRate::Trace(t) = &s.bottleneck.rate else { panic!("{name}: not a trace") };
        let mean = t.trace().mean_bps() / 1e6;
        assert!((mean - down_mbps).abs() < 0.1, "{name}: {mean} Mb/s");
    }
    // A trace as the shipped README describes it: 58 655 opportunities in 140 s, 5.03 Mb/s.
    let text = std::fs::read_to_string(dir.join("data/Verizon-LTE-short.down")).unwrap();
    let t = Trace::parse(&text).unwrap();
    assert_eq!((t.len(), t.period().as_secs_f64()), (58_655, 140.0));
}

#[test]
fn a_missing_trace_names_the_key_and_the_file() {
    let text = "duration = \"1s\"\n[traffic]\nmodel = \"bulk\"\n[bottleneck]\nrate = { trace = \"nope.down\" }\n";
    let e = Scenario::from_toml_str_in(text, &[], Path::new("/nonexistent")).unwrap_err().0;
    assert!(e.starts_with("bottleneck.rate.trace: /nonexistent/nope.down: cannot read: "), "{e}");
    assert!(!e.contains('\n'));
}
