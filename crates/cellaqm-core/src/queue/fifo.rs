//! The packet container most schemes share: a FIFO that keeps its byte
//! count. (The buffer limits are the wrapper's, [`super::Disc`].)

use crate::packet::Packet;
use crate::storage::ShrinkEmpty;
use std::collections::VecDeque;

/// A FIFO of packets that keeps its byte count.
#[derive(Debug, Default)]
pub struct Fifo {
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn push_back(&mut self, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
    }

    pub fn pop_front(&mut self) -> Option<Packet> {
        let pkt = self.packets.pop_front()?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    pub fn front(&self) -> Option<&Packet> {
        self.packets.front()
    }

    /// The `i`-th packet from the head, to mark it (its size must not change).
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Packet> {
        self.packets.get_mut(i)
    }

    /// Takes out the `i`-th packet from the head.
    pub fn remove(&mut self, i: usize) -> Option<Packet> {
        let pkt = self.packets.remove(i)?;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Gives back its storage if it holds no packet.
    pub fn shrink_empty(&mut self) {
        self.packets.shrink_empty();
    }

    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter()
    }
}
