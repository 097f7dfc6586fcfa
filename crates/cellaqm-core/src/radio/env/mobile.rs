//! One user's place in the radio environment: where it is and how it moves
//! (a straight [`Track`]), its shadowing towards every base station
//! ([`Shadowing`]), and its path gains ([`Mobile::gains`]). The channel moves
//! on in steps: the shadowing (and so the gains) is recomputed after each
//! `channel_step` of travel (our choice: 1 m, a fraction of the 40–50 m
//! decorrelation distance), the track itself at every call.

use super::layout::Layout;
use super::propagation::PathLoss;
use super::shadowing::Shadowing;
use super::track::Track;
use crate::rng::Rng;
use crate::time::Time;

/// One user's track, shadowing and travel since the channel last moved on.
#[derive(Clone, Debug)]
pub struct Mobile {
    pub track: Track,
    pub shadow: Shadowing,
    /// Travel since the last channel step, m.
    moved: f64,
}

impl Mobile {
    pub fn new(track: Track, shadow: Shadowing) -> Mobile {
        Mobile { track, shadow, moved: 0.0 }
    }

    /// Moves on to `now`; once `step` m have been travelled the shadowing
    /// moves on too (drawing from `rng`) and this returns true: the gains
    /// need recomputing.
    pub fn advance(&mut self, layout: &Layout, now: Time, step: f64, rng: &mut Rng) -> bool {
        self.moved += self.track.advance(layout, now);
        if self.moved < step {
            return false;
        }
        let d = std::mem::take(&mut self.moved);
        self.shadow.advance(d, rng);
        true
    }

    /// A fresh start on `track` (a new session or a new caller): the shadowing drawn afresh from `rng`.
    pub fn restart(&mut self, track: Track, rng: &mut Rng) {
        self.track = track;
        self.shadow.redraw(rng);
        self.moved = 0.0;
    }

    /// The path gain (linear) to each base station of `layout`, shadowing included, into `out`.
    pub fn gains(&self, layout: &Layout, path: &PathLoss, out: &mut [f64]) {
        let p = self.track.position();
        for (c, g) in out.iter_mut().enumerate() {
            *g = path.gain(layout.distance(p, c), self.shadow.db(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Dur;

    /// At 2 m/s with a 1 m step, calls every 125 ms (0.25 m each, exact in
    /// binary) move the channel on at every fourth call (5 of 20); the gains
    /// are the path loss with each site's shadowing.
    #[test]
    fn the_channel_moves_on_after_each_step_of_travel() {
        let layout = Layout::hex7(500.0, true);
        let mut rng = stream(1, "mobile");
        let shadow = Shadowing::new(7, 8.0, 0.5, 40.0, &mut rng);
        let mut m = Mobile::new(Track::moving((100.0, 0.0), (2.0, 0.0), Time::ZERO), shadow);
        let steps: Vec<bool> =
            (1..=20).map(|k| m.advance(&layout, Time::ZERO + Dur::from_millis(125 * k), 1.0, &mut rng)).collect();
        let at: Vec<usize> = (0..20).filter(|&k| steps[k]).map(|k| k + 1).collect();
        assert_eq!(at, [4, 8, 12, 16, 20], "{steps:?}");
        let path = PathLoss::exponent(128.1, 3.5, 10.0);
        let mut g = [0.0; 7];
        m.gains(&layout, &path, &mut g);
        for (c, &g) in g.iter().enumerate() {
            let want = path.gain(layout.distance(m.track.position(), c), m.shadow.db(c));
            assert_eq!(g, want);
        }
    }
}
