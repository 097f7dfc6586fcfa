//! Two endpoints exchanging packets over a simple path: behaviour checks of
//! the handshake, transfer, loss recovery, timers, delayed ACKs, timestamps,
//! spurious-timeout detection and ECN.

use super::*;
use crate::packet::{flags, Dir, Ecn, Packet};
use crate::time::{Dur, Time};
use crate::units::Bytes;

const MSS: u64 = 1000;
/// One-way propagation delay of the test path.
const DELAY: Dur = Dur::from_millis(50);
const RTT: Dur = Dur::from_millis(100);

/// What the path does with a packet.
enum Fate {
    Deliver,
    Drop,
    /// Deliver this much later than usual.
    Delay(Dur),
    /// Mark CE (ECT packets only).
    Mark,
}

type FateFn = Box<dyn FnMut(Time, bool, &Packet) -> Fate>;

/// A client and a server joined by a path with a fixed one-way delay and,
/// optionally, a serialisation rate per direction (infinite queue).
struct Pair {
    now: Time,
    delay: Dur,
    rate_bps: Option<f64>,
    /// When each direction's link is free: [to the client, to the server].
    link_free: [Time; 2],
    client: Endpoint,
    server: Endpoint,
    /// (arrival, order, to the server, packet).
    in_flight: Vec<(Time, u64, bool, Packet)>,
    order: u64,
    /// Decides each packet's fate: (now, sent by the server, packet).
    fate: FateFn,
    /// Every packet sent: (time, sent by the server, packet).
    log: Vec<(Time, bool, Packet)>,
    steps: u64,
}

impl Pair {
    fn new(cfg: &TcpConfig) -> Pair {
        Pair {
            now: Time::ZERO,
            delay: DELAY,
            rate_bps: Some(10e6),
            link_free: [Time::ZERO; 2],
            client: Endpoint::new(cfg, 1, Role::Client, Dir::Up),
            server: Endpoint::new(cfg, 1, Role::Server, Dir::Down),
            in_flight: Vec::new(),
            order: 0,
            fate: Box::new(|_, _, _| Fate::Deliver),
            log: Vec::new(),
            steps: 0,
        }
    }

    /// A download of `bytes` (`u64::MAX`: endless) from the server, closed after the data.
    fn download(cfg: &TcpConfig, bytes: u64) -> Pair {
        let mut p = Pair::new(cfg);
        p.act(true, |ep, now, out| {
            ep.send(now, bytes, out);
            ep.close(now, out);
        });
        p.act(false, |ep, now, out| ep.connect(now, out));
        p
    }

    /// Runs `f` on one endpoint now and sends what it emits.
    fn act(&mut self, server: bool, f: impl FnOnce(&mut Endpoint, Time, &mut Vec<Packet>)) {
        let mut out = Vec::new();
        let ep = if server { &mut self.server } else { &mut self.client };
        f(ep, self.now, &mut out);
        for pkt in out {
            self.transmit(server, pkt);
        }
    }

    fn transmit(&mut self, from_server: bool, mut pkt: Packet) {
        self.log.push((self.now, from_server, pkt));
        let extra = match (self.fate)(self.now, from_server, &pkt) {
            Fate::Drop => return,
            Fate::Deliver => Dur::ZERO,
            Fate::Delay(d) => d,
            Fate::Mark => {
                assert_eq!(pkt.ecn, Ecn::Ect, "only ECT packets can be marked");
                pkt.ecn = Ecn::Ce;
                Dur::ZERO
            }
        };
        let link = &mut self.link_free[!from_server as usize];
        let start = (*link).max(self.now);
        *link = start + self.rate_bps.map_or(Dur::ZERO, |r| Dur::transmission(pkt.size as u64, r));
        let arrival = *link + self.delay + extra;
        self.in_flight.push((arrival, self.order, !from_server, pkt));
        self.order += 1;
    }

    /// Advances to the next event: one packet arrival or the due timers. False if nothing is pending.
    fn step(&mut self) -> bool {
        self.steps += 1;
        assert!(self.steps < 2_000_000, "livelock: too many steps");
        let Some(next) = self.next_event() else { return false };
        self.now = next;
        let arrival = self.in_flight.iter().enumerate().min_by_key(|(_, (t, o, _, _))| (*t, *o));
        if let Some(i) = arrival.filter(|(_, e)| e.0 == next).map(|(i, _)| i) {
            let (_, _, to_server, pkt) = self.in_flight.remove(i);
            self.act(to_server, |ep, now, out| ep.on_packet(now, &pkt, out));
        }
        // Timers are polled on every event, due or not: endpoints must ignore early calls.
        self.act(false, |ep, now, out| ep.on_timer(now, out));
        self.act(true, |ep, now, out| ep.on_timer(now, out));
        true
    }

    fn next_event(&self) -> Option<Time> {
        let arrivals = self.in_flight.iter().map(|e| e.0);
        arrivals.chain(self.client.next_timer()).chain(self.server.next_timer()).min()
    }

    /// Runs until `done` holds (true) or `limit` passes or nothing is pending (false).
    fn run_until(&mut self, limit: Time, done: impl Fn(&Pair) -> bool) -> bool {
        while !done(self) {
            if self.now > limit || !self.step() {
                return false;
            }
        }
        true
    }

    fn run_for(&mut self, d: Dur) {
        let end = self.now + d;
        self.run_until(end, |p| p.now >= end);
    }

    /// Data packets the server sent.
    fn server_data(&self) -> impl Iterator<Item = &(Time, bool, Packet)> {
        self.log.iter().filter(|(_, s, p)| *s && p.is_data())
    }

    /// One past the highest sequence number the server sent.
    fn server_snd_max(&self) -> u64 {
        self.log.iter().filter(|e| e.1).map(|(_, _, p)| p.tcp.seq + p.tcp.seq_len()).max().unwrap_or(0)
    }

    /// Bytes the server has outstanding.
    fn server_flight(&self) -> u64 {
        self.server_snd_max() - (self.server.acked() + 1)
    }
}

fn cfg(recovery: Recovery) -> TcpConfig {
    TcpConfig { recovery, mss: Bytes(MSS), ..TcpConfig::default() }
}

/// `k` round-trip times of the unloaded path.
fn rtts(k: f64) -> Dur {
    Dur::from_secs_f64(RTT.as_secs_f64() * k)
}

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

/// Drops the first transmission of the server's data segments starting at these segment indices.
fn drop_segments(indices: &'static [u64]) -> FateFn {
    Box::new(move |_, server, p| {
        let hit = server && p.is_data() && !p.retransmission && indices.iter().any(|i| p.tcp.seq == 1 + i * MSS);
        if hit {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    })
}

#[test]
fn handshake_then_a_100kb_transfer_completes() {
    let mut p = Pair::download(&TcpConfig::default(), 100_000);
    p.run_for(Dur::from_secs(10));
    assert!(p.client.peer_closed() && !p.server.peer_closed());
    assert_eq!(p.next_event(), None, "all timers stopped");
    let (syn, syn_ack, ack) = (p.log[0].2.tcp, p.log[1].2.tcp, p.log[2].2.tcp);
    assert_eq!((syn.flags, syn.seq), (flags::SYN, 0));
    assert_eq!((syn_ack.flags, syn_ack.ack), (flags::SYN | flags::ACK, 1));
    assert_eq!((ack.flags & flags::ACK, ack.ack), (flags::ACK, 1));
    assert!(p.client.is_established() && p.server.is_established());
    assert_eq!(p.client.delivered(), 100_000);
    assert_eq!(p.server.acked(), 100_000);
    let s = p.server.stats();
    assert_eq!((s.segments_sent, s.bytes_sent), (69, 100_000), "ceil(100000 / 1460) segments");
    assert_eq!((s.bytes_retransmitted, s.rtos, s.fast_retransmits), (0, 0, 0));
    assert!(p.server_data().all(|(_, _, pkt)| pkt.size == pkt.tcp.len as u32 + 40));
}

#[test]
fn data_flows_both_ways() {
    let mut p = Pair::download(&cfg(Recovery::Sack), 50_000);
    p.act(false, |ep, now, out| {
        ep.send(now, 30_000, out);
        ep.close(now, out);
    });
    p.run_for(Dur::from_secs(10));
    assert!(p.client.peer_closed() && p.server.peer_closed());
    assert_eq!((p.client.delivered(), p.server.delivered()), (50_000, 30_000));
    assert_eq!((p.client.acked(), p.server.acked()), (30_000, 50_000));
}

#[test]
fn a_lost_syn_is_retransmitted_after_the_initial_rto() {
    let c = TcpConfig { rto_initial: Dur::from_secs(1), ..TcpConfig::default() };
    let mut p = Pair::new(&c);
    let mut first = true;
    p.fate = Box::new(move |_, server, pkt| match !server && pkt.is_syn() && std::mem::take(&mut first) {
        true => Fate::Drop,
        false => Fate::Deliver,
    });
    p.act(true, |ep, now, out| ep.send(now, 10_000, out));
    p.act(false, |ep, now, out| ep.connect(now, out));
    assert!(p.run_until(secs(5.0), |p| p.client.delivered() == 10_000));
    let syns: Vec<Time> = p.log.iter().filter(|(_, s, pkt)| !s && pkt.is_syn()).map(|e| e.0).collect();
    assert_eq!(syns, vec![Time::ZERO, secs(1.0)]);
    assert_eq!(p.client.stats().rtos, 1);
}

#[test]
fn one_loss_is_repaired_by_one_fast_retransmit_halving_the_window() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd = Window::Packets(100);
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[30]);
    assert!(p.run_until(secs(5.0), |p| p.server.stats().fast_retransmits == 1));
    let flight = p.server_flight();
    let recover = p.server_snd_max();
    assert_eq!(p.server.ssthresh(), flight / 2);
    assert!(p.run_until(secs(5.0), |p| p.server.acked() + 1 >= recover));
    assert_eq!(p.server.cwnd(), flight / 2, "cwnd = ssthresh on leaving recovery");
    assert_eq!(p.server.ssthresh(), flight / 2);
    p.run_for(Dur::from_secs(2));
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, s.bytes_retransmitted), (1, 0, MSS));
}

