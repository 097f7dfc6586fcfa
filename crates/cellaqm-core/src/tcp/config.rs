//! TCP options, as written in the `[tcp]` section of a scenario file.

use crate::time::Dur;
use crate::units::Bytes;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

/// Loss recovery algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Reno fast retransmit / fast recovery (RFC 5681): leaves recovery on the first new ACK.
    Reno,
    /// NewReno (RFC 6582): stays in recovery until all data outstanding at its start is ACKed,
    /// retransmitting one segment per partial ACK.
    NewReno,
    /// SACK option (RFC 2018) with conservative SACK-based recovery (RFC 6675).
    Sack,
    /// SACK option with ns-2.27's `Agent/TCP/Sack1` recovery (`ns2_sack1.rs`): its `pipe_`
    /// counts lost segments as in flight, so a window losing many packets waits for the timer.
    #[serde(rename = "ns2_sack1")]
    Ns2Sack1,
}

impl Recovery {
    /// The SACK option is on (RFC 2018): the receiver sends SACK blocks, the sender keeps a scoreboard.
    pub fn uses_sack(self) -> bool {
        matches!(self, Recovery::Sack | Recovery::Ns2Sack1)
    }
}

/// Congestion control algorithm (`tcp.congestion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// Reno AIMD (RFC 5681 §3.1): +1 SMSS per RTT, halved on loss.
    Reno,
    /// CUBIC (RFC 9438): a cubic function of the time since the last reduction, β = 0.7.
    Cubic,
}

/// How much fast recovery sends in answer to each ACK (which segments go is
/// `Recovery`'s choice either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryWindow {
    /// The rules of the recovery algorithm itself: without SACK, RFC 5681 §3.2 window
    /// inflation by one SMSS per duplicate ACK (with RFC 6582 deflation on partial ACKs);
    /// with SACK, RFC 6675 §5 (C): send while cwnd − pipe ≥ 1 SMSS.
    Rfc,
    /// Proportional Rate Reduction with the Slow Start Reduction Bound (RFC 6937, PRR-SSRB):
    /// the flight shrinks from its size at the loss to ssthresh in proportion to the data
    /// delivered, and grows back towards ssthresh by at most one SMSS more than delivered per ACK.
    Prr,
}

/// When the retransmission timer restarts around loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// On every ACK of new data (RFC 6298 (5.3)), partial ACKs included, and when the
    /// fast retransmission is sent, as ns-2 (`reset_rtx_timer` on the third duplicate
    /// ACK) and Linux do: the retransmission gets a whole RTO to be acknowledged.
    Always,
    /// As RFC 6298 (5.1) and RFC 6582 §3.2 (5) read, and as ns-3 implements them: the
    /// fast retransmission leaves the running timer alone (it keeps counting from the
    /// last new ACK), and during recovery only the first partial ACK restarts it
    /// ("Impatient", RFC 6582 §4; ns-3 applies it to SACK recovery too).
    Impatient,
}

/// How the minimum RTO bounds the timeout (`tcp.rto_formula`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFormula {
    /// RFC 6298 (2.4): RTO = max(SRTT + 4·RTTVAR, rto_min).
    Rfc,
    /// Linux (2.4 on, `tcp_rtt_estimator`/`tcp_set_rto`): the variance term never falls below
    /// `tcp_rto_min`, so RTO = SRTT + max(4·RTTVAR, rto_min), always at least rto_min above SRTT.
    Linux,
    /// ns-2 (`tcp/tcp.cc`): SRTT and RTTVAR in whole ticks of `timer_tick` with integer shifts,
    /// RTO = max(⌊SRTT + 4·RTTVAR⌋ ticks, rto_min) before back-off, at least two ticks (`rtt.rs`).
    Ns2,
}

/// Which segments give RTT samples when the timestamps option is off (RFC 6298 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// One segment timed at a time, a sample per RTT (BSD, ns-2).
    PerRtt,
    /// Every ACK, from the newest segment it acknowledges (Linux, ns-3).
    PerAck,
}

/// Advertised receive window: in packets of one MSS, or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Window {
    /// A number of full-sized segments (as ns-2's `window_`).
    Packets(u32),
    /// A size with a unit, like `"64kB"`.
    Bytes(Bytes),
}

/// Reads a whole number as [`Window::Packets`] and a size as
/// [`Window::Bytes`]; anything else is refused naming both forms (a derived
/// untagged enum could only say that no variant matched).
struct WindowVisitor;

