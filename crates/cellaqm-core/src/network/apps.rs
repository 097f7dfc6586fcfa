//! Carrying out what the applications ask for: their hooks are called with a
//! context that collects actions, and the actions are executed in order.

use super::flows::{conn_mut, Conn, Flow, FlowsView, Kind, Stream};
use super::{Event, Network};
use crate::packet::{Dir, Packet};
use crate::tcp::{Endpoint, Role};
use crate::time::Time;
use crate::traffic::{Action, App, Application, Ctx, Notice, Side};

impl Network {
    pub(super) fn hook(&mut self, now: Time, source: u16, call: impl FnOnce(&mut App, &mut Ctx)) {
        let mut ctx = Ctx {
            now,
            source,
            next_flow: &mut self.next_flow,
            actions: &mut self.actions,
            log: &mut self.log,
            view: &FlowsView(&self.flows),
        };
        call(&mut self.apps[source as usize], &mut ctx);
    }

    /// Every source's start hook, at time zero.
    pub(super) fn start(&mut self) {
        for source in 0..self.apps.len() as u16 {
            self.hook(Time::ZERO, source, |app, ctx| app.start(ctx));
        }
        self.execute(Time::ZERO);
    }

    /// Executes the pending actions, and the hooks of the notices they raise, until none is left.
    pub(super) fn execute(&mut self, now: Time) {
        loop {
            let mut i = 0;
            while i < self.actions.len() {
                let (source, action) = self.actions[i];
                i += 1;
                self.act(now, source, action);
            }
            self.actions.clear();
            let Some((flow, side)) = self.notices.pop_front() else {
                break;
            };
            let f = &self.flows[flow as usize];
            let Kind::Tcp(c) = &f.kind else { continue };
            let n = Notice { conn: flow, user: f.user, tag: f.tag, side, delivered: c.delivered[side as usize] };
            self.hook(now, f.source, |app, ctx| app.delivered(n, ctx));
        }
    }

    fn act(&mut self, now: Time, source: u16, action: Action) {
        match action {
            Action::Open { conn, user, tag } => {
                debug_assert_eq!(conn as usize, self.flows.len(), "flow ids are given in order");
                let mut ends = Box::new([
                    Endpoint::new(&self.tcp, conn, Role::Client, Dir::Up),
                    Endpoint::new(&self.tcp, conn, Role::Server, Dir::Down),
                ]);
                ends[0].connect(now, &mut self.out);
                if let Some(radio) = &mut self.radio {
                    radio.new_session(now, user);
                }
                let c = Conn {
                    ends: Some(ends),
                    timer_at: [None; 2],
                    delivered: [0; 2],
                    notify_at: [u64::MAX; 2],
                    closed: [false; 2],
                    last_byte: None,
                    counters: Box::default(),
                    finished: false,
                };
                self.flows.push(Flow { source, user, tag, start: now, kind: Kind::Tcp(c) });
                self.after_endpoint(now, conn, Side::Client);
            }
            Action::OpenStream { stream, user, dir } => {
                debug_assert_eq!(stream as usize, self.flows.len(), "flow ids are given in order");
                let s = Stream { dir, delivered_bytes: 0, last: None };
                self.flows.push(Flow { source, user, tag: 0, start: now, kind: Kind::Udp(s) });
            }
            Action::Send { conn, side, bytes } => {
                if let Some(ends) = conn_mut(&mut self.flows, conn).and_then(|c| c.ends.as_mut()) {
                    ends[side as usize].send(now, bytes, &mut self.out);
                    self.after_endpoint(now, conn, side);
                }
            }
            Action::Close { conn, side } => {
                if let Some(c) = conn_mut(&mut self.flows, conn) {
                    c.closed[side as usize] = true;
                    if let Some(ends) = c.ends.as_mut() {
                        ends[side as usize].close(now, &mut self.out);
                        self.after_endpoint(now, conn, side);
                    }
                }
            }
            Action::Notify { conn, side, bytes } => {
                if let Some(c) = conn_mut(&mut self.flows, conn) {
                    if c.delivered[side as usize] >= bytes {
                        c.notify_at[side as usize] = u64::MAX;
                        self.notices.push_back((conn, side));
                    } else {
                        c.notify_at[side as usize] = bytes;
                    }
                }
            }
            Action::Wake { at, token } => self.events.schedule(at, Event::AppWake(source, token)),
            Action::Datagram { stream, size, payload } => {
                if let Some(Kind::Udp(s)) = self.flows.get(stream as usize).map(|f| &f.kind) {
                    let pkt = Packet::udp(stream, s.dir, size, payload);
                    self.udp_sent += 1;
                    let dir = s.dir;
                    self.out.push(pkt);
                    self.flush(now, dir);
                }
            }
        }
    }
}
