//! The "realistic radio network" of lte-uplink-raqm.md: one cell of radius
//! 500 m, one UE moving in it at 0.83 m/s (pedestrian) or 30 m/s (car), its
//! uplink rate following link adaptation on a fading channel. The thesis gives
//! only the cell, the speeds, one base station, one beam and no MIMO; the rest
//! is the spec's *choice* (link adaptation on a Rayleigh fading channel with
//! Doppler from the UE speed), with these models and values:
//!
//! - mobility: random waypoint in the cell ([`crate::radio::env::waypoint`]);
//! - path loss L = 128.1 + 37.6·log10(d / km) dB (TR 36.942 §4.5, macro cell
//!   at 2 GHz), at least the minimum coupling loss of 70 dB (TR 36.942 Table 4.1)
//!   ([`PATH_LOSS`], the radio environment's law), held for each 0.1 m of
//!   travel ([`PATH_LOSS_STEP_M`]);
//! - fast fading: Rayleigh, Doppler from the speed and the carrier
//!   ([`crate::radio::env::rayleigh`]), flat over the allocation (*simplification*:
//!   no frequency-selective scheduling);
//! - no shadowing, no other cells: SINR = SNR (*our choice*: the study has
//!   one cell); several UEs each move and fade on their own (each its own
//!   stream), sharing the cell's resource blocks ([`super::capacity::Offer`]);
//! - UE transmit power 23 dBm (TS 36.101 power class 3), eNodeB noise figure
//!   5 dB (TR 36.942 Table 4.4), thermal noise −174 dBm/Hz over the bandwidth;
//! - link adaptation per TTI from the SINR ([`super::link_adaptation`]): the
//!   TTI's rate is bandwidth × efficiency, and its transport block rate × TTI
//!   as for the other capacities ([`super::capacity`]). The HARQ block error
//!   probability is the link adaptation's target, `harq.bler` (the spec's
//!   choice: 10%).
//!
//! ```toml
//! [radio.lte.channel]
//! speed = "0.83m/s"
//! cell_radius = "500m"     # default
//! bandwidth = "9MHz"       # default: 50 resource blocks of a 10 MHz carrier
//! carrier = "2GHz"         # default
//! ```
//!
//! `[radio.environment]` may set `radius`, `speed`, `carrier`,
//! `path_loss_1km`, `path_loss_exponent`, `min_distance` and
//! `min_coupling_loss` over these (docs/scenario.md).

use super::link_adaptation::{Shannon, DOWNLINK, UPLINK};
use crate::radio::env::propagation::PathLoss;
use crate::radio::env::rayleigh::Rayleigh;
use crate::radio::env::waypoint::Waypoint;
use crate::radio::env::{Environment, EnvironmentKeys, FadingKind, LayoutKind, MobilityKind};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::units::{Hertz, Meters, Speed};
use serde::{Deserialize, Serialize};

/// UE transmit power, dBm (TS 36.101 power class 3).
pub const UE_POWER_DBM: f64 = 23.0;
/// eNodeB receiver noise figure, dB (TR 36.942 Table 4.4).
pub const NOISE_FIGURE_DB: f64 = 5.0;
/// Thermal noise density, dBm/Hz.
pub const THERMAL_DBM_PER_HZ: f64 = -174.0;
/// Minimum coupling loss, dB (TR 36.942 Table 4.1, macro cell).
pub const MIN_COUPLING_LOSS_DB: f64 = 70.0;
/// eNodeB transmit power, dBm (TR 36.942 §4, macro cell at 10 MHz).
pub const ENB_POWER_DBM: f64 = 46.0;
/// UE receiver noise figure, dB (TR 36.942 §4).
pub const UE_NOISE_FIGURE_DB: f64 = 9.0;

/// The link budget of one direction: the transmitter's power, the
/// receiver's noise figure, and the link adaptation rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub tx_power_dbm: f64,
    pub noise_figure_db: f64,
    pub shannon: Shannon,
}

impl Budget {
    /// The receiver's noise over `bandwidth` Hz, dBm: thermal noise plus the noise figure.
    pub fn noise_dbm(&self, bandwidth: f64) -> f64 {
        THERMAL_DBM_PER_HZ + 10.0 * bandwidth.log10() + self.noise_figure_db
    }
}

/// The uplink: a power class 3 UE to the eNodeB.
pub const UPLINK_BUDGET: Budget =
    Budget { tx_power_dbm: UE_POWER_DBM, noise_figure_db: NOISE_FIGURE_DB, shannon: UPLINK };
