//! The R99 dedicated channel (DCH): a fixed number of RLC PDUs per TTI.
//!
//! Every TTI (10 or 20 ms, on the grid k·TTI) the MAC takes up to
//! `pdus_per_tti` PDUs from the RLC entity as one transport block set. The
//! bearer rate counts RLC PDU payload, as 3GPP RAB rates do (TS 34.108: the
//! 384 kb/s bearer carries 12 PDUs of 320 payload bits per 10 ms, the 64 kb/s
//! one 4 per 20 ms), so `pdus_per_tti = ⌊rate · TTI / payload bits⌋`. Each
//! PDU passes a [`Gilbert`] loss channel (`loss`), or the whole TTI (radio
//! frame) passes a fading channel (`fading`, [`super::fading`]) whose state
//! all its PDUs share, stepped by the TTIs elapsed since the last one used
//! (with `fading.errors = "pdu"`: a state per PDU slot, stepped by the slots
//! elapsed, 12 a TTI at 384 kb/s); the survivors reach the far end at the end
//! of the TTI plus `delay` (interleaving, Iub and processing).

use super::fading::{FadingConfig, FadingErrors};
use super::gilbert::{Gilbert, GilbertConfig};
use crate::radio::air::AirLine;
use crate::radio::clock::Clock;
use crate::rlc::Pdu;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::units::Rate;
use serde::{Deserialize, Serialize};

/// A DCH as written in a scenario (`[radio.dch]`, `[radio.uplink]`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DchConfig {
    /// Bearer rate: RLC PDU payload bits per second (64 kb/s, 384 kb/s in the study).
    pub rate: Rate,
    /// Transmission time interval.
    pub tti: Dur,
    /// One-way delay after the end of the TTI until the PDUs are at the far end.
    pub delay: Dur,
    /// PDU losses; absent: none.
    pub loss: Option<GilbertConfig>,
    /// Frame losses from a Rayleigh-fading channel (one state per TTI); absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fading: Option<FadingConfig>,
}

impl Default for DchConfig {
    /// The study's uplink: 64 kb/s, 20 ms TTI.
    fn default() -> Self {
        DchConfig {
            rate: Rate(64_000.0),
            tti: Dur::from_millis(20),
            delay: Dur::from_millis(15),
            loss: None,
            fading: None,
        }
    }
}

impl DchConfig {
    /// PDUs per TTI for PDUs with `payload` bytes of payload (at least 1).
    pub fn pdus_per_tti(&self, payload: u32) -> u32 {
        ((self.rate.bps() * self.tti.as_secs_f64() / (payload as f64 * 8.0)) + 1e-9).floor().max(1.0) as u32
    }

    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.tti == Dur::ZERO {
            return Err(format!("{key}.tti: must be positive"));
        }
        match (&self.loss, &self.fading) {
            (Some(_), Some(_)) => {
                Err(format!("{key}.fading: give either loss (per PDU) or fading (per frame), not both"))
            }
            (Some(l), None) => l.validate(&format!("{key}.loss")),
            (None, Some(f)) => {
                f.validate(&format!("{key}.fading")).and_then(|_| f.chain().validate(&format!("{key}.fading")))
            }
            (None, None) => Ok(()),
        }
    }
}

/// The TTIs in which PDUs were lost: (TTI start, PDUs lost).
pub type LossLog = Vec<(Time, u32)>;

/// Counters of a DCH.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DchStats {
    pub ttis: u64,
    pub pdus_sent: u64,
    pub pdus_lost: u64,
}

