//! An emulated interactive user of the DSCH study (Ferrús et al.): the ETSI UMTS 30.03
//! (TR 101 112) web model inside the RAN (it does not react to loss or delay
//! within a packet call).
//!
//! The user is always in a session (our choice): a packet call is a
//! geometric number of packets (mean 25), exponentially spaced (mean
//! 62.5 ms: 480 B · 8 / 62.5 ms = 61.4 kb/s while downloading), each
//! Pareto-sized (α 1.1, k 81.5 B, cut off at 66 666 B). The reading time
//! follows the packet call (30.03: the user reads the page it has received):
//! it starts when the call's last packet has been delivered or dropped, and
//! with in-sequence delivery every packet before it with it — when the
//! user's RLC holds none of the call's SDUs any more ([`WebSource::settled`]).
//! Sessions follow each other with no gap, so the number of calls per
//! session does not change the traffic and is not drawn. A packet above
//! `max_sdu` is cut into SDUs of at most `max_sdu` bytes.

use super::config::WebModel;
use crate::rng::Rng;
use crate::time::Time;

/// One user's source, drawing from its own random stream (so that what the
/// user asks for does not depend on how it is served: common random numbers).
#[derive(Clone, Debug)]
pub struct WebSource {
    /// When the next packet arrives ([`Time::MAX`] while the last call's packets are still queued).
    next: Time,
    /// Packets left in the current call, after the next.
    left: u32,
    rng: Rng,
}

impl WebSource {
    /// A user reading at `now`: the first call after a reading time.
    pub fn new(model: &WebModel, now: Time, rng: Rng) -> WebSource {
        let mut s = WebSource { next: now, left: 0, rng };
        let at = now + model.reading_time.dur(&mut s.rng);
        s.start_call(model, at);
        s
    }

    /// Whether the call's last packet has arrived and the user waits for it to leave its RLC.
    pub fn waiting(&self) -> bool {
        self.next == Time::MAX
    }

    /// The user's RLC holds none of the call's SDUs any more at `now` (each
    /// delivered or lost): if the call's last packet has arrived, the reading
    /// time starts now, then the next call.
    pub fn settled(&mut self, model: &WebModel, now: Time) {
        if self.waiting() {
            let at = now + model.reading_time.dur(&mut self.rng);
            self.start_call(model, at);
        }
    }

    fn start_call(&mut self, model: &WebModel, at: Time) {
        self.next = at;
        self.left = model.packets.count(&mut self.rng).max(1) - 1;
    }

    /// The next packet's arrival time.
    pub fn next(&self) -> Time {
        self.next
    }

    /// The packet due at [`WebSource::next`]: its size in bytes; the source
    /// moves on to the call's next packet, or after the call's last waits
    /// until it has left the RLC ([`WebSource::settled`]).
    pub fn pop(&mut self, model: &WebModel) -> u32 {
        let bytes = model.packet_size.bytes(&mut self.rng).clamp(1, u32::MAX as u64) as u32;
        if self.left > 0 {
            self.left -= 1;
            self.next += model.packet_interval.dur(&mut self.rng);
        } else {
            self.next = Time::MAX;
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

/// The demand of a user whose calls are served as they arrive, b/s: a
/// call's bytes over a call's length plus the reading time (a user whose
/// last packets wait in its buffer offers less).
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
    use crate::traffic::distributions::Family;

    #[test]
    fn splits_into_570_byte_sdus() {
        let mut got = Vec::new();
        split(1500, 570, |n| got.push(n));
        assert_eq!(got, [570, 570, 360]);
        got.clear();
        split(570, 570, |n| got.push(n));
        assert_eq!(got, [570]);
    }

    /// A call of 3 packets 0.1 s apart, reading time 2 s: after the third
    /// packet the source waits; the reading time starts when the RLC has let
    /// the call go (here 0.5 s after its last packet), not at the last arrival.
    #[test]
    fn the_reading_time_starts_when_the_call_has_left_the_buffer() {
        use crate::traffic::Dist;
        let model = WebModel {
            reading_time: Dist::fixed(2.0),
            packets: Dist::fixed(3.0),
            packet_interval: Dist::fixed(0.1),
            ..WebModel::default()
        };
        let mut s = WebSource::new(&model, Time::ZERO, stream(1, "web"));
        let at = |ms| Time::ZERO + Dur::from_millis(ms);
        let mut arrivals = Vec::new();
        while !s.waiting() {
            arrivals.push(s.next());
            s.pop(&model);
        }
        assert_eq!(arrivals, [at(2000), at(2100), at(2200)]);
        assert_eq!(s.next(), Time::MAX);
        s.settled(&model, at(2700));
        assert_eq!(s.next(), at(4700), "2 s of reading after the call left the buffer");
        // Settling again while a call is under way changes nothing.
        s.settled(&model, at(3000));
        assert_eq!(s.next(), at(4700));
    }

    /// A user whose calls leave its buffer as they arrive offers the model's
    /// mean rate: 25 × 479.5 B × 8 / (25 × 62.5 ms + 0.4 s) = 95.9 kbit /
    /// 1.9625 s = 48.9 kb/s (the Pareto draws are heavy-tailed: a 10 %
    /// tolerance over 20 000 s).
    #[test]
    fn offers_the_model_s_mean_rate() {
        let model = WebModel {
            reading_time: crate::traffic::Dist::new(Family::Exponential { mean: 0.4 }),
            ..WebModel::default()
        };
        let want = mean_rate_bps(&model);
        assert!((want - 48_870.0).abs() < 200.0, "{want}");
        let mut s = WebSource::new(&model, Time::ZERO, stream(1, "web"));
        let end = Time::ZERO + Dur::from_secs(20_000);
        let mut bits = 0.0;
        let mut last = Time::ZERO;
        while s.next() < end {
            assert!(s.next() >= last, "packets in time order");
            last = s.next();
            bits += s.pop(&model) as f64 * 8.0;
            s.settled(&model, last);
        }
        let got = bits / 20_000.0;
        assert!((got / want - 1.0).abs() < 0.1, "{got} vs {want}");
    }
}
