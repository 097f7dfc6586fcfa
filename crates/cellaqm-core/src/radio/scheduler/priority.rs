//! Strict priority: the backlogged users of the lowest priority class first
//! (class 0 before class 1 ...), in turn within a class. A lower class is
//! served only while every higher one is empty — the rule of the DSCH study's
//! resource manager, which serves conversational users before interactive ones
//! (Ferrús et al.).

use super::interface::{Scheduler, UserView};
use super::turn::{in_turn_among, in_turn_by, Turn};
use crate::time::Time;

/// Serves class 0 first.
#[derive(Clone, Debug, Default)]
pub struct StrictPriority {
    turn: Turn,
}

impl StrictPriority {
    /// Its key: the smallest is served first.
    fn key(u: &UserView) -> u8 {
        u.priority
    }
}

impl Scheduler for StrictPriority {
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
    fn serves_class_0_first_and_in_turn_within_a_class() {
        let users = [view(100, 1e6, 0.0, 1), view(100, 1e6, 0.0, 0), view(100, 1e6, 0.0, 2), view(100, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut StrictPriority::default(), &users, 4), [Some(1), Some(3), Some(1), Some(3)]);
        let users = [view(100, 1e6, 0.0, 1), view(0, 1e6, 0.0, 0), view(100, 1e6, 0.0, 2), view(0, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut StrictPriority::default(), &users, 2), [Some(0), Some(0)], "then class 1");
    }
}
