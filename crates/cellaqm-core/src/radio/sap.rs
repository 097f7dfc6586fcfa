//! The interface between a bearer's RLC and the MAC that serves it: before a
//! transmission opportunity the bearer reports its buffer status, and the
//! MAC grants it an opportunity, which the RLC fills with PDUs. The
//! scheduler reads only the reports; it never reaches into a bearer's RLC or
//! PDCP buffer. (The same split as ns-3's LTE MAC SAP: a buffer status
//! report, then a transmit opportunity; its report also carries the RLC's
//! head-of-line delay, `ff-mac-sched-sap.h`, which a delay-aware scheduler reads.)
//!
//! On the UMTS downlinks the RNC's RLC reports and the cell's MAC (a DCH's
//! TTI, HSDPA flow control, the HS-DSCH or DSCH scheduler) grants. The LTE
//! uplink is the same interface in the other direction: the UE's Buffer
//! Status Report is its status, the eNodeB's grant its opportunity
//! ([`super::ran::lte_ul`], TS 36.321 §5.4.5).

use crate::time::Dur;

/// What a bearer reports before a transmission opportunity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// Whether the RLC would use an opportunity now: new data its window
    /// allows, a retransmission, or a control PDU (STATUS, MRW, RESET) due.
    pub ready: bool,
    /// Bytes of new data waiting above the RLC (the PDCP buffer's backlog);
    /// for an LTE BSR, every byte it reports.
    pub new_bytes: u64,
    /// PDUs waiting to be sent again.
    pub retx_pdus: u64,
    /// How long the oldest packet waiting above the RLC (not yet handed to
    /// it) has waited: zero when none waits; `None` where the report carries
    /// no delay (an LTE BSR: TS 36.321 §6.1.3.1 reports bytes only).
    pub head_of_line: Option<Dur>,
}

impl BufferStatus {
    /// An LTE Buffer Status Report of `bytes` (as the eNodeB reads its level): the
    /// UE has data when it reports any.
    pub fn bsr(bytes: u64) -> BufferStatus {
        BufferStatus { ready: bytes > 0, new_bytes: bytes, retx_pdus: 0, head_of_line: None }
    }
}

/// The transmission opportunity a MAC grants a bearer: bytes it may send
/// now. A UMTS bearer fills it with whole RLC PDUs (one per MAC-d PDU or
/// transport block); on the LTE uplink it is the UE's grant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxOpportunity {
    pub bytes: u64,
}

impl TxOpportunity {
    /// An opportunity of `n` PDUs of `pdu_bytes` each.
    pub fn pdus(n: u64, pdu_bytes: u64) -> TxOpportunity {
        TxOpportunity { bytes: n * pdu_bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Dir, Packet, TcpHeader};
    use crate::radio::bearer::Bearer;
    use crate::radio::config::RadioConfig;
    use crate::radio::event::RadioOut;
    use crate::time::Time;

    fn ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    fn pkt(uid: u64) -> Packet {
        let mut p = Packet::tcp(0, Dir::Down, 1000, TcpHeader { len: 940, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    /// A bearer's report as packets arrive, are handed to the RLC and dropped:
    /// the head-of-line delay is the age of the oldest packet still waiting
    /// above the RLC (hand-worked: arrivals at 10, 30 and 60 ms, the PDCP
    /// discard timer at 45 ms dropping at hand-over).
    #[test]
    fn the_status_gives_how_long_the_oldest_waiting_packet_has_waited() {
        let cfg: RadioConfig = toml::from_str(
            "bearer = \"hsdpa\"\nqueue = { scheme = \"pdcp_discard\", delay_threshold = \"45ms\" }\n[hsdpa]",
        )
        .unwrap();
        let mut b = Bearer::new(0, &cfg.bearer(0), 384e3, 1);
        let mut out = RadioOut::default();
        assert_eq!(b.buffer_status(ms(0)).head_of_line, Some(Dur::ZERO), "nothing waits");
        b.arrive_down(ms(10), pkt(1), &mut out);
        b.arrive_down(ms(30), pkt(2), &mut out);
        let s = b.buffer_status(ms(50));
        assert_eq!((s.ready, s.new_bytes, s.head_of_line), (true, 2000, Some(Dur::from_millis(40))));
        // One PDU: the RLC takes packet 1 for its first segment; packet 2 (30 ms) heads the wait.
        let (mut pdus, pdu) = (Vec::new(), b.pdu_bytes());
        assert_eq!(b.transmit_down(ms(50), TxOpportunity::pdus(1, pdu), &mut pdus), 1);
        assert_eq!(b.buffer_status(ms(60)).head_of_line, Some(Dur::from_millis(30)));
        b.arrive_down(ms(60), pkt(3), &mut out);
        assert_eq!(b.buffer_status(ms(70)).head_of_line, Some(Dur::from_millis(40)), "packet 2 still");
        // Packet 1's last segments, then the RLC asks for more at 90 ms: the discard
        // timer drops packet 2 (60 ms old) and hands packet 3 (30 ms) over: nothing waits.
        assert!(b.transmit_down(ms(90), TxOpportunity::pdus(60, pdu), &mut pdus) > 1);
        assert_eq!(b.pdcp().stats().copied, 2, "packets 1 and 3");
        assert_eq!(b.buffer_status(ms(100)).head_of_line, Some(Dur::ZERO));
    }

    #[test]
    fn a_bsr_is_a_status_of_bytes_without_a_delay() {
        assert_eq!(BufferStatus::bsr(0), BufferStatus::default());
        let s = BufferStatus::bsr(1500);
        assert_eq!((s.ready, s.new_bytes, s.retx_pdus, s.head_of_line), (true, 1500, 0, None));
    }
}
