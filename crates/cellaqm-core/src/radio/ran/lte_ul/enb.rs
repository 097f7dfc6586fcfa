//! The eNodeB's uplink scheduler: grants transport blocks to the cell's UEs
//! from what their BSRs and SRs tell it (lte-uplink-raqm.md's grant rule,
//! the spec's choice, across several UEs):
//!
//! ```text
//! each 1 ms TTI, for the TTI grant_delay ahead:
//!     outstanding(u) = bytes of u's latest BSR − bytes granted to u since it arrived
//!     wanting(u)     = outstanding(u) if > 0, else sr_grant if an SR of u is pending
//!                      or if u's latest BSR reported data and no grant of u is in the pipeline
//!     up to ues_per_tti times: the scheduler (round robin, PF, …) picks one UE not yet
//!     granted in this TTI among those with wanting > 0 that the bytes left can grant;
//!     grant min(bytes left in the TTI, wanting(u))
//! ```
//!
//! The eNodeB reads each BSR as the UE's buffer status and answers with grants,
//! its transmission opportunities ([`crate::radio::sap`]: the MAC↔RLC interface
//! of the UMTS bearers, in the other direction).
//!
//! The TTI's bytes come from the cell's capacity ([`crate::radio::lte::capacity`]); HARQ
//! retransmissions due in that TTI take theirs first (non-adaptive: same
//! size), and their UEs get no new grant. A grant smaller than `min_grant`
//! that does not cover the UE's wanting is not made: the bytes are kept for
//! the next TTI instead (*our choice*, so that a low-rate cell serves a UE
//! every few TTIs with a block worth its headers). An SR from a UE that
//! already has bytes outstanding or a grant in the pipeline is ignored
//! (*our choice*). The small grant after a BSR that reported data is *our
//! choice* too: data that reached a non-empty buffer triggers no BSR (TS 36.321
//! §5.4.5), so once the reported bytes are granted, a UE with more data could
//! only wait for retxBSR-Timer (2.56 s); the small grant carries its pending
//! periodic BSR (or a padding BSR of 0 B when it has nothing left). The BSR's Buffer Size is read as its level's upper edge
//! ([`super::buffer_size::BsrTable::read`]: legacy or extended levels) or, as an option, exactly.
//!
//! A BSR in a block that needed HARQ retransmissions can arrive after a BSR
//! the UE built later; the eNodeB knows the TTI each block was first sent in
//! (its HARQ process) and keeps the latest-built report, ignoring an older
//! one that arrives after it (*our choice*; taking it would overwrite a fresher
//! buffer size, e.g. a stale 0 B after the UE reported new data, and stall the
//! UE until retxBSR-Timer).

use crate::radio::lte::capacity::Offer;
use crate::radio::sap::BufferStatus;
use crate::radio::scheduler::{AnyScheduler, RateAverage, UserView};
use crate::time::{Dur, Time};

/// What the eNodeB knows of one UE.
#[derive(Clone, Debug)]
struct UeState {
    /// The latest BSR taken, as a buffer status ([`BufferStatus::bsr`]).
    reported: BufferStatus,
    /// When the UE built the report now held (the first TTI of its block).
    reported_at: Option<Time>,
    granted: u64,
    sr: bool,
    /// Grants made and not yet used: TTIs of use.
    pipeline: u32,
    /// TTIs taken by HARQ retransmissions: (start, bytes).
    retx: Vec<(Time, u64)>,
    avg: RateAverage,
}

/// The cell's uplink scheduler.
pub struct EnbScheduler {
    scheduler: AnyScheduler,
    ues: Vec<UeState>,
    /// The TTI's bytes, and those kept from earlier TTIs (see the module doc).
    offer: Offer,
    tti: Dur,
    min_grant: u64,
    sr_grant: u64,
    ues_per_tti: usize,
    views: Vec<UserView>,
}

/// The PF average's window, TTIs (*our choice*: 100 ms).
const PF_WINDOW: u32 = 100;

impl EnbScheduler {
    pub fn new(
        scheduler: AnyScheduler,
        ues: usize,
        offer: Offer,
        tti: Dur,
        min_grant: u64,
        sr_grant: u64,
        ues_per_tti: usize,
    ) -> EnbScheduler {
        let state = UeState {
            reported: BufferStatus::default(),
            reported_at: None,
            granted: 0,
            sr: false,
            pipeline: 0,
            retx: Vec::new(),
            avg: RateAverage::new(PF_WINDOW),
        };
        EnbScheduler {
            scheduler,
            ues: vec![state; ues],
            offer,
            tti,
            min_grant,
            sr_grant,
            ues_per_tti,
            views: Vec::new(),
        }
    }

