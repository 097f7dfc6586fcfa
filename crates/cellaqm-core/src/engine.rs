//! The deterministic event queue at the heart of every run.
//!
//! Events are ordered by time; events at the same time come out in the order
//! they were scheduled (FIFO), by a sequence number given at insertion. There
//! is no cancellation: a component that re-arms a timer checks, when the event
//! fires, whether it is still due (lazy cancellation).

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event with its sort key: time in the high 64 bits, insertion sequence
/// number in the low 64, so one integer comparison orders by (time, FIFO).
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn at(&self) -> Time {
        Time((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that the max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events of type `E`, earliest first, FIFO among equal times.
///
/// ```
/// use cellaqm_core::engine::EventQueue;
/// use cellaqm_core::time::Time;
/// let mut q = EventQueue::new();
/// q.schedule(Time(5), "b");
/// q.schedule(Time(1), "a");
/// q.schedule(Time(5), "c");
/// assert_eq!(q.pop(), Some((Time(1), "a")));
/// assert_eq!(q.pop(), Some((Time(5), "b")));
/// assert_eq!(q.pop(), Some((Time(5), "c")));
/// assert_eq!(q.pop(), None);
/// ```
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Schedules `event` at `at`. Scheduling in the past is a model bug.
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { key: (at.0 as u128) << 64 | seq as u128, event });
    }

    /// Removes the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.at();
        self.processed += 1;
        Some((self.now, e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(Entry::at)
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.schedule(Time(7), i);
        }
        q.schedule(Time(3), -1);
        assert_eq!(q.pop(), Some((Time(3), -1)));
        for i in 0..100 {
            assert_eq!(q.pop(), Some((Time(7), i)));
        }
        assert_eq!(q.processed(), 101);
        assert_eq!(q.now(), Time(7));
    }
}
