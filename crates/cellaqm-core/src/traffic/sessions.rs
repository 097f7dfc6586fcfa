//! Session generator over a pool of users (hsdsch-buffer-mgmt.md).
//!
//! New sessions arrive independently of how fast earlier ones go: the first at
//! `start` + one waiting time, then one waiting time (`interarrival`) after
//! another, until `stop` (or the end of the run). Each session goes to a user
//! drawn uniformly among the idle ones; if none is idle the session is lost.
//! A session is one transfer of `size` bytes to its user on a new TCP
//! connection: the client opens it and, if `request_size` is not zero, writes
//! a request; the server sends the file (at once, or when the request has
//! arrived) and closes; the session is served when the client has the last
//! byte, and its user is idle again.
//!
//! Examples: long transfers: 60 users, 250 kB, interarrival uniform with mean
//! 0.2–0.4 s; web: 200 users, Pareto sizes (mean 25 kB, shape 1.1, cap 2 MB),
//! mean waiting time 0.015–0.0175 s. Download record kind `"session"`.

use super::{download, Application, Ctx, Dist, Notice, Secs, Side, Size, Timing};
use crate::packet::FlowId;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// `model = "sessions"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsConfig {
    /// Size of the user pool.
    pub users: u32,
    /// Waiting time between new sessions.
    pub interarrival: Dist<Secs>,
    /// Bytes per session.
    pub size: Dist<Size>,
    /// Request written by the client first; `"0B"`: the server sends at once.
    #[serde(default = "no_request")]
    pub request_size: Dist<Size>,
    /// When the generator starts.
    #[serde(default)]
    pub start: Dur,
    /// When it stops generating; absent: at the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Dur>,
}

fn no_request() -> Dist<Size> {
    Dist::fixed(0.0)
}

impl SessionsConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.interarrival.mean() <= 0.0 {
            return Err(format!(
                "{key}.interarrival: the mean waiting time must be positive"
            ));
        }
        Ok(())
    }
}

struct Session {
    conn: FlowId,
    timing: Timing,
    size: u64,
}

/// The running `sessions` source.
pub struct Sessions {
    cfg: SessionsConfig,
    first_user: u32,
    rng: Rng,
    /// Idle users (local indices).
    idle: Vec<u32>,
    busy: Vec<Option<Session>>,
}

impl Sessions {
    pub fn new(cfg: &SessionsConfig, first_user: u32, rng: Rng) -> Sessions {
        Sessions {
            cfg: cfg.clone(),
            first_user,
            rng,
            idle: (0..cfg.users).collect(),
            busy: (0..cfg.users).map(|_| None).collect(),
        }
    }

    fn next_arrival(&mut self, now: Time, ctx: &mut Ctx) {
        let at = now + self.cfg.interarrival.dur(&mut self.rng);
        if self.cfg.stop.is_none_or(|s| at <= Time::ZERO + s) {
            ctx.wake_at(at, 0);
        }
    }
}

fn respond(ctx: &mut Ctx, conn: FlowId, size: u64) {
    ctx.send(conn, Side::Server, size);
    ctx.close(conn, Side::Server);
    ctx.notify(conn, Side::Client, size);
}

impl Application for Sessions {
    fn start(&mut self, ctx: &mut Ctx) {
        self.next_arrival(Time::ZERO + self.cfg.start, ctx);
    }

    /// A new session arrives.
    fn wake(&mut self, _token: u32, ctx: &mut Ctx) {
        ctx.log().sessions_offered += 1;
        if self.idle.is_empty() {
            ctx.log().sessions_lost += 1;
        } else {
            let u = self
                .idle
                .swap_remove(self.rng.random_range(0..self.idle.len()));
            let size = self.cfg.size.bytes(&mut self.rng).max(1);
            let request = self.cfg.request_size.bytes(&mut self.rng);
            let conn = ctx.open(self.first_user + u, u);
            self.busy[u as usize] = Some(Session {
                conn,
                timing: Timing::now(ctx, &[]),
                size,
            });
            if request == 0 {
                respond(ctx, conn, size);
            } else {
                ctx.send(conn, Side::Client, request);
                ctx.notify(conn, Side::Server, request);
            }
        }
        self.next_arrival(ctx.now, ctx);
    }

    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let Some(s) = self.busy[n.tag as usize].as_ref() else {
            return;
        };
        if n.side == Side::Server {
            return respond(ctx, n.conn, s.size);
        }
        let s = self.busy[n.tag as usize].take().expect("checked");
        ctx.close(n.conn, Side::Client);
        let d = download(
            "session",
            n.user,
            s.size,
            s.timing,
            Some(ctx.now),
            ctx.rtos(n.conn),
        );
        ctx.record(d);
        ctx.log().sessions_served += 1;
        self.idle.push(n.tag);
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (u, s) in self.busy.iter().enumerate() {
            if let Some(s) = s {
                let d = download(
                    "session",
                    self.first_user + u as u32,
                    s.size,
                    s.timing,
                    None,
                    ctx.rtos(s.conn),
                );
                ctx.record(d);
            }
        }
    }
}
