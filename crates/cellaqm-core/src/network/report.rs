//! The run's results: the summary, and one row per flow, user and cell.

use super::flows::FlowTotals;
use super::topology::LinkId;
use super::{Network, RunResult};
use crate::link::{Link, LinkStats};
use crate::metrics::{
    DatagramSummary, DelayStats, FlowSummary, LinkSummary, OccupancyLog, SessionSummary, Summary, UserSummary,
};
use crate::packet::Dir;
use crate::queue::{DropCause, QueueDisc};
use crate::radio::{CellSummary, Ran};
use crate::time::Time;
use crate::traffic::Application;
use std::collections::BTreeMap;

impl Network {
    pub(super) fn finish(mut self, wall_s: f64) -> RunResult {
        let end = self.duration;
        for source in 0..self.apps.len() as u16 {
            self.hook(end, source, |app, ctx| app.finish(ctx));
        }
        self.actions.clear();
        self.ledger.in_flight_bytes = self.links.iter().map(Link::bytes_held).sum::<u64>()
            + self.radio.as_ref().map_or(0, |r| r.bytes_held())
            + self.ack_delay.iter().flat_map(|a| &a.held).map(|(_, p)| p.size as u64).sum::<u64>();
        // Conservation of bytes, checked on every run: a failure is a model bug.
        assert!(self.ledger.balances(), "byte ledger does not balance: {:?}", self.ledger);
        // The flows count the same bytes in flight (a connection leaves the table once it has none).
        assert_eq!(self.flows.in_network(), self.ledger.in_flight_bytes, "the flows' bytes in the network");

        // The flows still open (and the streams) join the totals, and their rows the rows
        // (those over, still draining or closed in the last event, did as they closed).
        let open: Vec<FlowSummary> = self.flows.open_in_order().into_iter().map(|f| f.row(f.id, end)).collect();
        let goodput_sum = self.flows.goodput_sum(|id| {
            let i = open.binary_search_by_key(&id, |r| r.flow).expect("an open flow");
            open[i].goodput_bps
        });
        for row in &open {
            self.totals.add(row);
        }
        let mut flows = match self.rows.take() {
            Some(mut rows) => {
                rows.extend_from_slice(&open);
                rows
            }
            None => Vec::new(),
        };
        flows.sort_unstable_by_key(|f| f.flow);
        let totals = std::mem::take(&mut self.totals);
        let mut downloads = std::mem::take(&mut self.log.downloads);
        for (i, d) in downloads.iter_mut().enumerate() {
            d.download = i as u32;
        }

        // A link's counters and ECN marks; with `[radio]` the bottleneck is the users' PDCP
        // buffers together, and the uplink their uplink DCHs and UE buffers together.
        let link_stats = |net: &mut Network, id: LinkId| match (&mut net.radio, id) {
            (Some(r), LinkId::Bottleneck) => r.bottleneck(end),
            (Some(r), LinkId::Uplink) => r.uplink(end),
            _ => {
                let link = &mut net.links[id as usize];
                (link.stats(end), link.queue().stats().marked)
            }
        };
        let (bottleneck, uplink) = (link_stats(&mut self, LinkId::Bottleneck), link_stats(&mut self, LinkId::Uplink));
        let ran = self.radio.as_mut().map(|r| r.summary(end)).unwrap_or_default();
        let users = self.user_summaries(&totals, end);
        let cells = self.cell_summaries(&users, end);
        let mut occupancy = OccupancyLog::default();
        let mut summarise = |id: LinkId, (stats, marked): (LinkStats, u64)| {
            if let Some(o) = &stats.occupancy {
                occupancy.push(id.name(), o);
            }
            LinkSummary::new(&stats, &self.drops[id as usize], marked, end)
        };
        let (bottleneck, uplink) = (summarise(LinkId::Bottleneck, bottleneck), summarise(LinkId::Uplink, uplink));
        if let (Some(t), Some(r)) = (&mut self.trace, &mut self.radio) {
            t.radio_losses = r.take_loss_trace();
        }
        let bsr = match (ran.bsr, &mut self.radio) {
            (Some(summary), Some(r)) => {
                if let Some(t) = &mut self.trace {
                    t.bsr = r.take_bsr_trace().expect("recorded with the trace");
                }
                Some(summary)
            }
            _ => self.links[LinkId::Uplink as usize].bsr().map(|b| {
                if let Some(t) = &mut self.trace {
                    t.bsr = b.take_trace().expect("recorded with the trace");
                }
                b.summary()
            }),
        };
        let duration_s = end.as_secs_f64();
        let delivered_bytes = totals.delivered_bytes;
        let udp_delivered = self.udp_delays.count();
        let download_stats = std::mem::take(&mut self.log.tally).summary();
        let log = &self.log;
        let events = self.events.processed();
        let summary = Summary {
            scenario: self.scenario_name.clone(),
            seed: self.seed,
            duration_s,
            flows: totals.flows as usize,
            delivered_bytes,
            goodput_bps: delivered_bytes as f64 * 8.0 / duration_s,
            mean_flow_goodput_bps: goodput_sum / (totals.flows as usize).max(1) as f64,
            goodput_per_cell_bps: ran.goodput_cells.map(|n| delivered_bytes as f64 * 8.0 / (n as f64 * duration_s)),
            delay_ms: DelayStats::from_histogram(&self.delays),
            delay_up_ms: DelayStats::from_histogram(&self.up_delays),
            users: self.users,
            downloads: download_stats,
            sessions: SessionSummary {
                offered: log.sessions_offered,
                served: log.sessions_served,
                lost: log.sessions_lost,
                unfinished: log.sessions_offered - log.sessions_served - log.sessions_lost,
            },
            datagrams: DatagramSummary::new(
                self.udp_sent,
                udp_delivered,
                self.udp_lost,
                totals.udp_bytes,
                &self.udp_delays,
            ),
            rtos: totals.rtos,
            spurious_rtos: totals.spurious_rtos,
            rtos_undone: totals.rtos_undone,
            fast_retransmits: totals.fast_retransmits,
            retransmitted_bytes: totals.retransmitted_bytes,
            stalled_flows: totals.stalled_flows,
            drops: bottleneck.drops.clone(),
            bottleneck,
            uplink,
            bsr,
            radio: ran.radio,
            system: ran.own,
            cells,
            ledger: self.ledger,
            events,
            wall_s,
            sim_seconds_per_wall_second: duration_s / wall_s.max(1e-9),
            events_per_second: events as f64 / wall_s.max(1e-9),
        };
        RunResult {
            summary,
            flows,
            users,
            downloads,
            packets: self.packets,
            trace: self.trace,
            capture: self.capture,
            occupancy,
        }
    }
    /// One row per user: its flows' totals, its delays and drops, and with
    /// `[radio]` its own PDCP buffer and bearer counters (the LTE uplink: its
    /// UE's buffer, in its one cell).
    fn user_summaries(&mut self, totals: &FlowTotals, end: Time) -> Vec<UserSummary> {
        let duration_s = end.as_secs_f64();
        let mut users: Vec<UserSummary> = totals
            .users
            .iter()
            .enumerate()
            .map(|(u, t)| UserSummary {
                user: u as u32,
                flows: t.flows,
                bytes_down: t.bytes_down,
                bytes_up: t.bytes_up,
                rtos: t.rtos,
                retransmitted_bytes: t.retransmitted_bytes,
                ..UserSummary::default()
            })
            .collect();
        let names = |m: &BTreeMap<DropCause, u64>| m.iter().map(|(c, n)| (c.name(), *n)).collect();
        for (i, u) in users.iter_mut().enumerate() {
            u.goodput_bps = (u.bytes_down + u.bytes_up) as f64 * 8.0 / duration_s;
            (u.delay_ms, u.delay_up_ms) = match self.user_delays.get(i) {
                Some([down, up]) => (DelayStats::from_histogram(down), DelayStats::from_histogram(up)),
                None => (DelayStats::from_histogram(&self.delays), DelayStats::from_histogram(&self.up_delays)),
            };
            let [down, up] = &self.user_drops[i];
            (u.drops, u.drops_up) = (names(down), names(up));
            if let Some(radio) = &mut self.radio {
                u.cell = radio.cell_of(i);
                u.handovers = radio.handovers(i);
                // The user's managed buffer: its PDCP buffer, or on the LTE uplink its UE's.
                let b = radio.user_buffer(i, end);
                let drops = if b.dir == Dir::Up { up } else { down };
                u.buffer = Some(LinkSummary::new(&b.stats, drops, b.marked, end));
                u.radio = radio.user_radio(i, end);
            }
        }
        users
    }

    /// One row per cell: its users' goodput (downlink; uplink on the LTE uplink) and its shared channel
    /// (a wired run is one cell whose users share the bottleneck).
    fn cell_summaries(&self, users: &[UserSummary], end: Time) -> Vec<CellSummary> {
        let mut cells = match &self.radio {
            Some(radio) => radio.cells(end),
            None => vec![CellSummary { users: users.len() as u32, downlink: "wired", ..CellSummary::default() }],
        };
        for cell in &mut cells {
            // The LTE uplink cell carries its users' uploads; every other cell their downloads.
            let up = cell.uplink;
            let bytes: u64 =
                users.iter().filter(|u| u.cell == cell.cell).map(|u| if up { u.bytes_up } else { u.bytes_down }).sum();
            cell.goodput_bps = bytes as f64 * 8.0 / end.as_secs_f64();
        }
        cells
    }
}
