//! The UE's Buffer Status Reporting procedure: 3GPP TS 36.321 §5.4.5 (Rel-8),
//! MAC control element formats of §6.1.3.1.
//!
//! Triggers (§5.4.5), each restated:
//! - *Regular BSR*: uplink data of a logical channel group (LCG) becomes
//!   available and either no LCG had data ("new data into an empty buffer")
//!   or it belongs to a higher-priority group than every group with data;
//!   also when retxBSR-Timer expires while the UE has data.
//! - *Periodic BSR*: periodicBSR-Timer expires.
//! - *Padding BSR*: a MAC PDU's padding is at least a BSR plus its subheader.
//!
//! When a BSR is triggered and the UE has a grant for a new transmission in
//! the TTI, the MAC PDU carries one BSR control element (before any data,
//! by logical channel prioritisation §5.4.3.1); periodicBSR-Timer restarts
//! unless the BSR is Truncated, retxBSR-Timer restarts, and every triggered
//! BSR is cancelled. They are also cancelled, without a BSR, when the grant
//! fits all pending data but not the BSR as well. retxBSR-Timer also restarts
//! on any grant for new data. A Regular BSR with no grant in the TTI triggers
//! a Scheduling Request (§5.4.4), which stays pending until a BSR goes out or
//! a grant fits all pending data.
//!
//! Formats (§6.1.3.1 and the format rule of §5.4.5):
//! - Regular and Periodic: Long BSR if more than one LCG has data, else Short.
//! - Padding: Long BSR if the padding fits it; else, with more than one LCG
//!   with data, a Truncated BSR of the highest-priority group with data; else Short.
//! - Short and Truncated: one LCG id (2 bits) and its 6-bit Buffer Size, one
//!   byte, plus a one-byte MAC subheader: 2 bytes. Long: four 6-bit Buffer
//!   Sizes, three bytes, plus the subheader: 4 bytes.
//!
//! Groups are ranked by index here, 0 first (the standard ranks logical
//! channels; with one channel per group the order is the groups'). A
//! bearer of this simulator has one logical channel, in group 0.

use super::buffer_size::BsrTable;
use crate::time::{Dur, Time};

/// Logical channel groups a Long BSR reports (TS 36.321 §6.1.3.1).
pub const LCGS: usize = 4;

/// Bytes of a Short or Truncated BSR with its MAC subheader.
pub const SHORT_BYTES: u64 = 2;
/// Bytes of a Long BSR with its MAC subheader.
pub const LONG_BYTES: u64 = 4;

/// The UE's BSR configuration, as RRC gives it in MAC-MainConfig (TS 36.331):
/// the timers (`[radio.lte]` `bsr_period`, `retx_bsr_timer`) and the Buffer
/// Size levels (`bsr_table`: extendedBSR-Sizes or not).
#[derive(Clone, Debug, PartialEq)]
pub struct BsrConfig {
    /// periodicBSR-Timer; `None`: infinity (no periodic BSR).
    pub periodic: Option<Dur>,
    /// retxBSR-Timer.
    pub retx: Dur,
    /// The Buffer Size levels the reports use.
    pub table: BsrTable,
}

impl Default for BsrConfig {
    /// The study's periodic BSR (20 ms), TS 36.331's default retxBSR-Timer (sf2560: 2.56 s)
    /// and the extended Buffer Size levels.
    fn default() -> BsrConfig {
        BsrConfig { periodic: Some(Dur::from_millis(20)), retx: Dur::from_millis(2560), table: BsrTable::Extended }
    }
}

/// What triggered the pending BSR (the strongest, if several did).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trigger {
    Padding,
    Periodic,
    Regular,
}

/// The BSR MAC control element formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Short,
    Truncated,
    Long,
}

impl Format {
    /// Bytes of the element with its MAC subheader.
    pub fn bytes(self) -> u64 {
        match self {
            Format::Short | Format::Truncated => SHORT_BYTES,
            Format::Long => LONG_BYTES,
        }
    }
}

