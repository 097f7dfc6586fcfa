//! Python bindings for `cellaqm-core`, imported as `cellaqm._core`.
//!
//! Deliberately thin: parse the scenario, run it with the GIL released, hand
//! the core's results and packet columns back. All presentation (DataFrames,
//! files, the CLI) lives in the pure-Python package `python/cellaqm`.

mod queues;

use cellaqm_core::{run_controlled, Control, RunOptions, RunResult, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// mimalloc for the core's allocations: see the dependency's note in Cargo.toml.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    cellaqm,
    ScenarioError,
    PyValueError,
    "The scenario could not be read, parsed or validated. The message is one line naming the key."
);

/// Little-endian bytes of a column, for `numpy.frombuffer`.
fn column<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    to_bytes: impl Fn(T) -> [u8; N],
) -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(values.len() * N);
    for &v in values {
        out.extend_from_slice(&to_bytes(v));
    }
    PyBytes::new(py, &out)
}

/// A text column, as a list of str. Its values are a few names (a buffer, a
/// unit, a direction, a drop cause), so each distinct one becomes one str
/// object that the list repeats: creating a str per row was most of the cost.
fn strings<'py>(py: Python<'py>, values: &[&'static str]) -> PyResult<Bound<'py, PyList>> {
    let mut made: Vec<(&'static str, Bound<'py, PyString>)> = Vec::new();
    let mut row = |v: &'static str| match made.iter().find(|(name, _)| *name == v) {
        Some((_, s)) => s.clone(),
        None => {
            let s = PyString::new(py, v);
            made.push((v, s.clone()));
            s
        }
    };
    PyList::new(py, values.iter().map(|&v| row(v)))
}

/// Column `f` of `rows` as whole numbers (`<i8`, as pandas types the rows' integers).
fn ints<'py, R>(py: Python<'py>, rows: &[R], f: impl Fn(&R) -> u64) -> (&'static str, Bound<'py, PyBytes>) {
    let values: Vec<i64> = rows.iter().map(|r| f(r) as i64).collect();
    ("<i8", column(py, &values, i64::to_le_bytes))
}

/// Column `f` of `rows` as floats (`<f8`).
fn floats<'py, R>(py: Python<'py>, rows: &[R], f: impl Fn(&R) -> f64) -> (&'static str, Bound<'py, PyBytes>) {
    let values: Vec<f64> = rows.iter().map(f).collect();
    ("<f8", column(py, &values, f64::to_le_bytes))
}

/// Column `f` of `rows` as a list of float or None (pandas: floats with NaN, or None if all are).
fn optional_floats<'py, R>(py: Python<'py>, rows: &[R], f: impl Fn(&R) -> Option<f64>) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, rows.iter().map(f))
}

/// The rows of `flows.csv` as columns, in the order of [`cellaqm_core::metrics::FlowSummary`]'s fields.
fn flow_columns<'py>(py: Python<'py>, flows: &[cellaqm_core::metrics::FlowSummary]) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("flow", ints(py, flows, |f| f.flow as u64))?;
    out.set_item("source", ints(py, flows, |f| f.source as u64))?;
    out.set_item("user", ints(py, flows, |f| f.user as u64))?;
    out.set_item("transport", strings(py, &flows.iter().map(|f| f.transport).collect::<Vec<_>>())?)?;
    out.set_item("bytes_delivered", ints(py, flows, |f| f.bytes_delivered))?;
    out.set_item("bytes_down", ints(py, flows, |f| f.bytes_down))?;
    out.set_item("bytes_up", ints(py, flows, |f| f.bytes_up))?;
    out.set_item("goodput_bps", floats(py, flows, |f| f.goodput_bps))?;
    out.set_item("start_s", floats(py, flows, |f| f.start_s))?;
    out.set_item("completion_s", optional_floats(py, flows, |f| f.completion_s)?)?;
    out.set_item("rtos", ints(py, flows, |f| f.rtos))?;
    out.set_item("spurious_rtos", ints(py, flows, |f| f.spurious_rtos))?;
    out.set_item("rtos_undone", ints(py, flows, |f| f.rtos_undone))?;
    out.set_item("fast_retransmits", ints(py, flows, |f| f.fast_retransmits))?;
    out.set_item("retransmitted_bytes", ints(py, flows, |f| f.retransmitted_bytes))?;
    out.set_item("ecn_reductions", ints(py, flows, |f| f.ecn_reductions))?;
    out.set_item("segments_sent", ints(py, flows, |f| f.segments_sent))?;
    let stalled: Vec<bool> = flows.iter().map(|f| f.stalled).collect();
    out.set_item("stalled", ("|b1", column(py, &stalled, |b: bool| [b as u8])))?;
    Ok(out)
}

