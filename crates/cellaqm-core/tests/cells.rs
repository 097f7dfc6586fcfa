//! Many users on one cell: each user's packets take its own bearer, the
//! cell's shared channel divides its capacity, and the results come per user.

mod common;
use cellaqm_core::Scenario;
use common::run_seed;
use std::path::Path;

/// `scenarios/cells/<name>.toml` with `--set` overrides.
fn cells(name: &str, sets: &[&str]) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/cells/{name}.toml"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_file(&path, &sets).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An HSDPA cell (3.6 Mb/s, 70 ms core) with the given traffic and extra `[radio]` text.
fn hsdpa_cell(traffic: &str, radio: &str) -> Scenario {
    common::scenario(&format!(
        r#"
        duration = "60s"
        [tcp]
        mss = "1440B"
        rwnd = 30
        {traffic}
        [core]
        delay = "70ms"
        [radio]
        bearer = "hsdpa"
        buffer = "100kB"
        {radio}
        [radio.hsdpa]
        rate = "3.6Mbps"
        [radio.rlc]
        window = 2047
        "#
    ))
}

#[test]
fn four_bulk_users_on_a_round_robin_hsdpa_cell_each_get_a_quarter_of_the_granted_capacity() {
    let r = run_seed(&cells("hsdpa-4-bulk", &["duration=120s"]), 1);
    assert_eq!(r.users.len(), 4);
    // Flow control grants each active user 0.9 × 3.6 Mb/s / 4 of MAC-d PDUs (42 B carrying 40 B
    // of RLC payload), and TCP/IP headers take 60 of each 1500-byte packet.
    let share = 0.9 * 3.6e6 / 4.0 * (40.0 / 42.0) * (1440.0 / 1500.0);
    for u in &r.users {
        let got = u.bytes_down as f64 * 8.0 / 120.0;
        assert!((got / share - 1.0).abs() < 0.03, "user {}: {got} b/s vs {share}", u.user);
        assert_eq!(u.flows, 1);
        assert!(u.buffer.is_some() && u.radio.is_some());
    }
    let cell = &r.summary.cells[0];
    assert_eq!((cell.users, cell.downlink, cell.scheduler), (4, "hsdpa", Some("round_robin")));
    assert!(cell.tti_utilisation.unwrap() > 0.95, "{cell:?}");
    let total: u64 = r.users.iter().map(|u| u.bytes_down).sum();
    assert_eq!(total, r.flows.iter().map(|f| f.bytes_down).sum::<u64>());
}

#[test]
fn one_users_full_buffer_drops_nothing_of_another() {
    // User 0 downloads without end into a 10 kB PDCP buffer; user 1 browses, with a buffer
    // larger than its four connections' windows, so that only a shared buffer could drop its packets.
    let s = hsdpa_cell(
        "[[traffic]]\nmodel = \"bulk\"\n[[traffic]]\nmodel = \"web\"\nreading_time = \"2s\"",
        "[[radio.groups]]\nusers = 1\nbuffer = \"10kB\"\n[[radio.groups]]\nusers = 1\nbuffer = \"1MB\"",
    );
    let r = run_seed(&s, 3);
    let (full, web) = (&r.users[0], &r.users[1]);
    assert!(full.drops.get("overflow").copied().unwrap_or(0) > 0, "{:?}", full.drops);
    assert!(web.drops.is_empty() && web.drops_up.is_empty(), "{:?}", web.drops);
    assert!(web.bytes_down > 500_000, "{web:?}");
    // Each buffer keeps to its own limit: the bulk user's never held more than 10 kB.
    assert!(full.buffer.as_ref().unwrap().queue_bytes.max.unwrap() <= 10_000);
    assert!(web.buffer.as_ref().unwrap().queue_bytes.max.unwrap() > 10_000);
    // The run's drops are the users' drops.
    let run_drops: u64 = r.summary.drops.values().sum();
    assert_eq!(run_drops, r.users.iter().flat_map(|u| u.drops.values()).sum::<u64>());
}

