//! `[radio]` in a scenario: the radio access network every user reaches the
//! core through, as a template for each user's bearer, with groups of users
//! that override it.
//!
//! ```toml
//! [radio]                      # every user's bearer, and the cell
//! bearer = "hsdpa"
//! buffer = "100kB"
//! [radio.hsdpa]
//! rate = "3.6Mbps"
//! scheduler = "proportional_fair"
//!
//! [[radio.groups]]             # users 0 and 1: their own queue and channel
//! users = 2
//! queue = { scheme = "red" }
//! channel_rate = "1.8Mbps"
//! ```
//!
//! The users are those of the traffic sources (`traffic.users`, `flows`,
//! `first_user`). A group covers `users` users from `first_user` (default:
//! after the previous group); a user in no group gets the template.

use super::bearer::config::BearerConfig;
use super::bearer::dch::DchConfig;
use super::bearer::pdcp::{pdcp_discipline, BufferHolds};
use super::env::{EnvironmentConfig, EnvironmentKeys};
use super::ran::dsch::config::DschConfig;
use super::ran::hsdpa::channel::{HsdpaConfig, HsdpaUser};
use super::ran::hsdsch::config::CellsConfig;
use super::ran::lte_dl::config::LteDownlinkConfig;
use super::ran::lte_ul::config::LteConfig;
use crate::queue::QueueConfig;
use crate::rlc::RlcConfig;
use crate::time::Dur;
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

/// Which downlink serves the PDCP buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BearerKind {
    /// An R99 DCH per user: a cell with no shared scheduler.
    Dch,
    /// HSDPA: the cell's shared HS-DSCH and its scheduler.
    Hsdpa,
    /// The LTE uplink of Tan, MSc thesis, 2009 (`[radio.lte]`): the managed
    /// buffer is each UE's (`uplink_buffer`, `uplink_queue`); the downlink
    /// only carries ACKs.
    LteUplink,
    /// The DSCH system of Ferrús et al. (`[radio.dsch]`): 37 cells whose
    /// resource managers grant each frame's DSCH transport format.
    Dsch,
    /// The LTE downlink (`[radio.lte_downlink]`): one cell or several, the eNodeB's PDCP
    /// buffer (`buffer`, `queue`) and RLC per UE, a scheduler, HARQ.
    LteDownlink,
}

impl BearerKind {
    /// Every kind, for `cellaqm list links`: (kind, its section, what it is).
    pub const ALL: [(BearerKind, &'static str, &'static str); 5] = [
        (BearerKind::Dch, "radio.dch", "an R99 DCH per user (WCDMA): each user's own downlink, no shared scheduler"),
        (
            BearerKind::Hsdpa,
            "radio.hsdpa",
            "HSDPA (WCDMA): the cell's shared HS-DSCH and its scheduler (round robin, max C/I, proportional fair, …)",
        ),
        (
            BearerKind::LteUplink,
            "radio.lte",
            "the LTE uplink: each UE's buffer is the managed one (BSRs, SR and grants, HARQ); the downlink carries ACKs",
        ),
        (
            BearerKind::Dsch,
            "radio.dsch",
            "the UMTS DSCH in a 37-cell system with prioritised resource management (conversational users first, web load)",
        ),
        (
            BearerKind::LteDownlink,
            "radio.lte_downlink",
            "the LTE downlink: the eNodeB's PDCP buffer and RLC (AM or UM) per UE, each on its own channel, a scheduler, HARQ",
        ),
    ];

    /// The sections under `[radio]` the kind reads (the first is its own, required).
    pub fn sections(self) -> &'static [&'static str] {
        match self {
            BearerKind::Dch => &["dch"],
            BearerKind::Hsdpa => &["hsdpa", "cells"],
            BearerKind::LteUplink => &["lte"],
            BearerKind::Dsch => &["dsch"],
            BearerKind::LteDownlink => &["lte_downlink"],
        }
    }

    /// The kind's own section under `[radio]`.
    pub fn section(self) -> &'static str {
        self.sections()[0]
    }

    /// Why the kind refuses a scenario's `ack_delay` (the ACK delay control
    /// of the WCDMA study acts on a UMTS bearer's uplink), if it does.
    pub fn refuses_ack_delay(self) -> Option<&'static str> {
        match self {
            BearerKind::LteUplink => Some("its downlink carries the ACKs unmanaged"),
            BearerKind::LteDownlink => Some("not modelled there"),
            BearerKind::Dch | BearerKind::Hsdpa | BearerKind::Dsch => None,
        }
    }

    /// The kind's name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            BearerKind::Dch => "dch",
            BearerKind::Hsdpa => "hsdpa",
            BearerKind::LteUplink => "lte_uplink",
            BearerKind::Dsch => "dsch",
            BearerKind::LteDownlink => "lte_downlink",
        }
    }
}

