//! Traffic models over a wired path: timing against hand calculations,
//! reading and idle times, session accounting, UDP sources.

mod common;

use cellaqm_core::metrics::Download;
use cellaqm_core::time::Dur;
use cellaqm_core::{RunResult, Scenario};
use common::{run_seed, scenario};
use std::collections::BTreeMap;

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
    assert_eq!((d.kind, d.bytes, d.objects, d.connections, d.rtos), ("page", 260_000, 4, 4, 0));
    let took = d.time.map(Dur::as_secs_f64).expect("the page completes");
    println!("page: simulated {took:.4} s, hand calculation {expected:.4} s (main {main:.4} + inlines {inlines:.4})");
    assert!((took / expected - 1.0).abs() < 0.02, "page took {took:.4} s, hand calculation {expected:.4} s");
    assert!((d.goodput_bps.unwrap() - 260_000.0 * 8.0 / took).abs() < 1.0);
    // Four connections: the main object's, then three in parallel; all closed.
    assert_eq!(r.flows.len(), 4);
    assert!(r.flows.iter().all(|f| f.completion_s.is_some() && f.bytes_up == 376));
    let opens: Vec<f64> = r.flows.iter().map(|f| f.start_s).collect();
    assert!(
        opens[1] == opens[2] && opens[2] == opens[3] && opens[1] > 0.7,
        "inlines open together after the main object: {opens:?}"
    );
    assert_eq!(r.summary.downloads.all.completed, 1);
}

