//! Following and stopping a run from another thread ([`Control`]).

mod common;

use cellaqm_core::{run_controlled, Control, RunOptions};
use common::scenario;

const LONG: &str = r#"
    duration = "100000s"
    [traffic]
    model = "bulk"
    [bottleneck]
    rate = "2Mbps"
    buffer = "30kB"
    "#;

/// The flag is read before every event: a run cancelled before it starts takes
/// none (it was read every 65 536 events: a DSCH run took 14–20 s to stop).
#[test]
fn a_cancelled_run_takes_no_further_event() {
    let control = Control::default();
    control.cancel();
    assert!(run_controlled(&scenario(LONG), 1, &RunOptions::default(), &control).is_none());
    assert_eq!((control.events(), control.simulated_s()), (0, 0.0));
}

/// The published progress is the last event's, not that of a look every N events.
#[test]
fn progress_is_published_at_every_event() {
    let control = Control::default();
    let s = scenario(&LONG.replace("100000s", "1s"));
    let r = run_controlled(&s, 1, &RunOptions::default(), &control).expect("not cancelled");
    assert_eq!(control.events(), r.summary.events);
    assert!(control.simulated_s() > 0.99, "{}", control.simulated_s());
}

#[test]
fn a_run_cancelled_from_another_thread_stops_early_and_publishes_its_time() {
    let control = Control::default();
    let s = scenario(LONG);
    let result = std::thread::scope(|scope| {
        let running = scope.spawn(|| run_controlled(&s, 1, &RunOptions::default(), &control));
        while control.simulated_s() == 0.0 {
            std::thread::yield_now();
        }
        control.cancel();
        running.join().unwrap()
    });
    assert!(result.is_none());
    let reached = control.simulated_s();
    assert!(reached > 0.0 && reached < 100000.0, "stopped at {reached} s");
}

#[test]
fn an_uncancelled_run_ends_with_its_results() {
    let s = scenario(&LONG.replace("100000s", "5s"));
    let r = run_controlled(&s, 1, &RunOptions::default(), &Control::default()).expect("not cancelled");
    assert!(r.summary.delivered_bytes > 0);
}
