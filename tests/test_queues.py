"""Queue disciplines used standalone (cellaqm.queues) and `cellaqm list queues`."""

from __future__ import annotations

import json
import math

import pytest

import cellaqm
from cellaqm import queues
from cellaqm.queues import Decision, Drop

BUFFER_SCHEMES = [
    "tail_drop",
    "drop_front",
    "red",
    "ared",
    "pdpc",
    "ttlred1",
    "ttlred2",
    "codel",
    "pie",
    "fq_codel",
    "dff",
    "pdcp_discard",
    "taqm",
]
# Listed after the buffer schemes: (name, where it acts).
OTHERS = [("raqm", "receiver"), ("delay_estimator", "receiver"), ("ack_delay", "reverse path")]
ALL_ENTRIES = BUFFER_SCHEMES + [name for name, _ in OTHERS]


def test_tail_drop_drops_the_third_arrival():
    q = queues.make("tail_drop", buffer_packets=2)
    assert q.enqueue(1500, 0.0) == Decision(0, True, [], False)
    assert q.enqueue(1500, 0.001) == Decision(1, True, [], False)
    assert q.enqueue(1500, 0.002) == Decision(2, False, [Drop(2, "overflow")], False)
    assert (q.packets, q.bytes, len(q)) == (2, 3000, 2)
    first = q.dequeue(0.01)
    assert first.packet is not None and first.packet.uid == 0 and first.dropped == []
    assert first.packet.enqueued == 0.0 and first.packet.size == 1500
    assert q.enqueue(1500, 0.011).accepted  # room again


def test_drop_front_makes_room_at_the_head():
    q = queues.make("drop_front", buffer="3kB")
    q.enqueue(1500, 0.0)
    q.enqueue(1500, 0.0)
    d = q.enqueue(1500, 0.001)
    assert d.accepted and d.dropped == [Drop(0, "overflow_front")]


def test_codel_drop_spacing_is_interval_over_sqrt_count():
    """Arrivals every 1 ms, departures every 2 ms: the sojourn time grows without bound.

    Packet m-1 leaves at 2m ms after (m-1) ms in the queue... its sojourn is m+1 ms, so it
    first reaches the 5 ms target at 8 ms; CoDel drops once it has stayed above for
    100 ms, at 108 ms, then at drop_next += interval/√count (count = 1, 2, ...): each
    drop happens at the first departure at or after drop_next.
    """
    q = queues.make("codel", target="5ms", interval="100ms")
    drops: list[tuple[float, Drop]] = []
    t_ms = 0
    while t_ms <= 1000:
        q.enqueue(1500, t_ms / 1000)
        if t_ms % 2 == 0 and t_ms > 0:
            out = q.dequeue(t_ms / 1000)
            assert out.packet is not None
            drops.extend((t_ms / 1000, d) for d in out.dropped)
        t_ms += 1
    assert drops, "CoDel never dropped"
    assert all(d.cause == "target_exceeded" for _, d in drops)
    times = [t for t, _ in drops]
    assert times[0] == pytest.approx(0.108)
    drop_next = times[0]
    for count, t in enumerate(times[1:], start=1):
        drop_next += 0.100 / math.sqrt(count)
        # on the 2 ms departure grid, at or just after drop_next
        assert drop_next - 1e-6 <= t < drop_next + 0.002 + 1e-6, (count, t, drop_next)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps[0] == pytest.approx(0.100)
    assert gaps[-1] < gaps[0] / 3  # the control law tightens with count
    assert len(drops) > 15


def test_codel_marks_ect_packets_instead_with_ecn():
    q = queues.make("codel", ecn=True)
    marked = []
    for t_ms in range(0, 400):
        q.enqueue(1500, t_ms / 1000, ect=True)
        if t_ms % 2 == 0 and t_ms > 0:
            out = q.dequeue(t_ms / 1000)
            assert out.dropped == []
            if out.packet is not None and out.packet.ce:
                marked.append(t_ms)
    assert marked[0] == 108 and q.marked == len(marked) > 1


