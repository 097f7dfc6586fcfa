//! A radio model's TTI clock: boundaries on the grid k·period, and the one
//! rule every clock keeps: never a second TTI at the same instant.
//!
//! A model asks for its next boundary whenever its state may need one
//! ([`Clock::next`]); when an event at a boundary runs, the model says so
//! ([`Clock::run`]), and an ask at that same instant gets the boundary after.

use crate::time::{Dur, Time};

/// A TTI grid and the last boundary run on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    period: Dur,
    last: Option<Time>,
}

impl Clock {
    /// A clock of TTIs of `period` (positive), none run yet.
    pub fn new(period: Dur) -> Clock {
        Clock { period, last: None }
    }

    pub fn period(&self) -> Dur {
        self.period
    }

    /// The first boundary at or after `now` that has not run.
    pub fn next(&self, now: Time) -> Time {
        let p = self.period.0;
        let at = Time(now.0.div_ceil(p) * p);
        if self.last == Some(at) {
            at + self.period
        } else {
            at
        }
    }

    /// The boundary at `now` runs.
    pub fn run(&mut self, now: Time) {
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boundary_that_ran_is_not_asked_for_again() {
        let ms = |v| Time::ZERO + Dur::from_millis(v);
        let mut c = Clock::new(Dur::from_millis(2));
        assert_eq!((c.next(ms(0)), c.next(ms(3)), c.next(ms(4))), (ms(0), ms(4), ms(4)));
        c.run(ms(4));
        assert_eq!(c.next(ms(4)), ms(6), "the 4 ms TTI ran: the next one");
        assert_eq!(c.next(ms(5)), ms(6));
    }
}
