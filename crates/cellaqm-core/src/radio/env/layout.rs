//! Hexagonal layouts of omnidirectional cells with wrap-around: the seven
//! cells of the HS-DSCH study (hsdsch-buffer-mgmt.md, scenario 2) and the 37
//! of the DSCH study (umts-dsch-rrm.md: 3 rings, ≈ 5 km across); and the
//! single disc of the LTE uplink study (one base station at its centre,
//! [`Layout::disc`]).
//!
//! Cells of radius `R` (centre to corner), flat-topped: the base station of
//! cell 0 at the origin, ring `r` (1 … n) of `6r` sites around it at the
//! inter-site distance `D = √3·R`, its corners at `r·D` and 30° + 60°·k, the
//! sites between corners on the hexagon's edges (ring 1: 30° + 60°·k). A
//! cluster of n rings has `N = 3n(n+1) + 1` cells; it tiles the plane
//! (wrap-around, our reading of "wrap-around for interference and moving
//! users"), repeated by the six vectors `i` steps of D at 30° and `j` at 90°
//! (i = n + 1, j = n, so `N = i² + ij + j²`), of length `√N·D` at angles
//! `30° + atan(√3·j / (2i + j)) + 60°·k` (n = 1: √7·D at 30° + atan(√3/5)); a
//! user sees the nearest image of every base station, and a position is kept
//! in the cluster around the origin (a user leaving it re-enters on the
//! opposite side). HS-DSCH users are placed uniformly in the circle enclosing
//! the seven cells (radius `√7·R`, the study's rule), then wrapped
//! ([`Layout::place`]); DSCH users uniformly over the cluster's area
//! ([`Layout::place_uniform`]).

use crate::rng::Rng;
use rand::Rng as _;
use std::f64::consts::PI;

/// A point in metres.
pub type Point = (f64, f64);

/// The number of cells of the seven-cell layout ([`Layout::hex7`]).
pub const CELLS: usize = 7;

/// The cells' base stations and the cluster's repeat vectors.
#[derive(Clone, Debug)]
pub struct Layout {
    radius: f64,
    /// The radius of the circle users are placed in ([`Layout::place`]).
    enclosing: f64,
    sites: Vec<Point>,
    /// The six translations that tile the plane with the cluster.
    shifts: [Point; 6],
    /// The squared radius of the disc around the origin that needs no
    /// wrapping: no cluster centre is nearer to its points than the origin's.
    unwrapped: f64,
    wrap: bool,
}

fn polar(r: f64, deg: f64) -> Point {
    let a = deg.to_radians();
    (r * a.cos(), r * a.sin())
}

fn dist2(a: Point, b: Point) -> f64 {
    (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)
}

/// A uniform point of the disc of `radius` around the origin: r = R·√U, angle 2πU'.
pub fn uniform_in_disc(radius: f64, rng: &mut Rng) -> Point {
    let r = radius * rng.random::<f64>().sqrt();
    let a = 2.0 * PI * rng.random::<f64>();
    (r * a.cos(), r * a.sin())
}

impl Layout {
    /// Seven hexagonal cells of `radius` m; `wrap`: wrap-around.
    pub fn hex7(radius: f64, wrap: bool) -> Layout {
        Layout::rings(1, radius, wrap)
    }

