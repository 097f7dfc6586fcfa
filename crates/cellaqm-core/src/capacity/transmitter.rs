//! A link's transmitter: when a packet can start and when it has been sent.
//!
//! Calls come in time order. At a fixed rate a packet starts as soon as the
//! transmitter is free and takes size × 8 / rate; on a schedule it takes what
//! the steps it spans give ([`super::schedule`]); on a trace it starts at the
//! first delivery opportunity with bytes left and ends at the one that carries
//! its last byte ([`super::trace`]).

use super::trace::{Opportunities, OPPORTUNITY_BYTES};
use super::{LinkRate, Schedule};
use crate::time::{Dur, Time};

#[derive(Clone, Debug)]
pub enum Transmitter {
    Fixed {
        bps: f64,
        /// The serialisation time of the last packet size seen: most packets of a
        /// link have one of a few sizes, and the division is dearer than the test.
        last: (u32, Dur),
    },
    Steps(Schedule),
    Trace {
        opportunities: Opportunities,
        mean_bps: f64,
    },
}

impl Transmitter {
    /// The transmitter at `rate` in the run of `seed` (which draws where a
    /// trace starts with `offset = "random"`).
    pub fn new(rate: &LinkRate, seed: u64) -> Transmitter {
        match rate {
            LinkRate::Fixed(r) => Transmitter::Fixed { bps: r.bps(), last: (0, Dur::ZERO) },
            LinkRate::Steps(s) => Transmitter::Steps(s.clone()),
            LinkRate::Trace(t) => Transmitter::Trace {
                opportunities: Opportunities::new(t.trace().clone(), t.start(seed)),
                mean_bps: t.trace().mean_bps(),
            },
        }
    }

    /// The rate the link reports at `now` (see [`super`]): fixed, the step's, or the trace's mean.
    pub fn rate_at(&self, now: Time) -> f64 {
        match self {
            Transmitter::Fixed { bps, .. } => *bps,
            Transmitter::Steps(s) => s.rate_at(now),
            Transmitter::Trace { mean_bps, .. } => *mean_bps,
        }
    }

    /// The earliest time at or after `now` a transmission can start (a trace's
    /// next opportunity with bytes left; else `now`).
    pub fn ready(&mut self, now: Time) -> Time {
        match self {
            Transmitter::Trace { opportunities, .. } => opportunities.ready(now),
            _ => now,
        }
    }

    /// On a trace, the share of the bytes of the opportunities up to `now`
    /// that carried packets, of which `bytes_sent` have been sent: the
    /// link's utilisation (the time a packet spends spread over several
    /// opportunities is no measure of it). `None` on a rate or schedule,
    /// where the utilisation is the time spent transmitting.
    pub fn share_used(&self, now: Time, bytes_sent: u64) -> Option<f64> {
        match self {
            Transmitter::Trace { opportunities, .. } => {
                let offered = opportunities.until(now) * OPPORTUNITY_BYTES as u64;
                Some(bytes_sent as f64 / offered.max(1) as f64)
            }
            _ => None,
        }
    }

    /// When a packet of `size` bytes that starts at `start` (a time
    /// [`Transmitter::ready`] gave) has been sent.
    pub fn finish(&mut self, start: Time, size: u32) -> Time {
        match self {
            Transmitter::Fixed { bps, last } => {
                if last.0 != size {
                    *last = (size, Dur::transmission(size as u64, *bps));
                }
                start + last.1
            }
            Transmitter::Steps(s) => s.finish(start, size as u64),
            Transmitter::Trace { opportunities, .. } => opportunities.finish(start, size),
        }
    }
}
