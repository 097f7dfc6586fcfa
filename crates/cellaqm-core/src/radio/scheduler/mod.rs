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
/// docs/scenario.md's example scheduler, compiled and tested with the crate
/// (the page shows the file verbatim, a test below checks it), but not registered.
#[cfg(test)]
#[path = "../../../../../docs/examples/longest_queue.rs"]
mod longest_queue;
mod max_ci;
mod priority;
mod prop_fair;
mod round_robin;

pub use average::RateAverage;
pub use max_ci::MaxCi;
pub use priority::StrictPriority;
pub use prop_fair::ProportionalFair;
pub use round_robin::RoundRobin;

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// What a scheduler knows of one user at the start of a TTI.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UserView {
    /// Bytes waiting at the transmitter (the Node-B's MAC-hs buffer); 0: nothing to send.
    pub backlog_bytes: u64,
    /// The rate the user's channel supports in this TTI (b/s).
    pub rate_bps: f64,
    /// The user's average served rate (b/s), see [`RateAverage`]; 0 for a
    /// scheduler that does not read it ([`SchedulerKind::uses_average`]).
    pub avg_bps: f64,
    /// Priority class: 0 is served first.
    pub priority: u8,
}

/// Picks the users a TTI serves.
pub trait Scheduler {
    /// Writes to `picked` (cleared first), in serving order, up to `max` users
    /// with a backlog, and advances the scheduler's turn past the last one.
    fn select(&mut self, now: Time, users: &[UserView], max: usize, picked: &mut Vec<usize>);
}

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

/// The turn shared by every scheduler: the user after the last one picked.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    next: usize,
}

/// Picks up to `max` backlogged users of `users` into `picked`: taken in turn
/// from `turn`, then stably sorted by `key` (smallest first), so that equal
/// keys keep their turn order; the turn moves past the last user picked.
/// The sort is kept to the `max` best: each candidate, in turn order, is
/// inserted after the picked users whose key is not greater than its own (a
/// binary search), and what falls beyond `max` is dropped — the first `max`
/// of the full stable sort, found in one pass without the modulo or the sort.
pub fn in_turn_by<K: PartialOrd>(
    turn: &mut Turn,
    users: &[UserView],
    max: usize,
    picked: &mut Vec<usize>,
    key: impl Fn(&UserView) -> K,
) {
    picked.clear();
    let n = users.len();
    if n == 0 || max == 0 {
        return;
    }
    let start = turn.next % n;
    for u in (start..n).chain(0..start) {
        if users[u].backlog_bytes == 0 {
            continue;
        }
        let k = key(&users[u]);
        let at = picked.partition_point(|&p| key(&users[p]).partial_cmp(&k) != Some(std::cmp::Ordering::Greater));
        if at == max {
            continue;
        }
        if picked.len() == max {
            picked.pop();
        }
        picked.insert(at, u);
    }
    if let Some(&last) = picked.last() {
        turn.next = (last + 1) % n;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A user with `backlog` bytes, a channel of `rate` b/s, an average of `avg` b/s, class `priority`.
    pub fn view(backlog: u64, rate: f64, avg: f64, priority: u8) -> UserView {
        UserView { backlog_bytes: backlog, rate_bps: rate, avg_bps: avg, priority }
    }

    /// `rounds` single picks from `s` over fixed `users`.
    pub fn picks(s: &mut impl Scheduler, users: &[UserView], rounds: usize) -> Vec<Option<usize>> {
        let mut picked = Vec::new();
        (0..rounds)
            .map(|_| {
                s.select(Time::ZERO, users, 1, &mut picked);
                picked.first().copied()
            })
            .collect()
    }

    #[test]
    fn one_pick_is_the_first_of_the_sorted_order() {
        // Keys with ties, from every turn position: the scan picks what the sort puts first.
        let users: Vec<UserView> = [3.0, 1.0, 2.0, 1.0, 0.0, 1.0].iter().map(|&r| view(1, r, 0.0, 0)).collect();
        let mut users = users;
        users[4].backlog_bytes = 0;
        for start in 0..users.len() {
            let (mut one, mut all) = (Turn { next: start }, Turn { next: start });
            let (mut a, mut b) = (Vec::new(), Vec::new());
            in_turn_by(&mut one, &users, 1, &mut a, |u| u.rate_bps);
            in_turn_by(&mut all, &users, 6, &mut b, |u| u.rate_bps);
            assert_eq!(a[0], b[0], "from {start}");
        }
    }

    proptest::proptest! {
        /// The one-pass insertion picks the first `max` of the whole stable sort in turn
        /// order (the rule), for keys with ties, any turn and any `max`.
        #[test]
        fn picks_are_the_head_of_the_stable_sort(
            keys in proptest::collection::vec((0u8..4, 0u8..3), 0..12),
            next in 0usize..14,
            max in 0usize..14,
        ) {
            let users: Vec<UserView> = keys.iter().map(|&(k, b)| view(b as u64, k as f64, 0.0, 0)).collect();
            let n = users.len();
            let mut want: Vec<usize> =
                (0..n).map(|k| (next + k) % n.max(1)).filter(|&u| users[u].backlog_bytes > 0).collect();
            want.sort_by(|&a, &b| users[a].rate_bps.total_cmp(&users[b].rate_bps));
            want.truncate(max);
            let (mut turn, mut got) = (Turn { next }, Vec::new());
            in_turn_by(&mut turn, &users, max, &mut got, |u| u.rate_bps);
            proptest::prop_assert_eq!(&got, &want);
            if let Some(&last) = want.last() {
                proptest::prop_assert_eq!(turn.next, (last + 1) % n);
            }
        }
    }

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

    #[test]
    fn the_docs_show_the_example_scheduler_verbatim() {
        let page = include_str!("../../../../../docs/scenario.md");
        let example = include_str!("../../../../../docs/examples/longest_queue.rs");
        assert!(
            page.contains(&format!("```rust\n{example}```")),
            "docs/scenario.md: show docs/examples/longest_queue.rs"
        );
    }
}
