//! Traffic models over a wired path: timing against hand calculations,
//! reading and idle times, session accounting, UDP sources.

mod common;

use cellaqm_core::metrics::Download;
use common::{run_seed, scenario};

/// Bottleneck serialisation time of `bytes` at 3.6 Mb/s, seconds.
fn t(bytes: f64) -> f64 {
    bytes * 8.0 / 3.6e6
}

/// One HTTP/1.0 page (65 kB main object, 3 × 65 kB inlines) over an idle path:
/// 3.6 Mb/s bottleneck with a buffer that never drops, 70 ms core delay each
/// way, fast uplink; MSS 1460 B + 40 B headers, initial window 3 segments, no
/// delayed ACKs, receive window never limiting; a fixed 376 B (≈ e^5.93) request.
///
/// Hand calculation (T = 1500 B at 3.6 Mb/s = 3.33 ms; RTT of a data packet =
/// 140 ms + T, core-link serialisation at 100 Mb/s neglected):
/// - Main object, from the click (SYN sent) at 0: the SYN-ACK is back at 140 ms,
///   the request (riding on the handshake's ACK) reaches the server at 210 ms.
///   65 000 B = 44 × 1460 + 760 → 45 segments; slow start from IW 3 sends
///   rounds of 3, 6, 12, 24 (= 45) segments, each round starting one RTT after
///   the previous (the first ACK of a round releases the next; each round's
///   burst, at most 24 T = 80 ms, drains within the RTT). The last round starts
///   at 210 + 3·RTT and its last byte arrives 70 ms + 23 T + T(800 B) later:
///   main = 0.210 + 3·(0.140 + T) + 0.070 + 23 T + T(800) ≈ 0.788 s.
/// - Inlines: three new connections opened at once: handshake and request as
///   above (210 ms), then the aggregate slow-start rounds are 9, 18, 36, 72
///   segments; rounds 1–3 drain within the RTT (30, 60, 120 ms), round 4 (240 ms)
///   keeps the bottleneck busy to the end (each ACK releases two segments, faster
///   than the link drains them):
///   inlines = 0.210 + 3·(0.140 + T) + 0.070 + 69 T + 3 T(800) ≈ 0.945 s.
/// - Page ≈ 0.788 + 0.945 ≈ 1.733 s.
#[test]
fn a_web_page_takes_the_slow_start_time() {
    let s = scenario(
        r#"
        duration = "20s"
        [tcp]
        mss = "1460B"
        header = "40B"
        initial_window = 3
        rwnd = "1MB"
        [traffic]
        model = "web"
        pages = 1
        request_size = "376B"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "3.6Mbps"
        buffer = "1MB"
        "#,
    );
    let r = run_seed(&s, 1);
    let rtt = 0.140 + t(1500.0);
    let main = 0.210 + 3.0 * rtt + 0.070 + 23.0 * t(1500.0) + t(800.0);
    let inlines = 0.210 + 3.0 * rtt + 0.070 + 69.0 * t(1500.0) + 3.0 * t(800.0);
    let expected = main + inlines;
    assert_eq!(r.downloads.len(), 1);
    let d = &r.downloads[0];
    assert_eq!(
        (d.kind, d.bytes, d.objects, d.connections, d.rtos),
        ("page", 260_000, 4, 4, 0)
    );
    let took = d.time_s.expect("the page completes");
    println!("page: simulated {took:.4} s, hand calculation {expected:.4} s (main {main:.4} + inlines {inlines:.4})");
    assert!(
        (took / expected - 1.0).abs() < 0.02,
        "page took {took:.4} s, hand calculation {expected:.4} s"
    );
    assert!((d.goodput_bps.unwrap() - 260_000.0 * 8.0 / took).abs() < 1.0);
    // Four connections: the main object's, then three in parallel; all closed.
    assert_eq!(r.flows.len(), 4);
    assert!(r
        .flows
        .iter()
        .all(|f| f.completion_s.is_some() && f.bytes_up == 376));
    let opens: Vec<f64> = r.flows.iter().map(|f| f.start_s).collect();
    assert!(
        opens[1] == opens[2] && opens[2] == opens[3] && opens[1] > 0.7,
        "inlines open together after the main object: {opens:?}"
    );
    assert_eq!(r.summary.downloads.completed, 1);
}

fn pages_and_mean_time(downloads: &[Download]) -> (usize, f64) {
    let done: Vec<f64> = downloads.iter().filter_map(|d| d.time_s).collect();
    (done.len(), done.iter().sum::<f64>() / done.len() as f64)
}