/// `[radio]` in a scenario.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// The bearer: `"dch"` (section `[radio.dch]`), `"hsdpa"` (`[radio.hsdpa]`),
    /// `"lte_uplink"` (`[radio.lte]`), `"dsch"` (`[radio.dsch]`) or
    /// `"lte_downlink"` (`[radio.lte_downlink]`).
    pub bearer: BearerKind,
    /// R99 DCH downlink (with `bearer = "dch"`), each user's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dch: Option<DchConfig>,
    /// HSDPA downlink (with `bearer = "hsdpa"`), shared by the cell's users.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hsdpa: Option<HsdpaConfig>,
    /// The seven-cell HS-DSCH system (with `bearer = "hsdpa"`): its cells
    /// serve each user's bearer straight from the RNC every TTI, in place of
    /// the single cell's flow control and Node-B buffers (docs/hsdsch.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<CellsConfig>,
    /// The LTE uplink (with `bearer = "lte_uplink"`): one cell, a UE per user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte: Option<LteConfig>,
    /// The DSCH system (with `bearer = "dsch"`): the scenario's users are its
    /// users under test (docs/dsch.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsch: Option<DschConfig>,
    /// The LTE downlink (with `bearer = "lte_downlink"`): one cell or several, a bearer per UE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte_downlink: Option<LteDownlinkConfig>,
    /// The radio environment of `[radio.cells]`, `[radio.dsch]` or
    /// `[radio.lte.channel]`: layout, mobility, propagation (its keys take
    /// precedence over the same keys in those sections).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentConfig>,
    /// The uplink DCH carrying TCP ACKs and RLC STATUS (default: 64 kb/s, 20 ms TTI).
    #[serde(default)]
    pub uplink: DchConfig,
    /// PDCP buffer limit in bytes (30 kB or 100 kB in the study); absent: no limit.
    #[serde(default)]
    pub buffer: Option<Bytes>,
    /// PDCP buffer limit in packets; absent: no limit.
    #[serde(default)]
    pub buffer_packets: Option<u32>,
    /// How long a packet counts in the PDCP buffer and the UE's: until the RLC
    /// has it acknowledged (default), until the RLC takes it, or until its last
    /// PDU is sent.
    #[serde(default, skip_serializing_if = "BufferHolds::is_default")]
    pub buffer_holds: BufferHolds,
    /// The queue discipline of the PDCP buffer.
    #[serde(default)]
    pub queue: QueueConfig,
    /// The UE's uplink buffer; absent: no limit.
    #[serde(default)]
    pub uplink_buffer: Option<Bytes>,
    /// The queue discipline of the UE's uplink buffer (as `queue` is the PDCP buffer's).
    #[serde(default)]
    pub uplink_queue: QueueConfig,
    /// RLC AM parameters, both directions.
    #[serde(default)]
    pub rlc: RlcConfig,
    /// Groups of users whose bearers differ from the template.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<UserGroup>,
}

/// `[[radio.groups]]`: users whose bearer differs from the template; every key
/// but `users` and `first_user` replaces the template's.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UserGroup {
    /// How many users the group has.
    pub users: u32,
    /// Its first user; absent: the user after the previous group's last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_user: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink_queue: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlc: Option<RlcConfig>,
    /// The users' own DCH downlink (with `bearer = "dch"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dch: Option<DchConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<DchConfig>,
    /// Priority class for the `priority` scheduler (0, the default, is served first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    /// The HS-DSCH rate the users' channels support when scheduled (with
    /// `bearer = "hsdpa"`); absent: the cell's `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_rate: Option<Rate>,
}

