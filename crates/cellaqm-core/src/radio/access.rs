//! The radio access network of a run: the radio system of its `[radio]`
//! section ([`AnyRan`]), reached through one interface ([`Ran`]).
//!
//! ```text
//!                       ┌─ bearer 0: PDCP ─ RLC AM ─┐
//!  core ─▶ route by ──▶ ├─ bearer 1: PDCP ─ RLC AM ─┼─▶ the system's cells: own DCHs, or a shared channel + scheduler ─▶ UEs
//!          the flow's   └─ …                        ┘
//!          user         ◀──── each bearer's uplink DCH and RLC AM ◀──── UEs
//! ```
//!
//! A packet enters the radio for its flow's user ([`RadioAccess::arrive_down`],
//! [`RadioAccess::arrive_up`]); the events the radio asked for come back to
//! it ([`RadioAccess::handle`]). The systems and what they share are in
//! [`super::ran`]; the LTE uplink has the managed buffer in the UE and no
//! bearers.

use super::config::RadioConfig;
use super::ran::AnyRan;
use std::ops::{Deref, DerefMut};

/// The run's radio access network: its radio system behind [`Ran`].
pub struct RadioAccess(AnyRan);

impl RadioAccess {
    /// The network of `cfg` for `users` users and run seed `seed` (streams "radio.*").
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> RadioAccess {
        RadioAccess(AnyRan::new(cfg, users, seed))
    }
}

impl Deref for RadioAccess {
    type Target = AnyRan;
    fn deref(&self) -> &AnyRan {
        &self.0
    }
}

