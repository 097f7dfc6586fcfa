//! Queue disciplines and the receiver-side R-AQM outside a simulation:
//! `cellaqm._core.Queue`, `Raqm`, `DelayEstimator` and `queue_catalogue()`
//! (used through `cellaqm.queues`).
//!
//! Times cross the boundary as float seconds (integer nanoseconds inside),
//! sizes as bytes. A drop is `(uid, cause)`; packets are numbered 0, 1, 2, …
//! in arrival order.

use crate::ScenarioError;
use cellaqm_core::bsr::{DelayEstimator as CoreDelayEstimator, Raqm as CoreRaqm, RaqmParams, Verdict};
use cellaqm_core::packet::{flags, Dir, Ecn, Packet, TcpHeader};
use cellaqm_core::queue::{catalogue, AnyQueue, Dropped, Limits, QueueCtx, QueueDisc};
use cellaqm_core::rng;
use cellaqm_core::tcp::MAX_IP_PACKET;
use cellaqm_core::time::{Dur, Time};
use cellaqm_core::units::{Bytes, Rate};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The link rate when none is given: the studies' 384 kb/s bearer.
const DEFAULT_RATE: &str = "384kbps";

type Drop = (u64, &'static str);
/// A departing packet: `(uid, size, flow, enqueued_s, ce)`.
type Departed = (u64, u32, u32, f64, bool);

fn drops(dropped: &[Dropped]) -> Vec<Drop> {
    dropped.iter().map(|d| (d.pkt.uid, d.cause.name())).collect()
}

fn config_error(msg: String) -> PyErr {
    ScenarioError::new_err(msg)
}

/// The latest time a standalone object was told: each call's `now` (s) must
/// be finite, at least 0, and not before the previous call's.
#[derive(Default)]
struct Clock {
    now: Time,
}

impl Clock {
    fn advance(&mut self, now: f64) -> PyResult<Time> {
        if !now.is_finite() || now < 0.0 {
            return Err(PyValueError::new_err(format!("now: expected a time in seconds >= 0, got {now}")));
        }
        let t = Time::from_secs_f64(now);
        if t < self.now {
            return Err(PyValueError::new_err(format!(
                "now: time must not go back (last call at {} s, got {now} s)",
                self.now.as_secs_f64()
            )));
        }
        self.now = t;
        Ok(t)
    }
}

/// Checks that `size` bytes is one IP packet.
fn packet_size(size: u32) -> PyResult<u32> {
    if size == 0 || size as u64 > MAX_IP_PACKET {
        return Err(PyValueError::new_err(format!(
            "size: expected 1 to {MAX_IP_PACKET} bytes (one IP packet), got {size}"
        )));
    }
    Ok(size)
}

/// A duration as float seconds (exact for whole milliseconds: `Dur(45 ms)` is `0.045`).
fn secs(d: Dur) -> f64 {
    d.0 as f64 / 1e9
}

/// A queue discipline driven by hand: arrivals, departures and timer ticks.
///
/// `Queue(scheme, params="{}", buffer=None, buffer_packets=None, rate=None, seed=1)`:
/// `params` is a JSON object of the scheme's parameters in scenario syntax
/// (`{"target": "5ms"}`), `buffer` a size (`"100kB"`), `rate` the link rate
/// (`"384kbps"`, the default). Bad input raises `ScenarioError` naming the parameter.
#[pyclass(module = "cellaqm._core")]
pub struct Queue {
    q: AnyQueue,
    scheme: String,
    rate_bps: f64,
    clock: Clock,
    next_uid: u64,
}

impl Queue {
    fn ctx(&mut self, now: f64) -> PyResult<QueueCtx> {
        Ok(QueueCtx { now: self.clock.advance(now)?, rate_bps: self.rate_bps })
    }
}

fn parse_rate(text: &str) -> PyResult<f64> {
    let rate = Rate::parse(text).map_err(|e| config_error(format!("rate: {e}")))?;
    if rate.bps() <= 0.0 {
        return Err(config_error("rate: must be positive".into()));
    }
    Ok(rate.bps())
}

#[pymethods]
impl Queue {
    #[new]
    #[pyo3(signature = (scheme, params = "{}", buffer = None, buffer_packets = None, rate = None, seed = 1))]
    fn new(
        scheme: &str,
        params: &str,
        buffer: Option<&str>,
        buffer_packets: Option<u32>,
        rate: Option<&str>,
        seed: u64,
    ) -> PyResult<Queue> {
        let cfg = catalogue::config(scheme, params).map_err(config_error)?;
        let bytes = buffer
            .map(|b| Bytes::parse(b).map(|b| b.0).map_err(|e| config_error(format!("buffer: {e}"))))
            .transpose()?;
        if bytes == Some(0) || buffer_packets == Some(0) {
            return Err(config_error("buffer: a zero-sized buffer can hold no packet".into()));
        }
        let rate_bps = parse_rate(rate.unwrap_or(DEFAULT_RATE))?;
        let q = cfg.build(Limits { bytes, packets: buffer_packets }, rng::stream(seed, "queue"));
        Ok(Queue { q, scheme: scheme.to_string(), rate_bps, clock: Clock::default(), next_uid: 0 })
    }

    /// A packet of `size` bytes arrives at `now` (s). Returns
    /// `(uid, accepted, drops, marked)`: its uid, whether it was queued, the
    /// packets dropped by this arrival (it or others) as `(uid, cause)`, and
    /// whether this arrival made an ECN mark (on it, or on the head with `drop="front"`).
    #[pyo3(signature = (size, now, flow = 0, syn = false, ect = false))]
    fn enqueue(
        &mut self,
        size: u32,
        now: f64,
        flow: u32,
        syn: bool,
        ect: bool,
    ) -> PyResult<(u64, bool, Vec<Drop>, bool)> {
        let size = packet_size(size)?;
        let ctx = self.ctx(now)?;
        let tcp = TcpHeader {
            len: size.saturating_sub(40) as u16,
            flags: if syn { flags::SYN } else { 0 },
            ..TcpHeader::default()
        };
        let mut pkt = Packet::tcp(flow, Dir::Down, size, tcp);
        pkt.uid = self.next_uid;
        pkt.sent_at = ctx.now;
        if ect {
            pkt.ecn = Ecn::Ect;
        }
        self.next_uid += 1;
        let marked_before = self.q.stats().marked;
        let mut dropped = Vec::new();
        self.q.enqueue(pkt, &ctx, &mut dropped);
        let accepted = !dropped.iter().any(|d| d.pkt.uid == pkt.uid);
        Ok((pkt.uid, accepted, drops(&dropped), self.q.stats().marked > marked_before))
    }

    /// The link takes the next packet at `now` (s). Returns `(packet, drops)`:
    /// `packet` is `(uid, size, flow, enqueued_s, ce)` or None if the queue is
    /// empty; `drops` are the packets discarded on the way, as `(uid, cause)`.
    fn dequeue(&mut self, now: f64) -> PyResult<(Option<Departed>, Vec<Drop>)> {
        let ctx = self.ctx(now)?;
        let mut dropped = Vec::new();
        let pkt = self.q.dequeue(&ctx, &mut dropped);
        let departed = pkt.map(|p| (p.uid, p.size, p.flow, p.enqueued_at.as_secs_f64(), p.ecn == Ecn::Ce));
        Ok((departed, drops(&dropped)))
    }

    /// Runs every timer of the scheme due by `now` (s), each at its own time;
    /// returns the drops.
    fn tick(&mut self, now: f64) -> PyResult<Vec<Drop>> {
        let ctx = self.ctx(now)?;
        let mut dropped = Vec::new();
        while let Some(due) = self.q.next_timer().filter(|&t| t <= ctx.now) {
            self.q.on_timer(&QueueCtx { now: due, ..ctx }, &mut dropped);
            if self.q.next_timer() == Some(due) {
                break; // a scheme that does not move its timer on: fire once
            }
        }
        Ok(drops(&dropped))
    }

    /// When the scheme next wants `tick` (s), or None.
    fn next_timer(&self) -> Option<f64> {
        self.q.next_timer().map(Time::as_secs_f64)
    }

    /// The link has sent part of queued packet `uid` (its first RLC PDU).
    fn mark_started(&mut self, uid: u64) {
        self.q.mark_started(uid)
    }

    /// Bytes queued.
    #[getter]
    fn bytes(&self) -> u64 {
        self.q.bytes()
    }

    /// Packets queued.
    #[getter]
    fn packets(&self) -> usize {
        self.q.packets()
    }

    /// Packets ECN-marked so far.
    #[getter]
    fn marked(&self) -> u64 {
        self.q.stats().marked
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The link rate the scheme is told, in bit/s; set it with a rate like `"1Mbps"`.
    #[getter]
    fn get_rate(&self) -> f64 {
        self.rate_bps
    }

    #[setter]
    fn set_rate(&mut self, rate: &str) -> PyResult<()> {
        self.rate_bps = parse_rate(rate)?;
        Ok(())
    }
}

/// R-AQM's head-of-line queue-delay estimator on its own: feed it
/// `observe(queue_bytes, served_bytes, dt)` per BSR.
#[pyclass(module = "cellaqm._core")]
pub struct DelayEstimator {
    e: CoreDelayEstimator,
}

#[pymethods]
impl DelayEstimator {
    #[new]
    fn new() -> DelayEstimator {
        DelayEstimator { e: CoreDelayEstimator::new() }
    }

    /// An observation (a BSR): `queue_bytes` queued, `served_bytes` received
    /// since the previous observation, `dt` seconds since it. Returns the
    /// estimated head-of-line delay in seconds.
    fn observe(&mut self, queue_bytes: u64, served_bytes: u64, dt: f64) -> PyResult<f64> {
        if !dt.is_finite() || dt < 0.0 {
            return Err(PyValueError::new_err(format!("dt: expected a duration in seconds >= 0, got {dt}")));
        }
        Ok(secs(self.e.observe(queue_bytes, served_bytes, Dur::from_secs_f64(dt))))
    }

    /// The latest estimate, seconds.
    #[getter]
    fn estimate(&self) -> f64 {
        secs(self.e.estimate())
    }

    /// The queue size of the latest observation, bytes.
    #[getter]
    fn queue(&self) -> u64 {
        self.e.queue()
    }
}

/// R-AQM, the receiver-side filter of the LTE uplink, on its own.
///
/// `Raqm(params="{}")`: `params` is a JSON object of its parameters in
/// scenario syntax (`{"min_age": "0.2s"}`); bad input raises `ScenarioError`
/// naming the parameter (`raqm.min_age: ...`).
#[pyclass(module = "cellaqm._core")]
pub struct Raqm {
    r: CoreRaqm,
    /// The eNodeB's estimator, fed by `on_bsr`; R-AQM reads it on delivery.
    e: CoreDelayEstimator,
    clock: Clock,
}

#[pymethods]
impl Raqm {
    #[new]
    #[pyo3(signature = (params = "{}"))]
    fn new(params: &str) -> PyResult<Raqm> {
        let p: RaqmParams = catalogue::read_params("raqm", params).map_err(config_error)?;
        p.validate("raqm").map_err(config_error)?;
        Ok(Raqm { r: CoreRaqm::new(&p), e: CoreDelayEstimator::new(), clock: Clock::default() })
    }

    /// A BSR arrives at `now` (s) reporting `queue_bytes` in the UE's buffer;
    /// `received_bytes` arrived from the UE since the previous BSR. Returns the
    /// new head-of-line delay estimate, seconds.
    fn on_bsr(&mut self, now: f64, queue_bytes: u64, received_bytes: u64) -> PyResult<f64> {
        let now = self.clock.advance(now)?;
        Ok(secs(self.e.observe_at(now, queue_bytes, received_bytes)))
    }

    /// An SDU of `size` bytes is about to be delivered at `now` (s): `"deliver"` or `"drop"`.
    fn on_deliver(&mut self, now: f64, size: u32) -> PyResult<&'static str> {
        let size = packet_size(size)?;
        let now = self.clock.advance(now)?;
        let sdu =
            Packet::tcp(0, Dir::Up, size, TcpHeader { len: size.saturating_sub(40) as u16, ..TcpHeader::default() });
        Ok(match self.r.on_deliver(now, &sdu, &self.e) {
            Verdict::Deliver => "deliver",
            Verdict::Drop => "drop",
        })
    }

    /// The latest head-of-line delay estimate, seconds.
    #[getter]
    fn estimate(&self) -> f64 {
        secs(self.e.estimate())
    }

    /// SDUs dropped so far.
    #[getter]
    fn drops(&self) -> u64 {
        self.r.stats().drops
    }

    /// Bytes of the SDUs dropped so far.
    #[getter]
    fn dropped_bytes(&self) -> u64 {
        self.r.stats().dropped_bytes
    }
}

/// Every entry of the catalogue: a list of dicts `{name, acts_at, rule,
/// params}`, `params` a list of dicts `{name, default, unit, meaning}`
/// (defaults in scenario syntax).
#[pyfunction]
fn queue_catalogue<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    catalogue::catalogue()
        .into_iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("name", s.name)?;
            d.set_item("acts_at", s.acts_at)?;
            d.set_item("rule", s.rule)?;
            let params = s
                .params
                .into_iter()
                .map(|p| {
                    let pd = PyDict::new(py);
                    pd.set_item("name", p.name)?;
                    pd.set_item("default", p.default)?;
                    pd.set_item("unit", p.unit)?;
                    pd.set_item("meaning", p.meaning)?;
                    Ok(pd)
                })
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("params", params)?;
            Ok(d)
        })
        .collect()
}

/// Adds `Queue`, `DelayEstimator`, `Raqm` and `queue_catalogue` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Queue>()?;
    m.add_class::<DelayEstimator>()?;
    m.add_class::<Raqm>()?;
    m.add_function(wrap_pyfunction!(queue_catalogue, m)?)?;
    Ok(())
}