/// CUBIC (RFC 9438 §4.6) through the sender: the same single loss leaves ssthresh = 0.7·FlightSize
/// and recovery ends at cwnd = ssthresh; the congestion avoidance stage that follows starts with
/// W_max = the window at the loss and K = ∛((W_max − cwnd_epoch)/C) = ∛(0.3·W_max/(0.4 SMSS)),
/// and grows the window back beyond W_max.
#[test]
fn cubic_reduces_by_beta_on_one_loss_and_grows_back_along_the_cubic() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd = Window::Packets(100);
    c.congestion = CongestionControl::Cubic;
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[30]);
    assert!(p.run_until(secs(5.0), |p| p.server.stats().fast_retransmits == 1));
    let flight = p.server_flight();
    let recover = p.server_snd_max();
    assert_eq!(p.server.ssthresh(), flight * 7 / 10);
    assert!(p.run_until(secs(5.0), |p| p.server.acked() + 1 >= recover));
    assert_eq!(p.server.cwnd(), flight * 7 / 10, "cwnd = ssthresh on leaving recovery");
    assert!(p.run_until(secs(5.0), |p| p.server.cc_metrics().k.is_some()));
    let m = p.server.cc_metrics();
    assert_eq!(m.w_max, Some(flight), "W_max = cwnd at the loss, the flight of a cwnd-limited sender");
    let k = ((flight - flight * 7 / 10) as f64 / MSS as f64 / 0.4).cbrt();
    assert!((m.k.unwrap() - k).abs() < 0.05, "K {:?} vs {k}", m.k);
    p.run_for(Dur::from_secs_f64(k + 1.0));
    assert!(p.server.cwnd() > flight, "beyond W_max after K: {} vs {flight}", p.server.cwnd());
    assert_eq!(p.server.stats().fast_retransmits, 1);
}

/// `rto_restart = "always"` (ns-2, Linux): the fast retransmission restarts the
/// retransmission timer, so right after it the deadline is a whole RTO (≥ rto_min)
/// away. `"impatient"` (RFC 6298 (5.1) as written, ns-3): the timer keeps counting
/// from the last new ACK, which came a few segment times before the third duplicate.
#[test]
fn the_fast_retransmission_restarts_the_timer_unless_impatient() {
    let deadline_after_fast_retransmit = |restart: RtoRestart| {
        let mut c = cfg(Recovery::NewReno);
        c.rwnd = Window::Packets(100);
        c.rto_restart = restart;
        let mut p = Pair::download(&c, u64::MAX);
        p.fate = drop_segments(&[30]);
        assert!(p.run_until(secs(5.0), |p| p.server.stats().fast_retransmits == 1));
        let deadline = p.server.next_timer().expect("the timer runs during recovery");
        (deadline, p.now, c.rto_min)
    };
    let (deadline, now, rto_min) = deadline_after_fast_retransmit(RtoRestart::Always);
    assert!(deadline >= now + rto_min, "always: deadline {deadline} at {now}");
    let (deadline, now, rto_min) = deadline_after_fast_retransmit(RtoRestart::Impatient);
    assert!(deadline < now + rto_min, "impatient: deadline {deadline} at {now}");
}

/// RFC 6582 §4: with `rto_restart = "impatient"` only the first partial ACK
/// restarts the timer, so four losses in one window, repaired one per RTT
/// (100 ms) by NewReno, outlast a 250 ms RTO and end in a timeout; with
/// `"always"` ("Slow-but-Steady", the default) recovery completes without one.
#[test]
fn impatient_newreno_times_out_where_slow_but_steady_recovers() {
    let run = |restart: RtoRestart| {
        let mut c = cfg(Recovery::NewReno);
        c.rwnd = Window::Packets(20);
        c.rto_min = Dur::from_millis(250);
        c.rto_restart = restart;
        let mut p = Pair::download(&c, u64::MAX);
        p.fate = drop_segments(&[100, 102, 104, 106]);
        p.run_for(Dur::from_secs(15));
        p.server.stats().rtos
    };
    assert_eq!(run(RtoRestart::Always), 0);
    assert!(run(RtoRestart::Impatient) >= 1);
}

/// RFC 5681 (4) allows no more than FlightSize/2 after a timeout. When the timeout
/// interrupts a NewReno recovery that has kept sending new data (six losses, one
/// repaired per RTT, the "impatient" timer), FlightSize has grown well beyond the
/// window at the loss: the timeout halves the recovery's window (its ssthresh), as
/// ns-2 halves its window, not FlightSize (which would raise ssthresh).
#[test]
fn a_timeout_during_recovery_halves_the_recoverys_window_not_the_flight() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd = Window::Packets(200);
    c.rto_min = Dur::from_millis(250);
    c.rto_restart = RtoRestart::Impatient;
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[100, 102, 104, 106, 108, 110]);
    assert!(p.run_until(secs(20.0), |p| p.server.stats().fast_retransmits == 1));
    let at_loss = p.server.ssthresh();
    assert!(p.run_until(secs(20.0), |p| p.server.stats().rtos == 1), "the impatient timer expires in recovery");
    let flight = p.server_snd_max() - p.server.acked() - 1;
    assert!(flight / 2 > at_loss, "FlightSize grew during recovery: {flight} vs ssthresh {at_loss}");
    assert_eq!(p.server.ssthresh(), at_loss / 2);
}

#[test]
fn consecutive_rtos_back_off_exponentially_up_to_rto_max() {
    let mut c = cfg(Recovery::NewReno);
    c.rto_max = Dur::from_secs(2);
    let mut p = Pair::download(&c, u64::MAX);
    // A blackout of all server packets from 1 s to 12 s.
    p.fate = Box::new(|now, server, _| match server && now >= secs(1.0) && now < secs(12.0) {
        true => Fate::Drop,
        false => Fate::Deliver,
    });
    p.run_for(Dur::from_secs(12));
    let acked = p.server.acked();
    let rexmits: Vec<(Time, u64)> =
        p.server_data().filter(|(_, _, pkt)| pkt.rto_retransmission).map(|(t, _, pkt)| (*t, pkt.tcp.seq)).collect();
    assert!(rexmits.len() >= 6, "{rexmits:?}");
    assert!(rexmits.iter().all(|&(_, seq)| seq == acked + 1), "all retransmit the same segment");
    let gaps: Vec<Dur> = rexmits.windows(2).map(|w| w[1].0.since(w[0].0)).collect();
    for g in gaps.windows(2) {
        assert_eq!(g[1], (g[0] * 2).min(c.rto_max), "gaps {gaps:?}");
    }
    assert_eq!(*gaps.last().unwrap(), c.rto_max);
    assert_eq!(p.server.stats().rtos, rexmits.len() as u64);
    assert!(p.server.stalled(), "data outstanding, {} timeouts without progress", rexmits.len());
    // The path is back: the transfer resumes.
    p.run_for(Dur::from_secs(3));
    assert!(p.server.acked() > acked);
    assert!(!p.server.stalled(), "new data acknowledged ends the stall");
}

