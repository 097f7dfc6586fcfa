//! The DSCH system of the DSCH study (Ferrús et al.): 37 wrapped hexagonal cells, each
//! running the prioritised resource manager every 10 ms frame over its
//! conversational DCH users and its interactive DSCH users (the emulated web
//! users and the scenario's users under test, whose bearers give the PDUs).
//!
//! Each frame, in this order:
//! 1. every `handover_period` (100 ms) all users move on (random direction at
//!    3 km/h; the channel recomputed after each `channel_step` of travel) and
//!    hand over to the best cell with the hysteresis ([`best_cell`]);
//! 2. traffic: a finished call is replaced by a new caller at a uniform
//!    position; a conversational TTI brings one 160-byte SDU (2 blocks);
//!    web packets due arrive in their users' RLC buffers (cut into ≤ 570 B
//!    SDUs, tail drop);
//! 3. every cell's manager ([`Rrm::frame`]) admits the interactive users
//!    whose 20 ms TTI starts in the frame (a user's TTIs start on even or odd
//!    frames, by its index: *choice*), over the links it carries: every
//!    conversational user of the cell and the interactive TTIs begun in the
//!    previous frame; a user with data that does not ask earns its credit;
//! 4. power control: each link's power from eq. (1) with the interference
//!    of the previous frame ([`power::power`]); a cell's total (with the
//!    common channels) is capped at P_max by scaling its links' powers
//!    (*choice*);
//! 5. each link's achieved Eb/N0 against this frame's interference gives the
//!    frame's BLER ([`power::bler`]); at a TTI's end each of its blocks is
//!    lost with the mean BLER of its two frames (*choice*), i.i.d.: a
//!    conversational SDU is lost if either block is; a web user's blocks go
//!    to its block-level RLC ([`BlockRlc`]), and once its RLC holds none of
//!    its packet call's SDUs its reading time starts ([`WebSource::settled`]);
//!    a user under test's PDUs reach its UE at the TTI's end (a lost block's
//!    PDU is lost: RLC AM recovers).
//!
//! Work per frame is O(users + cells) plus the interference sums, O(cells) for
//! each link on air; nothing is allocated once the scratch lists have grown.

use super::blocks::{BlockRlc, Fate};
use super::checks::{Codes, Link, Load};
use super::config::DschConfig;
use super::power;
use super::rrm::{FrameStats, Limits, Request, Rrm};
use super::stats::{CellCounters, Counters, DschSummary};
use super::transport_format::{Tf, FRAME, PAYLOAD_BITS};
use super::web::{split, WebSource};
use crate::radio::air::AirLine;
use crate::radio::bearer::Bearer;
use crate::radio::cell_summary::{CellSummary, DschCell, SystemCell};
use crate::radio::env::handover::best_cell;
use crate::radio::env::layout::Layout;
use crate::radio::env::mobile::Mobile;
use crate::radio::env::propagation::{dbm_to_w, PathLoss};
use crate::radio::env::track::Track;
use crate::radio::env::Environment;
use crate::radio::pending::Pending;
use crate::radio::sap::{BufferStatus, TxOpportunity};
use crate::radio::streams::stream_name;
use crate::rlc::Pdu;
use crate::rng::{self, Rng};
use crate::time::Time;
use rand::Rng as _;

/// The central cell, where the measures are taken.
pub const CENTRE: usize = 0;
/// Spreading factor of a 64 kb/s conversational DCH.
const CONVERSATIONAL_SF: u32 = 32;
/// Blocks of a conversational TTI (one 160-byte SDU in two 640-bit blocks).
const CONVERSATIONAL_BLOCKS: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A scenario user: its bearer (same index) gives the PDUs.
    Test,
    Conversational,
    Web,
}

