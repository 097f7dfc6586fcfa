//! The central base station's measures of the DSCH study (Ferrús et al.) (Table 3, Fig. 2):
//! the load factor η per frame, the manager's acceptance, SDU errors per
//! service and the interactive SDU delay scaled to a 570-byte SDU; and what
//! explains them: the users in the cell, the web users' demand and what the
//! DSCH carried. An SDU counts at the cell that decides its fate (delivery,
//! loss, overflow); a web packet at the cell of its user when it arrives.

use super::rrm::{Check, FrameStats};
use super::transport_format::{FRAME, PAYLOAD_BITS};
use serde::Serialize;

/// Raw counters at the central cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counters {
    pub frames: u64,
    pub eta_sum: f64,
    pub eta_over_90: u64,
    pub power_sum_w: f64,
    pub rrm: FrameStats,
    pub conversational_sdus: u64,
    pub conversational_lost: u64,
    pub web_sdus: u64,
    pub web_lost: u64,
    pub web_overflow: u64,
    /// Delivered interactive SDUs' delay × 570 B / size: count, Σ, Σ² (s, s²).
    pub delay_n: u64,
    pub delay_sum: f64,
    pub delay_sum2: f64,
    /// The users under test's DSCH requests and grants (any cell).
    pub test_requests: u64,
    pub test_grants: u64,
    /// Conversational and web users in the cell, summed over frames.
    pub calls_sum: u64,
    pub web_users_sum: u64,
    /// Bytes of the web packets arriving for the cell's web users, and of the SDUs delivered to them.
    pub web_offered_bytes: u64,
    pub web_delivered_bytes: u64,
    /// DSCH transport blocks the cell sent (every interactive user, retransmissions included).
    pub dsch_blocks: u64,
}

/// Every cell's DSCH over the whole run (its row of `summary.cells`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellCounters {
    /// Frames with a DSCH transmission on air, and Σ of the DSCH users on air in them.
    pub frames_on_air: u64,
    pub users_on_air: u64,
    /// DSCH transport blocks sent, and of them lost.
    pub blocks: u64,
    pub blocks_lost: u64,
    /// Users handed over into the cell.
    pub handovers_in: u64,
    /// Σ over frames of the load factor η.
    pub eta_sum: f64,
}

