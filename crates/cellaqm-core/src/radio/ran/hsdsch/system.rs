//! The HS-DSCH system of hsdsch-buffer-mgmt.md (scenario 2): seven cells
//! (the study; or up to 61 with `layout = "hex"`, the scale benchmark's)
//! sharing one TTI clock, each serving its attached users from their RNC
//! bearers.
//!
//! Every 2 ms TTI, while some user has data in its RNC:
//! 1. Each backlogged user moves on ([`Track`]; the channel is recomputed
//!    after each `channel_step` of travel), attaches to the nearest base
//!    station (a changed cell is a handover: the user is not schedulable in
//!    that TTI, its RNC queue stays), and gets its SIR ([`Interference::sir`]
//!    with all the cell's power, `P_u = P_s`). The other cells' powers are
//!    those of the *previous* TTI (our choice of order: a cell transmits in
//!    a TTI if it sent a block then), so the SIR never depends on this
//!    TTI's decisions. Link adaptation picks the format ([`mcs::select`]);
//!    below the lowest threshold the user is not schedulable.
//! 2. Each cell with a lost block sends it again, before any new data (our
//!    choice; no retry limit). Otherwise its scheduler picks up to
//!    `users_per_tti` users in order; the first takes the block of its format,
//!    which its bearer fills with RLC PDUs (a transmission opportunity,
//!    [`crate::radio::sap`]) straight from the RNC (its PDCP buffer, with
//!    its queue discipline, is where the queue builds: no Node-B buffer and no
//!    flow control between); if its queue cannot fill the block, the next
//!    user gets the rest of the codes and power, a share `f` of its own
//!    block (our choice: codes and power in proportion to the share).
//!    Bytes a user's share left unused when it had more to send carry over
//!    to its next turn (less than one PDU).
//! 3. A block is lost with probability `bler`, i.i.d. (our choice 10%); a
//!    received block's PDUs reach the UE at the end of the TTI plus
//!    `air_delay`.
//!
//! Max-SIR (`max_ci`) ranks users by their SIR; the other schedulers see the
//! rate of the user's format (proportional fair: over the user's average
//! served rate, [`RateAverage`]). Work per TTI is O(backlogged users +
//! cells) (a scheduler visits only its cell's schedulable users; and a word
//! per 64 users to find the backlogged ones; a user's SIR is computed once
//! per channel update and set of interfering cells, [`SirMemo`]); nothing
//! is allocated once the buffers have grown.

use super::config::{CellsConfig, OtherCells};
use super::mcs::{self, Mcs};
use super::sir_memo::{Link, SirMemo};
use super::sir_stats::SirStats;
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::busy::Busy;
use crate::radio::cell_summary::{CellSummary, HsDschCell, SystemCell};
use crate::radio::env::handover;
use crate::radio::env::layout::Layout;
use crate::radio::env::mobile::Mobile;
use crate::radio::env::propagation::{db, dbm_to_w, Interference, PathLoss};
use crate::radio::env::track::Track;
use crate::radio::env::Environment;
use crate::radio::ran::hsdpa::channel::HsdpaConfig;
use crate::radio::sap::TxOpportunity;
use crate::radio::scheduler::{AnyScheduler, RateAverage, SchedulerKind, UserView};
use crate::radio::streams::stream_name;
use crate::rlc::Pdu;
use crate::rng::{self, Rng};
use crate::time::{Dur, Time};
use rand::Rng as _;
use serde::Serialize;

/// One user's radio state.
struct Ue {
    place: Mobile,
    /// Path gain to each base station, linear, as of the last channel update.
    gain: Vec<f64>,
    /// Channel updates so far (each one changes the gains, and may change the cell).
    channel: u64,
    /// The links computed since the last channel update, per set of interfering cells.
    memo: SirMemo,
    cell: usize,
    /// The cell whose scheduler view holds this user.
    view_cell: usize,
    /// The first TTI (index) in which the user may be scheduled (after a handover).
    ready: u64,
    /// The user's SIR, its bin in the cell's SIR distribution, and its format in this TTI.
    link: Link,
    /// Unused bytes of the user's last share (< one PDU).
    carry: f64,
    /// Its served rate, averaged for the proportional fair scheduler.
    average: RateAverage,
    /// PDUs on their way to the UE.
    air: AirLine,
    handovers: u64,
    rng: Rng,
}

