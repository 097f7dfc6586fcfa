//! `[radio.lte]`: the LTE uplink of lte-uplink-raqm.md, with `[radio] bearer =
//! "lte_uplink"`. Each key's source is in its doc: the spec (the study or its
//! stated choices), a 3GPP default, or *our choice*.
//!
//! ```toml
//! [radio]
//! bearer = "lte_uplink"
//! uplink_buffer = "1.25MB"            # the UE's RLC transmission buffer
//! uplink_queue = { scheme = "taqm" }  # its discipline
//! [radio.lte]
//! rate = "10Mbps"                     # the cell's uplink rate (high rate of a square wave)
//! low_rate = "3Mbps"
//! period = "2s"                       # square wave; or switch_at = "20s" for one down-switch
//! receiver = { scheme = "raqm" }      # R-AQM at the eNodeB
//! [radio.lte.harq]
//! bler = 0.1
//! ```
//!
//! or, instead of `rate`, the realistic radio: `[radio.lte.channel] speed = "30m/s"`.

use super::bsr::BsrConfig;
use super::buffer_size::BsrTable;
use crate::bsr::ReceiverConfig;
use crate::capacity::Schedule;
use crate::radio::env::EnvironmentKeys;
use crate::radio::lte::capacity::{Blocks, Capacity, Offer};
use crate::radio::lte::channel::{Channel, ChannelConfig};
use crate::radio::lte::harq::HarqConfig;
use crate::radio::scheduler::SchedulerKind;
use crate::rng::Rng;
use crate::time::Dur;
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

/// `[radio.lte]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LteConfig {
    /// The cell's uplink rate (the spec's bandwidth scenarios, 128 kb/s … 50 Mb/s);
    /// with `low_rate`, the high rate. Required unless `channel` gives the rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The realistic radio: the rate follows link adaptation on the UE's fading channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChannelConfig>,
    /// The low rate of a square wave (`period`) or after a down-switch (`switch_at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_rate: Option<Rate>,
    /// Square wave: the dwell at each rate, high first (the spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Dur>,
    /// Down-switch: when the rate drops to `low_rate` (the spec: 20 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_at: Option<Dur>,
    /// TTI (LTE: 1 ms).
    #[serde(default = "defaults::tti")]
    pub tti: Dur,
    /// From a grant to the transmission it allows (the spec's choice: 4 TTIs; TS 36.213 §8: n + 4 in FDD).
    #[serde(default = "defaults::grant_delay")]
    pub grant_delay: Dur,
    /// Scheduling Request period (the spec's choice: an SR opportunity every 10 ms).
    #[serde(default = "defaults::sr_period")]
    pub sr_period: Dur,
    /// The grant an SR gets: room for a BSR and some data (the spec's choice, its size *our choice*).
    #[serde(default = "defaults::sr_grant")]
    pub sr_grant: Bytes,
    /// Least grant: at low rates the cell's bytes build up over TTIs until a
    /// grant of this size is possible, so headers do not eat a tiny block (*our choice*).
    #[serde(default = "defaults::min_grant")]
    pub min_grant: Bytes,
    /// periodicBSR-Timer (the spec: 20 ms, studied 10–100 ms).
    #[serde(default = "defaults::bsr_period")]
    pub bsr_period: Dur,
    /// retxBSR-Timer (TS 36.331 default sf2560).
    #[serde(default = "defaults::retx_bsr_timer")]
    pub retx_bsr_timer: Dur,
    /// The Buffer Size levels of the BSRs and what the eNodeB reads:
    /// `"extended"` (TS 36.321 Table 6.1.3.1-2, Rel-10: the study's results
    /// need the eNodeB to see backlogs above 150 kB, see docs/lte-uplink.md),
    /// `"legacy"` (Table 6.1.3.1-1, Rel-8, at most 150 000 B) or `"exact"` bytes.
    #[serde(default)]
    pub bsr_table: BsrTable,
    /// Retired: `quantised_bsr = true` was `bsr_table = "legacy"`, `false` was `"exact"`;
    /// given, [`LteConfig::validate`] says so.
    #[serde(default, skip_serializing)]
    pub quantised_bsr: Option<bool>,
    /// An SR tells the delay estimator that the data reported next arrived
    /// within an SR period before it (*our choice*; `false`: the spec's rule,
    /// arrivals uniform since the previous, empty report).
    #[serde(default = "defaults::yes")]
    pub sr_bounds_estimate: bool,
    /// From HARQ giving a block up to its data being sent again by RLC AM (*our choice*).
    #[serde(default = "defaults::status_delay")]
    pub status_delay: Dur,
    /// UEs granted in one TTI at most (*our choice*).
    #[serde(default = "defaults::ues_per_tti")]
    pub ues_per_tti: u32,
    /// The eNodeB's uplink scheduler across the cell's UEs.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// The downlink carrying ACKs to the UEs: a fixed-rate, fixed-delay path
    /// per UE, not a bottleneck (the spec's choice; rate and delay *our choice*).
    #[serde(default = "defaults::down_rate")]
    pub down_rate: Rate,
    #[serde(default = "defaults::down_delay")]
    pub down_delay: Dur,
    #[serde(default)]
    pub harq: HarqConfig,
    /// A receiver-side filter at the eNodeB (R-AQM), fed by this radio's BSRs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverConfig>,
}

