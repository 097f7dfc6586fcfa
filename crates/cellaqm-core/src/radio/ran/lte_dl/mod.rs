//! The LTE downlink (`bearer = "lte_downlink"`, `[radio.lte_downlink]`):
//! one cell, or one per site of a layout of several cells
//! (`[radio.environment] layout = "hex7"` or `"hex"`), the eNodeB's PDCP buffer and RLC per UE (the managed buffers),
//! 1 ms TTIs, each UE's CQI from its own channel, link adaptation on the
//! attenuated Shannon bound of TR 36.942 Annex A, HARQ, a scheduler from
//! [`crate::radio::scheduler`], and an uplink that carries the ACKs.
//! One concept per file:
//! - [`config`]: the `radio.lte_downlink` section;
//! - [`bearer`]: a UE's bearer at the eNodeB (PDCP buffer, RLC, HARQ);
//! - [`receiver`]: a UE's RLC receiver (in-sequence reassembly, UM discard);
//! - [`cell`]: one cell's scheduler and counters;
//! - [`links`]: with several cells, each UE's links to every site (path
//!   loss, shadowing, fading, handover) and its SINR under the other cells' load;
//! - [`system`]: the cells run TTI by TTI (channels, schedulers, HARQ timing).
//!
//! *One cell* (the disc): no other cells, no interference (SINR = SNR), no
//! shadowing. *Several cells*: interference from the other cells as loaded
//! in the previous TTI, shadowing, handover (docs/lte-downlink.md). The PDCP buffers together are the run's
//! `bottleneck` (their summed backlog tallied over time); each user's row has its own.

pub mod bearer;
pub mod cell;
pub mod config;
pub mod links;
pub mod receiver;
pub mod system;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cells;

use super::interface::{Ran, UserBuffer};
use crate::capacity::Schedule;
use crate::link::LinkStats;
use crate::packet::{Dir, Packet};
use crate::queue::QueueDisc;
use crate::radio::cell_summary::{CellSummary, LteDlCell, SystemCell};
use crate::radio::clock::TtiEvent;
use crate::radio::config::RadioConfig;
use crate::radio::env::LayoutKind;
use crate::radio::event::{RadioEvent, RadioOut, UeEvent};
use crate::radio::lte::capacity::{Blocks, Capacity, Offer};
use crate::radio::lte::channel::{Channel, DOWNLINK_BUDGET};
use crate::radio::lte::link_adaptation::DOWNLINK;
use crate::radio::return_path::ReturnPaths;
use crate::radio::streams::user_stream;
use crate::radio::tally::Tally;
use crate::rng::Rng;
use crate::time::{Dur, Time};
use bearer::Bearer;
use config::LteDownlinkConfig;
use links::Links;
use system::System;

pub struct LteDl {
    system: System,
    /// The ACKs' way from the UEs.
    uplink: ReturnPaths,
    tti: TtiEvent,
    /// The PDCP buffers together over time, and each one's.
    tally: Tally,
    tallies: Vec<Tally>,
    scheduler: &'static str,
}

impl LteDl {
    /// The downlink of `cfg.lte_downlink` for `users` UEs (streams
    /// `radio[.ue<u>].pdcp`, `radio[.ue<u>].harq`, `radio[.ue<u>].lte.channel`:
    /// the UE's channel, or with several cells its links).
    pub fn new(cfg: &RadioConfig, users: u32, seed: u64) -> LteDl {
        let dl = cfg.lte_downlink.as_ref().expect("validated: [radio.lte_downlink] with bearer = \"lte_downlink\"");
        let stream = |u: u32, part: &str| user_stream(seed, u, part);
        let bearers = (0..users)
            .map(|u| {
                let queue = cfg.bearer(u).down_queue(stream(u, "pdcp"));
                Bearer::new(queue, dl.peak_bps(), dl.rlc, &dl.harq, stream(u, "harq"), dl.tti, dl.status_delay)
            })
            .collect();
        let channels = (0..users).map(|u| stream(u, "lte.channel")).collect();
        let env = dl.environment("radio.lte_downlink", cfg.environment_keys()).map(|e| e.expect("validated"));
        match env {
            Some(env) if env.layout != LayoutKind::Disc => {
                let links = Links::new(&env, dl.bandwidth.0, &DOWNLINK_BUDGET, channels);
                LteDl::with(dl, bearers, set_rates(dl, &links), Some(links))
            }
            env => LteDl::with(dl, bearers, offer(dl, env.as_ref(), channels), None),
        }
    }