/// A cell's counters: `summary.cells[]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct HsCellStats {
    /// TTIs in which the cell sent a block (new or again).
    pub ttis_on_air: u64,
    /// Users served (new blocks; several per TTI with code multiplexing).
    pub users_served: u64,
    /// New blocks sent, and blocks lost (each loss is sent again).
    pub blocks: u64,
    pub blocks_lost: u64,
    /// Handovers into the cell.
    pub handovers_in: u64,
    /// New blocks' user shares by format (index into the table: QPSK 1/4 … 16QAM 5/8).
    pub mcs_use: [u64; 4],
    /// RLC PDU bytes carried by received blocks.
    pub bytes: u64,
}

struct HsCell {
    scheduler: AnyScheduler,
    views: Vec<UserView>,
    /// Whether it transmitted in the last TTI (its interference in this one).
    on_air: bool,
    /// A lost block, to send again.
    retx: Block,
    /// Users it may schedule in this TTI, in increasing order (none: its scheduler is not asked).
    schedulable: Vec<usize>,
    stats: HsCellStats,
    sir: SirStats,
}

pub struct HsDsch {
    cfg: CellsConfig,
    env: Environment,
    layout: Layout,
    path: PathLoss,
    intf: Interference,
    table: Vec<Mcs>,
    scheduler: SchedulerKind,
    tti: Dur,
    air_delay: Dur,
    pdu_bytes: f64,
    ues: Vec<Ue>,
    cells: Vec<HsCell>,
    /// Block errors.
    rng: Rng,
    busy: Busy,
    /// The users considered in this TTI (the busy ones, in increasing order).
    backlogged: Vec<usize>,
    block: Block,
}

/// A block's RLC PDUs in the order the users' bearers gave them, and whose
/// they are: `users` lists each user with its number of PDUs, in that order.
#[derive(Debug, Default)]
struct Block {
    users: Vec<(usize, usize)>,
    pdus: Vec<Pdu>,
}

impl Block {
    fn is_empty(&self) -> bool {
        self.pdus.is_empty()
    }

    /// Moves `other`'s PDUs to the end of this block.
    fn append(&mut self, other: &mut Block) {
        self.users.append(&mut other.users);
        self.pdus.append(&mut other.pdus);
    }
}

impl HsDsch {
    /// The system of `cfg` in `env` for `users` users with `hsdpa`'s scheduler, TTI,
    /// air delay and averaging window, RLC PDUs of `pdu_bytes`; run seed `seed`
    /// (streams `radio.hsdsch` and each user's `radio[.ue<u>].move`).
    pub fn new(
        cfg: &CellsConfig,
        env: &Environment,
        users: usize,
        hsdpa: &HsdpaConfig,
        pdu_bytes: u64,
        seed: u64,
    ) -> HsDsch {
        let (scheduler, tti, air_delay) = (hsdpa.scheduler, hsdpa.tti, hsdpa.air_delay);
        let window = (hsdpa.average_window.0 / tti.0.max(1)).clamp(1, u32::MAX as u64) as u32;
        let layout = env.layout();
        let mut s = HsDsch {
            cfg: cfg.clone(),
            env: env.clone(),
            path: env.path_loss,
            intf: Interference {
                orthogonality_loss: cfg.orthogonality_loss,
                self_interference: cfg.self_interference,
                noise_w: dbm_to_w(env.noise_dbm.expect("the HS-DSCH environment's noise")),
            },
            table: mcs::table(cfg.codes, tti.as_secs_f64()),
            scheduler,
            tti,
            air_delay,
            pdu_bytes: pdu_bytes as f64,
            ues: Vec::with_capacity(users),
            cells: (0..layout.cells())
                .map(|_| HsCell {
                    scheduler: scheduler.build(),
                    views: vec![UserView::default(); users],
                    on_air: false,
                    retx: Block::default(),
                    schedulable: Vec::new(),
                    stats: HsCellStats::default(),
                    sir: SirStats::default(),
                })
                .collect(),
            rng: rng::stream(seed, "radio.hsdsch"),
            busy: Busy::new(users),
            backlogged: Vec::new(),
            block: Block::default(),
            layout,
        };
        for u in 0..users {
            let mut rng = rng::stream(seed, &stream_name(u as u32, "move"));
            let track = Track::start(&s.layout, Time::ZERO, s.speeds(), &mut rng);
            let shadow = env.shadowing(s.layout.cells(), &mut rng);
            s.ues.push(Ue {
                place: Mobile::new(track, shadow),
                gain: vec![0.0; s.layout.cells()],
                channel: 0,
                memo: SirMemo::default(),
                cell: 0,
                view_cell: 0,
                ready: 0,
                link: Link::NONE,
                carry: 0.0,
                average: RateAverage::new(window),
                air: AirLine::default(),
                handovers: 0,
                rng,
            });
            s.update_channel(u);
            s.ues[u].cell = s.serving(u);
        }
        s
    }

