//! A user's link in a TTI (its SIR, the SIR in dB and its bin in the cell's
//! SIR distribution, its format), remembered per set of interfering cells.
//!
//! The SIR depends on the user's path gains and serving cell, which change
//! only with a channel update, and on which other cells send in the TTI
//! (the user's own cell does not count). Cells go on and off the air from
//! TTI to TTI, so between two channel updates a user sees the same few sets
//! again and again: the memo gives back what the same inputs gave before
//! (the same value, computed once) instead of the logarithm and the format
//! again. Direct-mapped: a set has one slot (a hash of it), a slot holds the
//! last set computed there with the channel update it was for.

/// What follows from a user's SIR in one TTI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// The SIR, linear.
    pub sir: f64,
    pub sir_db: f64,
    /// Its bin in the cell's SIR distribution ([`super::sir_stats::SirStats::bin`]).
    pub bin: usize,
    /// The format (index into the table), `None` below the lowest threshold.
    pub mcs: Option<usize>,
}

impl Link {
    /// No SIR yet (a user not yet considered in any TTI).
    pub const NONE: Link = Link { sir: 0.0, sir_db: f64::NEG_INFINITY, bin: 0, mcs: None };
}

/// Slots per user (a power of two).
const SLOTS: usize = 16;

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The channel update and the interfering cells (bit c: cell c) the link was computed for.
    channel: u64,
    others: u64,
    link: Link,
}

/// One user's memo.
#[derive(Clone, Debug)]
pub struct SirMemo {
    slots: [Slot; SLOTS],
}

impl Default for SirMemo {
    fn default() -> Self {
        // (No channel update is numbered u64::MAX: every slot starts empty.)
        SirMemo { slots: [Slot { channel: u64::MAX, others: 0, link: Link::NONE }; SLOTS] }
    }
}

impl SirMemo {
    fn slot(others: u64) -> usize {
        (others.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// The link computed for channel update `channel` with `others` sending, if it is remembered.
    pub fn get(&self, channel: u64, others: u64) -> Option<Link> {
        let s = &self.slots[SirMemo::slot(others)];
        (s.channel == channel && s.others == others).then_some(s.link)
    }

    /// Remembers `link`, computed for channel update `channel` with `others` sending.
    pub fn put(&mut self, channel: u64, others: u64, link: Link) {
        self.slots[SirMemo::slot(others)] = Slot { channel, others, link };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_given_back_for_its_channel_update_and_interferers_only() {
        let mut m = SirMemo::default();
        let link = |sir: f64| Link { sir, sir_db: 10.0 * sir.log10(), bin: 7, mcs: Some(1) };
        assert_eq!(m.get(1, 0b110), None);
        m.put(1, 0b110, link(2.0));
        m.put(1, 0b010, link(3.0));
        assert_eq!(m.get(1, 0b110), Some(link(2.0)));
        assert_eq!(m.get(1, 0b010), Some(link(3.0)));
        assert_eq!(m.get(2, 0b110), None, "a new channel update");
        assert_eq!(m.get(1, 0b100), None, "another set of interferers");
        // Every set of six other cells has its own entry or none: never another set's.
        for others in 0..64u64 {
            m.put(3, others, link(others as f64));
        }
        let kept = (0..64u64).filter(|&o| m.get(3, o).is_some_and(|l| l.sir == o as f64)).count();
        assert!(kept >= SLOTS / 2 && (0..64u64).all(|o| m.get(3, o).is_none_or(|l| l.sir == o as f64)));
    }
}