    /// An SR of UE `u` reached the eNodeB.
    pub fn on_sr(&mut self, u: usize) {
        let s = &mut self.ues[u];
        if s.reported.new_bytes <= s.granted && s.pipeline == 0 {
            s.sr = true;
        }
    }

    /// A BSR of UE `u`, read as its buffer `status` (the bytes it reports),
    /// built in the TTI starting at `built`, reached the eNodeB. Returns
    /// whether it was taken (false: an older report than the one held).
    pub fn on_bsr(&mut self, u: usize, status: BufferStatus, built: Time) -> bool {
        let s = &mut self.ues[u];
        if s.reported_at.is_some_and(|t| built < t) {
            return false;
        }
        s.reported = status;
        s.reported_at = Some(built);
        s.granted = 0;
        true
    }

    /// UE `u` used a grant (one fewer in its pipeline).
    pub fn used(&mut self, u: usize) {
        self.ues[u].pipeline -= 1;
    }

    /// UE `u` retransmits a `bytes` block in the TTI starting at `at`.
    pub fn reserve(&mut self, u: usize, at: Time, bytes: u64) {
        self.ues[u].retx.push((at, bytes));
    }

    /// Whether a UE last reported data, has an SR, a grant in the pipeline, or a retransmission reserved.
    pub fn busy(&self) -> bool {
        self.ues.iter().any(|s| s.reported.ready || s.sr || s.pipeline > 0 || !s.retx.is_empty())
    }

