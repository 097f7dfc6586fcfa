//! Max C/I (max-SIR): the backlogged user whose channel supports the highest
//! rate now (the HS-DSCH study: "max-SIR = the active user with the best
//! SIR"); equal channels in turn. It maximises cell throughput and starves
//! users at the cell edge while better ones have data.

use super::interface::{Scheduler, UserView};
use super::turn::{in_turn_among, in_turn_by, Turn};
use crate::time::Time;

/// Serves the best channel first.
#[derive(Clone, Debug, Default)]
pub struct MaxCi {
    turn: Turn,
}

impl MaxCi {
    /// Its key: the smallest is served first.
    fn key(u: &UserView) -> f64 {
        -u.rate_bps
    }
}

impl Scheduler for MaxCi {
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
    fn serves_only_the_better_channel_while_it_has_data_and_equal_ones_in_turn() {
        let mut s = MaxCi::default();
        let users = [view(100, 1e6, 0.0, 0), view(100, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut s, &users, 4), [Some(1); 4]);
        let users = [view(100, 1e6, 0.0, 0), view(0, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut s, &users, 2), [Some(0); 2], "the weaker one once the better one is empty");
        let users = [view(100, 2e6, 0.0, 0), view(100, 1e6, 0.0, 0), view(100, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut MaxCi::default(), &users, 4), [Some(0), Some(2), Some(0), Some(2)]);
    }
}