/// A BSR as sent: its format and the 6-bit Buffer Size index of each group
/// it reports (`None`: not in this format).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BsrCe {
    pub format: Format,
    pub trigger: Trigger,
    pub levels: [Option<u8>; LCGS],
}

/// The BSR procedure of one UE.
#[derive(Clone, Debug)]
pub struct BsrProcedure {
    config: BsrConfig,
    triggered: Option<Trigger>,
    sr_pending: bool,
    periodic_at: Option<Time>,
    retx_at: Option<Time>,
}

impl BsrProcedure {
    pub fn new(config: &BsrConfig) -> BsrProcedure {
        BsrProcedure { config: config.clone(), triggered: None, sr_pending: false, periodic_at: None, retx_at: None }
    }

    fn trigger(&mut self, t: Trigger) {
        self.triggered = self.triggered.max(Some(t));
        if t == Trigger::Regular {
            self.sr_pending = true;
        }
    }

    /// Data arrives at `lcg` while the groups hold `before` bytes: a Regular
    /// BSR if no group had data or every group with data ranks below `lcg`.
    pub fn data_arrived(&mut self, lcg: usize, before: &[u64; LCGS]) {
        if before[..=lcg].iter().all(|&b| b == 0) {
            self.trigger(Trigger::Regular);
        }
    }

    /// Runs the timers up to `now`; `has_data`: some group holds data.
    pub fn expire(&mut self, now: Time, has_data: bool) {
        if self.periodic_at.is_some_and(|t| t <= now) {
            self.periodic_at = None;
            self.trigger(Trigger::Periodic);
        }
        if self.retx_at.is_some_and(|t| t <= now) {
            self.retx_at = None;
            if has_data {
                self.trigger(Trigger::Regular);
            }
        }
    }

