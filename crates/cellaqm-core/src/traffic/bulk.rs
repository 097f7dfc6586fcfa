//! Flows planned up front: `bulk` (greedy, endless) and `file` (one transfer each).
//!
//! Flow i (user `first_user + i`) opens its connection at `start + i·spacing`.
//! The server writes its data at once; it leaves after the handshake, so no
//! request crosses the uplink (an FTP-like push). A `file` flow's server
//! closes after `size` bytes, drawn from the flow's user stream; the client
//! closes when it has them all, which completes the download (kind `"file"`).

use super::{download, Application, Ctx, Notice, Side, Size, Timing};
use super::{one, Dist, Streams};
use crate::packet::FlowId;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

/// `model = "bulk"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BulkConfig {
    /// Parallel flows, each its own user.
    #[serde(default = "one")]
    pub flows: u32,
    /// When the first flow starts.
    #[serde(default)]
    pub start: Dur,
    /// Time between successive flow starts.
    #[serde(default)]
    pub spacing: Dur,
}

/// `model = "file"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    #[serde(default = "one")]
    pub flows: u32,
    /// Bytes per flow (drawn per flow).
    pub size: Dist<Size>,
    #[serde(default)]
    pub start: Dur,
    #[serde(default)]
    pub spacing: Dur,
}

struct Flow {
    start: Time,
    /// Bytes the server sends; `None`: without end.
    bytes: Option<u64>,
    conn: Option<FlowId>,
    timing: Timing,
    done: bool,
}

/// The running `bulk` or `file` source.
pub struct Bulk {
    first_user: u32,
    flows: Vec<Flow>,
}

impl Bulk {
    pub fn endless(c: &BulkConfig, first_user: u32) -> Bulk {
        Bulk::with(c.flows, c.start, c.spacing, first_user, |_| None)
    }

    pub fn file(c: &FileConfig, first_user: u32, rngs: &Streams) -> Bulk {
        Bulk::with(c.flows, c.start, c.spacing, first_user, |i| Some(c.size.bytes(&mut rngs.user(i)).max(1)))
    }

    fn with(n: u32, start: Dur, spacing: Dur, first_user: u32, mut bytes: impl FnMut(u32) -> Option<u64>) -> Bulk {
        let flows = (0..n)
            .map(|i| Flow {
                start: Time::ZERO + start + spacing * i as u64,
                bytes: bytes(i),
                conn: None,
                timing: Timing::default(),
                done: false,
            })
            .collect();
        Bulk { first_user, flows }
    }
}

impl Application for Bulk {
    fn start(&mut self, ctx: &mut Ctx) {
        for (i, f) in self.flows.iter().enumerate() {
            ctx.wake_at(f.start, i as u32);
        }
    }

    fn wake(&mut self, i: u32, ctx: &mut Ctx) {
        let f = &mut self.flows[i as usize];
        let conn = ctx.open(self.first_user + i, i);
        f.conn = Some(conn);
        f.timing = Timing::now(ctx, &[]);
        ctx.send(conn, Side::Server, f.bytes.unwrap_or(u64::MAX));
        if let Some(bytes) = f.bytes {
            ctx.close(conn, Side::Server);
            ctx.notify(conn, Side::Client, bytes);
        }
    }

    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let f = &mut self.flows[n.tag as usize];
        f.done = true;
        ctx.close(n.conn, Side::Client);
        let d = download("file", n.user, f.bytes.unwrap_or(0), f.timing, Some(ctx.now), ctx.rtos(n.conn));
        ctx.record(d);
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (i, f) in self.flows.iter().enumerate() {
            if let (Some(bytes), Some(conn), false) = (f.bytes, f.conn, f.done) {
                let d = download("file", self.first_user + i as u32, bytes, f.timing, None, ctx.rtos(conn));
                ctx.record(d);
            }
        }
    }
}