    /// The cell that serves user `u` where it is now (`attach`).
    fn serving(&self, u: usize) -> usize {
        let ue = &self.ues[u];
        handover::serving(self.cfg.attach, &self.layout, ue.place.track.position(), &ue.gain)
    }

    fn speeds(&self) -> (f64, f64) {
        (self.env.speed_min, self.env.speed_max)
    }

    /// Places user `u` at `track` (tests, and a scenario's fixed user).
    pub fn place(&mut self, u: usize, track: Track) {
        self.ues[u].place.track = track;
        self.update_channel(u);
        self.ues[u].cell = self.serving(u);
    }

    /// A new session of user `u` at `now`: a new position, direction, speed and shadowing (no handover cost).
    pub fn new_session(&mut self, now: Time, u: usize) {
        let speeds = self.speeds();
        let ue = &mut self.ues[u];
        let track = Track::start(&self.layout, now, speeds, &mut ue.rng);
        ue.place.restart(track, &mut ue.rng);
        self.update_channel(u);
        let cell = self.serving(u);
        let ue = &mut self.ues[u];
        ue.cell = cell;
        ue.ready = 0;
        ue.carry = 0.0;
    }

    /// Recomputes user `u`'s path gains at its position and shadowing.
    fn update_channel(&mut self, u: usize) {
        let ue = &mut self.ues[u];
        ue.channel += 1;
        ue.place.gains(&self.layout, &self.path, &mut ue.gain);
    }

    /// Moves user `u` on to `now` (TTI `k`): channel, handover.
    fn move_user(&mut self, u: usize, now: Time, k: u64) {
        let ue = &mut self.ues[u];
        if !ue.place.advance(&self.layout, now, self.env.channel_step, &mut ue.rng) {
            return;
        }
        self.update_channel(u);
        let best = self.serving(u);
        let ue = &mut self.ues[u];
        if best != ue.cell {
            ue.cell = best;
            ue.ready = k + 1; // a handover costs one transmission opportunity
            ue.carry = 0.0;
            ue.handovers += 1;
            self.cells[best].stats.handovers_in += 1;
        }
    }

    /// User `u`'s SIR (linear) in its cell with the other cells in `on_air` (bit c: cell c) sending.
    fn sir(&self, u: usize, on_air: u64) -> f64 {
        let ue = &self.ues[u];
        let p = self.cfg.power_w;
        let other: f64 =
            (0..self.cells.len()).filter(|&c| c != ue.cell && on_air >> c & 1 == 1).map(|c| p * ue.gain[c]).sum();
        self.intf.sir(p, p, ue.gain[ue.cell], other)
    }

