//! The packet container most schemes share: a FIFO with byte and packet limits.

use crate::packet::Packet;
use std::collections::VecDeque;

/// Buffer limits; `None` means no limit of that kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub bytes: Option<u64>,
    pub packets: Option<u32>,
}

/// A FIFO of packets that keeps its byte count.
#[derive(Debug, Default)]
pub struct Fifo {
    packets: VecDeque<Packet>,
    bytes: u64,
    limits: Limits,
}

impl Fifo {
    pub fn new(limits: Limits) -> Fifo {
        Fifo { packets: VecDeque::new(), bytes: 0, limits }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether a packet of `size` bytes would exceed a limit.
    pub fn would_overflow(&self, size: u32) -> bool {
        self.limits.bytes.is_some_and(|b| self.bytes + size as u64 > b)
            || self.limits.packets.is_some_and(|p| self.packets.len() as u32 + 1 > p)
    }

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

    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter()
    }
}
