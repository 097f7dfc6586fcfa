//! Agreement with theory on a wired bottleneck.

mod common;

use common::{run_seed, scenario};

/// One long flow over a tail-drop bottleneck whose buffer (100 kB) exceeds the
/// bandwidth-delay product (3.6 Mb/s × ~141 ms ≈ 63 kB) keeps the link busy:
/// after each halving the buffer still covers the pipe, so utilisation ≥ 95%.
#[test]
fn buffer_of_one_bdp_keeps_the_bottleneck_busy() {
    let s = scenario(
        r#"
        duration = "200s"
        [tcp]
        recovery = "newreno"
        rwnd = "4MB"
        [traffic]
        model = "bulk"
        [core]
        delay = "70ms"
        [bottleneck]
        rate = "3.6Mbps"
        buffer = "100kB"
        "#,
    );
    let r = run_seed(&s, 1);
    let u = r.summary.bottleneck.utilisation;
    assert!(u >= 0.95, "bottleneck utilisation {u:.3} < 0.95");
    assert!(r.summary.drops.get("overflow").copied().unwrap_or(0) > 0, "the flow should fill the buffer");
}

/// Mathis et al. 1997: a Reno flow with random loss probability p gets about
/// MSS/RTT · sqrt(3/(2p)). Loss is on the bottleneck's data direction only; the
/// bottleneck (100 Mb/s) and the receive window (10 MB) never limit the flow,
/// delayed ACKs are off (the formula's b = 1), RTT = 2 × 50 ms + serialisation.
fn mathis_case(p: f64, duration: &str) {
    let s = scenario(&format!(
        r#"
        duration = "{duration}"
        [tcp]
        recovery = "reno"
        mss = "1460B"
        rwnd = "10MB"
        [traffic]
        model = "bulk"
        [core]
        delay = "50ms"
        [bottleneck]
        rate = "100Mbps"
        loss = {p}
        "#
    ));
    let mss_bits = 1460.0 * 8.0;
    let rtt = 0.1 + 2.0 * 1500.0 * 8.0 / 100e6 + 2.0 * 40.0 * 8.0 / 100e6;
    let predicted = mss_bits / rtt * (3.0 / (2.0 * p)).sqrt();
    let mut total = 0.0;
    let seeds = 3;
    for seed in 1..=seeds {
        total += run_seed(&s, seed).summary.goodput_bps;
    }
    let measured = total / seeds as f64;
    let err = measured / predicted - 1.0;
    println!("p = {p}: measured {measured:.0} b/s, Mathis {predicted:.0} b/s, error {:+.1}%", err * 100.0);
    assert!(err.abs() <= 0.15, "p = {p}: goodput {measured:.0} b/s vs Mathis {predicted:.0} b/s ({:+.1}%)", err * 100.0);
}

#[test]
fn reno_goodput_follows_mathis_at_1_percent_loss() {
    mathis_case(0.01, "600s");
}

#[test]
fn reno_goodput_follows_mathis_at_0_1_percent_loss() {
    mathis_case(0.001, "1000s");
}
