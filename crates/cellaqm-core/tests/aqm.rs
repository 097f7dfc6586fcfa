//! Queue disciplines in the full simulator: every AQM keeps the queue of a
//! long TCP flow shorter than tail drop does.

mod common;

use common::{run_seed, scenario};

/// One long NewReno flow over a 384 kb/s bottleneck with a 100 kB buffer and
/// 70 ms core delay (the R99 384k case of the WCDMA study with a wired
/// stand-in). A large receive window lets tail drop fill the buffer: about
/// 100 kB / 48 kB/s ≈ 2 s of queueing delay before each loss.
fn p95_delay_ms(queue: &str) -> (f64, f64) {
    let s = scenario(&format!(
        r#"
        duration = "300s"
        [tcp]
        recovery = "newreno"
        rwnd = "1MB"
        [traffic]
        model = "bulk"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "384kbps"
        buffer = "100kB"
        queue = {queue}
        [uplink]
        rate = "64kbps"
        "#
    ));
    let r = run_seed(&s, 1);
    (r.summary.delay_ms.p95.expect("packets delivered"), r.summary.goodput_bps)
}

#[test]
fn every_aqm_gives_a_lower_p95_delay_than_tail_drop() {
    let (td, td_goodput) = p95_delay_ms(r#"{ scheme = "tail_drop" }"#);
    println!("{:<60} p95 {td:>7.0} ms  goodput {:>5.0} kb/s", "tail_drop", td_goodput / 1e3);
    assert!(td > 1000.0, "tail drop should fill the 100 kB buffer: p95 {td} ms");
    for queue in [
        r#"{ scheme = "red", thresholds = { min = "33.3kB", max = "100kB" } }"#,
        r#"{ scheme = "ared" }"#,
        r#"{ scheme = "pdpc" }"#,
        r#"{ scheme = "ttlred1" }"#,
        r#"{ scheme = "ttlred2" }"#,
        r#"{ scheme = "codel" }"#,
        r#"{ scheme = "pie" }"#,
        r#"{ scheme = "fq_codel" }"#,
    ] {
        let (p95, goodput) = p95_delay_ms(queue);
        println!("{queue:<60} p95 {p95:>7.0} ms  goodput {:>5.0} kb/s", goodput / 1e3);
        assert!(p95 < td, "{queue}: p95 {p95:.0} ms is not below tail drop's {td:.0} ms");
    }
}

/// ACK delay control (Alcaraz et al., IEEE Commun. Mag.) on the reverse path: with the fixed
/// variant (min_th 0, min_d 100 ms) every uplink ACK is held 100 ms at the RNC.
/// A flow limited by its receive window keeps the same bytes in flight, so the
/// extra 100 ms of ACK path hold 100 ms × 384 kb/s of that window that would
/// otherwise wait in the forward buffer: the mean one-way delay of downlink
/// data falls by 100 ms (±10 ms) and goodput stays at the bearer rate.
#[test]
fn ack_delay_moves_queueing_from_the_buffer_to_the_ack_path() {
    let run = |ack_delay: &str| {
        let s = scenario(&format!(
            r#"
            duration = "120s"
            [tcp]
            rwnd = 30
            [traffic]
            model = "bulk"
            [core]
            delay = "100ms"
            [bottleneck]
            rate = "384kbps"
            buffer = "100kB"
            [uplink]
            rate = "384kbps"
            {ack_delay}
            "#
        ));
        let r = run_seed(&s, 1);
        (r.summary.delay_ms.mean.expect("packets delivered"), r.summary.goodput_bps)
    };
    let (plain_delay, plain_goodput) = run("");
    let (held_delay, held_goodput) = run("[ack_delay]\nmode = \"fixed\"\nmin_th = 0\nmin_d = \"100ms\"");
    println!(
        "mean delay {plain_delay:.0} ms -> {held_delay:.0} ms, goodput {:.0} -> {:.0} kb/s",
        plain_goodput / 1e3,
        held_goodput / 1e3
    );
    assert!((plain_delay - held_delay - 100.0).abs() < 10.0, "{plain_delay} ms -> {held_delay} ms");
    assert!(held_goodput > 0.97 * plain_goodput, "{held_goodput} vs {plain_goodput}");
}
