//! Which users' RNC buffers hold data, and how many: a cell considers only
//! those each TTI and stops its TTIs when none do.

/// One flag per user and their count, kept together.
#[derive(Clone, Debug)]
pub struct Busy {
    flags: Vec<bool>,
    count: usize,
}

impl Busy {
    /// `users` users, none busy.
    pub fn new(users: usize) -> Busy {
        Busy { flags: vec![false; users], count: 0 }
    }

    /// Records whether user `u` is busy.
    pub fn set(&mut self, u: usize, busy: bool) {
        if self.flags[u] != busy {
            self.flags[u] = busy;
            if busy {
                self.count += 1;
            } else {
                self.count -= 1;
            }
        }
    }

    pub fn is(&self, u: usize) -> bool {
        self.flags[u]
    }

    /// Whether any user is busy.
    pub fn any(&self) -> bool {
        self.count > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_follows_the_flags() {
        let mut b = Busy::new(3);
        assert!(!b.any());
        b.set(1, true);
        b.set(1, true); // no change
        b.set(2, true);
        b.set(1, false);
        assert!(b.any() && b.is(2) && !b.is(1));
        b.set(2, false);
        assert!(!b.any());
    }
}