fn pages_and_mean_time(downloads: &[Download]) -> (usize, f64) {
    let done: Vec<f64> = downloads.iter().filter_map(|d| d.time.map(Dur::as_secs_f64)).collect();
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
    assert!((pages as f64 / expected - 1.0).abs() < 0.10, "{pages} pages vs {expected:.1}");
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
    assert!((n as f64 / expected - 1.0).abs() < 0.10, "{n} uploads vs {expected:.1}");
    assert!(r.downloads.iter().all(|d| d.kind == "upload"));
    let up: u64 = r.flows.iter().map(|f| f.bytes_up).sum();
    let down: u64 = r.flows.iter().map(|f| f.bytes_down).sum();
    assert!(up > 10_000_000 && down == 0, "uploads go up: {up} up, {down} down");
    for w in r.downloads.windows(2).filter(|w| w[1].completion_s.is_some()) {
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
    let done: Vec<&Download> = r.downloads.iter().filter(|d| d.time.is_some()).collect();
    assert!(done.len() >= 20, "{} downloads", done.len());
    assert!(done.iter().all(|d| d.bytes == 750_000 && d.objects == 3 && d.connections == 1));
    assert_eq!(
        r.flows[0].bytes_down,
        done.len() as u64 * 750_000 + if done.len() < r.downloads.len() { r.flows[0].bytes_down % 750_000 } else { 0 }
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
            assert!(w[0].completion_s.unwrap() <= w[1].request_s, "user {u} had two sessions at once");
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
    assert!((d.delay_ms.mean.expect("datagrams delivered") - 73.93).abs() < 0.1, "{d:?}");
    assert_eq!(r.flows[0].transport, "udp");
    assert_eq!(
        (r.summary.delay_ms.count, r.summary.delay_ms.p95),
        (0, None),
        "TCP delay statistics stay TCP-only, and without a packet they have no value"
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
    let calls: Vec<&Download> = r.downloads.iter().filter(|d| d.completion_s.is_some()).collect();
    let mean = calls.iter().map(|d| d.bytes as f64).sum::<f64>() / calls.len() as f64;
    println!("{} packet calls, mean {mean:.0} B", calls.len());
    assert!(calls.len() > 5000);
    assert!((mean / 12_000.0 - 1.0).abs() < 0.06, "mean packet call {mean:.0} B");
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
    assert!(r.downloads.iter().filter(|d| d.completion_s.is_some()).count() > 30);
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
    assert_eq!(format!("{:?}{:?}", a.flows, a.downloads), format!("{:?}{:?}", b.flows, b.downloads));
    assert_eq!(a.summary.users, 5);
    let users = |src: u32| -> Vec<u32> {
        let mut v: Vec<u32> = a.flows.iter().filter(|f| f.source == src).map(|f| f.user).collect();
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
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/{name}.toml"));
        let s = cellaqm_core::Scenario::from_file(&path, &["duration=60s".to_string()])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = run_seed(&s, 1);
        assert!(r.summary.downloads.all.completed > 0, "{name}: no download completed");
    }
}

/// A user's downloads: (request time, bytes, objects), by (source, user within the source).
type Requests = BTreeMap<(u32, u32), Vec<(f64, u64, u32)>>;

/// Every user's downloads in request order: (bytes, objects), by (source, user within the source).
fn user_requests(r: &RunResult, first_users: &[u32]) -> BTreeMap<(u32, u32), Vec<(u64, u32)>> {
    let mut out = Requests::new();
    for d in &r.downloads {
        let user = d.user - first_users[d.source as usize];
        out.entry((d.source, user)).or_default().push((d.request_s, d.bytes, d.objects));
    }
    out.into_iter()
        .map(|(k, mut v)| {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            (k, v.into_iter().map(|(_, b, o)| (b, o)).collect())
        })
        .collect()
}

/// Asserts that each user of `a` made the same requests (sizes, objects) as in
/// `b`, as far as both runs got; returns the number of requests compared.
fn assert_same_requests(a: &BTreeMap<(u32, u32), Vec<(u64, u32)>>, b: &BTreeMap<(u32, u32), Vec<(u64, u32)>>) -> usize {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    let mut compared = 0;
    for (key, xs) in a {
        let ys = &b[key];
        let n = xs.len().min(ys.len());
        assert!(n >= 3, "user {key:?}: only {n} requests to compare");
        assert_eq!(xs[..n], ys[..n], "source {} user {}: requests differ", key.0, key.1);
        compared += n;
    }
    compared
}

/// A session generator's arrivals: request time (bits) → bytes.
fn session_arrivals(r: &RunResult) -> BTreeMap<u64, u64> {
    r.downloads.iter().filter(|d| d.kind == "session").map(|d| (d.request_s.to_bits(), d.bytes)).collect()
}

/// Common random numbers: what users ask for does not depend on how the
/// network serves them. The same scenario under tail drop and CoDel, same
/// seed: every user of the web, HTTP/1.1 and upload sources makes the same
/// requests (page and file sizes, object counts) in the same order, and the
/// session generator offers the same sessions (arrival times and sizes), even
/// though downloads take different times and different sessions are lost.
#[test]
fn user_requests_do_not_depend_on_the_queue_scheme() {
    let text = r#"
        duration = "300s"
        [[traffic]]
        model = "web"
        users = 3
        main_size = { dist = "exponential", mean = "30kB" }
        inlines = { dist = "geometric", mean = 3 }
        inline_size = { dist = "exponential", mean = "15kB" }
        reading_time = { dist = "exponential", mean = "3s" }
        [[traffic]]
        model = "file_download"
        users = 2
        size = { dist = "exponential", mean = "100kB" }
        objects = { dist = "geometric", mean = 2 }
        reading_time = { dist = "exponential", mean = "3s" }
        [[traffic]]
        model = "upload"
        users = 2
        size = { dist = "exponential", mean = "40kB" }
        idle = { dist = "uniform", min = "1s", max = "4s" }
        [[traffic]]
        model = "sessions"
        users = 3
        interarrival = { dist = "exponential", mean = "1s" }
        size = { dist = "pareto", mean = "60kB", shape = 1.5, cap = "1MB" }
        [core]
        delay = "50ms"
        [bottleneck]
        rate = "1Mbps"
        buffer = "60kB"
        [uplink]
        rate = "256kbps"
        buffer = "30kB"
    "#;
    let with = |queue: &str| {
        let s = Scenario::from_toml_str(text, &[format!("bottleneck.queue={queue}")]).unwrap();
        (run_seed(&s, 7), s.traffic.first_users())
    };
    let (td, first) = with("{ scheme = \"tail_drop\" }");
    let (codel, _) = with("{ scheme = \"codel\" }");
    let times = |r: &RunResult| -> Vec<Option<Dur>> { r.downloads.iter().map(|d| d.time).collect() };
    assert_ne!(times(&td), times(&codel), "the schemes must serve the users differently");

    let users = |r: &RunResult| {
        let mut m = user_requests(r, &first);
        m.retain(|k, _| k.0 < 3);
        m
    };
    let compared = assert_same_requests(&users(&td), &users(&codel));
    println!("{compared} requests of 7 users identical under tail drop and CoDel");

    let (a, b) = (td.summary.sessions, codel.summary.sessions);
    println!("sessions: tail drop {a:?}, CoDel {b:?}");
    assert!(a.lost > 0 && b.lost > 0, "some sessions must be lost");
    assert_eq!(a.offered, b.offered, "the same sessions are offered");
    let (sa, sb) = (session_arrivals(&td), session_arrivals(&codel));
    for (t, bytes) in &sa {
        if let Some(other) = sb.get(t) {
            assert_eq!(bytes, other, "the session at {} s has another size", f64::from_bits(*t));
        }
    }
    // Every session one run has and the other lacks was lost in the other.
    let only_a = sa.keys().filter(|t| !sb.contains_key(t)).count() as u64;
    let only_b = sb.keys().filter(|t| !sa.contains_key(t)).count() as u64;
    assert!(only_a <= b.lost && only_b <= a.lost, "{only_a} only in tail drop, {only_b} only in CoDel");
}

/// A named source draws from streams named after it (`traffic.<name>.user<u>`),
/// so inserting another source before it keeps its users' requests; an
/// unnamed source's streams follow its position, and the insertion changes them.
#[test]
fn a_named_source_keeps_its_draws_when_a_source_is_inserted_before_it() {
    let net = "duration = \"120s\"\n[core]\ndelay = \"50ms\"\n[bottleneck]\nrate = \"1Mbps\"\nbuffer = \"30kB\"\n";
    let web = "[[traffic]]\nname = \"browsers\"\nmodel = \"web\"\nusers = 2\n\
               main_size = { dist = \"exponential\", mean = \"30kB\" }\n\
               reading_time = { dist = \"exponential\", mean = \"3s\" }\n";
    let cbr = "[[traffic]]\nmodel = \"cbr\"\nusers = 2\n";
    // The web source's users' requests, keyed by user within the source.
    let requests = |text: String, source: u32| {
        let s = scenario(&text);
        let all = user_requests(&run_seed(&s, 3), &s.traffic.first_users());
        all.into_iter().filter(|(k, _)| k.0 == source).map(|((_, u), v)| ((0, u), v)).collect::<BTreeMap<_, _>>()
    };
    let alone = requests(format!("{net}{web}"), 0);
    let behind_cbr = requests(format!("{net}{cbr}{web}"), 1);
    let compared = assert_same_requests(&alone, &behind_cbr);
    println!("{compared} requests identical with a source inserted before");

    let unnamed = web.replace("name = \"browsers\"\n", "");
    let alone = requests(format!("{net}{unnamed}"), 0);
    let behind_cbr = requests(format!("{net}{cbr}{unnamed}"), 1);
    assert_ne!(alone[&(0, 0)][0], behind_cbr[&(0, 0)][0], "unnamed: streams follow the position");
}
