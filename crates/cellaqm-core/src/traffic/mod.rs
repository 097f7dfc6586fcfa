//! Traffic: the applications at the ends of the path, one file per model.
//!
//! | model | file | what the user does |
//! |---|---|---|
//! | `bulk` | `bulk.rs` | the server of each flow sends without end (FTP-like greedy source) |
//! | `file` | `bulk.rs` | the server of each flow sends `size` bytes once, then closes |
//! | `web` | `http.rs` | HTTP/1.0 pages: main object, then inlines on up to `connections` parallel connections, one new connection per object; reading time between pages (Lakkakorpi & Cuny, WCNC 2006) |
//! | `file_download` | `file_download.rs` | HTTP/1.1: one persistent connection, pipelined requests, reading time between files |
//! | `upload` | `upload.rs` | the client uploads files, one connection each, idle time between them or all at random start times (Tan, MSc thesis, 2009) |
//! | `sessions` | `sessions.rs` | a session generator over a pool of users: transfers to a random idle user, lost if none is idle (the HS-DSCH study) |
//! | `etsi_web` | `etsi_web.rs` | ETSI UMTS 30.03 web model: sessions of packet calls of Pareto-sized datagrams (Ferrús et al.) |
//! | `cbr` | `cbr.rs` | constant bit rate over UDP (64 kb/s conversational) |
//!
//! Random quantities are [`Dist`]s (`distributions.rs`), drawn from [`Streams`]
//! that keep common random numbers: what a user does comes from its own
//! stream, so it does not depend on how the network serves anyone.
//!
//! An application never touches packets. It is driven through [`Application`]
//! hooks (start, wake-ups, "the bytes you waited for arrived", "this
//! connection is over and gone", end of run) and answers with actions
//! through [`Ctx`]: open a TCP connection for a user, send or close on one
//! side of it, wait for bytes, wake me at t, send a UDP datagram. The
//! network executes them, so requests and responses are real packets
//! (requests travel up the uplink). Every flow (TCP connection or UDP
//! stream) belongs to a user (UE) index; for now all users share the single
//! bottleneck link.

mod bulk;
mod cbr;
pub mod distributions;
mod etsi_web;
mod file_download;
mod http;
mod sessions;
mod upload;

pub use distributions::{Count, Dist, Size};

use crate::metrics::{Download, TrafficLog};
use crate::packet::{Dir, FlowId};
use crate::rng::{self, Rng};
use crate::scenario::keys;
use crate::time::Time;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// Times in distributions (the marker type; [`crate::time::Time`] is an instant).
pub type Secs = distributions::Time;

/// Which end of a TCP connection: the client (at the UE) opens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client = 0,
    Server = 1,
}

/// What an application asks of the network (executed in order after the hook returns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// Create TCP connection `conn` for `user` and send the client's SYN.
    Open { conn: FlowId, user: u32, tag: u32 },
    /// The application at `side` writes `bytes` more bytes.
    Send { conn: FlowId, side: Side, bytes: u64 },
    /// The application at `side` closes its sending half (FIN after the data).
    Close { conn: FlowId, side: Side },
    /// Call [`Application::delivered`] once `side` has received `bytes` bytes in total.
    Notify { conn: FlowId, side: Side, bytes: u64 },
    /// Call [`Application::wake`] with `token` at `at`.
    Wake { at: Time, token: u32 },
    /// Create UDP stream `stream` for `user` in direction `dir`.
    OpenStream { stream: FlowId, user: u32, dir: Dir },
    /// Send one IP packet of `size` bytes carrying `payload` bytes on a UDP stream.
    Datagram { stream: FlowId, size: u32, payload: u16 },
}

/// What an application may read about the network's flows.
pub trait NetView {
    /// Retransmission timeouts so far on a connection (both ends): one open,
    /// or over but not yet gone ([`Application::over`] hands over the final
    /// count of one that is gone; asking about it is a model's bug, caught by
    /// a debug assertion), or one just asked for (none yet).
    fn rtos(&self, conn: FlowId) -> u64;
    /// UDP stream: payload bytes delivered and the arrival time of the last packet.
    fn stream_delivery(&self, stream: FlowId) -> (u64, Option<Time>);
}

