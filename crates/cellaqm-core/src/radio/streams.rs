//! The names of a radio's random streams ([`crate::rng`]).

use crate::rng::{self, Rng};

/// The random stream `part` of `user`: user 0 keeps the single-user names
/// (`radio.pdcp`), so that a one-user run draws as it always did; user
/// `u` ≥ 1 draws from `radio.ue<u>.pdcp`.
pub fn stream_name(user: u32, part: &str) -> String {
    match user {
        0 => format!("radio.{part}"),
        u => format!("radio.ue{u}.{part}"),
    }
}

/// The random stream `part` of `user` for run seed `seed` (named by [`stream_name`]).
pub fn user_stream(seed: u64, user: u32, part: &str) -> Rng {
    rng::stream(seed, &stream_name(user, part))
}
