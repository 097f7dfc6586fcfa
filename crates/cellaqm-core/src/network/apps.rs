//! Carrying out what the applications ask for: their hooks are called with a
//! context that collects actions, and the actions are executed in order.

use super::flows::{Conn, Flow, FlowsView, Kind, Stream};
use super::{Event, Network};
use crate::packet::{Dir, Packet};
use crate::radio::Ran;
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

    /// The radio's start (a system that runs on its own, the DSCH's, asks for
    /// its first frame), then every source's start hook, at time zero.
    pub(super) fn start(&mut self) {
        if let Some(radio) = &mut self.radio {
            radio.start(Time::ZERO, &mut self.radio_out);
            self.after_radio(Time::ZERO);
        }
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
            let Some(f) = self.flows.get(flow) else { continue };
            let delivered = match &f.kind {
                Kind::Tcp(c) => c.delivered,
                Kind::Closed(c) => c.delivered,
                Kind::Draining { .. } | Kind::Udp(_) => continue,
            };
            let n = Notice { conn: flow, user: f.user, tag: f.tag, side, delivered: delivered[side as usize] };
            self.hook(now, f.source, |app, ctx| app.delivered(n, ctx));
        }
    }

    fn act(&mut self, now: Time, source: u16, action: Action) {
        match action {
            Action::Open { conn, user, tag } => {
                let mut c = Box::new(Conn {
                    ends: [
                        Endpoint::new(&self.tcp, conn, Role::Client, Dir::Up),
                        Endpoint::new(&self.tcp, conn, Role::Server, Dir::Down),
                    ],
                    timer_at: [None; 2],
                    delivered: [0; 2],
                    notify_at: [u64::MAX; 2],
                    closed: [false; 2],
                    last_byte: None,
                });
                c.ends[0].connect(now, &mut self.out);
                if let Some(radio) = &mut self.radio {
                    radio.new_session(now, user as usize);
                }
                self.flows.push(Flow { id: conn, source, user, tag, start: now, in_network: 0, kind: Kind::Tcp(c) });
                self.after_endpoint(now, conn, Side::Client);
            }
            Action::OpenStream { stream, user, dir } => {
                let s = Stream { dir, delivered_bytes: 0, last: None };
                let kind = Kind::Udp(s);
                self.flows.push(Flow { id: stream, source, user, tag: 0, start: now, in_network: 0, kind });
            }
            Action::Send { conn, side, bytes } => {
                if let Some(c) = self.flows.conn_mut(conn) {
                    c.ends[side as usize].send(now, bytes, &mut self.out);
                    self.after_endpoint(now, conn, side);
                }
            }
            Action::Close { conn, side } => {
                if let Some(c) = self.flows.conn_mut(conn) {
                    c.closed[side as usize] = true;
                    c.ends[side as usize].close(now, &mut self.out);
                    self.after_endpoint(now, conn, side);
                }
            }
            Action::Notify { conn, side, bytes } => match self.flows.get_mut(conn).map(|f| &mut f.kind) {
                Some(Kind::Tcp(c)) if c.delivered[side as usize] < bytes => c.notify_at[side as usize] = bytes,
                Some(Kind::Tcp(c)) => {
                    c.notify_at[side as usize] = u64::MAX;
                    self.notices.push_back((conn, side));
                }
                // Over in this event: all it will have is delivered. (Over before
                // it, draining: no notice, as for a connection gone.)
                Some(Kind::Closed(c)) if c.delivered[side as usize] >= bytes => self.notices.push_back((conn, side)),
                _ => {}
            },
            Action::Wake { at, token } => self.events.schedule(at, Event::AppWake(source, token)),
            Action::Datagram { stream, size, payload } => {
                if let Some(Flow { kind: Kind::Udp(s), in_network, .. }) = self.flows.get_mut(stream) {
                    *in_network += size as u64; // it enters the network below (`flush`)
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