    /// The system of `dl` with `bearers` on the channels of `offer`: one
    /// cell, or with `links` one per site ([`set_rates`]).
    pub fn with(dl: &LteDownlinkConfig, bearers: Vec<Bearer>, offer: Offer, links: Option<Links>) -> LteDl {
        let n = bearers.len();
        LteDl {
            system: System::new(dl, bearers, offer, links),
            uplink: ReturnPaths::new(n, None, dl.uplink_delay, UeEvent::UpArrive),
            tti: TtiEvent::new(dl.tti),
            tally: Tally::default(),
            tallies: (0..n).map(|_| Tally::per_user()).collect(),
            scheduler: dl.scheduler.name(),
        }
    }

    /// The PDCP buffer's backlog of UE `u`: (bytes, packets).
    fn backlog_of(&self, u: usize) -> (u64, u64) {
        let q = self.system.bearers[u].queue();
        (q.bytes(), q.packets() as u64)
    }

    /// Holds every tally up to `now`, before a change.
    fn hold(&mut self, now: Time) {
        self.tally.hold(now);
        self.tallies.iter_mut().for_each(|t| t.hold(now));
    }

    pub fn system(&self) -> &System {
        &self.system
    }
}

/// The offer of a system of several cells: each UE's rate set by its links every TTI.
pub fn set_rates(dl: &LteDownlinkConfig, links: &Links) -> Offer {
    let blocks = (0..links.ues()).map(|_| Blocks::new(Capacity::Set(0.0), dl.tti)).collect();
    Offer::per_ue_in(blocks, links.cells())
}

/// Each UE's bytes per TTI: its own fading channel in `env`, or the fixed `sinr_db` for all.
pub fn offer(dl: &LteDownlinkConfig, env: Option<&crate::radio::env::Environment>, rngs: Vec<Rng>) -> Offer {
    let blocks = |capacity| Blocks::new(capacity, dl.tti);
    Offer::per_ue(match (env, dl.channel_config()) {
        (Some(env), Some(c)) => rngs
            .into_iter()
            .map(|rng| blocks(Capacity::Channel(Box::new(Channel::with_budget(&c, env, rng, &DOWNLINK_BUDGET)))))
            .collect(),
        _ => {
            let bps = dl.bandwidth.0 * DOWNLINK.efficiency(dl.sinr_db.expect("validated: sinr_db or channel"));
            rngs.iter().map(|_| blocks(Capacity::Schedule(Schedule::fixed(bps)))).collect()
        }
    })
}

impl Ran for LteDl {
    fn arrive_down(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.tally.hold(now);
        self.tallies[ue].hold(now);
        let before = self.backlog_of(ue);
        self.system.bearers[ue].arrive(now, pkt, &mut out.dropped);
        let after = self.backlog_of(ue);
        self.tally.change(before, after);
        self.tallies[ue].change(before, after);
        self.tti.want(now, &mut out.schedule);
    }

    fn arrive_up(&mut self, now: Time, ue: usize, pkt: Packet, out: &mut RadioOut) {
        self.uplink.send(now, ue, pkt, &mut out.schedule);
    }

    fn handle(&mut self, now: Time, ev: RadioEvent, out: &mut RadioOut) {
        match ev {
            RadioEvent::Ue(u, UeEvent::UpArrive) => {
                self.uplink.arrivals(now, u as usize, &mut out.to_core, &mut out.schedule)
            }
            RadioEvent::Tti => {
                self.tti.run(now);
                self.tally.hold(now);
                self.system.run_tti(now, &mut out.to_ue, &mut out.dropped);
                // A UE's tally is held only when its backlog changed (its sums are whole numbers).
                for (u, t) in self.tallies.iter_mut().enumerate() {
                    let q = self.system.bearers[u].queue();
                    let backlog = (q.bytes(), q.packets() as u64);
                    if (t.bytes, t.packets) != backlog {
                        t.hold(now);
                        (t.bytes, t.packets) = backlog;
                    }
                }
                self.tally.bytes = self.tallies.iter().map(|t| t.bytes).sum();
                self.tally.packets = self.tallies.iter().map(|t| t.packets).sum();
                if self.system.busy(now) {
                    self.tti.want(now + self.system.tti(), &mut out.schedule);
                }
            }
            ev => unreachable!("the LTE downlink asks for no {ev:?}"),
        }
    }

