//! Trace-driven capacity in Mahimahi's format (`mm-link`).
//!
//! A trace file has one line per *delivery opportunity*: an integer number of
//! milliseconds from the start of the trace at which one 1500-byte packet may
//! leave the queue; several opportunities in one millisecond repeat the line.
//! Times never decrease. The trace loops: its period is its last timestamp
//! (which must be positive), so the opportunities of pass k are those of the
//! file shifted by k periods, as Mahimahi's `LinkQueue` does (K. Winstein et
//! al., NSDI 2013; Netravali et al., "Mahimahi", USENIX ATC 2015).
//!
//! How packets use the opportunities (Mahimahi's `LinkQueue::rationalize`,
//! src/packet/link_queue.cc, restated): an opportunity at time s carries up to [`OPPORTUNITY_BYTES`]
//! from the head of the queue, byte by byte in FIFO order. Smaller packets
//! share it (three 500-byte packets leave at one opportunity); a packet larger
//! than what is left of it takes the rest and continues in the next
//! opportunities, and leaves at the opportunity that carries its last byte.
//! Bytes of an opportunity that find the queue empty are lost: capacity is not
//! saved for later. A packet can use an opportunity at or after its arrival
//! (Mahimahi reads its clock in whole milliseconds and burns the
//! opportunities up to now before it queues an arriving packet, so there a
//! packet stamped with millisecond t starts at t + 1 ms at the earliest).
//! (Mahimahi's opportunity is 1504 bytes, its TUN device's largest packet;
//! ours is the 1500 bytes of the trace's definition, one full-sized packet
//! of `tcp.mss` 1460 B + 40 B of headers.)
//!
//! A file is read once per process: [`load`] keeps each trace by path and
//! reads it again only when the file changes (sweeps run many replications).
//! Only a regular file is read (a named pipe would wait for ever, `/dev/zero`
//! fill the memory), of at most [`MAX_FILE_BYTES`], with lines of at most
//! [`MAX_LINE`] characters and at most [`MAX_OPPORTUNITIES`] of them: our
//! bounds, far above any measured trace (the shipped ones have 59 000 to
//! 156 000 lines), each an error naming the file or the line.

use crate::time::{Dur, Time};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// The bytes one delivery opportunity carries.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// The largest trace file read, in bytes (256 MiB).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// The longest line, in characters (a time in milliseconds has at most 10 digits).
pub const MAX_LINE: usize = 32;
/// The most delivery opportunities (lines) in a trace: 80 MB in memory.
pub const MAX_OPPORTUNITIES: usize = 20_000_000;

/// The delivery opportunities of one trace file.
#[derive(Debug, PartialEq)]
pub struct Trace {
    /// Milliseconds from the start of the trace, not decreasing.
    opportunities: Vec<u32>,
    /// The trace repeats every `period` (its last timestamp).
    period: Dur,
}

impl Trace {
    /// Reads the text of a trace file; the error names the line.
    pub fn parse(text: &str) -> Result<Trace, String> {
        Trace::parse_at_most(text, MAX_OPPORTUNITIES)
    }

