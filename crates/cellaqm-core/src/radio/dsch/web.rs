//! An open-loop interactive user of umts-dsch-rrm.md: the ETSI UMTS 30.03
//! web model inside the RAN (it does not react to loss or delay).
//!
//! The user is always in a session (spec's choice): packet calls follow each
//! other after a reading time; a call is a geometric number of packets
//! (mean 25), exponentially spaced (mean 62.5 ms: 480 B · 8 / 62.5 ms =
//! 61.4 kb/s while downloading), each Pareto-sized (α 1.1, k 81.5 B, cut off
//! at 66 666 B). Sessions follow each other with no gap, so the number of
//! calls per session does not change the traffic and is not drawn. A packet
//! above `max_sdu` is cut into SDUs of at most `max_sdu` bytes.

use super::config::WebModel;
use crate::rng::Rng;
use crate::time::Time;

/// One user's source.
#[derive(Clone, Debug)]
pub struct WebSource {
    /// When the next packet arrives.
    next: Time,
    /// Packets left in the current call, after the next.
    left: u32,
}

impl WebSource {
    /// A user reading at `now`: the first call after a reading time.
    pub fn new(model: &WebModel, now: Time, rng: &mut Rng) -> WebSource {
        let mut s = WebSource { next: now, left: 0 };
        s.start_call(model, now + model.reading_time.dur(rng), rng);
        s
    }

    fn start_call(&mut self, model: &WebModel, at: Time, rng: &mut Rng) {
        self.next = at;
        self.left = model.packets.count(rng).max(1) - 1;
    }

    /// The next packet's arrival time.
    pub fn next(&self) -> Time {
        self.next
    }

    /// The packet due at [`WebSource::next`]: its size in bytes; the source moves on to the following one.
    pub fn pop(&mut self, model: &WebModel, rng: &mut Rng) -> u32 {
        let bytes = model.packet_size.bytes(rng).clamp(1, u32::MAX as u64) as u32;
        if self.left > 0 {
            self.left -= 1;
            self.next += model.packet_interval.dur(rng);
        } else {
            let at = self.next + model.reading_time.dur(rng);
            self.start_call(model, at, rng);
        }
        bytes
    }
}

/// Splits `bytes` into SDUs of at most `max_sdu` bytes, calling `sdu` with each size.
pub fn split(bytes: u32, max_sdu: u32, mut sdu: impl FnMut(u32)) {
    let mut left = bytes;
    while left > 0 {
        let n = left.min(max_sdu);
        sdu(n);
        left -= n;
    }
}

/// The mean rate of a user, b/s: a call's bytes over a call's length plus the reading time.
pub fn mean_rate_bps(model: &WebModel) -> f64 {
    let n = model.packets.mean();
    let call_bits = n * model.packet_size.mean() * 8.0;
    call_bits / (n * model.packet_interval.mean() + model.reading_time.mean())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Dur;

    #[test]
    fn splits_into_570_byte_sdus() {
        let mut got = Vec::new();
        split(1500, 570, |n| got.push(n));
        assert_eq!(got, [570, 570, 360]);
        got.clear();
        split(570, 570, |n| got.push(n));
        assert_eq!(got, [570]);
    }

    /// Over a long run the source offers its mean rate: 25 × 479.5 B × 8 /
    /// (25 × 62.5 ms + 0.4 s) = 95.9 kbit / 1.9625 s = 48.9 kb/s (the Pareto
    /// draws are heavy-tailed: a 10 % tolerance over 20 000 s).
    #[test]
    fn offers_the_model_s_mean_rate() {
        let model = WebModel::default();
        let want = mean_rate_bps(&model);
        assert!((want - 48_870.0).abs() < 200.0, "{want}");
        let mut rng = stream(1, "web");
        let mut s = WebSource::new(&model, Time::ZERO, &mut rng);
        let end = Time::ZERO + Dur::from_secs(20_000);
        let mut bits = 0.0;
        let mut last = Time::ZERO;
        while s.next() < end {
            assert!(s.next() >= last, "packets in time order");
            last = s.next();
            bits += s.pop(&model, &mut rng) as f64 * 8.0;
        }
        let got = bits / 20_000.0;
        assert!((got / want - 1.0).abs() < 0.1, "{got} vs {want}");
    }
}