def test_pdpc_counter_below_and_above_max_th():
    # Packet thresholds minTh 2, maxTh 5, N = 3; q is the queue before the arrival.
    q = queues.make("pdpc", thresholds={"min": 2, "max": 5}, counter=3)
    dropped = lambda d: [x.uid for x in d.dropped]  # noqa: E731
    assert dropped(q.enqueue(1000, 0.000)) == []  # uid 0, q 0 < minTh
    assert dropped(q.enqueue(1000, 0.001)) == []  # uid 1, q 1
    d = q.enqueue(1000, 0.002)  # uid 2, q 2 and counter 0: signal; counter := 3
    assert d == Decision(2, False, [Drop(2, "early")], False)
    assert dropped(q.enqueue(1000, 0.003)) == []  # uid 3, counter 3 → 2
    assert dropped(q.enqueue(1000, 0.004)) == []  # uid 4, → 1
    assert dropped(q.enqueue(1000, 0.005)) == []  # uid 5, → 0
    assert dropped(q.enqueue(1000, 0.006)) == [6]  # q 5 ≥ maxTh: signal; := 3
    assert dropped(q.enqueue(1000, 0.007)) == [7]  # q 5 ≥ maxTh: signal although counter 3
    assert [q.dequeue(0.008 + i * 0.001).packet.uid for i in range(4)] == [0, 1, 3, 4]
    assert dropped(q.enqueue(1000, 0.012)) == []  # q 1 < minTh: accepted, counter 3 → 2
    assert dropped(q.enqueue(1000, 0.013)) == []  # q 2, counter 2 → 1
    assert dropped(q.enqueue(1000, 0.014)) == []  # q 3, counter 1 → 0
    assert dropped(q.enqueue(1000, 0.015)) == [11]  # q 4, counter 0: signal
    assert q.packets == 4


def test_pdpc_front_and_ecn():
    q = queues.make("pdpc", thresholds={"min": 1, "max": 4}, counter=2, drop="front", ecn=True)
    assert q.enqueue(1000, 0.0, ect=True) == Decision(0, True, [], False)
    # q 1, counter 0: the signal falls on the head (uid 0, ECT) → marked; the arrival is queued
    assert q.enqueue(1000, 0.001) == Decision(1, True, [], True)
    out = q.dequeue(0.002)
    assert out.packet is not None and (out.packet.uid, out.packet.ce) == (0, True)
    assert q.marked == 1


def test_rate_adaptive_thresholds_follow_the_rate():
    # ared/pdpc default: minTh = max(7500 B, 0.5 s × rate / 8). At 64 kb/s minTh = 7500 B;
    # at 1 Mb/s 62500 B, so the same 10 kB backlog signals only at the lower rate.
    def signals(rate):
        q = queues.make("pdpc", rate=rate)
        return [q.enqueue(1000, i * 1e-3).dropped for i in range(10)]

    assert any(signals("64kbps"))
    assert not any(signals(1e6))
    q = queues.make("pdpc")
    assert q.rate == 384e3  # the default
    q.rate = "1Mbps"
    assert q.rate == 1e6


def test_ttlred2_timer_expires_packets_but_spares_a_partly_sent_one():
    q = queues.make("ttlred2", low_th="50ms", high_th="200ms", max_p=1.0, scan="10ms")
    q.enqueue(1000, 0.0)  # empty buffer: the long lifetime, 200 ms
    q.enqueue(1000, 0.001)  # a short lifetime in U(50 ms, 100 ms)
    q.enqueue(1000, 0.002)
    q.mark_started(1)
    assert q.next_timer() is not None
    dropped = q.tick(0.150)  # the scans at 10, 20, ... 150 ms all run
    assert dropped == [Drop(2, "expired")]
    assert q.tick(0.150) == []
    assert q.packets == 2


def test_delay_estimator_worked_examples():
    """The LTE uplink study's (Tan 2009) worked examples: D1 = Δt1/2; D2 = Δt2 + Δt1/4 if L2 < Q1, Δt2/2 if L2 > Q1."""
    e = queues.DelayEstimator()
    assert e.observe(3000, 0, 0.020) == 0.010  # Q1 = 3000 B after Δt1 = 20 ms
    assert (e.estimate, e.queue) == (0.010, 3000)
    assert e.observe(4000, 1000, 0.040) == 0.045  # L2 = 1000 B < Q1: 40 + 20/4 ms
    e = queues.DelayEstimator()
    e.observe(3000, 0, 0.020)
    assert e.observe(2000, 3500, 0.040) == 0.020  # L2 = 3500 B > Q1: 40/2 ms
    assert e.observe(0, 2000, 0.010) == 0.0  # an empty report resets
    with pytest.raises(ValueError, match="dt: expected a duration in seconds >= 0"):
        e.observe(100, 0, -1.0)


