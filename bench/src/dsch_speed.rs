//! DSCH system speed benchmark (issue 23): the study's heaviest load, 250
//! conversational and 600 web users in 37 cells with one TCP user under test
//! (scenarios/dsch/tcp-400.toml with `radio.dsch.web_users = 600`), 300
//! simulated seconds, seed 1. Prints wall time, simulated seconds per wall
//! second and the central cell's measures.
//!
//! Run with `make bench` (release build). Target (issue 23): at least 50
//! simulated seconds per wall second on one core.

use cellaqm_core::radio::ran::SystemSection;
use cellaqm_core::{run, RunOptions, Scenario};

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/dsch/tcp-400.toml");
    let text = std::fs::read_to_string(path).expect("the scenario file");
    for users in [400, 600] {
        let set = [format!("radio.dsch.web_users={users}")];
        let s = Scenario::from_toml_str(&text, &set).expect("benchmark scenario is valid");
        let r = run(&s, 1, &RunOptions::default()).summary;
        let Some(SystemSection::Dsch(d)) = &r.system else { panic!("a DSCH run") };
        println!(
            "{users} web users + 250 calls: 300 s in {:.2} s wall ({:.0} simulated s per wall s); central cell: \
             mean eta {:.3}, P(eta > 0.9) {:.3}, DSCH acceptance {:.3} (codes {:.3}, power {:.3}, load {:.3}); \
             SDU error conversational {:.4}, web {:.4}; web delay {:.3} s (sd {:.3}); TCP goodput {:.1} kb/s",
            r.wall_s,
            r.sim_seconds_per_wall_second,
            d.mean_eta,
            d.p_eta_over_90,
            d.dsch_acceptance,
            d.code_acceptance,
            d.power_acceptance,
            d.load_acceptance,
            d.conversational_sdu_error,
            d.web_sdu_error,
            d.web_delay_mean_s,
            d.web_delay_sd_s,
            r.goodput_bps / 1e3,
        );
    }
}
