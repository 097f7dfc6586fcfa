//! PDUs or packets on their way (an air interface, a DCH's delay, an Iub
//! line, the unmanaged return path of an LTE bearer): each with its arrival
//! time, in arrival order.

use crate::packet::Packet;
use crate::rlc::Pdu;
use crate::storage::ShrinkEmpty;
use crate::time::Time;
use std::collections::VecDeque;

/// A delay line of PDUs (or packets), arrival times non-decreasing.
#[derive(Clone, Debug)]
pub struct AirLine<T = Pdu>(VecDeque<(Time, T)>);

impl<T> Default for AirLine<T> {
    fn default() -> Self {
        AirLine(VecDeque::new())
    }
}

impl<T> AirLine<T> {
    /// Sends `pdu` to arrive at `at` (not before the last one sent). Returns
    /// whether the line was empty: the caller then asks for the arrival event at `at`.
    pub fn push(&mut self, at: Time, pdu: T) -> bool {
        let was_empty = self.0.is_empty();
        self.0.push_back((at, pdu));
        was_empty
    }

    /// When the last PDU sent arrives.
    pub fn last(&self) -> Option<Time> {
        self.0.back().map(|&(at, _)| at)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Moves the PDUs due by `now` to `out`; returns when the next one arrives.
    pub fn arrivals(&mut self, now: Time, out: &mut impl Extend<T>) -> Option<Time> {
        self.deliver(now, |pdu| out.extend(Some(pdu)))
    }

    /// Hands the PDUs due by `now` to `take`, in arrival order; returns when
    /// the next one arrives. (A receiver takes them where they lie, without
    /// copying them to a list first.)
    pub fn deliver(&mut self, now: Time, mut take: impl FnMut(T)) -> Option<Time> {
        while let Some((at, _)) = self.0.front() {
            if *at > now {
                return Some(*at);
            }
            let (_, pdu) = self.0.pop_front().expect("checked");
            take(pdu);
        }
        None
    }

    /// Gives back its storage if no PDU is on its way.
    pub fn shrink_empty(&mut self) {
        self.0.shrink_empty();
    }

    /// The PDUs on their way.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.0.iter().map(|(_, p)| p)
    }
}

impl AirLine<Packet> {
    /// Bytes on their way.
    pub fn bytes(&self) -> u64 {
        self.iter().map(|p| p.size as u64).sum()
    }
}
