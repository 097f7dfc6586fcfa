//! ETSI UMTS 30.03 (TR 101 112) web browsing model, for the DSCH study's
//! interactive users (Ferrús et al.).
//!
//! A session is `packet_calls` packet calls separated by `reading_time`; a
//! packet call is `datagrams` datagrams, `datagram_interval` apart, each of
//! `datagram_size` bytes (Pareto, k = 81.5 B, α = 1.1, capped at 66666 B: mean
//! ≈ 480 B). Sessions follow each other after `session_gap`. The defaults are
//! the ETSI values with the interval set so that a packet call runs at the
//! study's 61.4 kb/s: 480 B · 8 / 61.4 kb/s = 62.5 ms.
//!
//! `transport = "udp"` (default): the datagrams go downlink as UDP (open loop,
//! cut into MTU-sized packets). `transport = "tcp"`: the server writes each
//! datagram's bytes at its time into one persistent TCP connection per user;
//! the reading time then starts when the call's last byte has arrived.
//! Every draw comes from the user's own stream.
//!
//! Download record (kind `"packet_call"`): request = the call's first
//! datagram, completion = arrival of its last byte, bytes = bytes delivered
//! (UDP: datagram losses lower it).

use super::{download, draw_start, one, zero};
use super::{Application, Count, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing, Udp};
use crate::packet::{Dir, FlowId};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// How the datagrams travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Udp,
    Tcp,
}

/// `model = "etsi_web"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EtsiWebConfig {
    #[serde(default = "one")]
    pub users: u32,
    /// When a user's first session starts (drawn per user).
    #[serde(default = "zero")]
    pub start: Dist<Secs>,
    /// Packet calls per session.
    #[serde(default = "geometric5")]
    pub packet_calls: Dist<Count>,
    /// Reading time between packet calls.
    #[serde(default = "reading")]
    pub reading_time: Dist<Secs>,
    /// Datagrams per packet call.
    #[serde(default = "geometric25")]
    pub datagrams: Dist<Count>,
    /// Time between datagrams of a packet call.
    #[serde(default = "interval")]
    pub datagram_interval: Dist<Secs>,
    /// Datagram size.
    #[serde(default = "etsi_size")]
    pub datagram_size: Dist<Size>,
    /// Time between the end of a session and the next.
    #[serde(default = "zero")]
    pub session_gap: Dist<Secs>,
    #[serde(default = "udp")]
    pub transport: Transport,
    #[serde(default)]
    pub udp: Udp,
}

fn geometric5() -> Dist<Count> {
    Dist::new(super::distributions::Family::Geometric { mean: 5.0 })
}
fn geometric25() -> Dist<Count> {
    Dist::new(super::distributions::Family::Geometric { mean: 25.0 })
}
fn reading() -> Dist<Secs> {
    Dist::new(super::distributions::Family::Exponential { mean: 412.0 })
}
fn interval() -> Dist<Secs> {
    Dist::new(super::distributions::Family::Exponential { mean: 0.0625 })
}
fn etsi_size() -> Dist<Size> {
    Dist::new(super::distributions::Family::Pareto { k: 81.5, alpha: 1.1, cap: Some(66_666.0) })
}
fn udp() -> Transport {
    Transport::Udp
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The next wake-up starts a session.
    Idle,
    /// The next wake-up starts a packet call.
    Reading,
    /// The next wake-up sends a datagram.
    Call,
    /// TCP: the call is sent; waiting for its last byte.
    Draining,
}

/// A packet call: its flow (UDP stream or TCP connection), timing and bytes sent.
#[derive(Clone, Copy)]
struct Call {
    user: u32,
    flow: FlowId,
    timing: Timing,
    bytes: u64,
    sent: bool,
}

struct User {
    rng: Rng,
    phase: Phase,
    calls_left: u32,
    datagrams_left: u32,
    /// TCP: the user's connection and the bytes the server has written to it.
    conn: Option<FlowId>,
    written: u64,
    call: Option<Call>,
}

/// The running `etsi_web` source.
pub struct EtsiWeb {
    cfg: EtsiWebConfig,
    first_user: u32,
    users: Vec<User>,
    /// UDP: every packet call, resolved against the streams at the end.
    calls: Vec<Call>,
}

impl EtsiWeb {
    pub fn new(cfg: &EtsiWebConfig, first_user: u32, rngs: &Streams) -> EtsiWeb {
        let users = rngs
            .users(cfg.users)
            .into_iter()
            .map(|rng| User {
                rng,
                phase: Phase::Idle,
                calls_left: 0,
                datagrams_left: 0,
                conn: None,
                written: 0,
                call: None,
            })
            .collect();
        EtsiWeb { cfg: cfg.clone(), first_user, users, calls: Vec::new() }
    }

