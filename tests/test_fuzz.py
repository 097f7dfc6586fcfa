"""Random scenarios: every buffer scheme and every traffic model, wired and
radio, random rates, buffers, delays, losses, TCP options and seeds. Each run
must end without an error, with its byte ledger balanced and its counts
consistent (every fourth also records packets and a trace, which must agree
with the summary). Small enough for `make test` (a few seconds); raise ``CASES`` to
search longer."""

from __future__ import annotations

import random
from typing import Any

import pytest

import cellaqm
from cellaqm import queues

CASES = 80

MODELS: dict[str, dict[str, Any]] = {
    "bulk": {"flows": 2},
    "file": {"flows": 2, "size": "200kB"},
    "web": {"users": 2, "reading_time": "1s"},
    "file_download": {"users": 2, "size": "100kB", "reading_time": "1s"},
    "upload": {"users": 1, "size": "100kB"},
    "sessions": {"users": 4, "interarrival": {"dist": "exponential", "mean": "1s"}, "size": "50kB"},
    "etsi_web": {"users": 3, "reading_time": {"dist": "exponential", "mean": "2s"}},
    "cbr": {"users": 2},
}
SCHEMES = [s.name for s in queues.catalogue() if s.acts_at == "buffer"]


def scenario(rng: random.Random, scheme: str, model: str) -> dict[str, Any]:
    """A short random scenario with ``scheme`` at the managed buffer and ``model``'s traffic."""
    buffer = rng.choice(["8kB", "30kB", "100kB"])
    doc: dict[str, Any] = {
        "duration": f"{rng.choice([3, 8, 15])}s",
        "tcp": {"recovery": rng.choice(["reno", "newreno", "sack"]),
                "recovery_window": rng.choice(["rfc", "prr"]),
                "rwnd": rng.choice([8, 30, "64kB"]),
                "delayed_ack": rng.random() < 0.5,
                "timestamps": rng.random() < 0.5,
                "initial_window": rng.randint(1, 10),
                "cwnd_validation": rng.random() < 0.3},
        "traffic": {"model": model, **MODELS[model]},
        "core": {"delay": rng.choice(["5ms", "70ms", "200ms"])},
    }
    queue = {"scheme": scheme}
    if rng.random() < 0.5:
        bearer = rng.choice(["dch", "hsdpa"])
        doc["radio"] = {"bearer": bearer, "buffer": buffer, "queue": queue,
                        "uplink": {"rate": rng.choice(["64kbps", "384kbps"]), "tti": "20ms", "delay": "15ms"}}
        if bearer == "dch":
            doc["radio"]["dch"] = {"rate": rng.choice(["64kbps", "384kbps"]), "tti": "10ms", "delay": "15ms",
                                   **rng.choice([{}, {"loss": {"mean": 0.015, "burst": 2.0}}])}
        else:
            doc["radio"]["hsdpa"] = {"rate": rng.choice(["1.8Mbps", "3.6Mbps"]),
                                     "scheduler": rng.choice(["round_robin", "max_ci", "proportional_fair"])}
    else:
        doc["bottleneck"] = {"rate": rng.choice(["64kbps", "384kbps", "2Mbps"]), "buffer": buffer,
                             "loss": rng.choice([0.0, 0.0, 0.01, 0.05]), "queue": queue}
        doc["uplink"] = {"rate": rng.choice(["64kbps", "1Mbps"])}
    return doc


def cases() -> list[tuple[int, str, str]]:
    """(seed, scheme, model): every scheme and every model at least twice."""
    return [(i, SCHEMES[i % len(SCHEMES)], list(MODELS)[i % len(MODELS)]) for i in range(CASES)]


@pytest.mark.parametrize(("seed", "scheme", "model"), cases())
def test_a_random_scenario_runs_and_balances(seed: int, scheme: str, model: str) -> None:
    doc = scenario(random.Random(seed), scheme, model)
    recorded = seed % 4 == 0
    res = cellaqm.run(doc, seed=seed + 1, packets=recorded, trace=recorded)
    s = res.summary
    ledger = s["ledger"]
    assert ledger["sent_bytes"] == ledger["delivered_bytes"] + ledger["dropped_bytes"] + ledger["in_flight_bytes"], doc
    assert s["delivered_bytes"] >= 0 and s["goodput_bps"] >= 0
    assert len(res.flows) == s["flows"], doc
    assert (res.flows["bytes_delivered"] >= 0).all()
    if recorded:
        assert len(res.trace["delivered"]) == len(res.packets) == s["delay_ms"]["count"], doc
