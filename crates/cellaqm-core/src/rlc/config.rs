//! RLC acknowledged-mode parameters (3GPP TS 25.322 §9.6 "Protocol parameters"
//! and §9.5 "Timers"), as written in a scenario under `[radio.rlc]`.
//!
//! Defaults follow the WCDMA study (wcdma-rnc-aqm.md: 42-byte PDUs, a 768-PDU
//! transmission window, in-sequence delivery, polling- and timer-based
//! retransmission) and, where it is silent, the RLC study's reference
//! configuration (umts-rlc-tcp.md: MaxDAT 10, one-shot polls on the last PDU
//! in the buffer, the last retransmitted PDU and half the window, a poll timer).
//! A trigger or timer left out (`None`) is off.

use crate::time::Dur;
use crate::units::Bytes;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One RLC AM entity's configuration (the same for both directions of a bearer).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RlcConfig {
    /// AMD PDU size on the air, header included (bytes; study: 42 B = 336 bits,
    /// also the HSDPA MAC-d PDU). TS 25.322 §9.2.1.4: AMD PDUs have a fixed size.
    pub pdu_size: Bytes,
    /// AMD PDU header: D/C, 12-bit SN, P, HE (bytes; TS 25.322 §9.2.1.4: 2 B).
    pub header: Bytes,
    /// Transmission window, in PDUs (TS 25.322 Configured_Tx_Window_Size).
    pub window: u32,
    /// Transmissions of one PDU before its SDU is discarded (TS 25.322 MaxDAT).
    pub max_dat: u32,
    /// Deliver SDUs to the upper layer in sequence (TS 25.322 §9.7.2 "In-Sequence Delivery").
    pub in_sequence: bool,
    /// Pack the start of the next SDU into the padding of a PDU (TS 25.322 §11.3.2.1 concatenation).
    pub concatenation: bool,
    /// Timer_MRW: resend the Move-Receiving-Window command after an SDU discard until acknowledged.
    pub mrw_timer: Dur,
    /// MaxMRW: after this many MRW transmissions without an MRW_ACK, reset the RLC (TS 25.322
    /// §11.6.5, §11.4); absent: send the MRW again until acknowledged.
    pub max_mrw: Option<u32>,
    /// Timer_RST: resend an unacknowledged RESET PDU (MaxRST is not modelled: until acknowledged).
    pub reset_timer: Dur,
    pub poll: PollConfig,
    pub status: StatusConfig,
}

/// Sender-side polling (TS 25.322 §9.7.1 "Polling function").
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PollConfig {
    /// Poll on the last PDU in the transmission buffer ("Last transmission PDU poll").
    pub last_pdu_in_buffer: bool,
    /// Poll on the last PDU of the retransmission buffer ("Last retransmission PDU poll").
    pub last_retransmitted: bool,
    /// Poll every N PDUs sent, retransmissions included (Poll_PDU).
    pub every_pdus: Option<u32>,
    /// Poll on the PDU that completes every N-th SDU (Poll_SDU).
    pub every_sdus: Option<u32>,
    /// Poll when this share of the transmission window is in use (Poll_Window, in (0, 1]).
    pub window: Option<f64>,
    /// Poll periodically while data is unacknowledged (Timer_Poll_Periodic).
    pub periodic: Option<Dur>,
    /// Poll again when no STATUS answers a poll within this time (Timer_Poll).
    pub timer: Option<Dur>,
    /// Minimum time between two polls (Timer_Poll_Prohibit); 0 or absent: none.
    pub prohibit: Option<Dur>,
}

/// Receiver-side STATUS reporting (TS 25.322 §9.7.2 "STATUS transmission").
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatusConfig {
    /// Minimum time between two STATUS PDUs (Timer_Status_Prohibit); 0: none
    /// (the only way to turn off the 100 ms default).
    pub prohibit: Option<Dur>,
    /// Missing-PDU detection ("Missing PDU Indicator"): when a gap triggers a report.
    pub missing_pdu: MissingPdu,
    /// Report periodically (Timer_Status_Periodic).
    pub periodic: Option<Dur>,
    /// The estimated PDU counter (TS 25.322 §9.7.2, VR(EP) and Timer_EPC): this long
    /// after a STATUS with negative acknowledgements, count the PDUs that arrive; once as
    /// many arrived as it NACKed, report again if one of them is still missing.
    pub epc: Option<Dur>,
}

/// When missing-PDU detection triggers a STATUS (`status.missing_pdu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingPdu {
    /// Never (`false`).
    Off,
    /// On the PDU that opens a new gap, i.e. arrives above VR(H) (`true`, `"new_gap"`).
    NewGap,
    /// On every PDU that arrives while a PDU below VR(H) is missing (`"while_gap"`): the
    /// status prohibit timer then sets how often a persisting gap is reported.
    WhileGap,
}

/// Reads `true`, `false`, `"new_gap"` or `"while_gap"`; anything else is refused naming them.
struct MissingPduVisitor;

impl<'de> de::Visitor<'de> for MissingPduVisitor {
    type Value = MissingPdu;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("true, false, \"new_gap\" or \"while_gap\"")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<MissingPdu, E> {
        Ok(if v { MissingPdu::NewGap } else { MissingPdu::Off })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<MissingPdu, E> {
        match v {
            "new_gap" => Ok(MissingPdu::NewGap),
            "while_gap" => Ok(MissingPdu::WhileGap),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
        }
    }
}

impl<'de> Deserialize<'de> for MissingPdu {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MissingPdu, D::Error> {
        d.deserialize_any(MissingPduVisitor)
    }
}

impl Serialize for MissingPdu {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MissingPdu::Off => s.serialize_bool(false),
            MissingPdu::NewGap => s.serialize_bool(true),
            MissingPdu::WhileGap => s.serialize_str("while_gap"),
        }
    }
}

