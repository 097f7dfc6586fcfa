//! `tcp.cwnd_validation` (RFC 7661): a sender held back by the receive window
//! stops growing its congestion window.

mod common;

use cellaqm_core::{run, RunOptions};
use common::scenario;

/// The largest cwnd of the run's downlink flow, in bytes.
fn max_cwnd(validation: bool) -> u64 {
    let s = scenario(&format!(
        r#"
        duration = "60s"
        [tcp]
        rwnd = 10
        cwnd_validation = {validation}
        [traffic]
        model = "bulk"
        [bottleneck]
        rate = "10Mbps"
        buffer = "1MB"
        "#
    ));
    let r = run(&s, 1, &RunOptions { trace: true, ..RunOptions::default() });
    let trace = r.trace.expect("traced");
    trace.cwnd.cwnd_bytes.iter().copied().max().expect("cwnd samples")
}

#[test]
fn without_validation_cwnd_grows_far_beyond_the_receive_window() {
    assert!(max_cwnd(false) > 50 * 1460, "{}", max_cwnd(false));
}

#[test]
fn with_validation_cwnd_stays_within_twice_the_receive_window() {
    let cwnd = max_cwnd(true);
    assert!(cwnd <= 2 * 10 * 1460 + 1460, "{cwnd}");
}
