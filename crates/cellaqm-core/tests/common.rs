//! Helpers shared by the integration tests.
// Each test crate compiles this module and uses only some of it.
#![allow(dead_code)]

use cellaqm_core::{run, RunOptions, RunResult, Scenario};

/// A scenario from TOML text; panics with the error if it is invalid.
pub fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, &[]).unwrap_or_else(|e| panic!("test scenario invalid: {e}"))
}

pub fn run_seed(s: &Scenario, seed: u64) -> RunResult {
    let r = run(s, seed, &RunOptions::default());
    assert!(r.summary.ledger.balances(), "byte ledger does not balance: {:?}", r.summary.ledger);
    r
}