impl<'de> de::Visitor<'de> for WindowVisitor {
    type Value = Window;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a packet count like 30, or a size like \"64kB\"")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Window, E> {
        u32::try_from(v).map(Window::Packets).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Window, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self)).and_then(|v| self.visit_u64(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Window, E> {
        Bytes::parse(v).map(Window::Bytes).map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Window, D::Error> {
        d.deserialize_any(WindowVisitor)
    }
}

impl Window {
    pub fn bytes(self, mss: u32) -> u64 {
        match self {
            Window::Packets(n) => n as u64 * mss as u64,
            Window::Bytes(b) => b.0,
        }
    }
}

/// The largest IP packet in bytes (the 16-bit IPv4 total length).
pub const MAX_IP_PACKET: u64 = 65_535;
/// The largest advertised window in bytes (RFC 7323 §2.3: scale factor at most 14).
pub const MAX_WINDOW: u64 = 1 << 30;

/// Every `[tcp]` key for `cellaqm list tcp`: (key, the values it takes, its
/// meaning). The defaults come from [`TcpConfig::default`]; a test checks that
/// the keys are the struct's and the choices its enums'.
pub const KEYS: &[(&str, &str, &str)] = &[
    ("congestion", "reno | cubic", "congestion controller: Reno AIMD (RFC 5681 §3.1) or CUBIC (RFC 9438)"),
    (
        "cubic_fast_convergence",
        "bool",
        "CUBIC's fast convergence (RFC 9438 §4.7): a lower W_max when a loss finds cwnd below the last one",
    ),
    (
        "recovery",
        "reno | newreno | sack | ns2_sack1",
        "loss recovery: Reno (RFC 5681), NewReno (RFC 6582), SACK (RFC 2018, RFC 6675), or SACK with \
         ns-2.27's Sack1 recovery (pipe_ counts lost packets in flight; tcp-sack1.cc)",
    ),
    (
        "recovery_window",
        "rfc | prr",
        "what fast recovery sends per ACK: the recovery's own rule, or PRR-SSRB (RFC 6937)",
    ),
    (
        "fack",
        "bool",
        "Forward Acknowledgement (Mathis & Mahdavi 1996) with SACK: recovery when the highest SACKed byte is \
         more than 3 MSS above snd_una, every hole below it lost, send while snd_max − fack + retransmitted < cwnd",
    ),
    ("mss", "size", "maximum segment size: payload bytes per full segment"),
    ("header", "size", "TCP/IP header bytes on every packet (40 TCP/IPv4, 60 TCP/IPv6)"),
    ("initial_window", "1 to 10", "initial congestion window in segments"),
    ("rwnd", "packets | size", "the receiver's advertised window: packets of one MSS (a number) or bytes (\"64kB\")"),
    ("limited_transmit", "bool", "limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs"),
    (
        "spurious_rto",
        "none | eifel | frto",
        "undo a spurious timeout with the Eifel response (RFC 4015), found by Eifel detection (RFC 3522; needs \
         timestamps) or by F-RTO (RFC 5682: new data after the timeout, then see what is acknowledged)",
    ),
    ("delayed_ack", "bool", "delayed ACKs (RFC 5681 §4.2): every second full segment or after delack_timeout"),
    ("delack_timeout", "time", "the delayed-ACK timer"),
    ("timestamps", "bool", "timestamps option (RFC 7323): an RTT sample on every ACK"),
    ("rto_min", "time", "minimum retransmission timeout (RFC 6298 says 1 s; Linux and ns-3 use 200 ms)"),
    (
        "rto_formula",
        "rfc | linux | ns2",
        "how the RTO is estimated and rto_min bounds it: max(SRTT + 4·RTTVAR, rto_min) (RFC 6298), \
         SRTT + max(4·RTTVAR, rto_min) (Linux), or ns-2's integer estimator in timer ticks, max(RTO, rto_min)",
    ),
    (
        "timer_tick",
        "time",
        "the RTO clock's granularity: RFC 6298's G (the variance term is at least G), or ns-2's tcpTick_ \
         (with rto_formula = \"ns2\": RTT samples and the RTO in whole ticks); 0: exact timers",
    ),
    ("rto_max", "time", "maximum retransmission timeout after back-off"),
    ("rto_initial", "time", "RTO before the first RTT sample (RFC 6298 (2.1))"),
    ("ecn", "bool", "send ECT packets and react to ECN-Echo as to a loss, once per window (RFC 3168)"),
    (
        "rto_restart",
        "always | impatient",
        "when the retransmission timer restarts around recovery (RFC 6298 (5.3), or RFC 6582 §4 as ns-3)",
    ),
    (
        "rtt_samples",
        "per_rtt | per_ack",
        "without timestamps: one timed segment per RTT (BSD, ns-2) or every ACK (Linux, ns-3)",
    ),
    (
        "restart_after_idle",
        "bool",
        "restart from the initial window after an idle period longer than the RTO (RFC 5681 §4.1)",
    ),
    (
        "cwnd_validation",
        "bool",
        "congestion window validation (RFC 7661): grow cwnd only while the flight fills half of it",
    ),
];

/// TCP options shared by both ends of every connection in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion control: `"reno"` (RFC 5681) or `"cubic"` (RFC 9438).
    pub congestion: CongestionControl,
    /// CUBIC's fast convergence (RFC 9438 §4.7): W_max = (1 + β)/2 · cwnd when a congestion event
    /// finds cwnd below the previous W_max.
    pub cubic_fast_convergence: bool,
    /// Loss recovery: `"reno"`, `"newreno"`, `"sack"` or `"ns2_sack1"`.
    pub recovery: Recovery,
    /// How much fast recovery sends per ACK: `"rfc"` (inflation / cwnd − pipe) or `"prr"` (RFC 6937).
    pub recovery_window: RecoveryWindow,
    /// Forward Acknowledgement with SACK (Mathis & Mahdavi 1996, `fack.rs`); needs `recovery = "sack"`.
    pub fack: bool,
    /// Maximum segment size: payload bytes per full segment.
    pub mss: Bytes,
    /// TCP/IP header bytes added to every packet (40 for TCP/IPv4, 60 for TCP/IPv6 as in the WCDMA study).
    pub header: Bytes,
    /// Initial congestion window in segments (1–10).
    pub initial_window: u32,
    /// Receiver's advertised window: packets (a number) or bytes (`"64kB"`).
    pub rwnd: Window,
    /// Delayed ACKs (RFC 5681 §4.2): ACK every second full segment or after `delack_timeout`.
    pub delayed_ack: bool,
    /// Delayed-ACK timer.
    pub delack_timeout: Dur,
    /// Timestamps option (RFC 7323): an RTT sample on every ACK.
    pub timestamps: bool,
    /// Minimum retransmission timeout (RFC 6298 (2.4) says 1 s; Linux and ns-3 use 200 ms).
    pub rto_min: Dur,
    /// How the RTO is estimated and `rto_min` bounds it: `"rfc"` (RFC 6298 (2.4)), `"linux"`
    /// (on the variance term) or `"ns2"` (ns-2's integer estimator in ticks of `timer_tick`).
    pub rto_formula: RtoFormula,
    /// The RTO clock's granularity: RFC 6298's G (`"rfc"`, `"linux"`: the variance term is at
    /// least G), or ns-2's `tcpTick_` (`"ns2"`: samples and timeouts in whole ticks). 0: exact.
    pub timer_tick: Dur,
    /// Maximum retransmission timeout after back-off.
    pub rto_max: Dur,
    /// RTO before the first RTT sample (RFC 6298 (2.1)).
    pub rto_initial: Dur,
    /// React to ECN-Echo as to a loss, once per window (RFC 3168), and send ECT packets.
    pub ecn: bool,
    /// When the retransmission timer restarts around loss recovery.
    pub rto_restart: RtoRestart,
    /// Without timestamps: a sample per RTT or per ACK (with timestamps every ACK gives one).
    pub rtt_samples: RttSamples,
    /// Restart from the initial window after an idle period (RFC 5681 §4.1): a
    /// sender that has sent no data for longer than the RTO sets cwnd to
    /// min(initial window, cwnd) before sending again.
    pub restart_after_idle: bool,
    /// Congestion window validation (RFC 7661): cwnd grows only while the data in
    /// flight fills at least half of it, so that a sender held back by the receive
    /// window (or the application) does not grow it without bound.
    pub cwnd_validation: bool,
    /// Limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// The response to a spurious retransmission timeout: `"none"`, `"eifel"`
    /// (RFC 3522 detection with timestamps) or `"frto"` (RFC 5682 detection),
    /// both with the RFC 4015 response.
    pub spurious_rto: SpuriousRto,
}

/// What a sender does when a timeout turns out spurious.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpuriousRto {
    /// Nothing: the timeout's reduction stands and go-back-N goes on.
    #[default]
    None,
    /// Eifel: detect by the echoed timestamp, resume with new data and restore cwnd and ssthresh.
    Eifel,
    /// F-RTO: send new data after the timeout; if the next ACKs acknowledge data that was never
    /// retransmitted, resume with new data and restore cwnd and ssthresh (as Eifel).
    Frto,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            congestion: CongestionControl::Reno,
            cubic_fast_convergence: true,
            recovery: Recovery::NewReno,
            recovery_window: RecoveryWindow::Rfc,
            fack: false,
            mss: Bytes(1460),
            header: Bytes(40),
            initial_window: 3,
            rwnd: Window::Bytes(Bytes(65_535)),
            delayed_ack: false,
            delack_timeout: Dur::from_millis(200),
            timestamps: false,
            rto_min: Dur::from_millis(200),
            rto_formula: RtoFormula::Rfc,
            timer_tick: Dur::ZERO,
            rto_max: Dur::from_secs(60),
            rto_initial: Dur::from_secs(1),
            ecn: false,
            rto_restart: RtoRestart::Always,
            rtt_samples: RttSamples::PerRtt,
            restart_after_idle: true,
            cwnd_validation: false,
            limited_transmit: false,
            spurious_rto: SpuriousRto::None,
        }
    }
}