pub struct Dch {
    tti: Dur,
    pdus_per_tti: u32,
    delay: Dur,
    channel: Gilbert,
    /// With `fading`: what a state of its chain decides (`None`: `loss`, per PDU).
    fading: Option<FadingErrors>,
    /// With frame errors: whether the current TTI's frame is lost.
    frame_lost: bool,
    /// PDUs sent in the current TTI, and the last PDU slot used (TTIs × PDUs per TTI + index).
    in_tti: u32,
    last_slot: Option<u64>,
    /// With a trace: each TTI in which PDUs were lost, with how many.
    losses: Option<LossLog>,
    /// PDUs on their way.
    line: AirLine,
    /// The last TTI that carried a PDU.
    last_tti: Option<Time>,
    /// Its TTI clock.
    pub clock: Clock,
    stats: DchStats,
}

impl Dch {
    /// A DCH carrying PDUs of `payload` payload bytes; losses draw from `rng`.
    pub fn new(cfg: &DchConfig, payload: u32, rng: Rng) -> Dch {
        let channel = match (&cfg.loss, &cfg.fading) {
            (_, Some(f)) => Gilbert::new(&f.chain(), rng),
            (Some(l), None) if l.mean > 0.0 => Gilbert::new(l, rng),
            _ => Gilbert::lossless(rng),
        };
        Dch {
            tti: cfg.tti,
            pdus_per_tti: cfg.pdus_per_tti(payload),
            delay: cfg.delay,
            channel,
            fading: cfg.fading.as_ref().map(|f| f.errors),
            frame_lost: false,
            in_tti: 0,
            last_slot: None,
            losses: None,
            line: AirLine::default(),
            last_tti: None,
            clock: Clock::new(cfg.tti),
            stats: DchStats::default(),
        }
    }

    pub fn pdus_per_tti(&self) -> u32 {
        self.pdus_per_tti
    }

    pub fn tti(&self) -> Dur {
        self.tti
    }

    pub fn stats(&self) -> DchStats {
        self.stats
    }

    /// Sends `pdu` in the TTI starting at `now`. Returns its arrival time if
    /// the line was empty (the caller schedules the arrival event then).
    pub fn transmit(&mut self, now: Time, pdu: Pdu) -> Option<Time> {
        if self.last_tti != Some(now) {
            if self.fading == Some(FadingErrors::Frame) {
                let frames = self.last_tti.map_or(1, |t| now.since(t).0 / self.tti.0);
                self.frame_lost = self.channel.advance(frames);
            }
            self.last_tti = Some(now);
            self.in_tti = 0;
            self.stats.ttis += 1;
        }
        self.stats.pdus_sent += 1;
        let lost = match self.fading {
            Some(FadingErrors::Frame) => self.frame_lost,
            Some(FadingErrors::Pdu) => {
                let slot = now.0 / self.tti.0 * self.pdus_per_tti as u64 + self.in_tti as u64;
                let steps = self.last_slot.map_or(1, |last| slot - last);
                self.last_slot = Some(slot);
                self.channel.advance(steps)
            }
            None => self.channel.lose(),
        };
        self.in_tti += 1;
        if lost {
            self.stats.pdus_lost += 1;
            if let Some(log) = &mut self.losses {
                match log.last_mut() {
                    Some((t, n)) if *t == now => *n += 1,
                    _ => log.push((now, 1)),
                }
            }
            return None;
        }
        let at = now + self.tti + self.delay;
        self.line.push(at, pdu).then_some(at)
    }

    /// The line of PDUs on their way to the far end.
    pub fn line(&mut self) -> &mut AirLine {
        &mut self.line
    }

    /// Start logging the TTIs with lost PDUs ([`Dch::take_losses`]).
    pub fn record_losses(&mut self) {
        self.losses = Some(Vec::new());
    }

    /// The TTIs with lost PDUs since [`Dch::record_losses`]: (TTI start, PDUs lost).
    pub fn take_losses(&mut self) -> LossLog {
        self.losses.take().unwrap_or_default()
    }