mod defaults {
    use crate::time::Dur;
    use crate::units::{Bytes, Rate};
    pub fn tti() -> Dur {
        Dur::from_millis(1)
    }
    pub fn grant_delay() -> Dur {
        Dur::from_millis(4)
    }
    pub fn sr_period() -> Dur {
        Dur::from_millis(10)
    }
    pub fn sr_grant() -> Bytes {
        Bytes(64)
    }
    pub fn min_grant() -> Bytes {
        Bytes(125)
    }
    pub fn bsr_period() -> Dur {
        Dur::from_millis(20)
    }
    pub fn retx_bsr_timer() -> Dur {
        Dur::from_millis(2560)
    }
    pub fn yes() -> bool {
        true
    }
    pub fn status_delay() -> Dur {
        Dur::from_millis(40)
    }
    pub fn ues_per_tti() -> u32 {
        4
    }
    pub fn down_rate() -> Rate {
        Rate(50e6)
    }
    pub fn down_delay() -> Dur {
        Dur::from_millis(2)
    }
}

impl LteConfig {
    /// The defaults around a fixed `rate`.
    pub fn fixed(rate: Rate) -> LteConfig {
        LteConfig {
            rate: Some(rate),
            channel: None,
            low_rate: None,
            period: None,
            switch_at: None,
            tti: defaults::tti(),
            grant_delay: defaults::grant_delay(),
            sr_period: defaults::sr_period(),
            sr_grant: defaults::sr_grant(),
            min_grant: defaults::min_grant(),
            bsr_period: defaults::bsr_period(),
            retx_bsr_timer: defaults::retx_bsr_timer(),
            bsr_table: BsrTable::default(),
            quantised_bsr: None,
            sr_bounds_estimate: true,
            status_delay: defaults::status_delay(),
            ues_per_tti: defaults::ues_per_tti(),
            scheduler: SchedulerKind::default(),
            down_rate: defaults::down_rate(),
            down_delay: defaults::down_delay(),
            harq: HarqConfig::default(),
            receiver: None,
        }
    }

    /// The nominal rate: the fixed or high rate, or the channel's peak, b/s
    /// (what rate-aware queue disciplines at the UE are told).
    pub fn nominal_bps(&self) -> f64 {
        match (&self.channel, self.rate) {
            (Some(c), _) => c.peak_bps(),
            (None, Some(r)) => r.bps(),
            (None, None) => unreachable!("validate: rate or channel"),
        }
    }

    /// What the TTIs offer the grants of `rngs.len()` UEs: one rate for the
    /// cell, or with `channel` each UE's own, its track and fading drawn
    /// from its stream in `rngs`, in the environment of `channel` under
    /// `over` (`[radio.environment]`).
    pub fn offer(&self, over: Option<(&str, &EnvironmentKeys)>, rngs: Vec<Rng>) -> Offer {
        let Some(c) = &self.channel else {
            return Offer::shared(Blocks::new(self.capacity(), self.tti));
        };
        let env = c.environment(over).expect("validated");
        let blocks = |rng| Blocks::new(Capacity::Channel(Box::new(Channel::new(c, &env, rng))), self.tti);
        Offer::per_ue(rngs.into_iter().map(blocks).collect())
    }

