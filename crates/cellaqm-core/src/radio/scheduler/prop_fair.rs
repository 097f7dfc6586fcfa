//! Proportional fair: the backlogged user with the highest ratio of the rate
//! its channel supports now to its average served rate, r_u(t) / R̄_u(t)
//! (Jalali, Padovani, Pankaj, "Data throughput of CDMA-HDR", VTC 2000; Kelly's
//! proportional fairness). R̄ is an exponentially weighted average of the
//! user's served rate over every TTI, served or not ([`super::RateAverage`]);
//! a user never served (R̄ = 0) comes first. With fixed channels each user
//! gets an equal share of the TTIs, whatever its rate; with fading channels,
//! each is served near its own peaks.

use super::interface::UserView;
use super::turn::Rank;

/// Serves the highest rate relative to the user's own average.
#[derive(Clone, Debug, Default)]
pub struct ProportionalFair;

impl Rank for ProportionalFair {
    type Key = f64;

    fn key(u: &UserView) -> f64 {
        match u.avg_bps > 0.0 {
            true => -(u.rate_bps / u.avg_bps),
            false => f64::NEG_INFINITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::average::RateAverage;
    use super::super::interface::tests::view;
    use super::super::interface::Scheduler;
    use super::super::turn::InTurn;
    use super::*;
    use crate::time::Time;

    #[test]
    fn ranks_by_rate_over_average_and_the_unserved_first() {
        let mut s = InTurn::<ProportionalFair>::default();
        // 2 Mb/s over 1 Mb/s beats 3 Mb/s over 2 Mb/s.
        let users = [view(1, 3e6, 2e6, 0), view(1, 2e6, 1e6, 0)];
        assert_eq!(s.pick(Time::ZERO, &users), Some(1));
        let users = [view(1, 3e6, 2e6, 0), view(1, 1e3, 0.0, 0)];
        assert_eq!(s.pick(Time::ZERO, &users), Some(1), "never served");
    }

    #[test]
    fn equal_time_shares_at_unequal_fixed_rates() {
        let rates = [0.5e6, 1.5e6, 6e6];
        let mut avg: Vec<RateAverage> = (0..3).map(|_| RateAverage::new(100)).collect();
        let (mut s, mut served) = (InTurn::<ProportionalFair>::default(), [0u32; 3]);
        for tti in 0..30_000u64 {
            let users: Vec<UserView> = (0..3).map(|u| view(1, rates[u], avg[u].value(tti), 0)).collect();
            let u = s.pick(Time::ZERO, &users).unwrap();
            served[u] += 1;
            avg[u].serve(tti, rates[u]);
        }
        for n in served {
            assert!((n as f64 / 10_000.0 - 1.0).abs() < 0.01, "{served:?}");
        }
    }
}