#[test]
fn a_flow_is_stalled_from_its_third_timeout_without_progress() {
    let mut p = Pair::download(&cfg(Recovery::NewReno), u64::MAX);
    p.fate = Box::new(|now, server, _| match server && now >= secs(1.0) {
        true => Fate::Drop,
        false => Fate::Deliver,
    });
    let mut seen = Vec::new();
    while p.server.stats().rtos < 4 {
        assert!(p.step());
        if seen.last() != Some(&p.server.stats().rtos) {
            seen.push(p.server.stats().rtos);
            assert_eq!(p.server.stalled(), p.server.stats().rtos >= 3, "after {} timeouts", p.server.stats().rtos);
        }
    }
    assert!(!p.client.stalled(), "the client sends nothing but ACKs");
}

/// Four losses in one window of 20 segments (limited by the receive window).
/// SACK repairs them in about one RTT; NewReno needs one RTT per loss; Reno
/// leaves recovery on the first partial ACK and, the window already reduced
/// once, cannot fast-retransmit again: it times out.
fn four_losses(recovery: Recovery) -> (Pair, Dur) {
    let mut c = cfg(recovery);
    c.rwnd = Window::Packets(20);
    c.rto_min = Dur::from_secs(1);
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[100, 102, 104, 106]);
    assert!(p.run_until(secs(10.0), |p| p.server.stats().fast_retransmits == 1));
    let (start, recover) = (p.now, p.server_snd_max());
    assert!(p.run_until(secs(20.0), |p| p.server.acked() + 1 >= recover));
    let duration = p.now.since(start);
    p.run_for(Dur::from_secs(2));
    (p, duration)
}

#[test]
fn sack_repairs_four_losses_in_about_one_rtt() {
    let (p, duration) = four_losses(Recovery::Sack);
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos), (1, 0));
    assert!(duration < rtts(1.5), "{duration}");
    // The four holes go out together; RFC 6675 NextSeg rule (4) may add one rescue retransmission.
    let rexmits: Vec<(Time, u64)> =
        p.server_data().filter(|e| e.2.retransmission).map(|e| (e.0, (e.2.tcp.seq - 1) / MSS)).collect();
    assert!(rexmits.len() <= 5, "{rexmits:?}");
    assert_eq!(rexmits[..4].iter().map(|r| r.1).collect::<Vec<_>>(), vec![100, 102, 104, 106]);
    assert!(rexmits[3].0.since(rexmits[0].0) < rtts(0.1), "{rexmits:?}");
}

#[test]
fn newreno_repairs_four_losses_in_about_four_rtts() {
    let (p, duration) = four_losses(Recovery::NewReno);
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, s.bytes_retransmitted), (1, 0, 4 * MSS));
    assert!(duration > rtts(3.5) && duration < rtts(4.5), "{duration}");
}

#[test]
fn reno_times_out_on_four_losses() {
    let (p, _) = four_losses(Recovery::Reno);
    let s = p.server.stats();
    assert_eq!(s.fast_retransmits, 1);
    assert!(s.rtos >= 1);
}

#[test]
fn delayed_acks_acknowledge_every_second_segment() {
    let mut c = cfg(Recovery::NewReno);
    c.delayed_ack = true;
    let mut p = Pair::download(&c, 100_000);
    assert!(p.run_until(secs(10.0), |p| p.client.peer_closed()));
    let data = p.server_data().count() as f64;
    let acks = p.log.iter().filter(|(_, s, pkt)| !s && pkt.tcp.seq_len() == 0 && pkt.tcp.ack > 1).count() as f64;
    assert!((0.45..0.62).contains(&(acks / data)), "{acks} ACKs for {data} segments");
}

#[test]
fn a_lone_segment_is_acknowledged_after_the_delayed_ack_timeout() {
    let mut c = cfg(Recovery::NewReno);
    c.delayed_ack = true;
    let mut p = Pair::new(&c);
    p.act(false, |ep, now, out| ep.connect(now, out));
    assert!(p.run_until(secs(1.0), |p| p.server.is_established()));
    p.act(true, |ep, now, out| ep.send(now, 500, out));
    assert!(p.run_until(secs(2.0), |p| p.client.delivered() == 500));
    let arrived = p.now;
    assert!(p.run_until(secs(2.0), |p| p.server.acked() == 500));
    let ack_sent = p.log.iter().find(|(_, s, pkt)| !s && pkt.tcp.ack == 501).unwrap().0;
    assert_eq!(ack_sent.since(arrived), c.delack_timeout);
}

/// SRTT some time after the path's one-way delay doubles at 2 s.
fn srtt_after_delay_change(timestamps: bool, after: Dur) -> Dur {
    let mut c = cfg(Recovery::NewReno);
    c.timestamps = timestamps;
    c.rwnd = Window::Packets(10);
    c.rto_min = Dur::from_secs(1);
    let mut p = Pair::download(&c, u64::MAX);
    p.rate_bps = None;
    p.run_for(Dur::from_secs(2));
    assert_eq!(p.server.srtt(), Some(RTT));
    p.delay = DELAY * 2;
    p.run_for(after);
    assert_eq!(p.server.stats().rtos, 0);
    p.server.srtt().unwrap()
}

#[test]
fn timestamps_give_an_rtt_sample_per_ack() {
    // 10 segments per RTT: with timestamps SRTT follows a change within about two RTTs
    // (each ACK moves it 1/8 of the way); timing one segment per RTT, it barely moves.
    let new_rtt = RTT * 2;
    let with = srtt_after_delay_change(true, new_rtt * 2);
    let without = srtt_after_delay_change(false, new_rtt * 2);
    assert!(with > rtts(1.7), "{with}");
    assert!(without < rtts(1.3), "{without}");
    let converged = srtt_after_delay_change(true, Dur::from_secs(3));
    assert!(converged.0.abs_diff(new_rtt.0) < 10, "{converged}: converges to the path RTT");
}

#[test]
fn an_rto_whose_segment_was_not_lost_is_counted_spurious_by_the_receiver() {
    let mut c = cfg(Recovery::NewReno);
    c.rwnd = Window::Packets(20);
    let mut p = Pair::download(&c, u64::MAX);
    // The client's ACKs sent in [1.0 s, 1.2 s) are held 300 ms: longer than the 200 ms RTO.
    p.fate = Box::new(|now, server, _| match !server && now >= secs(1.0) && now < secs(1.2) {
        true => Fate::Delay(Dur::from_millis(300)),
        false => Fate::Deliver,
    });
    p.run_for(Dur::from_secs(3));
    assert_eq!(p.server.stats().rtos, 1);
    assert_eq!(p.client.stats().spurious_rtos, 1, "the client saw the retransmission as a duplicate");
    assert_eq!(p.server.stats().spurious_rtos, 0);
}

/// The Eifel response (RFC 3522 / 4015) after a delay spike with no loss: the
/// data path stalls from 1.0 s to 1.4 s (every segment sent then is held
/// until 1.4 s, in order: a link outage), longer than the RTO. Without it the
/// sender drops to one segment and resends the window (go-back-N); with it the
/// first ACK after the outage echoes the original's timestamp, the window is
/// restored to what was in flight and only the one segment was sent twice.
#[test]
fn the_eifel_response_restores_the_window_after_a_delay_spike() {
    let spike = |eifel: bool| {
        let mut c = cfg(Recovery::Sack);
        c.rwnd = Window::Packets(20);
        c.timestamps = true;
        c.spurious_rto = if eifel { SpuriousRto::Eifel } else { SpuriousRto::None };
        let mut p = Pair::download(&c, u64::MAX);
        p.fate = Box::new(|now, server, _| match server && now >= secs(1.0) && now < secs(1.4) {
            true => Fate::Delay(secs(1.4).since(now)),
            false => Fate::Deliver,
        });
        p.run_until(secs(1.0), |_| false);
        let before = p.server.cwnd();
        assert!(p.run_until(secs(3.0), |p| p.server.stats().rtos == 1));
        // The outage ends at 1.4 s; the first ACKs after it are back by 1.5 s.
        p.run_until(secs(1.55), |_| false);
        (before, p.server.cwnd(), p.server.ssthresh(), *p.server.stats(), p)
    };
    // The receive window (20 segments) bounds the flight; cwnd had grown past it.
    let (before, cwnd, ssthresh, s, mut p) = spike(true);
    assert!(before > 20 * MSS);
    assert_eq!((s.rtos, s.rtos_undone), (1, 1));
    // Restored: cwnd = FlightSize + min(acked, IW), at least the 20-segment flight; ssthresh =
    // pipe_prev = max(FlightSize, ssthresh) = ∞ (never reduced before).
    assert!(cwnd >= 20 * MSS && ssthresh == u64::MAX, "window {cwnd}, ssthresh {ssthresh}");
    assert_eq!(s.bytes_retransmitted, MSS, "only the timed-out segment was sent twice");
    p.run_for(Dur::from_secs(2));
    assert_eq!(p.server.stats().bytes_retransmitted, MSS);
    let (_, cwnd_off, ssthresh_off, s_off, _) = spike(false);
    assert_eq!(s_off.rtos_undone, 0);
    assert!(cwnd_off < 15 * MSS && ssthresh_off == 10 * MSS, "without Eifel: halved to {ssthresh_off}, {cwnd_off}");
    assert!(s_off.bytes_retransmitted > 5 * MSS, "go-back-N resends the window: {}", s_off.bytes_retransmitted);
    // Eifel needs timestamps.
    let bad = TcpConfig { spurious_rto: SpuriousRto::Eifel, ..TcpConfig::default() };
    assert!(bad.validate().unwrap_err().starts_with("tcp.spurious_rto:"));
}

