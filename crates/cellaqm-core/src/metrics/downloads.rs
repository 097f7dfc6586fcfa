//! What users feel: downloads (pages, files, uploads, sessions, packet calls),
//! the session generator's counts, and the UDP datagram statistics.

use super::{DelayStats, Histogram};
use crate::time::Dur;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

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
    /// Completion − request (`time_s` in seconds in `downloads.csv`).
    #[serde(rename = "time_s", serialize_with = "seconds")]
    pub time: Option<Dur>,
    /// Download goodput: `bytes` · 8 / (last byte − request sent).
    pub goodput_bps: Option<f64>,
    /// Retransmission timeouts on its connections between request and completion (or end).
    pub rtos: u64,
}

/// What the traffic models record during a run: every download's totals
/// ([`DownloadTally`], what the summary needs) and, unless only the totals
/// are kept, its row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficLog {
    pub downloads: Vec<Download>,
    pub tally: DownloadTally,
    /// Keep only the tally, not `downloads` (memory flat in the run's duration).
    pub totals_only: bool,
    pub sessions_offered: u64,
    pub sessions_served: u64,
    pub sessions_lost: u64,
}

/// A duration as seconds.
fn seconds<S: Serializer>(d: &Option<Dur>, s: S) -> Result<S::Ok, S::Error> {
    d.map(Dur::as_secs_f64).serialize(s)
}

impl TrafficLog {
    /// Records a download: in the tally, and its row unless only totals are kept.
    pub fn record(&mut self, d: Download) {
        self.tally.add(&d);
        if !self.totals_only {
            self.downloads.push(d);
        }
    }
}

/// Download time statistics in seconds over completed downloads: the mean and
/// maximum exact, the percentiles within 0.1% (a run's [`Histogram`], as the
/// packet delays'); each is `None` (null in summary.json) when no download
/// completed: there is no value, and 0 would read as the best one.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimeStats {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
}

/// Statistics of a set of downloads (all of a run's, or those of one kind).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DownloadStats {
    /// Downloads requested during the run.
    pub count: u64,
    /// Of those, completed before its end.
    pub completed: u64,
    /// Application bytes of the completed downloads.
    pub completed_bytes: u64,
    /// Mean of the per-download goodputs over completed downloads; `None` if none completed.
    pub mean_goodput_bps: Option<f64>,
    /// Download time (request → last byte) of completed downloads.
    pub time_s: TimeStats,
    /// RTOs during downloads.
    pub rtos: u64,
}

impl DownloadStats {
    /// From the totals of the downloads, the completed ones' times
    /// (nanoseconds) and the sum of their goodputs.
    fn new(count: u64, rtos: u64, completed_bytes: u64, times: &Histogram, goodputs: GoodputSum) -> DownloadStats {
        DownloadStats {
            count,
            completed: times.count(),
            completed_bytes,
            mean_goodput_bps: goodputs.mean(),
            time_s: TimeStats::from_histogram(times),
            rtos,
        }
    }
}

impl TimeStats {
    fn from_histogram(h: &Histogram) -> TimeStats {
        if h.count() == 0 {
            return TimeStats::default();
        }
        let s = |ns: u64| Some(Dur(ns).as_secs_f64());
        let [p50, p90, p95, p99] = h.quantiles([0.50, 0.90, 0.95, 0.99]);
        TimeStats { mean: Some(h.mean() * 1e-9), p50: s(p50), p90: s(p90), p95: s(p95), p99: s(p99), max: s(h.max()) }
    }
}

/// What [`DownloadSummary`] needs of each download, kept as the downloads
/// are recorded, so that a run need not keep their rows: per kind and
/// pooled, the counts and sums, the completed downloads' times in a
/// [`Histogram`] (memory bounded by the range of the times, not their
/// number), and the goodputs as running sums, each added in the order the
/// downloads were recorded, as the mean over the rows adds them (bit for bit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DownloadTally {
    kinds: Vec<KindTally>,
    /// Every kind's together.
    all: KindTally,
}

/// A sum of goodputs in the order they come, for their mean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct GoodputSum {
    /// From −0.0, as `Iterator::sum` starts.
    sum: Option<f64>,
    count: u64,
}

impl GoodputSum {
    fn add(&mut self, g: f64) {
        self.sum = Some(self.sum.unwrap_or(-0.0) + g);
        self.count += 1;
    }

