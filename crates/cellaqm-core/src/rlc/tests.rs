//! RLC AM over a scripted two-way channel: TTIs of a fixed number of PDUs each
//! way, a one-way delay, and a loss script deciding the fate of each PDU.

#![allow(clippy::field_reassign_with_default)] // tests tweak one field of a default config

use super::*;
use crate::time::{Dur, Time};
use std::collections::{HashMap, VecDeque};

/// Which way a PDU travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Down,
    Up,
}

/// Decides whether a PDU is lost: `(way, pdu, n-th transmission of this data SN)`.
type LossScript = Box<dyn FnMut(Way, &Pdu, u32) -> bool>;

struct Pair {
    /// The sending end (RNC) and the receiving end (UE).
    a: AmEntity,
    b: AmEntity,
    src_a: VecDeque<u32>,
    src_b: VecDeque<u32>,
    tti: Dur,
    down_per_tti: usize,
    up_per_tti: usize,
    delay: Dur,
    t: Time,
    flight: VecDeque<(Time, Way, Pdu)>,
    lose: LossScript,
    tx_count: HashMap<Sn, u32>,
    /// Every PDU sent: (time, way, pdu, lost).
    log: Vec<(Time, Way, Pdu, bool)>,
    delivered: Vec<(Time, Delivery)>,
    released: Vec<Release>,
}

impl Pair {
    /// The SNs of the data PDUs sent with the poll bit, in sending order.
    fn polled(&self) -> Vec<Sn> {
        let polled = |pdu: &Pdu| if let Pdu::Data(d) = pdu { d.poll.then_some(d.sn) } else { None };
        self.log.iter().filter_map(|(_, _, pdu, _)| polled(pdu)).collect()
    }

    fn new(cfg: &RlcConfig, sdus: &[u32]) -> Pair {
        Pair {
            a: AmEntity::new(cfg),
            b: AmEntity::new(cfg),
            src_a: sdus.iter().copied().collect(),
            src_b: VecDeque::new(),
            tti: Dur::from_millis(10),
            down_per_tti: 12,
            up_per_tti: 4,
            delay: Dur::from_millis(20),
            t: Time::ZERO,
            flight: VecDeque::new(),
            lose: Box::new(|_, _, _| false),
            tx_count: HashMap::new(),
            log: Vec::new(),
            delivered: Vec::new(),
            released: Vec::new(),
        }
    }

    fn lose(mut self, f: impl FnMut(Way, &Pdu, u32) -> bool + 'static) -> Pair {
        self.lose = Box::new(f);
        self
    }

    /// One TTI: arrivals up to now, then each end fills its transport block.
    fn step(&mut self) {
        let now = self.t;
        while self.flight.front().is_some_and(|(at, _, _)| *at <= now) {
            let (at, way, pdu) = self.flight.pop_front().expect("checked");
            match way {
                Way::Down => {
                    self.b.receive(at, &pdu);
                    self.delivered.extend(self.b.rx.drain().map(|d| (at, d)));
                }
                Way::Up => {
                    self.a.receive(at, &pdu);
                    self.released.extend(self.a.tx.drain_released());
                }
            }
        }
        let arrive = now + self.tti + self.delay;
        for (way, n) in [(Way::Down, self.down_per_tti), (Way::Up, self.up_per_tti)] {
            for _ in 0..n {
                let pdu = match way {
                    Way::Down => self.a.next_pdu(now, &mut self.src_a),
                    Way::Up => self.b.next_pdu(now, &mut self.src_b),
                };
                let Some(pdu) = pdu else { break };
                let nth = match (&pdu, way) {
                    (Pdu::Data(d), Way::Down) => {
                        let c = self.tx_count.entry(d.sn).or_default();
                        *c += 1;
                        *c
                    }
                    _ => 1,
                };
                let lost = (self.lose)(way, &pdu, nth);
                self.log.push((now, way, pdu.clone(), lost));
                if !lost {
                    self.flight.push_back((arrive, way, pdu));
                }
            }
        }
        self.released.extend(self.a.tx.drain_released());
        self.t = now + self.tti;
    }

    fn run_for(&mut self, d: Dur) {
        let end = self.t + d;
        while self.t < end {
            self.step();
        }
    }

    fn delivered_ids(&self) -> Vec<Delivery> {
        self.delivered.iter().map(|&(_, d)| d).collect()
    }

    /// Times of the STATUS PDUs sent up.
    fn status_times(&self) -> Vec<Time> {
        self.log.iter().filter(|(_, w, p, _)| *w == Way::Up && matches!(p, Pdu::Status(_))).map(|e| e.0).collect()
    }

    fn data_sent(&self, sn: Sn) -> usize {
        self.log.iter().filter(|(_, w, p, _)| *w == Way::Down && matches!(p, Pdu::Data(d) if d.sn == sn)).count()
    }
}

fn lose_data_sn(sn: Sn, times: u32) -> impl FnMut(Way, &Pdu, u32) -> bool {
    move |way, pdu, nth| way == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn == sn) && nth <= times
}

use Delivery::{Delivered, Discarded};