/// The rows of `downloads.csv` as columns, in the order of [`cellaqm_core::metrics::Download`]'s fields.
fn download_columns<'py>(
    py: Python<'py>,
    downloads: &[cellaqm_core::metrics::Download],
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("download", ints(py, downloads, |d| d.download as u64))?;
    out.set_item("source", ints(py, downloads, |d| d.source as u64))?;
    out.set_item("kind", strings(py, &downloads.iter().map(|d| d.kind).collect::<Vec<_>>())?)?;
    out.set_item("user", ints(py, downloads, |d| d.user as u64))?;
    out.set_item("bytes", ints(py, downloads, |d| d.bytes))?;
    out.set_item("objects", ints(py, downloads, |d| d.objects as u64))?;
    out.set_item("connections", ints(py, downloads, |d| d.connections as u64))?;
    out.set_item("request_s", floats(py, downloads, |d| d.request_s))?;
    out.set_item("completion_s", optional_floats(py, downloads, |d| d.completion_s)?)?;
    out.set_item("time_s", optional_floats(py, downloads, |d| d.time.map(cellaqm_core::time::Dur::as_secs_f64))?)?;
    out.set_item("goodput_bps", optional_floats(py, downloads, |d| d.goodput_bps)?)?;
    out.set_item("rtos", ints(py, downloads, |d| d.rtos))?;
    Ok(out)
}

/// The columns of a trace table: name → `(numpy dtype str, bytes)`, or a list of str.
fn trace_tables<'py>(py: Python<'py>, t: &cellaqm_core::metrics::Trace) -> PyResult<Bound<'py, PyDict>> {
    let f64s = |v: &[f64]| ("<f8", column(py, v, f64::to_le_bytes));
    let u64s = |v: &[u64]| ("<u8", column(py, v, u64::to_le_bytes));
    let u32s = |v: &[u32]| ("<u4", column(py, v, u32::to_le_bytes));
    let bools = |v: &[bool]| ("|b1", column(py, v, |b: bool| [b as u8]));
    let out = PyDict::new(py);

    let cwnd = PyDict::new(py);
    cwnd.set_item("time_s", f64s(&t.cwnd.time_s))?;
    cwnd.set_item("flow", u32s(&t.cwnd.flow))?;
    cwnd.set_item("dir", strings(py, &t.cwnd.dir)?)?;
    cwnd.set_item("cwnd_bytes", u64s(&t.cwnd.cwnd_bytes))?;
    cwnd.set_item("ssthresh_bytes", u64s(&t.cwnd.ssthresh_bytes))?;
    cwnd.set_item("w_max_bytes", u64s(&t.cwnd.w_max_bytes))?;
    let k_s: Vec<f64> = t.cwnd.k_s.iter().map(|k| k.unwrap_or(f64::NAN)).collect();
    cwnd.set_item("k_s", f64s(&k_s))?;
    out.set_item("cwnd", cwnd)?;

    let nan = |v: &[Option<f64>]| v.iter().map(|x| x.unwrap_or(f64::NAN)).collect::<Vec<f64>>();
    let rtt = PyDict::new(py);
    rtt.set_item("time_s", f64s(&t.rtt.time_s))?;
    rtt.set_item("flow", u32s(&t.rtt.flow))?;
    rtt.set_item("dir", strings(py, &t.rtt.dir)?)?;
    rtt.set_item("sample_s", f64s(&nan(&t.rtt.sample_s)))?;
    rtt.set_item("srtt_s", f64s(&nan(&t.rtt.srtt_s)))?;
    rtt.set_item("rttvar_s", f64s(&nan(&t.rtt.rttvar_s)))?;
    rtt.set_item("rto_s", f64s(&t.rtt.rto_s))?;
    out.set_item("rtt", rtt)?;

    let queue = PyDict::new(py);
    queue.set_item("time_s", f64s(&t.queue.time_s))?;
    queue.set_item("bytes", u64s(&t.queue.bytes))?;
    queue.set_item("packets", u32s(&t.queue.packets))?;
    out.set_item("queue", queue)?;

    let drops = PyDict::new(py);
    drops.set_item("time_s", f64s(&t.drops.time_s))?;
    drops.set_item("flow", u32s(&t.drops.flow))?;
    drops.set_item("dir", strings(py, &t.drops.dir)?)?;
    drops.set_item("uid", u64s(&t.drops.uid))?;
    drops.set_item("size", u32s(&t.drops.size))?;
    drops.set_item("cause", strings(py, &t.drops.cause)?)?;
    out.set_item("drops", drops)?;

    let delivered = PyDict::new(py);
    delivered.set_item("time_s", f64s(&t.delivered.time_s))?;
    delivered.set_item("flow", u32s(&t.delivered.flow))?;
    delivered.set_item("seq", u64s(&t.delivered.seq))?;
    delivered.set_item("len", u32s(&t.delivered.len))?;
    delivered.set_item("retransmission", bools(&t.delivered.retransmission))?;
    out.set_item("delivered", delivered)?;

    let losses = PyDict::new(py);
    losses.set_item("time_s", f64s(&t.radio_losses.time_s))?;
    losses.set_item("user", u32s(&t.radio_losses.user))?;
    losses.set_item("dir", strings(py, &t.radio_losses.dir)?)?;
    losses.set_item("pdus", u32s(&t.radio_losses.pdus))?;
    out.set_item("radio_losses", losses)?;

    let bsr = PyDict::new(py);
    bsr.set_item("time_s", f64s(&t.bsr.time_s))?;
    bsr.set_item("queue_bytes", u64s(&t.bsr.queue_bytes))?;
    bsr.set_item("received_bytes", u64s(&t.bsr.received_bytes))?;
    bsr.set_item("estimate_s", f64s(&t.bsr.estimate_s))?;
    bsr.set_item("true_s", f64s(&t.bsr.true_s))?;
    out.set_item("bsr", bsr)?;

    Ok(out)
}

