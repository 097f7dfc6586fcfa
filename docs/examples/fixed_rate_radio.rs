//! A fixed-rate shared channel: every TTI it sends `pdus_per_tti` RLC PDUs,
//! taken from the users with data in turn (each as much as is left), which
//! reach their UEs `delay` after the TTI ends.
use super::umts::{Downlink, Umts, Users};
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::busy::Busy;
use crate::radio::clock::Clock;
use crate::radio::config::RadioConfig;
use crate::radio::event::{RadioEvent, RadioOut};
use crate::radio::pending::Pending;
use crate::radio::sap::TxOpportunity;
use crate::radio::CellSummary;
use crate::rlc::Pdu;
use crate::time::{Dur, Time};

pub struct FixedRate {
    tti: Clock,
    pending: Pending,
    pdus_per_tti: u64,
    pdu_bytes: u64,
    delay: Dur,
    /// Which users' RNCs have data, and the user to look at first.
    busy: Busy,
    next: usize,
    air: Vec<AirLine>,
    pdus: Vec<Pdu>,
}

impl FixedRate {
    /// The channel and a bearer per user of `cfg` (`[radio]`'s template and groups).
    pub fn new(cfg: &RadioConfig, users: u32, tti: Dur, pdus_per_tti: u64, delay: Dur) -> Umts<FixedRate> {
        let pdu_bytes = cfg.rlc.pdu_size.0;
        let rate = (pdus_per_tti * pdu_bytes * 8) as f64 / tti.as_secs_f64();
        let down = FixedRate {
            tti: Clock::new(tti),
            pending: Pending::default(),
            pdus_per_tti,
            pdu_bytes,
            delay,
            busy: Busy::new(users as usize),
            next: 0,
            air: vec![AirLine::default(); users as usize],
            pdus: Vec::new(),
        };
        // Each PDCP discipline is told the channel's whole rate; the seed names the random streams.
        Umts { down, users: Users::new(cfg, users, 1, |_| rate) }
    }
}

impl Downlink for FixedRate {
    /// A bearer changed: note whether its RNC has data, and ask for the next TTI while any does.
    fn settled(&mut self, now: Time, u: usize, _b: &mut Bearer, busy: bool, out: &mut RadioOut) {
        self.busy.set(u, busy);
        let at = self.tti.next(now);
        if self.busy.any() && self.pending.want(at) {
            out.schedule.push((at, RadioEvent::Tti));
        }
    }

    fn air(&mut self, u: usize) -> Option<&mut AirLine> {
        Some(&mut self.air[u])
    }

    /// A TTI: the users with data in turn fill what is left of it.
    fn handle(&mut self, now: Time, _ev: RadioEvent, users: &mut Users, out: &mut RadioOut) {
        if !self.pending.due(now) {
            return; // superseded by an earlier TTI
        }
        self.tti.run(now);
        users.hold(now);
        let (n, at) = (self.air.len(), now + self.tti.period() + self.delay);
        let (mut left, start) = (self.pdus_per_tti, self.next);
        for u in (0..n).map(|k| (start + k) % n).filter(|&u| self.busy.is(u)) {
            if left == 0 {
                break;
            }
            let op = TxOpportunity::pdus(left, self.pdu_bytes);
            left -= users.bearers[u].transmit_down(now, op, &mut self.pdus);
            let mut first = None;
            for pdu in self.pdus.drain(..) {
                if self.air[u].push(at, pdu) {
                    first = Some(at); // the line was empty: its arrival event is asked for
                }
            }
            users.served.push((u, first));
            self.next = (u + 1) % n;
        }
        users.settle_served(now, self, out);
    }

    fn cells(&self, _end: Time) -> Vec<CellSummary> {
        let users = self.air.len() as u32;
        vec![CellSummary { cell: 0, users, downlink: "fixed_rate", ..CellSummary::default() }]
    }

    fn cell_of(&self, _u: usize) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::packet::{Dir, Packet, TcpHeader};
    use crate::radio::ran::Ran;

    /// Two users, each offered 200 packets of 1500 B at once, share a channel
    /// of 30 PDUs of 42 B per 10 ms (1.008 Mb/s): both get everything, in
    /// order, and together at the channel's rate.
    #[test]
    fn two_users_share_the_channel_and_get_everything() {
        let cfg: RadioConfig = toml::from_str("bearer = \"hsdpa\"\n[hsdpa]").unwrap(); // no DCHs
        let mut ran = FixedRate::new(&cfg, 2, Dur::from_millis(10), 30, Dur::from_millis(5));
        let (mut q, mut out) = (EventQueue::new(), RadioOut::default());
        for uid in 0..400 {
            let tcp = TcpHeader { len: 1440, ..TcpHeader::default() };
            let pkt = Packet { uid, ..Packet::tcp(0, Dir::Down, 1500, tcp) };
            ran.arrive_down(Time::ZERO, (uid % 2) as usize, pkt, &mut out);
        }
        let mut got = Vec::new();
        loop {
            for (at, ev) in out.schedule.drain(..) {
                q.schedule(at, ev);
            }
            got.extend(out.to_ue.drain(..).map(|p| (q.now(), p.uid)));
            let Some((now, ev)) = q.pop_until(Time::ZERO + Dur::from_secs(20)) else { break };
            ran.handle(now, ev, &mut out);
        }
        for user in 0..2 {
            let uids: Vec<u64> = got.iter().map(|g| g.1).filter(|uid| uid % 2 == user).collect();
            assert_eq!(uids, (0..200).map(|k| 2 * k + user).collect::<Vec<_>>());
        }
        // 400 × 1500 B in 40-byte payloads of 42-byte PDUs at 1.008 Mb/s: about 5 s, plus STATUS and delay.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((5.0..5.3).contains(&last), "{last}");
        assert_eq!(ran.bytes_held(), 0);
    }
}
