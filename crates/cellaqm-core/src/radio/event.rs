//! The radio's event vocabulary, and what every call of a radio produces
//! ([`RadioOut`]), one type for every system.
//!
//! A radio is passive, like [`crate::link::Link`]: the network hands it
//! packets and due events and gets back delivered packets, drops and the
//! events to schedule. Each event kind has at most one live instance (per
//! user for a user's events); an ask for an earlier one supersedes it, and a
//! superseded event is ignored when it fires ([`super::pending`]).

use crate::packet::Packet;
use crate::queue::Dropped;
use crate::time::Time;

/// An event of the radio access network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// The radio's TTI: HSDPA's HS-DSCH TTI, the HS-DSCH system's (every
    /// cell's), the DSCH system's 10 ms frame, the LTE uplink's TTI boundary.
    Tti,
    /// HSDPA's Iub flow-control (credit) instant.
    FlowControl,
    /// HSDPA: frames reach the Node-B's buffer of user `u`.
    Iub(u16),
    /// User `u`'s event.
    Ue(u16, UeEvent),
}

/// The events of one user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UeEvent {
    /// A TTI of the user's own DCH downlink starts.
    DownTti = 0,
    /// Downlink PDUs (or, on the LTE uplink's downlink, packets) reach the UE.
    DownArrive = 1,
    /// An uplink DCH TTI starts.
    UpTti = 2,
    /// Uplink PDUs reach the RNC.
    UpArrive = 3,
    /// An RLC or PDCP timer.
    Timer = 4,
}

/// The number of [`UeEvent`] kinds.
pub const UE_EVENTS: usize = 5;

/// What one call produced.
#[derive(Debug, Default)]
pub struct RadioOut {
    /// Downlink packets delivered to the UEs' IP layers.
    pub to_ue: Vec<Packet>,
    /// Uplink packets delivered towards the core network.
    pub to_core: Vec<Packet>,
    /// Packets dropped (a buffer's discipline or overflow, RLC discard after MaxDAT as `LinkLoss`, R-AQM).
    pub dropped: Vec<Dropped>,
    /// Events to schedule.
    pub schedule: Vec<(Time, RadioEvent)>,
}