/// Reading time: a user reading 6 s after each page loads about
/// 1200 / (6 + mean page time) pages in 1200 s (WCDMA 384 kb/s case).
#[test]
fn reading_time_is_honoured() {
    let s = scenario(
        r#"
        duration = "1200s"
        [tcp]
        mss = "1440B"
        header = "60B"
        initial_window = 2
        rwnd = 30
        [traffic]
        model = "web"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "384kbps"
        buffer = "100kB"
        [uplink]
        rate = "64kbps"
        "#,
    );
    let r = run_seed(&s, 3);
    let (pages, mean) = pages_and_mean_time(&r.downloads);
    let expected = 1200.0 / (6.0 + mean);
    println!("{pages} pages, mean page time {mean:.2} s, expected {expected:.1}");
    assert!(
        (pages as f64 / expected - 1.0).abs() < 0.10,
        "{pages} pages vs {expected:.1}"
    );
    // A second check that it is the reading time at work: no two pages of the user overlap,
    // and each request follows the previous completion by 6 s.
    for w in r.downloads.windows(2) {
        let gap = w[1].request_s - w[0].completion_s.unwrap();
        assert!((gap - 6.0).abs() < 1e-6, "gap {gap}");
    }
}

/// Upload idle time uniform in [5 s, 10 s]: about 1200 / (7.5 + mean upload time) uploads.
#[test]
fn upload_idle_time_is_honoured() {
    let s = scenario(
        r#"
        duration = "1200s"
        [traffic]
        model = "upload"
        size = { dist = "exponential", mean = "300kB" }
        idle = { dist = "uniform", min = "5s", max = "10s" }
        [core]
        delay = "30ms"
        [bottleneck]
        rate = "10Mbps"
        [uplink]
        rate = "3Mbps"
        buffer = "200kB"
        "#,
    );
    let r = run_seed(&s, 5);
    let (n, mean) = pages_and_mean_time(&r.downloads);
    let expected = 1200.0 / (7.5 + mean);
    println!("{n} uploads, mean time {mean:.2} s, expected {expected:.1}");
    assert!(
        (n as f64 / expected - 1.0).abs() < 0.10,
        "{n} uploads vs {expected:.1}"
    );
    assert!(r.downloads.iter().all(|d| d.kind == "upload"));
    let up: u64 = r.flows.iter().map(|f| f.bytes_up).sum();
    let down: u64 = r.flows.iter().map(|f| f.bytes_down).sum();
    assert!(
        up > 10_000_000 && down == 0,
        "uploads go up: {up} up, {down} down"
    );
    for w in r
        .downloads
        .windows(2)
        .filter(|w| w[1].completion_s.is_some())
    {
        let gap = w[1].request_s - w[0].completion_s.unwrap();
        assert!((5.0..=10.0).contains(&gap), "idle {gap}");
    }
}

/// HTTP/1.1: every download of a user on one persistent connection; pipelined
/// requests of a 3-file page are answered in order.
#[test]
fn file_download_uses_one_persistent_pipelined_connection() {
    let s = scenario(
        r#"
        duration = "120s"
        [traffic]
        model = "file_download"
        size = "250kB"
        objects = 3
        reading_time = "2s"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "3.6Mbps"
        buffer = "100kB"
        "#,
    );
    let r = run_seed(&s, 1);
    assert_eq!(r.flows.len(), 1, "one persistent connection");
    let done: Vec<&Download> = r.downloads.iter().filter(|d| d.time_s.is_some()).collect();
    assert!(done.len() >= 20, "{} downloads", done.len());
    assert!(done
        .iter()
        .all(|d| d.bytes == 750_000 && d.objects == 3 && d.connections == 1));
    assert_eq!(
        r.flows[0].bytes_down,
        done.len() as u64 * 750_000
            + if done.len() < r.downloads.len() {
                r.flows[0].bytes_down % 750_000
            } else {
                0
            }
    );
}

/// The session generator: every session is served, lost or unfinished; a user
/// has one session at a time; with few users and frequent sessions some are lost.
#[test]
fn sessions_go_to_idle_users_or_are_lost() {
    let s = scenario(
        r#"
        duration = "300s"
        [traffic]
        model = "sessions"
        users = 4
        interarrival = { dist = "exponential", mean = "1s" }
        size = { dist = "pareto", mean = "100kB", shape = 1.1, cap = "2MB" }
        [core]
        delay = "25ms"
        [bottleneck]
        rate = "1Mbps"
        buffer_packets = 30
        "#,
    );
    let r = run_seed(&s, 9);
    let ss = r.summary.sessions;
    println!("{ss:?}");
    assert!(ss.offered > 250 && ss.lost > 0 && ss.served > 100, "{ss:?}");
    assert_eq!(ss.offered, ss.served + ss.lost + ss.unfinished);
    assert!(ss.unfinished <= 4);
    assert_eq!(r.downloads.len() as u64, ss.served + ss.unfinished);
    for u in 0..4 {
        let mut mine: Vec<&Download> = r.downloads.iter().filter(|d| d.user == u).collect();
        mine.sort_by(|a, b| a.request_s.total_cmp(&b.request_s));
        for w in mine.windows(2) {
            assert!(
                w[0].completion_s.unwrap() <= w[1].request_s,
                "user {u} had two sessions at once"
            );
        }
    }
    // Many users: nothing is lost.
    let s2 = scenario("duration = \"100s\"\n[traffic]\nmodel = \"sessions\"\nusers = 60\ninterarrival = { dist = \"uniform\", min = \"0.1s\", max = \"0.5s\" }\nsize = \"50kB\"\n[bottleneck]\nrate = \"10Mbps\"\n");
    let r2 = run_seed(&s2, 1);
    assert_eq!(r2.summary.sessions.lost, 0);
    assert!(r2.summary.sessions.served > 300);
}

