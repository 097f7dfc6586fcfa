//! Round robin: each backlogged user in turn (the HS-DSCH study: "RR =
//! the next active user in turn"; the WCDMA study's HSDPA scheduler).

use super::interface::{Scheduler, UserView};
use super::turn::{in_turn_among, in_turn_by, Turn};
use crate::time::Time;

/// Serves backlogged users in turn, whatever their channels.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    turn: Turn,
}

impl RoundRobin {
    /// Its key: the smallest is served first.
    fn key(_u: &UserView) -> u8 {
        0
    }
}

impl Scheduler for RoundRobin {
    fn pick(&mut self, _now: Time, users: &[UserView]) -> Option<usize> {
        in_turn_by(&mut self.turn, users, Self::key)
    }

    fn pick_listed(&mut self, _now: Time, users: &[UserView], listed: &[usize]) -> Option<usize> {
        in_turn_among(&mut self.turn, users, Some(listed), Self::key)
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::*;

    #[test]
    fn takes_turns_among_backlogged_users_only() {
        let users = [view(100, 1e6, 0.0, 0), view(0, 9e6, 0.0, 0), view(100, 1e5, 0.0, 3)];
        assert_eq!(picks(&mut RoundRobin::default(), &users, 5), [Some(0), Some(2), Some(0), Some(2), Some(0)]);
        assert_eq!(picks(&mut RoundRobin::default(), &[view(0, 1e6, 0.0, 0); 3], 1), [None]);
    }
}
