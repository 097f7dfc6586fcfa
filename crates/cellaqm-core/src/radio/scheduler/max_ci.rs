//! Max C/I (max-SIR): the backlogged user whose channel supports the highest
//! rate now (the HS-DSCH study: "max-SIR = the active user with the best
//! SIR"); equal channels in turn. It maximises cell throughput and starves
//! users at the cell edge while better ones have data.

use super::interface::UserView;
use super::turn::Rank;

/// Serves the best channel first.
#[derive(Clone, Debug, Default)]
pub struct MaxCi;

impl Rank for MaxCi {
    type Key = f64;

    fn key(u: &UserView) -> f64 {
        -u.rate_bps
    }
}

#[cfg(test)]
mod tests {
    use super::super::interface::tests::{picks, view};
    use super::super::turn::InTurn;
    use super::*;

    #[test]
    fn serves_only_the_better_channel_while_it_has_data_and_equal_ones_in_turn() {
        let mut s = InTurn::<MaxCi>::default();
        let users = [view(100, 1e6, 0.0, 0), view(100, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut s, &users, 4), [Some(1); 4]);
        let users = [view(100, 1e6, 0.0, 0), view(0, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut s, &users, 2), [Some(0); 2], "the weaker one once the better one is empty");
        let users = [view(100, 2e6, 0.0, 0), view(100, 1e6, 0.0, 0), view(100, 2e6, 0.0, 0)];
        assert_eq!(picks(&mut InTurn::<MaxCi>::default(), &users, 4), [Some(0), Some(2), Some(0), Some(2)]);
    }
}
