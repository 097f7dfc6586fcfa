//! The central base station's measures of umts-dsch-rrm.md (Table 3, Fig. 2):
//! the load factor η per frame, the manager's acceptance, SDU errors per
//! service and the interactive SDU delay scaled to a 570-byte SDU. An SDU
//! counts at the cell that decides its fate (delivery, loss, overflow).

use super::rrm::FrameStats;
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
    /// Availability checks passing each condition ÷ checks.
    pub code_acceptance: f64,
    pub power_acceptance: f64,
    pub load_acceptance: f64,
    pub requests: u64,
    pub checks: u64,
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

    /// A delivered interactive SDU of `bytes` after `delay_s`.
    pub fn delivered(&mut self, delay_s: f64, bytes: u32) {
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
        DschSummary {
            frames: self.frames,
            mean_eta: self.eta_sum / self.frames.max(1) as f64,
            p_eta_over_90: ratio(self.eta_over_90, self.frames),
            mean_power_w: self.power_sum_w / self.frames.max(1) as f64,
            dsch_acceptance: ratio(r.admitted, r.requests),
            code_acceptance: ratio(r.codes_ok, r.checks),
            power_acceptance: ratio(r.power_ok, r.checks),
            load_acceptance: ratio(r.load_ok, r.checks),
            requests: r.requests,
            checks: r.checks,
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
        let s = c.summary();
        assert_eq!((s.mean_eta, s.p_eta_over_90, s.mean_power_w), (0.725, 0.5, 15.0));
        assert!((s.web_delay_mean_s - 0.3).abs() < 1e-12 && (s.web_delay_sd_s - 0.02f64.sqrt()).abs() < 1e-12);
    }
}