def test_raqm_decisions_by_hand():
    # Defaults: lowerDropThreshold 7500 B, minAge 200 ms, minInterDropTime 600 ms.
    r = queues.make("raqm")
    assert isinstance(r, queues.Raqm)
    assert r.on_deliver(0.010, 1500) == "deliver"  # no BSR yet: bsrSize 0 < 7500 B
    assert r.on_bsr(0.600, 100_000, 0) == 0.300  # first BSR after 600 ms: 600/2 ms
    assert r.on_deliver(0.610, 1500) == "drop"  # 300 ms > minAge, no drop yet
    assert r.on_deliver(1.200, 1500) == "deliver"  # 1200 − 610 = 590 ms ≤ 600 ms
    assert r.on_deliver(1.211, 1500) == "drop"  # 601 ms > 600 ms
    assert r.on_bsr(1.300, 7000, 100_000) == 0.350  # 7000 B < 7500 B blocks drops
    assert r.on_deliver(2.000, 1500) == "deliver"
    assert (r.drops, r.dropped_bytes, r.estimate) == (2, 3000, 0.350)
    # non-default parameters
    r = queues.make("raqm", lower_drop_threshold="1kB", min_age="50ms", min_inter_drop="0s")
    r.on_bsr(0.2, 2000, 0)  # estimate 100 ms
    assert [r.on_deliver(0.2 + i * 0.001, 500) for i in range(3)] == ["drop"] * 3


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"min_age": 5}, "raqm.min_age: expected a string with a unit"),
        ({"min_age": "0s"}, "raqm.min_age: must be positive"),
        ({"min_agee": "1s"}, "raqm.min_agee: unknown key"),
        ({"buffer": "10kB"}, "raqm.buffer: does not apply"),
        ({"rate": "1Mbps"}, "raqm.rate: does not apply"),
    ],
)
def test_raqm_bad_parameter_raises_scenario_error_naming_it(params, fragment):
    with pytest.raises(cellaqm.ScenarioError) as err:
        queues.make("raqm", **params)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_raqm_time_must_not_go_back():
    r = queues.make("raqm")
    r.on_bsr(1.0, 100, 0)
    with pytest.raises(ValueError, match="now: time must not go back"):
        r.on_deliver(0.5, 100)


def test_time_must_not_go_back():
    q = queues.make("tail_drop")
    q.enqueue(100, 1.0)
    with pytest.raises(ValueError, match="now: time must not go back"):
        q.dequeue(0.5)


@pytest.mark.parametrize(
    "scheme, params, fragment",
    [
        ("codel", {"target": 5}, "codel.target: expected a string with a unit"),
        ("codel", {"target": "0s"}, "codel.target: must be positive"),
        ("codel", {"tagret": "5ms"}, "codel.tagret: unknown key"),
        ("red", {"max_p": 1.5}, "red.max_p:"),
        ("pdpc", {"thresholds": {"min": 5, "max": 2}}, "pdpc.thresholds.max: must exceed min"),
        ("ttlred1", {"high_th": "100ms"}, "ttlred1.high_th: must exceed low_th"),
        ("tail_drop", {"limit": 3}, "tail_drop.limit: unknown key"),
        ("rde", {}, 'unknown queue scheme "rde" (one of tail_drop, '),
        ("codel", {"buffer": "10"}, "buffer: expected a size with a unit"),
        ("codel", {"rate": "fast"}, "rate: expected a rate"),
    ],
)
def test_bad_parameter_raises_scenario_error_naming_it(scheme, params, fragment):
    with pytest.raises(cellaqm.ScenarioError) as err:
        queues.make(scheme, **params)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


def test_every_scheme_runs_with_its_defaults():
    for name in BUFFER_SCHEMES:
        q = queues.make(name, buffer="10kB")
        for i in range(20):
            q.enqueue(1500, i * 0.001, flow=i % 3)
        left = 0
        while True:
            out = q.dequeue(0.1 + left * 0.01)
            if out.packet is None:
                break
            left += 1
        q.tick(1.0)
        assert q.packets == 0 and q.bytes == 0, name


