//! The flow table over a run in which connections come and go.

use super::flows::{FlowsView, Kind};
use super::{Control, Network, RunOptions};
use crate::time::{Dur, Time};
use crate::traffic::NetView;
use crate::Scenario;

/// Web users on a small lossy bottleneck: many short connections, with
/// retransmissions (some spurious) that arrive after their connection is over.
const WEB: &str = r#"
duration = "120s"
[traffic]
model = "web"
users = 6
reading_time = "0.5s"
inline_size = "8kB"
main_size = "12kB"
[tcp]
rto_min = "50ms"
[bottleneck]
rate = "1Mbps"
buffer = "60kB"
delay = "20ms"
loss = 0.01
"#;

/// Steps the run and looks at the table after each step: it holds the flows
/// open and the connections over whose last packets are still in the
/// network, never one over with none left; late packets are charged to their
/// flow's user (the network looks the user up in the table: a flow gone too
/// soon would fail there), so the users' delays and drops add up to the run's;
/// a connection gone can no longer be asked its RTOs (a debug assertion).
#[test]
fn a_connection_leaves_the_table_once_over_and_out_of_the_network() {
    let s = Scenario::from_toml_str(WEB, &[]).expect("a valid scenario");
    let opts = RunOptions { record_packets: true, ..RunOptions::default() };
    let mut net = Network::new(&s, 1, &opts);
    net.start();
    let (mut largest, mut draining_seen) = (0, 0);
    let end = Time::ZERO + s.duration;
    let mut t = Time::ZERO;
    while t < end {
        t = (t + Dur::from_secs_f64(0.01)).min(end);
        assert!(net.run_until(t, &Control::default()));
        let mut table = 0;
        for f in net.flows.iter() {
            table += 1;
            match f.kind {
                Kind::Tcp(_) | Kind::Udp(_) => {}
                Kind::Draining { .. } => {
                    assert!(f.in_network > 0, "flow {} over with nothing in the network", f.id);
                    draining_seen += 1;
                }
                Kind::Closed(_) => panic!("flow {} closed in an event that is over, still in the table", f.id),
            }
        }
        largest = largest.max(table);
    }
    let opened = net.flows.opened();
    assert!(opened > 1000, "{opened} connections");
    assert!(largest <= 6 * 5, "at most {largest} flows in the table (6 users, up to 5 connections each)");
    assert!(draining_seen > 0, "no connection over with late packets in the network");
    // Asking the RTOs of a connection gone is a model's bug: a debug assertion fails.
    let gone = (0..opened).find(|&id| net.flows.get(id).is_none()).expect("a connection gone");
    let view = std::panic::AssertUnwindSafe(FlowsView(&net.flows));
    let asked = std::panic::catch_unwind(|| view.rtos(gone));
    assert_eq!(asked.is_err(), cfg!(debug_assertions));
    let r = net.finish(0.0);
    assert_eq!(r.summary.flows, opened as usize);
    // Every delivered downlink data packet counted against its flow's user, every drop too.
    let packets = r.packets.as_ref().expect("recorded");
    for u in &r.users {
        let mine = packets.flow.iter().filter(|&&f| r.flows[f as usize].user == u.user).count();
        assert_eq!(u.delay_ms.count, mine as u64, "user {}", u.user);
    }
    let dropped = |m: &std::collections::BTreeMap<&str, u64>| m.values().sum::<u64>();
    let users_drops: u64 = r.users.iter().map(|u| dropped(&u.drops) + dropped(&u.drops_up)).sum();
    assert_eq!(users_drops, dropped(&r.summary.bottleneck.drops) + dropped(&r.summary.uplink.drops));
    assert!(users_drops > 0);
}