/// How often [`run`] checks Python's signals and reports progress.
const POLL: Duration = Duration::from_millis(100);

/// Runs the core in a thread of its own; stops it when a signal handler raises.
///
/// The thread is not waited for once cancelled: the run stops before its next
/// event, but its set-up (a large radio system's cells and users) cannot be
/// stopped half-way, so the call returns at once and the thread, holding its
/// own references, ends when the set-up does.
fn run_interruptible(
    py: Python<'_>,
    scenario: &Arc<Scenario>,
    seed: u64,
    opts: RunOptions,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<RunResult> {
    let control = Arc::new(Control::default());
    let (done, finished) = mpsc::channel();
    // Waited on with the GIL released, which needs a `Sync` receiver.
    let finished = Mutex::new(finished);
    let (s, c) = (Arc::clone(scenario), Arc::clone(&control));
    std::thread::Builder::new()
        // The core's own stack, as if it ran on the main thread.
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = done.send(run_controlled(&s, seed, &opts, &c));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run's thread: {e}")))?;
    loop {
        let outcome = py.allow_threads(|| finished.lock().expect("only this thread waits").recv_timeout(POLL));
        match outcome {
            Ok(result) => return Ok(result.expect("only this thread cancels")),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the run's thread ended without a result"))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let checked = py.check_signals().and_then(|()| {
            progress
                .as_ref()
                .map_or(Ok(()), |f| f.call1((control.simulated_s(), scenario.duration.as_secs_f64())).map(drop))
        });
        if let Err(e) = checked {
            control.cancel();
            return Err(e);
        }
    }
}

