//! A simulated packet as the bytes a capture shows: Ethernet II, IPv4, and
//! the TCP or UDP header, with the packet's real fields (RFC 791, RFC 9293,
//! RFC 768), built and checksummed by `etherparse`.
//!
//! - Addresses: the server is 10.0.0.1; user `u` is 10.1.0.0 + u + 1 as a
//!   32-bit address (10.1.0.1 for user 0, 10.1.1.0 for user 255). MACs are
//!   locally administered, `02:00` and the IPv4 address.
//! - Ports: the server's is 80 (TCP) or 9 (UDP); the client's
//!   1024 + flow mod 64 512, so each flow of a user is its own connection.
//! - IPv4: identification = the packet's uid mod 2^16 (the same packet has
//!   the same one at every tap, and it matches `packets.parquet`'s `uid`);
//!   the ECN field is the packet's codepoint (RFC 3168: ECT(0) for ECT, CE);
//!   TTL 64; DF on TCP.
//! - TCP: sequence and ACK numbers are the model's (ISN 0) modulo 2^32; the
//!   flags SYN, FIN, ACK, ECE, CWR; options as Linux lays them out: in a SYN,
//!   MSS (`tcp.mss`), SACK-permitted (with `tcp.recovery = "sack"`),
//!   timestamps (with `tcp.timestamps`) and the window scale; in other
//!   segments timestamps and up to three SACK blocks (RFC 2018, RFC 7323).
//!   The window scale of each direction of a flow is the smallest shift that
//!   fits the largest window it advertised into 16 bits (RFC 7323 §2.2); a
//!   SYN's window is not scaled (RFC 7323 §2.2), larger ones are capped at 65 535.
//! - Length: the IP total length counts the headers written here and the
//!   payload (`tcp.len`), so a tool finds the segment length the sender
//!   used. The payload is not captured (the frame is cut after the headers,
//!   as `tcpdump -s` does); checksums are computed as if it were zeros.
//!   The model's own header overhead (`tcp.header`, 40 or 60 bytes) is what
//!   links carry; these headers can differ from it by the options' size.

use crate::metrics::FlowSummary;
use crate::packet::{flags, Dir, Ecn, FlowId, Packet, Transport};
use crate::tcp::TcpConfig;
use etherparse::{EtherType, Ethernet2Header, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};

/// The server's IPv4 address.
pub const SERVER: [u8; 4] = [10, 0, 0, 1];
/// The server's TCP and UDP ports.
const SERVER_TCP_PORT: u16 = 80;
const SERVER_UDP_PORT: u16 = 9;
/// The first client port (the IANA registered range starts here).
const FIRST_CLIENT_PORT: u16 = 1024;
/// Longest payload: an IPv4 packet's total length is 16 bits.
static ZEROS: [u8; 65_535] = [0; 65_535];

/// Who each flow's client is.
#[derive(Clone, Debug)]
pub struct Addressing {
    users: Vec<u32>,
}

impl Addressing {
    pub fn new(flows: &[FlowSummary]) -> Addressing {
        let mut users = vec![0; flows.iter().map(|f| f.flow as usize + 1).max().unwrap_or(0)];
        for f in flows {
            users[f.flow as usize] = f.user;
        }
        Addressing { users }
    }

    /// User `u`'s address: 10.1.0.0 + u + 1.
    pub fn user_address(user: u32) -> [u8; 4] {
        (u32::from_be_bytes([10, 1, 0, 0]) + user + 1).to_be_bytes()
    }

    /// The client's port of `flow`.
    pub fn client_port(flow: FlowId) -> u16 {
        FIRST_CLIENT_PORT + (flow % (u16::MAX - FIRST_CLIENT_PORT + 1) as u32) as u16
    }

    fn client(&self, flow: FlowId) -> [u8; 4] {
        Addressing::user_address(self.users.get(flow as usize).copied().unwrap_or(0))
    }
}

/// Builds the frames of a run's packets.
#[derive(Clone, Debug)]
pub struct Frames {
    addressing: Addressing,
    mss: u16,
    sack: bool,
    timestamps: bool,
    /// Window scale by flow and direction.
    shift: Vec<[u8; 2]>,
}