/// The data path stalls from 1.0 s to 1.4 s (segments sent then are held until 1.4 s, in
/// order), longer than the RTO, with nothing lost: a delay spike.
fn held_from_1_to_1_4_s(now: Time, server: bool, _: &Packet) -> Fate {
    match server && now >= secs(1.0) && now < secs(1.4) {
        true => Fate::Delay(secs(1.4).since(now)),
        false => Fate::Deliver,
    }
}

/// F-RTO (RFC 5682) on the delay spike above, with SACK (§3) and without (§2.1), hand-worked:
/// the timeout resends the first unacknowledged segment (step 1); the originals then arrive and
/// the first ACK of new data acknowledges the first of them, below RecoveryPoint (SND.MAX): the
/// sender sends the next two *new* segments (step 2b); the next ACK acknowledges an original
/// that was never retransmitted: spurious (step 3b). The Eifel response (RFC 4015) restores the
/// window, as timestamps would with Eifel; only the one segment was ever sent twice. Without
/// F-RTO the sender halves ssthresh and resends the window (go-back-N).
#[test]
fn frto_finds_a_delay_spike_spurious_and_undoes_the_timeout() {
    for recovery in [Recovery::Sack, Recovery::NewReno] {
        let spike = |on: bool| {
            let mut c = cfg(recovery);
            c.rwnd = Window::Packets(20);
            c.spurious_rto = if on { SpuriousRto::Frto } else { SpuriousRto::None };
            let mut p = Pair::download(&c, u64::MAX);
            p.fate = Box::new(held_from_1_to_1_4_s);
            p.run_until(secs(1.0), |_| false);
            assert!(p.run_until(secs(3.0), |p| p.server.stats().rtos == 1));
            let timeout = p.log.len();
            p.run_until(secs(1.55), |_| false);
            (p, timeout)
        };
        let (mut p, timeout) = spike(true);
        let s = *p.server.stats();
        assert_eq!((s.rtos, s.rtos_undone), (1, 1), "{recovery:?}");
        // What the server sent from the timeout on: the retransmission of SND.UNA, then (on the
        // first ACK of an original) two segments above everything sent before, then new data.
        let sent: Vec<(u64, bool)> = p.log[timeout - 1..]
            .iter()
            .filter(|(_, srv, pkt)| *srv && pkt.tcp.len > 0)
            .map(|(_, _, pkt)| (pkt.tcp.seq, pkt.retransmission))
            .collect();
        let (first, rp) = (sent[0].0, sent[1].0);
        assert!(sent[0].1, "step 1 resends the first unacknowledged segment: {sent:?}");
        assert_eq!((sent[1], sent[2]), ((rp, false), (rp + MSS, false)), "step 2b: two new segments");
        assert_eq!(rp, first + 20 * MSS, "RecoveryPoint: the 20-segment window sent before the timeout");
        assert!(sent.iter().skip(1).all(|&(seq, rx)| !rx && seq >= rp), "nothing else resent: {sent:?}");
        assert!(p.server.cwnd() >= 18 * MSS && p.server.ssthresh() == u64::MAX, "restored: {}", p.server.cwnd());
        p.run_for(Dur::from_secs(2));
        assert_eq!(p.server.stats().bytes_retransmitted, MSS, "{recovery:?}");
        let (off, _) = spike(false);
        let s = *off.server.stats();
        assert_eq!(s.rtos_undone, 0);
        assert!(off.server.ssthresh() == 10 * MSS && s.bytes_retransmitted > 5 * MSS, "{recovery:?}: {s:?}");
    }
}

/// A real loss: everything the server sends from 1.0 s to 1.4 s is lost (the first
/// retransmission too). The backed-off retransmission gets through and its ACK passes step 2b;
/// the two new segments then come back SACKed (or duplicate-ACKed) above RecoveryPoint: step 3a,
/// conventional recovery with cwnd at most 3 segments. Nothing is undone and every lost byte is
/// delivered, with SACK and without.
#[test]
fn frto_recovers_a_real_loss_conventionally() {
    for recovery in [Recovery::Sack, Recovery::NewReno] {
        let mut c = cfg(recovery);
        c.rwnd = Window::Packets(1000);
        c.spurious_rto = SpuriousRto::Frto;
        let mut p = Pair::download(&c, u64::MAX);
        p.fate = Box::new(|now, server, _| match server && now >= secs(1.0) && now < secs(1.4) {
            true => Fate::Drop,
            false => Fate::Deliver,
        });
        p.run_until(secs(1.4), |_| false);
        let lost_up_to = p.server_snd_max();
        assert!(p.run_until(secs(10.0), |p| p.client.delivered() >= lost_up_to), "{recovery:?}");
        let s = *p.server.stats();
        assert_eq!(s.rtos_undone, 0, "{recovery:?}: {s:?}");
        assert!(s.rtos >= 1 && s.bytes_retransmitted >= 10 * MSS, "{recovery:?}: {s:?}");
        // After the lost period the server sent: the surviving (backed-off) retransmission, two new
        // segments (step 2b), then retransmissions again (step 3a: go-back-N).
        let after: Vec<bool> = p
            .log
            .iter()
            .filter(|(t, srv, pkt)| *srv && *t >= secs(1.4) && pkt.tcp.len > 0)
            .map(|(_, _, pkt)| pkt.retransmission)
            .take(5)
            .collect();
        assert_eq!(after, [true, false, false, true, true], "{recovery:?}");
    }
}

/// A timeout during fast recovery (the fast retransmission delayed beyond the RTO): F-RTO does
/// not start (RFC 5682 step 1: RecoveryPoint at or above SND.UNA), so the sender does exactly
/// what it does without it.
#[test]
fn frto_does_not_start_in_fast_recovery() {
    let run = |spurious_rto: SpuriousRto| {
        let mut c = cfg(Recovery::Sack);
        c.rwnd = Window::Packets(20);
        c.spurious_rto = spurious_rto;
        let mut p = Pair::download(&c, 300 * MSS);
        let lost = 1 + 40 * MSS;
        let mut dropped = false;
        p.fate = Box::new(move |_, server, pkt| match (server, pkt.tcp.seq == lost, pkt.retransmission) {
            (true, true, false) if !dropped => {
                dropped = true;
                Fate::Drop
            }
            (true, true, true) => Fate::Delay(Dur::from_millis(400)), // the fast retransmission
            _ => Fate::Deliver,
        });
        assert!(p.run_until(secs(20.0), |p| p.client.delivered() == 300 * MSS));
        (*p.server.stats(), p.log.len())
    };
    let (frto, n) = run(SpuriousRto::Frto);
    assert!(frto.rtos >= 1 && frto.fast_retransmits >= 1, "{frto:?}");
    assert_eq!(frto.rtos_undone, 0);
    assert_eq!((frto, n), run(SpuriousRto::None));
}

#[test]
fn a_ce_mark_reduces_the_window_once_without_retransmission() {
    let mut c = cfg(Recovery::Sack);
    c.ecn = true;
    c.rwnd = Window::Packets(100);
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = Box::new(|_, server, pkt| match server && pkt.tcp.seq == 1 + 30 * MSS {
        true => Fate::Mark,
        false => Fate::Deliver,
    });
    assert!(p.run_until(secs(5.0), |p| p.server.stats().ecn_reductions == 1));
    let flight = p.server_flight();
    assert_eq!((p.server.cwnd(), p.server.ssthresh()), (flight / 2, flight / 2));
    p.run_for(Dur::from_secs(2));
    let s = p.server.stats();
    assert_eq!((s.ecn_reductions, s.bytes_retransmitted, s.fast_retransmits, s.rtos), (1, 0, 0, 0));
    assert_eq!(p.server_data().filter(|(_, _, pkt)| pkt.tcp.has(flags::CWR)).count(), 1);
    assert!(p.server_data().all(|(_, _, pkt)| pkt.ecn == Ecn::Ect));
    let client_acks: Vec<bool> = p.log.iter().filter(|e| !e.1).map(|(_, _, pkt)| pkt.tcp.has(flags::ECE)).collect();
    assert!(client_acks.iter().any(|&e| e) && !client_acks.last().unwrap(), "ECE echoed until CWR");
}

