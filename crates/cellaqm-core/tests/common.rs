//! Helpers shared by the integration tests.

use cellaqm_core::{run, RunOptions, RunResult, Scenario};

/// A wired dumbbell scenario; `extra` is appended TOML (later keys override nothing: pass whole sections).
pub fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, &[]).unwrap_or_else(|e| panic!("test scenario invalid: {e}"))
}

pub fn run_seed(s: &Scenario, seed: u64) -> RunResult {
    let r = run(s, seed, &RunOptions::default());
    assert!(
        r.summary.ledger.balances(),
        "byte ledger does not balance: {:?}",
        r.summary.ledger
    );
    r
}
