//! The seven-cell HS-DSCH system (`[radio.cells]`, hsdsch-buffer-mgmt.md
//! scenario 2) end to end: the study's scenario files run, report per cell
//! and per user, conserve bytes, and repeat bit for bit.

mod common;
use cellaqm_core::Scenario;
use common::run_seed;
use std::path::Path;

/// `scenarios/hsdsch/<name>.toml` with `--set` overrides.
fn hsdsch(name: &str, sets: &[&str]) -> Result<Scenario, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/hsdsch/{name}.toml"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_file(&path, &sets).map_err(|e| e.to_string())
}

#[test]
fn the_long_transfer_load_reports_seven_cells_and_the_system_goodput() {
    let s = hsdsch("long-rr", &["duration=30s"]).unwrap();
    let r = run_seed(&s, 3);
    let sum = &r.summary;
    assert_eq!(sum.cells.len(), 7);
    assert!(sum.cells.iter().all(|c| c.downlink == "hsdsch" && c.scheduler == Some("round_robin")));
    // The study's metric: unique application bytes delivered over 7 cells × the run.
    let per_cell = sum.goodput_per_cell_bps.expect("with [radio.cells]");
    assert!((per_cell - sum.delivered_bytes as f64 * 8.0 / (7.0 * 30.0)).abs() < 1e-6);
    assert!(per_cell > 100e3, "{per_cell}");
    // Users' bytes add up to the flows', every user row has its handovers, the cells their users.
    assert_eq!(r.users.iter().map(|u| u.bytes_down).sum::<u64>(), r.flows.iter().map(|f| f.bytes_down).sum::<u64>());
    assert!(r.users.iter().all(|u| u.handovers.is_some() && u.cell < 7));
    assert_eq!(sum.cells.iter().map(|c| c.users).sum::<u32>(), 60);
    // SIR samples were taken where users had data, and formats used; sessions add up.
    let sir = sum.cells.iter().filter_map(|c| c.hsdsch().map(|h| h.sir_db)).map(|s| s.samples).sum::<u64>();
    let shares: u64 =
        sum.cells.iter().filter_map(|c| c.hsdsch().map(|h| h.mcs_use)).map(|m| m.iter().sum::<u64>()).sum();
    assert!(sir > 0 && shares > 0);
    let ss = &sum.sessions;
    assert!(ss.offered > 50, "{ss:?}");
    assert_eq!(ss.offered, ss.served + ss.lost + ss.unfinished);
}

/// Per user: every finished 250 kB session delivered exactly its 250 kB (no byte lost or
/// doubled on the way through the RNC buffer, RLC and the shared channel), an unfinished one
/// less; each user's downlink bytes are its flows' (the run's byte ledger balances too: `run_seed`).
#[test]
fn every_user_gets_exactly_its_sessions_bytes() {
    let s = hsdsch("long-rr", &["duration=30s"]).unwrap();
    let r = run_seed(&s, 4);
    let mut finished = 0;
    for u in &r.users {
        let flows: Vec<_> = r.flows.iter().filter(|f| f.user == u.user).collect();
        assert_eq!(u.bytes_down, flows.iter().map(|f| f.bytes_down).sum::<u64>(), "user {}", u.user);
        for f in flows {
            match f.completion_s {
                Some(_) => assert_eq!(f.bytes_delivered, 250_000, "user {} flow {}", u.user, f.flow),
                None => assert!(f.bytes_delivered < 250_000, "user {} flow {}", u.user, f.flow),
            }
            finished += f.completion_s.is_some() as u32;
        }
    }
    assert!(finished > 50, "{finished} sessions finished");
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let s = hsdsch("web-sir", &["duration=10s"]).unwrap();
    let (a, b) = (run_seed(&s, 5), run_seed(&s, 5));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.users, b.users);
    assert_eq!(a.summary.cells, b.summary.cells);
    assert_eq!(a.summary.delivered_bytes, b.summary.delivered_bytes);
    let c = run_seed(&s, 6);
    assert_ne!(a.summary.delivered_bytes, c.summary.delivered_bytes, "another seed, another run");
}