    /// User `u`'s link with the other cells in `on_air` sending: as computed
    /// before for the same channel update and interferers, else computed now.
    fn link(&mut self, u: usize, on_air: u64) -> Link {
        let ue = &self.ues[u];
        let (channel, others) = (ue.channel, on_air & !(1 << ue.cell));
        if let Some(link) = ue.memo.get(channel, others) {
            return link;
        }
        let sir = self.sir(u, others);
        let sir_db = db(sir);
        let mcs = mcs::select(&self.table, sir_db).map(|m| m.index);
        let link = Link { sir, sir_db, bin: SirStats::bin(sir_db), mcs };
        self.ues[u].memo.put(channel, others, link);
        link
    }

    /// Records whether user `u`'s RNC has data (then it is considered each
    /// TTI; an idle user leaves its cell's scheduler view at once).
    pub fn set_busy(&mut self, u: usize, busy: bool) {
        self.busy.set(u, busy);
        if !busy {
            self.cells[self.ues[u].view_cell].views[u].backlog_bytes = 0;
        }
    }

    /// Whether a TTI is needed: some RNC has data or a block waits to be sent again.
    pub fn needs_tti(&self) -> bool {
        self.busy.any() || self.cells.iter().any(|c| !c.retx.is_empty())
    }

    /// The TTI's length.
    pub fn tti_len(&self) -> Dur {
        self.tti
    }

    /// One TTI at `now`: the users whose bearers gave PDUs, and (with the time)
    /// those whose air line was empty and needs a `DownArrive` event, go to `served`.
    pub fn tti(&mut self, now: Time, bearers: &mut [Bearer], served: &mut Vec<(usize, Option<Time>)>) {
        served.clear();
        let k = now.0 / self.tti.0;
        let mut on_air = 0u64;
        for (c, cell) in self.cells.iter_mut().enumerate() {
            cell.schedulable.clear();
            on_air |= (cell.on_air as u64) << c;
        }
        if self.cfg.interference == OtherCells::Full {
            on_air = (1 << self.cells.len()) - 1;
        }
        let mut backlogged = std::mem::take(&mut self.backlogged);
        backlogged.clear();
        backlogged.extend(self.busy.iter());
        for &u in &backlogged {
            let vc = self.ues[u].view_cell;
            self.move_user(u, now, k);
            let link = self.link(u, on_air);
            let ue = &mut self.ues[u];
            ue.link = link;
            let cell = ue.cell;
            self.cells[cell].sir.record(link.bin, link.sir_db);
            self.cells[vc].views[u].backlog_bytes = 0;
            ue.view_cell = cell;
            let schedulable = link.mcs.is_some() && k >= ue.ready;
            let rate = link.mcs.map_or(0.0, |m| self.table[m].rate_bps);
            if schedulable {
                self.cells[cell].schedulable.push(u);
            }
            self.cells[cell].views[u] = UserView {
                backlog_bytes: schedulable as u64,
                rate_bps: if self.scheduler == SchedulerKind::MaxCi { link.sir } else { rate },
                avg_bps: if self.scheduler.uses_average() { ue.average.value(k) } else { 0.0 },
                priority: 0,
            };
        }
        self.backlogged = backlogged;
        let at = now + self.tti + self.air_delay;
        for c in 0..self.cells.len() {
            let sent = if self.cells[c].retx.is_empty() {
                self.new_block(c, now, bearers, served)
            } else {
                self.block.append(&mut self.cells[c].retx);
                true
            };
            self.cells[c].on_air = sent;
            if !sent {
                continue;
            }
            let cell = &mut self.cells[c];
            cell.stats.ttis_on_air += 1;
            if self.cfg.bler > 0.0 && self.rng.random::<f64>() < self.cfg.bler {
                cell.stats.blocks_lost += 1;
                cell.retx.append(&mut self.block);
                continue;
            }
            cell.stats.bytes += self.block.pdus.len() as u64 * self.pdu_bytes as u64;
            let mut pdus = self.block.pdus.drain(..);
            for (u, n) in self.block.users.drain(..) {
                for pdu in pdus.by_ref().take(n) {
                    if self.ues[u].air.push(at, pdu) {
                        served.push((u, Some(at)));
                    }
                }
            }
        }
    }