    /// [`Trace::parse`] with at most `max` opportunities.
    fn parse_at_most(text: &str, max: usize) -> Result<Trace, String> {
        let mut opportunities = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.len() > MAX_LINE {
                return Err(format!(
                    "line {}: longer than {MAX_LINE} characters (one time in milliseconds per line)",
                    i + 1
                ));
            }
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let ms: u32 = line
                .parse()
                .map_err(|_| format!("line {}: expected a whole number of milliseconds, got \"{line}\"", i + 1))?;
            if let Some(&last) = opportunities.last().filter(|&&last| ms < last) {
                return Err(format!("line {}: times must not decrease, got {ms} after {last}", i + 1));
            }
            if opportunities.len() == max {
                return Err(format!("line {}: more than {max} delivery opportunities", i + 1));
            }
            opportunities.push(ms);
        }
        match opportunities.last() {
            None => Err("no delivery opportunities (one time in milliseconds per line)".into()),
            Some(0) => Err("the trace must last longer than 0 ms (its last time is its period)".into()),
            Some(&last) => Ok(Trace { opportunities, period: Dur::from_millis(last as u64) }),
        }
    }

    /// Opportunities per period.
    pub fn len(&self) -> usize {
        self.opportunities.len()
    }

    pub fn is_empty(&self) -> bool {
        self.opportunities.is_empty()
    }

    pub fn period(&self) -> Dur {
        self.period
    }

    /// The mean capacity over a period, b/s: every opportunity's bytes over the period.
    pub fn mean_bps(&self) -> f64 {
        self.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / self.period.as_secs_f64()
    }

    /// How many opportunities come at or before `t` (looping).
    pub fn until(&self, t: Time) -> u64 {
        let (pass, offset) = (t.0 / self.period.0, t.0 % self.period.0);
        let within = self.opportunities.partition_point(|&ms| Dur::from_millis(ms as u64).0 <= offset);
        pass * self.len() as u64 + within as u64
    }

    /// The time of opportunity `i` of pass `pass`.
    fn at(&self, pass: u64, i: usize) -> Time {
        Time(pass * self.period.0 + Dur::from_millis(self.opportunities[i] as u64).0)
    }
}

/// The traces read so far, by canonical path, with the file's modification time.
type Cache = Mutex<HashMap<PathBuf, (SystemTime, Arc<Trace>)>>;

/// Reads the trace at `path` (cached per process, see the module doc).
pub fn load(path: &Path) -> Result<Arc<Trace>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
    let key = path.canonicalize().map_err(cannot)?;
    let meta = std::fs::metadata(&key).map_err(cannot)?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file (a trace is a text file, not a pipe or a device)", path.display()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!("{}: {} bytes, more than a trace's {MAX_FILE_BYTES}", path.display(), meta.len()));
    }
    let modified = meta.modified().map_err(cannot)?;
    let cache = CACHE.get_or_init(Default::default);
    if let Some((when, trace)) = cache.lock().expect("never poisoned").get(&key) {
        if *when == modified {
            return Ok(Arc::clone(trace));
        }
    }
    let text = std::fs::read_to_string(&key).map_err(cannot)?;
    let trace = Arc::new(Trace::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    cache.lock().expect("never poisoned").insert(key, (modified, Arc::clone(&trace)));
    Ok(trace)
}

/// A link's transmitter driven by a trace: where it stands in the opportunities.
/// The link may start into the trace (`offset`): run time t is trace time t + `start`.
#[derive(Clone, Debug)]
pub struct Opportunities {
    trace: Arc<Trace>,
    /// Where in the trace the run starts, ns (less than the period).
    start: u64,
    /// The current opportunity: pass and index.
    pass: u64,
    index: usize,
    /// Bytes the current opportunity has left.
    left: u32,
}

impl Opportunities {
    /// A link that starts `start` into the trace (less than its period): at
    /// its first opportunity at or after `start`.
    pub fn new(trace: Arc<Trace>, start: Dur) -> Opportunities {
        debug_assert!(start < trace.period, "a start within the first pass");
        let index = trace.opportunities.partition_point(|&ms| Dur::from_millis(ms as u64).0 < start.0);
        Opportunities { trace, start: start.0, pass: 0, index, left: OPPORTUNITY_BYTES }
    }

    /// How many opportunities come at or before run time `t`, from the start.
    pub fn until(&self, t: Time) -> u64 {
        let before_start = match self.start {
            0 => 0,
            s => self.trace.until(Time(s - 1)),
        };
        self.trace.until(Time(t.0 + self.start)) - before_start
    }

    /// The run time of the current opportunity.
    fn now_at(&self) -> Time {
        Time(self.trace.at(self.pass, self.index).0 - self.start)
    }