/// The handle an application acts through during one hook call.
pub struct Ctx<'a> {
    pub now: Time,
    pub(crate) source: u16,
    pub(crate) next_flow: &'a mut FlowId,
    pub(crate) actions: &'a mut Vec<(u16, Action)>,
    pub(crate) log: &'a mut TrafficLog,
    pub(crate) view: &'a dyn NetView,
}

impl Ctx<'_> {
    fn push(&mut self, a: Action) {
        self.actions.push((self.source, a));
    }
    /// Opens a TCP connection for `user` (the client sends its SYN now); `tag` comes back in notices.
    pub fn open(&mut self, user: u32, tag: u32) -> FlowId {
        let conn = *self.next_flow;
        *self.next_flow += 1;
        self.push(Action::Open { conn, user, tag });
        conn
    }
    pub fn send(&mut self, conn: FlowId, side: Side, bytes: u64) {
        if bytes > 0 {
            self.push(Action::Send { conn, side, bytes });
        }
    }
    pub fn close(&mut self, conn: FlowId, side: Side) {
        self.push(Action::Close { conn, side });
    }
    /// Asks for [`Application::delivered`] once `side` has received `bytes` in total.
    pub fn notify(&mut self, conn: FlowId, side: Side, bytes: u64) {
        self.push(Action::Notify { conn, side, bytes });
    }
    pub fn wake_at(&mut self, at: Time, token: u32) {
        self.push(Action::Wake { at: at.max(self.now), token });
    }
    pub fn open_stream(&mut self, user: u32, dir: Dir) -> FlowId {
        let stream = *self.next_flow;
        *self.next_flow += 1;
        self.push(Action::OpenStream { stream, user, dir });
        stream
    }
    /// Sends a UDP datagram of `bytes` payload, cut into IP packets of at most `mtu`.
    pub fn datagram(&mut self, stream: FlowId, bytes: u64, udp: &Udp) {
        let header = udp.header.0 as u32;
        let max_payload = (udp.mtu.0 as u32).saturating_sub(header).max(1) as u64;
        let mut left = bytes.max(1);
        while left > 0 {
            let payload = left.min(max_payload) as u16; // validated: mtu ≤ 65 535
            left -= payload as u64;
            self.push(Action::Datagram { stream, size: payload as u32 + header, payload });
        }
    }
    pub fn rtos(&self, conn: FlowId) -> u64 {
        self.view.rtos(conn)
    }
    pub fn stream_delivery(&self, stream: FlowId) -> (u64, Option<Time>) {
        self.view.stream_delivery(stream)
    }
    /// Records a finished (or, at the end of the run, unfinished) download.
    pub fn record(&mut self, mut d: Download) {
        d.source = self.source as u32;
        self.log.record(d);
    }
    pub fn log(&mut self) -> &mut TrafficLog {
        self.log
    }
}

/// "The bytes you waited for arrived": `side` of `conn` (of `user`, opened with `tag`)
/// has received `delivered` bytes in total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notice {
    pub conn: FlowId,
    pub user: u32,
    pub tag: u32,
    pub side: Side,
    pub delivered: u64,
}

/// The hooks of one traffic model; all but `start` default to doing nothing.
pub trait Application {
    /// At time zero.
    fn start(&mut self, ctx: &mut Ctx);
    /// A wake-up asked for with [`Ctx::wake_at`].
    fn wake(&mut self, _token: u32, _ctx: &mut Ctx) {}
    /// Bytes asked for with [`Ctx::notify`] arrived.
    fn delivered(&mut self, _n: Notice, _ctx: &mut Ctx) {}
    /// Connection `conn` (of `user`, opened with `tag`) is over and gone from
    /// the network, after `rtos` retransmission timeouts (both ends): the
    /// network keeps nothing of it, and [`Ctx::rtos`] may no longer be asked
    /// about it. Called between events (in flow order), once the event in
    /// which it closed is over and its last packet is out of the network;
    /// never for a connection still open or closing at the end of the run.
    /// A model that asks a connection's RTOs after it may be over keeps them
    /// here (the web model's pages).
    fn over(&mut self, _conn: FlowId, _user: u32, _tag: u32, _rtos: u64) {}
    /// End of the run: record what is still in progress.
    fn finish(&mut self, _ctx: &mut Ctx) {}
}