/// The downlink: the eNodeB's whole power over the bandwidth to a UE.
pub const DOWNLINK_BUDGET: Budget =
    Budget { tx_power_dbm: ENB_POWER_DBM, noise_figure_db: UE_NOISE_FIGURE_DB, shannon: DOWNLINK };

/// The path loss law (TR 36.942 §4.5 at 2 GHz, from 1 m, floored at the minimum coupling loss).
pub const PATH_LOSS: PathLoss =
    PathLoss { at_1km_db: 128.1, db_per_decade: 37.6, min_distance: 1.0, min_loss_db: MIN_COUPLING_LOSS_DB };

/// `[radio.lte.channel]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// The UE's speed (the study: 0.83 or 30 m/s).
    pub speed: Speed,
    /// The cell's radius (the study: 500 m).
    #[serde(default = "defaults::radius")]
    pub cell_radius: Meters,
    /// The bandwidth the UE's transport blocks use (*our choice*: 9 MHz, the
    /// 50 resource blocks of a 10 MHz carrier).
    #[serde(default = "defaults::bandwidth")]
    pub bandwidth: Hertz,
    /// The carrier frequency (*our choice*: 2 GHz, where the path-loss law holds).
    #[serde(default = "defaults::carrier")]
    pub carrier: Hertz,
}

mod defaults {
    use crate::units::{Hertz, Meters};
    pub fn radius() -> Meters {
        Meters(500.0)
    }
    pub fn bandwidth() -> Hertz {
        Hertz(9e6)
    }
    pub fn carrier() -> Hertz {
        Hertz(2e9)
    }
}

/// The environment keys the one-cell channel (the disc) does not model.
const UNUSED: [&str; 9] = [
    "rings",
    "wrap_around",
    "channel_step",
    "shadowing_sigma",
    "shadowing_site_correlation",
    "shadowing_decorrelation",
    "noise_dbm",
    "speed_min",
    "speed_max",
];

/// Shadowing between sites of a layout of several cells, and along a UE's
/// track, unless `[radio.environment]` says otherwise: correlation 0.5
/// between sites and 50 m decorrelation distance (TS 36.814 Table
/// A.2.1.1.2-3; its σ of 8 dB is the scenario's to set, the default 0 keeps
/// the one cell's channel).
const SITE_CORRELATION: f64 = 0.5;
const DECORRELATION_M: f64 = 50.0;

impl ChannelConfig {
    /// The environment of this section (`key`) under `over`, `[radio.environment]`:
    /// the single disc, random waypoint, [`PATH_LOSS`], Rayleigh fading.
    pub fn environment(&self, over: Option<(&str, &EnvironmentKeys)>) -> Result<Environment, String> {
        self.environment_of("LTE uplink", "radio.lte.channel", over)
    }

    /// The environment as [`ChannelConfig::environment`], for `system` whose section is `key`.
    pub fn environment_of(
        &self,
        system: &str,
        key: &str,
        over: Option<(&str, &EnvironmentKeys)>,
    ) -> Result<Environment, String> {
        self.resolve(system, key, over, LayoutKind::Disc)
    }

    /// The environment as [`ChannelConfig::environment_of`] for a system
    /// that also models several cells: with `layout = "hex7"` or `"hex"` in
    /// `over`, the UEs move on straight tracks across the wrapped layout
    /// ([`crate::radio::env::track`]) with shadowing towards every site.
    pub fn environment_of_cells(
        &self,
        system: &str,
        key: &str,
        over: Option<(&str, &EnvironmentKeys)>,
    ) -> Result<Environment, String> {
        let layout = over.and_then(|(_, k)| k.layout).unwrap_or(LayoutKind::Disc);
        self.resolve(system, key, over, layout)
    }

