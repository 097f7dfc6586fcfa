//! Buffer Status Reports on a link, and what its far end makes of them: the
//! LTE uplink of Tan, MSc thesis, 2009, where the eNodeB cannot see the UE's
//! buffer and learns about it from the UE's BSRs.
//!
//! ```text
//!  server ◀─ core (up) ◀─ [eNodeB: estimator ─▶ R-AQM filter] ◀─ uplink ◀─ [UE buffer + discipline] ◀─ client
//!                                   ▲                                                │
//!                                   └──── BSRs ride with the departing packets ──────┘
//! ```
//!
//! - The sending end ([`Reporter`]) runs LTE's periodic BSR timer (`bsr_period`):
//!   a due report rides with the next packet leaving the buffer, as the BSR
//!   MAC control element rides with uplink data, and counts the bytes still
//!   waiting after that packet left.
//! - The report reaches the far end with its carrier, or is lost with it.
//! - The far end ([`FarEnd`]) feeds each report and the bytes received since
//!   the previous one to the queue-delay estimator, and its receiver-side
//!   filter (`receiver`, R-AQM) drops or delivers every packet on the way to
//!   the core.
//!
//! [`Bsr`] is both ends of one link; the link calls it as packets enter its
//! buffer, leave it, and reach the far end. A link with BSRs is served event
//! by event (it counts as managed, see `crate::link`), since reports ride with
//! departures.

mod delay_estimator;
mod far_end;
mod head_of_line;
mod raqm;
mod receiver;
mod reporter;

pub use delay_estimator::DelayEstimator;
pub use far_end::{BsrSummary, EstimateError, FarEnd};
pub use head_of_line::HeadOfLine;
pub use raqm::{Raqm, RaqmParams, RaqmStats, Verdict};
pub use receiver::ReceiverConfig;
pub use reporter::{Report, Reporter};

use crate::metrics::BsrTrace;
use crate::packet::Packet;
use crate::queue::Dropped;
use crate::time::{Dur, Time};

/// Both ends of a link with Buffer Status Reports.
pub struct Bsr {
    reporter: Reporter,
    far_end: FarEnd,
}

impl Bsr {
    /// Reports every `period`; `receiver` filters at the far end.
    pub fn new(period: Dur, receiver: Option<&ReceiverConfig>) -> Bsr {
        Bsr { reporter: Reporter::new(period), far_end: FarEnd::new(receiver) }
    }

    /// Packet `uid` enters the buffer at `now`.
    pub fn entered(&mut self, uid: u64, now: Time) {
        self.reporter.entered(uid, now);
    }

    /// The buffer was asked for a packet (see [`Reporter::dequeued`]).
    pub fn dequeued(&mut self, now: Time, dropped: &[Dropped], sent: Option<&Packet>, waiting: u64) {
        self.reporter.dequeued(now, dropped, sent, waiting);
    }

    /// Packet `uid` was lost on the link, with its report if it carried one.
    pub fn lost(&mut self, uid: u64) {
        self.reporter.carried_by(uid);
    }

    /// `pkt` reaches the far end at `now`: deliver it onwards or drop it.
    pub fn arrived(&mut self, now: Time, pkt: &Packet) -> Verdict {
        let report = self.reporter.carried_by(pkt.uid);
        self.far_end.arrived(now, pkt, report)
    }

    /// Record one trace row per report from now on.
    pub fn record_trace(&mut self) {
        self.far_end.record_trace();
    }

    pub fn summary(&self) -> BsrSummary {
        self.far_end.summary()
    }

    pub fn take_trace(&mut self) -> Option<BsrTrace> {
        self.far_end.take_trace()
    }
}