impl TcpConfig {
    /// Checks the ranges the types cannot express; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.spurious_rto == SpuriousRto::Eifel && !self.timestamps {
            return Err(
                "tcp.spurious_rto: \"eifel\" detects a spurious timeout by timestamps; set tcp.timestamps = true"
                    .into(),
            );
        }
        if self.fack && self.recovery != Recovery::Sack {
            return Err("tcp.fack: FACK works on the SACK scoreboard; set tcp.recovery = \"sack\"".into());
        }
        if self.recovery == Recovery::Ns2Sack1 && self.spurious_rto != SpuriousRto::None {
            return Err(
                "tcp.spurious_rto: ns-2.27's Sack1 (\"ns2_sack1\") has no spurious-timeout response; set \"none\""
                    .into(),
            );
        }
        if self.recovery == Recovery::Ns2Sack1 && self.recovery_window != RecoveryWindow::Rfc {
            return Err(
                "tcp.recovery_window: \"ns2_sack1\" has its own rule (send while pipe_ < cwnd); set \"rfc\"".into()
            );
        }
        if !(1..=10).contains(&self.initial_window) {
            return Err(format!("tcp.initial_window: expected 1 to 10 segments, got {}", self.initial_window));
        }
        if self.mss.0 == 0 {
            return Err("tcp.mss: must be positive".into());
        }
        if self.mss.0 + self.header.0 > MAX_IP_PACKET {
            return Err(format!(
                "tcp.mss: MSS + header must fit in one IP packet ({MAX_IP_PACKET} bytes), got {} + {}",
                self.mss.0, self.header.0
            ));
        }
        if self.rwnd.bytes(self.mss.0 as u32) > MAX_WINDOW {
            return Err(format!("tcp.rwnd: at most 1 GiB ({MAX_WINDOW} bytes, RFC 7323 window scaling)"));
        }
        if self.rwnd.bytes(self.mss.0 as u32) < self.mss.0 {
            return Err("tcp.rwnd: must hold at least one MSS".into());
        }
        if self.rto_min > self.rto_max {
            return Err("tcp.rto_min: must not exceed tcp.rto_max".into());
        }
        if !(self.rto_min..=self.rto_max).contains(&self.rto_initial) {
            return Err(format!(
                "tcp.rto_initial: must lie between tcp.rto_min ({}) and tcp.rto_max ({}), got {}",
                self.rto_min, self.rto_max, self.rto_initial
            ));
        }
        if self.rto_formula == RtoFormula::Ns2 && self.timer_tick == Dur::ZERO {
            return Err(
                "tcp.timer_tick: rto_formula = \"ns2\" counts time in ticks; set a tick (ns-2: \"10ms\")".into()
            );
        }
        if self.delayed_ack && self.delack_timeout == Dur::ZERO {
            return Err("tcp.delack_timeout: must be positive when tcp.delayed_ack is on".into());
        }
        Ok(())
    }

    /// Wire size of a segment carrying `payload` bytes.
    pub fn packet_size(&self, payload: u32) -> u32 {
        payload + self.header.0 as u32
    }

    /// Wire size of a full-sized segment (MSS + header), in bytes.
    pub fn full_packet(&self) -> u64 {
        self.packet_size(self.mss.0 as u32) as u64
    }
}