    /// The grants for the TTI starting at `t` (made `grant_delay` earlier),
    /// in serving order: (UE, bytes) to `out` (cleared first).
    pub fn grants(&mut self, t: Time, out: &mut Vec<(usize, u64)>) {
        out.clear();
        self.offer.open(t);
        let tti_index = t.0 / self.tti.0;
        self.views.clear();
        for (u, s) in self.ues.iter_mut().enumerate() {
            let mut retransmits = false;
            let offer = &mut self.offer;
            s.retx.retain(|&(at, b)| {
                if at == t {
                    offer.spend(u, b);
                    retransmits = true;
                }
                at != t
            });
            let probe = s.sr || (s.reported.ready && s.pipeline == 0);
            let wanting = match s.reported.new_bytes.saturating_sub(s.granted) {
                0 if probe => self.sr_grant,
                o => o,
            };
            let backlog_bytes = if retransmits || !self.offer.schedulable(u) { 0 } else { wanting };
            let rate_bps = self.offer.rate(u);
            self.views.push(UserView { backlog_bytes, rate_bps, avg_bps: s.avg.value(tti_index), priority: 0 });
        }
        // One pick at a time among the UEs the TTI's bytes left can grant, so
        // that the scheduler's turn (round robin) moves past the UEs granted
        // only. A UE left less than its need and less than `min_grant` is no
        // candidate: the bytes are then kept for the next TTI.
        let mut starved = false;
        for _ in 0..self.ues_per_tti {
            for (v, view) in self.views.iter_mut().enumerate() {
                let left = self.offer.available(v);
                if view.backlog_bytes > 0 && left < view.backlog_bytes && left < self.min_grant {
                    view.backlog_bytes = 0;
                    starved = true;
                }
            }
            let Some((u, wanting)) = self.scheduler.next_served(t, &mut self.views) else { break };
            let g = self.offer.available(u).min(wanting);
            self.offer.spend(u, g);
            let s = &mut self.ues[u];
            if s.reported.new_bytes > s.granted {
                s.granted += g;
            }
            s.sr = false;
            s.pipeline += 1;
            s.avg.serve(tti_index, g as f64 * 8.0 / self.tti.as_secs_f64());
            out.push((u, g));
        }
        self.offer.close(starved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::Schedule;
    use crate::radio::lte::capacity::{Blocks, Capacity};
    use crate::radio::scheduler::SchedulerKind;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn enb(bps: f64, ues: usize, kind: SchedulerKind) -> EnbScheduler {
        let tti = Dur::from_millis(1);
        EnbScheduler::new(
            kind.build(),
            ues,
            Offer::shared(Blocks::new(Capacity::Schedule(Schedule::fixed(bps)), tti)),
            tti,
            125,
            64,
            4,
        )
    }

    #[test]
    fn grants_follow_the_reports_and_srs() {
        let mut e = enb(10e6, 2, SchedulerKind::RoundRobin);
        let mut g = Vec::new();
        e.grants(ms(0), &mut g);
        assert!(g.is_empty() && !e.busy());
        // UE 1's SR: a 64-byte grant.
        e.on_sr(1);
        e.grants(ms(1), &mut g);
        assert_eq!(g, [(1, 64)]);
        e.on_sr(1); // a grant is in the pipeline: ignored
        e.grants(ms(2), &mut g);
        assert!(g.is_empty());
        e.used(1);
        // UE 1 reports 2000 B (read), UE 0 reports 300 B: round robin from UE 0 (after 1):
        // 300 B to UE 0, the remaining 950 B to UE 1; then UE 1's last 1050 B.
        e.on_bsr(1, BufferStatus::bsr(2000), ms(2));
        e.on_bsr(0, BufferStatus::bsr(300), ms(2));
        e.grants(ms(3), &mut g);
        assert_eq!(g, [(0, 300), (1, 950)]);
        e.grants(ms(4), &mut g);
        assert_eq!(g, [(1, 1050)]);
        e.grants(ms(5), &mut g);
        assert!(g.is_empty());
    }

    /// A report from a block that HARQ retransmitted arrives after a newer one:
    /// the newer one stands (a stale 0 B would leave the UE's data ungranted).
    #[test]
    fn a_stale_report_does_not_overwrite_a_newer_one() {
        let mut e = enb(10e6, 1, SchedulerKind::RoundRobin);
        let mut g = Vec::new();
        assert!(e.on_bsr(0, BufferStatus::bsr(4677), ms(11)));
        assert!(!e.on_bsr(0, BufferStatus::bsr(0), ms(3)), "built at 3 ms, before the report of 11 ms");
        e.grants(ms(15), &mut g);
        assert_eq!(g, [(0, 1250)]);
        assert!(e.on_bsr(0, BufferStatus::bsr(0), ms(16)));
        e.grants(ms(17), &mut g);
        assert!(g.is_empty());
    }

    #[test]
    fn retransmissions_take_their_tti_first() {
        let mut e = enb(10e6, 2, SchedulerKind::RoundRobin);
        let mut g = Vec::new();
        e.on_bsr(0, BufferStatus::bsr(10_000), ms(0));
        e.on_bsr(1, BufferStatus::bsr(10_000), ms(0));
        e.reserve(0, ms(8), 1000);
        e.grants(ms(8), &mut g);
        assert_eq!(g, [(1, 250)], "UE 0 retransmits 1000 B: no new grant, 250 B left for UE 1");
    }

    #[test]
    fn a_low_rate_cell_keeps_its_bytes_for_a_grant_worth_its_headers() {
        // 128 kb/s: 16 B per TTI; a 125-byte least grant every 8 TTIs (128 B).
        let mut e = enb(128e3, 1, SchedulerKind::ProportionalFair);
        e.on_bsr(0, BufferStatus::bsr(100_000), ms(0));
        let mut g = Vec::new();
        let mut got = Vec::new();
        for k in 0..24 {
            e.grants(ms(k), &mut g);
            got.extend(g.iter().map(|&(_, b)| (k, b)));
        }
        assert_eq!(got, [(7, 128), (15, 128), (23, 128)]);
    }

    /// Saturated UEs (each reports far more than a TTI carries), four picks
    /// per TTI: round robin gives each UE its turn, as the turn moves past the
    /// UE granted, not past the UEs the TTI had no bytes left for.
    #[test]
    fn round_robin_turns_past_the_ue_served() {
        for (ues, want) in [
            (2, vec![(0, 1250), (1, 1250), (0, 1250), (1, 1250)]),
            (3, vec![(0, 1250), (1, 1250), (2, 1250), (0, 1250)]),
        ] {
            let mut e = enb(10e6, ues, SchedulerKind::RoundRobin);
            for u in 0..ues {
                e.on_bsr(u, BufferStatus::bsr(1_000_000), ms(0));
            }
            let mut g = Vec::new();
            let mut got = Vec::new();
            for k in 1..=4 {
                e.grants(ms(k), &mut g);
                got.extend(g.iter().copied());
            }
            assert_eq!(got, want, "{ues} UEs");
        }
    }
}