#[test]
fn segmentation_and_concatenation_pack_sdus_with_one_li_each() {
    // 10 × 1500 B into 40-byte payloads, 1 LI byte per SDU end: ceil(15010 / 40) = 376 PDUs.
    let mut p = Pair::new(&RlcConfig::default(), &[1500; 10]);
    p.run_for(Dur::from_secs(2));
    let data: Vec<&DataPdu> = p
        .log
        .iter()
        .filter_map(|(_, w, pdu, _)| if let (Way::Down, Pdu::Data(d)) = (w, pdu) { Some(d) } else { None })
        .collect();
    assert_eq!(data.len(), 376);
    assert_eq!(data.iter().map(|d| d.payload as u64).sum::<u64>(), 15_000);
    assert_eq!(data.iter().map(|d| d.lis as u64).sum::<u64>(), 10);
    // PDU 37 holds the last 20 B of SDU 0 (+LI) and the first 19 B of SDU 1.
    assert_eq!((data[37].sdu_first, data[37].sdu_last, data[37].starts, data[37].ends), (0, 1, false, false));
    assert_eq!(p.delivered_ids(), (0..10).map(Delivered).collect::<Vec<_>>());
    assert_eq!(p.released, (0..10).map(Release::Confirmed).collect::<Vec<_>>());
    assert!(p.a.tx.is_idle());
    // Without concatenation every SDU starts a fresh PDU: 10 × ceil(1501 / 40) = 380.
    let cfg = RlcConfig { concatenation: false, ..RlcConfig::default() };
    let mut p = Pair::new(&cfg, &[1500; 10]);
    p.run_for(Dur::from_secs(2));
    assert_eq!(p.log.iter().filter(|(_, w, pdu, _)| *w == Way::Down && pdu.is_data()).count(), 380);
}

#[test]
fn a_lost_pdu_is_nacked_retransmitted_and_the_sdus_delivered_in_order() {
    // 3 SDUs of 100 B (+1 LI byte each) = PDUs 0..7; PDU 2 holds SDU 0's end and SDU 1's start.
    let mut p = Pair::new(&RlcConfig::default(), &[100, 100, 100]).lose(lose_data_sn(2, 1));
    p.run_for(Dur::from_millis(500));
    // The receiver saw the gap and NACKed 2.
    let nacks: Vec<Vec<Sn>> = p
        .log
        .iter()
        .filter_map(
            |(_, w, pdu, _)| if let (Way::Up, Pdu::Status(s)) = (w, pdu) { Some(s.nacks.clone()) } else { None },
        )
        .collect();
    assert_eq!(nacks.first(), Some(&vec![2]), "{nacks:?}");
    assert_eq!(p.data_sent(2), 2);
    assert_eq!(p.a.tx.stats().retransmissions, 1);
    // In sequence: SDU 0 (bytes 0..100, PDUs 0..2) waits for the retransmission; so do 1 and 2.
    assert_eq!(p.delivered_ids(), vec![Delivered(0), Delivered(1), Delivered(2)]);
    let first_delivery = p.delivered[0].0;
    let retx_at = p
        .log
        .iter()
        .filter(|(_, w, pdu, _)| *w == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn == 2))
        .nth(1)
        .unwrap()
        .0;
    assert!(first_delivery > retx_at, "delivered {first_delivery} before the retransmission at {retx_at}");
    assert_eq!(p.released, vec![Release::Confirmed(0), Release::Confirmed(1), Release::Confirmed(2)]);
}

#[test]
fn out_of_sequence_delivery_does_not_wait_for_the_hole() {
    let cfg = RlcConfig { in_sequence: false, ..RlcConfig::default() };
    // PDU 3 lies inside SDU 1 (stream bytes 101..201 with SDU 0's LI): SDU 2 goes up before it.
    let mut p = Pair::new(&cfg, &[100, 100, 100]).lose(lose_data_sn(3, 1));
    p.run_for(Dur::from_millis(500));
    let order = p.delivered_ids();
    assert_eq!(order, vec![Delivered(0), Delivered(2), Delivered(1)]);
    // Each delivered once although later PDUs pass VR(R) again.
    assert_eq!(p.b.rx.stats().sdus_delivered, 3);
}

#[test]
fn duplicates_are_detected_and_dropped() {
    // Lose the first STATUS: the poll timer makes the sender resend its last PDU, a duplicate.
    let mut first = true;
    let mut p = Pair::new(&RlcConfig::default(), &[100]).lose(move |way, pdu, _| {
        let hit = way == Way::Up && matches!(pdu, Pdu::Status(_)) && first;
        first &= !hit;
        hit
    });
    p.run_for(Dur::from_secs(1));
    assert_eq!(p.b.rx.stats().duplicates, 1);
    assert_eq!(p.delivered_ids(), vec![Delivered(0)]);
    assert_eq!(p.released, vec![Release::Confirmed(0)]);
    assert_eq!(p.a.tx.stats().polls, 2, "the poll timer re-polled");
}

/// 200 SDUs of 1000 B with 5% of first transmissions lost (every 20th SN).
fn lossy(prohibit: Option<Dur>) -> Pair {
    let cfg = RlcConfig { status: StatusConfig { prohibit, ..StatusConfig::default() }, ..RlcConfig::default() };
    Pair::new(&cfg, &[1000; 200])
        .lose(|way, pdu, nth| way == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn % 20 == 7 && nth == 1))
}

#[test]
fn status_prohibit_spaces_status_pdus() {
    let mut p = lossy(Some(Dur::from_millis(100)));
    p.run_for(Dur::from_secs(10));
    let times = p.status_times();
    assert!(times.len() > 10);
    for w in times.windows(2) {
        assert!(w[1].since(w[0]) >= Dur::from_millis(100), "STATUS at {} then {}", w[0], w[1]);
    }
    assert_eq!(p.delivered_ids(), (0..200).map(Delivered).collect::<Vec<_>>());
    // Without the prohibit timer STATUS PDUs come closer together: the check above can fail.
    let mut p = lossy(None);
    p.run_for(Dur::from_secs(10));
    let times = p.status_times();
    assert!(times.windows(2).any(|w| w[1].since(w[0]) < Dur::from_millis(100)));
    assert_eq!(p.delivered_ids(), (0..200).map(Delivered).collect::<Vec<_>>());
}