/// UDP packetisation of the datagram models.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Udp {
    /// UDP/IP header bytes on every packet (28: UDP/IPv4, 48: UDP/IPv6).
    pub header: Bytes,
    /// Largest IP packet; longer datagrams are cut into several packets.
    pub mtu: Bytes,
}
impl Default for Udp {
    fn default() -> Self {
        Udp { header: Bytes(28), mtu: Bytes(1500) }
    }
}

/// One traffic source of the `[traffic]` section (or of a `[[traffic]]` array).
#[derive(Clone, Debug, PartialEq)]
pub enum SourceConfig {
    Bulk(bulk::BulkConfig),
    File(bulk::FileConfig),
    Web(http::WebConfig),
    FileDownload(file_download::FileDownloadConfig),
    Upload(upload::UploadConfig),
    Sessions(sessions::SessionsConfig),
    EtsiWeb(etsi_web::EtsiWebConfig),
    Cbr(cbr::CbrConfig),
}

/// A traffic model a scenario can name: the registry `[traffic] model = "…"`
/// is read through, and `cellaqm list traffic` lists.
pub struct Model {
    /// The `model` value.
    pub name: &'static str,
    /// What each user does, in one line.
    pub does: &'static str,
    /// The keys without a default, with an example value (TOML), for the listing.
    pub required: &'static str,
    /// Reads the model's keys (all but `model`, `name`, `first_user`) under `key`.
    parse: fn(toml::Table, &str) -> Result<SourceConfig, String>,
    /// The keys its configuration accepts ([`crate::scenario::keys::of`]).
    pub keys: fn() -> &'static [&'static str],
}

/// Every traffic model, in the order of the table above.
pub const MODELS: &[Model] = &[
    Model {
        name: "bulk",
        does: "the server of each flow sends without end (FTP-like greedy source)",
        required: "",
        parse: |t, key| de(t, key).map(SourceConfig::Bulk),
        keys: keys::of::<bulk::BulkConfig>,
    },
    Model {
        name: "file",
        does: "the server of each flow sends `size` bytes once, then closes",
        required: "size = \"1MB\"",
        parse: |t, key| de(t, key).map(SourceConfig::File),
        keys: keys::of::<bulk::FileConfig>,
    },
    Model {
        name: "web",
        does: "HTTP/1.0 pages: main object, then inlines on parallel connections; reading time between pages",
        required: "",
        parse: |t, key| de(t, key).map(SourceConfig::Web),
        keys: keys::of::<http::WebConfig>,
    },
    Model {
        name: "file_download",
        does: "HTTP/1.1: one persistent connection, pipelined requests, reading time between files",
        required: "",
        parse: |t, key| de(t, key).map(SourceConfig::FileDownload),
        keys: keys::of::<file_download::FileDownloadConfig>,
    },
    Model {
        name: "upload",
        does: "the client uploads files, one connection each, idle time between them or all at random start times",
        required: "size = \"1MB\"",
        parse: |t, key| de(t, key).map(SourceConfig::Upload),
        keys: keys::of::<upload::UploadConfig>,
    },
    Model {
        name: "sessions",
        does: "a session generator over a pool of users: transfers to a random idle user, lost if none is idle",
        required: "users = 60\ninterarrival = \"0.3s\"\nsize = \"250kB\"",
        parse: |t, key| de(t, key).map(SourceConfig::Sessions),
        keys: keys::of::<sessions::SessionsConfig>,
    },
    Model {
        name: "etsi_web",
        does: "ETSI UMTS 30.03 web model: sessions of packet calls of Pareto-sized datagrams",
        required: "",
        parse: |t, key| de(t, key).map(SourceConfig::EtsiWeb),
        keys: keys::of::<etsi_web::EtsiWebConfig>,
    },
    Model {
        name: "cbr",
        does: "constant bit rate over UDP (64 kb/s conversational)",
        required: "",
        parse: |t, key| de(t, key).map(SourceConfig::Cbr),
        keys: keys::of::<cbr::CbrConfig>,
    },
];