impl DerefMut for RadioAccess {
    fn deref_mut(&mut self) -> &mut AnyRan {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::bearer::dch::DchConfig;
    use super::super::bearer::pdcp::BufferHolds;
    use super::super::config::BearerKind;
    use super::super::event::{RadioEvent, RadioOut};
    use super::super::ran::hsdpa::HsdpaConfig;
    use super::super::ran::Ran;
    use super::*;
    use crate::engine::EventQueue;
    use crate::packet::{Dir, Packet, TcpHeader};
    use crate::queue::Dropped;
    use crate::queue::{DropCause, QueueConfig};
    use crate::rlc::RlcConfig;
    use crate::time::{Dur, Time};
    use crate::units::{Bytes, Rate};

    fn pkt(uid: u64, dir: Dir, size: u32) -> Packet {
        let mut p =
            Packet::tcp(0, dir, size, TcpHeader { len: size.saturating_sub(60) as u16, ..TcpHeader::default() });
        p.uid = uid;
        p
    }

    fn dch_config(kbps: f64, ms: u64, buffer: u64) -> RadioConfig {
        RadioConfig {
            bearer: BearerKind::Dch,
            dch: Some(DchConfig { rate: Rate(kbps * 1e3), tti: Dur::from_millis(ms), ..DchConfig::default() }),
            hsdpa: None,
            cells: None,
            lte: None,
            dsch: None,
            lte_downlink: None,
            environment: None,
            uplink: DchConfig::default(),
            buffer: Some(Bytes(buffer)),
            buffer_packets: None,
            buffer_holds: Default::default(),
            queue: QueueConfig::TailDrop,
            uplink_buffer: None,
            uplink_queue: QueueConfig::TailDrop,
            rlc: RlcConfig::default(),
            groups: Vec::new(),
        }
    }

    /// Offers `down` packets of 1500 B at t = 0 and one 60 B uplink packet
    /// every 100 ms for 2 s; runs to `end`. Returns (down delivered uids with
    /// times, up delivered count, drops, bearer).
    fn drive(cfg: &RadioConfig, down: u64, end: Time) -> (Vec<(Time, u64)>, usize, Vec<Dropped>, RadioAccess) {
        drive_spaced(cfg, down, Dur::ZERO, end)
    }

    /// [`drive`] with the downlink packets `spacing` apart.
    fn drive_spaced(
        cfg: &RadioConfig,
        down: u64,
        spacing: Dur,
        end: Time,
    ) -> (Vec<(Time, u64)>, usize, Vec<Dropped>, RadioAccess) {
        let mut r = RadioAccess::new(cfg, 1, 1);
        let mut q: EventQueue<Option<RadioEvent>> = EventQueue::new();
        let mut out = RadioOut::default();
        let mut later = Vec::new();
        for uid in 0..down {
            match spacing * uid {
                Dur::ZERO => r.arrive_down(Time::ZERO, 0, pkt(uid, Dir::Down, 1500), &mut out),
                at => later.push((Time::ZERO + at, uid)),
            }
        }
        for k in 0..20 {
            q.schedule(Time::ZERO + Dur::from_millis(100 * k), None);
        }
        let (mut got, mut up, mut drops) = (Vec::new(), 0, Vec::new());
        let mut uid = 1_000_000;
        loop {
            for (at, ev) in out.schedule.drain(..) {
                q.schedule(at, Some(ev));
            }
            got.extend(out.to_ue.drain(..).map(|p| (q.now(), p.uid)));
            up += out.to_core.drain(..).count();
            drops.append(&mut out.dropped);
            let Some((now, ev)) = q.pop() else { break };
            if now > end {
                break;
            }
            while let Some(&(_, down_uid)) = later.first().filter(|(at, _)| *at <= now) {
                later.remove(0);
                r.arrive_down(now, 0, pkt(down_uid, Dir::Down, 1500), &mut out);
            }
            match ev {
                Some(ev) => r.handle(now, ev, &mut out),
                None => {
                    uid += 1;
                    r.arrive_up(now, 0, pkt(uid, Dir::Up, 60), &mut out);
                }
            }
        }
        (got, up, drops, r)
    }

    /// `buffer_holds = "until_fully_sent"`: a 2-packet tail-drop buffer on a 384 kb/s DCH, fed a
    /// 1500-B packet every 40 ms (the DCH sends one in about 33 ms). Counting the packets until the RLC's STATUS
    /// confirms them (a poll on the last PDU, answered over the 64 kb/s uplink in 20 ms TTIs), the
    /// buffer overflows; counting them until their last PDU is sent, it never does.
    #[test]
    fn until_fully_sent_counts_only_what_the_radio_has_not_taken() {
        let cfg = RadioConfig { buffer: None, buffer_packets: Some(2), ..dch_config(384.0, 10, 0) };
        let end = Time::ZERO + Dur::from_secs(5);
        let (got, _, drops, _) = drive_spaced(&cfg, 50, Dur::from_millis(40), end);
        assert!(drops.len() >= 5, "{} drops", drops.len());
        assert_eq!(got.len() + drops.len(), 50);
        let sent = RadioConfig { buffer_holds: BufferHolds::UntilFullySent, ..cfg };
        let (got, _, drops, mut r) = drive_spaced(&sent, 50, Dur::from_millis(40), end);
        assert!(drops.is_empty(), "{} drops", drops.len());
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..50).collect::<Vec<_>>());
        assert_eq!((r.buffer_packets(0), r.bytes_held()), (0, 0));
        assert_eq!(r.user_buffer(0, end).stats.packets_sent, 50);
    }

    #[test]
    fn a_dch_bearer_delivers_what_pdcp_accepts_in_order_at_the_bearer_rate() {
        let cfg = dch_config(384.0, 10, 30_000);
        let (got, up, drops, mut r) = drive(&cfg, 40, Time::ZERO + Dur::from_secs(5));
        // 30 kB of PDCP holds 20 packets; the rest overflow.
        assert_eq!(drops.len(), 20);
        assert!(drops.iter().all(|d| d.cause == DropCause::Overflow));
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..20).collect::<Vec<_>>());
        assert_eq!(up, 20);
        // 20 × 1500 B at 384 kb/s of payload: about 0.63 s, plus TTI and delay.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.63..0.75).contains(&last), "{last}");
        assert_eq!((r.buffer_packets(0), r.bytes_held()), (0, 0));
        let end = Time::ZERO + Dur::from_secs(5);
        let (sent, radio) = (r.user_buffer(0, end).stats.packets_sent, r.user_radio(0, end).unwrap());
        assert_eq!((sent, radio.retransmissions), (20, 0));
    }

    #[test]
    fn an_hsdpa_bearer_runs_at_the_granted_share() {
        let cfg = RadioConfig {
            bearer: BearerKind::Hsdpa,
            dch: None,
            hsdpa: Some(HsdpaConfig { rate: Rate(3.6e6), ..HsdpaConfig::default() }),
            // 768 PDUs in flight over a ~90 ms RLC round trip would cap the bearer at ~2.9 Mb/s.
            rlc: RlcConfig { window: 2047, ..RlcConfig::default() },
            ..dch_config(0.0, 10, 1_000_000)
        };
        let (got, up, drops, r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert!(drops.is_empty());
        assert_eq!(got.len(), 500);
        assert_eq!(up, 20);
        // 500 × 1500 B in 42-byte MAC-d PDUs at 0.9 × 3.6 Mb/s: 750 kB × 42/40 × 8 / 3.24 Mb/s ≈ 1.94 s.
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((1.9..2.1).contains(&last), "{last}");
        assert_eq!(r.bytes_held(), 0);
        // At 20 Mb/s the 255-PDU frames cap the credits: the PDCP is told 255 × 336 bit / 10 ms
        // = 8.568 Mb/s (not 0.9 × 20 Mb/s), and that is the pace: 750 kB × 42/40 × 8 / 8.568 Mb/s ≈ 0.74 s.
        // (An 8192-PDU RLC window, so that the window does not limit the bearer instead.)
        let cfg = RadioConfig {
            hsdpa: Some(HsdpaConfig { rate: Rate(20e6), ..HsdpaConfig::default() }),
            rlc: RlcConfig { window: 8192, ..RlcConfig::default() },
            ..cfg
        };
        let (got, _, _, mut r) = drive(&cfg, 500, Time::ZERO + Dur::from_secs(5));
        assert_eq!(r.user_radio(0, Time::ZERO + Dur::from_secs(5)).unwrap().rate_bps, 255.0 * 336.0 / 0.01);
        let last = got.last().unwrap().0.as_secs_f64();
        assert!((0.72..0.80).contains(&last), "{last}");
    }

    #[test]
    fn lossy_dch_recovers_every_packet_and_reports_discards_as_link_loss() {
        let mut cfg = dch_config(64.0, 20, 1_000_000);
        cfg.dch.as_mut().unwrap().loss = Some(super::super::bearer::gilbert::GilbertConfig { mean: 0.05, burst: 2.0 });
        let (got, _, drops, mut r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(drops.is_empty());
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), (0..30).collect::<Vec<_>>());
        assert!(r.user_radio(0, Time::ZERO + Dur::from_secs(30)).unwrap().retransmissions > 0);
        // With MaxDAT 1 every lost PDU costs its SDUs: reported as link loss, and the ledger closes.
        cfg.rlc.max_dat = 1;
        let (got, _, drops, r) = drive(&cfg, 30, Time::ZERO + Dur::from_secs(30));
        assert!(!drops.is_empty() && drops.iter().all(|d| d.cause == DropCause::LinkLoss));
        assert_eq!(got.len() + drops.len(), 30);
        assert_eq!(r.bytes_held(), 0);
    }

    #[test]
    fn validation_names_the_key() {
        let mut cfg = dch_config(384.0, 10, 100_000);
        assert_eq!(cfg.validate("radio", 1, Dur::from_secs(10)), Ok(()));
        cfg.dch = None;
        assert_eq!(
            cfg.validate("radio", 1, Dur::from_secs(10)).unwrap_err(),
            "radio.dch: missing (required with bearer = \"dch\")"
        );
        cfg.bearer = BearerKind::Hsdpa;
        cfg.hsdpa = Some(HsdpaConfig { harq: 1.5, ..HsdpaConfig::default() });
        assert!(cfg.validate("radio", 1, Dur::from_secs(10)).unwrap_err().starts_with("radio.hsdpa.harq:"));
        cfg.hsdpa = Some(HsdpaConfig::default());
        cfg.rlc.window = 0;
        assert!(cfg.validate("radio", 1, Dur::from_secs(10)).unwrap_err().starts_with("radio.rlc.window:"));
    }
}