/// `dir`: the directory relative trace paths are relative to (the scenario
/// file's); `None`, the current directory.
fn parse(scenario_text: &str, fmt: &str, sets: &[String], dir: Option<&str>) -> PyResult<Scenario> {
    let dir = std::path::Path::new(dir.unwrap_or(""));
    let parsed = match fmt {
        "toml" => Scenario::from_toml_str_in(scenario_text, sets, dir),
        "json" => Scenario::from_json_str_in(scenario_text, sets, dir),
        other => return Err(PyValueError::new_err(format!("fmt must be \"toml\" or \"json\", not {other:?}"))),
    };
    parsed.map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Parse and validate a scenario without running it.
///
/// Raises `ScenarioError` (one line naming the key) exactly when `run` would
/// refuse the same arguments; returns None otherwise.
#[pyfunction]
#[pyo3(signature = (scenario_text, fmt = "toml", sets = Vec::new(), dir = None))]
fn validate(scenario_text: &str, fmt: &str, sets: Vec<String>, dir: Option<&str>) -> PyResult<()> {
    parse(scenario_text, fmt, &sets, dir).map(|_| ())
}

/// The scenario as the run reads it, every default filled in, as JSON text.
///
/// Raises `ScenarioError` exactly when `validate` does.
#[pyfunction]
#[pyo3(signature = (scenario_text, fmt = "toml", sets = Vec::new(), dir = None))]
fn resolve(scenario_text: &str, fmt: &str, sets: Vec<String>, dir: Option<&str>) -> PyResult<String> {
    let scenario = parse(scenario_text, fmt, &sets, dir)?;
    serde_json::to_string(&scenario)
        .map_err(|e| PyRuntimeError::new_err(format!("the scenario does not serialise: {e}")))
}

/// Set one key path in a scenario document, exactly as `--set` does.
///
/// `doc_json` is the scenario as a JSON object, `path` a `--set` key path
/// (`bottleneck.buffer`, `traffic.1.users`), `value_json` the value as JSON.
/// Returns the new document as JSON; raises `ScenarioError` with the message
/// `--set` would give for the same path.
#[pyfunction]
fn set_path(doc_json: &str, path: &str, value_json: &str) -> PyResult<String> {
    cellaqm_core::scenario::set_path_json(doc_json, path, value_json).map_err(ScenarioError::new_err)
}

/// What a scenario can name besides the queue schemes (`cellaqm list traffic|tcp|links`):
/// a dict with `traffic` (models: `name`, `does`, `required`, `keys`), `tcp` (keys: `name`,
/// `default`, `required`, `takes`, `meaning`) and `links` (`name`, `section`, `what`). A key's
/// `default` is as a scenario writes it, None for a required key or an optional one absent by default.
#[pyfunction]
fn scenario_catalogue(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    Ok(pythonize::pythonize(py, &cellaqm_core::scenario::catalogue::catalogue())?)
}

/// Run one scenario.
///
/// `scenario_text` is a TOML document (`fmt="toml"`) or a JSON object
/// (`fmt="json"`); `sets` are `key.path=value` overrides applied on top;
/// `seed=None` uses the scenario's own seed; `dir` is the directory relative
/// trace paths (`rate = { trace = "f" }`) are relative to (the scenario
/// file's; `None`: the current directory). Returns a dict with
/// `summary` (dict, the structure of `summary.json`), `users` (a list of dicts, one per user;
/// built directly, not through JSON text, which was a third of a call's time outside the run),
/// `flows` and `downloads` (one row per flow and per download, as columns: name → `(numpy
/// dtype str, bytes)`, a list of str, or a list of float or None; None with `rows=False`, which
/// keeps only their totals: memory flat in the run's duration), `seed` (int), `packets`
/// (None, or a dict mapping column name to `(numpy dtype str, bytes)`), `trace` (None, or a
/// dict of tables `cwnd`, `rtt`, `queue`, `drops`, `delivered`, `radio_losses`, `bsr`, each mapping column name to
/// `(numpy dtype str, bytes)` or, for text columns, a list of str) and `occupancy` (the
/// buffers' occupancy distributions: columns `buffer`, `unit` (lists of str), `value`,
/// `time_s`), `pcap` (None, or the paths of the pcap files written into the directory `pcap`:
/// `server.pcap`, `bottleneck.pcap`, `client.pcap`) and `pcap_error` (None, or why they could not
/// be written: the results are returned all the same). OSError before the run if no file can be
/// created in `pcap`.
///
/// The run goes on in a thread of its own while this one checks Python's
/// signals every `POLL`: a `KeyboardInterrupt` (Ctrl-C) or another exception
/// from a signal handler stops the run and is raised. `progress`, if given,
/// is called as `progress(simulated_s, duration_s)` at each check.
#[pyfunction]
#[pyo3(signature = (scenario_text, fmt = "toml", seed = None, sets = Vec::new(), record_packets = false, trace = false, progress = None, dir = None, pcap = None, rows = true))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario_text: &str,
    fmt: &str,
    seed: Option<u64>,
    sets: Vec<String>,
    record_packets: bool,
    trace: bool,
    progress: Option<Bound<'py, PyAny>>,
    dir: Option<&str>,
    pcap: Option<std::path::PathBuf>,
    rows: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if pcap.is_some() && !rows {
        return Err(PyValueError::new_err("pcap needs rows (the capture addresses each flow's user)"));
    }
    let scenario = Arc::new(parse(scenario_text, fmt, &sets, dir)?);
    if let Some(dir) = &pcap {
        cellaqm_core::capture::check_dir(dir)
            .map_err(|e| PyOSError::new_err(format!("cannot write the pcap files into {}: {e}", dir.display())))?;
    }
    let seed = seed.unwrap_or(scenario.seed);
    let opts = RunOptions { record_packets, trace, capture: pcap.is_some(), totals_only: !rows };
    let result = run_interruptible(py, &scenario, seed, opts, progress)?;
    // A capture that cannot be written is reported with the results (which are not lost with it).
    let (pcap_files, pcap_error) = match (&pcap, &result.capture) {
        (Some(dir), Some(capture)) => match py.allow_threads(|| capture.write(dir, &result.flows, &scenario.tcp)) {
            Ok(files) => (Some(files), None),
            Err(e) => (None, Some(format!("cannot write the pcap files into {}: {e}", dir.display()))),
        },
        _ => (None, None),
    };

    let out = PyDict::new(py);
    out.set_item("seed", seed)?;
    out.set_item("summary", pythonize::pythonize(py, &result.summary)?)?;
    if rows {
        out.set_item("flows", flow_columns(py, &result.flows)?)?;
        out.set_item("downloads", download_columns(py, &result.downloads)?)?;
    } else {
        out.set_item("flows", py.None())?;
        out.set_item("downloads", py.None())?;
    }
    out.set_item("users", pythonize::pythonize(py, &result.users)?)?;
    match &result.packets {
        None => out.set_item("packets", py.None())?,
        Some(log) => {
            let cols = PyDict::new(py);
            cols.set_item("uid", ("<u8", column(py, &log.uid, u64::to_le_bytes)))?;
            cols.set_item("flow", ("<u4", column(py, &log.flow, u32::to_le_bytes)))?;
            cols.set_item("seq", ("<u8", column(py, &log.seq, u64::to_le_bytes)))?;
            cols.set_item("sent_s", ("<f8", column(py, &log.sent_s, f64::to_le_bytes)))?;
            cols.set_item("received_s", ("<f8", column(py, &log.received_s, f64::to_le_bytes)))?;
            cols.set_item("delay_s", ("<f8", column(py, &log.delay_s, f64::to_le_bytes)))?;
            cols.set_item("size", ("<u4", column(py, &log.size, u32::to_le_bytes)))?;
            cols.set_item("retransmission", ("|b1", column(py, &log.retransmission, |b: bool| [b as u8])))?;
            out.set_item("packets", cols)?;
        }
    }
    match &result.trace {
        None => out.set_item("trace", py.None())?,
        Some(t) => out.set_item("trace", trace_tables(py, t)?)?,
    }
    let occ = &result.occupancy;
    let cols = PyDict::new(py);
    cols.set_item("buffer", strings(py, &occ.buffer)?)?;
    cols.set_item("unit", strings(py, &occ.unit)?)?;
    cols.set_item("value", ("<u8", column(py, &occ.value, u64::to_le_bytes)))?;
    cols.set_item("time_s", ("<f8", column(py, &occ.time_s, f64::to_le_bytes)))?;
    out.set_item("occupancy", cols)?;
    out.set_item("pcap", pcap_files.map(|paths| paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()))?;
    out.set_item("pcap_error", pcap_error)?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(set_path, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    queues::register(m)?;
    Ok(())
}
