//! The schedulers of a cell's shared channel: which users a TTI serves.
//!
//! A scheduler sees each user of the cell through a [`UserView`] (its backlog
//! at the transmitter, the rate its channel supports now, its average served
//! rate, its priority class) and picks, in order, up to `max` of the users
//! with a backlog ([`Scheduler::select`]). A TTI serves one user on today's
//! HSDPA cell; code multiplexing (HS-DSCH) and resource blocks (LTE) ask for
//! several.
//!
//! Every scheduler here ranks by one key and breaks ties in turn: the
//! candidates are taken in round-robin order from the user after the last one
//! picked, and a stable sort by the scheduler's key keeps that order among
//! equals ([`in_turn_by`]). One file per scheduler, each giving its key:
//!
//! | `scheduler` | file | serves first |
//! |---|---|---|
//! | `round_robin` | `round_robin.rs` | the next backlogged user in turn |
//! | `max_ci` | `max_ci.rs` | the best channel (highest rate now): max C/I, max-SIR |
//! | `proportional_fair` | `prop_fair.rs` | the highest rate now over its average rate |
//! | `priority` | `priority.rs` | the lowest priority class (0 first), in turn within a class |

mod average;
mod interface;
/// docs/scenario.md's example scheduler, compiled and tested with the crate
/// (the page shows the file verbatim, tests/test_docs_examples.py checks it), but not registered.
#[cfg(test)]
#[path = "../../../../../docs/examples/longest_queue.rs"]
mod longest_queue;
mod max_ci;
mod priority;
mod prop_fair;
mod round_robin;
mod turn;

pub use average::RateAverage;
pub use interface::{Scheduler, UserView};
pub use max_ci::MaxCi;
pub use priority::StrictPriority;
pub use prop_fair::ProportionalFair;
pub use round_robin::RoundRobin;
pub use turn::{in_turn_by, Turn};

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// `scheduler` in a scenario (`[radio.hsdpa]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    #[default]
    RoundRobin,
    MaxCi,
    ProportionalFair,
    Priority,
}

impl SchedulerKind {
    pub fn build(self) -> AnyScheduler {
        match self {
            SchedulerKind::RoundRobin => AnyScheduler::RoundRobin(RoundRobin::default()),
            SchedulerKind::MaxCi => AnyScheduler::MaxCi(MaxCi::default()),
            SchedulerKind::ProportionalFair => AnyScheduler::ProportionalFair(ProportionalFair::default()),
            SchedulerKind::Priority => AnyScheduler::Priority(StrictPriority::default()),
        }
    }

    /// Whether the scheduler reads [`UserView::avg_bps`] (the others leave it 0: no average is kept up).
    pub fn uses_average(self) -> bool {
        self == SchedulerKind::ProportionalFair
    }

    /// The name in scenario files and summaries.
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::RoundRobin => "round_robin",
            SchedulerKind::MaxCi => "max_ci",
            SchedulerKind::ProportionalFair => "proportional_fair",
            SchedulerKind::Priority => "priority",
        }
    }
}

/// Every scheduler, dispatched statically.
pub enum AnyScheduler {
    RoundRobin(RoundRobin),
    MaxCi(MaxCi),
    ProportionalFair(ProportionalFair),
    Priority(StrictPriority),
}

impl AnyScheduler {
    /// The next user to serve in this TTI, with the backlog its view showed,
    /// taken out of `users` for the rest of the TTI (its backlog set to 0).
    /// A cell that serves several users per TTI asks one at a time, after
    /// leaving out those the TTI has no room for, so that a scheduler's turn
    /// (round robin) moves past the users served only.
    pub fn next_served(&mut self, now: Time, users: &mut [UserView], picked: &mut Vec<usize>) -> Option<(usize, u64)> {
        self.select(now, users, 1, picked);
        let u = *picked.first()?;
        Some((u, std::mem::take(&mut users[u].backlog_bytes)))
    }
}

impl Scheduler for AnyScheduler {
    fn select(&mut self, now: Time, users: &[UserView], max: usize, picked: &mut Vec<usize>) {
        match self {
            AnyScheduler::RoundRobin(s) => s.select(now, users, max, picked),
            AnyScheduler::MaxCi(s) => s.select(now, users, max, picked),
            AnyScheduler::ProportionalFair(s) => s.select(now, users, max, picked),
            AnyScheduler::Priority(s) => s.select(now, users, max, picked),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interface::tests::view;
    use super::*;

    #[test]
    fn several_users_per_tti_come_in_the_schedulers_order() {
        let users = [view(1, 1e6, 0.0, 1), view(1, 3e6, 0.0, 0), view(0, 9e6, 0.0, 0), view(1, 2e6, 0.0, 0)];
        let mut picked = Vec::new();
        let mut s = SchedulerKind::MaxCi.build();
        s.select(Time::ZERO, &users, 2, &mut picked);
        assert_eq!(picked, [1, 3], "the best two channels with data (user 2 has none)");
        let mut s = SchedulerKind::Priority.build();
        s.select(Time::ZERO, &users, 3, &mut picked);
        assert_eq!(picked, [1, 3, 0], "class 0 in turn, then class 1");
        let mut s = SchedulerKind::RoundRobin.build();
        s.select(Time::ZERO, &users, 8, &mut picked);
        assert_eq!(picked, [0, 1, 3], "at most every backlogged user");
        s.select(Time::ZERO, &users, 2, &mut picked);
        assert_eq!(picked, [0, 1], "the turn moved past the last one picked (3)");
    }
}
