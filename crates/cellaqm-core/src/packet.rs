//! IP packets as they cross the simulated network.
//!
//! A [`Packet`] is a value: links, queues and endpoints move it by value, many
//! times per hop, so it is kept to 96 bytes (checked below): at 144 bytes the
//! copies took a third of the run time. Its
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

impl Dir {
    /// `"down"` or `"up"`, as reports and traces name it.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Down => "down",
            Dir::Up => "up",
        }
    }
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

/// Up to three SACK blocks (RFC 2018) of an ACK, each `[start, end)` in
/// sequence space above the ACK's cumulative acknowledgement. As on the wire,
/// the edges take 32 bits: they are stored as offsets from the ACK number
/// (an unused slot is `(0, 0)`; a block never starts at the ACK number itself).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks([(u32, u32); 3]);

impl SackBlocks {
    /// The blocks, first reported first, for an ACK of `ack`.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().take_while(|&&(_, end)| end > 0).map(move |&(start, end)| (ack + start as u64, ack + end as u64))
    }
    /// Appends `[start, end)` (above `ack`) if a slot is free.
    pub fn push(&mut self, ack: u64, (start, end): (u64, u64)) {
        debug_assert!(ack < start && start < end, "a SACK block [{start}, {end}) not above the ACK {ack}");
        let offset = |seq: u64| u32::try_from(seq - ack).expect("a SACK block within 4 GiB of the ACK");
        if let Some(slot) = self.0.iter_mut().find(|slot| slot.1 == 0) {
            *slot = (offset(start), offset(end));
        }
    }
    pub fn len(&self) -> usize {
        self.0.iter().take_while(|&&(_, end)| end > 0).count()
    }
    pub fn is_empty(&self) -> bool {
        self.0[0].1 == 0
    }
}

/// The TCP header fields the model uses, with the widths they have on the wire
/// where that keeps the packet small (it is copied at every hop): sequence
/// numbers alone are 64-bit, so that they never wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Sequence number of the first byte (of the SYN/FIN if flagged).
    pub seq: u64,
    /// Cumulative acknowledgement: next byte expected (valid with `flags::ACK`).
    pub ack: u64,
    /// Advertised receive window in bytes (RFC 7323 scaling allows up to 1 GiB).
    pub wnd: u32,
    /// Timestamp value (RFC 7323): the sender's 32-bit timestamp clock, in
    /// microseconds ([`ts_clock`]); 0 when the option is off.
    pub ts_val: u32,
    /// Timestamp echo reply.
    pub ts_ecr: u32,
    /// Payload bytes (an IP packet holds at most 65 535).
    pub len: u16,
    /// `flags::*` bits.
    pub flags: u8,
    /// SACK blocks (RFC 2018), relative to `ack`; see [`TcpHeader::sack_blocks`].
    pub sack: SackBlocks,
}

/// The RFC 7323 timestamp clock at `now`: microseconds, 32 bits, wrapping
/// (after 71.6 minutes; differences are taken with wrapping arithmetic).
pub fn ts_clock(now: Time) -> u32 {
    (now.0 / 1_000) as u32
}

impl TcpHeader {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    /// The SACK blocks, first reported first, as absolute sequence ranges.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack.iter(self.ack)
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
    pub tcp: TcpHeader,
}

// The size the hot path was measured with; a larger packet is copied through libc's memmove.
const _: () = assert!(std::mem::size_of::<Packet>() <= 96);

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
            tcp,
        }
    }

    /// A UDP packet of `size` bytes on the wire carrying `payload` application bytes.
    pub fn udp(flow: FlowId, dir: Dir, size: u32, payload: u16) -> Packet {
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