/// What every frame reads and writes of a user, kept small: the frame's
/// loops stream over every user (where it is and how it moves, its path
/// gains and its traffic are held apart, read only when needed).
struct User {
    kind: Kind,
    cell: usize,
    /// Its TTIs start on frames of this parity.
    phase: u64,
    /// The link of the current TTI: spreading factor (0: none) and blocks sent.
    sf: u32,
    blocks: u32,
    /// This frame's power, and Σ_c P_c g_c of the last frame it was on air (`None`: not on air then).
    power: f64,
    weighted: Option<f64>,
    bler_sum: f64,
    /// Bits sent in the previous frame (the credit's measure).
    sent_last_frame: u64,
}

/// Where a user is and how it moves (read every handover period), and when its call ends.
struct Mover {
    place: Mobile,
    call_end: Time,
    rng: Rng,
}

/// An emulated web user's source and block-level RLC.
struct Emulated {
    source: WebSource,
    rlc: BlockRlc,
}

impl User {
    fn interactive(&self) -> bool {
        self.kind != Kind::Conversational
    }

    fn eb_n0(&self, targets: &[f64; 2]) -> f64 {
        targets[self.interactive() as usize]
    }
}

/// Where SDU fates are counted: the central cell's counters, or nowhere.
struct SduFates<'a> {
    counters: Option<&'a mut Counters>,
    now: Time,
}

impl Fate for SduFates<'_> {
    fn sdu(&mut self, arrived: Time, bytes: u32, lost: bool) {
        if let Some(c) = &mut self.counters {
            c.web_sdus += 1;
            if lost {
                c.web_lost += 1;
            } else {
                c.delivered(self.now.since(arrived).as_secs_f64(), bytes);
            }
        }
    }
}

pub struct DschSystem {
    cfg: DschConfig,
    env: Environment,
    layout: Layout,
    path: PathLoss,
    noise_w: f64,
    max_w: f64,
    /// Eb/N0 targets (linear): conversational, interactive.
    targets: [f64; 2],
    blers: [f64; 2],
    hysteresis: f64,
    users: Vec<User>,
    mobiles: Vec<Mover>,
    /// Path gains, linear: user u's to cell c at `u · cells + c`.
    gains: Vec<f64>,
    /// The web users (user `first_web + w` is `web[w]`).
    web: Vec<Emulated>,
    first_web: usize,
    /// Each user under test's PDUs of its TTI.
    pdus: Vec<Vec<Pdu>>,
    rrm: Rrm,
    /// Cell powers of the previous frame and this one, W.
    prev_powers: Vec<f64>,
    powers: Vec<f64>,
    /// Per cell: the frame's requests, load and codes, and the power scale.
    requests: Vec<Vec<Request>>,
    load: Vec<Load>,
    codes: Vec<Codes>,
    scale: Vec<f64>,
    counters: Counters,
    /// Every cell's DSCH, and the frames run.
    cell_counters: Vec<CellCounters>,
    frames: u64,
    /// Block errors.
    rng: Rng,
    /// Each user under test's PDUs on their way to the UE.
    air: Vec<AirLine>,
    pending: Pending,
}