    /// When a timer next expires.
    pub fn next_timer(&self) -> Option<Time> {
        match (self.periodic_at, self.retx_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether a Scheduling Request is pending (§5.4.4).
    pub fn sr_pending(&self) -> bool {
        self.sr_pending
    }

    /// The pending trigger, if any.
    pub fn triggered(&self) -> Option<Trigger> {
        self.triggered
    }

    /// A grant of `grant` bytes for a new transmission at `now` (timers run
    /// first, [`BsrProcedure::expire`]). `need` bytes of MAC PDU would carry
    /// every pending byte (headers included); `groups` are the bytes each
    /// LCG holds now. Returns the BSR the MAC PDU carries, if any, in its
    /// format; its levels are filled by [`BsrProcedure::fill`] once the PDU's
    /// data is chosen (the Buffer Size counts what is left after the TTI).
    pub fn on_grant(&mut self, now: Time, grant: u64, need: u64, groups: &[u64; LCGS]) -> Option<Format> {
        self.retx_at = Some(now + self.config.retx);
        let with_data = groups.iter().filter(|&&b| b > 0).count();
        let format = match self.triggered {
            Some(_) => {
                let f = if with_data > 1 { Format::Long } else { Format::Short };
                if grant >= need && grant < need + f.bytes() {
                    // The grant fits all pending data but not the BSR too: cancel.
                    self.triggered = None;
                    self.sr_pending = false;
                    return None;
                }
                if grant < f.bytes() {
                    return None; // no room: the BSR stays triggered
                }
                f
            }
            None => {
                let padding = grant.saturating_sub(need);
                if padding >= LONG_BYTES {
                    Format::Long
                } else if padding >= SHORT_BYTES {
                    if with_data > 1 {
                        Format::Truncated
                    } else {
                        Format::Short
                    }
                } else {
                    if grant >= need {
                        self.sr_pending = false;
                    }
                    return None;
                }
            }
        };
        if format != Format::Truncated {
            self.periodic_at = self.config.periodic.map(|p| now + p);
        }
        self.triggered = None;
        self.sr_pending = false;
        Some(format)
    }

    /// The BSR of `format` for the groups' bytes `left` once the TTI's MAC
    /// PDU is built (`trigger`: what [`BsrProcedure::triggered`] was before
    /// the grant; `None`: padding), in the configured Buffer Size levels.
    pub fn fill(&self, format: Format, trigger: Option<Trigger>, left: &[u64; LCGS]) -> BsrCe {
        let table = self.config.table;
        let mut levels = [None; LCGS];
        match format {
            Format::Long => {
                for (l, &b) in levels.iter_mut().zip(left) {
                    *l = Some(table.index(b));
                }
            }
            Format::Short | Format::Truncated => {
                // The group with data (the highest-priority one if several; group 0 if none).
                let g = left.iter().position(|&b| b > 0).unwrap_or(0);
                levels[g] = Some(table.index(left[g]));
            }
        }
        BsrCe { format, trigger: trigger.unwrap_or(Trigger::Padding), levels }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn one(bytes: u64) -> [u64; LCGS] {
        [bytes, 0, 0, 0]
    }

    #[test]
    fn new_data_into_an_empty_buffer_triggers_a_regular_bsr_and_an_sr() {
        let mut b = BsrProcedure::new(&BsrConfig::default());
        b.data_arrived(0, &one(0));
        assert_eq!((b.triggered(), b.sr_pending()), (Some(Trigger::Regular), true));
        // A 100-byte grant, 1502 B pending: a Short BSR goes out, the SR and the trigger end,
        // the periodic timer starts (20 ms) and so does retxBSR-Timer (2.56 s).
        assert_eq!(b.on_grant(ms(10), 100, 1510, &one(1502)), Some(Format::Short));
        assert_eq!((b.triggered(), b.sr_pending()), (None, false));
        assert_eq!(b.next_timer(), Some(ms(30)));
        // More data into the non-empty buffer: no trigger.
        b.data_arrived(0, &one(1404));
        assert_eq!(b.triggered(), None);
        // The periodic timer expires at 30 ms: a Periodic BSR, with no SR.
        b.expire(ms(29), true);
        assert_eq!(b.triggered(), None);
        b.expire(ms(30), true);
        assert_eq!((b.triggered(), b.sr_pending()), (Some(Trigger::Periodic), false));
    }

    #[test]
    fn higher_priority_data_triggers_lower_does_not() {
        let mut b = BsrProcedure::new(&BsrConfig::default());
        b.data_arrived(2, &[0, 0, 500, 0]);
        assert_eq!(b.triggered(), None, "group 2 already had data");
        b.data_arrived(3, &[0, 0, 500, 0]);
        assert_eq!(b.triggered(), None, "group 3 ranks below group 2");
        b.data_arrived(1, &[0, 0, 500, 0]);
        assert_eq!(b.triggered(), Some(Trigger::Regular), "group 1 ranks above group 2");
        // Two groups with data: a Regular BSR is Long.
        assert_eq!(b.on_grant(ms(0), 200, 1000, &[0, 300, 500, 0]), Some(Format::Long));
    }

    #[test]
    fn a_grant_that_fits_the_data_but_not_the_bsr_cancels_it() {
        let mut b = BsrProcedure::new(&BsrConfig::default());
        b.data_arrived(0, &one(0));
        // 105 B of MAC PDU carry everything; a 106-byte grant has no room for the 2-byte BSR.
        assert_eq!(b.on_grant(ms(4), 106, 105, &one(98)), None);
        assert_eq!((b.triggered(), b.sr_pending()), (None, false));
        // A 107-byte grant would have carried it.
        let mut b = BsrProcedure::new(&BsrConfig::default());
        b.data_arrived(0, &one(0));
        assert_eq!(b.on_grant(ms(4), 107, 105, &one(98)), Some(Format::Short));
    }

    #[test]
    fn padding_bsr_formats_by_the_padding_left() {
        let mut b = BsrProcedure::new(&BsrConfig { periodic: None, ..BsrConfig::default() });
        // Nothing triggered: padding < 2 B, no BSR.
        assert_eq!(b.on_grant(ms(0), 101, 100, &one(90)), None);
        // Padding 2 or 3 B: Short with one group with data, Truncated with two.
        assert_eq!(b.on_grant(ms(1), 102, 100, &one(90)), Some(Format::Short));
        assert_eq!(b.on_grant(ms(2), 103, 100, &[0, 40, 50, 0]), Some(Format::Truncated));
        // Padding ≥ 4 B: Long; an empty buffer is reported as padding too.
        assert_eq!(b.on_grant(ms(3), 104, 100, &one(90)), Some(Format::Long));
        assert_eq!(b.on_grant(ms(4), 64, 0, &one(0)), Some(Format::Long));
        // No periodic timer: nothing but retxBSR-Timer runs.
        assert_eq!(b.next_timer(), Some(ms(4) + Dur::from_millis(2560)));
        // A Truncated BSR of the highest-priority group with data.
        let ce = b.fill(Format::Truncated, None, &[0, 40, 50, 0]);
        assert_eq!(ce.levels, [None, Some(BsrTable::Extended.index(40)), None, None]);
        assert_eq!(ce.trigger, Trigger::Padding);
        let ce = b.fill(Format::Long, Some(Trigger::Regular), &[0, 40, 50, 200_000]);
        // Extended levels: 40 B: 35 < BS ≤ 43; 50 B: 43 < BS ≤ 53; 200 000 B: 165 989 < BS ≤ 204 111.
        assert_eq!(ce.levels, [Some(0), Some(8), Some(9), Some(49)]);
        // The legacy levels of the same buffers: 36 < BS ≤ 42, 49 < BS ≤ 57, BS > 150 000.
        let legacy = BsrProcedure::new(&BsrConfig { table: BsrTable::Legacy, ..BsrConfig::default() });
        let ce = legacy.fill(Format::Long, Some(Trigger::Regular), &[0, 40, 50, 200_000]);
        assert_eq!(ce.levels, [Some(0), Some(10), Some(12), Some(63)]);
    }

    #[test]
    fn a_truncated_bsr_does_not_restart_the_periodic_timer() {
        let mut b = BsrProcedure::new(&BsrConfig::default());
        b.data_arrived(0, &one(0));
        assert_eq!(b.on_grant(ms(0), 100, 1000, &one(900)), Some(Format::Short));
        assert_eq!(b.next_timer(), Some(ms(20)));
        assert_eq!(b.on_grant(ms(5), 103, 100, &[40, 50, 0, 0]), Some(Format::Truncated));
        assert_eq!(b.next_timer(), Some(ms(20)), "periodic still due at 20 ms");
        assert_eq!(b.on_grant(ms(6), 104, 100, &[40, 50, 0, 0]), Some(Format::Long));
        assert_eq!(b.next_timer(), Some(ms(26)));
    }

    #[test]
    fn retx_bsr_timer_expiry_with_data_is_a_regular_bsr() {
        let t = BsrConfig { periodic: None, retx: Dur::from_millis(320), ..BsrConfig::default() };
        let mut b = BsrProcedure::new(&t);
        b.data_arrived(0, &one(0));
        assert_eq!(b.on_grant(ms(0), 100, 5000, &one(5000)), Some(Format::Short));
        // A grant for new data at 100 ms restarts it: due at 420 ms, not 320 ms.
        assert_eq!(b.on_grant(ms(100), 100, 4900, &one(4900)), None);
        b.expire(ms(320), true);
        assert_eq!(b.triggered(), None);
        b.expire(ms(420), true);
        assert_eq!((b.triggered(), b.sr_pending()), (Some(Trigger::Regular), true));
        // Without data the expiry triggers nothing.
        let mut b = BsrProcedure::new(&t);
        b.on_grant(ms(0), 2, 0, &one(0));
        b.expire(ms(320), false);
        assert_eq!(b.triggered(), None);
    }
}
