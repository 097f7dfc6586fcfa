//! Every buffer scheme in one table: its name after `scheme =`, how its
//! parameter table is read, its rule in one line and its parameters' units
//! and meanings. The scenario reader (`parse.rs`), `catalogue::config` and the
//! catalogue (`cellaqm list queues`) all derive from [`SCHEMES`]; each
//! default is the scheme's params struct's `Default`, so it is not repeated
//! here. What cannot come from a table is in `mod.rs`: the [`QueueConfig`]
//! and [`AnyQueue`](super::AnyQueue) variants and their `match` arms, which
//! the compiler asks for.

use super::parse::{no_params, params};
use super::QueueConfig;

/// One parameter: `(name, unit, meaning)`; the name is the scenario key.
pub type ParamDoc = (&'static str, &'static str, &'static str);

/// A scheme as registered.
pub struct Registration {
    /// The name after `scheme =`, as [`QueueConfig`] serialises it.
    pub name: &'static str,
    /// Reads the scheme's parameter table (the keys besides `scheme`); an
    /// error is a `scenario::nested_error` naming the parameter.
    pub read: fn(toml::Table) -> Result<QueueConfig, String>,
    /// The rule, in one line (see the scheme's file for the source).
    pub rule: &'static str,
    pub params: &'static [ParamDoc],
}

impl Registration {
    /// The scheme with every parameter at its default.
    pub fn default_config(&self) -> QueueConfig {
        (self.read)(toml::Table::new()).unwrap_or_else(|e| panic!("scheme {}: {e}", self.name))
    }
}

const DROP: ParamDoc = ("drop", "tail | front", "which packet a signal falls on: the arrival or the oldest queued one");
const ECN: ParamDoc = ("ecn", "bool", "ECN-mark (CE) ECT packets instead of dropping them");

const RED: &[ParamDoc] = &[
    (
        "thresholds",
        "thresholds",
        "on the average queue: { min, max } in bytes (\"10kB\") or packets (5), or \
         rate-adaptive { delay, floor, ratio }",
    ),
    ("max_p", "probability", "drop probability at maxTh, in (0, 1]"),
    ("gentle", "bool", "p_b rises max_p → 1 between maxTh and 2·maxTh instead of jumping to 1"),
    ("w_q", "weight", "queue weight of the average, in (0, 1]; 1 = instantaneous queue"),
    ("mean_packet", "size", "typical packet size, for the average's decay while the queue is idle (w_q < 1)"),
    (
        "drop",
        "tail | front | ns2_front",
        "which packet a signal falls on; ns2_front: early on the arrival, forced on the second queued packet (ns-2.27)",
    ),
    ECN,
    (
        "ns2",
        "bool",
        "ns-2.27's rules: the wait rule, no drop on the first arrival above minTh nor with ≤ 1 packet queued",
    ),
];

/// Every scheme, in the order `cellaqm list queues` shows them.
pub const SCHEMES: &[Registration] = &[
    Registration {
        name: "tail_drop",
        read: |t| no_params(&t).map(|()| QueueConfig::TailDrop),
        rule: "drop the arriving packet when it does not fit the buffer limits (overflow)",
        params: &[],
    },
    Registration {
        name: "drop_front",
        read: |t| no_params(&t).map(|()| QueueConfig::DropFront),
        rule: "when the arrival does not fit, drop packets from the head until it does (overflow_front)",
        params: &[],
    },
    Registration {
        name: "red",
        read: |t| params(t).map(QueueConfig::Red),
        rule: "RED (Floyd & Jacobson) on the average queue with count correction p_a = p_b/(1−count·p_b); \
               a signal drops (early) or marks the arrival or the head",
        params: RED,
    },
    Registration {
        name: "ared",
        read: |t| params(t).map(QueueConfig::Ared),
        rule: "RED with rate-adaptive thresholds minTh = max(floor, delay × link rate), maxTh = ratio × minTh",
        params: RED,
    },
    Registration {
        name: "pdpc",
        read: |t| params(t).map(QueueConfig::Pdpc),
        rule: "below minTh accept; between the thresholds signal only when the counter is 0; at maxTh signal; \
               a signal sets the counter to N, each accepted packet decrements it",
        params: &[
            ("thresholds", "thresholds", "on the instantaneous queue, as for red/ared"),
            ("counter", "packets", "N: packets accepted after a signal before the next one below maxTh"),
            DROP,
            ECN,
        ],
    },
    Registration {
        name: "ttlred1",
        read: |t| params(t).map(QueueConfig::Ttlred1),
        rule: "gentle RED on the sojourn time of the oldest queued packet; only every N-th packet may be signalled",
        params: &[
            ("low_th", "time", "sojourn time of the oldest packet where signalling starts"),
            ("high_th", "time", "sojourn time where the probability reaches max_p (1 at 2·high_th)"),
            ("max_p", "probability", "signal probability at high_th, in (0, 1]"),
            ("every", "packets", "N: only every N-th packet may be signalled (1 = no limit)"),
            DROP,
            ECN,
        ],
    },
    Registration {
        name: "ttlred2",
        read: |t| params(t).map(QueueConfig::Ttlred2),
        rule: "a random lifetime on entry (short with probability max_p); every scan period expired packets \
               are dropped (expired), except partly sent ones",
        params: &[
            ("low_th", "time", "shortest lifetime"),
            ("high_th", "time", "longest lifetime; also that of a SYN or of an arrival to an empty buffer"),
            ("max_p", "probability", "probability of a short lifetime, U(low_th, high_th/2)"),
            ("scan", "time", "period T of the scan for expired packets"),
            ("ecn", "bool", "ECN-mark expired ECT packets (once) instead of dropping them"),
        ],
    },
    Registration {
        name: "codel",
        read: |t| params(t).map(QueueConfig::Codel),
        rule: "RFC 8289: once the head's sojourn time has stayed above target for an interval, drop at \
               departure (target_exceeded), the drops spaced interval/√count",
        params: &[
            ("target", "time", "acceptable standing queue delay (sojourn time)"),
            ("interval", "time", "how long the sojourn time must stay above target before dropping starts"),
            ECN,
            ("mtu", "size", "MAXPACKET: with this much or less queued, the sojourn never counts as above target"),
        ],
    },
    Registration {
        name: "pie",
        read: |t| params(t).map(QueueConfig::Pie),
        rule: "RFC 8033: drop arrivals (early) with a probability a PI controller steers towards the target delay",
        params: &[
            ("target", "time", "QDELAY_REF: the target queue delay"),
            ("tupdate", "time", "T_UPDATE: period of the probability update"),
            ("alpha", "1/s", "weight of the deviation from target"),
            ("beta", "1/s", "weight of the delay trend"),
            ("max_burst", "time", "MAX_BURST: burst allowance"),
            ("ecn", "bool", "mark ECT packets instead of dropping while the probability is ≤ 10 %"),
            ("derandomize", "bool", "de-randomised dropping with the accumulated probability"),
            ("cap_drop_adjustment", "bool", "cap the probability step at 2 % once it is ≥ 10 %"),
            ("mean_packet", "size", "MEAN_PKTSIZE: no early drop with at most two of these queued"),
        ],
    },
    Registration {
        name: "fq_codel",
        read: |t| params(t).map(QueueConfig::FqCodel),
        rule: "RFC 8290: flows hashed into queues served by deficit round robin, CoDel per queue; over the \
               limits a batch is dropped from the head of the fattest queue, up to half its bytes and at most \
               drop_batch_size packets (overflow_front)",
        params: &[
            ("flows", "count", "number of flow queues"),
            ("quantum", "size", "deficit round robin quantum"),
            ("target", "time", "CoDel target per queue"),
            ("interval", "time", "CoDel interval per queue"),
            ECN,
            ("mtu", "size", "CoDel's MAXPACKET per queue: with this much or less queued in a flow, no drop"),
            ("drop_batch_size", "packets", "most packets one overflow drops from the fattest queue (1 = one packet)"),
        ],
    },
    Registration {
        name: "dff",
        read: |t| no_params(&t).map(|()| QueueConfig::Dff),
        rule: "at departure, discard the head while the queue exceeds the buffer limits (overflow_front); \
               arrivals are never refused",
        params: &[],
    },
    Registration {
        name: "pdcp_discard",
        read: |t| params(t).map(QueueConfig::PdcpDiscard),
        rule: "at departure, discard heads that waited longer than delay_threshold (age)",
        params: &[
            ("delay_threshold", "time", "discard timer: a head older than this at departure is discarded"),
            ("overflow", "tail | front", "a full buffer drops the arrival (tail) or its oldest packets (front, DFF)"),
        ],
    },
    Registration {
        name: "taqm",
        read: |t| params(t).map(QueueConfig::Taqm),
        rule: "at departure, with more than lower_drop_threshold packets queued, discard a head older than \
               max_age, or older than min_age and min_inter_drop after the previous drop (age)",
        params: &[
            ("min_age", "time", "minAgeThreshold: a head older than this may be dropped"),
            ("min_inter_drop", "time", "minInterDropTime: least time between two min_age drops"),
            ("lower_drop_threshold", "packets", "never drop with this many packets queued or fewer"),
            ("max_age", "time", "maxAgeThreshold: a head older than this is dropped regardless"),
            ("overflow", "tail | front", "a full buffer drops the arrival (tail) or its oldest packets (front, DFF)"),
        ],
    },
];

/// The registration of scheme `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Registration> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// Every scheme's name, comma-separated, for error messages.
pub fn one_of() -> String {
    SCHEMES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}