#[test]
fn max_dat_discards_the_sdu_and_the_rest_is_delivered_in_order() {
    // SDUs of 100 B: SDU 1 = stream bytes 100..200 = PDUs 2 (part), 3, 4 (part). PDU 3 always lost.
    let cfg = RlcConfig { max_dat: 3, ..RlcConfig::default() };
    let mut p =
        Pair::new(&cfg, &[100; 6]).lose(|way, pdu, _| way == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn == 3));
    p.run_for(Dur::from_secs(3));
    assert_eq!(p.data_sent(3), 3, "MaxDAT transmissions, then discard");
    assert_eq!(p.a.tx.stats().sdus_discarded, 1);
    assert_eq!(p.b.rx.stats().sdus_discarded, 1);
    assert_eq!(
        p.delivered_ids(),
        vec![Delivered(0), Discarded(1), Delivered(2), Delivered(3), Delivered(4), Delivered(5)]
    );
    assert_eq!(
        p.released,
        vec![
            Release::Confirmed(0),
            Release::Discarded(1),
            Release::Confirmed(2),
            Release::Confirmed(3),
            Release::Confirmed(4),
            Release::Confirmed(5)
        ]
    );
    assert!(p.log.iter().any(|(_, w, pdu, _)| *w == Way::Down && matches!(pdu, Pdu::Mrw(m) if m.discard_through == 1)));
    assert!(p.a.tx.is_idle());
}

#[test]
fn max_dat_on_a_pdu_shared_by_two_sdus_discards_both_and_the_earlier_unconfirmed() {
    // 100 B SDUs; PDU 2 carries SDU 0's end and SDU 1's start; PDU 0 is also lost for a while.
    let cfg = RlcConfig { max_dat: 2, ..RlcConfig::default() };
    let mut p = Pair::new(&cfg, &[100; 5])
        .lose(|way, pdu, nth| way == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn == 2 || (d.sn == 0 && nth == 1)));
    p.run_for(Dur::from_secs(3));
    let got = p.delivered_ids();
    assert_eq!(got, vec![Discarded(0), Discarded(1), Delivered(2), Delivered(3), Delivered(4)]);
    assert!(p.a.tx.is_idle());
}

#[test]
fn poll_triggers() {
    // Every 4 PDUs, no other trigger: poll bits on PDUs 3, 7, 11, ...
    let mut cfg = RlcConfig::default();
    cfg.poll = PollConfig {
        last_pdu_in_buffer: false,
        window: None,
        timer: None,
        every_pdus: Some(4),
        ..PollConfig::default()
    };
    let mut p = Pair::new(&cfg, &[400]);
    p.run_for(Dur::from_millis(100));
    let polled = p.polled();
    assert_eq!(polled, vec![3, 7]); // 10 PDUs: the SDU fills the 10th exactly (no LI)
                                    // Last PDU in buffer only.
    cfg.poll = PollConfig { window: None, timer: None, ..PollConfig::default() };
    let mut p = Pair::new(&cfg, &[400]);
    p.run_for(Dur::from_millis(100));
    let polled = p.polled();
    assert_eq!(polled, vec![9]);
    // Every 2 SDUs: on the PDUs completing SDU 1 and SDU 3 (100 B SDUs end in PDUs 2, 5, 7, 10).
    cfg.poll = PollConfig {
        last_pdu_in_buffer: false,
        window: None,
        timer: None,
        every_sdus: Some(2),
        ..PollConfig::default()
    };
    let mut p = Pair::new(&cfg, &[100; 4]);
    p.run_for(Dur::from_millis(100));
    let polled = p.polled();
    assert_eq!(polled, vec![5, 10]);
    // Window-based: a 20-PDU window at 50% polls on the 10th outstanding PDU.
    let cfg = RlcConfig {
        window: 20,
        poll: PollConfig { last_pdu_in_buffer: false, timer: None, window: Some(0.5), ..PollConfig::default() },
        ..RlcConfig::default()
    };
    let mut p = Pair::new(&cfg, &[2000]);
    p.step();
    let polled = p.polled();
    assert_eq!(polled, vec![9]);
    // A share between two counts polls on the first count above it: 50% of 7 PDUs, the 4th.
    let cfg = RlcConfig { window: 7, ..cfg };
    let mut p = Pair::new(&cfg, &[2000]);
    p.step();
    assert_eq!(p.polled(), vec![3]);
}

