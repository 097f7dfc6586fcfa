//! The deterministic event queue at the heart of every run.
//!
//! Events are ordered by time; events at the same time come out in the order
//! they were scheduled (FIFO), by a sequence number given at insertion. There
//! is no cancellation: a component that re-arms a timer checks, when the event
//! fires, whether it is still due (lazy cancellation).
//!
//! Most events schedule another as they are handled (a packet's arrival, the
//! next transmission, a re-armed timer). So a popped event stays at the top of
//! the heap until the next call: a `schedule` then overwrites it and restores
//! the heap with one sift down, instead of a removal and an insertion.
//!
//! The heap is written out rather than `std`'s `BinaryHeap`, to choose the
//! smaller child without a branch: which child it is goes either way at
//! random, and the mispredicted branch cost 1.5–6.5% of a run (validation rows
//! at 64 kb/s to 50 Mb/s, alternating builds; a four-ary heap was 6–8% slower).

use crate::time::Time;

/// An event with its sort key: time in the high 64 bits, insertion sequence
/// number in the low 64, so one integer comparison orders by (time, FIFO).
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn at(&self) -> Time {
        Time((self.key >> 64) as u64)
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
    /// A binary min-heap on `key`.
    heap: Vec<Entry<E>>,
    /// The top of the heap is the event popped last, still to be removed.
    popped: bool,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: Vec::with_capacity(1024), popped: false, next_seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Schedules `event` at `at`. Scheduling in the past is a model bug.
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at:?} < {:?}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry { key: (at.0 as u128) << 64 | seq as u128, event };
        if std::mem::take(&mut self.popped) {
            self.sift_down(0, entry);
            return;
        }
        self.sift_up(entry);
    }

    /// Puts `entry` in the hole at `pos`, moving it down past smaller children.
    /// The smaller child is chosen without a branch: which one it is, is a coin toss.
    fn sift_down(&mut self, mut pos: usize, entry: Entry<E>) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        loop {
            let mut child = 2 * pos + 1;
            if child >= n {
                break;
            }
            if child + 1 < n {
                child += (heap[child + 1].key < heap[child].key) as usize;
            }
            if entry.key <= heap[child].key {
                break;
            }
            heap[pos] = heap[child];
            pos = child;
        }
        heap[pos] = entry;
    }

    /// Appends `entry` and moves it up past larger parents.
    fn sift_up(&mut self, entry: Entry<E>) {
        let mut pos = self.heap.len();
        self.heap.push(entry);
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[pos] = self.heap[parent];
            pos = parent;
        }
        self.heap[pos] = entry;
    }

    /// Removes the event popped last from the heap, if still there.
    fn remove_popped(&mut self) {
        if std::mem::take(&mut self.popped) {
            let last = self.heap.pop().expect("the popped event is in the heap");
            if !self.heap.is_empty() {
                self.sift_down(0, last);
            }
        }
    }

    /// Removes the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time(u64::MAX))
    }

    /// Removes the earliest event if it is due by `end`, and advances the clock to its time.
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, E)> {
        self.remove_popped();
        let e = self.heap.first().filter(|e| e.at() <= end)?;
        self.now = e.at();
        self.processed += 1;
        self.popped = true;
        Some((self.now, e.event))
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
        self.heap.len() - self.popped as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    #[test]
    fn an_event_scheduled_while_handling_one_takes_its_place_in_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), 'a');
        q.schedule(Time(5), 'b');
        q.schedule(Time(9), 'z');
        assert_eq!(q.pop(), Some((Time(5), 'a')));
        assert_eq!(q.len(), 2);
        q.schedule(Time(5), 'c'); // overwrites 'a' at the top of the heap
        q.schedule(Time(6), 'd');
        assert_eq!(q.len(), 4);
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ['b', 'c', 'd', 'z']);
        assert!(q.is_empty());
    }

    proptest::proptest! {
        /// Any interleaving of schedules and pops gives the events in (time, insertion) order.
        #[test]
        fn pops_in_time_then_insertion_order(ops in proptest::collection::vec(proptest::option::of(0u64..20), 1..200)) {
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeMap::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(dt) => {
                        let at = Time(q.now().0 + dt);
                        q.schedule(at, i);
                        reference.insert((at, i), i);
                    }
                    None => {
                        let want = reference.pop_first().map(|((at, _), e)| (at, e));
                        proptest::prop_assert_eq!(q.pop(), want);
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            let want: Vec<_> = reference.into_iter().map(|((at, _), e)| (at, e)).collect();
            proptest::prop_assert_eq!(rest, want);
        }
    }
}