/// The model names, for messages: `bulk, file, …`.
fn model_names() -> String {
    MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// Reads a model's table with the scenario's one-line errors naming the key.
fn de<T: for<'de> Deserialize<'de>>(t: toml::Table, key: &str) -> Result<T, String> {
    serde_path_to_error::deserialize(toml::Value::Table(t)).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." || path.is_empty() { key.to_string() } else { format!("{key}.{path}") };
        crate::scenario::describe(&path, &e.inner().to_string())
    })
}

/// A source with the users it drives: `first_user .. first_user + users`.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub config: SourceConfig,
    /// First user (UE) index; absent: after the previous source's users.
    pub first_user: Option<u32>,
    /// Names the source's random streams; absent: its position and model.
    pub name: Option<String>,
}

impl Source {
    /// Reads one source's table (`model`, `name` and `first_user` besides the model's keys).
    fn from_table(mut t: toml::Table, key: &str) -> Result<Source, String> {
        let model = match t.remove("model") {
            Some(toml::Value::String(m)) => m,
            Some(other) => return Err(format!("{key}.model: expected a model name ({}), got {other}", model_names())),
            None => return Err(format!("{key}.model: missing (required; one of {})", model_names())),
        };
        let name = match t.remove("name") {
            None => None,
            Some(toml::Value::String(n)) if !n.is_empty() => Some(n),
            Some(other) => {
                return Err(format!("{key}.name: expected a non-empty string naming the source, got {other}"))
            }
        };
        let first_user = match t.remove("first_user") {
            None => None,
            Some(toml::Value::Integer(n)) if (0..=u32::MAX as i64).contains(&n) => Some(n as u32),
            Some(other) => return Err(format!("{key}.first_user: expected a user index, got {other}")),
        };
        let Some(m) = MODELS.iter().find(|m| m.name == model) else {
            return Err(format!("{key}.model: unknown model \"{model}\" (use one of {})", model_names()));
        };
        let config = (m.parse)(t, key)?;
        Ok(Source { config, first_user, name })
    }

    /// The prefix of the source's random stream names: `traffic.<name>`, or
    /// `traffic<i>.<model>` for the unnamed source at position `i`.
    fn stream_prefix(&self, i: usize) -> String {
        match &self.name {
            Some(name) => format!("traffic.{name}"),
            None => format!("traffic{i}.{}", self.config.model()),
        }
    }
}

/// The random streams of one traffic source, for common random numbers: the
/// same scenario and seed give every user the same requests (sizes, counts,
/// reading and idle times) whatever the queue scheme or the network does,
/// because nothing a user draws is shared with another user or consumed
/// in an order the network decides (Law & Kelton, *Simulation Modeling and
/// Analysis*, 5th ed., §11.2: common random numbers need the draws
/// synchronised, each random number serving the same purpose in every run).
///
/// - `Streams::user`: user `u`'s own stream `<prefix>.user<u>`, `u` counted
///   within the source (adding users to a source keeps the others' draws);
/// - `Streams::named`: a stream for one purpose of the whole source, such
///   as the session generator's arrivals (`<prefix>.arrivals`).
///
/// The prefix is the source's `name` (`traffic.<name>`), so a named source keeps
/// its draws wherever it is in the list; an unnamed one is `traffic<i>.<model>`
/// by position, so only appending sources keeps their draws.
pub struct Streams {
    seed: u64,
    prefix: String,
}

impl Streams {
    fn new(seed: u64, prefix: String) -> Streams {
        Streams { seed, prefix }
    }
    /// The stream of user `u` (0-based within the source).
    fn user(&self, u: u32) -> Rng {
        self.named(&format!("user{u}"))
    }
    /// The streams of users `0 .. n`.
    fn users(&self, n: u32) -> Vec<Rng> {
        (0..n).map(|u| self.user(u)).collect()
    }
    /// The source-wide stream for `purpose`.
    fn named(&self, purpose: &str) -> Rng {
        rng::stream(self.seed, &format!("{}.{purpose}", self.prefix))
    }
}

/// The `[traffic]` section: one source (a table) or several (`[[traffic]]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficConfig {
    pub sources: Vec<Source>,
}