fn mac(ip: [u8; 4]) -> [u8; 6] {
    [2, 0, ip[0], ip[1], ip[2], ip[3]]
}

/// The smallest shift that fits `window` into 16 bits (at most 14, RFC 7323 §2.3).
pub fn window_shift(window: u32) -> u8 {
    (0..14).find(|&s| window >> s <= u16::MAX as u32).unwrap_or(14)
}

impl Frames {
    /// Frames for the packets `seen` (all of them: each direction of a flow
    /// gets the window scale of the largest window it advertises in them).
    pub fn new<'a>(addressing: Addressing, tcp: &TcpConfig, seen: impl Iterator<Item = &'a Packet>) -> Frames {
        let mut largest: Vec<[u32; 2]> = Vec::new();
        for p in seen.filter(|p| p.transport == Transport::Tcp) {
            let f = p.flow as usize;
            if largest.len() <= f {
                largest.resize(f + 1, [0; 2]);
            }
            largest[f][p.dir as usize] = largest[f][p.dir as usize].max(p.tcp.wnd);
        }
        Frames {
            addressing,
            mss: u16::try_from(tcp.mss.0).unwrap_or(u16::MAX),
            sack: tcp.recovery.uses_sack(),
            timestamps: tcp.timestamps,
            shift: largest.into_iter().map(|w| w.map(window_shift)).collect(),
        }
    }

    /// Appends `pkt`'s frame, headers only, to `out`; returns its length on
    /// the wire (headers and payload).
    pub fn frame(&self, pkt: &Packet, out: &mut Vec<u8>) -> u32 {
        let (client, client_port) = (self.addressing.client(pkt.flow), Addressing::client_port(pkt.flow));
        let server_port = if pkt.transport == Transport::Tcp { SERVER_TCP_PORT } else { SERVER_UDP_PORT };
        let ((src, sport), (dst, dport)) = match pkt.dir {
            Dir::Down => ((SERVER, server_port), (client, client_port)),
            Dir::Up => ((client, client_port), (SERVER, server_port)),
        };
        let payload = &ZEROS[..pkt.tcp.len as usize];
        let ip = |header: usize, protocol: IpNumber| {
            let mut ip = Ipv4Header::new((header + payload.len()) as u16, 64, protocol, src, dst)
                .expect("headers and payload fit in an IP packet");
            ip.identification = pkt.uid as u16;
            ip.dont_fragment = protocol == IpNumber::TCP;
            ip.ecn = match pkt.ecn {
                Ecn::NotEct => IpEcn::NotEct,
                Ecn::Ect => IpEcn::Ect0,
                Ecn::Ce => IpEcn::CongestionExperienced,
            };
            ip.header_checksum = ip.calc_header_checksum();
            ip
        };
        let ethernet = |out: &mut Vec<u8>, ip: &Ipv4Header| {
            let eth = Ethernet2Header { source: mac(src), destination: mac(dst), ether_type: EtherType::IPV4 };
            out.extend_from_slice(&eth.to_bytes());
            out.extend_from_slice(&ip.to_bytes());
            (Ethernet2Header::LEN + ip.total_len as usize) as u32
        };
        match pkt.transport {
            Transport::Tcp => {
                let mut tcp = self.tcp_header(pkt, sport, dport);
                let ip = ip(tcp.header_len(), IpNumber::TCP);
                tcp.checksum = tcp.calc_checksum_ipv4(&ip, payload).expect("a payload fits in an IP packet");
                let len = ethernet(out, &ip);
                out.extend_from_slice(&tcp.to_bytes());
                len
            }
            Transport::Udp => {
                let ip = ip(UdpHeader::LEN, IpNumber::UDP);
                let udp = UdpHeader::with_ipv4_checksum(sport, dport, &ip, payload).expect("a payload fits");
                let len = ethernet(out, &ip);
                out.extend_from_slice(&udp.to_bytes());
                len
            }
        }
    }

    fn tcp_header(&self, pkt: &Packet, sport: u16, dport: u16) -> TcpHeader {
        let t = &pkt.tcp;
        let shift = self.shift.get(pkt.flow as usize).map_or(0, |s| s[pkt.dir as usize]);
        let window = if t.has(flags::SYN) { t.wnd.min(u16::MAX as u32) } else { t.wnd >> shift };
        let mut h = TcpHeader::new(sport, dport, t.seq as u32, window as u16);
        h.acknowledgment_number = if t.has(flags::ACK) { t.ack as u32 } else { 0 };
        h.syn = t.has(flags::SYN);
        h.ack = t.has(flags::ACK);
        h.fin = t.has(flags::FIN);
        h.ece = t.has(flags::ECE);
        h.cwr = t.has(flags::CWR);
        h.psh = t.len > 0;
        let mut options = Vec::with_capacity(8);
        let timestamp = TcpOptionElement::Timestamp(t.ts_val, t.ts_ecr);
        if t.has(flags::SYN) {
            options.push(TcpOptionElement::MaximumSegmentSize(self.mss));
            if self.sack {
                options.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
            }
            if self.timestamps {
                options.push(timestamp);
            }
            options.push(TcpOptionElement::Noop);
            options.push(TcpOptionElement::WindowScale(shift));
        } else {
            if self.timestamps {
                options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop, timestamp]);
            }
            let mut blocks = t.sack_blocks().map(|(start, end)| (start as u32, end as u32));
            if let Some(first) = blocks.next() {
                let rest = [blocks.next(), blocks.next(), None];
                options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop]);
                options.push(TcpOptionElement::SelectiveAcknowledgement(first, rest));
            }
        }
        h.set_options(&options).expect("the options fit in 40 bytes");
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{SackBlocks, TcpHeader as Hdr};
    use crate::tcp::Recovery;
    use crate::units::Bytes;

    /// RFC 1071: the one's-complement sum of a correctly checksummed span is 0xffff.
    fn ones_sum(words: &[u8]) -> u16 {
        let mut sum: u32 = words.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum as u16
    }

    fn frames(tcp: &TcpConfig, pkts: &[Packet]) -> Frames {
        let flows = [FlowSummary { flow: 0, user: 3, ..FlowSummary::default() }];
        Frames::new(Addressing::new(&flows), tcp, pkts.iter())
    }

    #[test]
    fn addresses_and_ports() {
        assert_eq!(Addressing::user_address(0), [10, 1, 0, 1]);
        assert_eq!(Addressing::user_address(254), [10, 1, 0, 255]);
        assert_eq!(Addressing::user_address(255), [10, 1, 1, 0]);
        assert_eq!(Addressing::client_port(0), 1024);
        assert_eq!(Addressing::client_port(64_511), 65_535);
        assert_eq!(Addressing::client_port(64_512), 1024);
    }

    #[test]
    fn window_shift_is_the_smallest_that_fits() {
        assert_eq!(window_shift(65_535), 0);
        assert_eq!(window_shift(65_536), 1);
        assert_eq!(window_shift(262_143), 2); // floor(262 143 / 4) = 65 535
        assert_eq!(window_shift(262_144), 3);
        assert_eq!(window_shift(1 << 30), 14);
    }

    #[test]
    fn a_data_segment_carries_the_packets_fields() {
        let tcp = TcpConfig { timestamps: true, ..TcpConfig::default() };
        let mut pkt = Packet::tcp(
            0,
            Dir::Down,
            1500,
            Hdr {
                seq: (1 << 32) + 1001,
                ack: 1,
                wnd: 131_072,
                ts_val: 7,
                ts_ecr: 5,
                len: 1448,
                flags: flags::ACK,
                ..Hdr::default()
            },
        );
        pkt.uid = 65_536 + 42;
        pkt.ecn = Ecn::Ce;
        let mut out = Vec::new();
        let wire = frames(&tcp, &[pkt]).frame(&pkt, &mut out);
        // Ethernet 14 + IPv4 20 + TCP 20 + NOP NOP timestamps 12; the payload is not captured.
        assert_eq!(out.len(), 66);
        assert_eq!(wire, 66 + 1448);
        let (eth, ip, tcp) = (&out[..14], &out[14..34], &out[34..]);
        assert_eq!(&eth[..6], &[2, 0, 10, 1, 0, 4]); // to user 3
        assert_eq!(&eth[12..], &[0x08, 0x00]);
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[1] & 3, 3, "CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 32 + 1448);
        assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 42, "uid mod 2^16");
        assert_eq!((ip[9], &ip[12..16], &ip[16..20]), (6, &[10, 0, 0, 1][..], &[10, 1, 0, 4][..]));
        assert_eq!(ones_sum(ip), 0xffff, "IPv4 header checksum");
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), 80);
        assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), 1024);
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 1001, "seq mod 2^32");
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 1);
        assert_eq!(tcp[12] >> 4, 8, "data offset: 32 bytes");
        assert_eq!(tcp[13], 0x18, "PSH ACK");
        assert_eq!(u16::from_be_bytes([tcp[14], tcp[15]]), 32_768, "131 072 scaled by 2 bits");
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(tcp[24..28].try_into().unwrap()), 7);
        assert_eq!(u32::from_be_bytes(tcp[28..32].try_into().unwrap()), 5);
        // TCP checksum over the pseudo-header, the header and 1448 zero bytes.
        let mut pseudo = [&ip[12..20], &[0, 6], &(32u16 + 1448).to_be_bytes()[..]].concat();
        pseudo.extend_from_slice(tcp);
        assert_eq!(ones_sum(&pseudo), 0xffff, "TCP checksum");
    }

    #[test]
    fn syn_and_sack_options() {
        let tcp = TcpConfig { recovery: Recovery::Sack, mss: Bytes(1460), ..TcpConfig::default() };
        let syn = Packet::tcp(0, Dir::Up, 40, Hdr { wnd: 65_535, flags: flags::SYN, ..Hdr::default() });
        let mut sack = SackBlocks::default();
        sack.push(1, (2921, 4381));
        sack.push(1, (5841, 7301));
        let ack = Packet::tcp(
            0,
            Dir::Up,
            40,
            Hdr { ack: 1, wnd: 65_535, flags: flags::ACK | flags::ECE, sack, ..Hdr::default() },
        );
        let f = frames(&tcp, &[syn, ack]);
        let mut out = Vec::new();
        f.frame(&syn, &mut out);
        let t = &out[34..];
        assert_eq!(t[13], 0x02, "SYN");
        // MSS 1460, SACK permitted, NOP, window scale 0, padding to 32 bits.
        assert_eq!(&t[20..], &[2, 4, 0x05, 0xb4, 4, 2, 1, 3, 3, 0, 0, 0]);
        assert_eq!(&t[..2], &[0x04, 0x00], "from the client's port 1024");
        out.clear();
        f.frame(&ack, &mut out);
        let t = &out[34..];
        assert_eq!(t[13], 0x50, "ECE ACK");
        // NOP NOP, SACK with two blocks (kind 5, length 18).
        assert_eq!(&t[20..24], &[1, 1, 5, 18]);
        let edge = |i: usize| u32::from_be_bytes(t[24 + 4 * i..28 + 4 * i].try_into().unwrap());
        assert_eq!([edge(0), edge(1), edge(2), edge(3)], [2921, 4381, 5841, 7301]);
    }

    #[test]
    fn a_udp_datagram() {
        let pkt = Packet::udp(0, Dir::Down, 200, 172);
        let mut out = Vec::new();
        let wire = frames(&TcpConfig::default(), &[pkt]).frame(&pkt, &mut out);
        assert_eq!((out.len(), wire), (42, 42 + 172));
        let (ip, udp) = (&out[14..34], &out[34..]);
        assert_eq!(ip[9], 17);
        assert_eq!(u16::from_be_bytes([udp[2], udp[3]]), 1024);
        assert_eq!(u16::from_be_bytes([udp[4], udp[5]]), 8 + 172);
        let mut pseudo = [&ip[12..20], &[0, 17], &(8u16 + 172).to_be_bytes()[..]].concat();
        pseudo.extend_from_slice(udp);
        assert_eq!(ones_sum(&pseudo), 0xffff, "UDP checksum");
    }
}