    /// The environment on `layout`: the disc's (random waypoint, no
    /// shadowing) or several cells' (straight tracks, shadowing).
    fn resolve(
        &self,
        system: &str,
        key: &str,
        over: Option<(&str, &EnvironmentKeys)>,
        layout: LayoutKind,
    ) -> Result<Environment, String> {
        let disc = layout == LayoutKind::Disc;
        let mobility = if disc { MobilityKind::Waypoint } else { MobilityKind::Track };
        let env = Environment {
            layout,
            rings: 1,
            radius: self.cell_radius.0,
            wrap_around: !disc,
            mobility,
            speed_min: self.speed.0,
            speed_max: self.speed.0,
            channel_step: if disc { 0.0 } else { PATH_LOSS_STEP_M },
            path_loss: PATH_LOSS,
            shadowing_sigma: 0.0,
            shadowing_site_correlation: if disc { 0.0 } else { SITE_CORRELATION },
            shadowing_decorrelation: if disc { 0.0 } else { DECORRELATION_M },
            fading: FadingKind::Rayleigh,
            carrier: self.carrier.0,
            noise_dbm: None,
        };
        let (models, unused) = match disc {
            true => ((LayoutKind::Disc, MobilityKind::Waypoint, FadingKind::Rayleigh), &UNUSED[..]),
            false => ((layout, mobility, FadingKind::Rayleigh), &["noise_dbm"][..]),
        };
        let own = EnvironmentKeys::default();
        let env = env.resolve(system, models, unused, (key, &own), over)?;
        if let Some((key, _)) = over {
            check(&env, key, "radius")?;
        }
        Ok(env)
    }

    pub fn validate(&self, key: &str) -> Result<(), String> {
        self.validate_of("LTE uplink", key)
    }

    /// Checks ranges for `system`, whose section is `key`.
    pub fn validate_of(&self, system: &str, key: &str) -> Result<(), String> {
        check(&self.environment_of(system, key, None)?, key, "cell_radius")?;
        if !(self.bandwidth.0 >= 180e3 && self.bandwidth.0 <= 100e6) {
            return Err(format!("{key}.bandwidth: must be between 180kHz (a resource block) and 100MHz"));
        }
        Ok(())
    }

    /// The highest rate the channel gives (Thr_MAX over the bandwidth), b/s.
    pub fn peak_bps(&self) -> f64 {
        self.bandwidth.0 * super::link_adaptation::THR_MAX
    }
}

/// The ranges the LTE uplink's environment holds to (`radius`: the radius key's name under `key`).
fn check(env: &Environment, key: &str, radius: &str) -> Result<(), String> {
    if !(env.radius > 0.0 && env.radius <= 100e3) {
        return Err(format!("{key}.{radius}: must be above 0 and at most 100km"));
    }
    if !(0.0..=150.0).contains(&env.speed_max) {
        return Err(format!("{key}.speed: at most 150m/s"));
    }
    if !(env.carrier >= 400e6 && env.carrier <= 6e9) {
        return Err(format!("{key}.carrier: must be between 400MHz and 6GHz"));
    }
    Ok(())
}

/// The travel over which the path loss is held (*our choice*: 0.1 m). Above
/// the minimum coupling loss's 28 m, 0.1 m moves [`PATH_LOSS`] by at most
/// 37.6·log10(28.6/28.5) = 0.06 dB, against the tens of dB of the fading;
/// the fading itself moves at every TTI.
pub const PATH_LOSS_STEP_M: f64 = 0.1;

/// One UE's channel over time: its SNR is the mean SNR of its distance
/// (held for [`PATH_LOSS_STEP_M`] of travel) times the fading's power gain.
#[derive(Clone, Debug)]
pub struct Channel {
    track: Waypoint,
    fading: Rayleigh,
    path_loss: PathLoss,
    noise_dbm: f64,
    tx_power_dbm: f64,
    adaptation: Adaptation,
    /// How long the UE takes to travel [`PATH_LOSS_STEP_M`] (none: it stands).
    step: Option<Dur>,
    /// The SNR without fading (linear), until `due`.
    mean_snr: f64,
    due: Option<Time>,
}

impl Channel {
    /// The channel of `cfg` in `env`, its track and fading drawn from `rng`.
    pub fn new(cfg: &ChannelConfig, env: &Environment, rng: Rng) -> Channel {
        Channel::with_budget(cfg, env, rng, &UPLINK_BUDGET)
    }

    /// The channel of `cfg` in `env` on the link `budget`, its track and fading drawn from `rng`.
    pub fn with_budget(cfg: &ChannelConfig, env: &Environment, mut rng: Rng, budget: &Budget) -> Channel {
        let fading = Rayleigh::new(env.speed_max, env.carrier, &mut rng);
        Channel {
            track: Waypoint::new(env.radius, env.speed_max, rng),
            fading,
            path_loss: env.path_loss,
            noise_dbm: budget.noise_dbm(cfg.bandwidth.0),
            tx_power_dbm: budget.tx_power_dbm,
            adaptation: Adaptation::new(cfg.bandwidth.0, budget.shannon),
            step: (env.speed_max > 0.0).then(|| Dur::from_secs_f64(PATH_LOSS_STEP_M / env.speed_max)),
            mean_snr: 0.0,
            due: None,
        }
    }

