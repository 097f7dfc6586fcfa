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
//! object, bytes = all objects, RTOs = on all the page's connections until
//! then (a connection over and gone before hands its count over as it goes:
//! [`Application::over`]).

use super::{download, draw_start, one, secs, wcdma_request, zero};
use super::{Application, Count, Ctx, Dist, Notice, Secs, Side, Size, Streams, Timing};
use crate::metrics::Download;
use crate::packet::FlowId;
use crate::rng::Rng;
use crate::time::Time;
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
    /// Connections opened for the page.
    connections: u32,
    /// Those not yet gone (over, out of the network).
    conns: Vec<FlowId>,
    /// The RTOs of those gone.
    gone_rtos: u64,
}

impl Page {
    /// The RTOs on the page's connections so far.
    fn rtos(&self, ctx: &Ctx) -> u64 {
        self.gone_rtos + self.conns.iter().map(|&c| ctx.rtos(c)).sum::<u64>()
    }

    /// Its download record; `completion` is `None` if unfinished.
    fn record(&self, user: u32, completion: Option<Time>, ctx: &Ctx) -> Download {
        Download {
            objects: self.objects.len() as u32,
            connections: self.connections,
            ..download("page", user, self.objects.iter().sum(), self.timing, completion, self.rtos(ctx))
        }
    }
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
        page.connections += 1;
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
        let timing = Timing::now(ctx, &[]);
        user.page =
            Some(Page { timing, objects, next: 0, done: 0, open: 0, connections: 0, conns: Vec::new(), gone_rtos: 0 });
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
            let d = page.record(n.user, Some(ctx.now), ctx);
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

    /// A connection of the page in progress hands over its RTOs (one of an
    /// earlier page's: its RTOs after that page completed are not the page's).
    fn over(&mut self, conn: FlowId, user: u32, _tag: u32, rtos: u64) {
        let Some(page) = self.users[(user - self.first_user) as usize].page.as_mut() else { return };
        if let Some(i) = page.conns.iter().position(|&c| c == conn) {
            page.conns.swap_remove(i);
            page.gone_rtos += rtos;
        }
    }

    fn finish(&mut self, ctx: &mut Ctx) {
        for (u, user) in self.users.iter().enumerate() {
            if let Some(page) = &user.page {
                let d = page.record(self.first_user + u as u32, None, ctx);
                ctx.record(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::TrafficLog;
    use crate::traffic::{Action, NetView, Streams};
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    /// The network as a page's connections see it: RTO counts by connection;
    /// asking about one that is gone fails, as the network's debug assertion does.
    #[derive(Default)]
    struct Net {
        rtos: RefCell<BTreeMap<FlowId, u64>>,
        gone: RefCell<Vec<FlowId>>,
    }

    impl NetView for Net {
        fn rtos(&self, conn: FlowId) -> u64 {
            assert!(!self.gone.borrow().contains(&conn), "RTOs asked of connection {conn}, which is gone");
            self.rtos.borrow().get(&conn).copied().unwrap_or(0)
        }
        fn stream_delivery(&self, _: FlowId) -> (u64, Option<crate::time::Time>) {
            unreachable!("no streams")
        }
    }

    /// Calls one hook with a context at `now` seconds; returns its actions.
    fn hook(net: &Net, log: &mut TrafficLog, next: &mut FlowId, now: f64, call: impl FnOnce(&mut Ctx)) -> Vec<Action> {
        let mut actions = Vec::new();
        let mut ctx =
            Ctx { now: Time::from_secs_f64(now), source: 0, next_flow: next, actions: &mut actions, log, view: net };
        call(&mut ctx);
        actions.into_iter().map(|(_, a)| a).collect()
    }

    /// The main object's connection times out while it closes and is gone
    /// before the page completes: the page still counts its RTOs; RTOs on a
    /// connection after its page completed are not the page's, nor the next's.
    #[test]
    fn a_page_counts_the_rtos_of_its_connections_gone_before_it_completes() {
        let cfg = WebConfig {
            users: 1,
            start: zero(),
            connections: 4,
            main_size: Dist::fixed(1000.0),
            inlines: Dist::fixed(2.0),
            inline_size: Dist::fixed(2000.0),
            reading_time: secs(6.0),
            request_size: Dist::fixed(300.0),
            pages: None,
        };
        let mut web = Web::new(&cfg, 0, &Streams::new(1, "test".into()));
        let (net, mut log, mut next) = (Net::default(), TrafficLog::default(), 0);
        let notice = |conn, side, delivered| Notice { conn, user: 0, tag: conn, side, delivered };
        let mut at = |t: f64, call: &mut dyn FnMut(&mut Web, &mut Ctx)| {
            hook(&net, &mut log, &mut next, t, |ctx| call(&mut web, ctx))
        };
        at(0.0, &mut |w, ctx| w.wake(0, ctx)); // the page: conn 0 for its main object
        at(0.1, &mut |w, ctx| w.delivered(notice(0, Side::Server, 300), ctx));
        let a = at(0.5, &mut |w, ctx| w.delivered(notice(0, Side::Client, 1000), ctx)); // the inlines: conns 1, 2
        assert!(a.contains(&Action::Close { conn: 0, side: Side::Client }));
        assert_eq!(a.iter().filter(|a| matches!(a, Action::Open { .. })).count(), 2);
        // Conn 0's FIN times out twice, then it is over and gone; conn 1 had one RTO so far.
        net.rtos.borrow_mut().extend([(0, 2), (1, 1)]);
        at(2.0, &mut |w, _| w.over(0, 0, 0, 2));
        net.gone.borrow_mut().push(0);
        for conn in [1, 2] {
            at(2.5, &mut |w, ctx| w.delivered(notice(conn, Side::Server, 300), ctx));
            at(3.0, &mut |w, ctx| w.delivered(notice(conn, Side::Client, 2000), ctx));
        }
        // Conn 1 times out again while it closes, after its page is complete.
        at(4.0, &mut |w, _| w.over(1, 0, 1, 3));
        net.gone.borrow_mut().push(1);
        at(9.0, &mut |w, ctx| w.wake(0, ctx)); // the next page: conn 3
        at(10.0, &mut |w, ctx| w.finish(ctx));
        let pages: Vec<(u64, u32, bool)> =
            log.downloads.iter().map(|d| (d.rtos, d.connections, d.completion_s.is_some())).collect();
        assert_eq!(pages, [(3, 3, true), (0, 1, false)]);
    }
}
