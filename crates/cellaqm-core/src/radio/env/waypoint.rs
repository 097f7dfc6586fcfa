//! A user moving inside a circular cell: the random waypoint model (Johnson &
//! Maltz 1996, without pauses). The user starts at a uniform point of the
//! disc, walks in a straight line at a constant speed to another uniform point
//! of the disc, and on from there; its distance to the base station at the
//! centre sets its path loss.
//!
//! The model is advanced in time order ([`Waypoint::distance_at`] with
//! non-decreasing times); each new waypoint is one draw from the user's stream.

use super::layout::uniform_in_disc;
use crate::rng::Rng;
use crate::time::Time;

/// One user's track.
#[derive(Clone, Debug)]
pub struct Waypoint {
    radius: f64,
    speed: f64,
    /// Where the current leg started, when, and where it ends.
    from: (f64, f64),
    since: f64,
    to: (f64, f64),
    rng: Rng,
}

impl Waypoint {
    /// A user in a disc of `radius` m moving at `speed` m/s (0: standing at its first point).
    pub fn new(radius: f64, speed: f64, mut rng: Rng) -> Waypoint {
        let from = uniform_in_disc(radius, &mut rng);
        let to = uniform_in_disc(radius, &mut rng);
        Waypoint { radius, speed, from, since: 0.0, to, rng }
    }

    /// The position at `t` (times in order).
    pub fn position_at(&mut self, t: Time) -> (f64, f64) {
        let s = t.as_secs_f64();
        if self.speed <= 0.0 {
            return self.from;
        }
        loop {
            let leg = ((self.to.0 - self.from.0).powi(2) + (self.to.1 - self.from.1).powi(2)).sqrt();
            let done = (s - self.since) * self.speed;
            if done < leg {
                let f = if leg > 0.0 { done / leg } else { 0.0 };
                return (self.from.0 + f * (self.to.0 - self.from.0), self.from.1 + f * (self.to.1 - self.from.1));
            }
            self.since += leg / self.speed;
            self.from = self.to;
            self.to = uniform_in_disc(self.radius, &mut self.rng);
        }
    }

    /// The distance to the centre at `t`, m.
    pub fn distance_at(&mut self, t: Time) -> f64 {
        let (x, y) = self.position_at(t);
        (x * x + y * y).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Dur;

    #[test]
    fn the_user_stays_in_the_cell_and_moves_at_its_speed() {
        let mut w = Waypoint::new(500.0, 30.0, stream(1, "walk"));
        let mut last = w.position_at(Time::ZERO);
        let (mut travelled, mut straight) = (0.0, 0.0);
        for k in 1..=100_000 {
            let p = w.position_at(Time::ZERO + Dur::from_millis(k));
            let step = ((p.0 - last.0).powi(2) + (p.1 - last.1).powi(2)).sqrt();
            // 30 m/s: at most 3 cm per millisecond (less when a leg turns inside it).
            assert!(step <= 0.030 + 1e-9, "step {step} m at {k} ms");
            assert!((p.0 * p.0 + p.1 * p.1).sqrt() <= 500.0 + 1e-9);
            travelled += step;
            straight += (step > 0.0299) as u32 as f64;
            last = p;
        }
        // 100 s at 30 m/s: 3000 m, minus the corners cut at turns.
        assert!((travelled - 3000.0).abs() < 5.0, "travelled {travelled} m");
        assert!(straight > 99_000.0);
    }

    #[test]
    fn a_standing_user_keeps_its_place() {
        let mut w = Waypoint::new(500.0, 0.0, stream(2, "walk"));
        let p = w.position_at(Time::ZERO);
        assert_eq!(w.position_at(Time::ZERO + Dur::from_secs(1000)), p);
    }

    /// Start points are uniform in the disc: P(r ≤ R/2) = 1/4.
    #[test]
    fn start_points_are_uniform_in_the_disc() {
        let n = 40_000;
        let inner = (0..n).filter(|&s| Waypoint::new(500.0, 1.0, stream(s, "start")).distance_at(Time::ZERO) <= 250.0);
        let share = inner.count() as f64 / n as f64;
        assert!((share - 0.25).abs() < 0.01, "share within R/2: {share}");
    }
}
