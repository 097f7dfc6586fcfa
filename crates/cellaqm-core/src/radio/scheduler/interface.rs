//! What a scheduler sees of each user ([`UserView`]) and what it does with
//! them ([`Scheduler`]): the interface every scheduler of a shared channel implements.

use crate::time::Time;

/// What a scheduler knows of one user at the start of a TTI.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UserView {
    /// Bytes waiting at the transmitter (the Node-B's MAC-hs buffer); 0: nothing to send.
    pub backlog_bytes: u64,
    /// The rate the user's channel supports in this TTI (b/s).
    pub rate_bps: f64,
    /// The user's average served rate (b/s), see [`RateAverage`]; 0 for a
    /// scheduler that does not read it ([`SchedulerKind::uses_average`]).
    pub avg_bps: f64,
    /// Priority class: 0 is served first.
    pub priority: u8,
}

/// Picks the user a TTI serves next.
pub trait Scheduler {
    /// The user with a backlog to serve next (`None`: no user has one); the
    /// scheduler's turn moves past it.
    fn pick(&mut self, now: Time, users: &[UserView]) -> Option<usize>;

    /// [`Scheduler::pick`] where only the users in `listed` (increasing) may
    /// have a backlog: the same pick, and a scheduler may visit only them (a
    /// cell that keeps its schedulable users spares a walk over all). The
    /// default visits every user.
    fn pick_listed(&mut self, now: Time, users: &[UserView], _listed: &[usize]) -> Option<usize> {
        self.pick(now, users)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A user with `backlog` bytes, a channel of `rate` b/s, an average of `avg` b/s, class `priority`.
    pub fn view(backlog: u64, rate: f64, avg: f64, priority: u8) -> UserView {
        UserView { backlog_bytes: backlog, rate_bps: rate, avg_bps: avg, priority }
    }

    /// `rounds` single picks from `s` over fixed `users`.
    pub fn picks(s: &mut impl Scheduler, users: &[UserView], rounds: usize) -> Vec<Option<usize>> {
        (0..rounds).map(|_| s.pick(Time::ZERO, users)).collect()
    }
}