/// CBR 64 kb/s with 160-byte datagrams: one every 20 ms, all delivered over an idle path.
#[test]
fn cbr_sends_at_its_rate_over_udp() {
    let s = scenario(
        r#"
        duration = "100s"
        [traffic]
        model = "cbr"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "384kbps"
        "#,
    );
    let r = run_seed(&s, 1);
    let d = &r.summary.datagrams;
    // Sent at 0, 20 ms, ..., 100 s inclusive.
    assert_eq!(d.sent, 5001);
    assert!(d.delivered >= 4995 && d.lost == 0, "{d:?}");
    assert_eq!(d.delivered_bytes, d.delivered * 160);
    // 70 ms + 188 B at 384 kb/s (3.9 ms) + 188 B at 100 Mb/s.
    assert!((d.delay_ms.mean - 73.93).abs() < 0.1, "{d:?}");
    assert_eq!(r.flows[0].transport, "udp");
    assert_eq!(
        r.summary.delay_ms.count, 0,
        "TCP delay statistics stay TCP-only"
    );
}

/// ETSI 30.03 web model: a packet call carries on average 25 datagrams of
/// ≈ 480 B (Pareto k = 81.5 B, α = 1.1, cap 66666 B) = 12 kB.
#[test]
fn etsi_packet_calls_have_the_standard_mean_size() {
    let s = scenario(
        r#"
        duration = "600s"
        [traffic]
        model = "etsi_web"
        users = 40
        reading_time = "2s"
        [bottleneck]
        rate = "20Mbps"
        "#,
    );
    let r = run_seed(&s, 2);
    let calls: Vec<&Download> = r
        .downloads
        .iter()
        .filter(|d| d.completion_s.is_some())
        .collect();
    let mean = calls.iter().map(|d| d.bytes as f64).sum::<f64>() / calls.len() as f64;
    println!("{} packet calls, mean {mean:.0} B", calls.len());
    assert!(calls.len() > 5000);
    assert!(
        (mean / 12_000.0 - 1.0).abs() < 0.06,
        "mean packet call {mean:.0} B"
    );
    // Over TCP the same model runs on one connection per user.
    let t = scenario(
        r#"
        duration = "60s"
        [traffic]
        model = "etsi_web"
        users = 3
        reading_time = "1s"
        transport = "tcp"
        [bottleneck]
        rate = "2Mbps"
        "#,
    );
    let r = run_seed(&t, 2);
    assert_eq!(r.flows.len(), 3);
    assert!(
        r.downloads
            .iter()
            .filter(|d| d.completion_s.is_some())
            .count()
            > 30
    );
}

/// Several sources at once, each with its own users and random stream, and
/// identical results for the same seed.
#[test]
fn mixed_sources_are_deterministic() {
    let s = scenario(
        r#"
        duration = "60s"
        [[traffic]]
        model = "web"
        users = 3
        start = { dist = "uniform", min = "0s", max = "5s" }
        [[traffic]]
        model = "cbr"
        users = 2
        [[traffic]]
        model = "upload"
        first_user = 0
        files = 3
        size = "300kB"
        concurrent = true
        start = { dist = "uniform", min = "0s", max = "30s" }
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "1Mbps"
        buffer = "30kB"
        [uplink]
        rate = "256kbps"
        buffer = "20kB"
        "#,
    );
    let a = run_seed(&s, 4);
    let b = run_seed(&s, 4);
    assert_eq!(
        format!("{:?}{:?}", a.flows, a.downloads),
        format!("{:?}{:?}", b.flows, b.downloads)
    );
    assert_eq!(a.summary.users, 5);
    let users = |src: u32| -> Vec<u32> {
        let mut v: Vec<u32> = a
            .flows
            .iter()
            .filter(|f| f.source == src)
            .map(|f| f.user)
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(users(0), vec![0, 1, 2]);
    assert_eq!(users(1), vec![3, 4]);
    assert_eq!(users(2), vec![0], "first_user = 0 shares user 0");
    assert_eq!(a.downloads.iter().filter(|d| d.kind == "upload").count(), 3);
}

/// The example scenarios load and run.
#[test]
fn example_scenarios_run() {
    for name in ["web-384k", "file-download"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../scenarios/{name}.toml"));
        let s = cellaqm_core::Scenario::from_file(&path, &["duration=60s".to_string()])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = run_seed(&s, 1);
        assert!(
            r.summary.downloads.completed > 0,
            "{name}: no download completed"
        );
    }
}
