//! The schedulers of a cell's shared channel: which users a TTI serves.
//!
//! A scheduler sees each user of the cell through a [`UserView`] (its backlog
//! at the transmitter, the rate its channel supports now, its average served
//! rate, its priority class) and picks the next user with a backlog to serve
//! ([`Scheduler::pick`]). A TTI serves one user on today's HSDPA cell; code
//! multiplexing (HS-DSCH) and resource blocks (LTE) serve several, asking
//! for one at a time ([`AnyScheduler::next_served`]).
//!
//! Every scheduler here ranks by one key and breaks ties in turn: of the
//! candidates in round-robin order from the user after the last one picked,
//! the first with the best key ([`in_turn_by`]). One file per scheduler, each
//! giving its key (a [`Rank`], served by [`InTurn`]):
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
pub use turn::{in_turn_among, in_turn_by, InTurn, Rank, Turn};

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
            SchedulerKind::RoundRobin => AnyScheduler::RoundRobin(InTurn::default()),
            SchedulerKind::MaxCi => AnyScheduler::MaxCi(InTurn::default()),
            SchedulerKind::ProportionalFair => AnyScheduler::ProportionalFair(InTurn::default()),
            SchedulerKind::Priority => AnyScheduler::Priority(InTurn::default()),
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
    RoundRobin(InTurn<RoundRobin>),
    MaxCi(InTurn<MaxCi>),
    ProportionalFair(InTurn<ProportionalFair>),
    Priority(InTurn<StrictPriority>),
}

impl AnyScheduler {
    /// The next user to serve in this TTI, with the backlog its view showed,
    /// taken out of `users` for the rest of the TTI (its backlog set to 0).
    /// A cell that serves several users per TTI asks one at a time, after
    /// leaving out those the TTI has no room for, so that a scheduler's turn
    /// (round robin) moves past the users served only.
    pub fn next_served(&mut self, now: Time, users: &mut [UserView]) -> Option<(usize, u64)> {
        let u = self.pick(now, users)?;
        Some((u, std::mem::take(&mut users[u].backlog_bytes)))
    }

    /// [`AnyScheduler::next_served`] where only the users in `listed`
    /// (increasing) may have a backlog ([`Scheduler::pick_listed`]).
    pub fn next_served_listed(&mut self, now: Time, users: &mut [UserView], listed: &[usize]) -> Option<(usize, u64)> {
        let u = self.pick_listed(now, users, listed)?;
        Some((u, std::mem::take(&mut users[u].backlog_bytes)))
    }
}

impl Scheduler for AnyScheduler {
    fn pick(&mut self, now: Time, users: &[UserView]) -> Option<usize> {
        match self {
            AnyScheduler::RoundRobin(s) => s.pick(now, users),
            AnyScheduler::MaxCi(s) => s.pick(now, users),
            AnyScheduler::ProportionalFair(s) => s.pick(now, users),
            AnyScheduler::Priority(s) => s.pick(now, users),
        }
    }

    fn pick_listed(&mut self, now: Time, users: &[UserView], listed: &[usize]) -> Option<usize> {
        match self {
            AnyScheduler::RoundRobin(s) => s.pick_listed(now, users, listed),
            AnyScheduler::MaxCi(s) => s.pick_listed(now, users, listed),
            AnyScheduler::ProportionalFair(s) => s.pick_listed(now, users, listed),
            AnyScheduler::Priority(s) => s.pick_listed(now, users, listed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::interface::tests::view;
    use super::*;

    /// The users one TTI serves, asked for one at a time until none is left.
    fn served(s: &mut AnyScheduler, users: &[UserView]) -> Vec<(usize, u64)> {
        let mut views = users.to_vec();
        std::iter::from_fn(|| s.next_served(Time::ZERO, &mut views)).collect()
    }

    #[test]
    fn several_users_per_tti_come_in_the_schedulers_order() {
        let users = [view(1, 1e6, 0.0, 1), view(2, 3e6, 0.0, 0), view(0, 9e6, 0.0, 0), view(3, 2e6, 0.0, 0)];
        let mut s = SchedulerKind::MaxCi.build();
        assert_eq!(served(&mut s, &users), [(1, 2), (3, 3), (0, 1)], "the best channels with data (user 2 has none)");
        let mut s = SchedulerKind::Priority.build();
        assert_eq!(served(&mut s, &users), [(1, 2), (3, 3), (0, 1)], "class 0 in turn, then class 1");
        let mut s = SchedulerKind::RoundRobin.build();
        assert_eq!(served(&mut s, &users), [(0, 1), (1, 2), (3, 3)], "every backlogged user in turn");
        assert_eq!(s.pick(Time::ZERO, &users), Some(0), "the turn moved past the last one served (3)");
    }
}
