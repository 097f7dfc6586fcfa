//! A block-level model of an emulated interactive user's RLC AM (the issue
//! allows it for the users not under test): SDUs wait in a tail-drop buffer
//! (our choice: 32 KB); each SDU is cut into 320-bit (40 B) transport
//! block payloads (*simplification*: an SDU starts a new block, no
//! concatenation, no RLC header); a TTI sends blocks lost before first
//! (retransmissions have priority, TS 25.322 §11.3.2), then new ones in
//! order. A lost block is sent again in the user's next TTI
//! (*simplification*: no status round trip); a block lost on its
//! `1 + max_retransmissions`-th transmission costs its SDU. SDUs leave in
//! sequence: a received SDU is delivered when every SDU before it is
//! delivered or lost (RLC AM in-sequence delivery).

use crate::time::Time;
use std::collections::VecDeque;

/// Payload bytes of a transport block.
pub const BLOCK_BYTES: u32 = 40;

#[derive(Clone, Copy, Debug)]
struct Sdu {
    arrived: Time,
    bytes: u32,
    /// Blocks not yet sent for the first time.
    unsent: u32,
    /// Blocks not yet received.
    missing: u32,
    lost: bool,
}

/// What became of SDUs in one TTI.
pub trait Fate {
    /// An SDU of `bytes` that arrived at `arrived` was delivered (`lost` = false) or lost.
    fn sdu(&mut self, arrived: Time, bytes: u32, lost: bool);
}

/// One user's RLC buffer.
#[derive(Clone, Debug, Default)]
pub struct BlockRlc {
    sdus: VecDeque<Sdu>,
    /// The sequence number of `sdus[0]`.
    base: u64,
    /// Blocks to send again: (SDU sequence number, transmissions so far).
    retx: VecDeque<(u64, u32)>,
    /// Blocks of the TTI on air: (SDU sequence number, transmissions so far including this one).
    on_air: Vec<(u64, u32)>,
    /// Bytes of the SDUs held (not yet delivered or lost).
    bytes: u64,
    /// Blocks waiting to be sent (new and again).
    pending: u64,
}

impl BlockRlc {
    /// An SDU of `bytes` arrives at `now`; false when it does not fit `limit` (tail drop).
    pub fn arrive(&mut self, now: Time, bytes: u32, limit: u64) -> bool {
        if self.bytes + bytes as u64 > limit {
            return false;
        }
        let blocks = bytes.div_ceil(BLOCK_BYTES);
        self.sdus.push_back(Sdu { arrived: now, bytes, unsent: blocks, missing: blocks, lost: false });
        self.bytes += bytes as u64;
        self.pending += blocks as u64;
        true
    }

    /// Bits waiting to be sent (the manager's buffer size), in whole blocks.
    pub fn pending_bits(&self) -> u64 {
        self.pending * BLOCK_BYTES as u64 * 8
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Puts up to `blocks` blocks on the air (lost ones first); returns how many.
    pub fn send(&mut self, blocks: u32) -> u32 {
        self.on_air.clear();
        while self.on_air.len() < blocks as usize {
            let Some((seq, tx)) = self.retx.pop_front() else { break };
            self.pending -= 1;
            if self.get(seq).is_some_and(|s| !s.lost) {
                self.on_air.push((seq, tx + 1));
            }
        }
        let mut i = 0;
        while self.on_air.len() < blocks as usize && i < self.sdus.len() {
            let s = &mut self.sdus[i];
            if s.unsent > 0 && !s.lost {
                s.unsent -= 1;
                self.pending -= 1;
                self.on_air.push((self.base + i as u64, 1));
            } else {
                i += 1;
            }
        }
        self.on_air.len() as u32
    }

    fn get(&mut self, seq: u64) -> Option<&mut Sdu> {
        let i = seq.checked_sub(self.base)?;
        self.sdus.get_mut(i as usize)
    }

    /// The TTI's blocks arrive at `now`, block `k` lost when `lost(k)`; an SDU
    /// whose block was sent `max_tx` times and lost is lost. Delivered and lost
    /// SDUs go to `fate`, in sequence.
    pub fn receive(&mut self, max_tx: u32, mut lost: impl FnMut(usize) -> bool, fate: &mut impl Fate) {
        for k in 0..self.on_air.len() {
            let (seq, tx) = self.on_air[k];
            if !lost(k) {
                if let Some(s) = self.get(seq) {
                    s.missing -= 1;
                }
            } else if tx >= max_tx {
                if let Some(s) = self.get(seq).filter(|s| !s.lost) {
                    s.lost = true;
                    let skipped = s.unsent as u64;
                    s.unsent = 0;
                    self.pending -= skipped;
                }
            } else {
                self.retx.push_back((seq, tx));
                self.pending += 1;
            }
        }
        while let Some(s) = self.sdus.front().filter(|s| s.lost || s.missing == 0) {
            fate.sdu(s.arrived, s.bytes, s.lost);
            self.bytes -= s.bytes as u64;
            self.sdus.pop_front();
            self.base += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[derive(Default)]
    struct Log(Vec<(u32, bool)>);
    impl Fate for Log {
        fn sdu(&mut self, _: Time, bytes: u32, lost: bool) {
            self.0.push((bytes, lost));
        }
    }

    #[test]
    fn tail_drop_at_the_limit() {
        let mut r = BlockRlc::default();
        assert!(r.arrive(Time::ZERO, 570, 1000));
        assert!(!r.arrive(Time::ZERO, 570, 1000));
        assert!(r.arrive(Time::ZERO, 430, 1000));
        // 570 B = 15 blocks, 430 B = 11 blocks.
        assert_eq!((r.bytes(), r.pending_bits()), (1000, 26 * 320));
    }

    /// Two SDUs (3 + 2 blocks). TTI 1 sends 4 blocks, the second lost: SDU 1
    /// waits; TTI 2 sends the lost block first, then SDU 2's last: both delivered in order.
    #[test]
    fn retransmissions_first_and_in_sequence_delivery() {
        let mut r = BlockRlc::default();
        r.arrive(Time::ZERO, 120, u64::MAX);
        r.arrive(Time::ZERO + Dur::from_millis(1), 80, u64::MAX);
        let mut log = Log::default();
        assert_eq!(r.send(4), 4);
        r.receive(5, |k| k == 1, &mut log);
        assert!(log.0.is_empty());
        assert_eq!(r.pending_bits(), 2 * 320);
        assert_eq!(r.send(16), 2);
        r.receive(5, |_| false, &mut log);
        assert_eq!(log.0, [(120, false), (80, false)]);
        assert_eq!((r.bytes(), r.pending_bits()), (0, 0));
    }

    /// With at most 4 retransmissions, a block lost 5 times costs its SDU
    /// (and its unsent blocks are not sent); the next SDU goes on.
    #[test]
    fn the_fifth_loss_of_a_block_loses_the_sdu() {
        let mut r = BlockRlc::default();
        r.arrive(Time::ZERO, 80, u64::MAX); // 2 blocks
        r.arrive(Time::ZERO, 40, u64::MAX); // 1 block
        let mut log = Log::default();
        assert_eq!(r.send(1), 1); // SDU 0's first block
        r.receive(5, |_| true, &mut log);
        for _ in 0..4 {
            assert_eq!(r.send(1), 1); // the same block again
            r.receive(5, |_| true, &mut log);
        }
        assert_eq!(log.0, [(80, true)]);
        assert_eq!(r.pending_bits(), 320, "only SDU 1's block is left");
        assert_eq!(r.send(4), 1);
        r.receive(5, |_| false, &mut log);
        assert_eq!(log.0, [(80, true), (40, false)]);
    }
}
