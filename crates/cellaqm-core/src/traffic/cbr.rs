//! Constant bit rate over UDP: conversational traffic (Ferrús et al.:
//! video-phone users, CBR 64 kb/s, 160-byte SDUs, calls of mean 120 s).
//!
//! Each user sends one `packet`-byte datagram every `packet`·8/`rate`
//! seconds in `direction` (or, with `arrivals = "poisson"`, at exponential
//! intervals of that mean: Poisson arrivals of the same mean rate), during calls of `call_duration` (absent: one call
//! until the end of the run) separated by `call_gap`. Each call is its own UDP
//! stream (a row of flows.csv); call lengths and gaps come from the user's
//! own stream. The run reports datagrams sent, delivered,
//! lost and their one-way delay (`datagrams` in summary.json).

use super::distributions::Family;
use super::{draw_start, one, zero, Application, Ctx, Dist, Secs, Streams, Udp};
use crate::packet::{Dir, FlowId};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

/// Which way a datagram source sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Server → UE.
    Down,
    /// UE → server.
    Up,
}

impl Direction {
    pub fn dir(self) -> Dir {
        match self {
            Direction::Down => Dir::Down,
            Direction::Up => Dir::Up,
        }
    }
}

/// How a user's datagrams are spaced in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// One every `packet`·8/`rate` seconds (constant bit rate).
    #[default]
    Periodic,
    /// Exponential intervals of that mean, from the user's stream (a Poisson process).
    Poisson,
}

/// `model = "cbr"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CbrConfig {
    #[serde(default = "one")]
    pub users: u32,
    /// When a user's first call starts (drawn per user).
    #[serde(default = "zero")]
    pub start: Dist<Secs>,
    /// Payload bit rate.
    #[serde(default = "kbps64")]
    pub rate: Rate,
    /// Payload bytes per datagram.
    #[serde(default = "b160")]
    pub packet: Bytes,
    #[serde(default = "down")]
    pub direction: Direction,
    #[serde(default)]
    pub arrivals: Arrivals,
    /// Call length; absent: one call to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_duration: Option<Dist<Secs>>,
    /// Time between calls.
    #[serde(default = "zero")]
    pub call_gap: Dist<Secs>,
    #[serde(default)]
    pub udp: Udp,
}

fn kbps64() -> Rate {
    Rate(64_000.0)
}
fn b160() -> Bytes {
    Bytes(160)
}
fn down() -> Direction {
    Direction::Down
}

impl CbrConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.packet.0 == 0 {
            return Err(format!("{key}.packet: must be positive"));
        }
        if self.udp.mtu <= self.udp.header {
            return Err(format!("{key}.udp.mtu: must exceed udp.header"));
        }
        if self.udp.mtu.0 > crate::tcp::MAX_IP_PACKET {
            return Err(format!("{key}.udp.mtu: at most {} bytes (one IP packet)", crate::tcp::MAX_IP_PACKET));
        }
        Ok(())
    }
}

struct User {
    rng: Rng,
    /// The call in progress: its stream and when it ends.
    call: Option<(FlowId, Time)>,
}

/// The running `cbr` source.
pub struct Cbr {
    cfg: CbrConfig,
    first_user: u32,
    interval: Dur,
    /// With Poisson arrivals, the interval's distribution.
    poisson: Option<Dist<Secs>>,
    users: Vec<User>,
}

impl Cbr {
    pub fn new(cfg: &CbrConfig, first_user: u32, rngs: &Streams) -> Cbr {
        let interval = Dur::transmission(cfg.packet.0, cfg.rate.0);
        Cbr {
            cfg: cfg.clone(),
            first_user,
            interval,
            poisson: (cfg.arrivals == Arrivals::Poisson)
                .then(|| Dist::new(Family::Exponential { mean: interval.as_secs_f64() })),
            users: rngs.users(cfg.users).into_iter().map(|rng| User { rng, call: None }).collect(),
        }
    }
}

impl Application for Cbr {
    fn start(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter_mut().enumerate() {
            let at = draw_start(&self.cfg.start, &mut user.rng);
            ctx.wake_at(at, u as u32);
        }
    }

    /// The next datagram of user `u` is due (or its next call starts).
    fn wake(&mut self, u: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let user = &mut self.users[u as usize];
        let (stream, end) = match user.call {
            Some(call) => call,
            None => {
                let stream = ctx.open_stream(self.first_user + u, self.cfg.direction.dir());
                let end = match &self.cfg.call_duration {
                    Some(d) => now + d.dur(&mut user.rng),
                    None => Time::MAX,
                };
                user.call = Some((stream, end));
                (stream, end)
            }
        };
        if now >= end {
            user.call = None;
            let at = now + self.cfg.call_gap.dur(&mut user.rng);
            return ctx.wake_at(at, u);
        }
        ctx.datagram(stream, self.cfg.packet.0, &self.cfg.udp);
        let gap = self.poisson.map_or(self.interval, |d| d.dur(&mut user.rng));
        ctx.wake_at((now + gap).min(end), u);
    }
}