#[test]
fn poll_prohibit_and_periodic_poll() {
    // Poll on every PDU but at most one per 50 ms: 12 PDUs per 10 ms TTI → one poll per 5 TTIs.
    let mut cfg = RlcConfig::default();
    cfg.poll = PollConfig {
        last_pdu_in_buffer: false,
        window: None,
        timer: None,
        every_pdus: Some(1),
        prohibit: Some(Dur::from_millis(50)),
        ..PollConfig::default()
    };
    let mut p = Pair::new(&cfg, &[4000; 10]);
    p.run_for(Dur::from_millis(200));
    let poll_times: Vec<Time> =
        p.log.iter().filter(|(_, _, pdu, _)| matches!(pdu, Pdu::Data(d) if d.poll)).map(|e| e.0).collect();
    assert_eq!(poll_times, [0, 50, 100, 150].map(|ms| Time::ZERO + Dur::from_millis(ms)).to_vec());
    // Periodic poll while data is outstanding: with nothing else, the last PDU is resent with a poll.
    let mut cfg = RlcConfig::default();
    cfg.poll = PollConfig {
        last_pdu_in_buffer: false,
        window: None,
        timer: None,
        periodic: Some(Dur::from_millis(100)),
        ..PollConfig::default()
    };
    let mut p = Pair::new(&cfg, &[100]);
    p.run_for(Dur::from_millis(300));
    let polls: Vec<(Time, Sn)> = p
        .log
        .iter()
        .filter_map(|(t, _, pdu, _)| if let Pdu::Data(d) = pdu { d.poll.then_some((*t, d.sn)) } else { None })
        .collect();
    assert_eq!(polls, vec![(Time::ZERO + Dur::from_millis(100), 2)]);
    assert_eq!(p.delivered_ids(), vec![Delivered(0)]);
    assert_eq!(p.released, vec![Release::Confirmed(0)]);
}

#[test]
fn the_window_stalls_the_sender_until_statuses_open_it() {
    let cfg = RlcConfig { window: 8, ..RlcConfig::default() };
    let mut p = Pair::new(&cfg, &[1000; 5]);
    p.step();
    assert_eq!(p.log.iter().filter(|e| e.2.is_data()).count(), 8);
    assert_eq!(p.a.tx.outstanding(), 8);
    p.run_for(Dur::from_secs(3));
    assert_eq!(p.delivered_ids(), (0..5).map(Delivered).collect::<Vec<_>>());
}

#[test]
fn bursty_losses_both_ways_still_deliver_everything_in_order() {
    // Deterministic pseudo-random 10% loss in bursts, on data, STATUS and MRW alike.
    let mut x: u64 = 12345;
    let mut bad = false;
    let mut p = Pair::new(&RlcConfig::default(), &[1460; 300]).lose(move |_, _, _| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        bad = if bad { u < 0.7 } else { u < 0.035 };
        bad
    });
    p.run_for(Dur::from_secs(60));
    assert_eq!(p.delivered_ids(), (0..300).map(Delivered).collect::<Vec<_>>());
    assert_eq!(p.released.len(), 300);
    assert!(p.a.tx.stats().retransmissions > 100);
}

/// Sequence numbers of the data PDUs sent with the poll bit, with their send times.
fn polls(p: &Pair) -> Vec<(Time, Sn)> {
    p.log
        .iter()
        .filter_map(|(t, _, pdu, _)| if let Pdu::Data(d) = pdu { d.poll.then_some((*t, d.sn)) } else { None })
        .collect()
}

fn ms(v: u64) -> Time {
    Time::ZERO + Dur::from_millis(v)
}

#[test]
fn the_last_retransmitted_pdu_carries_a_poll() {
    // One 400 B SDU = PDUs 0..9 in the first TTI; 2 and 5 lost once. The gap makes the UE
    // NACK both in one STATUS; of the two retransmissions only the last, 5, polls.
    let run = |last_retransmitted: bool| {
        let mut cfg = RlcConfig::default();
        cfg.poll = PollConfig {
            last_pdu_in_buffer: false,
            last_retransmitted,
            window: None,
            timer: None,
            ..PollConfig::default()
        };
        let mut lost = [2, 5].map(|sn| lose_data_sn(sn, 1));
        let mut p = Pair::new(&cfg, &[400]).lose(move |w, pdu, n| lost.iter_mut().any(|f| f(w, pdu, n)));
        p.run_for(Dur::from_millis(300));
        p
    };
    let p = run(true);
    assert_eq!((p.data_sent(2), p.data_sent(5)), (2, 2));
    // STATUS sent at 30 ms reaches the RNC at 60 ms: both retransmissions go then.
    assert_eq!(polls(&p), vec![(ms(60), 5)]);
    // The poll is answered: everything confirmed.
    assert_eq!(p.released, vec![Release::Confirmed(0)]);
    assert!(p.a.tx.is_idle());
    let p = run(false);
    assert_eq!(polls(&p), vec![], "no trigger, no poll");
    assert!(!p.a.tx.is_idle(), "nothing asks the UE for the STATUS that would confirm the retransmissions");
}

#[test]
fn a_pdu_acknowledged_after_its_nack_no_longer_hides_the_last_retransmission() {
    // A STATUS NACKs 2 and 5; a later one, before any retransmission, NACKs only 2 (5 came
    // in after all). The retransmission of 2 is then the last one and must poll.
    let mut cfg = RlcConfig::default();
    cfg.poll = PollConfig { last_pdu_in_buffer: false, window: None, timer: None, ..PollConfig::default() };
    let mut tx = AmSender::new(&cfg);
    let mut src: VecDeque<u32> = VecDeque::from([400]);
    let sent: Vec<Option<Pdu>> = (0..10).map(|_| tx.next_pdu(Time::ZERO, &mut src)).collect();
    assert!(sent.iter().all(|p| matches!(p, Some(Pdu::Data(d)) if !d.poll)));
    tx.on_status(ms(50), &StatusPdu { lsn: 10, nacks: vec![2, 5] });
    tx.on_status(ms(50), &StatusPdu { lsn: 10, nacks: vec![2] });
    match tx.next_pdu(ms(60), &mut src) {
        Some(Pdu::Data(d)) => assert_eq!((d.sn, d.poll), (2, true)),
        other => panic!("expected the retransmission of 2, got {other:?}"),
    }
    assert_eq!(tx.next_pdu(ms(60), &mut src), None, "5 is acknowledged: nothing more to send");
    assert_eq!(tx.stats().retransmissions, 1);
}