    /// Cell `c`'s new block at `now` into `self.block`: up to `users_per_tti`
    /// users in the scheduler's order share the codes. Returns whether it holds anything.
    fn new_block(
        &mut self,
        c: usize,
        now: Time,
        bearers: &mut [Bearer],
        served: &mut Vec<(usize, Option<Time>)>,
    ) -> bool {
        let cell = &mut self.cells[c];
        if cell.schedulable.is_empty() {
            return false;
        }
        // One pick at a time, so that round robin's turn moves past the users
        // served only: a pick leaves the view for the rest of the TTI (the views
        // are rebuilt every TTI), and after the first only users whose own block
        // at the share left holds a PDU are candidates (the fraction of a PDU a
        // user carries does not make it one, or a user served in an earlier TTI
        // would take the leftover and move the turn back).
        let mut share = 1.0;
        for pick in 0..self.cfg.users_per_tti {
            if share <= 0.0 {
                break;
            }
            // (Only the cell's schedulable users have a backlog in its views; once
            // none is left, the scheduler would pick nobody.)
            if pick > 0 {
                let mut left = false;
                for &v in &cell.schedulable {
                    if cell.views[v].backlog_bytes == 0 {
                        continue;
                    }
                    let full = self.ues[v].link.mcs.map_or(0.0, |m| self.table[m].block_bytes as f64);
                    if (full * share).floor() < self.pdu_bytes {
                        cell.views[v].backlog_bytes = 0;
                    } else {
                        left = true;
                    }
                }
                if !left {
                    break;
                }
            }
            let Some((u, _)) = cell.scheduler.next_served_listed(now, &mut cell.views, &cell.schedulable) else {
                break;
            };
            let ue = &mut self.ues[u];
            let m = ue.link.mcs.expect("a schedulable user has a format");
            let full = self.table[m].block_bytes as f64;
            let allowed = full * share + ue.carry;
            // Whole PDUs: as many as fit in `allowed` (k PDUs fit iff k · PDU ≤ ⌊allowed⌋).
            let op = TxOpportunity { bytes: allowed.floor() as u64 };
            let from = self.block.pdus.len();
            let given = bearers[u].transmit_down(now, op, &mut self.block.pdus);
            let added = self.block.pdus.len() - from;
            if added > 0 {
                self.block.users.push((u, added));
            }
            let used = given as f64 * self.pdu_bytes;
            let dry = given < op.bytes / self.pdu_bytes as u64;
            ue.carry = if dry { 0.0 } else { allowed - used };
            if used == 0.0 {
                if dry {
                    // Its RLC had nothing after all (a PDCP discipline dropped the waiting
                    // packets at their hand-over): settled as served, it is no longer busy.
                    served.push((u, None));
                }
                continue;
            }
            share -= (used / full).min(share);
            if self.scheduler.uses_average() {
                ue.average.serve(now.0 / self.tti.0, used * 8.0 / self.tti.as_secs_f64());
            }
            served.push((u, None));
            cell.stats.users_served += 1;
            cell.stats.mcs_use[m] += 1;
        }
        if self.block.is_empty() {
            return false;
        }
        cell.stats.blocks += 1;
        true
    }

    /// The air line to user `u`.
    pub fn air(&mut self, u: usize) -> &mut AirLine {
        &mut self.ues[u].air
    }

