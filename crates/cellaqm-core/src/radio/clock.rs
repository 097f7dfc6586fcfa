//! A radio model's TTI clock: boundaries on the grid k·period, and the one
//! rule every clock keeps: never a second TTI at the same instant.
//!
//! A model asks for its next boundary whenever its state may need one
//! ([`Clock::next`]); when an event at a boundary runs, the model says so
//! ([`Clock::run`]), and an ask at that same instant gets the boundary after.
//! A model with one TTI event asked for at a time keeps it with [`TtiEvent`].

use crate::radio::event::RadioEvent;
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

/// A model's TTI event on its clock: asked for once, until it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtiEvent {
    clock: Clock,
    asked: bool,
}

impl TtiEvent {
    /// TTIs of `period` (positive), none asked for.
    pub fn new(period: Dur) -> TtiEvent {
        TtiEvent { clock: Clock::new(period), asked: false }
    }

    /// Asks for the first boundary at or after `now` that has not run, unless a TTI is asked for already.
    pub fn want(&mut self, now: Time, schedule: &mut Vec<(Time, RadioEvent)>) {
        if !self.asked {
            self.asked = true;
            schedule.push((self.clock.next(now), RadioEvent::Tti));
        }
    }

    /// The TTI asked for runs at `now`.
    pub fn run(&mut self, now: Time) {
        self.asked = false;
        self.clock.run(now);
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

    #[test]
    fn a_tti_event_is_asked_for_once_until_it_runs() {
        let ms = |v| Time::ZERO + Dur::from_millis(v);
        let (mut t, mut schedule) = (TtiEvent::new(Dur::from_millis(2)), Vec::new());
        t.want(ms(1), &mut schedule);
        t.want(ms(1), &mut schedule);
        assert_eq!(schedule, [(ms(2), RadioEvent::Tti)], "asked for once");
        t.run(ms(2));
        t.want(ms(2), &mut schedule);
        assert_eq!(schedule[1..], [(ms(4), RadioEvent::Tti)], "after it ran: the boundary after");
    }
}
