//! The turn every scheduler here breaks ties by: the candidates in
//! round-robin order from the user after the last one picked, the first of
//! them with the best key served ([`in_turn_by`]). A scheduler that is one
//! key and this turn is a [`Rank`] in an [`InTurn`].

use super::interface::{Scheduler, UserView};
use crate::time::Time;
use std::cmp::Ordering;
use std::marker::PhantomData;

/// A scheduler's ranking rule: the backlogged user with the smallest key is served first.
pub trait Rank {
    type Key: PartialOrd;
    fn key(u: &UserView) -> Self::Key;
}

/// The scheduler of a [`Rank`]: the smallest key first, equal keys in turn.
#[derive(Clone, Debug, Default)]
pub struct InTurn<R> {
    turn: Turn,
    rank: PhantomData<R>,
}

impl<R: Rank> Scheduler for InTurn<R> {
    fn pick(&mut self, _now: Time, users: &[UserView]) -> Option<usize> {
        in_turn_by(&mut self.turn, users, R::key)
    }

    fn pick_listed(&mut self, _now: Time, users: &[UserView], listed: &[usize]) -> Option<usize> {
        in_turn_among(&mut self.turn, users, Some(listed), R::key)
    }
}

/// The turn shared by every scheduler: the user after the last one picked.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    next: usize,
}

/// The backlogged user of `users` with the smallest `key`, the first in turn
/// from `turn` among equal keys (the head of the stable sort of the
/// candidates in turn order by `key`); the turn moves past it.
pub fn in_turn_by<K: PartialOrd>(turn: &mut Turn, users: &[UserView], key: impl Fn(&UserView) -> K) -> Option<usize> {
    in_turn_among(turn, users, None, key)
}

/// [`in_turn_by`], visiting only the users in `listed` (increasing) if given:
/// every other one must have no backlog, and the pick is the same.
pub fn in_turn_among<K: PartialOrd>(
    turn: &mut Turn,
    users: &[UserView],
    listed: Option<&[usize]>,
    key: impl Fn(&UserView) -> K,
) -> Option<usize> {
    let n = users.len();
    if n == 0 {
        return None;
    }
    let start = turn.next % n;
    let mut best: Option<(usize, K)> = None;
    let mut visit = |u: usize| {
        if users[u].backlog_bytes == 0 {
            return;
        }
        let k = key(&users[u]);
        if best.as_ref().is_none_or(|(_, b)| b.partial_cmp(&k) == Some(Ordering::Greater)) {
            best = Some((u, k));
        }
    };
    match listed {
        None => (start..n).chain(0..start).for_each(&mut visit),
        Some(list) => {
            debug_assert!(list.is_sorted() && list.last().is_none_or(|&u| u < n), "increasing user indices");
            let from = list.partition_point(|&u| u < start);
            list[from..].iter().chain(&list[..from]).for_each(|&u| visit(u));
        }
    }
    let (u, _) = best?;
    turn.next = (u + 1) % n;
    Some(u)
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::view;
    use super::*;

    proptest::proptest! {
        /// The pick is the head of the whole stable sort in turn order (the
        /// rule), for keys with ties and any turn; the turn moves past it.
        #[test]
        fn the_pick_is_the_head_of_the_stable_sort(
            keys in proptest::collection::vec((0u8..4, 0u8..3), 0..12),
            next in 0usize..14,
        ) {
            let users: Vec<UserView> = keys.iter().map(|&(k, b)| view(b as u64, k as f64, 0.0, 0)).collect();
            let n = users.len();
            let mut want: Vec<usize> =
                (0..n).map(|k| (next + k) % n.max(1)).filter(|&u| users[u].backlog_bytes > 0).collect();
            want.sort_by(|&a, &b| users[a].rate_bps.total_cmp(&users[b].rate_bps));
            let mut turn = Turn { next };
            let got = in_turn_by(&mut turn, &users, |u| u.rate_bps);
            proptest::prop_assert_eq!(got, want.first().copied());
            if let Some(u) = got {
                proptest::prop_assert_eq!(turn.next, (u + 1) % n);
            }
            // Visiting only a list that holds every backlogged user (and some others) picks the same.
            let listed: Vec<usize> = (0..n).filter(|&u| users[u].backlog_bytes > 0 || u % 3 == 0).collect();
            let mut listed_turn = Turn { next };
            proptest::prop_assert_eq!(in_turn_among(&mut listed_turn, &users, Some(&listed), |u| u.rate_bps), got);
            proptest::prop_assert_eq!(listed_turn.next, turn.next);
        }
    }
}
