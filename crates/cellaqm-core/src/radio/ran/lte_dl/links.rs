//! Each UE's links to every site of a layout of several cells (the LTE
//! downlink with `[radio.environment] layout = "hex7"` or `"hex"`), and the
//! SINR they give it in each TTI. The pieces are the radio environment's
//! ([`crate::radio::env`]); this file puts them together for the downlink:
//!
//! - a UE starts uniform over the layout ([`Layout::place_uniform`]) and moves
//!   on a straight track across the wrapped layout ([`Track`]) at a speed
//!   uniform in [`speed_min`, `speed_max`] in a uniform direction;
//! - its path gain to site c: the path loss of its distance to c's nearest
//!   image (TR 36.942 §4.5) with its shadowing towards c (σ, correlation
//!   between sites, decorrelation along the track:
//!   [`crate::radio::env::shadowing`]), recomputed after each `channel_step`
//!   of travel ([`Mobile`]);
//! - its serving cell: at first the site of the highest path gain; after each
//!   channel step, another site whose gain beats the serving one's by
//!   [`HYSTERESIS_DB`] ([`handover::best_cell`]: the A3 event of TS 36.331
//!   §5.5.4.4, its offset as the hysteresis; *our choice*: 3 dB, no
//!   time-to-trigger);
//! - its SINR in TTI k when served by s:
//!
//!   ```text
//!   SINR = h(k) · P g_s / (N + Σ_{c≠s} ℓ_c(k−1) · P g_c)
//!   ```
//!
//!   with P the eNodeB's power (46 dBm, TR 36.942 §4, every site alike), N
//!   the UE's noise over the bandwidth, h the Rayleigh fading of the serving
//!   link, and ℓ_c(k−1) the share of cell c's resource blocks used in the
//!   previous TTI, 0 if none ran (no UE had data) (*our choice*: a cell
//!   interferes with its power on the blocks it uses, averaged over which
//!   blocks those are; the previous TTI, as in the HS-DSCH system, so that
//!   no SINR depends on this TTI's decisions). Interferers carry no fast fading (*our choice*: their mean
//!   power, path loss and shadowing only, as in the system simulations of
//!   TR 36.942 §4 and TS 36.814 Annex A).
//!
//! Link adaptation turns the SINR into the UE's rate as on one cell
//! ([`Adaptation`], TR 36.942 Annex A).

use crate::radio::env::handover::best_cell;
use crate::radio::env::layout::Layout;
use crate::radio::env::mobile::Mobile;
use crate::radio::env::propagation::{dbm_to_w, PathLoss};
use crate::radio::env::rayleigh::Rayleigh;
use crate::radio::env::track::Track;
use crate::radio::env::Environment;
use crate::radio::lte::capacity::Offer;
use crate::radio::lte::channel::{Adaptation, Budget};
use crate::rng::Rng;
use crate::time::Time;
use rand::Rng as _;

/// How much stronger another site must be to take a UE over, dB (*our choice*; TS 36.331 §5.5.4.4 event A3).
pub const HYSTERESIS_DB: f64 = 3.0;

/// One UE's place, fading and serving cell.
#[derive(Clone, Debug)]
struct Ue {
    place: Mobile,
    fading: Rayleigh,
    /// Path gain to each site, linear, as of the last channel step.
    gain: Vec<f64>,
    cell: usize,
    handovers: u64,
    /// The SINR of the last TTI, linear.
    sinr: f64,
    rng: Rng,
}

/// Every UE's links.
#[derive(Clone, Debug)]
pub struct Links {
    layout: Layout,
    path: PathLoss,
    step: f64,
    power_w: f64,
    noise_w: f64,
    hysteresis: f64,
    adaptation: Adaptation,
    ues: Vec<Ue>,
}

