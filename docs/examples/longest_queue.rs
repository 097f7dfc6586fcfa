//! Longest queue first: the user whose Node-B buffer holds the most bytes.
use super::interface::UserView;
use super::turn::Rank;
use std::cmp::Reverse;

#[derive(Clone, Debug, Default)]
pub struct LongestQueue;

impl Rank for LongestQueue {
    type Key = Reverse<u64>;

    fn key(u: &UserView) -> Reverse<u64> {
        Reverse(u.backlog_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::super::turn::InTurn;
    use super::*;

    #[test]
    fn serves_the_longest_queue_and_equal_ones_in_turn() {
        let users = [view(300, 1e6, 0.0, 0), view(900, 1e6, 0.0, 0), view(900, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut InTurn::<LongestQueue>::default(), &users, 3), [Some(1), Some(2), Some(1)]);
    }
}