#[test]
fn periodic_status_reports_without_polls_or_gap_detection() {
    // No poll trigger and no missing-PDU detection: only Timer_Status_Periodic (100 ms, armed
    // by the first PDU at 30 ms) tells the RNC about the lost PDU 7 and confirms the SDUs.
    let run = |periodic: Option<Dur>| {
        let cfg = RlcConfig {
            poll: PollConfig {
                last_pdu_in_buffer: false,
                last_retransmitted: false,
                window: None,
                timer: None,
                ..PollConfig::default()
            },
            status: StatusConfig { prohibit: None, missing_pdu: MissingPdu::Off, periodic, epc: None },
            ..RlcConfig::default()
        };
        let mut p = Pair::new(&cfg, &[1000; 5]).lose(lose_data_sn(7, 1));
        p.run_for(Dur::from_secs(2));
        p
    };
    let p = run(Some(Dur::from_millis(100)));
    assert!(polls(&p).is_empty());
    assert_eq!(p.data_sent(7), 2);
    assert_eq!(p.delivered_ids(), (0..5).map(Delivered).collect::<Vec<_>>());
    assert_eq!(p.released, (0..5).map(Release::Confirmed).collect::<Vec<_>>());
    // Every 100 ms while PDUs arrive or are missing, then one last report, then silence.
    assert_eq!(p.status_times(), vec![ms(130), ms(230), ms(330)]);
    let p = run(None);
    assert!(p.status_times().is_empty());
    assert_eq!(p.delivered_ids(), vec![], "SDU 0 (PDUs 0..25) waits for PDU 7 for ever");
}

#[test]
fn missing_pdu_detection_reports_a_gap_at_once_and_without_it_the_poll_does() {
    // 5 × 1000 B = 11 TTIs of PDUs; PDU 2 lost once; the only poll is on the last PDU.
    let run = |on: bool| {
        let missing_pdu = if on { MissingPdu::NewGap } else { MissingPdu::Off };
        let cfg = RlcConfig {
            poll: PollConfig { window: None, timer: None, ..PollConfig::default() },
            status: StatusConfig { missing_pdu, ..StatusConfig::default() },
            ..RlcConfig::default()
        };
        let mut p = Pair::new(&cfg, &[1000; 5]).lose(lose_data_sn(2, 1));
        p.run_for(Dur::from_secs(2));
        p
    };
    let first_status = |p: &Pair| {
        p.log.iter().find_map(|(t, w, pdu, _)| match (w, pdu) {
            (Way::Up, Pdu::Status(s)) => Some((*t, s.nacks.clone())),
            _ => None,
        })
    };
    let p = run(true);
    // The first TTI's PDUs arrive at 30 ms showing the gap: NACKed then.
    assert_eq!(first_status(&p), Some((ms(30), vec![2])));
    assert_eq!(p.delivered_ids(), (0..5).map(Delivered).collect::<Vec<_>>());
    let p = run(false);
    // Only the poll on the last PDU (sent at 100 ms, in at 130 ms) brings the STATUS.
    let (poll_at, _) = polls(&p)[0];
    assert_eq!(poll_at, ms(100));
    assert_eq!(first_status(&p), Some((ms(130), vec![2])));
    assert_eq!(p.delivered_ids(), (0..5).map(Delivered).collect::<Vec<_>>());
}

#[test]
fn the_poll_timer_polls_again_until_a_status_comes_back() {
    // Timer_Poll 200 ms; the UE's first three STATUS PDUs are lost.
    let run = |timer: Option<Dur>| {
        let cfg =
            RlcConfig { poll: PollConfig { window: None, timer, ..PollConfig::default() }, ..RlcConfig::default() };
        let mut statuses = 0;
        let mut p = Pair::new(&cfg, &[100]).lose(move |way, pdu, _| {
            let status = way == Way::Up && matches!(pdu, Pdu::Status(_));
            statuses += status as u32;
            status && statuses <= 3
        });
        p.run_for(Dur::from_secs(2));
        p
    };
    let p = run(Some(Dur::from_millis(200)));
    // The last PDU (2) polls at 0; each timeout resends it with a poll; the 4th STATUS gets through.
    assert_eq!(polls(&p), [0, 200, 400, 600].map(|t| (ms(t), 2)).to_vec());
    assert_eq!(p.released, vec![Release::Confirmed(0)]);
    assert_eq!(p.b.rx.stats().duplicates, 3);
    // Without the timer nothing polls again: the SDU is never confirmed.
    let p = run(None);
    assert_eq!(polls(&p), vec![(ms(0), 2)]);
    assert!(p.released.is_empty());
}

/// Kinds of PDU sent up to the RNC or down to the UE, by kind: (MRWs down, MRW_ACKs up).
fn mrw_traffic(p: &Pair) -> (usize, usize) {
    let count = |way: Way, f: fn(&Pdu) -> bool| p.log.iter().filter(|(_, w, pdu, _)| *w == way && f(pdu)).count();
    (count(Way::Down, |pdu| matches!(pdu, Pdu::Mrw(_))), count(Way::Up, |pdu| matches!(pdu, Pdu::MrwAck(_))))
}

