//! The interface between a bearer's RLC and the MAC that serves it: before a
//! transmission opportunity the bearer reports its buffer status, and the
//! MAC grants it an opportunity, which the RLC fills with PDUs. The
//! scheduler reads only the reports; it never reaches into a bearer's RLC or
//! PDCP buffer. (The same split as ns-3's LTE MAC SAP: a buffer status
//! report, then a transmit opportunity.)
//!
//! On the UMTS downlinks the RNC's RLC reports and the cell's MAC (a DCH's
//! TTI, HSDPA flow control, the HS-DSCH or DSCH scheduler) grants. The LTE
//! uplink is the same interface in the other direction: the UE's Buffer
//! Status Report is its status, the eNodeB's grant its opportunity
//! ([`super::lte`], TS 36.321 §5.4.5).

/// What a bearer reports before a transmission opportunity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// Whether the RLC would use an opportunity now: new data its window
    /// allows, a retransmission, or a control PDU (STATUS, MRW, RESET) due.
    pub ready: bool,
    /// Bytes of new data waiting above the RLC (the PDCP buffer's backlog).
    pub new_bytes: u64,
    /// PDUs waiting to be sent again.
    pub retx_pdus: u64,
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
