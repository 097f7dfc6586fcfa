//! What users feel: downloads (pages, files, uploads, sessions, packet calls),
//! the session generator's counts, and the UDP datagram statistics.

use super::{DelayStats, Histogram, Times};
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

/// Download time statistics in seconds over completed downloads; each is
/// `None` (null in summary.json) when no download completed: there is no
/// value, and 0 would read as the best one.
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
    /// From the totals of the downloads, the completed ones' times (sorted)
    /// and the sum of their goodputs.
    fn new(count: u64, rtos: u64, completed_bytes: u64, times: &Times, goodputs: GoodputSum) -> DownloadStats {
        DownloadStats {
            count,
            completed: times.len() as u64,
            completed_bytes,
            mean_goodput_bps: goodputs.mean(),
            time_s: TimeStats {
                // Summed in ascending order, as over the sorted times in seconds.
                mean: (!times.is_empty()).then(|| times.ascending().sum::<f64>() / times.len() as f64),
                p50: times.quantile(0.50),
                p90: times.quantile(0.90),
                p95: times.quantile(0.95),
                p99: times.quantile(0.99),
                max: times.max(),
            },
            rtos,
        }
    }
}

/// What [`DownloadSummary`] needs of each download, kept as the downloads
/// are recorded, so that a run need not keep their rows: per kind the
/// counts and sums and the completed downloads' times (4 bytes per completed
/// download, [`Times`]: the exact time percentiles need them all), and the goodputs as
/// running sums, per kind and pooled, each added in the order the downloads
/// were recorded, as the mean over the rows adds them (bit for bit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DownloadTally {
    kinds: Vec<KindTally>,
    /// The goodputs of every kind, in the order they were recorded.
    goodputs: GoodputSum,
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
    times: Times,
    goodputs: GoodputSum,
}

impl KindTally {
    fn empty(kind: &'static str) -> KindTally {
        KindTally { kind, ..KindTally::default() }
    }

    /// With `times` sorted.
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
        let t = &mut self.kinds[k];
        t.count += 1;
        t.rtos += d.rtos;
        if let Some(time) = d.time {
            t.completed_bytes += d.bytes;
            t.times.push(time);
            if let Some(g) = d.goodput_bps {
                t.goodputs.add(g);
                self.goodputs.add(g);
            }
        }
    }

    /// The statistics of all downloads pooled and of each kind.
    pub fn summary(mut self) -> DownloadSummary {
        for t in &mut self.kinds {
            t.times.sort();
        }
        let by_kind: BTreeMap<&'static str, DownloadStats> = self.kinds.iter().map(|t| (t.kind, t.stats())).collect();
        let all = match self.kinds.as_slice() {
            [] => KindTally::empty("").stats(),
            [one] => one.stats(), // the pooled downloads are this kind's, in the same order
            _ => self.pooled(),
        };
        DownloadSummary { all, by_kind }
    }

    /// The statistics of the downloads of every kind together.
    fn pooled(&self) -> DownloadStats {
        let mut times = Times::default();
        self.kinds.iter().for_each(|t| times.extend(&t.times));
        times.sort();
        let sum = |f: fn(&KindTally) -> u64| self.kinds.iter().map(f).sum();
        DownloadStats::new(sum(|t| t.count), sum(|t| t.rtos), sum(|t| t.completed_bytes), &times, self.goodputs)
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
    /// pooled and per kind; the time percentiles are those of the sorted times.
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
            assert_eq!(stats.time_s.p90, nearest_rank(&times, 0.9), "{kind}");
            assert_eq!(
                stats.time_s.mean.map(f64::to_bits),
                Some((times.iter().sum::<f64>() / times.len() as f64).to_bits())
            );
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