impl SourceConfig {
    pub fn model(&self) -> &'static str {
        match self {
            SourceConfig::Bulk(_) => "bulk",
            SourceConfig::File(_) => "file",
            SourceConfig::Web(_) => "web",
            SourceConfig::FileDownload(_) => "file_download",
            SourceConfig::Upload(_) => "upload",
            SourceConfig::Sessions(_) => "sessions",
            SourceConfig::EtsiWeb(_) => "etsi_web",
            SourceConfig::Cbr(_) => "cbr",
        }
    }

    /// Users (UEs) the source drives.
    pub fn users(&self) -> u32 {
        match self {
            SourceConfig::Bulk(c) => c.flows,
            SourceConfig::File(c) => c.flows,
            SourceConfig::Web(c) => c.users,
            SourceConfig::FileDownload(c) => c.users,
            SourceConfig::Upload(c) => c.users,
            SourceConfig::Sessions(c) => c.users,
            SourceConfig::EtsiWeb(c) => c.users,
            SourceConfig::Cbr(c) => c.users,
        }
    }

    fn validate(&self, key: &str) -> Result<(), String> {
        if self.users() == 0 {
            let what = if matches!(self, SourceConfig::Bulk(_) | SourceConfig::File(_)) { "flows" } else { "users" };
            return Err(format!("{key}.{what}: must be at least 1"));
        }
        match self {
            SourceConfig::Web(c) => c.validate(key),
            SourceConfig::Sessions(c) => c.validate(key),
            SourceConfig::Cbr(c) => c.validate(key),
            _ => Ok(()),
        }
    }

    pub(crate) fn to_json(&self) -> serde_json::Value {
        let v = match self {
            SourceConfig::Bulk(c) => serde_json::to_value(c),
            SourceConfig::File(c) => serde_json::to_value(c),
            SourceConfig::Web(c) => serde_json::to_value(c),
            SourceConfig::FileDownload(c) => serde_json::to_value(c),
            SourceConfig::Upload(c) => serde_json::to_value(c),
            SourceConfig::Sessions(c) => serde_json::to_value(c),
            SourceConfig::EtsiWeb(c) => serde_json::to_value(c),
            SourceConfig::Cbr(c) => serde_json::to_value(c),
        };
        v.expect("traffic configuration serialises")
    }
}

impl TrafficConfig {
    /// Reads the `[traffic]` value: a table (one source) or an array of tables.
    pub fn from_value(v: toml::Value) -> Result<TrafficConfig, String> {
        let tables = match v {
            toml::Value::Table(t) => vec![("traffic".to_string(), t)],
            toml::Value::Array(a) if !a.is_empty() => a
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    toml::Value::Table(t) => Ok((format!("traffic[{i}]"), t)),
                    _ => Err(format!("traffic[{i}]: expected a table")),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err("traffic: expected a [traffic] table or [[traffic]] tables".into()),
        };
        let mut sources: Vec<Source> = Vec::new();
        for (key, t) in tables {
            let source = Source::from_table(t, &key)?;
            if let Some(name) = &source.name {
                if let Some(j) = sources.iter().position(|s| s.name.as_ref() == Some(name)) {
                    return Err(format!("{key}.name: \"{name}\" already names traffic[{j}] (names must be unique)"));
                }
            }
            sources.push(source);
        }
        Ok(TrafficConfig { sources })
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.sources.is_empty() {
            return Err("traffic: missing (required)".into());
        }
        for (i, s) in self.sources.iter().enumerate() {
            let key = if self.sources.len() == 1 { "traffic".to_string() } else { format!("traffic[{i}]") };
            s.config.validate(&key)?;
        }
        Ok(())
    }

    /// The first user index of each source.
    pub fn first_users(&self) -> Vec<u32> {
        let mut next = 0u32;
        self.sources
            .iter()
            .map(|s| {
                let first = s.first_user.unwrap_or(next);
                next = next.max(first.saturating_add(s.config.users()));
                first
            })
            .collect()
    }

    /// Number of users (UEs) across all sources.
    pub fn users(&self) -> u32 {
        self.first_users().iter().zip(&self.sources).map(|(f, s)| f + s.config.users()).max().unwrap_or(0)
    }

    /// The applications of a run with seed `seed`.
    pub fn apps(&self, seed: u64) -> Vec<App> {
        self.first_users()
            .into_iter()
            .zip(&self.sources)
            .enumerate()
            .map(|(i, (first, s))| App::new(&s.config, first, Streams::new(seed, s.stream_prefix(i))))
            .collect()
    }
}