    fn step(&mut self) {
        self.index += 1;
        if self.index == self.trace.len() {
            (self.pass, self.index) = (self.pass + 1, 0);
        }
        self.left = OPPORTUNITY_BYTES;
    }

    /// The first time at or after `now` at which a byte can be sent: the
    /// current opportunity if it is at `now` and has bytes left, else the next
    /// at or after `now` (what earlier ones left is lost). Calls come in time order.
    pub fn ready(&mut self, now: Time) -> Time {
        if self.now_at() < now {
            // Pass p holds times in [p·period + first, (p + 1)·period]: the first
            // at or after `now` (trace time `at`) is in the pass whose range ends at or after it.
            let (period, at) = (self.trace.period.0, now.0 + self.start);
            self.pass = at.saturating_sub(1) / period;
            let offset = at - self.pass * period;
            self.index = self.trace.opportunities.partition_point(|&ms| Dur::from_millis(ms as u64).0 < offset);
            self.left = OPPORTUNITY_BYTES;
        }
        if self.left == 0 {
            self.step();
        }
        self.now_at()
    }

    /// Sends `bytes` from `start`, which [`Opportunities::ready`] returned:
    /// returns the time of the opportunity that carries the last byte.
    pub fn finish(&mut self, start: Time, bytes: u32) -> Time {
        debug_assert_eq!(start, self.now_at(), "a transmission starts at the current opportunity");
        let mut bytes = bytes;
        while bytes > self.left {
            bytes -= self.left;
            self.step();
        }
        self.left -= bytes;
        self.now_at()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn opportunities(text: &str) -> Opportunities {
        Opportunities::new(Arc::new(Trace::parse(text).unwrap()), Dur::ZERO)
    }

    #[test]
    fn the_period_is_the_last_time_and_the_trace_loops() {
        let t = Trace::parse("2\n5\n5\n10\n").unwrap();
        assert_eq!((t.len(), t.period()), (4, Dur::from_millis(10)));
        // 4 opportunities of 1500 B every 10 ms: 4.8 Mb/s.
        assert_eq!(t.mean_bps(), 4.8e6);
        // At or before 0, 5, 9.9, 10, 12 and 25 ms: the last of a pass at 10 ms is counted once.
        let until: Vec<u64> =
            [0, 5_000, 9_900, 10_000, 12_000, 25_000].iter().map(|&us| t.until(Time(us * 1_000))).collect();
        assert_eq!(until, [0, 3, 3, 4, 5, 11]);
        let mut o = Opportunities::new(Arc::new(t), Dur::ZERO);
        // Full-sized packets back to back take one opportunity each: 2, 5, 5, 10, then 12, 15, 15, 20, 22.
        let mut times = Vec::new();
        for _ in 0..9 {
            let start = o.ready(Time::ZERO);
            times.push(o.finish(start, 1500));
        }
        assert_eq!(times, [2, 5, 5, 10, 12, 15, 15, 20, 22].map(ms));
    }

    #[test]
    fn smaller_packets_share_an_opportunity_and_larger_ones_continue_in_the_next() {
        let mut o = opportunities("1\n2\n3\n4\n");
        // Three 500-byte packets: all at the opportunity of 1 ms.
        for _ in 0..3 {
            let s = o.ready(Time::ZERO);
            assert_eq!(o.finish(s, 500), ms(1));
        }
        // 1000 B then 1000 B: the first at 2 ms, the second takes the 500 B left there and 500 B at 3 ms.
        let s = o.ready(ms(1));
        assert_eq!((s, o.finish(s, 1000)), (ms(2), ms(2)));
        let s = o.ready(ms(2));
        assert_eq!((s, o.finish(s, 1000)), (ms(2), ms(3)));
        // 1000 B are left at 3 ms, but a packet arriving later finds them lost: it uses 4 ms.
        let s = o.ready(Time(3_000_001));
        assert_eq!((s, o.finish(s, 40)), (ms(4), ms(4)));
        // A 4000-byte packet needs three opportunities: 1460 B left at 4 ms, then 5 and 6 ms (the
        // second pass).
        let s = o.ready(ms(4));
        assert_eq!(o.finish(s, 4000), ms(6));
    }

    #[test]
    fn an_arrival_finds_the_first_opportunity_at_or_after_it() {
        let mut o = opportunities("0\n3\n3\n10\n");
        assert_eq!(o.ready(ms(3)), ms(3));
        // Past the last of pass 0 (10 ms) and the first of pass 1 (also 10 ms), into pass 1's 13 ms.
        assert_eq!(o.ready(Time(10_000_001)), ms(13));
        // An opportunity at the arrival instant counts: 10 ms of pass 4 is 50 ms, shared by the
        // last of pass 4 and the first of pass 5; two full packets both leave at 50 ms.
        let s = o.ready(ms(50));
        assert_eq!((s, o.finish(s, 1500)), (ms(50), ms(50)));
        let s = o.ready(ms(50));
        assert_eq!((s, o.finish(s, 1500)), (ms(50), ms(50)));
        assert_eq!(o.ready(ms(50)), ms(53));
    }

    /// A link started 6 ms into "2 5 5 10" (period 10 ms) sees the trace from
    /// its 10 ms, then 12, 15, 15, 20, …, less 6 ms: 4, 6, 9, 9, 14; and counts
    /// only the opportunities from its start.
    #[test]
    fn an_offset_starts_the_link_into_the_trace() {
        let t = Arc::new(Trace::parse("2\n5\n5\n10\n").unwrap());
        let mut o = Opportunities::new(t.clone(), Dur::from_millis(6));
        let mut times = Vec::new();
        for _ in 0..5 {
            let start = o.ready(Time::ZERO);
            times.push(o.finish(start, 1500));
        }
        assert_eq!(times, [4, 6, 9, 9, 14].map(ms));
        assert_eq!((o.until(ms(3)), o.until(ms(4)), o.until(ms(9))), (0, 1, 4));
        // An arrival later on finds the opportunity at or after it, shifted alike: 21 ms is trace
        // time 27 ms, whose next opportunity is 30 ms (run time 24 ms).
        assert_eq!(o.ready(ms(21)), ms(24));
        // No offset: as before.
        assert_eq!(Opportunities::new(t, Dur::ZERO).ready(Time::ZERO), ms(2));
    }

    #[test]
    fn bad_traces_name_the_line() {
        assert_eq!(
            Trace::parse("1\n2\nx\n").unwrap_err(),
            "line 3: expected a whole number of milliseconds, got \"x\""
        );
        assert_eq!(Trace::parse("5\n4\n").unwrap_err(), "line 2: times must not decrease, got 4 after 5");
        assert_eq!(Trace::parse("-1\n").unwrap_err(), "line 1: expected a whole number of milliseconds, got \"-1\"");
        assert!(Trace::parse("\n").unwrap_err().starts_with("no delivery opportunities"));
        assert!(Trace::parse("0\n0\n").unwrap_err().starts_with("the trace must last longer than 0 ms"));
        let long = format!("1\n{}2\n", " ".repeat(40));
        assert_eq!(
            Trace::parse(&long).unwrap_err(),
            "line 2: longer than 32 characters (one time in milliseconds per line)"
        );
        assert_eq!(Trace::parse_at_most("1\n2\n\n3\n", 2).unwrap_err(), "line 4: more than 2 delivery opportunities");
    }

    /// A named pipe would block the read for ever and /dev/zero fill the memory:
    /// only a regular file is read.
    #[test]
    fn only_a_regular_file_is_read() {
        let e = load(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e, "/dev/zero: not a regular file (a trace is a text file, not a pipe or a device)");
        let dir = std::env::temp_dir().join(format!("cellaqm-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if made {
            assert!(load(&fifo)
                .unwrap_err()
                .ends_with("not a regular file (a trace is a text file, not a pipe or a device)"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