impl DschSystem {
    /// The system of `cfg` in `env` with `tests` users under test (the scenario's users,
    /// indices 0 … tests − 1), then the conversational and the web users; run
    /// seed `seed` (streams `radio.dsch`, each user's `radio[.ue<u>].move` and
    /// each web user's `radio.ue<u>.web`).
    pub fn new(cfg: &DschConfig, env: &Environment, tests: usize, seed: u64) -> DschSystem {
        let layout = env.layout();
        let n = tests + cfg.conversational_users as usize + cfg.web_users as usize;
        let cells = layout.cells();
        let db = |x: f64| 10f64.powf(x / 10.0);
        let mut s = DschSystem {
            path: env.path_loss,
            noise_w: dbm_to_w(env.noise_dbm.expect("the DSCH environment's noise")),
            max_w: cfg.max_power_w(),
            targets: [db(cfg.conversational_eb_n0_db), db(cfg.interactive_eb_n0_db)],
            blers: [cfg.conversational_bler, cfg.interactive_bler],
            hysteresis: db(cfg.hysteresis_db),
            users: Vec::with_capacity(n),
            mobiles: Vec::with_capacity(n),
            gains: vec![0.0; n * cells],
            web: Vec::with_capacity(cfg.web_users as usize),
            first_web: tests + cfg.conversational_users as usize,
            pdus: vec![Vec::new(); tests],
            rrm: Rrm::new(n),
            prev_powers: vec![cfg.common_power_w; cells],
            powers: vec![cfg.common_power_w; cells],
            requests: vec![Vec::new(); cells],
            load: vec![Load::default(); cells],
            codes: vec![Codes::default(); cells],
            scale: vec![1.0; cells],
            counters: Counters::default(),
            cell_counters: vec![CellCounters::default(); cells],
            frames: 0,
            rng: rng::stream(seed, "radio.dsch"),
            air: vec![AirLine::default(); tests],
            pending: Pending::default(),
            cfg: cfg.clone(),
            env: env.clone(),
            layout,
        };
        for u in 0..n {
            let kind = match u {
                _ if u < tests => Kind::Test,
                _ if u < tests + cfg.conversational_users as usize => Kind::Conversational,
                _ => Kind::Web,
            };
            let mut rng = rng::stream(seed, &stream_name(u as u32, "move"));
            let shadow = env.shadowing(cells, &mut rng);
            let pos = match kind {
                Kind::Test if !cfg.test_cells.is_empty() => loop {
                    let p = s.layout.place_uniform(&mut rng);
                    if s.layout.nearest(p) == cfg.test_cells[u % cfg.test_cells.len()] as usize {
                        break p;
                    }
                },
                _ => s.layout.place_uniform(&mut rng),
            };
            let track = Track::heading(pos, Time::ZERO, env.speed_max, &mut rng);
            let call_end = match kind {
                Kind::Conversational => Time::ZERO + cfg.call_duration.dur(&mut rng),
                _ => Time::MAX,
            };
            if kind == Kind::Web {
                let source = WebSource::new(&cfg.web, Time::ZERO, rng::stream(seed, &stream_name(u as u32, "web")));
                s.web.push(Emulated { source, rlc: BlockRlc::default() });
            }
            s.mobiles.push(Mover { place: Mobile::new(track, shadow), call_end, rng });
            s.users.push(User {
                kind,
                cell: 0,
                phase: u as u64 % 2,
                sf: 0,
                blocks: 0,
                power: 0.0,
                weighted: None,
                bler_sum: 0.0,
                sent_last_frame: 0,
            });
            s.update_channel(u);
            s.users[u].cell = best_cell(s.gain(u), 0, 1.0);
        }
        s
    }

    /// User `u`'s path gain to each cell, linear.
    fn gain(&self, u: usize) -> &[f64] {
        let cells = self.layout.cells();
        &self.gains[u * cells..(u + 1) * cells]
    }

    /// Recomputes user `u`'s path gains at its position and shadowing.
    fn update_channel(&mut self, u: usize) {
        let cells = self.layout.cells();
        self.mobiles[u].place.gains(&self.layout, &self.path, &mut self.gains[u * cells..(u + 1) * cells]);
    }

    /// Moves every user on to `now` and hands over where the best cell is `hysteresis` better.
    fn move_users(&mut self, now: Time) {
        for u in 0..self.users.len() {
            let m = &mut self.mobiles[u];
            if m.place.advance(&self.layout, now, self.env.channel_step, &mut m.rng) {
                self.update_channel(u);
            }
            let cell = best_cell(self.gain(u), self.users[u].cell, self.hysteresis);
            if cell != self.users[u].cell {
                self.users[u].cell = cell;
                self.cell_counters[cell].handovers_in += 1;
            }
        }
    }

    /// A conversational user's call ended at `now`: a new caller at a uniform position.
    fn replace_call(&mut self, u: usize, now: Time) {
        let m = &mut self.mobiles[u];
        let pos = self.layout.place_uniform(&mut m.rng);
        let track = Track::heading(pos, now, self.env.speed_max, &mut m.rng);
        m.place.restart(track, &mut m.rng);
        m.call_end = now + self.cfg.call_duration.dur(&mut m.rng);
        self.update_channel(u);
        self.users[u].cell = best_cell(self.gain(u), 0, 1.0);
    }