    /// The UE's distance to the base station at `t`, m (times in order).
    pub fn distance_at(&mut self, t: Time) -> f64 {
        self.track.distance_at(t)
    }

    /// The SNR without fading at `t`, linear (times in order): recomputed
    /// once the UE has travelled [`PATH_LOSS_STEP_M`] since it last was.
    fn mean_snr(&mut self, t: Time) -> f64 {
        if self.due.is_none_or(|due| t >= due) {
            let loss = self.path_loss.loss_db(self.track.distance_at(t));
            self.mean_snr = 10f64.powf((self.tx_power_dbm - loss - self.noise_dbm) / 10.0);
            self.due = Some(self.step.map_or(Time::MAX, |step| t + step));
        }
        self.mean_snr
    }

    /// The rate link adaptation gives at `t`, b/s (times in order).
    pub fn rate_at(&mut self, t: Time) -> f64 {
        let sinr = self.mean_snr(t) * self.fading.gain(t);
        self.adaptation.rate(sinr)
    }
}

/// Link adaptation over a bandwidth: the rate at a SINR is the bandwidth
/// times the efficiency of the attenuated Shannon bound ([`Shannon`]).
#[derive(Clone, Copy, Debug)]
pub struct Adaptation {
    bandwidth: f64,
    shannon: Shannon,
    /// The SINR from which link adaptation gives its highest rate.
    sinr_at_cap: f64,
}

impl Adaptation {
    /// Link adaptation by `shannon` over `bandwidth` Hz.
    pub fn new(bandwidth: f64, shannon: Shannon) -> Adaptation {
        Adaptation { bandwidth, shannon, sinr_at_cap: shannon.sinr_at_cap() }
    }

