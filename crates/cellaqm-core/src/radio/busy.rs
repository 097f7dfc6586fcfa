//! Which users' RNC buffers hold data, and how many: a cell considers only
//! those each TTI and stops its TTIs when none do.

/// One flag per user (a bit each) and their count, kept together.
#[derive(Clone, Debug)]
pub struct Busy {
    words: Vec<u64>,
    count: usize,
}

impl Busy {
    /// `users` users, none busy.
    pub fn new(users: usize) -> Busy {
        Busy { words: vec![0; users.div_ceil(64)], count: 0 }
    }

    /// Records whether user `u` is busy.
    pub fn set(&mut self, u: usize, busy: bool) {
        if self.is(u) != busy {
            self.words[u / 64] ^= 1 << (u % 64);
            if busy {
                self.count += 1;
            } else {
                self.count -= 1;
            }
        }
    }

    pub fn is(&self, u: usize) -> bool {
        self.words[u / 64] >> (u % 64) & 1 == 1
    }

    /// Whether any user is busy.
    pub fn any(&self) -> bool {
        self.count > 0
    }

    /// The busy users in increasing order (a word of 64 users at a time).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            std::iter::successors((bits != 0).then_some(bits), |&b| Some(b & (b - 1)).filter(|&b| b != 0))
                .map(move |b| w * 64 + b.trailing_zeros() as usize)
        })
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
        let mut b = Busy::new(200);
        [130, 3, 64, 199, 63].iter().for_each(|&u| b.set(u, true));
        assert_eq!(b.iter().collect::<Vec<_>>(), [3, 63, 64, 130, 199], "in increasing order");
    }
}