    /// `rings` rings of hexagonal cells around a central one (3n(n+1) + 1
    /// cells) of `radius` m; `wrap`: wrap-around.
    pub fn rings(rings: u32, radius: f64, wrap: bool) -> Layout {
        let d = 3f64.sqrt() * radius;
        let mut sites = vec![(0.0, 0.0)];
        for r in 1..=rings {
            for side in 0..6 {
                let (a, b) = (polar(r as f64 * d, 30.0 + 60.0 * side as f64), polar(d, 150.0 + 60.0 * side as f64));
                // From the side's corner towards the next corner, a site every D.
                for step in 0..r {
                    sites.push(if step == 0 { a } else { (a.0 + step as f64 * b.0, a.1 + step as f64 * b.1) });
                }
            }
        }
        let (i, j) = ((rings + 1) as f64, rings as f64);
        let n = i * i + i * j + j * j;
        let tilt = 30.0 + (3f64.sqrt() * j / (2.0 * i + j)).atan().to_degrees();
        let mut shifts = [(0.0, 0.0); 6];
        for (k, s) in shifts.iter_mut().enumerate() {
            *s = polar(n.sqrt() * d, tilt + 60.0 * k as f64);
        }
        // The circle through the cluster's farthest corners: √7·R for one ring.
        let enclosing = match rings {
            1 => 7f64.sqrt() * radius,
            _ => sites
                .iter()
                .flat_map(|s| (0..6).map(move |k| polar(radius, 60.0 * k as f64)).map(move |c| dist2(*s, (-c.0, -c.1))))
                .fold(0.0, f64::max)
                .sqrt(),
        };
        // Within |p| ≤ |t|/2 − 1 m of the origin, |p − t|² − |p|² = |t|² − 2 p·t ≥ 2|t|
        // (about 4 600 m² for seven cells of 500 m) for every shift t: far beyond the
        // 1e-9 m² tolerance and any rounding, so `wrap` would find no nearer centre.
        let unwrapped = (n.sqrt() * d / 2.0 - 1.0).max(0.0).powi(2);
        Layout { radius, enclosing, sites, shifts, unwrapped, wrap }
    }

    /// One base station at the centre of a disc of `radius` m (no wrap-around).
    pub fn disc(radius: f64) -> Layout {
        Layout {
            radius,
            enclosing: radius,
            sites: vec![(0.0, 0.0)],
            shifts: [(0.0, 0.0); 6],
            unwrapped: f64::INFINITY,
            wrap: false,
        }
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.sites.len()
    }

    /// Base station `c`'s position.
    pub fn site(&self, c: usize) -> Point {
        self.sites[c]
    }

    /// The radius of the circle users are placed in: the circle through the
    /// cluster's farthest corners (√7·R for seven cells); the disc's own.
    pub fn enclosing_radius(&self) -> f64 {
        self.enclosing
    }

    /// `p` moved into the cluster around the origin (with wrap-around; else `p`).
    pub fn wrap(&self, mut p: Point) -> Point {
        if !self.wrap {
            return p;
        }
        // Step to a nearer cluster centre until the origin's is the nearest
        // (most points are near enough to the origin's to need no search).
        loop {
            let here = dist2(p, (0.0, 0.0));
            if here < self.unwrapped {
                return p;
            }
            let Some(t) = self.shifts.iter().find(|t| dist2(p, **t) < here - 1e-9) else { return p };
            p = (p.0 - t.0, p.1 - t.1);
        }
    }

    /// The distance from `p` (wrapped) to base station `c`: to its nearest image with wrap-around.
    pub fn distance(&self, p: Point, c: usize) -> f64 {
        let s = self.sites[c];
        let mut best = dist2(p, s);
        if self.wrap {
            for t in &self.shifts {
                best = best.min(dist2(p, (s.0 + t.0, s.1 + t.1)));
            }
        }
        best.sqrt()
    }

    /// The nearest base station to `p` (the lowest index among equals).
    pub fn nearest(&self, p: Point) -> usize {
        let mut best = (0, f64::INFINITY);
        for c in 0..self.sites.len() {
            let d = self.distance(p, c);
            if d < best.1 {
                best = (c, d);
            }
        }
        best.0
    }

    /// A uniform point of the enclosing circle, wrapped.
    pub fn place(&self, rng: &mut Rng) -> Point {
        self.wrap(uniform_in_disc(self.enclosing, rng))
    }