impl Default for RlcConfig {
    fn default() -> Self {
        RlcConfig {
            pdu_size: Bytes(42),
            header: Bytes(2),
            window: 768,
            max_dat: 10,
            in_sequence: true,
            concatenation: true,
            mrw_timer: Dur::from_millis(200),
            max_mrw: None,
            reset_timer: Dur::from_millis(200),
            poll: PollConfig::default(),
            status: StatusConfig::default(),
        }
    }
}

impl Default for PollConfig {
    fn default() -> Self {
        PollConfig {
            last_pdu_in_buffer: true,
            last_retransmitted: true,
            every_pdus: None,
            every_sdus: None,
            window: Some(0.5),
            periodic: None,
            timer: Some(Dur::from_millis(200)),
            prohibit: None,
        }
    }
}

impl Default for StatusConfig {
    fn default() -> Self {
        StatusConfig {
            prohibit: Some(Dur::from_millis(100)),
            missing_pdu: MissingPdu::NewGap,
            periodic: None,
            epc: None,
        }
    }
}

fn positive(d: Option<Dur>, key: &str) -> Result<(), String> {
    match d {
        Some(Dur::ZERO) => Err(format!("{key}: must be positive (leave the key out to turn it off)")),
        _ => Ok(()),
    }
}

impl RlcConfig {
    /// Payload bytes of one AMD PDU (PDU size minus header).
    pub fn payload(&self) -> u32 {
        (self.pdu_size.0 - self.header.0) as u32
    }

    /// Bytes of one length indicator: 7-bit LI + E bit for PDUs up to 126 bytes,
    /// else 15 bits + E (TS 25.322 §9.2.2.8).
    pub fn li_size(&self) -> u32 {
        if self.pdu_size.0 <= 126 {
            1
        } else {
            2
        }
    }

    /// Checks ranges; `key` is where the config sits in the scenario (e.g. `radio.rlc`).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.header.0 == 0 || self.header.0 > 8 {
            return Err(format!("{key}.header: expected 1 to 8 bytes, got {}", self.header.0));
        }
        if self.pdu_size.0 < self.header.0 + 2 || self.pdu_size.0 > 65_535 {
            return Err(format!(
                "{key}.pdu_size: must leave room for a length indicator and a byte after the {}-byte header (and be at most 65535 B)",
                self.header.0
            ));
        }
        if !(1..=1 << 20).contains(&self.window) {
            return Err(format!("{key}.window: expected 1 to 1048576 PDUs, got {}", self.window));
        }
        if !(1..=255).contains(&self.max_dat) {
            return Err(format!("{key}.max_dat: expected 1 to 255 transmissions, got {}", self.max_dat));
        }
        if self.mrw_timer == Dur::ZERO {
            return Err(format!("{key}.mrw_timer: must be positive"));
        }
        if self.reset_timer == Dur::ZERO {
            return Err(format!("{key}.reset_timer: must be positive"));
        }
        if self.max_mrw == Some(0) {
            return Err(format!("{key}.max_mrw: must be at least 1 (leave the key out to resend until acknowledged)"));
        }
        let p = &self.poll;
        if p.every_pdus == Some(0) {
            return Err(format!("{key}.poll.every_pdus: must be at least 1 (leave the key out to turn it off)"));
        }
        if p.every_sdus == Some(0) {
            return Err(format!("{key}.poll.every_sdus: must be at least 1 (leave the key out to turn it off)"));
        }
        if let Some(w) = p.window {
            if !(w > 0.0 && w <= 1.0) {
                return Err(format!("{key}.poll.window: expected a share of the window in (0, 1], got {w}"));
            }
        }
        positive(p.periodic, &format!("{key}.poll.periodic"))?;
        positive(p.timer, &format!("{key}.poll.timer"))?;
        positive(self.status.periodic, &format!("{key}.status.periodic"))?;
        positive(self.status.epc, &format!("{key}.status.epc"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_give_320_bit_payloads() {
        let c = RlcConfig::default();
        assert_eq!(c.validate("radio.rlc"), Ok(()));
        assert_eq!((c.payload() * 8, c.li_size()), (320, 1));
    }

    #[test]
    fn errors_name_the_key() {
        let c = RlcConfig { max_dat: 0, ..RlcConfig::default() };
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.max_dat:"));
        let mut c = RlcConfig::default();
        c.poll.window = Some(1.5);
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.poll.window:"));
        let mut c = RlcConfig::default();
        c.status.periodic = Some(Dur::ZERO);
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.status.periodic: must be positive"));
        c.status.periodic = None;
        c.status.prohibit = Some(Dur::ZERO); // no prohibit
        assert_eq!(c.validate("radio.rlc"), Ok(()));
        let c = RlcConfig { max_mrw: Some(0), ..RlcConfig::default() };
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.max_mrw: must be at least 1"));
        let c = RlcConfig { reset_timer: Dur::ZERO, ..RlcConfig::default() };
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.reset_timer: must be positive"));
        let c = RlcConfig { pdu_size: Bytes(3), ..RlcConfig::default() };
        assert!(c.validate("radio.rlc").unwrap_err().starts_with("radio.rlc.pdu_size:"));
    }
}