/// One ACK the server received: the segment index it acknowledges up to, the data
/// segments (indices from the first data byte) sent in answer, and cwnd after it.
struct Answer {
    ack: u64,
    sent: Vec<u64>,
    cwnd: u64,
}

/// Runs until `limit`, listing the server's answer to every ACK.
fn answers(p: &mut Pair, limit: Time) -> Vec<Answer> {
    let mut list = Vec::new();
    while p.now <= limit {
        let next = p.in_flight.iter().min_by_key(|(t, o, _, _)| (*t, *o)).map(|e| (e.0, e.2, e.3.tcp.ack));
        let logged = p.log.len();
        if !p.step() {
            break;
        }
        if let Some((_, true, ack)) = next.filter(|n| n.0 == p.now) {
            let sent =
                p.log[logged..].iter().filter(|(_, s, pkt)| *s && pkt.is_data()).map(|e| (e.2.tcp.seq - 1) / MSS);
            list.push(Answer { ack: ack.saturating_sub(1) / MSS, sent: sent.collect(), cwnd: p.server.cwnd() });
        }
    }
    list
}

/// The answers to `n` ACKs by a hand-worked rule: `f(k)` for the k-th (from 1).
fn per_ack(n: u64, f: impl Fn(u64) -> Vec<u64>) -> Vec<Vec<u64>> {
    (1..=n).map(f).collect()
}

/// Slow start from 10 segments (no delayed ACKs: each ACK releases two) sends segments
/// 0–9, 10–29 and 30–69 in three round trips. Losing the first transmission of segment 30,
/// the ACKs of 31–69 find FlightSize = 40 segments, ssthresh = 20. Returns what the server
/// sends in answer to each of the 39 duplicate ACKs and to the ACK that ends recovery, and
/// cwnd after that ACK and ssthresh.
fn one_loss_answers(recovery: Recovery, window: RecoveryWindow) -> (Vec<Vec<u64>>, u64, u64) {
    one_loss_answers_with(TcpConfig { recovery_window: window, ..cfg(recovery) })
}

/// [`one_loss_answers`] for any configuration `c` (its initial window and receive window replaced).
fn one_loss_answers_with(mut c: TcpConfig) -> (Vec<Vec<u64>>, u64, u64) {
    c.initial_window = 10;
    c.rwnd = Window::Packets(100);
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[30]);
    let list = answers(&mut p, secs(1.0));
    // The ACK of segment 29, then the duplicates.
    let mut sent: Vec<Vec<u64>> = list.iter().filter(|a| a.ack == 30).skip(1).map(|a| a.sent.clone()).collect();
    assert_eq!(sent.len(), 39);
    let exit = list.iter().find(|a| a.ack >= 70).expect("recovery ends");
    sent.push(exit.sent.clone());
    (sent, exit.cwnd, p.server.ssthresh())
}

/// RFC 6937 §3.1's single loss, hand-worked for segment 30 of a 40-segment flight. NewReno
/// (pipe = FlightSize − SMSS per duplicate ACK, less the lost segment until it is resent)
/// and SACK (RFC 6675 pipe) see the same pipe here. At the third duplicate ACK, pipe =
/// 40 − 3 − 1 = 36 > ssthresh = 20: sndcnt = ⌈prr_delivered·20/40⌉ − prr_out, so after
/// the fast retransmission a new segment goes out on every second duplicate (6, 8, …, 32:
/// segments 70–83) while pipe = 37 − k/2 falls to ssthresh. At duplicate 34 pipe = 20: the
/// reduction bound sends ssthresh − pipe = 0; duplicates 35–39 find pipe = 19 and send one
/// each (84–88). The full ACK ends recovery with cwnd = ssthresh = 20 segments, 19 of them
/// in flight: one more (89).
#[test]
fn prr_spreads_the_sending_over_recovery_and_ends_it_at_ssthresh() {
    let mut expected = per_ack(39, |k| match k {
        3 => vec![30],
        6..=32 if k % 2 == 0 => vec![70 + (k - 6) / 2],
        35..=39 => vec![84 + k - 35],
        _ => vec![],
    });
    expected.push(vec![89]);
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let (sent, cwnd, ssthresh) = one_loss_answers(recovery, RecoveryWindow::Prr);
        assert_eq!(sent, expected, "{recovery:?}: sends per duplicate ACK 1–39, then at the full ACK");
        assert_eq!((cwnd, ssthresh), (20 * MSS, 20 * MSS), "{recovery:?}");
    }
}

/// The same loss with `recovery_window = "rfc"` (today's rules): NewReno's window, inflated
/// to 23 + (k − 3) segments by duplicate ACK k, and SACK's cwnd − pipe (cwnd = 20, pipe =
/// 40 − k + sent) both stay closed until duplicate 21, then send one segment per duplicate
/// (70–88); the full ACK deflates to ssthresh and sends one more (89). The same 20 segments
/// as PRR, in the second half of the round trip instead of spread over it. ns-2.27's Sack1
/// (`tcp-sack1.cc`) sends the same: its pipe_ = 40 − 3 at the third duplicate, less one per
/// duplicate, counts the one lost segment as SACK's pipe counts its retransmission.
#[test]
fn rfc_recovery_sends_in_the_second_half_of_the_round_trip() {
    let mut expected = per_ack(39, |k| match k {
        3 => vec![30],
        21..=39 => vec![70 + k - 21],
        _ => vec![],
    });
    expected.push(vec![89]);
    for recovery in [Recovery::NewReno, Recovery::Sack, Recovery::Ns2Sack1] {
        let (sent, cwnd, ssthresh) = one_loss_answers(recovery, RecoveryWindow::Rfc);
        assert_eq!(sent, expected, "{recovery:?}");
        assert_eq!((cwnd, ssthresh), (20 * MSS, 20 * MSS), "{recovery:?}");
    }
}

/// Limited transmit (RFC 3042) on the same loss: the window is full (40 segments in
/// flight, cwnd 40), so without it duplicates 1 and 2 send nothing; with it each sends one
/// new segment (70, then 71) and the third sends the fast retransmission (30). cwnd is not
/// changed by them: the reduction still halves min(FlightSize, cwnd) = 40 to ssthresh 20.
#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
        for on in [false, true] {
            let mut c = cfg(recovery);
            (c.initial_window, c.rwnd, c.limited_transmit) = (10, Window::Packets(100), on);
            let mut p = Pair::download(&c, u64::MAX);
            p.fate = drop_segments(&[30]);
            let list = answers(&mut p, secs(1.0));
            let dup: Vec<&Answer> = list.iter().filter(|a| a.ack == 30).skip(1).take(3).collect();
            let sent: Vec<Vec<u64>> = dup.iter().map(|a| a.sent.clone()).collect();
            let expected = if on { vec![vec![70], vec![71], vec![30]] } else { vec![vec![], vec![], vec![30]] };
            assert_eq!(sent, expected, "{recovery:?}, limited transmit {on}");
            assert_eq!((dup[0].cwnd, dup[1].cwnd), (40 * MSS, 40 * MSS), "{recovery:?}: cwnd unchanged");
            assert_eq!(p.server.ssthresh(), 20 * MSS, "{recovery:?}");
        }
    }
}

/// RFC 6937 §3.1's burst loss, hand-worked with SACK: segments 30–54 lost (25 of 40), so the
/// duplicate ACKs come from 55–69. At the third, RFC 6675 pipe = 40 − 3 SACKed − 25 lost =
/// 12 ≤ ssthresh = 20: the Slow Start Reduction Bound gives limit = max(prr_delivered −
/// prr_out, DeliveredData) + MSS = 2 segments per ACK (the fast retransmission being one of
/// the first two), so pipe = k + 9 climbs by one per ACK; from duplicate 10 (pipe 19)
/// ssthresh − pipe = 1 binds: one segment per ACK holds pipe at 19 + 1.
#[test]
fn prr_after_a_burst_loss_grows_the_flight_back_by_one_segment_per_ack() {
    let mut c = cfg(Recovery::Sack);
    c.initial_window = 10;
    c.rwnd = Window::Packets(100);
    c.recovery_window = RecoveryWindow::Prr;
    let mut p = Pair::download(&c, u64::MAX);
    let lost: Vec<u64> = (30..55).collect();
    p.fate = Box::new(move |_, server, pkt| {
        match server && pkt.is_data() && !pkt.retransmission && lost.contains(&((pkt.tcp.seq - 1) / MSS)) {
            true => Fate::Drop,
            false => Fate::Deliver,
        }
    });
    let list = answers(&mut p, secs(1.0));
    let dupacks: Vec<Vec<u64>> = list.iter().filter(|a| a.ack == 30).skip(1).map(|a| a.sent.clone()).collect();
    let expected = per_ack(15, |k| match k {
        3..=9 => vec![30 + 2 * (k - 3), 31 + 2 * (k - 3)],
        10..=15 => vec![44 + k - 10],
        _ => vec![],
    });
    assert_eq!(dupacks, expected, "duplicate ACKs 1–15");
    p.run_for(Dur::from_secs(3));
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos), (1, 0));
}