impl RadioConfig {
    /// Each group's first user and user count, in order.
    pub fn group_ranges(&self) -> Vec<(u32, u32)> {
        let mut next = 0u32;
        self.groups
            .iter()
            .map(|g| {
                let first = g.first_user.unwrap_or(next);
                next = first.saturating_add(g.users);
                (first, g.users)
            })
            .collect()
    }

    /// The group of `user`, if any (the last one listing it: groups are checked not to overlap).
    fn group_of(&self, user: u32) -> Option<&UserGroup> {
        let ranges = self.group_ranges();
        self.groups.iter().zip(ranges).rev().find(|(_, (first, n))| (*first..first + n).contains(&user)).map(|(g, _)| g)
    }

    /// The bearer of `user`.
    pub fn bearer(&self, user: u32) -> BearerConfig {
        self.with_group(self.group_of(user).unwrap_or(&UserGroup::default()))
    }

    /// The template with group `g`'s keys.
    fn with_group(&self, g: &UserGroup) -> BearerConfig {
        let g = g.clone();
        BearerConfig {
            buffer: g.buffer.or(self.buffer),
            buffer_packets: g.buffer_packets.or(self.buffer_packets),
            buffer_holds: self.buffer_holds,
            queue: g.queue.unwrap_or_else(|| self.queue.clone()),
            uplink_buffer: g.uplink_buffer.or(self.uplink_buffer),
            uplink_queue: g.uplink_queue.unwrap_or_else(|| self.uplink_queue.clone()),
            rlc: g.rlc.unwrap_or_else(|| self.rlc.clone()),
            dch: g.dch.or_else(|| self.dch.clone()),
            uplink: g.uplink.unwrap_or_else(|| self.uplink.clone()),
        }
    }

    /// How `user` is seen on the single HSDPA cell: its channel's rate and its priority class.
    pub fn hsdpa_user(&self, user: u32) -> HsdpaUser {
        let g = self.group_of(user);
        HsdpaUser {
            channel_bps: g.and_then(|g| g.channel_rate).map(|r| r.bps()),
            priority: g.and_then(|g| g.priority).unwrap_or(0),
        }
    }