#[test]
fn errors_name_the_key() {
    let err = hsdsch("long-rr", &["radio.cells.bler=1.5"]).unwrap_err();
    assert!(err.contains("radio.cells.bler"), "{err}");
    let err = hsdsch("long-rr", &["radio.cells.users_per_tti=0"]).unwrap_err();
    assert!(err.contains("radio.cells.users_per_tti"), "{err}");
    let err = hsdsch("long-rr", &["radio.cells.radius_m=3"]).unwrap_err();
    assert!(err.contains("radius_m"), "{err}");
    // The radio environment's keys written in [radio.cells] (flattened there) and in
    // [radio.environment]: a bad value names its key, not only the section.
    let err = hsdsch("long-rr", &["radio.cells.speed=\"fast\""]).unwrap_err();
    assert_eq!(err, "radio.cells.speed: expected a speed with a unit, like \"30m/s\", got \"fast\"");
    let err = hsdsch("long-rr", &["radio.cells.layout=\"hex99\""]).unwrap_err();
    assert_eq!(err, "radio.cells.layout: expected one of \"hex7\", \"hex\", \"disc\", got \"hex99\"");
    let err = hsdsch("long-rr", &["radio.environment.radius=3"]).unwrap_err();
    assert_eq!(err, "radio.environment.radius: expected a string with a unit, like \"500m\", got the bare number 3");
}

/// `[radio.environment]`: its keys mean what the same keys of `[radio.cells]`
/// mean (the same run, bit for bit), take precedence over them, and a bad or
/// unused key is an error naming it.
#[test]
fn the_environment_section_is_the_cells_keys() {
    let short = ["duration=5s", "traffic.users=20"];
    let run = |sets: &[&str]| run_seed(&hsdsch("long-rr", &[&short[..], sets].concat()).unwrap(), 2).summary;
    let cells = run(&["radio.cells.radius=\"400m\"", "radio.cells.shadowing_sigma=6.0"]);
    let env = run(&["radio.environment.radius=\"400m\"", "radio.environment.shadowing_sigma=6.0"]);
    let both = run(&[
        "radio.cells.radius=\"900m\"",
        "radio.environment.radius=\"400m\"",
        "radio.environment.shadowing_sigma=6.0",
    ]);
    // Everything but the wall-clock figures.
    let json = |s| {
        let mut v = serde_json::to_value(s).unwrap();
        for k in ["wall_s", "sim_seconds_per_wall_second", "events_per_second"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(json(&cells), json(&env));
    assert_eq!(json(&both), json(&env));
    assert_ne!(json(&run(&[])), json(&env));
    let err = |sets: &[&str]| hsdsch("long-rr", sets).and_then(|s| s.validate().map(|_| s)).unwrap_err();
    let e = err(&["radio.environment.shadowing_sigma=-1.0"]);
    assert!(e.contains("radio.environment.shadowing_sigma: must be at least 0"), "{e}");
    let e = err(&["radio.environment.carrier=\"2GHz\""]);
    assert!(e.contains("radio.environment.carrier: not used by the HS-DSCH system"), "{e}");
    let e = err(&["radio.environment.radiuss=3"]);
    assert!(e.contains("radio.environment.radiuss: unknown key"), "{e}");
    let e = err(&["radio.cells.radiuss=3"]);
    assert!(e.contains("radio.cells.radiuss: unknown key"), "{e}");
}

/// Two rings (`layout = "hex"`): 19 cells, each reported, every user in one of them.
#[test]
fn two_rings_make_nineteen_cells() {
    let sets = ["duration=5s", "radio.environment.layout=\"hex\"", "radio.environment.rings=2", "traffic.users=100"];
    let r = run_seed(&hsdsch("long-rr", &sets).unwrap(), 1);
    assert_eq!(r.summary.cells.len(), 19);
    assert!(r.users.iter().all(|u| u.cell < 19));
    assert!(
        r.summary.cells.iter().filter(|c| c.tti_utilisation.unwrap_or(0.0) > 0.0).count() > 5,
        "{:?}",
        r.summary.cells
    );
}