    /// The frame at `now`, then the next one asked for.
    pub fn next_frame(&self, now: Time) -> Time {
        Time(now.0 / FRAME.0 * FRAME.0) + FRAME
    }

    /// Whether `at` is the pending frame to ask for (not one already asked for).
    pub fn want(&mut self, at: Time) -> bool {
        self.pending.want(at)
    }

    /// Whether the frame event at `now` is the live one (and marks it done).
    pub fn due(&mut self, now: Time) -> bool {
        self.pending.due(now)
    }

    /// The bits a user under test asks for, from its bearer's buffer status: its
    /// RLC's backlog in PDUs of `pdu_bytes` (the new bytes over the PDU's payload,
    /// the retransmissions, and one more for control and a partial PDU).
    fn request_bits(s: BufferStatus, pdu_bytes: u64) -> u64 {
        if !s.ready {
            return 0;
        }
        let pdus = s.new_bytes.div_ceil(pdu_bytes.saturating_sub(2).max(1)) + s.retx_pdus + 1;
        pdus * PAYLOAD_BITS as u64
    }

    /// One frame at `now`. `bearers` are the users under test's; those a TTI
    /// served, and (with the time) those whose air line was empty and needs a
    /// `DownArrive` event, go to `served`.
    pub fn frame(
        &mut self,
        now: Time,
        bearers: &mut [Bearer],
        pdu_bytes: u64,
        served: &mut Vec<(usize, Option<Time>)>,
    ) {
        served.clear();
        self.frames += 1;
        let f = now.0 / FRAME.0;
        if f == self.cfg.warmup.0 / FRAME.0 {
            self.counters = Counters::default(); // the warm-up ends
        }
        if now.0.is_multiple_of(self.cfg.handover_period.0) {
            self.move_users(now);
        }
        // 2. Traffic.
        let (limit, max_sdu) = (self.cfg.web_buffer.0, self.cfg.max_sdu.0 as u32);
        // The conversational users follow the users under test (one PDU list each).
        for u in self.pdus.len()..self.first_web {
            if now >= self.mobiles[u].call_end {
                self.replace_call(u, now);
            }
        }
        for (w, e) in self.web.iter_mut().enumerate() {
            let central = self.users[self.first_web + w].cell == CENTRE;
            while e.source.next() <= now {
                let at = e.source.next();
                let bytes = e.source.pop(&self.cfg.web);
                let (rlc, c) = (&mut e.rlc, &mut self.counters);
                if central {
                    c.web_offered_bytes += bytes as u64;
                }
                split(bytes, max_sdu, |n| {
                    if !rlc.arrive(at, n, limit) && central {
                        c.web_sdus += 1;
                        c.web_lost += 1;
                        c.web_overflow += 1;
                    }
                });
            }
        }
        // 3. Each cell's manager.
        for c in 0..self.layout.cells() {
            self.requests[c].clear();
            self.load[c] = Load::default();
            self.codes[c] = Codes::default();
        }
        let cells = self.layout.cells();
        for (u, ue) in self.users.iter_mut().enumerate() {
            if ue.cell == CENTRE {
                self.counters.present(ue.kind == Kind::Conversational, ue.kind == Kind::Web);
            }
            let starts = f % 2 == ue.phase;
            let (eb_n0, loss) = (ue.eb_n0(&self.targets), 1.0 / self.gains[u * cells + ue.cell]);
            let link = |sf| Link { sf, eb_n0, loss };
            match ue.kind {
                Kind::Conversational => {
                    if starts {
                        ue.sf = CONVERSATIONAL_SF;
                        ue.blocks = CONVERSATIONAL_BLOCKS;
                    }
                    self.load[ue.cell] = self.load[ue.cell].with(&link(CONVERSATIONAL_SF));
                }
                _ if !starts => {
                    if ue.sf > 0 {
                        self.load[ue.cell] = self.load[ue.cell].with(&link(ue.sf));
                        self.codes[ue.cell] = self.codes[ue.cell].with(ue.sf);
                    }
                    let has_data = match ue.kind {
                        Kind::Web => self.web[u - self.first_web].rlc.pending_bits() > 0,
                        _ => bearers[u].buffer_status(now).ready,
                    };
                    if has_data {
                        self.rrm.accrue(u, ue.sent_last_frame);
                    }
                }
                _ => {
                    ue.sf = 0;
                    let buffer_bits = match ue.kind {
                        Kind::Web => self.web[u - self.first_web].rlc.pending_bits(),
                        _ => Self::request_bits(bearers[u].buffer_status(now), pdu_bytes),
                    };
                    if buffer_bits > 0 {
                        let sent_last_frame_bits = ue.sent_last_frame;
                        self.requests[ue.cell].push(Request {
                            user: u,
                            buffer_bits,
                            sent_last_frame_bits,
                            eb_n0,
                            loss,
                        });
                        if ue.kind == Kind::Test {
                            self.counters.test_requests += 1;
                        }
                    }
                }
            }
        }
        let limits = Limits { phi: self.cfg.phi, max_power_w: self.cfg.delta * self.max_w, noise_w: self.noise_w };
        let mut other = FrameStats::default();
        for c in 0..self.layout.cells() {
            let stats = if c == CENTRE { &mut self.counters.rrm } else { &mut other };
            let granted = self.rrm.frame(&limits, &mut self.load[c], &mut self.codes[c], &self.requests[c], stats);
            for &(u, tf) in granted {
                let ue = &mut self.users[u];
                let sent = match ue.kind {
                    Kind::Web => self.web[u - self.first_web].rlc.send(tf.blocks()),
                    _ => {
                        let pdus = &mut self.pdus[u];
                        pdus.clear();
                        let b = &mut bearers[u];
                        b.transmit_down(now, TxOpportunity::pdus(tf.blocks() as u64, b.pdu_bytes()), pdus);
                        served.push((u, None));
                        self.counters.test_grants += 1;
                        pdus.len() as u32
                    }
                };
                if sent > 0 {
                    ue.sf = tf.sf().expect("granted TFs send");
                    ue.blocks = sent;
                }
                if c == CENTRE {
                    self.counters.dsch_blocks += sent as u64;
                }
                self.cell_counters[c].blocks += sent as u64;
            }
        }
        for ((cell, load), codes) in self.cell_counters.iter_mut().zip(&self.load).zip(&self.codes) {
            cell.eta_sum += load.eta;
            cell.frames_on_air += (codes.users > 0) as u64;
            cell.users_on_air += codes.users as u64;
        }
        let eta = self.load[CENTRE].eta;
        // 4. Power control with the previous frame's interference.
        self.powers.fill(self.cfg.common_power_w);
        for (u, ue) in self.users.iter_mut().enumerate() {
            if ue.sf == 0 {
                ue.weighted = None;
                continue;
            }
            let gain = &self.gains[u * cells..(u + 1) * cells];
            let w = ue.weighted.unwrap_or_else(|| power::weighted(&self.prev_powers, gain));
            let g = gain[ue.cell];
            let i = power::interference(w, self.prev_powers[ue.cell], g, ue.power);
            ue.power = power::power(ue.eb_n0(&self.targets), ue.sf, g, i, self.noise_w);
            self.powers[ue.cell] += ue.power;
        }
        let common = self.cfg.common_power_w;
        for (s, p) in self.scale.iter_mut().zip(self.powers.iter_mut()) {
            *s = if *p > self.max_w { (self.max_w - common) / (*p - common) } else { 1.0 };
            *p = p.min(self.max_w);
        }
        self.counters_frame(eta);
        // 5. Achieved Eb/N0 against this frame's interference; TTIs end.
        let end = now + FRAME;
        for (u, ue) in self.users.iter_mut().enumerate() {
            if ue.sf == 0 {
                ue.power = 0.0;
                ue.sent_last_frame = 0;
                continue;
            }
            ue.power *= self.scale[ue.cell];
            let gain = &self.gains[u * cells..(u + 1) * cells];
            let w = power::weighted(&self.powers, gain);
            let g = gain[ue.cell];
            let i = power::interference(w, self.powers[ue.cell], g, ue.power);
            let achieved = power::achieved(ue.power, ue.sf, g, i, self.noise_w);
            let k = ue.interactive() as usize;
            ue.bler_sum += power::bler(achieved, self.targets[k], self.blers[k], self.cfg.bler_slope_db);
            ue.weighted = Some(w);
            ue.sent_last_frame = ue.blocks as u64 * PAYLOAD_BITS as u64 / 2;
            if f % 2 == ue.phase {
                continue; // the TTI's first frame
            }
            let bler = std::mem::take(&mut ue.bler_sum) / 2.0;
            let central = ue.cell == CENTRE;
            let rng = &mut self.rng;
            let lost_blocks = &mut self.cell_counters[ue.cell].blocks_lost;
            match ue.kind {
                Kind::Conversational => {
                    let lost = (0..ue.blocks).fold(false, |l, _| (rng.random::<f64>() < bler) | l);
                    if central {
                        self.counters.conversational_sdus += 1;
                        self.counters.conversational_lost += lost as u64;
                    }
                }
                Kind::Web => {
                    let max_tx = 1 + self.cfg.max_retransmissions;
                    let mut fates = SduFates { counters: central.then_some(&mut self.counters), now: end };
                    let mut lose = || {
                        let lost = rng.random::<f64>() < bler;
                        *lost_blocks += lost as u64;
                        lost
                    };
                    let e = &mut self.web[u - self.first_web];
                    e.rlc.receive(max_tx, |_| lose(), &mut fates);
                    if e.rlc.bytes() == 0 {
                        e.source.settled(&self.cfg.web, end);
                    }
                }
                Kind::Test => {
                    let air = &mut self.air[u];
                    for pdu in self.pdus[u].drain(..) {
                        if rng.random::<f64>() < bler {
                            *lost_blocks += 1;
                        } else if air.push(end, pdu) {
                            served.push((u, Some(end)));
                        }
                    }
                }
            }
            ue.sf = 0;
            ue.blocks = 0;
        }
        std::mem::swap(&mut self.prev_powers, &mut self.powers);
    }