/// `summary.dsch`: the central cell's measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DschSummary {
    pub frames: u64,
    /// Mean load factor η (eq. 2) over frames, and the share of frames with η > 0.9.
    pub mean_eta: f64,
    pub p_eta_over_90: f64,
    /// Mean transmit power of the central base station, W (common channels included).
    pub mean_power_w: f64,
    /// Interactive requests transmitted in the frame at any TF, ÷ requests.
    pub dsch_acceptance: f64,
    /// Per check, 1 − the requests it refused ÷ requests (a refused request
    /// counts against the check that failed at its last chance, TF1, the
    /// first in the order codes, load, power): DSCH acceptance = 1 − Σ refusals.
    pub code_acceptance: f64,
    pub power_acceptance: f64,
    pub load_acceptance: f64,
    pub requests: u64,
    /// Availability checks made (one per TF tried).
    pub checks: u64,
    /// Requests refused by codes, load and power.
    pub refused_codes: u64,
    pub refused_load: u64,
    pub refused_power: u64,
    /// SDUs offered and lost, per service; error ratio = lost ÷ offered.
    pub conversational_sdus: u64,
    pub conversational_lost: u64,
    pub conversational_sdu_error: f64,
    pub web_sdus: u64,
    pub web_lost: u64,
    /// Of `web_lost`, SDUs refused by a full RLC buffer.
    pub web_overflow: u64,
    pub web_sdu_error: f64,
    /// Interactive SDU delay scaled to 570 B, s: mean and standard deviation.
    pub web_delay_mean_s: f64,
    pub web_delay_sd_s: f64,
    /// The users under test: DSCH requests, and the share granted.
    pub test_requests: u64,
    pub test_acceptance: f64,
    /// Mean number of conversational users (calls) and of web users in the cell.
    pub mean_calls: f64,
    pub mean_web_users: f64,
    /// The web users' demand (bytes of their packets arriving, dropped ones
    /// included) and what was delivered to them, b/s.
    pub web_offered_bps: f64,
    pub web_delivered_bps: f64,
    /// DSCH payload the cell sent (320 bits per block, every interactive user, retransmissions included), b/s.
    pub dsch_bps: f64,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl Counters {
    /// A frame with load factor `eta` and power `power_w` and the manager's `rrm` counts.
    pub fn frame(&mut self, eta: f64, power_w: f64) {
        self.frames += 1;
        self.eta_sum += eta;
        self.eta_over_90 += (eta > 0.9) as u64;
        self.power_sum_w += power_w;
    }

    /// A user in the cell this frame: a call, a web user, or (neither) a user under test.
    pub fn present(&mut self, call: bool, web: bool) {
        self.calls_sum += call as u64;
        self.web_users_sum += web as u64;
    }

    /// A delivered interactive SDU of `bytes` after `delay_s`.
    pub fn delivered(&mut self, delay_s: f64, bytes: u32) {
        self.web_delivered_bytes += bytes as u64;
        let d = delay_s * 570.0 / bytes as f64;
        self.delay_n += 1;
        self.delay_sum += d;
        self.delay_sum2 += d * d;
    }

    pub fn summary(&self) -> DschSummary {
        let n = self.delay_n.max(1) as f64;
        let mean = self.delay_sum / n;
        let var = (self.delay_sum2 / n - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
        let r = &self.rrm;
        let frames = self.frames.max(1) as f64;
        let secs = frames * FRAME.as_secs_f64();
        DschSummary {
            frames: self.frames,
            mean_eta: self.eta_sum / self.frames.max(1) as f64,
            p_eta_over_90: ratio(self.eta_over_90, self.frames),
            mean_power_w: self.power_sum_w / self.frames.max(1) as f64,
            dsch_acceptance: ratio(r.admitted, r.requests),
            code_acceptance: 1.0 - ratio(r.refused[Check::Codes as usize], r.requests),
            power_acceptance: 1.0 - ratio(r.refused[Check::Power as usize], r.requests),
            load_acceptance: 1.0 - ratio(r.refused[Check::Load as usize], r.requests),
            requests: r.requests,
            checks: r.checks,
            refused_codes: r.refused[Check::Codes as usize],
            refused_load: r.refused[Check::Load as usize],
            refused_power: r.refused[Check::Power as usize],
            conversational_sdus: self.conversational_sdus,
            conversational_lost: self.conversational_lost,
            conversational_sdu_error: ratio(self.conversational_lost, self.conversational_sdus),
            web_sdus: self.web_sdus,
            web_lost: self.web_lost,
            web_overflow: self.web_overflow,
            web_sdu_error: ratio(self.web_lost, self.web_sdus),
            web_delay_mean_s: mean,
            web_delay_sd_s: var.sqrt(),
            test_requests: self.test_requests,
            test_acceptance: ratio(self.test_grants, self.test_requests),
            mean_calls: self.calls_sum as f64 / frames,
            mean_web_users: self.web_users_sum as f64 / frames,
            web_offered_bps: self.web_offered_bytes as f64 * 8.0 / secs,
            web_delivered_bps: self.web_delivered_bytes as f64 * 8.0 / secs,
            dsch_bps: (self.dsch_blocks * PAYLOAD_BITS as u64) as f64 / secs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_and_the_scaled_delay() {
        let mut c = Counters::default();
        c.frame(0.5, 10.0);
        c.frame(0.95, 20.0);
        // 0.1 s for 285 B is 0.2 s at 570 B; 0.4 s for 570 B stays: mean 0.3, sd √0.02 = 0.1414.
        c.delivered(0.1, 285);
        c.delivered(0.4, 570);
        // 7 calls, 3 web users and a user under test in one frame, 5 and 2 in the other;
        // 10 blocks sent and 2 000 B offered in the 20 ms.
        for (calls, web, tests) in [(7, 3, 1), (5, 2, 0)] {
            (0..calls).for_each(|_| c.present(true, false));
            (0..web).for_each(|_| c.present(false, true));
            (0..tests).for_each(|_| c.present(false, false));
        }
        c.dsch_blocks = 10;
        c.web_offered_bytes = 2_000;
        let s = c.summary();
        assert_eq!((s.mean_eta, s.p_eta_over_90, s.mean_power_w), (0.725, 0.5, 15.0));
        assert_eq!((s.mean_calls, s.mean_web_users), (6.0, 2.5));
        assert!((s.dsch_bps - 160_000.0).abs() < 1e-6 && (s.web_offered_bps - 800_000.0).abs() < 1e-6);
        assert!((s.web_delivered_bps - 855.0 * 8.0 / 0.02).abs() < 1e-6);
        assert!((s.web_delay_mean_s - 0.3).abs() < 1e-12 && (s.web_delay_sd_s - 0.02f64.sqrt()).abs() < 1e-12);
    }
}
