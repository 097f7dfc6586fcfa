//! Session generator over a pool of users (the HS-DSCH study).
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
//! The arrival process is drawn from the source's own stream `arrivals`,
//! independently of the network: every arrival draws its waiting time, a
//! uniform number choosing among the idle users, its size and its request,
//! whether or not it is lost, so the same seed offers the same sessions (times
//! and sizes) whatever the queue scheme. The uniform number picks the k-th
//! idle user in user order, so equal idle sets give equal choices.
//!
//! Examples: long transfers: 60 users, 250 kB, interarrival uniform with mean
//! 0.2–0.4 s; web: 200 users, Pareto sizes (mean 25 kB, shape 1.1, cap 2 MB),
//! mean waiting time 0.015–0.0175 s. Download record kind `"session"`.

use super::{download, Application, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing};
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
            return Err(format!("{key}.interarrival: the mean waiting time must be positive"));
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
    /// The arrival process: waiting times, user choices, sizes, requests.
    arrivals: Rng,
    /// Each user's session, `None` when idle.
    busy: Vec<Option<Session>>,
}

impl Sessions {
    pub fn new(cfg: &SessionsConfig, first_user: u32, rngs: &Streams) -> Sessions {
        Sessions {
            cfg: cfg.clone(),
            first_user,
            arrivals: rngs.named("arrivals"),
            busy: (0..cfg.users).map(|_| None).collect(),
        }
    }

    /// The idle user a uniform draw `x` in [0, 1) picks: the k-th idle one in
    /// user order, k = ⌊x · idle users⌋; `None` if every user is busy.
    fn pick_idle(&self, x: f64) -> Option<u32> {
        let idle = self.busy.iter().filter(|s| s.is_none()).count();
        let k = ((x * idle as f64) as usize).min(idle.saturating_sub(1));
        let mut idle_users = (0..self.busy.len() as u32).filter(|&u| self.busy[u as usize].is_none());
        idle_users.nth(k)
    }

    fn next_arrival(&mut self, now: Time, ctx: &mut Ctx) {
        let at = now + self.cfg.interarrival.dur(&mut self.arrivals);
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
        let x: f64 = self.arrivals.random();
        let size = self.cfg.size.bytes(&mut self.arrivals).max(1);
        let request = self.cfg.request_size.bytes(&mut self.arrivals);
        match self.pick_idle(x) {
            None => ctx.log().sessions_lost += 1,
            Some(u) => {
                let conn = ctx.open(self.first_user + u, u);
                self.busy[u as usize] = Some(Session { conn, timing: Timing::now(ctx, &[]), size });
                if request == 0 {
                    respond(ctx, conn, size);
                } else {
                    ctx.send(conn, Side::Client, request);
                    ctx.notify(conn, Side::Server, request);
                }
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
        let d = download("session", n.user, s.size, s.timing, Some(ctx.now), ctx.rtos(n.conn));
        ctx.record(d);
        ctx.log().sessions_served += 1;
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (u, s) in self.busy.iter().enumerate() {
            if let Some(s) = s {
                let d = download("session", self.first_user + u as u32, s.size, s.timing, None, ctx.rtos(s.conn));
                ctx.record(d);
            }
        }
    }
}