impl<'de> Deserialize<'de> for TrafficConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TrafficConfig::from_value(toml::Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl Serialize for TrafficConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let tables: Vec<serde_json::Value> = self
            .sources
            .iter()
            .map(|src| {
                let mut v = src.config.to_json();
                if let Some(map) = v.as_object_mut() {
                    map.insert("model".into(), src.config.model().into());
                    if let Some(n) = &src.name {
                        map.insert("name".into(), n.clone().into());
                    }
                    if let Some(f) = src.first_user {
                        map.insert("first_user".into(), f.into());
                    }
                }
                v
            })
            .collect();
        match tables.as_slice() {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }
}

/// The running applications, one per source (static dispatch).
pub enum App {
    Bulk(bulk::Bulk),
    Web(http::Web),
    FileDownload(file_download::FileDownload),
    Upload(upload::Upload),
    Sessions(sessions::Sessions),
    EtsiWeb(etsi_web::EtsiWeb),
    Cbr(cbr::Cbr),
}

macro_rules! dispatch {
    ($self:ident, $a:ident => $e:expr) => {
        match $self {
            App::Bulk($a) => $e,
            App::Web($a) => $e,
            App::FileDownload($a) => $e,
            App::Upload($a) => $e,
            App::Sessions($a) => $e,
            App::EtsiWeb($a) => $e,
            App::Cbr($a) => $e,
        }
    };
}

impl App {
    fn new(cfg: &SourceConfig, first_user: u32, rngs: Streams) -> App {
        match cfg {
            SourceConfig::Bulk(c) => App::Bulk(bulk::Bulk::endless(c, first_user)),
            SourceConfig::File(c) => App::Bulk(bulk::Bulk::file(c, first_user, &rngs)),
            SourceConfig::Web(c) => App::Web(http::Web::new(c, first_user, &rngs)),
            SourceConfig::FileDownload(c) => App::FileDownload(file_download::FileDownload::new(c, first_user, &rngs)),
            SourceConfig::Upload(c) => App::Upload(upload::Upload::new(c, first_user, &rngs)),
            SourceConfig::Sessions(c) => App::Sessions(sessions::Sessions::new(c, first_user, &rngs)),
            SourceConfig::EtsiWeb(c) => App::EtsiWeb(etsi_web::EtsiWeb::new(c, first_user, &rngs)),
            SourceConfig::Cbr(c) => App::Cbr(cbr::Cbr::new(c, first_user, &rngs)),
        }
    }
}

impl Application for App {
    fn start(&mut self, ctx: &mut Ctx) {
        dispatch!(self, a => a.start(ctx))
    }
    fn wake(&mut self, token: u32, ctx: &mut Ctx) {
        dispatch!(self, a => a.wake(token, ctx))
    }
    fn delivered(&mut self, n: Notice, ctx: &mut Ctx) {
        dispatch!(self, a => a.delivered(n, ctx))
    }
    fn over(&mut self, conn: FlowId, user: u32, tag: u32, rtos: u64) {
        dispatch!(self, a => a.over(conn, user, tag, rtos))
    }
    fn finish(&mut self, ctx: &mut Ctx) {
        dispatch!(self, a => a.finish(ctx))
    }
}

/// Default start of a user's activity: at time zero.
fn zero() -> Dist<Secs> {
    Dist::fixed(0.0)
}
fn one() -> u32 {
    1
}
/// The WCDMA study's request size: ln(bytes) ~ N(5.93, 0.32²) (median 376 B).
fn wcdma_request() -> Dist<Size> {
    Dist::new(distributions::Family::Lognormal { mu: 5.93, sigma: 0.32 })
}
fn secs(s: f64) -> Dist<Secs> {
    Dist::fixed(s)
}

/// `start` drawn for a user, as an instant.
fn draw_start(d: &Dist<Secs>, rng: &mut Rng) -> Time {
    Time::ZERO + d.dur(rng)
}

/// A download being timed: when it was requested and the RTO count then.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Timing {
    request: Time,
    rtos_at_request: u64,
}

impl Timing {
    fn now(ctx: &Ctx, conns: &[FlowId]) -> Timing {
        Timing { request: ctx.now, rtos_at_request: conns.iter().map(|&c| ctx.rtos(c)).sum() }
    }
}

