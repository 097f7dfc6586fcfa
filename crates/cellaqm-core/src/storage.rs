//! Giving back a container's storage once it holds nothing: a user's bearer
//! between sessions keeps its counters and histograms, not the room its
//! buffers, windows and lists grew to in its last session (memory flat in
//! simulated time however many users a run reaches).

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

/// A container that gives back its storage when it holds nothing.
pub trait ShrinkEmpty {
    /// Gives back its storage if it holds nothing.
    fn shrink_empty(&mut self);
}

impl<T> ShrinkEmpty for Vec<T> {
    fn shrink_empty(&mut self) {
        if self.is_empty() {
            self.shrink_to_fit();
        }
    }
}

impl<T> ShrinkEmpty for VecDeque<T> {
    fn shrink_empty(&mut self) {
        if self.is_empty() {
            self.shrink_to_fit();
        }
    }
}

impl<T: Eq + Hash, S: BuildHasher> ShrinkEmpty for HashSet<T, S> {
    fn shrink_empty(&mut self) {
        if self.is_empty() {
            self.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_empty_container_gives_back_its_storage() {
        let mut v: Vec<u64> = Vec::with_capacity(64);
        v.push(1);
        v.shrink_empty();
        assert!(v.capacity() >= 64, "it holds a value: kept");
        v.clear();
        v.shrink_empty();
        assert_eq!(v.capacity(), 0);
        let mut d: VecDeque<u64> = VecDeque::with_capacity(64);
        d.shrink_empty();
        assert_eq!(d.capacity(), 0);
    }
}