#[test]
fn a_status_built_before_the_mrw_arrived_does_not_end_the_discard() {
    // maxDAT 3; PDU 3 (inside SDU 1) is always lost, and so is the first MRW (the fade goes
    // on). The UE reports every 50 ms (Timer_Status_Periodic): its STATUS PDUs, sent before
    // any MRW reached it, carry LSN 16 (beyond the MRW's SN 4) and NACK 3. Only an MRW_ACK
    // may end the discard: Timer_MRW sends the MRW again, the UE moves its window and
    // delivers the rest. (Ending it on the first STATUS with LSN ≥ SN_MRW_LENGTH left the
    // UE waiting for PDU 3 for ever: SDUs 2 to 5 were never delivered.)
    let cfg = RlcConfig {
        max_dat: 3,
        status: StatusConfig { periodic: Some(Dur::from_millis(50)), ..StatusConfig::default() },
        ..RlcConfig::default()
    };
    let mut first_mrw = true;
    let mut p = Pair::new(&cfg, &[100; 6]).lose(move |way, pdu, _| match pdu {
        Pdu::Data(d) => way == Way::Down && d.sn == 3,
        Pdu::Mrw(_) => std::mem::take(&mut first_mrw),
        _ => false,
    });
    p.run_for(Dur::from_secs(3));
    assert_eq!(p.data_sent(3), 3);
    let mrw_at = p.log.iter().find(|(_, _, pdu, _)| matches!(pdu, Pdu::Mrw(_))).map(|e| e.0).unwrap();
    let status_after = p.log.iter().any(|(t, w, pdu, lost)| {
        *w == Way::Up && *t > mrw_at && !lost && matches!(pdu, Pdu::Status(s) if s.lsn > 4 && s.nacks.contains(&3))
    });
    assert!(status_after, "a STATUS NACKing 3 with LSN beyond the MRW reached the RNC after the discard");
    assert_eq!(mrw_traffic(&p), (2, 1), "sent again on Timer_MRW, acknowledged once");
    assert_eq!(p.a.tx.stats().mrws_acknowledged, 1);
    assert_eq!(
        p.delivered_ids(),
        vec![Delivered(0), Discarded(1), Delivered(2), Delivered(3), Delivered(4), Delivered(5)]
    );
    assert!(p.a.tx.is_idle());
}

#[test]
fn an_mrw_ack_for_an_earlier_mrw_does_not_end_the_next_one() {
    // Hand-worked on the sender alone: SDUs of 100 B end in PDUs 2, 5, 7, 10, 12, 15.
    let cfg = RlcConfig { max_dat: 1, ..RlcConfig::default() };
    let mut tx = AmSender::new(&cfg);
    let mut src: VecDeque<u32> = VecDeque::from([100; 6]);
    for _ in 0..16 {
        assert!(matches!(tx.next_pdu(ms(0), &mut src), Some(Pdu::Data(_))));
    }
    // PDU 1 (inside SDU 0) NACKed after its one transmission: SDU 0 discarded, MRW {sn 2, SDU 0}
    // (PDU 2 also starts SDU 1: still needed).
    tx.on_status(ms(40), &StatusPdu { lsn: 16, nacks: vec![1, 3] });
    let first = Mrw { sn: 2, discard_through: 0 };
    assert_eq!(tx.next_pdu(ms(40), &mut src), Some(Pdu::Mrw(first)));
    // PDU 3 is NACKed too (the same STATUS): SDU 1 discarded while the first MRW runs: no new
    // MRW yet (§11.6.2); nothing else to send.
    assert_eq!(tx.next_pdu(ms(40), &mut src), None);
    assert_eq!(tx.stats().sdus_discarded, 2);
    // An MRW_ACK that does not reach {2, SDU 0}: SN_ACK 2 with another N.
    tx.on_mrw_ack(ms(80), &MrwAck { sn: 2, discard_through: None });
    assert_eq!(tx.next_pdu(ms(80), &mut src), None, "still waiting, Timer_MRW not expired");
    // Timer_MRW (200 ms): the same MRW again.
    assert_eq!(tx.next_timer(), Some(ms(240)));
    assert_eq!(tx.next_pdu(ms(240), &mut src), Some(Pdu::Mrw(first)));
    // Its MRW_ACK ends it; the next procedure starts at once with the later discard.
    tx.on_mrw_ack(ms(280), &MrwAck { sn: 2, discard_through: Some(0) });
    let second = Mrw { sn: 5, discard_through: 1 };
    assert_eq!(tx.next_pdu(ms(280), &mut src), Some(Pdu::Mrw(second)));
    assert!(!tx.is_idle());
    // An MRW_ACK beyond SN_MRW_LENGTH ends it whatever its N.
    tx.on_mrw_ack(ms(320), &MrwAck { sn: 16, discard_through: None });
    assert_eq!(tx.stats().mrws_acknowledged, 2);
    assert_eq!(tx.stats().mrws_sent, 3);
}

