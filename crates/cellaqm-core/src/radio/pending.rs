//! The one engine event a radio model has asked for, of one kind.
//!
//! A model asks the engine for an event (a TTI, a timer) whenever its state
//! may need one; the engine cannot cancel events, so the model keeps the time
//! of the live one: an ask for an earlier time supersedes it (the later event
//! then arrives and is ignored), an ask for a later or equal time is dropped.

use crate::time::Time;

/// The time of the live event of one kind, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending(Option<Time>);

impl Pending {
    /// Whether `at` is to be asked for: none is pending, or `at` is earlier
    /// than the pending one. It then becomes the live one.
    pub fn want(&mut self, at: Time) -> bool {
        if self.0.is_none_or(|t| at < t) {
            self.0 = Some(at);
            return true;
        }
        false
    }

    /// Whether the event arriving at `now` is the live one (it is then done);
    /// a superseded one is not.
    pub fn due(&mut self, now: Time) -> bool {
        if self.0 != Some(now) {
            return false;
        }
        self.0 = None;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[test]
    fn an_earlier_ask_supersedes_a_later_one_is_dropped() {
        let t = |ms| Time::ZERO + Dur::from_millis(ms);
        let mut p = Pending::default();
        assert!(p.want(t(10)));
        assert!(!p.want(t(10)) && !p.want(t(12)), "not earlier: nothing new to ask for");
        assert!(p.want(t(4)), "earlier: asked for, the 10 ms one superseded");
        assert!(!p.due(t(10)), "the superseded event is ignored");
        assert!(p.due(t(4)));
        assert!(!p.due(t(4)), "done once");
        assert!(p.want(t(10)), "nothing pending: any time is asked for");
    }
}