    fn cells(&self, end: Time) -> Vec<CellSummary> {
        let s = &self.system;
        let ttis = (end.0 / s.tti().0).max(1) as f64;
        let of_cell = |c: usize| (0..s.bearers.len()).filter(move |&u| s.cell_of(u) == c);
        (0..s.cells.len())
            .map(|c| {
                let stats = &s.cells[c].stats;
                CellSummary {
                    cell: c as u32,
                    users: of_cell(c).count() as u32,
                    downlink: "lte_downlink",
                    scheduler: Some(self.scheduler),
                    tti_utilisation: Some(stats.ttis_served as f64 / ttis),
                    users_per_tti: Some(stats.opportunities as f64 / stats.ttis_served.max(1) as f64),
                    harq_delayed: Some(of_cell(c).map(|u| s.bearers[u].harq_stats().retransmissions).sum()),
                    system: s.links().map(|_| {
                        SystemCell::LteDl(LteDlCell {
                            mean_sinr_db: stats.mean_sinr_db(),
                            handovers_in: stats.handovers_in,
                        })
                    }),
                    ..CellSummary::default()
                }
            })
            .collect()
    }

    fn cell_of(&self, ue: usize) -> u32 {
        self.system.cell_of(ue) as u32
    }

    /// With several cells: UE `ue`'s handovers.
    fn handovers(&self, ue: usize) -> Option<u64> {
        self.system.links().map(|l| l.handovers(ue))
    }

    fn bytes_held(&self) -> u64 {
        self.system.bytes_held() + self.uplink.bytes()
    }

    fn backlog(&self) -> (u64, u64) {
        (self.tally.bytes, self.tally.packets)
    }

    fn buffer_packets(&self, ue: usize) -> u64 {
        self.backlog_of(ue).1
    }

    /// The PDCP buffers together, seen as one link (busy: the TTIs that served
    /// a UE), and their ECN marks.
    fn bottleneck(&mut self, end: Time) -> (LinkStats, u64) {
        self.hold(end);
        let c = &self.system;
        let stats = LinkStats {
            busy: Dur(c.counts.ttis_served.saturating_mul(c.tti().0).min(end.0)),
            packets_sent: c.delivered.iter().map(|d| d.0).sum(),
            bytes_sent: c.delivered.iter().map(|d| d.1).sum(),
            queue_byte_ns: self.tally.byte_ns,
            queue_packet_ns: self.tally.packet_ns,
            occupancy: Some(self.tally.occupancy.clone()),
        };
        (stats, c.bearers.iter().map(|b| b.queue().stats().marked).sum())
    }

    /// Nothing: the uplink (ACKs) is not managed.
    fn uplink(&mut self, _end: Time) -> (LinkStats, u64) {
        (LinkStats::default(), 0)
    }

    fn user_buffer(&mut self, ue: usize, end: Time) -> UserBuffer {
        self.hold(end);
        let (c, t) = (&self.system, &self.tallies[ue]);
        let b = &c.bearers[ue];
        let stats = LinkStats {
            busy: Dur(b.opportunities.saturating_mul(c.tti().0).min(end.0)),
            packets_sent: c.delivered[ue].0,
            bytes_sent: c.delivered[ue].1,
            queue_byte_ns: t.byte_ns,
            queue_packet_ns: t.packet_ns,
            occupancy: Some(t.occupancy.clone()),
        };
        UserBuffer { stats, marked: b.queue().stats().marked, dir: Dir::Down }
    }

    /// No traces are kept.
    fn record_traces(&mut self) {}
}