    /// A point uniform over the cluster: uniform in a square around it, drawn
    /// again until it lies in the cluster (with wrap-around, the region that
    /// needs no wrapping: of the cells' area and tiling the plane as they do;
    /// else in one of the cells).
    pub fn place_uniform(&self, rng: &mut Rng) -> Point {
        let extent = self.sites.iter().map(|s| s.0.abs().max(s.1.abs())).fold(0.0, f64::max) + self.radius;
        let half = extent.max((self.sites.len() as f64).sqrt() * self.radius);
        loop {
            let p = (half * (2.0 * rng.random::<f64>() - 1.0), half * (2.0 * rng.random::<f64>() - 1.0));
            if self.inside(p) {
                return p;
            }
        }
    }

    /// Whether `p` lies in one of the cells (the hexagon of its nearest site).
    fn inside(&self, p: Point) -> bool {
        if self.wrap {
            return self.wrap(p) == p;
        }
        let s = self.sites[self.nearest(p)];
        let (x, y) = ((p.0 - s.0).abs(), (p.1 - s.1).abs());
        // A flat-topped hexagon of circumradius R: |y| ≤ √3/2·R and √3·|x| + |y| ≤ √3·R.
        y <= 3f64.sqrt() / 2.0 * self.radius && 3f64.sqrt() * x + y <= 3f64.sqrt() * self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn sites_sit_at_the_inter_site_distance() {
        let l = Layout::hex7(500.0, true);
        let d = 500.0 * 3f64.sqrt(); // 866.03 m
        for c in 1..CELLS {
            assert!(close(l.distance((0.0, 0.0), c), d), "cell {c}");
        }
        // Cell 1 at 30°: (750, 433.01).
        assert!(close(l.site(1).0, 750.0) && close(l.site(1).1, 433.0127), "{:?}", l.site(1));
        // Neighbours 1 and 2 (30° and 90°) are D apart too.
        let (a, b) = (l.site(1), l.site(2));
        assert!(close(dist2(a, b).sqrt(), d));
    }

    #[test]
    fn wrap_around_picks_the_nearest_image() {
        let l = Layout::hex7(500.0, true);
        // The first repeat vector: 2 steps at 30° and one at 90° of D: (2·750 + 0, 2·433.01 + 866.03) = (1500, 1732.05).
        assert!(close(l.shifts[0].0, 1500.0) && close(l.shifts[0].1, 1732.0508), "{:?}", l.shifts[0]);
        // A user at the far side of cell 4 (210°, site (−750, −433.01)), 400 m further out at 210°:
        // (−1096.41, −633.01). Cell 1's own site is 2·866+400 = 2132 m away, but its image
        // (750 − 1500, 433.01 − 1732.05) = (−750, −1299.04) is only |(−346.41, 666.03)| = 750.74 m away.
        let p = (-750.0 - 346.4102, -433.0127 - 200.0);
        assert!(close(l.distance(p, 1), (346.4102f64.powi(2) + 666.0254f64.powi(2)).sqrt()), "{}", l.distance(p, 1));
        let plain = Layout::hex7(500.0, false);
        assert!(plain.distance(p, 1) > 2000.0);
        assert_eq!(l.nearest(p), 4);
        // Stepping out across the cluster edge brings the user back on the opposite side, and
        // distances are the same from either copy.
        let out = (l.shifts[0].0 * 0.6, l.shifts[0].1 * 0.6);
        let back = l.wrap(out);
        assert!(close(back.0, -0.4 * 1500.0) && close(back.1, -0.4 * 1732.0508), "{back:?}");
        for c in 0..CELLS {
            assert!(close(l.distance(back, c), l.distance(out, c)), "cell {c}");
        }
    }

    #[test]
    fn points_of_the_unwrapped_disc_are_nearest_to_the_origins_cluster() {
        // On 1 to 4 rings, points in the disc `wrap` leaves as they are (its boundary
        // included) are nearer to the origin than to any other cluster centre, by far more
        // than the search's tolerance: the shortcut returns what the search would.
        let mut rng = stream(5, "unwrapped");
        for rings in 1..=4 {
            let l = Layout::rings(rings, 500.0, true);
            let r = l.unwrapped.sqrt();
            assert!(r > 0.4 * l.enclosing_radius(), "{rings} rings: {r}");
            for k in 0..2_000 {
                let p = if k < 360 { polar(r, k as f64) } else { uniform_in_disc(r, &mut rng) };
                let here = dist2(p, (0.0, 0.0));
                assert!(l.shifts.iter().all(|t| dist2(p, *t) > here + 1_000.0), "{rings} rings: {p:?}");
                assert_eq!(l.wrap(p), p);
            }
        }
    }

    #[test]
    fn every_point_is_nearest_to_one_of_seven_equally_sized_cells() {
        // With wrap-around the cells tile the plane: uniform points over the cluster fall
        // one seventh in each cell.
        let l = Layout::hex7(500.0, true);
        let mut rng = stream(1, "place");
        let mut count = [0u32; CELLS];
        for _ in 0..70_000 {
            let p = l.place(&mut rng);
            assert!(dist2(p, (0.0, 0.0)).sqrt() <= l.enclosing_radius() + 1e-6);
            count[l.nearest(p)] += 1;
        }
        // Placement is uniform in the circle, so the centre cell (wholly inside it) gets its
        // area's share 2.598 R² / (7π R²) = 11.8 %; the outer cells get the rest, folded in.
        let centre = count[0] as f64 / 70_000.0;
        assert!((centre - 3.0 * 3f64.sqrt() / 2.0 / (7.0 * PI)).abs() < 0.005, "{centre}");
        assert!(count.iter().all(|&n| n > 8_000), "{count:?}");
    }

    #[test]
    fn three_rings_make_37_cells_that_tile_the_plane() {
        let l = Layout::rings(3, 500.0, true);
        let d = 500.0 * 3f64.sqrt();
        assert_eq!(l.cells(), 37);
        // Ring 2 starts at its corner 2D at 30°, then a site D further at 150°: (D·cos30, 2D·sin30 + D·sin30·... )
        // = (2D·0.866 − 0.866 D, 2D·0.5 + 0.5 D) = (0.866 D, 1.5 D) = (750, 1299.04): at √3·D from the origin.
        assert!(close(l.site(8).0, 750.0) && close(l.site(8).1, 1299.0381), "{:?}", l.site(8));
        // Every site's six nearest other sites (with wrap-around) are D away: no gap, no overlap.
        for c in 0..37 {
            let mut near: Vec<f64> = (0..37).filter(|&o| o != c).map(|o| l.distance(l.site(c), o)).collect();
            near.sort_by(f64::total_cmp);
            assert!(near[..6].iter().all(|&x| close(x, d)) && near[6] > d * 1.5, "cell {c}: {:?}", &near[..7]);
        }
        // Uniform placement gives each cell 1/37 of the users (±4 sd).
        let mut rng = stream(4, "place");
        let mut count = [0u32; 37];
        let n = 74_000;
        for _ in 0..n {
            count[l.nearest(l.place_uniform(&mut rng))] += 1;
        }
        let sd = (n as f64 / 37.0 * (36.0 / 37.0)).sqrt();
        assert!(count.iter().all(|&k| (k as f64 - 2000.0).abs() < 4.0 * sd), "{count:?}");
        // The enclosing circle passes through the farthest corners: ring 3's corner site
        // at 3D = 3√3·R and 30°, (4.5·R, 2.598·R), has its 0° corner at (5.5·R, 2.598·R): 6.083·R.
        assert!(
            close(l.enclosing_radius(), 500.0 * (5.5f64.powi(2) + 2.598076f64.powi(2)).sqrt()),
            "{}",
            l.enclosing_radius()
        );
        assert!(close(Layout::rings(1, 500.0, true).enclosing_radius(), 500.0 * 7f64.sqrt()));
        // Without wrap-around, placements lie in the cells too.
        let plain = Layout::rings(3, 500.0, false);
        let p = plain.place_uniform(&mut rng);
        assert!(plain.distance(p, plain.nearest(p)) <= 500.0 + 1e-9);
    }
}
