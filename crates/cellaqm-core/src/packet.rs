//! IP packets as they cross the simulated network.
//!
//! A [`Packet`] is a value: links, queues and endpoints move it by value. Its
//! `size` is the IP packet size on the wire (payload + header overhead); the
//! TCP fields say what it carries. Sequence numbers are 64-bit byte offsets
//! that never wrap (ISN 0; the SYN takes sequence number 0, data starts at 1).

use crate::time::Time;

/// Identifies a transport connection (a flow) within a run.
pub type FlowId = u32;

/// Direction through the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Server → client (downlink in the cellular studies).
    Down,
    /// Client → server (uplink).
    Up,
}

/// The transport protocol a packet carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Transport {
    #[default]
    Tcp,
    /// A UDP datagram (or fragment): `tcp.len` holds its payload bytes, the other TCP fields are unused.
    Udp,
}

/// ECN codepoint in the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    /// Congestion experienced: set by a queue discipline instead of a drop.
    Ce,
}

/// TCP header flag bits.
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
    /// ECN-Echo (RFC 3168): the receiver saw CE.
    pub const ECE: u8 = 8;
    /// Congestion Window Reduced (RFC 3168): the sender reacted to ECE.
    pub const CWR: u8 = 16;
}

/// Up to three SACK blocks (RFC 2018), each `[start, end)` in sequence space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub len: u8,
    pub blocks: [(u64, u64); 3],
}

impl SackBlocks {
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.len as usize].iter().copied()
    }
    pub fn push(&mut self, block: (u64, u64)) {
        if (self.len as usize) < self.blocks.len() {
            self.blocks[self.len as usize] = block;
            self.len += 1;
        }
    }
}

/// The TCP header fields the model uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first byte (of the SYN/FIN if flagged).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Cumulative acknowledgement: next byte expected (valid with `flags::ACK`).
    pub ack: u64,
    /// `flags::*` bits.
    pub flags: u8,
    /// Advertised receive window in bytes.
    pub wnd: u64,
    /// Timestamp value (RFC 7323), nanoseconds; 0 when the option is off.
    pub ts_val: u64,
    /// Timestamp echo reply, nanoseconds.
    pub ts_ecr: u64,
    pub sack: SackBlocks,
}

impl TcpHeader {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    /// Sequence space the segment occupies: payload plus one for SYN and FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }
}

/// One IP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique within a run, given when the packet enters the network.
    pub uid: u64,
    pub flow: FlowId,
    pub dir: Dir,
    pub transport: Transport,
    /// IP packet size in bytes (payload + TCP/IP header overhead).
    pub size: u32,
    /// When the source IP layer sent it (for one-way delay).
    pub sent_at: Time,
    /// When it entered the queue it is in now (for sojourn-time schemes).
    pub enqueued_at: Time,
    pub ecn: Ecn,
    /// Set on TCP retransmissions (ground truth for spurious-retransmission counts).
    pub retransmission: bool,
    /// Set on the first segment a TCP sender retransmits after each retransmission timeout
    /// (ground truth for spurious-RTO counts: the receiver checks whether it was a duplicate).
    pub rto_retransmission: bool,
    /// Index of the next hop on its route (set by the network).
    pub hop: u8,
    pub tcp: TcpHeader,
}

impl Packet {
    /// A packet carrying `tcp`, of `size` bytes on the wire; the network fills in the rest.
    pub fn tcp(flow: FlowId, dir: Dir, size: u32, tcp: TcpHeader) -> Packet {
        Packet {
            uid: 0,
            flow,
            dir,
            transport: Transport::Tcp,
            size,
            sent_at: Time::ZERO,
            enqueued_at: Time::ZERO,
            ecn: Ecn::NotEct,
            retransmission: false,
            rto_retransmission: false,
            hop: 0,
            tcp,
        }
    }

    /// A UDP packet of `size` bytes on the wire carrying `payload` application bytes.
    pub fn udp(flow: FlowId, dir: Dir, size: u32, payload: u32) -> Packet {
        Packet {
            transport: Transport::Udp,
            ..Packet::tcp(flow, dir, size, TcpHeader { len: payload, ..TcpHeader::default() })
        }
    }

    /// A packet carrying application payload (as opposed to a pure ACK).
    pub fn is_data(&self) -> bool {
        self.tcp.len > 0
    }

    pub fn is_syn(&self) -> bool {
        self.tcp.has(flags::SYN)
    }
}