/// A loss in a window of 4 (segment 0 of the initial window 0–3): the third duplicate ACK
/// starts recovery with FlightSize 4, ssthresh = 2 SMSS, pipe = 4 − 3 delivered − 1 lost = 0
/// (NewReno's estimate and RFC 6675's agree), so the reduction bound allows min(ssthresh −
/// pipe, max(prr_delivered − prr_out, DeliveredData) + SMSS) = 2 segments: the fast
/// retransmission and new segment 4. The full ACK ends recovery at cwnd = 2 SMSS with
/// segment 4 in flight: segment 5 follows.
#[test]
fn prr_in_a_four_segment_window_sends_the_retransmission_and_one_new_segment() {
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let mut c = cfg(recovery);
        c.initial_window = 4;
        c.recovery_window = RecoveryWindow::Prr;
        let mut p = Pair::download(&c, u64::MAX);
        p.fate = drop_segments(&[0]);
        let list = answers(&mut p, secs(1.0));
        // After the handshake's ACK, which releases the initial window.
        let start = list.iter().position(|a| a.sent == [0, 1, 2, 3]).unwrap() + 1;
        let sent: Vec<&[u64]> = list[start..start + 4].iter().map(|a| &a.sent[..]).collect();
        assert_eq!(sent, [&[][..], &[], &[0, 4], &[5]], "{recovery:?}: duplicate ACKs 1–3, then the full ACK");
        let exit = list.iter().find(|a| a.ack == 4).unwrap();
        assert_eq!((exit.cwnd, p.server.ssthresh()), (2 * MSS, 2 * MSS), "{recovery:?}");
    }
}

/// NewReno with PRR, segments 30 and 50 of the 40-segment flight lost. The 38 duplicate
/// ACKs (from 31–49 and 51–69) send as after one loss: the retransmission of 30, then
/// 70–83 on every second duplicate and 84–87 on duplicates 35–38. The partial ACK (ack 50)
/// covers 20 segments while 38 duplicates preceded it: DeliveredData = 0 and 18 SMSS stay
/// counted in SACKd, so pipe = FlightSize 38 − 18 − 1 lost = 19 ≤ ssthresh = 20. Its sndcnt
/// (1 segment) goes to the retransmission of 50. The 18 duplicate ACKs that 70–87 then
/// bring each find pipe = 19 and send one new segment (88–105); the full ACK ends recovery
/// at cwnd = 20 segments with 18 in flight: 106 and 107 follow. Had SACKd been reset at the
/// partial ACK, pipe would have seemed 37 and PRR would have sent half as much.
#[test]
fn prr_newreno_counts_duplicates_beyond_a_partial_ack_as_delivered() {
    let mut c = cfg(Recovery::NewReno);
    c.initial_window = 10;
    c.rwnd = Window::Packets(100);
    c.recovery_window = RecoveryWindow::Prr;
    let mut p = Pair::download(&c, u64::MAX);
    p.fate = drop_segments(&[30, 50]);
    let list = answers(&mut p, secs(1.0));
    let first: Vec<Vec<u64>> = list.iter().filter(|a| a.ack == 30).skip(1).map(|a| a.sent.clone()).collect();
    let expected = per_ack(38, |k| match k {
        3 => vec![30],
        6..=32 if k % 2 == 0 => vec![70 + (k - 6) / 2],
        35..=38 => vec![84 + k - 35],
        _ => vec![],
    });
    assert_eq!(first, expected, "duplicate ACKs of 30");
    let second: Vec<Vec<u64>> = list.iter().filter(|a| a.ack == 50).map(|a| a.sent.clone()).collect();
    let mut expected = vec![vec![50]];
    expected.extend((88..106).map(|s| vec![s]));
    assert_eq!(second, expected, "the partial ACK, then its 18 duplicates");
    let exit = list.iter().find(|a| a.ack >= 70).unwrap();
    assert_eq!((exit.ack, &exit.sent[..], exit.cwnd), (88, &[106, 107][..], 20 * MSS));
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, s.bytes_retransmitted), (1, 0, 2 * MSS));
}

/// A download of `bytes` with ns-2.27's Sack1 recovery (or `recovery`), initial window 10 (slow
/// start sends 0–9, 10–29, 30–69), the first transmissions of `lost` dropped: the server's
/// answers to every ACK until 1 s, and the pair.
fn burst_answers(recovery: Recovery, bytes: u64, lost: &'static [u64]) -> (Vec<Answer>, Pair) {
    let mut c = cfg(recovery);
    c.initial_window = 10;
    c.rwnd = Window::Packets(100);
    let mut p = Pair::download(&c, bytes);
    p.fate = drop_segments(lost);
    let list = answers(&mut p, secs(1.0));
    (list, p)
}

/// What the server sent in answer to the duplicate ACKs of segment `hole` (the first ACK of
/// `hole` is the one that acknowledges everything below it, not a duplicate).
fn duplicates_of(list: &[Answer], hole: u64) -> Vec<Vec<u64>> {
    list.iter().filter(|a| a.ack == hole).skip(1).map(|a| a.sent.clone()).collect()
}

/// ns-2.27 Sack1 (`tcp-sack1.cc`), hand-worked for segments 30 and 50 of the 40-segment flight
/// 30–69 lost. The third duplicate ACK sets pipe_ = 40 outstanding − 3 = 37 and cwnd =
/// ⌊40/2⌋ = 20, and sends the retransmission of 30 alone. Duplicate k lowers pipe_ to 40 − k:
/// nothing goes until k = 21 (pipe_ 19). Segment 51 was SACKed by duplicate 20, so at 21
/// `GetNextRetran` finds the hole 50 below the highest SACK (one SACKed segment above is
/// enough: RFC 6675 would wait for three) and retransmits it; duplicates 22–38 send new data
/// 70–86, one each (pipe_ 19 → 20). The partial ACK for 30's retransmission (ack 50) takes
/// pipe_ down by two, to 18: two new segments, 87 and 88. The ACK of 50's retransmission
/// (ack 70 = recover) ends recovery with cwnd 20 and 69 + 20 = 89 the next to fit: [89].
#[test]
fn ns2_sack1_two_losses_retransmit_on_any_sack_above_and_send_two_per_partial_ack() {
    let (list, p) = burst_answers(Recovery::Ns2Sack1, u64::MAX, &[30, 50]);
    let expected = per_ack(38, |k| match k {
        3 => vec![30],
        21 => vec![50],
        22..=38 => vec![70 + k - 22],
        _ => vec![],
    });
    assert_eq!(duplicates_of(&list, 30), expected, "duplicate ACKs of 30");
    let partial = list.iter().find(|a| a.ack == 50).unwrap();
    assert_eq!(&partial.sent[..], &[87, 88], "the partial ACK: pipe_ − 2");
    let exit = list.iter().find(|a| a.ack >= 70).unwrap();
    assert_eq!((exit.ack, &exit.sent[..], exit.cwnd), (70, &[89][..], 20 * MSS));
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, s.bytes_retransmitted), (1, 0, 2 * MSS));
}