    /// PDUs on their way.
    pub fn in_flight(&self) -> impl Iterator<Item = &Pdu> {
        self.line.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlc::{AmEntity, Delivery, RlcConfig};
    use crate::rng::stream;
    use std::collections::VecDeque;

    #[test]
    fn pdus_per_tti_follow_the_rab_definitions() {
        let dch = |kbps: f64, ms: u64| DchConfig {
            rate: Rate(kbps * 1e3),
            tti: Dur::from_millis(ms),
            ..DchConfig::default()
        };
        assert_eq!(dch(384.0, 10).pdus_per_tti(40), 12);
        assert_eq!(dch(64.0, 20).pdus_per_tti(40), 4);
        assert_eq!(dch(128.0, 10).pdus_per_tti(40), 4);
        assert_eq!(dch(8.0, 10).pdus_per_tti(40), 1);
    }

    /// A backlogged RLC AM download of 1500-byte SDUs over `down` (with the
    /// study's 64 kb/s uplink for STATUS); SDU bytes delivered per second
    /// between 5 s and 25 s.
    fn goodput(down: &DchConfig) -> f64 {
        let rlc = RlcConfig::default();
        let (mut rnc, mut ue) = (AmEntity::new(&rlc), AmEntity::new(&rlc));
        let mut dl = Dch::new(down, rlc.payload(), stream(1, "dl"));
        let mut ul = Dch::new(&DchConfig::default(), rlc.payload(), stream(1, "ul"));
        let mut src: VecDeque<u32> = std::iter::repeat_n(1500, 100_000).collect();
        let mut none: VecDeque<u32> = VecDeque::new();
        let mut delivered = 0u64;
        let step = Dur::from_millis(10);
        let mut t = Time::ZERO;
        while t < Time::ZERO + Dur::from_secs(25) {
            dl.line().deliver(t, |p| ue.receive(t, &p));
            for d in ue.rx.drain() {
                if let Delivery::Delivered(_) = d {
                    delivered += (t >= Time::ZERO + Dur::from_secs(5)) as u64 * 1500;
                }
            }
            ul.line().deliver(t, |p| rnc.receive(t, &p));
            rnc.tx.drain_released().for_each(drop);
            if dl.clock.next(t) == t {
                for _ in 0..dl.pdus_per_tti() {
                    let Some(p) = rnc.next_pdu(t, &mut src) else { break };
                    dl.transmit(t, p);
                }
            }
            if ul.clock.next(t) == t {
                for _ in 0..ul.pdus_per_tti() {
                    let Some(p) = ue.next_pdu(t, &mut none) else { break };
                    ul.transmit(t, p);
                }
            }
            t += step;
        }
        delivered as f64 * 8.0 / 20.0
    }

    #[test]
    fn a_lossless_dch_delivers_its_nominal_rate_minus_header_overhead() {
        for (kbps, ms) in [(384.0, 10), (64.0, 20)] {
            let cfg = DchConfig { rate: Rate(kbps * 1e3), tti: Dur::from_millis(ms), ..DchConfig::default() };
            // The 2-byte AMD header is outside the nominal rate; one LI byte per 1500-byte SDU is inside.
            let expected = kbps * 1e3 * 1500.0 / 1501.0;
            let got = goodput(&cfg);
            assert!((got / expected - 1.0).abs() < 0.01, "{kbps} kb/s: {got} vs {expected}");
        }
    }

    #[test]
    fn gilbert_losses_cost_throughput_but_rlc_recovers_them() {
        let cfg = DchConfig {
            rate: Rate(384e3),
            tti: Dur::from_millis(10),
            loss: Some(GilbertConfig { mean: 0.015, burst: 2.0 }),
            ..DchConfig::default()
        };
        let got = goodput(&cfg);
        let nominal = 384e3 * 1500.0 / 1501.0;
        assert!(got < nominal * 0.995 && got > nominal * 0.9, "{got}");
    }

    /// Selective-repeat ARQ with a window that does not limit: each PDU needs
    /// 1/(1 − p) transmissions on average, so the efficiency is 1 − p per PDU
    /// (i.i.d. PDU losses, Gilbert with burst 1).
    #[test]
    fn rlc_am_on_an_iid_channel_delivers_one_minus_p_of_the_rate() {
        for p in [0.05, 0.1, 0.2] {
            let cfg = DchConfig {
                rate: Rate(384e3),
                tti: Dur::from_millis(10),
                loss: Some(GilbertConfig { mean: p, burst: 1.0 }),
                ..DchConfig::default()
            };
            let expected = 384e3 * 1500.0 / 1501.0 * (1.0 - p);
            let got = goodput(&cfg);
            assert!((got / expected - 1.0).abs() < 0.03, "p {p}: {got} vs {expected}");
        }
    }

    /// With `fading`, the PDUs of one TTI are all lost or all delivered, and
    /// the share of lost frames is the chain's mean.
    #[test]
    fn fading_loses_whole_frames_at_the_mean_ratio() {
        let cfg = DchConfig {
            rate: Rate(384e3),
            tti: Dur::from_millis(10),
            fading: Some(FadingConfig { mean: 0.1, doppler: 0.05, errors: FadingErrors::Frame }),
            ..DchConfig::default()
        };
        assert_eq!(cfg.validate("radio.dch"), Ok(()));
        let mut dch = Dch::new(&cfg, 40, stream(5, "down"));
        let (mut frames_lost, frames) = (0u64, 200_000u64);
        for f in 0..frames {
            let now = Time(f * dch.tti().0);
            let before = dch.stats().pdus_lost;
            for _ in 0..dch.pdus_per_tti() {
                dch.transmit(now, Pdu::Mrw(crate::rlc::Mrw { sn: 0, discard_through: 0 }));
            }
            let lost = dch.stats().pdus_lost - before;
            assert!(lost == 0 || lost == 12, "frame {f}: {lost} of 12 PDUs lost");
            frames_lost += (lost == 12) as u64;
            dch.line().arrivals(Time::MAX, &mut Vec::<Pdu>::new());
        }
        let ratio = frames_lost as f64 / frames as f64;
        assert!((ratio / 0.1 - 1.0).abs() < 0.06, "{ratio}");
        // With PDU errors a frame can lose some of its PDUs: ε of them overall, in bursts of
        // 1/r PDUs (one chain state per PDU slot).
        let pdus = DchConfig {
            fading: Some(FadingConfig { mean: 0.1, doppler: 0.05, errors: FadingErrors::Pdu }),
            ..cfg.clone()
        };
        let burst = pdus.fading.as_ref().unwrap().chain().burst;
        let mut dch = Dch::new(&pdus, 40, stream(5, "down"));
        let (mut partial, mut runs, mut prev) = (0u64, 0u64, false);
        for f in 0..frames {
            let now = Time(f * dch.tti().0);
            let before = dch.stats().pdus_lost;
            for _ in 0..12 {
                let lost_before = dch.stats().pdus_lost;
                dch.transmit(now, Pdu::Mrw(crate::rlc::Mrw { sn: 0, discard_through: 0 }));
                let lost = dch.stats().pdus_lost > lost_before;
                runs += (lost && !prev) as u64;
                prev = lost;
            }
            let k = dch.stats().pdus_lost - before;
            partial += (k > 0 && k < 12) as u64;
            dch.line().arrivals(Time::MAX, &mut Vec::<Pdu>::new());
        }
        let (lost, sent) = (dch.stats().pdus_lost as f64, dch.stats().pdus_sent as f64);
        assert!(partial > frames / 100, "bursts start and end inside frames: {partial}");
        assert!(((lost / sent) / 0.1 - 1.0).abs() < 0.06, "{lost} / {sent}");
        assert!(
            ((lost / runs as f64) / burst - 1.0).abs() < 0.06,
            "bursts of {} PDUs, chain {burst}",
            lost / runs as f64
        );
        let both = DchConfig { loss: Some(GilbertConfig { mean: 0.1, burst: 1.0 }), ..cfg };
        assert!(both.validate("radio.dch").unwrap_err().starts_with("radio.dch.fading: give either"));
    }
}
