//! Limited transmit (RFC 3042 §2): on each of the first two duplicate ACKs,
//! before loss recovery starts, the sender sends one new segment if the
//! receiver's window allows and FlightSize would stay at or below
//! cwnd + 2·SMSS; cwnd itself is not changed. A small window (few segments in
//! flight, as on a slow radio bearer) then still gets the three duplicate ACKs
//! fast retransmit needs instead of waiting for a timeout.
//!
//! Here: the send window is cwnd plus one SMSS per duplicate ACK (at most two)
//! while only new data waits (`snd_nxt` = `snd_max`: not after a timeout's go-back-N).
//! ns-2.27's Sack1 (`recovery = "ns2_sack1"`) sends on those duplicates whatever waits
//! at `snd_nxt`, during go-back-N too: `TcpAgent::send_one` sends `t_seqno_` while
//! `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`, with no test of `maxseq_`.

use super::sender::Sender;
use super::Recovery;

impl Sender {
    /// Bytes beyond cwnd that limited transmit lets the sender have in flight now.
    pub(super) fn limited_transmit_allowance(&self) -> u64 {
        let dupacks = self.recovery.dupacks;
        let go_back_n = self.snd_nxt < self.snd_max && self.kind != Recovery::Ns2Sack1;
        if !self.limited_transmit || self.recovery.active || dupacks > 2 || go_back_n {
            return 0;
        }
        dupacks * self.mss
    }
}