#[test]
fn users_on_dedicated_channels_do_not_share_them() {
    // A cell of R99 DCHs: each of three bulk users gets its own 64 kb/s whatever the others do.
    let s = common::scenario(
        r#"
        duration = "60s"
        [traffic]
        model = "bulk"
        flows = 3
        [radio]
        bearer = "dch"
        buffer = "30kB"
        [radio.dch]
        rate = "64kbps"
        tti = "20ms"
        [[radio.groups]]
        first_user = 2
        users = 1
        dch = { rate = "128kbps", tti = "20ms" }
        "#,
    );
    let r = run_seed(&s, 1);
    let rate = |u: usize| r.users[u].bytes_down as f64 * 8.0 / 60.0;
    for u in 0..2 {
        assert!(rate(u) > 0.85 * 64e3 * 1440.0 / 1500.0, "user {u}: {}", rate(u));
    }
    assert!(rate(2) > 1.8 * rate(0), "{} vs {}", rate(2), rate(0));
    let cell = &r.summary.cells[0];
    assert_eq!((cell.downlink, cell.scheduler, cell.tti_utilisation), ("dch", None, None));
}

#[test]
fn a_wired_run_is_one_cell_whose_users_share_the_bottleneck() {
    let s = common::scenario(
        "duration = \"30s\"\n[traffic]\nmodel = \"bulk\"\nflows = 2\n[bottleneck]\nrate = \"1Mbps\"\nbuffer = \"30kB\"",
    );
    let r = run_seed(&s, 1);
    assert_eq!(r.summary.cells[0].downlink, "wired");
    assert_eq!(r.users.len(), 2);
    assert!(r.users.iter().all(|u| u.buffer.is_none() && u.radio.is_none() && u.delay_ms.count > 0));
    let delivered: u64 = r.users.iter().map(|u| u.delay_ms.count).sum();
    assert_eq!(delivered, r.summary.delay_ms.count);
}

#[test]
fn groups_name_their_mistakes() {
    let err = |radio: &str| {
        let text = format!(
            "duration = \"1s\"\n[traffic]\nmodel = \"bulk\"\nflows = 3\n[radio]\nbearer = \"hsdpa\"\n[radio.hsdpa]\n{radio}"
        );
        Scenario::from_toml_str(&text, &[]).unwrap_err().0
    };
    assert_eq!(
        err("[[radio.groups]]\nusers = 2\n[[radio.groups]]\nfirst_user = 1\nusers = 1"),
        "radio.groups[1]: users 1..1 overlap radio.groups[0]"
    );
    assert_eq!(err("[[radio.groups]]\nusers = 4"), "radio.groups[0]: users 0..3 but the traffic has 3 users (0..2)");
    assert_eq!(err("[[radio.groups]]\nusers = 0"), "radio.groups[0].users: must be at least 1");
    assert!(err("[[radio.groups]]\nusers = 1\nqueu = 3").starts_with("radio.groups[0].queu: unknown key"));
    assert_eq!(
        err("[[radio.groups]]\nusers = 1\ndch = { rate = \"64kbps\" }"),
        "radio.groups[0].dch: only with radio.bearer = \"dch\""
    );
    assert!(err("[[radio.groups]]\nusers = 1\nqueue = { scheme = \"ttlred2\", ecn = true }")
        .starts_with("radio.groups[0].queue.ecn: not supported in the PDCP buffer"));
    assert!(err("[[radio.groups]]\nusers = 1\nbuffer = \"1kB\"").starts_with("radio.groups[0].buffer: 1kB cannot hold"));
    assert!(err("scheduler = \"fastest\"").starts_with("radio.hsdpa.scheduler: expected one of"));
}

#[test]
fn a_group_keeps_the_template_for_every_key_it_does_not_give() {
    let s = hsdpa_cell(
        "[traffic]\nmodel = \"bulk\"\nflows = 3",
        "queue = { scheme = \"red\" }\n[[radio.groups]]\nfirst_user = 1\nusers = 1\nbuffer = \"30kB\"\npriority = 2\nchannel_rate = \"1.8Mbps\"",
    );
    let r = s.radio.as_ref().unwrap();
    let (b0, b1) = (r.bearer(0), r.bearer(1));
    assert_eq!((b0.buffer.unwrap().0, b1.buffer.unwrap().0), (100_000, 30_000));
    assert_eq!(b1.queue, b0.queue, "the template's RED");
    let (h0, h1) = (r.hsdpa_user(0), r.hsdpa_user(1));
    assert_eq!((h0.priority, h1.priority, h1.channel_bps), (0, 2, Some(1.8e6)));
    assert_eq!((r.bearer(2), r.hsdpa_user(2)), (b0, h0));
}
