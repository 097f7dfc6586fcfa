//! HTTP/1.1 file download: one persistent, pipelined connection per user
//! (Lakkakorpi & Cuny, WCNC 2006: 250 kB or 2.5 MB objects, reading time between them).
//!
//! The user's connection opens with the first request and stays open. A
//! "page" is `objects` files (one by default): the client writes all their
//! requests back to back (pipelining); the server answers each request, in
//! order, once it has arrived whole. The download completes with the last byte
//! of the page's last file; then the user reads for `reading_time`. The
//! congestion window carries over between downloads (no restart after idle).
//! Every draw comes from the user's own stream.
//!
//! Download record (kind `"file"`): request = when the requests are written,
//! completion = last byte, bytes = the files, RTOs = on the connection meanwhile.

use super::{download, draw_start, one, secs, wcdma_request, zero};
use super::{Application, Count, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing};
use crate::metrics::Download;
use crate::packet::FlowId;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `model = "file_download"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FileDownloadConfig {
    #[serde(default = "one")]
    pub users: u32,
    /// When a user asks for the first file (drawn per user).
    #[serde(default = "zero")]
    pub start: Dist<Secs>,
    /// File size.
    #[serde(default = "kb250")]
    pub size: Dist<Size>,
    /// Files requested together (pipelined) per download.
    #[serde(default = "one_object")]
    pub objects: Dist<Count>,
    /// Time from a download's last byte to the next request.
    #[serde(default = "six")]
    pub reading_time: Dist<Secs>,
    #[serde(default = "wcdma_request")]
    pub request_size: Dist<Size>,
    /// Downloads per user; absent: until the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
}

fn kb250() -> Dist<Size> {
    Dist::fixed(250_000.0)
}
fn one_object() -> Dist<Count> {
    Dist::fixed(1.0)
}
fn six() -> Dist<Secs> {
    secs(6.0)
}

struct User {
    rng: Rng,
    conn: Option<FlowId>,
    /// Request bytes the client has written, in total.
    requested: u64,
    /// Requests not yet answered: (end of the request in the client's byte stream, file size).
    pending: VecDeque<(u64, u64)>,
    /// The server waits for the first pending request.
    server_waiting: bool,
    /// Response bytes the client expects in total once the current download is done.
    expected: u64,
    /// The download in progress: its timing, bytes and file count.
    current: Option<(Timing, u64, u32)>,
    pages: u32,
}

/// The running `file_download` source.
pub struct FileDownload {
    cfg: FileDownloadConfig,
    first_user: u32,
    users: Vec<User>,
}

impl FileDownload {
    pub fn new(cfg: &FileDownloadConfig, first_user: u32, rngs: &Streams) -> FileDownload {
        let users = rngs
            .users(cfg.users)
            .into_iter()
            .map(|rng| User {
                rng,
                conn: None,
                requested: 0,
                pending: VecDeque::new(),
                server_waiting: false,
                expected: 0,
                current: None,
                pages: 0,
            })
            .collect();
        FileDownload { cfg: cfg.clone(), first_user, users }
    }

    /// The server answers every request that has fully arrived (`got` request bytes).
    fn serve(user: &mut User, conn: FlowId, got: u64, ctx: &mut Ctx) {
        while let Some(&(end, size)) = user.pending.front() {
            if end > got {
                break;
            }
            user.pending.pop_front();
            ctx.send(conn, Side::Server, size);
        }
        user.server_waiting = false;
        if let Some(&(end, _)) = user.pending.front() {
            user.server_waiting = true;
            ctx.notify(conn, Side::Server, end);
        }
    }
}

impl Application for FileDownload {
    fn start(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter_mut().enumerate() {
            let at = draw_start(&self.cfg.start, &mut user.rng);
            ctx.wake_at(at, u as u32);
        }
    }

    fn wake(&mut self, u: u32, ctx: &mut Ctx) {
        let user = &mut self.users[u as usize];
        if self.cfg.pages.is_some_and(|n| user.pages >= n) {
            return;
        }
        let conn = *user.conn.get_or_insert_with(|| ctx.open(self.first_user + u, u));
        let timing = Timing::now(ctx, &[conn]);
        let objects = self.cfg.objects.count(&mut user.rng).max(1);
        let mut bytes = 0;
        for _ in 0..objects {
            let request = self.cfg.request_size.bytes(&mut user.rng);
            let size = self.cfg.size.bytes(&mut user.rng).max(1);
            ctx.send(conn, Side::Client, request);
            user.requested += request;
            user.pending.push_back((user.requested, size));
            bytes += size;
        }
        user.expected += bytes;
        user.current = Some((timing, bytes, objects));
        ctx.notify(conn, Side::Client, user.expected);
        if !user.server_waiting {
            user.server_waiting = true;
            let end = user.pending.front().expect("just pushed").0;
            ctx.notify(conn, Side::Server, end);
        }
    }

    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let u = n.user - self.first_user;
        let user = &mut self.users[u as usize];
        if n.side == Side::Server {
            return FileDownload::serve(user, n.conn, n.delivered, ctx);
        }
        let Some((timing, bytes, objects)) = user.current.take() else {
            return;
        };
        let d = Download { objects, ..download("file", n.user, bytes, timing, Some(ctx.now), ctx.rtos(n.conn)) };
        ctx.record(d);
        user.pages += 1;
        if self.cfg.pages.is_some_and(|p| user.pages >= p) {
            ctx.close(n.conn, Side::Client);
            ctx.close(n.conn, Side::Server);
            return;
        }
        let at = ctx.now + self.cfg.reading_time.dur(&mut user.rng);
        ctx.wake_at(at, u);
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter().enumerate() {
            if let (Some((timing, bytes, objects)), Some(conn)) = (user.current, user.conn) {
                let d = Download {
                    objects,
                    ..download("file", self.first_user + u as u32, bytes, timing, None, ctx.rtos(conn))
                };
                ctx.record(d);
            }
        }
    }
}