    /// Checks the section for a scenario with `users` users that runs for
    /// `duration`; errors name the key under `key` (normally `radio`).
    pub fn validate(&self, key: &str, users: u32, duration: Dur) -> Result<(), String> {
        if users > u16::MAX as u32 + 1 {
            return Err(format!("traffic: {users} users, but [{key}] serves at most 65536"));
        }
        // The radio's own sections; any other one given is a mistake.
        let sections = [
            ("dsch", self.dsch.is_some()),
            ("dch", self.dch.is_some()),
            ("hsdpa", self.hsdpa.is_some()),
            ("cells", self.cells.is_some()),
            ("lte", self.lte.is_some()),
            ("lte_downlink", self.lte_downlink.is_some()),
        ];
        let own = self.bearer.sections();
        if let Some((name, _)) = sections.iter().find(|(name, on)| *on && !own.contains(name)) {
            return Err(format!(
                "{key}.{name}: given, but {key}.bearer is \"{}\" (use [{key}.{}])",
                self.bearer.name(),
                self.bearer.section()
            ));
        }
        match self.bearer {
            BearerKind::Dsch => {
                match &self.dsch {
                    Some(d) => d.validate(&format!("{key}.dsch"), duration)?,
                    None => return Err(format!("{key}.dsch: missing (required with bearer = \"dsch\")")),
                }
                if let Some(i) = self.groups.iter().position(|g| g.channel_rate.is_some() || g.priority.is_some()) {
                    return Err(format!(
                        "{key}.groups[{i}]: channel_rate and priority are not used with bearer = \"dsch\""
                    ));
                }
            }
            BearerKind::Dch => {
                if self.dch.is_none() {
                    return Err(format!("{key}.dch: missing (required with bearer = \"dch\")"));
                }
            }
            BearerKind::Hsdpa => {
                match &self.hsdpa {
                    Some(h) => h.validate(&format!("{key}.hsdpa"))?,
                    None => return Err(format!("{key}.hsdpa: missing (required with bearer = \"hsdpa\")")),
                }
                if let Some(c) = &self.cells {
                    c.validate(&format!("{key}.cells"))?;
                    if let Some(i) = self.groups.iter().position(|g| g.channel_rate.is_some() || g.priority.is_some()) {
                        return Err(format!(
                            "{key}.groups[{i}]: channel_rate and priority are not used with [{key}.cells] (the channel is the user's SIR)"
                        ));
                    }
                }
            }
            BearerKind::LteUplink => {
                match &self.lte {
                    Some(l) => l.validate(&format!("{key}.lte"))?,
                    None => return Err(format!("{key}.lte: missing (required with bearer = \"lte_uplink\")")),
                }
                self.refuse_umts_keys(key)?;
            }
            BearerKind::LteDownlink => {
                match &self.lte_downlink {
                    Some(l) => l.validate(&format!("{key}.lte_downlink"))?,
                    None => {
                        return Err(format!("{key}.lte_downlink: missing (required with bearer = \"lte_downlink\")"))
                    }
                }
                self.refuse_lte_downlink_keys(key)?;
            }
        }
        self.check_environment(key)?;
        self.validate_bearer(key, &self.with_group(&UserGroup::default()))?;
        let mut taken: Vec<(u32, u32, usize)> = Vec::new();
        for (i, (g, (first, n))) in self.groups.iter().zip(self.group_ranges()).enumerate() {
            let gkey = format!("{key}.groups[{i}]");
            if n == 0 {
                return Err(format!("{gkey}.users: must be at least 1"));
            }
            if first.saturating_add(n) > users {
                return Err(format!(
                    "{gkey}: users {first}..{} but the traffic has {users} users (0..{})",
                    first.saturating_add(n) - 1,
                    users.saturating_sub(1)
                ));
            }
            if let Some(&(_, _, j)) = taken.iter().find(|(f, m, _)| first < f + m && *f < first + n) {
                return Err(format!("{gkey}: users {first}..{} overlap {key}.groups[{j}]", first + n - 1));
            }
            taken.push((first, n, i));
            if g.dch.is_some() && self.bearer != BearerKind::Dch {
                return Err(format!("{gkey}.dch: only with {key}.bearer = \"dch\""));
            }
            if g.channel_rate.is_some() && self.bearer != BearerKind::Hsdpa {
                return Err(format!(
                    "{gkey}.channel_rate: only with {key}.bearer = \"hsdpa\" (a DCH user has its own rate: dch.rate)"
                ));
            }
            if self.bearer == BearerKind::LteDownlink {
                let unused = [
                    ("uplink_buffer", g.uplink_buffer.is_some()),
                    ("uplink_queue", g.uplink_queue.is_some()),
                    ("rlc", g.rlc.is_some()),
                    ("uplink", g.uplink.is_some()),
                    ("priority", g.priority.is_some()),
                ];
                if let Some((name, _)) = unused.iter().find(|k| k.1) {
                    return Err(format!("{gkey}.{name}: not used with {key}.bearer = \"lte_downlink\""));
                }
            }
            if self.bearer == BearerKind::LteUplink {
                let umts = [
                    ("buffer", g.buffer.is_some()),
                    ("buffer_packets", g.buffer_packets.is_some()),
                    ("queue", g.queue.is_some()),
                    ("rlc", g.rlc.is_some()),
                    ("uplink", g.uplink.is_some()),
                    ("priority", g.priority.is_some()),
                ];
                if let Some((name, _)) = umts.iter().find(|k| k.1) {
                    return Err(format!("{gkey}.{name}: not used with {key}.bearer = \"lte_uplink\""));
                }
            }
            if let (Some(rlc), BearerKind::Hsdpa) = (&g.rlc, self.bearer) {
                if rlc.pdu_size != self.rlc.pdu_size {
                    return Err(format!(
                        "{gkey}.rlc.pdu_size: the HS-DSCH cell has one MAC-d PDU size ({key}.rlc.pdu_size = {})",
                        self.rlc.pdu_size
                    ));
                }
            }
            self.validate_bearer(&gkey, &self.with_group(g))?;
        }
        Ok(())
    }

