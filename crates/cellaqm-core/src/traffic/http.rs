//! HTTP/1.0 web browsing (Lakkakorpi & Cuny, WCNC 2006, "hierarchical HTTP model").
//!
//! A page is a main object and then `inlines` inline objects. Every object is
//! fetched on its own new TCP connection: the client opens it and writes the
//! request (`request_size` bytes, up the uplink); once the whole request has
//! arrived the server writes the object and closes; the client closes when it
//! has the whole object. The inlines are requested after the main object is
//! complete, on up to `connections` parallel connections (a new one opens as
//! soon as an inline completes). The page is complete with its last byte;
//! then the user reads for `reading_time` and asks for the next page. Every
//! draw (start, sizes, counts, requests, reading times) comes from the user's
//! own stream, in an order fixed by the user's own pages.
//!
//! Download record (kind `"page"`): request = when the user asks for the page
//! (the main object's connection opens), completion = last byte of the last
//! object, bytes = all objects, RTOs = on all the page's connections.

use super::{download, draw_start, one, secs, wcdma_request, zero};
use super::{Application, Count, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing};
use crate::metrics::Download;
use crate::packet::FlowId;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// `model = "web"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Users browsing independently.
    #[serde(default = "one")]
    pub users: u32,
    /// When a user asks for the first page (drawn per user).
    #[serde(default = "zero")]
    pub start: Dist<Secs>,
    /// Most parallel connections for the inline objects.
    #[serde(default = "four")]
    pub connections: u32,
    /// Size of the main object.
    #[serde(default = "kb65")]
    pub main_size: Dist<Size>,
    /// Number of inline objects per page.
    #[serde(default = "three")]
    pub inlines: Dist<Count>,
    /// Size of each inline object.
    #[serde(default = "kb65")]
    pub inline_size: Dist<Size>,
    /// Time from a page's last byte to the next request.
    #[serde(default = "six")]
    pub reading_time: Dist<Secs>,
    /// HTTP request size (lognormal, ln-mean 5.93, ln-sd 0.32 by default).
    #[serde(default = "wcdma_request")]
    pub request_size: Dist<Size>,
    /// Pages per user; absent: until the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
}

fn four() -> u32 {
    4
}
fn three() -> Dist<Count> {
    Dist::fixed(3.0)
}
fn kb65() -> Dist<Size> {
    Dist::fixed(65_000.0)
}
fn six() -> Dist<Secs> {
    secs(6.0)
}

impl WebConfig {
    pub fn validate(&self, key: &str) -> Result<(), String> {
        if self.connections == 0 {
            return Err(format!("{key}.connections: must be at least 1"));
        }
        Ok(())
    }
}

struct Page {
    timing: Timing,
    /// Object sizes: the main object, then the inlines.
    objects: Vec<u64>,
    /// Next object to request.
    next: usize,
    /// Objects complete.
    done: usize,
    /// Connections currently open for objects.
    open: u32,
    conns: Vec<FlowId>,
}

struct User {
    rng: Rng,
    page: Option<Page>,
    pages: u32,
}

/// The running `web` source.
pub struct Web {
    cfg: WebConfig,
    first_user: u32,
    users: Vec<User>,
}

impl Web {
    pub fn new(cfg: &WebConfig, first_user: u32, rngs: &Streams) -> Web {
        let users = rngs.users(cfg.users).into_iter().map(|rng| User { rng, page: None, pages: 0 }).collect();
        Web { cfg: cfg.clone(), first_user, users }
    }

    /// Opens a connection for object `i` of user `u`'s page and writes its request.
    fn request(&mut self, u: usize, i: usize, ctx: &mut Ctx) {
        let user = &mut self.users[u];
        let request = self.cfg.request_size.bytes(&mut user.rng);
        let page = user.page.as_mut().expect("a page in progress");
        let conn = ctx.open(self.first_user + u as u32, i as u32);
        page.conns.push(conn);
        page.open += 1;
        page.next = page.next.max(i + 1);
        if request == 0 {
            respond(ctx, conn, page.objects[i]);
        } else {
            ctx.send(conn, Side::Client, request);
            ctx.notify(conn, Side::Server, request);
        }
    }
}

/// The server has the whole request: it sends the object and closes.
fn respond(ctx: &mut Ctx, conn: FlowId, size: u64) {
    ctx.send(conn, Side::Server, size);
    ctx.close(conn, Side::Server);
    ctx.notify(conn, Side::Client, size);
}

impl Application for Web {
    fn start(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter_mut().enumerate() {
            let at = draw_start(&self.cfg.start, &mut user.rng);
            ctx.wake_at(at, u as u32);
        }
    }

    /// User `u` asks for a page.
    fn wake(&mut self, u: u32, ctx: &mut Ctx) {
        let u = u as usize;
        let user = &mut self.users[u];
        if self.cfg.pages.is_some_and(|n| user.pages >= n) {
            return;
        }
        let rng = &mut user.rng;
        let inlines = self.cfg.inlines.count(rng) as usize;
        let mut objects = vec![self.cfg.main_size.bytes(rng).max(1)];
        objects.extend((0..inlines).map(|_| self.cfg.inline_size.bytes(rng).max(1)));
        user.page = Some(Page { timing: Timing::now(ctx, &[]), objects, next: 0, done: 0, open: 0, conns: Vec::new() });
        self.request(u, 0, ctx);
    }

    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        let u = (n.user - self.first_user) as usize;
        let Some(page) = self.users[u].page.as_mut() else {
            return;
        };
        let i = n.tag as usize;
        if n.side == Side::Server {
            return respond(ctx, n.conn, page.objects[i]);
        }
        // The client has object i: it closes the connection.
        ctx.close(n.conn, Side::Client);
        page.done += 1;
        page.open -= 1;
        if page.done == page.objects.len() {
            let page = self.users[u].page.take().expect("checked");
            let rtos = page.conns.iter().map(|&c| ctx.rtos(c)).sum();
            let bytes = page.objects.iter().sum();
            let d = Download {
                objects: page.objects.len() as u32,
                connections: page.conns.len() as u32,
                ..download("page", n.user, bytes, page.timing, Some(ctx.now), rtos)
            };
            ctx.record(d);
            let user = &mut self.users[u];
            user.pages += 1;
            let at = ctx.now + self.cfg.reading_time.dur(&mut user.rng);
            ctx.wake_at(at, u as u32);
            return;
        }
        // Main object done (or an inline): request inlines up to the connection limit.
        let (next, open, total) = (page.next, page.open, page.objects.len());
        let more = (self.cfg.connections.saturating_sub(open) as usize).min(total - next);
        for i in next..next + more {
            self.request(u, i, ctx);
        }
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter().enumerate() {
            if let Some(page) = &user.page {
                let rtos = page.conns.iter().map(|&c| ctx.rtos(c)).sum();
                let bytes = page.objects.iter().sum();
                let user = self.first_user + u as u32;
                let d = Download {
                    objects: page.objects.len() as u32,
                    connections: page.conns.len() as u32,
                    ..download("page", user, bytes, page.timing, None, rtos)
                };
                ctx.record(d);
            }
        }
    }
}
