//! Strict priority: the backlogged users of the lowest priority class first
//! (class 0 before class 1 ...), in turn within a class. A lower class is
//! served only while every higher one is empty — the rule of the DSCH study's
//! resource manager, which serves conversational users before interactive ones
//! (Ferrús et al.).

use super::interface::UserView;
use super::turn::Rank;

/// Serves class 0 first.
#[derive(Clone, Debug, Default)]
pub struct StrictPriority;

impl Rank for StrictPriority {
    type Key = u8;

    fn key(u: &UserView) -> u8 {
        u.priority
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::super::turn::InTurn;
    use super::*;

    #[test]
    fn serves_class_0_first_and_in_turn_within_a_class() {
        let users = [view(100, 1e6, 0.0, 1), view(100, 1e6, 0.0, 0), view(100, 1e6, 0.0, 2), view(100, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut InTurn::<StrictPriority>::default(), &users, 4), [Some(1), Some(3), Some(1), Some(3)]);
        let users = [view(100, 1e6, 0.0, 1), view(0, 1e6, 0.0, 0), view(100, 1e6, 0.0, 2), view(0, 1e6, 0.0, 0)];
        assert_eq!(picks(&mut InTurn::<StrictPriority>::default(), &users, 2), [Some(0), Some(0)], "then class 1");
    }
}