    fn counters_frame(&mut self, eta: f64) {
        let p = self.powers[CENTRE];
        self.counters.frame(eta, p);
    }

    /// The air line to user under test `u`.
    pub fn air(&mut self, u: usize) -> &mut AirLine {
        &mut self.air[u]
    }

    /// The central cell's measures so far.
    pub fn summary(&self) -> DschSummary {
        self.counters.summary()
    }

    /// User `u`'s cell now.
    pub fn cell_of(&self, u: usize) -> usize {
        self.users[u].cell
    }

    /// Cell `c`'s row of `summary.cells` over the whole run to `end` (its
    /// users at the end, of every kind; `goodput_bps` is the caller's: its
    /// users under test's): the DSCH's frames on air, users per frame on
    /// air, blocks lost, handovers in, payload rate, mean load factor η.
    pub fn cell_summary(&self, c: usize, end: Time) -> CellSummary {
        let s = &self.cell_counters[c];
        let frames = self.frames.max(1) as f64;
        CellSummary {
            cell: c as u32,
            users: self.users.iter().filter(|u| u.cell == c).count() as u32,
            downlink: "dsch",
            scheduler: Some("service_credit"),
            tti_utilisation: Some(s.frames_on_air as f64 / frames),
            users_per_tti: Some(s.users_on_air as f64 / s.frames_on_air.max(1) as f64),
            system: Some(SystemCell::Dsch(DschCell {
                blocks_lost: s.blocks_lost,
                handovers_in: s.handovers_in,
                air_bps: (s.blocks * PAYLOAD_BITS as u64) as f64 / end.as_secs_f64().max(1e-9),
                mean_eta: s.eta_sum / frames,
            })),
            ..CellSummary::default()
        }
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.layout.cells()
    }

    /// The top TF's rate (what a bearer's discipline is told).
    pub fn top_rate_bps(&self) -> f64 {
        Tf::MAX.rate_bps()
    }
}