    /// With the LTE uplink, the keys of the UMTS bearers (RNC PDCP buffer,
    /// RLC AM, uplink DCH) have no meaning: refused when they differ from
    /// their defaults.
    fn refuse_umts_keys(&self, key: &str) -> Result<(), String> {
        let keys = [
            ("buffer", self.buffer.is_some()),
            ("buffer_packets", self.buffer_packets.is_some()),
            ("buffer_holds", !self.buffer_holds.is_default()),
            ("queue", self.queue != QueueConfig::default()),
            ("rlc", self.rlc != RlcConfig::default()),
            ("uplink", self.uplink != DchConfig::default()),
        ];
        match keys.iter().find(|k| k.1) {
            Some((name, _)) => Err(format!("{key}.{name}: not used with bearer = \"lte_uplink\" (see [{key}.lte])")),
            None => Ok(()),
        }
    }

    /// With the LTE downlink, the keys of the UMTS RLC, the uplink DCH and the
    /// UE's buffer have no meaning (the PDCP buffer counts what waits for the
    /// RLC): refused when they differ from their defaults.
    fn refuse_lte_downlink_keys(&self, key: &str) -> Result<(), String> {
        let keys = [
            ("buffer_holds", !self.buffer_holds.is_default()),
            ("uplink_buffer", self.uplink_buffer.is_some()),
            ("uplink_queue", self.uplink_queue != QueueConfig::default()),
            ("rlc", self.rlc != RlcConfig::default()),
            ("uplink", self.uplink != DchConfig::default()),
        ];
        match keys.iter().find(|k| k.1) {
            Some((name, _)) => {
                Err(format!("{key}.{name}: not used with bearer = \"lte_downlink\" (see [{key}.lte_downlink])"))
            }
            None => Ok(()),
        }
    }

    /// Checks one bearer; `key` names where its keys were given.
    /// `[radio.environment]`'s keys, named as in a scenario under `[radio]`.
    pub fn environment_keys(&self) -> Option<(&'static str, &EnvironmentKeys)> {
        self.environment.as_ref().map(|e| ("radio.environment", &e.keys))
    }

    /// The environment of the radio system that has one, with `[radio.environment]` over it.
    fn check_environment(&self, key: &str) -> Result<(), String> {
        let over_key = format!("{key}.environment");
        let over = self.environment.as_ref().map(|e| (over_key.as_str(), &e.keys));
        let channel = self.lte.as_ref().and_then(|l| l.channel.as_ref());
        if let Some(env) = self.lte_downlink.as_ref().and_then(|l| l.environment(&format!("{key}.lte_downlink"), over))
        {
            return env.map(drop);
        }
        match (&self.cells, &self.dsch, channel) {
            (Some(c), _, _) => c.environment(&format!("{key}.cells"), over).map(drop),
            (_, Some(d), _) => d.environment(&format!("{key}.dsch"), over).map(drop),
            (_, _, Some(c)) => c.environment(over).map(drop),
            _ if over.is_some() => Err(format!(
                "{over_key}: no radio system of this scenario has an environment (it serves [{key}.cells], [{key}.dsch], [{key}.lte.channel] and [{key}.lte_downlink.channel])"
            )),
            _ => Ok(()),
        }
    }

    fn validate_bearer(&self, key: &str, b: &BearerConfig) -> Result<(), String> {
        if let Some(d) = &b.dch {
            d.validate(&format!("{key}.dch"))?;
        }
        b.uplink.validate(&format!("{key}.uplink"))?;
        if b.buffer_packets == Some(0) {
            return Err(format!("{key}.buffer_packets: a zero-sized buffer can hold no packet"));
        }
        for (name, queue) in [("queue", &b.queue), ("uplink_queue", &b.uplink_queue)] {
            queue.validate(&format!("{key}.{name}"))?;
            // The LTE buffers are left as a link's is, when the RLC takes a packet: any scheme.
            if !matches!(self.bearer, BearerKind::LteUplink | BearerKind::LteDownlink) {
                pdcp_discipline(queue, &format!("{key}.{name}"))?;
            }
        }
        b.rlc.validate(&format!("{key}.rlc"))
    }
}