/// ns-2.27 Sack1, segments 30–54 lost (25 of the 40-segment flight): only 55–69 bring
/// duplicate ACKs. The third sets pipe_ = 37 against cwnd 20 and retransmits 30; the other
/// twelve take pipe_ to 25, and the partial ACK of 30's retransmission (ack 31) to 23: still
/// not below 20, so nothing more is sent, and the sender waits for its timer (RTO 200 ms
/// here). The timeout halves the window of 20 (ssthresh 10) and goes back to 31. RFC 6675
/// counts the 25 lost segments out of its pipe (40 − 3 − 25 = 12 < 20) and repairs the burst
/// without a timeout.
#[test]
fn ns2_sack1_stalls_into_the_timeout_when_a_window_loses_many_packets() {
    let lost: &'static [u64] =
        &[30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54];
    let (list, mut p) = burst_answers(Recovery::Ns2Sack1, u64::MAX, lost);
    let expected = per_ack(15, |k| if k == 3 { vec![30] } else { vec![] });
    assert_eq!(duplicates_of(&list, 30), expected, "duplicate ACKs of 30");
    let partial = list.iter().find(|a| a.ack == 31).unwrap();
    assert!(partial.sent.is_empty(), "pipe_ 23 ≥ cwnd 20: {:?}", partial.sent);
    let rto_at = p.server_data().find(|e| e.2.rto_retransmission).map(|e| e.0).expect("a timeout");
    let before = p.server_data().filter(|e| e.0 < rto_at).map(|e| ((e.2.tcp.seq - 1) / MSS, e.2.retransmission));
    let (resent, new): (Vec<_>, Vec<_>) = before.filter(|&(s, r)| r || s >= 70).partition(|e| e.1);
    assert_eq!((resent, new), (vec![(30, true)], vec![]), "before the timeout: 30 resent, nothing new");
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, p.server.ssthresh()), (1, 1, 10 * MSS));
    p.run_for(Dur::from_secs(5));
    assert_eq!(p.server.stats().fast_retransmits, 1, "no second fast retransmit");
    let (_, rfc) = burst_answers(Recovery::Sack, u64::MAX, lost);
    assert_eq!((rfc.server.stats().fast_retransmits, rfc.server.stats().rtos), (1, 0), "RFC 6675");
}

/// ns-2.27 Sack1 sends nothing in recovery once the last new segment has gone
/// (`send_much`'s `t_seqno_ < curseq_`, changed only in 2006): a 70-segment file losing 30
/// and 50 gets the retransmission of 30 from the third duplicate ACK and nothing at duplicate
/// 21, where pipe_ 19 < cwnd 20 would have sent the hole 50, so 50 waits for the timer. RFC
/// 6675 retransmits 50 and finishes without one.
#[test]
fn ns2_sack1_sends_nothing_in_recovery_once_all_data_is_sent() {
    let (list, p) = burst_answers(Recovery::Ns2Sack1, 70 * MSS, &[30, 50]);
    let expected = per_ack(38, |k| if k == 3 { vec![30] } else { vec![] });
    assert_eq!(duplicates_of(&list, 30), expected, "duplicate ACKs of 30");
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos), (1, 1));
    let (_, rfc) = burst_answers(Recovery::Sack, 70 * MSS, &[30, 50]);
    assert_eq!((rfc.server.stats().fast_retransmits, rfc.server.stats().rtos), (1, 0), "RFC 6675");
}

/// ns-2.27 Sack1 fast-retransmits only when the ACK is beyond `recover_` in packets, and
/// `recover_` starts at 0, the SYN: a lost first data segment (of an initial window of 4) brings
/// three duplicate ACKs but no fast retransmit, and waits for the timer. RFC 6675 repairs it.
#[test]
fn ns2_sack1_does_not_fast_retransmit_a_lost_first_data_segment() {
    for (recovery, expected) in [(Recovery::Ns2Sack1, (0, 1)), (Recovery::Sack, (1, 0))] {
        let mut c = cfg(recovery);
        c.initial_window = 4;
        let mut p = Pair::download(&c, 20 * MSS);
        p.fate = drop_segments(&[0]);
        p.run_for(Dur::from_secs(5));
        let s = p.server.stats();
        assert_eq!((s.fast_retransmits, s.rtos), expected, "{recovery:?}");
        assert_eq!(p.server.acked(), 20 * MSS, "{recovery:?}: the transfer completes");
    }
}

/// ns-2.27 Sack1 resends SACKed segments in order after a timeout (`send_much` and `send_one`
/// send `t_seqno_`), and its limited transmit works during go-back-N. Initial window 4, 20
/// segments, the first transmissions of 0 and 2 lost and the second of 2: 1 and 3 bring two
/// duplicate ACKs (limited transmit: 4, 5), 4 and 5 two more, no fast retransmit (segment 0
/// not acknowledged: `highest_ack_ > recover_` fails). The timeout resends 0 (cwnd 1,
/// ssthresh max(⌊4/2⌋, 2) = 2); its ACK (of 0–1) is new: cwnd 2, segments 2 (lost again) and
/// 3. The receiver holds 3–5, so 3's copy brings a duplicate ACK SACKing 3–5, the first since
/// that new ACK: `send_one` sends `t_seqno_` = 4, SACKed as it is (2 + cwnd 2 + 1 duplicate
/// = 5 allows it). Before, our sender sent nothing there (limited transmit only with new data
/// waiting; skipping SACKed 4–5 would not fit either). 4's copy SACKs nothing new; the second
/// timeout resends 2, and the ACK of 0–5 lets cwnd 2 send 6 and 7.
#[test]
fn ns2_sack1_resends_sacked_segments_in_order_after_a_timeout() {
    let mut c = cfg(Recovery::Ns2Sack1);
    c.initial_window = 4;
    c.limited_transmit = true;
    let mut p = Pair::download(&c, 20 * MSS);
    let mut copies_of_2 = 0;
    p.fate = Box::new(move |_, server, pkt| {
        let index = pkt.tcp.seq.saturating_sub(1) / MSS;
        let lost = match (server && pkt.is_data(), index) {
            (true, 0) => !pkt.retransmission,
            (true, 2) => {
                copies_of_2 += 1;
                copies_of_2 <= 2
            }
            _ => false,
        };
        if lost {
            Fate::Drop
        } else {
            Fate::Deliver
        }
    });
    p.run_for(Dur::from_secs(5));
    let sent: Vec<u64> = p.server_data().map(|e| (e.2.tcp.seq - 1) / MSS).take(13).collect();
    assert_eq!(sent, [0, 1, 2, 3, 4, 5, 0, 2, 3, 4, 2, 6, 7]);
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos), (0, 2));
    assert_eq!(p.server.acked(), 20 * MSS, "the transfer completes");
}

/// ns-2.27's `slowdown` floors ssthresh_ at 2 but sets cwnd_ = ⌊window / 2⌋, and recovery's
/// end leaves cwnd_ there. Initial window 2, 20 segments, segment 1's first transmission lost:
/// the ACK of 0 makes cwnd 3 (2 and 3 sent); 2 and 3 bring duplicates 1 and 2 (limited
/// transmit: 4, 5), 4 the third: window 3, cwnd ⌊3/2⌋ = 1, ssthresh 2, pipe_ = 5 outstanding
/// − 3 = 2, 1 retransmitted. Duplicate 4 (from 5): pipe_ 1, not below cwnd 1: nothing (with
/// cwnd 2, before, new segment 6). The ACK of 1's retransmission (all of 1–5, recover) ends
/// recovery with cwnd 1: one segment, 6.
#[test]
fn ns2_sack1_halves_a_window_of_three_to_one_segment() {
    let mut c = cfg(Recovery::Ns2Sack1);
    c.initial_window = 2;
    c.limited_transmit = true;
    let mut p = Pair::download(&c, 20 * MSS);
    p.fate = drop_segments(&[1]);
    let list = answers(&mut p, secs(1.0));
    assert_eq!(duplicates_of(&list, 1), [vec![4], vec![5], vec![1], vec![]], "duplicate ACKs of 1");
    let exit = list.iter().find(|a| a.ack >= 6).unwrap();
    assert_eq!((exit.ack, &exit.sent[..], exit.cwnd), (6, &[6][..], MSS));
    let s = p.server.stats();
    assert_eq!((s.fast_retransmits, s.rtos, p.server.ssthresh()), (1, 0, 2 * MSS));
}

/// Data segments the server sends at the instant it writes `bytes` more, after
/// a first 50 kB and `idle` without sending.
fn burst_after_idle(restart_after_idle: bool, idle: Dur) -> usize {
    let cfg = TcpConfig { restart_after_idle, ..cfg(Recovery::NewReno) };
    let mut p = Pair::new(&cfg);
    p.act(true, |ep, now, out| ep.send(now, 50_000, out));
    p.act(false, |ep, now, out| ep.connect(now, out));
    assert!(p.run_until(secs(10.0), |p| p.client.delivered() == 50_000 && p.server.acked() == 50_000));
    let last = p.server_data().last().map(|e| e.0).unwrap();
    let at = last + idle;
    p.run_until(at, |p| p.now >= at);
    p.now = at;
    p.act(true, |ep, now, out| ep.send(now, 50_000, out));
    p.server_data().filter(|e| e.0 == at).count()
}

