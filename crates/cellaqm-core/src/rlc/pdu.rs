//! RLC AM PDUs as the model carries them (TS 25.322 §9.2).
//!
//! Payload bytes are not carried: a data PDU says which SDUs (by sender-given,
//! consecutive ids) its payload holds, whether the first one starts and the
//! last one ends in it (what the length indicators of §9.2.2.8 encode), and
//! how many payload and LI bytes it uses. Sequence numbers are 64-bit and
//! never wrap (the 12-bit modulus arithmetic of §9.4 is not needed: the
//! window bounds the span of live numbers the same way).

/// An AMD PDU sequence number.
pub type Sn = u64;

/// An SDU (IP packet) id, given by the sender in submission order: 0, 1, 2, …
pub type SduId = u64;

/// An AMD PDU (TS 25.322 §9.2.1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataPdu {
    pub sn: Sn,
    /// Poll bit: the receiver must answer with a STATUS PDU (§9.2.2.7).
    pub poll: bool,
    /// First and last SDU with bytes in this PDU.
    pub sdu_first: SduId,
    pub sdu_last: SduId,
    /// `sdu_first` starts in this PDU (else it continues one from an earlier PDU).
    pub starts: bool,
    /// `sdu_last` ends in this PDU (else it continues in a later PDU).
    pub ends: bool,
    /// SDU bytes carried (the rest of the PDU is header, LIs and padding).
    pub payload: u32,
    /// Length indicators (one per SDU end in this PDU).
    pub lis: u32,
}

impl DataPdu {
    /// The SDUs that end in this PDU, in order.
    pub fn ending_sdus(&self) -> std::ops::Range<SduId> {
        self.sdu_first..self.sdu_last + self.ends as u64
    }

    /// Whether SDU `id` starts in this PDU.
    pub fn starts_sdu(&self, id: SduId) -> bool {
        (id == self.sdu_first && self.starts) || (id > self.sdu_first && id <= self.sdu_last)
    }

    /// Whether SDU `id` ends in this PDU.
    pub fn ends_sdu(&self, id: SduId) -> bool {
        self.ending_sdus().contains(&id)
    }
}

/// A STATUS PDU (TS 25.322 §9.2.1.6) with an ACK SUFI and BITMAP SUFIs:
/// every PDU below `lsn` is acknowledged except those listed in `nacks`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusPdu {
    /// ACK SUFI "last sequence number" (§9.2.2.11.2): the first SN not reported on.
    pub lsn: Sn,
    /// Missing PDUs below `lsn`, increasing.
    pub nacks: Vec<Sn>,
}

/// A Move Receiving Window command (TS 25.322 §9.2.2.11.8, MRW SUFI) after an
/// SDU discard: the receiver gives up on every PDU below `sn` and on every SDU
/// up to `discard_through` it has not delivered (the N_LENGTH field's role).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mrw {
    pub sn: Sn,
    pub discard_through: SduId,
}

/// The receiver's answer to an [`Mrw`] (TS 25.322 §9.2.2.11.9, MRW_ACK SUFI):
/// `sn` (SN_ACK) is VR(R) after the MRW was applied; `discard_through` echoes
/// the MRW's when `sn` equals its `sn` (the N field, set to N_LENGTH then and
/// to 0 otherwise: `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MrwAck {
    pub sn: Sn,
    pub discard_through: Option<SduId>,
}

impl MrwAck {
    /// Whether this acknowledgement ends the procedure that sent `mrw` (TS 25.322
    /// §11.6.4): SN_ACK beyond SN_MRW_LENGTH, or equal to it with the same N_LENGTH.
    pub fn acknowledges(&self, mrw: &Mrw) -> bool {
        self.sn > mrw.sn || (self.sn == mrw.sn && self.discard_through == Some(mrw.discard_through))
    }
}

/// A RESET or RESET ACK PDU (TS 25.322 §9.2.1.7, §11.4): the sending entity's sender
/// restarted. Sequence numbers never wrap here, so instead of restarting at 0 it
/// tells where it goes on: PDUs below `next_sn` come from before the reset, and
/// every SDU before `sdus_before` is given up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reset {
    /// Reset sequence number of the initiator's RESET (an ACK echoes it): a repeated
    /// RESET is answered again without a second reset.
    pub rsn: u32,
    pub next_sn: Sn,
    pub sdus_before: SduId,
}

/// Whatever an RLC entity hands to the MAC for one transport block. The MRW and
/// MRW_ACK SUFIs travel in STATUS PDUs of their own (TS 25.322 §9.2.1.6), one
/// PDU slot each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pdu {
    Data(DataPdu),
    Status(StatusPdu),
    Mrw(Mrw),
    MrwAck(MrwAck),
    Reset(Reset),
    ResetAck(Reset),
}

impl Pdu {
    pub fn is_data(&self) -> bool {
        matches!(self, Pdu::Data(_))
    }
}
