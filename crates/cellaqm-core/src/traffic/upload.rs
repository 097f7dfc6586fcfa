//! Uploads from the UE (Tan, MSc thesis, 2009): a client sends files to the server.
//!
//! Each file is its own TCP connection: the client opens it, writes the file
//! and closes; the upload completes when the server has the last byte (then
//! the server closes too).
//!
//! - Sequential (default): each user uploads `files` files one after another,
//!   with `idle` time from one file's completion to the next file's start
//!   (e.g. 50 files, exponential mean 300 kB, idle uniform 5–10 s).
//! - `concurrent = true`: each of a user's `files` files starts at its own
//!   independent draw of `start`, regardless of the others (e.g. 10 small files
//!   at random times next to one huge file from another source: the
//!   multi-flow fairness case).
//!
//! Every draw (start, sizes, idle times) comes from the user's own stream.
//!
//! Download record (kind `"upload"`): request = the connection opens,
//! completion = the server has the last byte.

use super::{download, draw_start, one, zero};
use super::{Application, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing};
use crate::packet::FlowId;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// `model = "upload"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UploadConfig {
    #[serde(default = "one")]
    pub users: u32,
    /// When a user starts its first file (with `concurrent`: each file), drawn each time.
    #[serde(default = "zero")]
    pub start: Dist<Secs>,
    /// Files per user; absent: until the end of the run (sequential only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u32>,
    /// File size.
    pub size: Dist<Size>,
    /// Time from one file's completion to the next file's start (sequential).
    #[serde(default = "zero")]
    pub idle: Dist<Secs>,
    /// Start every file at its own draw of `start` instead of one after another.
    #[serde(default)]
    pub concurrent: bool,
}

struct File {
    user: u32,
    size: u64,
    conn: Option<FlowId>,
    timing: Timing,
    done: bool,
}

/// The running `upload` source.
pub struct Upload {
    cfg: UploadConfig,
    first_user: u32,
    /// Each user's stream.
    rngs: Vec<Rng>,
    files: Vec<File>,
    /// Files started per user (sequential mode).
    started: Vec<u32>,
}

impl Upload {
    pub fn new(cfg: &UploadConfig, first_user: u32, rngs: &Streams) -> Upload {
        Upload {
            cfg: cfg.clone(),
            first_user,
            rngs: rngs.users(cfg.users),
            files: Vec::new(),
            started: vec![0; cfg.users as usize],
        }
    }

    /// Starts file `i` now.
    fn begin(&mut self, i: usize, ctx: &mut Ctx) {
        let f = &mut self.files[i];
        let conn = ctx.open(f.user, i as u32);
        f.conn = Some(conn);
        f.timing = Timing::now(ctx, &[]);
        ctx.send(conn, Side::Client, f.size);
        ctx.close(conn, Side::Client);
        ctx.notify(conn, Side::Server, f.size);
    }

    /// A new file of `user` (its index in the run), its size drawn now.
    fn new_file(&mut self, user: u32) -> usize {
        let rng = &mut self.rngs[(user - self.first_user) as usize];
        let size = self.cfg.size.bytes(rng).max(1);
        self.files.push(File { user, size, conn: None, timing: Timing::default(), done: false });
        self.files.len() - 1
    }
}

impl Application for Upload {
    fn start(&mut self, ctx: &mut Ctx) {
        // Files started at a draw of `start`: every file (concurrent) or the first.
        let first_files = match (self.cfg.concurrent, self.cfg.files) {
            (true, files) => files.unwrap_or(1),
            (false, files) => files.unwrap_or(1).min(1),
        };
        for u in 0..self.cfg.users {
            for _ in 0..first_files {
                let at = draw_start(&self.cfg.start, &mut self.rngs[u as usize]);
                let i = self.new_file(self.first_user + u);
                ctx.wake_at(at, i as u32);
            }
        }
    }

    /// File `i` starts.
    fn wake(&mut self, i: u32, ctx: &mut Ctx) {
        let i = i as usize;
        if !self.cfg.concurrent {
            self.started[(self.files[i].user - self.first_user) as usize] += 1;
        }
        self.begin(i, ctx);
    }

    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let f = &mut self.files[n.tag as usize];
        f.done = true;
        ctx.close(n.conn, Side::Server);
        let d = download("upload", f.user, f.size, f.timing, Some(ctx.now), ctx.rtos(n.conn));
        ctx.record(d);
        if self.cfg.concurrent {
            return;
        }
        let u = (n.user - self.first_user) as usize;
        if self.cfg.files.is_none_or(|max| self.started[u] < max) {
            let at = ctx.now + self.cfg.idle.dur(&mut self.rngs[u]);
            let i = self.new_file(n.user);
            ctx.wake_at(at, i as u32);
        }
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for f in &self.files {
            if let (Some(conn), false) = (f.conn, f.done) {
                let d = download("upload", f.user, f.size, f.timing, None, ctx.rtos(conn));
                ctx.record(d);
            }
        }
    }
}
