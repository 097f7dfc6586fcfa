//! Round robin: each backlogged user in turn (the HS-DSCH study: "RR =
//! the next active user in turn"; the WCDMA study's HSDPA scheduler).

use super::interface::UserView;
use super::turn::Rank;

/// Serves backlogged users in turn, whatever their channels.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin;

impl Rank for RoundRobin {
    type Key = u8;

    fn key(_u: &UserView) -> u8 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::super::turn::InTurn;
    use super::*;

    #[test]
    fn takes_turns_among_backlogged_users_only() {
        let users = [view(100, 1e6, 0.0, 0), view(0, 9e6, 0.0, 0), view(100, 1e5, 0.0, 3)];
        assert_eq!(
            picks(&mut InTurn::<RoundRobin>::default(), &users, 5),
            [Some(0), Some(2), Some(0), Some(2), Some(0)]
        );
        assert_eq!(picks(&mut InTurn::<RoundRobin>::default(), &[view(0, 1e6, 0.0, 0); 3], 1), [None]);
    }
}