#[test]
fn an_idle_sender_restarts_from_the_initial_window() {
    // RFC 5681 §4.1: no data sent for longer than the RTO (here 200 ms, the minimum, on a
    // 100 ms path): cwnd = min(IW, cwnd) = 3 segments; the 50 kB before opened it to 53.
    assert_eq!(burst_after_idle(true, Dur::from_secs(1)), 3);
    assert_eq!(burst_after_idle(false, Dur::from_secs(1)), 50, "without the rule: all 50 segments at once");
    // Idle for less than the RTO: the window stays open.
    assert_eq!(burst_after_idle(true, Dur::from_millis(150)), 50);
}

fn fack(on: bool) -> TcpConfig {
    TcpConfig { fack: on, initial_window: 10, rwnd: Window::Packets(100), ..cfg(Recovery::Sack) }
}

/// What the server sends in answer to each ACK of `acked` (segment index), skipping the first
/// (the ACK of new data that reached it), with `lost` dropped from the 40-segment flight 30–69
/// of [`one_loss_answers`]'s slow start.
fn sends_per_ack(c: &TcpConfig, lost: &'static [u64], acked: u64) -> (Vec<Vec<u64>>, Pair) {
    let mut p = Pair::download(c, u64::MAX);
    p.fate = drop_segments(lost);
    let list = answers(&mut p, secs(1.0));
    let sent = list.iter().filter(|a| a.ack == acked).skip(1).map(|a| a.sent.clone()).collect();
    (sent, p)
}

/// FACK (Mathis & Mahdavi 1996) on a burst: segments 30–32 lost from the 40-segment flight
/// 30–69. The first duplicate ACK SACKs 33: snd.fack − snd.una = 34 − 30 = 4 segments > 3,
/// so FACK starts recovery there (RFC 6675 waits for the third, when 33–35 lie above 30),
/// halving cwnd to 20 and retransmitting 30; all three holes lie below snd.fack and are
/// lost. After duplicate k, awnd = snd.nxt − snd.fack + retran_data = 70 − (33 + k) + 1:
/// awnd < cwnd first at k = 19, which sends the hole 31 (retran_data 2), then k = 20 the
/// hole 32, so all three go within one round trip; from k = 21 awnd = 40 + n − k with n new
/// segments sent, one per duplicate (70–86). The ACK of 30's retransmission (ack 31) finds
/// awnd = 87 − 70 + 2 retransmitted holes = 19 and sends 87; the ACK of 31 sends 88; the
/// full ACK (70) ends recovery at cwnd = 20 with 70–88 in flight: 89. RFC 6675 (FACK off)
/// sends the same from its third duplicate on.
#[test]
fn fack_enters_recovery_on_the_first_sack_four_segments_up_and_resends_the_burst_in_one_rtt() {
    let mut expected_dup = per_ack(37, |k| match k {
        1 => vec![30],
        19 => vec![31],
        20 => vec![32],
        21..=37 => vec![70 + k - 21],
        _ => vec![],
    });
    for on in [true, false] {
        let (sent, mut p) = sends_per_ack(&fack(on), &[30, 31, 32], 30);
        if !on {
            expected_dup[0] = vec![]; // the third duplicate: RFC 6675 IsLost(30)
            expected_dup[2] = vec![30];
        }
        assert_eq!(sent, expected_dup, "fack {on}: duplicate ACKs 1–37");
        let list = answers(&mut p, secs(1.0)); // nothing more: all was listed
        assert!(list.is_empty());
        let rexmits: Vec<(Time, u64)> =
            p.server_data().filter(|e| e.2.retransmission).map(|e| (e.0, (e.2.tcp.seq - 1) / MSS)).collect();
        assert_eq!(rexmits.iter().map(|r| r.1).collect::<Vec<_>>(), vec![30, 31, 32], "fack {on}");
        assert!(rexmits[2].0.since(rexmits[0].0) < RTT, "fack {on}: {rexmits:?}");
        let s = p.server.stats();
        assert_eq!((s.fast_retransmits, s.rtos, s.bytes_retransmitted), (1, 0, 3 * MSS), "fack {on}");
    }
    // After the burst: the partial ACKs 31 and 32, then the full ACK.
    let mut p = Pair::download(&fack(true), u64::MAX);
    p.fate = drop_segments(&[30, 31, 32]);
    let list = answers(&mut p, secs(1.0));
    let after: Vec<(u64, &[u64], u64)> =
        list.iter().filter(|a| (31..=70).contains(&a.ack)).take(3).map(|a| (a.ack, &a.sent[..], a.cwnd)).collect();
    assert_eq!(after, [(31, &[87][..], 20 * MSS), (32, &[88][..], 20 * MSS), (70, &[89][..], 20 * MSS)]);
}

/// FACK counts every hole below snd.fack lost, however few segments are SACKed above it:
/// 30, 67 and 68 lost from the flight 30–69. Recovery starts at the third duplicate (as
/// RFC 6675: snd.fack − snd.una = 4 segments then), and duplicates 21–36 send 70–85 (awnd =
/// 70 − (31 + k) + 1 retransmission + new). The 37th duplicate SACKs 69: snd.fack jumps from
/// 67 to 70, awnd from 20 to 17, and FACK sends the holes 67 and 68 (now lost) and new 86.
/// RFC 6675 holds 67 and 68 in flight (one segment SACKed above them, it wants three) and
/// sends only 86; it resends them a round trip later, on duplicate ACKs of 67 (after the
/// retransmission of 30 is acknowledged), once 70 and 71 are SACKed too.
#[test]
fn fack_resends_holes_just_below_the_forward_ack_a_round_trip_earlier() {
    for on in [true, false] {
        let (sent, mut p) = sends_per_ack(&fack(on), &[30, 67, 68], 30);
        assert_eq!(sent.len(), 37);
        assert_eq!(sent[2], [30], "fack {on}: the third duplicate");
        assert_eq!(sent[20..36], (70..86).map(|s| vec![s]).collect::<Vec<_>>(), "fack {on}: duplicates 21–36");
        let last: &[u64] = if on { &[67, 68, 86] } else { &[86] };
        assert_eq!(sent[36], last, "fack {on}: the SACK of 69");
        p.run_for(Dur::from_secs(2));
        let rexmits: Vec<u64> =
            p.server_data().filter(|e| e.2.retransmission).map(|e| (e.2.tcp.seq - 1) / MSS).collect();
        assert_eq!(rexmits, [30, 67, 68], "fack {on}");
        let s = p.server.stats();
        assert_eq!((s.fast_retransmits, s.rtos), (1, 0), "fack {on}");
    }
}

/// An isolated loss (segment 30 of the 40-segment flight): snd.fack − snd.una exceeds three
/// segments at the third duplicate, as RFC 6675's IsLost, the one hole is lost under both
/// rules from then on, and awnd < cwnd sends what cwnd − pipe ≥ 1 SMSS does (whole
/// segments): FACK behaves as SACK, with either recovery window.
#[test]
fn fack_on_an_isolated_loss_behaves_as_sack() {
    for window in [RecoveryWindow::Rfc, RecoveryWindow::Prr] {
        let sack = one_loss_answers(Recovery::Sack, window);
        let with_fack = one_loss_answers_with(TcpConfig { recovery_window: window, ..fack(true) });
        assert_eq!(with_fack, sack, "{window:?}");
    }
}

/// Mathis & Mahdavi's window rule, awnd < cwnd, against RFC 6675's cwnd − pipe ≥ 1 SMSS, with
/// a cwnd that is not a whole number of segments: a flight of 39 segments (the receive window)
/// halves to cwnd = 19.5 segments. Segments 100–102 lost from 100–138: after duplicate k (SACK
/// of 103 … 102 + k) with r retransmissions, awnd = 139 − (103 + k) + r. FACK starts at the
/// first and sends while awnd < 19.5: 101 at k = 18 (awnd 19), 102 at k = 19; RFC 6675 starts
/// at the third and sends while pipe ≤ 18.5: 101 at k = 19, 102 at k = 20. No new data fits
/// the receive window.
#[test]
fn fack_sends_while_awnd_is_below_cwnd() {
    for on in [true, false] {
        let c = TcpConfig { rwnd: Window::Packets(39), ..fack(on) };
        let (sent, p) = sends_per_ack(&c, &[100, 101, 102], 100);
        // (retransmission of 100, of 101, of 102) at duplicates:
        let at = if on { [1, 18, 19] } else { [3, 19, 20] };
        let expected = per_ack(36, |k| at.iter().position(|&a| a == k).map_or(vec![], |i| vec![100 + i as u64]));
        assert_eq!(sent[..36], expected, "fack {on}");
        assert_eq!(p.server.ssthresh(), 19_500);
    }
}

#[test]
fn fack_needs_sack() {
    let bad = TcpConfig { fack: true, ..cfg(Recovery::NewReno) };
    assert!(bad.validate().unwrap_err().starts_with("tcp.fack:"));
    assert!(fack(true).validate().is_ok());
}
