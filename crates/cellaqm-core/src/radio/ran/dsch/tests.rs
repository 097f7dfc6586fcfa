//! The DSCH system end to end (Ferrús et al.), run on its own (no users
//! under test): the model checks and determinism.

use super::config::DschConfig;
use super::stats::DschSummary;
use super::system::DschSystem;
use super::transport_format::FRAME;
use crate::time::Time;

/// Runs the system alone for `secs` seconds with seed `seed`.
fn run(cfg: &DschConfig, secs: u64, seed: u64) -> DschSummary {
    let mut s = DschSystem::new(cfg, &cfg.environment("radio.dsch", None).unwrap(), 0, seed);
    let mut served = Vec::new();
    for f in 0..secs * 100 {
        s.frame(Time(f * FRAME.0), &mut [], 40, &mut served);
    }
    s.summary()
}

/// With no interactive users, independent block errors at BLER 1 % and
/// two blocks per SDU lose 1 − 0.99² = 1.99 % of conversational SDUs, when
/// the powers meet the targets: 100 callers (a load the cells carry),
/// standing still on long calls so the interference settles. Tolerance: 4
/// binomial standard deviations.
#[test]
fn conversational_sdu_error_is_two_blocks_at_one_percent() {
    let cfg = DschConfig {
        web_users: 0,
        conversational_users: 100,
        env: crate::radio::env::EnvironmentKeys { speed: Some(crate::units::Speed(0.0)), ..Default::default() },
        call_duration: crate::traffic::Dist::fixed(1e6),
        ..DschConfig::default()
    };
    let s = run(&cfg, 400, 3);
    let p = 1.0 - 0.99f64 * 0.99;
    let n = s.conversational_sdus as f64;
    let sd = (p * (1.0 - p) / n).sqrt();
    assert!(n > 20_000.0, "{n} SDUs");
    assert!((s.conversational_sdu_error - p).abs() < 4.0 * sd, "{} vs {p} ± {}", s.conversational_sdu_error, 4.0 * sd);
    assert_eq!((s.requests, s.web_sdus), (0, 0));
}

/// The same seed gives the same measures; another seed others.
#[test]
fn deterministic() {
    let cfg = DschConfig { web_users: 100, conversational_users: 60, ..DschConfig::default() };
    let a = run(&cfg, 20, 7);
    assert_eq!(a, run(&cfg, 20, 7));
    assert_ne!(a, run(&cfg, 20, 8));
    assert!(a.requests > 0 && a.web_sdus > 0 && a.conversational_sdus > 0, "{a:?}");
}

/// φ bounds the load factor interactive traffic may bring: a lower φ admits
/// fewer requests and leaves a lower mean η at the central cell.
#[test]
fn phi_limits_the_load() {
    let base = DschConfig { web_users: 300, conversational_users: 60, ..DschConfig::default() };
    let low = run(&DschConfig { phi: 0.3, ..base.clone() }, 30, 1);
    let high = run(&DschConfig { phi: 1.0, ..base }, 30, 1);
    assert!(low.dsch_acceptance < high.dsch_acceptance, "{low:?}\n{high:?}");
    assert!(low.mean_eta < high.mean_eta, "{} vs {}", low.mean_eta, high.mean_eta);
    assert!(low.load_acceptance < high.load_acceptance);
}
