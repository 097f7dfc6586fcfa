//! Longest queue first: the user whose Node-B buffer holds the most bytes.
use super::interface::{Scheduler, UserView};
use super::turn::{in_turn_by, Turn};
use crate::time::Time;

#[derive(Clone, Debug, Default)]
pub struct LongestQueue {
    turn: Turn,
}

impl Scheduler for LongestQueue {
    fn pick(&mut self, _now: Time, users: &[UserView]) -> Option<usize> {
        in_turn_by(&mut self.turn, users, |u| std::cmp::Reverse(u.backlog_bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::*;

    #[test]
    fn serves_the_longest_queue_and_equal_ones_in_turn() {
        let users = [view(300, 1e6, 0.0, 0), view(900, 1e6, 0.0, 0), view(900, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut LongestQueue::default(), &users, 3), [Some(1), Some(2), Some(1)]);
    }
}