def test_catalogue_and_dataframe():
    entries = queues.catalogue()
    assert [s.name for s in entries] == ALL_ENTRIES
    assert [(s.name, s.acts_at) for s in entries if s.acts_at != "buffer"] == OTHERS
    codel = next(s for s in entries if s.name == "codel")
    target = next(p for p in codel.params if p.name == "target")
    assert (target.default, target.unit) == ("5ms", "time")
    raqm = next(s for s in entries if s.name == "raqm")
    assert [(p.name, p.default, p.unit) for p in raqm.params] == [
        ("lower_drop_threshold", "7500B", "size"),
        ("min_age", "200ms", "time"),
        ("min_inter_drop", "600ms", "time"),
    ]
    df = queues.schemes()
    assert list(df.columns) == ["scheme", "acts_at", "rule", "parameter", "default", "unit", "meaning"]
    assert set(df["scheme"]) == set(ALL_ENTRIES)
    row = df[(df.scheme == "pdpc") & (df.parameter == "counter")].iloc[0]
    assert (row["default"], row["unit"], row["acts_at"]) == ("20", "packets", "buffer")
    row = df[(df.scheme == "ack_delay") & (df.parameter == "min_th")].iloc[0]
    assert (row["default"], row["unit"], row["acts_at"]) == ("20", "packets", "reverse path")
    # every default is accepted back as a parameter value, by make() for the
    # buffer schemes and R-AQM
    for s in entries:
        if s.acts_at != "buffer" and s.name != "raqm":
            continue
        params = {p.name: p.default for p in s.params if p.name != "thresholds"}
        params = {k: json.loads(v) if v in ("true", "false") or _is_number(v) else v for k, v in params.items()}
        queues.make(s.name, **params)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_cli_list_queues_lists_every_scheme(cli):
    proc = cli("list", "queues")
    assert proc.returncode == 0, proc.stderr
    for name in ALL_ENTRIES:
        assert name in proc.stdout
    assert "interval" in proc.stdout and "100ms" in proc.stdout
    proc = cli("list", "queues", "--json")
    assert proc.returncode == 0
    listed = json.loads(proc.stdout)
    assert [s["name"] for s in listed] == ALL_ENTRIES
    assert [(s["name"], s["acts_at"]) for s in listed if s["acts_at"] != "buffer"] == OTHERS
    assert {"name", "default", "unit", "meaning"} <= set(listed[2]["params"][0])
    one = cli("list", "queues", "codel", "--json")
    assert [s["name"] for s in json.loads(one.stdout)] == ["codel"]
    one = cli("list", "queues", "ack_delay")
    assert one.returncode == 0 and "(reverse path)" in one.stdout and "max_d" in one.stdout


@pytest.mark.parametrize("args", [("list", "queues", "cdel"), ("list", "schemes")])
def test_cli_list_bad_input_is_one_line_exit_2(cli, args):
    proc = cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cellaqm: error: ")


def test_docs_queues_md_examples_run_as_shown(capsys):
    """docs/queues.md: the >>> session, and the complete example prints what the page says."""
    import doctest
    import re
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "queues.md"
    failures, tried = doctest.testfile(str(path), module_relative=False, verbose=False)
    assert tried > 0 and failures == 0
    text = path.read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def replay" in b)
    shown = re.search(r"prints\n\n```text\n(.*?)```", text, re.S).group(1)
    capsys.readouterr()
    exec(compile(code, str(path), "exec"), {})
    assert capsys.readouterr().out == shown


def test_docs_queues_md_rust_example_is_the_compiled_file():
    """docs/queues.md shows docs/examples/fixed_drop.rs, which cargo test compiles and runs, verbatim."""
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    text = (docs / "queues.md").read_text(encoding="utf-8")
    section = text.split("### 1. The file: `queue/fixed_drop.rs`", 1)[1]
    shown = re.search(r"```rust\n(.*?)```", section, re.S).group(1)
    assert shown == (docs / "examples" / "fixed_drop.rs").read_text(encoding="utf-8")
