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
    assert!(
        err.abs() <= 0.15,
        "p = {p}: goodput {measured:.0} b/s vs Mathis {predicted:.0} b/s ({:+.1}%)",
        err * 100.0
    );
}

#[test]
fn reno_goodput_follows_mathis_at_1_percent_loss() {
    mathis_case(0.01, "600s");
}

#[test]
fn reno_goodput_follows_mathis_at_0_1_percent_loss() {
    mathis_case(0.001, "1000s");
}

/// M/D/1: Poisson arrivals of fixed-size packets (UDP, `arrivals = "poisson"`)
/// at a 1 Mb/s bottleneck wait on average W = ρ / (2μ(1 − ρ)) before their
/// transmission starts (Pollaczek–Khinchine with deterministic service), μ the
/// packets served per second and ρ the load. The wait is the mean one-way delay
/// less the fixed part: the 10 ms propagation and the two serialisations (the
/// core link runs at 10 Gb/s, where queueing is negligible). 1000-byte packets
/// (972 B payload + 28 B UDP/IP header): μ = 125/s; 2000 s give 75k–225k packets,
/// the mean within a few percent (slower at heavy load, where waits are long and correlated).
#[test]
fn poisson_udp_waits_as_m_d_1() {
    const PACKET_BITS: f64 = 8000.0;
    const RATE: f64 = 1e6;
    for rho in [0.3, 0.6, 0.9] {
        let s = scenario(&format!(
            r#"
            duration = "2000s"
            [traffic]
            model = "cbr"
            rate = "{payload_bps}bps"
            packet = "972B"
            arrivals = "poisson"
            [core]
            rate = "10Gbps"
            delay = "10ms"
            [bottleneck]
            rate = "1Mbps"
            "#,
            payload_bps = rho * RATE * 972.0 / 1000.0,
        ));
        let r = run_seed(&s, 3);
        let d = &r.summary.datagrams.delay_ms;
        let fixed_ms = 10.0 + 1e3 * PACKET_BITS / RATE + 1e3 * PACKET_BITS / 10e9;
        let waited_ms = d.mean.expect("datagrams delivered") - fixed_ms;
        let mu = RATE / PACKET_BITS;
        let theory_ms = 1e3 * rho / (2.0 * mu * (1.0 - rho));
        println!("rho {rho}: {} datagrams, mean wait {waited_ms:.3} ms, M/D/1 {theory_ms:.3} ms", d.count);
        let tolerance = if rho < 0.8 { 0.05 } else { 0.10 }; // heavy load: slower convergence
        assert!((waited_ms / theory_ms - 1.0).abs() < tolerance, "rho {rho}: {waited_ms:.3} ms vs {theory_ms:.3} ms");
    }
}