    fn start_call(&mut self, u: u32, ctx: &mut Ctx) {
        let user_id = self.first_user + u;
        let user = &mut self.users[u as usize];
        user.phase = Phase::Call;
        user.datagrams_left = self.cfg.datagrams.count(&mut user.rng).max(1);
        let flow = match self.cfg.transport {
            Transport::Udp => ctx.open_stream(user_id, Dir::Down),
            Transport::Tcp => *user.conn.get_or_insert_with(|| ctx.open(user_id, u)),
        };
        let timing = Timing::now(ctx, &[flow]);
        user.call = Some(Call { user: user_id, flow, timing, bytes: 0, sent: false });
        self.send_datagram(u, ctx);
    }

    fn send_datagram(&mut self, u: u32, ctx: &mut Ctx) {
        let user = &mut self.users[u as usize];
        let size = self.cfg.datagram_size.bytes(&mut user.rng).max(1);
        let call = user.call.as_mut().expect("in a packet call");
        match self.cfg.transport {
            Transport::Udp => ctx.datagram(call.flow, size, &self.cfg.udp),
            Transport::Tcp => ctx.send(call.flow, Side::Server, size),
        }
        call.bytes += size;
        user.datagrams_left -= 1;
        if user.datagrams_left > 0 {
            let at = ctx.now + self.cfg.datagram_interval.dur(&mut user.rng);
            return ctx.wake_at(at, u);
        }
        // The call's last datagram is out.
        call.sent = true;
        user.calls_left = user.calls_left.saturating_sub(1);
        match self.cfg.transport {
            Transport::Udp => {
                self.calls.push(*call);
                user.call = None;
                self.after_call(u, ctx);
            }
            Transport::Tcp => {
                user.written += call.bytes;
                user.phase = Phase::Draining;
                ctx.notify(call.flow, Side::Client, user.written);
            }
        }
    }

    /// Reading time before the next call, or the gap before the next session.
    fn after_call(&mut self, u: u32, ctx: &mut Ctx) {
        let user = &mut self.users[u as usize];
        let (phase, wait) = if user.calls_left > 0 {
            (Phase::Reading, self.cfg.reading_time.dur(&mut user.rng))
        } else {
            (Phase::Idle, self.cfg.session_gap.dur(&mut user.rng))
        };
        user.phase = phase;
        ctx.wake_at(ctx.now + wait, u);
    }
}

impl Application for EtsiWeb {
    fn start(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter_mut().enumerate() {
            let at = draw_start(&self.cfg.start, &mut user.rng);
            ctx.wake_at(at, u as u32);
        }
    }

    fn wake(&mut self, u: u32, ctx: &mut Ctx) {
        match self.users[u as usize].phase {
            Phase::Idle => {
                let user = &mut self.users[u as usize];
                user.calls_left = self.cfg.packet_calls.count(&mut user.rng).max(1);
                self.start_call(u, ctx);
            }
            Phase::Reading => self.start_call(u, ctx),
            Phase::Call => self.send_datagram(u, ctx),
            Phase::Draining => {}
        }
    }

    /// TCP: the call's last byte arrived.
    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let u = n.user - self.first_user;
        let Some(call) = self.users[u as usize].call.take() else {
            return;
        };
        let d = download("packet_call", call.user, call.bytes, call.timing, Some(ctx.now), ctx.rtos(call.flow));
        ctx.record(d);
        self.after_call(u, ctx);
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        let unfinished = self.users.iter().filter_map(|u| u.call);
        for call in self.calls.iter().copied().chain(unfinished) {
            let d = match self.cfg.transport {
                Transport::Udp => {
                    let (bytes, last) = ctx.stream_delivery(call.flow);
                    let completion = last.filter(|_| call.sent);
                    download("packet_call", call.user, bytes, call.timing, completion, 0)
                }
                Transport::Tcp => {
                    download("packet_call", call.user, call.bytes, call.timing, None, ctx.rtos(call.flow))
                }
            };
            ctx.record(d);
        }
    }
}

/// The ETSI datagram size has the mean the standard quotes (≈ 480 B).
#[cfg(test)]
#[test]
fn etsi_datagram_size_mean_is_480_bytes() {
    let m = etsi_size().mean();
    assert!((m - 480.0).abs() < 2.0, "mean {m}");
}
