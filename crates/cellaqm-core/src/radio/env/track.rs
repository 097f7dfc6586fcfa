//! A user's straight-line track over the wrapped seven-cell layout
//! (hsdsch-buffer-mgmt.md: "each new session gives its user a new position,
//! direction (uniform) and speed"; wrap-around applies to moving users).
//!
//! A session places the user uniformly in the circle enclosing the cells
//! ([`Layout::place`]), with a uniform direction and a speed uniform in
//! `[min, max]` (our choice for the study's unstated distribution: 0–30
//! km/h); the user then moves in a straight line, and leaving the cluster it
//! re-enters on the opposite side ([`Layout::wrap`]).

use super::layout::{Layout, Point};
use crate::rng::Rng;
use crate::time::Time;
use rand::Rng as _;
use std::f64::consts::PI;

#[derive(Clone, Debug)]
pub struct Track {
    pos: Point,
    /// Velocity, m/s.
    vel: Point,
    /// Its length (the speed), m/s.
    speed: f64,
    at: Time,
}

impl Track {
    /// A new session's start at `now`: position, direction and a speed in `speed` (m/s).
    pub fn start(layout: &Layout, now: Time, speed: (f64, f64), rng: &mut Rng) -> Track {
        let pos = layout.place(rng);
        let a = 2.0 * PI * rng.random::<f64>();
        let v = speed.0 + (speed.1 - speed.0) * rng.random::<f64>();
        Track::moving(pos, (v * a.cos(), v * a.sin()), now)
    }

    /// A user at `pos` from `now` heading in a uniform direction at `speed` m/s.
    pub fn heading(pos: Point, now: Time, speed: f64, rng: &mut Rng) -> Track {
        let a = 2.0 * PI * rng.random::<f64>();
        Track::moving(pos, (speed * a.cos(), speed * a.sin()), now)
    }

    /// A user standing at `pos` (tests and the single-user scenario).
    pub fn fixed(pos: Point) -> Track {
        Track::moving(pos, (0.0, 0.0), Time::ZERO)
    }

    /// A user at `pos` from `at` moving at `vel` m/s.
    pub fn moving(pos: Point, vel: Point, at: Time) -> Track {
        Track { pos, vel, speed: (vel.0 * vel.0 + vel.1 * vel.1).sqrt(), at }
    }

    /// Moves on to `now` (times in order); returns the distance travelled, m.
    pub fn advance(&mut self, layout: &Layout, now: Time) -> f64 {
        let dt = now.since(self.at).as_secs_f64();
        self.at = now;
        if dt <= 0.0 || self.vel == (0.0, 0.0) {
            return 0.0;
        }
        self.pos = layout.wrap((self.pos.0 + self.vel.0 * dt, self.pos.1 + self.vel.1 * dt));
        dt * self.speed
    }

    pub fn position(&self) -> Point {
        self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Dur;

    #[test]
    fn a_user_moves_straight_and_re_enters_on_the_opposite_side() {
        let l = Layout::hex7(500.0, true);
        // Eastwards at 10 m/s from the origin: after 250 s (2500 m) the user has left the
        // cluster and re-entered it, and every distance is what it would be on the unwrapped line.
        let mut t = Track::moving((0.0, 0.0), (10.0, 0.0), Time::ZERO);
        let mut total = 0.0;
        for s in 1..=250 {
            total += t.advance(&l, Time::ZERO + Dur::from_secs(s));
            let p = t.position();
            assert!((p.0 * p.0 + p.1 * p.1).sqrt() <= 7f64.sqrt() * 866.03 / 2.0 * 1.16, "{p:?} at {s} s");
        }
        assert!((total - 2500.0).abs() < 1e-6);
        let unwrapped = Layout::hex7(500.0, true);
        for c in 0..7 {
            let a = l.distance(t.position(), c);
            let b = unwrapped.distance(unwrapped.wrap((2500.0, 0.0)), c);
            assert!((a - b).abs() < 1e-6, "cell {c}: {a} vs {b}");
        }
        // (2500, 0) less the cluster shift at −10.9° ((2250, −433.01): 3 steps of D at −30°
        // and one at 30°... i.e. 2·(750, −433.01) + (750, 433.01) = (2250, −433.01)): (250, 433.01).
        let p = t.position();
        assert!((p.0 - 250.0).abs() < 1e-6 && (p.1 - 433.0127).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn speeds_and_directions_are_uniform() {
        let l = Layout::hex7(500.0, true);
        let mut rng = stream(3, "track");
        let (mut sum, mut east, n) = (0.0, 0, 20_000);
        for _ in 0..n {
            let t = Track::start(&l, Time::ZERO, (0.0, 30.0 / 3.6), &mut rng);
            let v = (t.vel.0 * t.vel.0 + t.vel.1 * t.vel.1).sqrt();
            assert_eq!(t.speed, v);
            assert!(v <= 30.0 / 3.6 + 1e-9);
            sum += v;
            east += (t.vel.0 > 0.0) as u32;
        }
        assert!((sum / n as f64 - 15.0 / 3.6).abs() < 0.05, "mean speed {}", sum / n as f64);
        assert!((east as f64 / n as f64 - 0.5).abs() < 0.01);
    }
}