/// A download record from its timing; `completion` is `None` if unfinished.
/// One object on one connection; set `objects` and `connections` otherwise.
fn download(kind: &'static str, user: u32, bytes: u64, t: Timing, completion: Option<Time>, rtos_now: u64) -> Download {
    let time = completion.map(|c| c.since(t.request));
    Download {
        kind,
        user,
        bytes,
        objects: 1,
        connections: 1,
        request_s: t.request.as_secs_f64(),
        completion_s: completion.map(Time::as_secs_f64),
        time,
        goodput_bps: time.filter(|d| d.0 > 0).map(|d| bytes as f64 * 8.0 / d.as_secs_f64()),
        rtos: rtos_now.saturating_sub(t.rtos_at_request),
        ..Download::default()
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn read(traffic: &str) -> Result<Scenario, String> {
        let text = format!("duration = \"10s\"\n[bottleneck]\nrate = \"1Mbps\"\n{traffic}");
        Scenario::from_toml_str(&text, &[]).map_err(|e| e.0)
    }

    #[test]
    fn errors_name_the_key_inside_traffic() {
        let e = read("[traffic]\nmodel = \"web\"\nreading_tme = \"6s\"").unwrap_err();
        assert!(e.starts_with("traffic.reading_tme: unknown key"), "{e}");
        assert!(e.contains("reading_time") && !e.contains("spacing"), "only the model's keys: {e}");
        let e = read("[traffic]\nmodel = \"sessions\"\nusers = 3\nsize = \"1kB\"").unwrap_err();
        assert_eq!(e, "traffic.interarrival: missing (required)");
        let e = read("[traffic]\nmodel = \"web\"\nmain_size = { dist = \"pareto\", mean = \"25kB\" }").unwrap_err();
        assert!(e.starts_with("traffic.main_size: pareto needs `shape`"), "{e}");
        let e = read("[[traffic]]\nmodel = \"bulk\"\n[[traffic]]\nmodel = \"upload\"\nsize = 5").unwrap_err();
        assert!(e.starts_with("traffic[1].size: expected a size with a unit"), "{e}");
        let e = read("[traffic]\nmodel = \"torrent\"").unwrap_err();
        assert!(e.starts_with("traffic.model: unknown model \"torrent\""), "{e}");
        let e = read("[traffic]\nmodel = \"file\"").unwrap_err();
        assert_eq!(e, "traffic.size: missing (required)");
        let e = read("[traffic]\nmodel = \"bulk\"\nsize = \"1kB\"").unwrap_err();
        assert!(e.starts_with("traffic.size: unknown key"), "{e}");
        let e = read("").unwrap_err();
        assert_eq!(e, "traffic: missing (required)");
        let e = read("[traffic]\nmodel = \"web\"\nusers = 0").unwrap_err();
        assert_eq!(e, "traffic.users: must be at least 1");
        let e = read("[[traffic]]\nmodel = \"bulk\"\nname = \"a\"\n[[traffic]]\nmodel = \"web\"\nname = \"a\"")
            .unwrap_err();
        assert_eq!(e, "traffic[1].name: \"a\" already names traffic[0] (names must be unique)");
        let e = read("[traffic]\nmodel = \"bulk\"\nname = 3").unwrap_err();
        assert!(e.starts_with("traffic.name: expected a non-empty string"), "{e}");
    }

    #[test]
    fn configuration_serialises_to_a_form_that_reads_back() {
        let s = read(
            "[[traffic]]\nmodel = \"web\"\nname = \"browsers\"\ninlines = { dist = \"geometric\", mean = 3 }\n\
             [[traffic]]\nmodel = \"etsi_web\"\nfirst_user = 0\n\
             [[traffic]]\nmodel = \"sessions\"\nusers = 200\ninterarrival = { dist = \"exponential\", mean = \"15ms\" }\n\
             size = { dist = \"pareto\", mean = \"25kB\", shape = 1.1, cap = \"2MB\" }",
        )
        .unwrap();
        let json = serde_json::to_string(&s.traffic).unwrap();
        let back = super::TrafficConfig::from_value(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.sources.len(), 3);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(s.traffic.first_users(), vec![0, 0, 1]);
        assert_eq!(s.traffic.users(), 201);
    }
}