impl Links {
    /// The links in `env` over `bandwidth` Hz on the downlink `budget`, UE u's
    /// place, fading and shadowing drawn from `rngs[u]`.
    pub fn new(env: &Environment, bandwidth: f64, budget: &Budget, rngs: Vec<Rng>) -> Links {
        let layout = env.layout();
        let ues = rngs
            .into_iter()
            .map(|mut rng| {
                let pos = layout.place_uniform(&mut rng);
                let speed = env.speed_min + (env.speed_max - env.speed_min) * rng.random::<f64>();
                let track = Track::heading(pos, Time::ZERO, speed, &mut rng);
                let fading = Rayleigh::new(speed, env.carrier, &mut rng);
                let shadow = env.shadowing(layout.cells(), &mut rng);
                let gain = vec![0.0; layout.cells()];
                Ue { place: Mobile::new(track, shadow), fading, gain, cell: 0, handovers: 0, sinr: 0.0, rng }
            })
            .collect();
        let mut links = Links {
            path: env.path_loss,
            step: env.channel_step,
            power_w: dbm_to_w(budget.tx_power_dbm),
            noise_w: dbm_to_w(budget.noise_dbm(bandwidth)),
            hysteresis: 10f64.powf(HYSTERESIS_DB / 10.0),
            adaptation: Adaptation::new(bandwidth, budget.shannon),
            ues,
            layout,
        };
        for u in 0..links.ues.len() {
            links.attach(u);
        }
        links
    }

    /// UE `u`'s gains where it is now, and the strongest site serving it.
    fn attach(&mut self, u: usize) {
        let ue = &mut self.ues[u];
        ue.place.gains(&self.layout, &self.path, &mut ue.gain);
        ue.cell = best_cell(&ue.gain, 0, 1.0);
    }

    /// Puts UE `u` on `track`, served by its strongest site (tests).
    pub fn place(&mut self, u: usize, track: Track) {
        self.ues[u].place.track = track;
        self.attach(u);
    }

    /// The number of UEs.
    pub fn ues(&self) -> usize {
        self.ues.len()
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.layout.cells()
    }

    /// UE `u`'s serving cell.
    pub fn cell(&self, u: usize) -> usize {
        self.ues[u].cell
    }

    /// UE `u`'s handovers so far.
    pub fn handovers(&self, u: usize) -> u64 {
        self.ues[u].handovers
    }

    /// UE `u`'s SINR in the last TTI, linear.
    pub fn sinr(&self, u: usize) -> f64 {
        self.ues[u].sinr
    }

    /// UE `u`'s SINR without fading (linear) with the cells' `loads`.
    pub fn mean_sinr(&self, u: usize, loads: &[f64]) -> f64 {
        let ue = &self.ues[u];
        let others: f64 = (0..ue.gain.len()).filter(|&c| c != ue.cell).map(|c| loads[c] * ue.gain[c]).sum();
        self.power_w * ue.gain[ue.cell] / (self.noise_w + self.power_w * others)
    }

    /// The TTI at `now`: every UE moves on (a channel step may hand it over:
    /// (UE, from, to) into `moved`) and its rate in `offer` is that of its
    /// SINR with the other cells' `loads` of the previous TTI.
    pub fn open(&mut self, now: Time, loads: &[f64], offer: &mut Offer, moved: &mut Vec<(usize, usize, usize)>) {
        for u in 0..self.ues.len() {
            let ue = &mut self.ues[u];
            if ue.place.advance(&self.layout, now, self.step, &mut ue.rng) {
                ue.place.gains(&self.layout, &self.path, &mut ue.gain);
                let best = best_cell(&ue.gain, ue.cell, self.hysteresis);
                if best != ue.cell {
                    moved.push((u, ue.cell, best));
                    ue.cell = best;
                    ue.handovers += 1;
                }
            }
            let sinr = self.ues[u].fading.gain(now) * self.mean_sinr(u, loads);
            self.ues[u].sinr = sinr;
            offer.set_rate(u, self.adaptation.rate(sinr));
        }
    }
}