    /// The rate of the top format (what each bearer's discipline is told).
    pub fn top_rate_bps(&self) -> f64 {
        self.table.last().map_or(0.0, |m| m.rate_bps)
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// User `u`'s cell now.
    pub fn cell_of(&self, u: usize) -> usize {
        self.ues[u].cell
    }

    /// User `u`'s handovers so far.
    pub fn handovers(&self, u: usize) -> u64 {
        self.ues[u].handovers
    }

    /// Cell `c`'s counters.
    pub fn cell_stats(&self, c: usize) -> HsCellStats {
        self.cells[c].stats
    }

    /// Cell `c`'s row of the summary for a run that ends at `end` (`goodput_bps` is the caller's).
    pub fn cell_summary(&self, c: usize, end: Time) -> CellSummary {
        let (s, secs) = (&self.cells[c].stats, end.as_secs_f64().max(1e-9));
        let ttis = (end.0 / self.tti.0.max(1)).max(1) as f64;
        CellSummary {
            cell: c as u32,
            users: self.ues.iter().filter(|u| u.cell == c).count() as u32,
            downlink: "hsdsch",
            scheduler: Some(self.scheduler.name()),
            tti_utilisation: Some(s.ttis_on_air as f64 / ttis),
            users_per_tti: Some(s.users_served as f64 / s.blocks.max(1) as f64),
            system: Some(SystemCell::HsDsch(HsDschCell {
                sir_db: self.cells[c].sir.summary(),
                mcs_use: s.mcs_use,
                blocks_lost: s.blocks_lost,
                handovers_in: s.handovers_in,
                air_bps: s.bytes as f64 * 8.0 / secs,
            })),
            ..CellSummary::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `attach = "strongest"`: every user is served by the site with its highest path gain;
    /// with 8 dB of shadowing that is not the nearest one for a good share of positions, and
    /// without shadowing it always is.
    #[test]
    fn strongest_attachment_follows_the_highest_gain() {
        let hsdpa = HsdpaConfig::default();
        let cfg = CellsConfig { attach: crate::radio::env::handover::Attach::Strongest, ..CellsConfig::default() };
        let h = HsDsch::new(&cfg, &cfg.environment("radio.cells", None).unwrap(), 500, &hsdpa, 42, 3);
        let mut other = 0;
        for ue in &h.ues {
            let best = (0..h.cells()).max_by(|&a, &b| ue.gain[a].total_cmp(&ue.gain[b])).unwrap();
            assert_eq!(ue.cell, best);
            other += (ue.cell != h.layout.nearest(ue.place.track.position())) as usize;
        }
        assert!((50..250).contains(&other), "{other} of 500 not at the nearest site");
        let flat = CellsConfig { env: toml::from_str("shadowing_sigma = 0.0").unwrap(), ..cfg };
        let h = HsDsch::new(&flat, &flat.environment("radio.cells", None).unwrap(), 200, &hsdpa, 42, 3);
        assert!(h.ues.iter().all(|ue| ue.cell == h.layout.nearest(ue.place.track.position())));
    }

    /// A user's link, remembered or not, is what its SIR computed afresh gives: for
    /// any cells on air (its own counting or not), across channel updates and handovers.
    #[test]
    fn a_remembered_link_is_the_one_computed_afresh() {
        let (hsdpa, cfg) = (HsdpaConfig::default(), CellsConfig::default());
        let mut h = HsDsch::new(&cfg, &cfg.environment("radio.cells", None).unwrap(), 20, &hsdpa, 42, 3);
        let mut rng = rng::stream(1, "links");
        let all = (1u64 << h.cells()) - 1;
        for k in 1..=1_000 {
            let now = Time::ZERO + Dur::from_millis(100 * k);
            for u in 0..20 {
                h.move_user(u, now, k);
                for _ in 0..4 {
                    let on_air = rng.random::<u64>() & all;
                    let sir = h.sir(u, on_air);
                    let sir_db = db(sir);
                    let mcs = mcs::select(&h.table, sir_db).map(|m| m.index);
                    assert_eq!(h.link(u, on_air), Link { sir, sir_db, bin: SirStats::bin(sir_db), mcs });
                }
            }
        }
        let updates: u64 = h.ues.iter().map(|ue| ue.channel).sum();
        let handovers: u64 = h.ues.iter().map(|ue| ue.handovers).sum();
        assert!(updates > 20 * 20 && handovers > 0, "{updates} channel updates, {handovers} handovers");
    }
}