#[test]
fn the_receiver_answers_every_mrw_with_its_new_vr_r() {
    let cfg = RlcConfig::default();
    let mut rx = AmReceiver::new(&cfg);
    let data = |sn: Sn, first: SduId, last: SduId, starts: bool, ends: bool| DataPdu {
        sn,
        poll: false,
        sdu_first: first,
        sdu_last: last,
        starts,
        ends,
        payload: 40,
        lis: 0,
    };
    // SDU 0 in PDUs 0..=2 (ends in 2, where SDU 1 starts); SDU 1 ends in 4. PDU 1 missing.
    for d in [data(0, 0, 0, true, false), data(2, 0, 1, false, false), data(3, 1, 1, false, false)] {
        rx.on_data(ms(0), &d);
    }
    rx.on_mrw(ms(10), &Mrw { sn: 2, discard_through: 0 });
    assert_eq!(rx.mrw_ack_pdu(), Some(MrwAck { sn: 4, discard_through: None }), "VR(R) moved over 2 and 3");
    assert_eq!(rx.mrw_ack_pdu(), None);
    assert_eq!(rx.drain().collect::<Vec<_>>(), vec![Discarded(0)]);
    // The same MRW again (its ACK was lost): obsolete, answered with the current VR(R).
    rx.on_mrw(ms(20), &Mrw { sn: 2, discard_through: 0 });
    assert_eq!(rx.mrw_ack_pdu(), Some(MrwAck { sn: 4, discard_through: None }));
    assert_eq!(rx.drain().count(), 0);
    // An MRW to exactly VR(R)'s next gap echoes its N_LENGTH.
    rx.on_mrw(ms(30), &Mrw { sn: 6, discard_through: 1 });
    assert_eq!(rx.mrw_ack_pdu(), Some(MrwAck { sn: 6, discard_through: Some(1) }));
    assert_eq!(rx.drain().collect::<Vec<_>>(), vec![Discarded(1)]);
    assert_eq!(rx.stats().mrw_acks_sent, 3);
    assert_eq!(rx.stats().statuses_sent, 0, "MRW_ACKs are not STATUS reports");
}

/// 20 SDUs of 1000 B (501 PDUs, 42 TTIs) with PDU 30 lost `times` times; no poll but
/// the last PDU's, no poll timer; STATUS as `status` says.
fn persisting_gap(status: StatusConfig, times: u32) -> Pair {
    let cfg = RlcConfig {
        poll: PollConfig { window: None, timer: None, last_retransmitted: false, ..PollConfig::default() },
        status,
        ..RlcConfig::default()
    };
    let mut p = Pair::new(&cfg, &[1000; 20]).lose(lose_data_sn(30, times));
    p.run_for(Dur::from_secs(2));
    p
}

#[test]
fn missing_pdu_detection_while_a_gap_persists_reports_once_per_prohibit_period() {
    // PDU 30 (sent at 20 ms) lost twice. The gap shows at 50 ms; the STATUS then reaches the
    // RNC at 100 ms, whose retransmission (lost) would have arrived at 130 ms.
    let prohibit = |ms: u64| StatusConfig {
        prohibit: Some(Dur::from_millis(ms)),
        missing_pdu: MissingPdu::WhileGap,
        ..StatusConfig::default()
    };
    let p = persisting_gap(prohibit(100), 2);
    // A new gap only: one STATUS, the retransmission lost, then nothing until the poll on the
    // last PDU (sent at 410 ms, in at 440 ms).
    let q = persisting_gap(StatusConfig { prohibit: Some(Dur::from_millis(100)), ..StatusConfig::default() }, 2);
    assert_eq!(q.status_times(), vec![ms(50), ms(440)]);
    // While the gap persists, every 100 ms: 50, 150 (NACKs 30 again: its second retransmission
    // at 180 ms arrives at 210 ms); the PDUs that arrived from 160 ms to 200 ms triggered one
    // more, held back by the prohibit timer until 250 ms (it acknowledges only); then the last poll.
    assert_eq!(p.status_times(), vec![ms(50), ms(150), ms(250), ms(440)]);
    assert_eq!(p.data_sent(30), 3);
    assert_eq!(p.delivered_ids(), (0..20).map(Delivered).collect::<Vec<_>>());
    // With a 30 ms prohibit the reports follow the TTIs while the gap persists: the PDUs
    // arriving at 60, 90, 120 ms re-trigger (NACKing 30 again, although its retransmission is
    // on its way: 30 is sent a third time before the second arrives).
    let p = persisting_gap(prohibit(30), 1);
    let times = p.status_times();
    assert_eq!(times[..3].to_vec(), vec![ms(50), ms(80), ms(110)], "{times:?}");
    assert!(p.data_sent(30) >= 3, "a retransmission in flight was NACKed again");
}

#[test]
fn the_estimated_pdu_counter_reports_again_when_the_retransmissions_do_not_come() {
    // PDU 30 lost twice; new-gap detection only. Timer_EPC 60 ms after the STATUS at 50 ms:
    // from 110 ms on, VR(EP) = 1 PDU counts down with the first PDU that arrives (at 110 ms):
    // 30 is still missing (its retransmission, lost, would have come at 130 ms), so the UE
    // reports again at once, without waiting for the poll on the last PDU.
    let epc = |timer: Option<Dur>| StatusConfig { prohibit: None, epc: timer, ..StatusConfig::default() };
    let p = persisting_gap(epc(Some(Dur::from_millis(60))), 2);
    let times = p.status_times();
    assert_eq!(times[..2].to_vec(), vec![ms(50), ms(110)], "{times:?}");
    assert_eq!(p.data_sent(30), 3);
    assert_eq!(p.delivered_ids(), (0..20).map(Delivered).collect::<Vec<_>>());
    // Without the counter the second loss waits for the last PDU's poll.
    let p = persisting_gap(epc(None), 2);
    assert_eq!(p.status_times()[..2].to_vec(), vec![ms(50), ms(440)]);
    // A counter that starts after the retransmission arrived finds nothing missing: no report.
    let p = persisting_gap(epc(Some(Dur::from_millis(60))), 1);
    assert_eq!(p.status_times(), vec![ms(50), ms(440)]);
}

