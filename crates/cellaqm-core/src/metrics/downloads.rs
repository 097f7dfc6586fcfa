//! What users feel: downloads (pages, files, uploads, sessions, packet calls),
//! the session generator's counts, and the UDP datagram statistics.

use super::{DelayStats, Histogram};
use serde::Serialize;

/// One download, as recorded by its traffic model (a row of `downloads.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Download {
    /// Index in the run, in order of completion (unfinished ones last).
    pub download: u32,
    /// Index of the traffic source.
    pub source: u32,
    /// `"page"`, `"file"`, `"upload"`, `"session"` or `"packet_call"`.
    pub kind: &'static str,
    pub user: u32,
    /// Application bytes of the download (the objects, the file, the upload).
    pub bytes: u64,
    /// Objects (files) in it.
    pub objects: u32,
    /// TCP connections it used.
    pub connections: u32,
    /// When the request was sent (the user asked for it).
    pub request_s: f64,
    /// When its last byte reached the receiving application; `None` if it did not.
    pub completion_s: Option<f64>,
    /// `completion_s − request_s`.
    pub time_s: Option<f64>,
    /// Download goodput: `bytes` · 8 / (last byte − request sent).
    pub goodput_bps: Option<f64>,
    /// Retransmission timeouts on its connections between request and completion (or end).
    pub rtos: u64,
}

/// What the traffic models record during a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficLog {
    pub downloads: Vec<Download>,
    pub sessions_offered: u64,
    pub sessions_served: u64,
    pub sessions_lost: u64,
}

/// Download time statistics in seconds, over completed downloads.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimeStats {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Run-level download statistics (`downloads` in summary.json).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DownloadSummary {
    /// Downloads requested during the run.
    pub count: u64,
    /// Of those, completed before its end.
    pub completed: u64,
    /// Application bytes of the completed downloads.
    pub completed_bytes: u64,
    /// Mean of the per-download goodputs over completed downloads.
    pub mean_goodput_bps: f64,
    /// Download time (request → last byte) of completed downloads.
    pub time_s: TimeStats,
    /// RTOs during downloads.
    pub rtos: u64,
}

impl DownloadSummary {
    pub fn new(downloads: &[Download]) -> DownloadSummary {
        let done: Vec<&Download> = downloads.iter().filter(|d| d.time_s.is_some()).collect();
        let mut times: Vec<f64> = done.iter().filter_map(|d| d.time_s).collect();
        times.sort_by(f64::total_cmp);
        let goodputs: Vec<f64> = done.iter().filter_map(|d| d.goodput_bps).collect();
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        DownloadSummary {
            count: downloads.len() as u64,
            completed: done.len() as u64,
            completed_bytes: done.iter().map(|d| d.bytes).sum(),
            mean_goodput_bps: mean(&goodputs),
            time_s: TimeStats {
                mean: mean(&times),
                p50: quantile(&times, 0.50),
                p90: quantile(&times, 0.90),
                p95: quantile(&times, 0.95),
                p99: quantile(&times, 0.99),
                max: times.last().copied().unwrap_or(0.0),
            },
            rtos: downloads.iter().map(|d| d.rtos).sum(),
        }
    }
}

/// The q-quantile of sorted values (nearest rank); 0 if empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

/// The session generator's counts (`sessions` in summary.json).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    /// Sessions generated.
    pub offered: u64,
    /// Sessions whose transfer completed.
    pub served: u64,
    /// Sessions that found no idle user.
    pub lost: u64,
    /// Sessions still in progress at the end.
    pub unfinished: u64,
}

/// UDP datagram statistics (`datagrams` in summary.json), all directions.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DatagramSummary {
    /// IP packets sent.
    pub sent: u64,
    pub delivered: u64,
    /// Dropped by a queue or lost on a link.
    pub lost: u64,
    /// Payload bytes delivered.
    pub delivered_bytes: u64,
    /// One-way delay of the delivered packets.
    pub delay_ms: DelayStats,
}

impl DatagramSummary {
    pub fn new(
        sent: u64,
        delivered: u64,
        lost: u64,
        delivered_bytes: u64,
        delays: &Histogram,
    ) -> DatagramSummary {
        DatagramSummary {
            sent,
            delivered,
            lost,
            delivered_bytes,
            delay_ms: DelayStats::from_histogram(delays),
        }
    }
}
