//! The turn every scheduler here breaks ties by: candidates in round-robin
//! order from the user after the last one picked, stably sorted by the
//! scheduler's key ([`in_turn_by`]).

use super::interface::UserView;

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
mod tests {
    use super::super::interface::tests::view;
    use super::*;

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
}