    /// Their mean; `None` if there are none.
    fn mean(&self) -> Option<f64> {
        self.sum.map(|sum| sum / self.count as f64)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct KindTally {
    kind: &'static str,
    count: u64,
    rtos: u64,
    completed_bytes: u64,
    /// Nanoseconds.
    times: Histogram,
    goodputs: GoodputSum,
}

impl KindTally {
    fn empty(kind: &'static str) -> KindTally {
        KindTally { kind, ..KindTally::default() }
    }

    fn add(&mut self, d: &Download) {
        self.count += 1;
        self.rtos += d.rtos;
        if let Some(time) = d.time {
            self.completed_bytes += d.bytes;
            self.times.record(time.0);
            if let Some(g) = d.goodput_bps {
                self.goodputs.add(g);
            }
        }
    }

    fn stats(&self) -> DownloadStats {
        DownloadStats::new(self.count, self.rtos, self.completed_bytes, &self.times, self.goodputs)
    }
}

impl DownloadTally {
    pub fn add(&mut self, d: &Download) {
        let k = match self.kinds.iter().position(|t| t.kind == d.kind) {
            Some(k) => k,
            None => {
                self.kinds.push(KindTally::empty(d.kind));
                self.kinds.len() - 1
            }
        };
        self.kinds[k].add(d);
        self.all.add(d);
    }

    /// The statistics of all downloads pooled and of each kind.
    pub fn summary(self) -> DownloadSummary {
        let by_kind: BTreeMap<&'static str, DownloadStats> = self.kinds.iter().map(|t| (t.kind, t.stats())).collect();
        DownloadSummary { all: self.all.stats(), by_kind }
    }
}

/// A run's download statistics: two keys of summary.json, `downloads` (all
/// kinds pooled) and `downloads_by_kind` (the same fields per kind present:
/// `page`, `file`, `upload`, `session`, `packet_call`), so that a run mixing
/// sources reports, say, the page time of its web users on its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DownloadSummary {
    #[serde(rename = "downloads")]
    pub all: DownloadStats,
    #[serde(rename = "downloads_by_kind")]
    pub by_kind: BTreeMap<&'static str, DownloadStats>,
}

impl DownloadSummary {
    pub fn new(downloads: &[Download]) -> DownloadSummary {
        let mut tally = DownloadTally::default();
        downloads.iter().for_each(|d| tally.add(d));
        tally.summary()
    }
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
    pub fn new(sent: u64, delivered: u64, lost: u64, delivered_bytes: u64, delays: &Histogram) -> DatagramSummary {
        DatagramSummary { sent, delivered, lost, delivered_bytes, delay_ms: DelayStats::from_histogram(delays) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A download of `kind` that took `time_s` (whole nanoseconds).
    fn d(kind: &'static str, time_s: Option<f64>) -> Download {
        let time = time_s.map(|t| Dur((t * 1e9).round() as u64));
        Download { kind, bytes: 1000, time, goodput_bps: time_s.map(|t| 8000.0 / t), ..Download::default() }
    }

    /// The q-quantile of sorted values (nearest rank).
    fn nearest_rank(sorted: &[f64], q: f64) -> Option<f64> {
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted.get(rank - 1).copied()
    }

    #[test]
    fn no_completed_download_has_no_time_or_goodput() {
        let s = DownloadSummary::new(&[d("page", None)]);
        assert_eq!((s.all.count, s.all.completed), (1, 0));
        assert_eq!(s.all.mean_goodput_bps, None);
        assert_eq!(s.all.time_s, TimeStats::default());
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["downloads"]["time_s"]["p95"].is_null(), "{json}");
        assert!(json["downloads"]["mean_goodput_bps"].is_null(), "{json}");
    }

    /// The goodput means, summed as the downloads come, are the means over
    /// the rows bit for bit (floating-point addition is not associative),
    /// pooled and per kind; the time percentiles are those of the sorted
    /// times to 0.1%.
    #[test]
    fn running_goodput_sums_are_the_means_over_the_rows() {
        let kinds = ["page", "session", "file"];
        let all: Vec<Download> = (0..500u32)
            .map(|i| d(kinds[(i * 7 % 3) as usize], (i % 11 != 0).then(|| 0.01 + (i * 7919 % 997) as f64 / 37.0)))
            .collect();
        let s = DownloadSummary::new(&all);
        let mean = |rows: Vec<&Download>| {
            let g: Vec<f64> = rows.iter().filter_map(|d| d.goodput_bps).collect();
            g.iter().sum::<f64>() / g.len() as f64
        };
        assert_eq!(s.all.mean_goodput_bps.map(f64::to_bits), Some(mean(all.iter().collect()).to_bits()));
        for kind in kinds {
            let rows: Vec<&Download> = all.iter().filter(|d| d.kind == kind).collect();
            let mut times: Vec<f64> = rows.iter().filter_map(|d| d.time.map(Dur::as_secs_f64)).collect();
            times.sort_by(f64::total_cmp);
            let stats = &s.by_kind[kind];
            assert_eq!(stats.mean_goodput_bps.map(f64::to_bits), Some(mean(rows).to_bits()), "{kind}");
            // A percentile within 0.1% of the nearest-rank time (the bucket's
            // midpoint: half a bucket, 2^-11); the mean and maximum exact.
            let (p90, exact) = (stats.time_s.p90.unwrap(), nearest_rank(&times, 0.9).unwrap());
            assert!((p90 - exact).abs() <= exact / 2048.0, "{kind}: {p90} vs {exact}");
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            assert!((stats.time_s.mean.unwrap() - mean).abs() <= mean * 1e-12, "{kind}");
            assert_eq!(stats.time_s.max, times.last().copied(), "{kind}");
        }
    }

    #[test]
    fn kinds_are_reported_apart_and_pooled() {
        let all = [d("page", Some(2.0)), d("session", Some(1.0)), d("page", Some(4.0)), d("session", None)];
        let s = DownloadSummary::new(&all);
        assert_eq!(s.all.count, 4);
        assert_eq!(s.all.time_s.max, Some(4.0));
        assert_eq!(s.by_kind.keys().copied().collect::<Vec<_>>(), ["page", "session"]);
        let page = &s.by_kind["page"];
        assert_eq!((page.count, page.completed, page.time_s.mean), (2, 2, Some(3.0)));
        assert_eq!(page.mean_goodput_bps, Some((4000.0 + 2000.0) / 2.0));
        let session = &s.by_kind["session"];
        assert_eq!((session.count, session.completed, session.time_s.p50), (2, 1, Some(1.0)));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["downloads_by_kind"]["page"]["time_s"]["p95"], 4.0);
        assert_eq!(json["downloads"]["count"], 4);
        assert_eq!(serde_json::to_value(&all[2]).unwrap()["time_s"], 4.0, "a row's time in seconds");
    }
}