    /// The cell's capacity over time, without a channel.
    fn capacity(&self) -> Capacity {
        let (high_bps, low) = (self.nominal_bps(), self.low_rate.map(|r| r.bps()));
        Capacity::Schedule(match (low, self.period, self.switch_at) {
            (Some(low_bps), Some(period), _) => Schedule::square_wave(high_bps, low_bps, period),
            (Some(low_bps), None, Some(at)) => Schedule::down_switch(high_bps, low_bps, at),
            _ => Schedule::fixed(high_bps),
        })
    }

    /// The UEs' BSR configuration.
    pub fn bsr(&self) -> BsrConfig {
        BsrConfig { periodic: Some(self.bsr_period), retx: self.retx_bsr_timer, table: self.bsr_table }
    }

    /// Checks ranges; errors name the key under `key` (normally `radio.lte`).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if let Some(q) = self.quantised_bsr {
            let was = if q { "legacy" } else { "exact" };
            return Err(format!(
                "{key}.quantised_bsr: replaced by {key}.bsr_table = \"legacy\" | \"extended\" | \"exact\" \
                 (quantised_bsr = {q} was bsr_table = \"{was}\")"
            ));
        }
        let rate_ok = |r: Rate| r.bps().is_finite() && r.bps() > 0.0;
        match (self.rate, &self.channel) {
            (None, None) => return Err(format!("{key}.rate: missing (or give {key}.channel, the realistic radio)")),
            (Some(_), Some(_)) => {
                return Err(format!("{key}.channel: gives the rate itself; remove {key}.rate"));
            }
            (Some(r), None) if !rate_ok(r) => return Err(format!("{key}.rate: must be positive")),
            (None, Some(c)) => {
                c.validate(&format!("{key}.channel"))?;
                if let Some(name) = [
                    ("low_rate", self.low_rate.is_some()),
                    ("period", self.period.is_some()),
                    ("switch_at", self.switch_at.is_some()),
                ]
                .iter()
                .find(|(_, on)| *on)
                .map(|(n, _)| n)
                {
                    return Err(format!("{key}.{name}: not with {key}.channel (the channel sets the rate)"));
                }
            }
            _ => {}
        }
        match (self.low_rate, self.period, self.switch_at) {
            (Some(r), _, _) if !rate_ok(r) => return Err(format!("{key}.low_rate: must be positive")),
            (Some(_), Some(_), Some(_)) => {
                return Err(format!("{key}.switch_at: give either period (square wave) or switch_at (down-switch)"))
            }
            (Some(_), None, None) => {
                return Err(format!("{key}.low_rate: needs period (square wave) or switch_at (down-switch)"))
            }
            (None, Some(_), _) => return Err(format!("{key}.period: needs low_rate")),
            (None, _, Some(_)) => return Err(format!("{key}.switch_at: needs low_rate")),
            _ => {}
        }
        let positive = [
            ("tti", self.tti), // first: an absent period stands for it
            ("period", self.period.unwrap_or(self.tti)),
            ("sr_period", self.sr_period),
            ("bsr_period", self.bsr_period),
            ("retx_bsr_timer", self.retx_bsr_timer),
        ];
        for (name, d) in positive {
            if d == Dur::ZERO {
                return Err(format!("{key}.{name}: must be positive"));
            }
        }
        for (name, d) in [("grant_delay", self.grant_delay), ("sr_period", self.sr_period)] {
            if !d.0.is_multiple_of(self.tti.0) {
                return Err(format!("{key}.{name}: must be a whole number of TTIs ({})", self.tti));
            }
        }
        if self.grant_delay.0 / self.tti.0 > 8 {
            return Err(format!("{key}.grant_delay: at most 8 TTIs (a HARQ round trip)"));
        }
        if !self.harq.rtt.0.is_multiple_of(self.tti.0) || self.harq.rtt < self.grant_delay {
            return Err(format!("{key}.harq.rtt: must be a whole number of TTIs, at least grant_delay"));
        }
        if self.sr_grant.0 < 8 {
            return Err(format!("{key}.sr_grant: at least 8 B (a BSR, MAC and RLC headers and a byte of data)"));
        }
        if self.ues_per_tti == 0 {
            return Err(format!("{key}.ues_per_tti: must be at least 1"));
        }
        if !rate_ok(self.down_rate) {
            return Err(format!("{key}.down_rate: must be positive"));
        }
        self.harq.validate(&format!("{key}.harq"))?;
        if let Some(r) = &self.receiver {
            r.validate(&format!("{key}.receiver"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn read(extra: &str) -> Result<LteConfig, String> {
        let text = format!("rate = \"10Mbps\"\n{extra}");
        let c: LteConfig = toml::from_str(&text).map_err(|e| e.message().to_string())?;
        c.validate("radio.lte").map(|_| c)
    }

    #[test]
    fn defaults_and_capacities() {
        let capacity = |c: &LteConfig| format!("{:?}", c.capacity());
        let c = read("").unwrap();
        assert_eq!(c, LteConfig::fixed(Rate(10e6)));
        assert_eq!(capacity(&c), format!("{:?}", Capacity::Schedule(Schedule::fixed(10e6))));
        let c = read("low_rate = \"3Mbps\"\nperiod = \"2s\"").unwrap();
        let wave = Schedule::square_wave(10e6, 3e6, Dur::from_secs(2));
        assert_eq!(capacity(&c), format!("{:?}", Capacity::Schedule(wave)));
        let c = read("low_rate = \"500kbps\"\nswitch_at = \"20s\"").unwrap();
        let switch = Schedule::down_switch(10e6, 0.5e6, Dur::from_secs(20));
        assert_eq!(capacity(&c), format!("{:?}", Capacity::Schedule(switch)));
        let c: LteConfig = toml::from_str("[channel]\nspeed = \"30m/s\"").unwrap();
        c.validate("radio.lte").unwrap();
        let offer = format!("{:?}", c.offer(None, vec![stream(1, "channel"), stream(2, "channel")]));
        assert!(offer.starts_with("Offer { rates: PerUe([Blocks { capacity: Channel("), "{offer}");
        assert_eq!(c.nominal_bps(), 18e6, "9 MHz × 2 bit/s/Hz");
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(read("period = \"2s\"").unwrap_err(), "radio.lte.period: needs low_rate");
        assert_eq!(
            read("low_rate = \"1Mbps\"").unwrap_err(),
            "radio.lte.low_rate: needs period (square wave) or switch_at (down-switch)"
        );
        assert_eq!(
            read("grant_delay = \"1500us\"").unwrap_err(),
            "radio.lte.grant_delay: must be a whole number of TTIs (1ms)"
        );
        assert_eq!(read("[harq]\nmax_tx = 0").unwrap_err(), "radio.lte.harq.max_tx: must be at least 1");
        assert!(read("bsr = 1").unwrap_err().starts_with("unknown field `bsr`"));
        assert_eq!(
            read("quantised_bsr = true").unwrap_err(),
            "radio.lte.quantised_bsr: replaced by radio.lte.bsr_table = \"legacy\" | \"extended\" | \"exact\" \
             (quantised_bsr = true was bsr_table = \"legacy\")"
        );
        assert!(read("bsr_table = \"rel8\"").unwrap_err().starts_with("unknown variant `rel8`"));
        assert_eq!(read("bsr_table = \"exact\"").unwrap().bsr().table, BsrTable::Exact);
        assert_eq!(
            read("[channel]\nspeed = \"1m/s\"").unwrap_err(),
            "radio.lte.channel: gives the rate itself; remove radio.lte.rate"
        );
        let bare = |text: &str| toml::from_str::<LteConfig>(text).unwrap().validate("radio.lte").unwrap_err();
        assert_eq!(bare("tti = \"1ms\""), "radio.lte.rate: missing (or give radio.lte.channel, the realistic radio)");
        assert_eq!(
            bare("low_rate = \"1Mbps\"\n[channel]\nspeed = \"1m/s\""),
            "radio.lte.low_rate: not with radio.lte.channel (the channel sets the rate)"
        );
    }
}
