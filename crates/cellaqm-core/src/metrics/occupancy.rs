//! The time-weighted distribution of a buffer's occupancy, in bytes and in
//! packets: how long the buffer held each backlog, for its time percentiles
//! in the summary and its CDF (the LTE uplink study, Tan, MSc thesis, 2009,
//! reports the CDF of buffer occupancy).
//!
//! The buffer's owner calls [`Occupancy::hold`] with the backlog it held since
//! its previous change, where it already integrates the backlog over time
//! (`Link::account`, `Bearer::account`): O(1) per change, in memory that
//! grows with the largest backlog (log-linear buckets, [`Histogram`]), not
//! with the run's length. A time percentile `p` is the smallest backlog the
//! buffer was at or below for at least a fraction `p` of the run, to 0.1%.

use super::Histogram;
use serde::Serialize;

/// How long a buffer held each backlog (time weights in nanoseconds).
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    bytes: Histogram,
    packets: Histogram,
}

impl Occupancy {
    /// A user's buffer: its backlogs within 1% ([`Histogram::per_user`]).
    pub fn per_user() -> Occupancy {
        Occupancy { bytes: Histogram::per_user(), packets: Histogram::per_user() }
    }

    /// The buffer held `bytes` in `packets` for `dt_ns` nanoseconds.
    #[inline]
    pub fn hold(&mut self, bytes: u64, packets: u64, dt_ns: u64) {
        if dt_ns > 0 {
            self.bytes.add(bytes, dt_ns);
            self.packets.add(packets, dt_ns);
        }
    }

    /// Backlog in bytes, weighted by nanoseconds.
    pub fn bytes(&self) -> &Histogram {
        &self.bytes
    }

    /// Backlog in packets, weighted by nanoseconds.
    pub fn packets(&self) -> &Histogram {
        &self.packets
    }
}

/// Time percentiles of a buffer's backlog (`queue_bytes`, `queue_packets` of
/// a link in summary.json): `p95` is the backlog the buffer was at or below
/// 95% of the time; `max` the largest it held for a positive time. `None`
/// (null) for a buffer whose occupancy is not tracked: an unmanaged link's
/// (see [`crate::link`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OccupancyStats {
    pub p50: Option<u64>,
    pub p90: Option<u64>,
    pub p95: Option<u64>,
    pub p99: Option<u64>,
    pub max: Option<u64>,
}

impl OccupancyStats {
    pub fn from_histogram(h: Option<&Histogram>) -> OccupancyStats {
        let Some(h) = h.filter(|h| h.count() > 0) else { return OccupancyStats::default() };
        let [p50, p90, p95, p99] = h.quantiles([0.50, 0.90, 0.95, 0.99]);
        OccupancyStats { p50: Some(p50), p90: Some(p90), p95: Some(p95), p99: Some(p99), max: Some(h.max()) }
    }
}

/// The occupancy distributions of a run's tracked buffers, column by column:
/// one row per buffer, unit and backlog held for a positive time
/// (`RunResult.occupancy` in Python; a sweep's `detail/<run_id>.occupancy.parquet`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OccupancyLog {
    /// `"bottleneck"` (the PDCP buffer with `[radio]`) or `"uplink"`.
    pub buffer: Vec<&'static str>,
    /// `"bytes"` or `"packets"`.
    pub unit: Vec<&'static str>,
    /// The backlog, as the percentiles report it (exact below 1024, else to 0.1%).
    pub value: Vec<u64>,
    /// Time the buffer held it, seconds.
    pub time_s: Vec<f64>,
}

impl OccupancyLog {
    /// Appends buffer `name`'s distributions, by increasing backlog.
    pub fn push(&mut self, name: &'static str, occupancy: &Occupancy) {
        for (unit, h) in [("bytes", &occupancy.bytes), ("packets", &occupancy.packets)] {
            for (value, ns) in h.buckets() {
                self.buffer.push(name);
                self.unit.push(unit);
                self.value.push(value);
                self.time_s.push(ns as f64 * 1e-9);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn time_percentiles_of_a_hand_worked_backlog() {
        // Empty for 1 s, then 3000 B in 2 packets for 3 s.
        let mut o = Occupancy::default();
        o.hold(0, 0, S);
        o.hold(3000, 2, 3 * S);
        o.hold(9000, 6, 0); // held for no time: not in the distribution
        let b = OccupancyStats::from_histogram(Some(o.bytes()));
        assert_eq!(
            b,
            OccupancyStats { p50: Some(3000), p90: Some(3000), p95: Some(3000), p99: Some(3000), max: Some(3000) }
        );
        assert_eq!((o.bytes().quantile(0.20), o.bytes().quantile(0.25), o.bytes().quantile(0.26)), (0, 0, 3000));
        assert_eq!(OccupancyStats::from_histogram(Some(o.packets())).p50, Some(2));
        assert_eq!(o.bytes().mean(), 2250.0);
        let mut log = OccupancyLog::default();
        log.push("bottleneck", &o);
        assert_eq!(log.unit, ["bytes", "bytes", "packets", "packets"]);
        assert_eq!(log.value, [0, 3000, 0, 2]);
        assert_eq!(log.time_s, [1.0, 3.0, 1.0, 3.0]);
    }

    #[test]
    fn an_untracked_buffer_has_no_percentiles() {
        let none = OccupancyStats::from_histogram(None);
        assert_eq!(none, OccupancyStats::default());
        let json = serde_json::to_value(&none).unwrap();
        assert!(json["p95"].is_null(), "{json}");
    }
}