    /// The rate at the linear `sinr`, b/s.
    pub fn rate(&self, sinr: f64) -> f64 {
        // At the cap, no logarithm.
        let efficiency = match sinr >= self.sinr_at_cap {
            true => self.shannon.thr_max,
            false => self.shannon.efficiency_of_ratio(sinr),
        };
        self.bandwidth * efficiency
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    use super::super::link_adaptation::efficiency;

    #[test]
    fn path_loss_at_hand_computed_distances() {
        // 1 km: 128.1 dB; 500 m: 128.1 − 37.6·0.30103 = 116.78 dB; 250 m: 105.46 dB; 10 m: the 70 dB floor.
        assert!((PATH_LOSS.loss_db(1000.0) - 128.1).abs() < 1e-9);
        assert!((PATH_LOSS.loss_db(500.0) - 116.781).abs() < 1e-3);
        assert!((PATH_LOSS.loss_db(250.0) - 105.463).abs() < 1e-3);
        assert_eq!(PATH_LOSS.loss_db(10.0), MIN_COUPLING_LOSS_DB);
    }

    /// At the cell edge without fading: noise −174 + 69.54 + 5 = −99.46 dBm over
    /// 9 MHz; received 23 − 116.78 = −93.78 dBm; SNR 5.68 dB; efficiency
    /// 0.4·log2(1 + 3.70) = 0.893 bit/s/Hz: 8.04 Mb/s.
    #[test]
    fn the_cell_edge_budget() {
        let noise = THERMAL_DBM_PER_HZ + 10.0 * 9e6f64.log10() + NOISE_FIGURE_DB;
        let snr = UE_POWER_DBM - PATH_LOSS.loss_db(500.0) - noise;
        assert!((snr - 5.68).abs() < 0.01, "{snr}");
        assert!((9e6 * efficiency(snr) / 1e6 - 8.04).abs() < 0.01);
    }

    /// The rate varies between 0 and the peak, faster for the faster UE: the
    /// share of consecutive TTIs whose rates differ by more than 10% is higher at 30 m/s.
    #[test]
    fn rates_follow_the_channel_and_the_speed() {
        let changes = |speed: f64| {
            let cfg = ChannelConfig { speed: Speed(speed), ..toml::from_str("speed = \"1m/s\"").unwrap() };
            let mut ch = Channel::new(&cfg, &cfg.environment(None).unwrap(), stream(3, "channel"));
            let rates: Vec<f64> = (0..20_000).map(|k| ch.rate_at(Time::ZERO + Dur::from_millis(k))).collect();
            assert!(rates.iter().all(|&r| (0.0..=cfg.peak_bps()).contains(&r)));
            rates.windows(2).filter(|w| (w[1] - w[0]).abs() > 0.1 * w[0].max(1.0)).count() as f64 / rates.len() as f64
        };
        let (slow, fast) = (changes(0.83), changes(30.0));
        assert!(slow < 0.02 && fast > 10.0 * slow, "TTI-to-TTI changes: {slow} at 0.83 m/s, {fast} at 30 m/s");
    }

    /// The mean SNR is held for 0.1 m of travel (100 ms at 1 m/s), then
    /// follows the distance again; meanwhile it is within
    /// 37.6·log10(1 + 0.1/d) dB of the SNR at the UE's own distance d.
    #[test]
    fn the_path_loss_is_held_for_a_tenth_of_a_metre() {
        let cfg: ChannelConfig = toml::from_str("speed = \"1m/s\"").unwrap();
        let mut ch = Channel::new(&cfg, &cfg.environment(None).unwrap(), stream(4, "hold"));
        let mut replica = ch.clone();
        let (db, mut step_start) = (|x: f64| 10.0 * x.log10(), 0.0);
        for k in 0..2000 {
            let t = Time::ZERO + Dur::from_millis(k);
            let d = replica.distance_at(t);
            let exact = UE_POWER_DBM - PATH_LOSS.loss_db(d) - ch.noise_dbm;
            let held = db(ch.mean_snr(t));
            if k % 100 == 0 {
                assert!((held - exact).abs() < 1e-9, "{k} ms: recomputed");
                step_start = held;
            }
            assert!(held == step_start && (held - exact).abs() <= 37.6 * (1.0 + 0.1 / d).log10(), "{k} ms");
        }
    }

    /// Four UEs of one cell, each on its own channel (its own stream): their
    /// rates differ, and each UE's rate (1 s means: the fading averaged out)
    /// follows its own distance to the base station, not another UE's. Fails
    /// if the UEs share one channel (then every UE's rate is the same and
    /// follows one UE's distance only).
    #[test]
    fn each_ue_has_its_own_channel_and_its_rate_follows_its_own_distance() {
        use crate::radio::ran::lte_ul::LteConfig;
        let cfg: LteConfig = toml::from_str("[channel]\nspeed = \"30m/s\"").unwrap();
        let c = cfg.channel.clone().unwrap();
        let env = c.environment(None).unwrap();
        let streams = || (0..4).map(|u| stream(7, &format!("channel{u}"))).collect::<Vec<_>>();
        let mut offer = cfg.offer(None, streams());
        let mut replicas: Vec<Channel> = streams().into_iter().map(|r| Channel::new(&c, &env, r)).collect();
        let (mut rate, mut dist) = (vec![Vec::new(); 4], vec![Vec::new(); 4]);
        for s in 0..1000 {
            let mut sum = [0.0; 4];
            for k in 0..100 {
                offer.open(Time::ZERO + Dur::from_millis(s * 1000 + k * 10));
                for (u, x) in sum.iter_mut().enumerate() {
                    *x += offer.rate(u);
                }
            }
            for u in 0..4 {
                rate[u].push(sum[u] / 100.0);
                dist[u].push(replicas[u].distance_at(Time::ZERO + Dur::from_millis(s * 1000 + 500)).ln());
            }
        }
        let corr = |a: &[f64], b: &[f64]| {
            let n = a.len() as f64;
            let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
            let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
            let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
            let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
            cov / (va * vb).sqrt()
        };
        for u in 0..4 {
            let v = (u + 1) % 4;
            assert_ne!(rate[u], rate[v], "UEs {u} and {v} share a channel");
            let (own, other) = (corr(&rate[u], &dist[u]), corr(&rate[u], &dist[v]));
            assert!(own < -0.6 && other.abs() < 0.4, "UE {u}: rate vs own log-distance {own}, vs UE {v}'s {other}");
        }
    }

    #[test]
    fn errors_name_the_key() {
        let c: ChannelConfig = toml::from_str("speed = \"30m/s\"\ncell_radius = \"0m\"").unwrap();
        assert_eq!(
            c.validate("radio.lte.channel").unwrap_err(),
            "radio.lte.channel.cell_radius: must be above 0 and at most 100km"
        );
        let e = toml::from_str::<ChannelConfig>("speed = 30").unwrap_err().message().to_string();
        assert!(e.contains("like \"30m/s\""), "{e}");
    }
}
