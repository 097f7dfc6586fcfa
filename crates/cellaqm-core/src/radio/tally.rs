//! The backlog of one or more buffers over time: its integrals (byte·ns,
//! packet·ns) and how long each backlog was held ([`Occupancy`]). The radio
//! access network keeps one over all its managed buffers (the run's
//! `bottleneck`, or with the LTE uplink its `uplink`), and the LTE uplink one
//! per UE.

use crate::metrics::Occupancy;
use crate::time::Time;

/// A backlog over time.
#[derive(Debug, Default)]
pub struct Tally {
    pub bytes: u64,
    pub packets: u64,
    pub byte_ns: u128,
    pub packet_ns: u128,
    pub occupancy: Occupancy,
    last: Time,
}

impl Tally {
    /// One user's buffer: its backlogs within 1% ([`Occupancy::per_user`]).
    pub fn per_user() -> Tally {
        Tally { occupancy: Occupancy::per_user(), ..Tally::default() }
    }

    /// Holds the current backlog up to `now`.
    pub fn hold(&mut self, now: Time) {
        let dt = now.since(self.last).0;
        self.byte_ns += self.bytes as u128 * dt as u128;
        self.packet_ns += self.packets as u128 * dt as u128;
        self.occupancy.hold(self.bytes, self.packets, dt);
        self.last = now;
    }

    /// One buffer went from `before` to `after` (bytes, packets).
    pub fn change(&mut self, before: (u64, u64), after: (u64, u64)) {
        self.bytes = self.bytes + after.0 - before.0;
        self.packets = self.packets + after.1 - before.1;
    }
}