#[test]
fn missing_pdu_reads_true_false_and_the_two_readings() {
    let parse = |v: &str| toml::from_str::<StatusConfig>(&format!("missing_pdu = {v}"));
    assert_eq!(parse("true").unwrap().missing_pdu, MissingPdu::NewGap);
    assert_eq!(parse("false").unwrap().missing_pdu, MissingPdu::Off);
    assert_eq!(parse("\"new_gap\"").unwrap().missing_pdu, MissingPdu::NewGap);
    assert_eq!(parse("\"while_gap\"").unwrap().missing_pdu, MissingPdu::WhileGap);
    let err = parse("\"always\"").unwrap_err().to_string();
    assert!(err.contains("expected true, false, \"new_gap\" or \"while_gap\""), "{err}");
}

/// MaxMRW 2: PDU 3 (inside SDU 1) is always lost and so is every MRW, `lost_acks` RESET ACKs too.
fn reset_pair(lost_acks: u32) -> Pair {
    let cfg = RlcConfig { max_dat: 3, max_mrw: Some(2), ..RlcConfig::default() };
    let mut acks = 0;
    let mut p = Pair::new(&cfg, &[100; 6]).lose(move |way, pdu, _| match pdu {
        Pdu::Data(d) => way == Way::Down && d.sn == 3,
        Pdu::Mrw(_) => true,
        Pdu::ResetAck(_) => {
            acks += 1;
            acks <= lost_acks
        }
        _ => false,
    });
    p.run_for(Dur::from_secs(3));
    p
}

fn sent(p: &Pair, f: fn(&Pdu) -> bool) -> Vec<Time> {
    p.log.iter().filter(|e| f(&e.2)).map(|e| e.0).collect()
}

#[test]
fn max_mrw_unanswered_mrws_reset_the_rlc_and_every_sdu_is_settled_once() {
    // All six SDUs (16 PDUs) go out in the first 20 ms; 3 is NACKed and resent twice, then
    // discarded with SDU 1. The MRW goes out twice (Timer_MRW 200 ms) and is lost both times:
    // the next expiry resets the RLC. The UE discards the SDUs it has not delivered: SDU 0 was
    // delivered, 1 is the discard, 2 to 5 waited in sequence behind PDU 3 (which the MRW never
    // moved past), although their PDUs were in and acknowledged: the RNC had confirmed them.
    let p = reset_pair(0);
    let mrws = sent(&p, |pdu| matches!(pdu, Pdu::Mrw(_)));
    assert_eq!(mrws.len(), 2);
    let resets = sent(&p, |pdu| matches!(pdu, Pdu::Reset(_)));
    assert_eq!(resets, vec![mrws[1] + Dur::from_millis(200)], "one RESET, at the expiry after the second MRW");
    assert_eq!(sent(&p, |pdu| matches!(pdu, Pdu::ResetAck(_))).len(), 1);
    assert_eq!(
        p.delivered_ids(),
        vec![Delivered(0), Discarded(1), Discarded(2), Discarded(3), Discarded(4), Discarded(5)]
    );
    assert_eq!(
        p.released,
        vec![
            Release::Confirmed(0),
            Release::Discarded(1),
            Release::Confirmed(2),
            Release::Confirmed(3),
            Release::Confirmed(4),
            Release::Confirmed(5)
        ]
    );
    assert_eq!((p.a.tx.stats().resets, p.b.tx.stats().resets), (1, 1));
    assert!(p.a.tx.is_idle() && p.a.next_timer().is_none(), "RESET acknowledged: nothing pending");
    // Without MaxMRW the MRW goes out again every 200 ms for the 3 s.
    let cfg = RlcConfig { max_dat: 3, ..RlcConfig::default() };
    let mut q = Pair::new(&cfg, &[100; 6]).lose(|way, pdu, _| {
        matches!(pdu, Pdu::Mrw(_)) || (way == Way::Down && matches!(pdu, Pdu::Data(d) if d.sn == 3))
    });
    q.run_for(Dur::from_secs(3));
    assert!(sent(&q, |pdu| matches!(pdu, Pdu::Mrw(_))).len() > 10);
    assert!(sent(&q, |pdu| matches!(pdu, Pdu::Reset(_))).is_empty());
}

#[test]
fn a_lost_reset_ack_is_answered_again_without_a_second_reset_and_data_flows_after() {
    // The first RESET ACK is lost: Timer_RST (200 ms) sends the RESET again, the UE answers the
    // repeat (same RSN) without resetting once more.
    let mut p = reset_pair(1);
    let resets = sent(&p, |pdu| matches!(pdu, Pdu::Reset(_)));
    assert_eq!(resets.len(), 2);
    assert_eq!(resets[1].since(resets[0]), Dur::from_millis(200));
    assert_eq!(sent(&p, |pdu| matches!(pdu, Pdu::ResetAck(_))).len(), 2);
    assert_eq!((p.a.tx.stats().resets, p.b.tx.stats().resets), (1, 1));
    // After the reset new SDUs go through, from the new sequence numbers on.
    p.src_a.extend([100, 100]);
    p.run_for(Dur::from_secs(1));
    let got = p.delivered_ids();
    assert_eq!(got[6..].to_vec(), vec![Delivered(6), Delivered(7)]);
    assert!(p.a.tx.is_idle());
}
