"""The examples in README.md and docs/scenario.md stay true to the code."""

from __future__ import annotations

import ast
import re
import shlex
import sys
from pathlib import Path

import cellaqm

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_dict_scenario_runs():
    match = re.search(r"cellaqm\.run\((\{.*?\})\)\n", README, re.S)
    assert match, "README has a cellaqm.run({...}) example"
    res = cellaqm.run(ast.literal_eval(match.group(1)))
    assert res.summary["goodput_bps"] > 0


def test_smallest_scenario_in_docs_runs(tmp_path):
    doc = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    match = re.search(r"the smallest scenario is\s*```toml\n(.*?)```", doc, re.S)
    assert match, "docs/scenario.md shows the smallest scenario"
    path = tmp_path / "smallest.toml"
    path.write_text(match.group(1), encoding="utf-8")
    assert cellaqm.run(path).summary["goodput_bps"] > 0


def test_readme_seed_example_changes_the_results():
    lines = [line for line in README.splitlines() if line.startswith("cellaqm run") and "--seed" in line]
    assert lines, "README shows --seed"
    for line in lines:
        args = shlex.split(line.split("#")[0])[2:]
        file, options = args[0], args[1:]
        sets = [options[i + 1] for i, o in enumerate(options) if o == "--set"]
        seed = int(options[options.index("--seed") + 1])
        seeded = cellaqm.run(ROOT / file, seed=seed, sets=sets).deterministic_summary()
        default = cellaqm.run(ROOT / file, sets=sets).deterministic_summary()
        assert seeded["seed"] != default["seed"]
        del seeded["seed"], default["seed"]
        assert seeded != default, f"README: {line!r} gives the same results as the file's seed"


def test_raqm_uplink_example_in_docs_runs():
    """docs/scenario.md's and docs/queues.md's [uplink] R-AQM examples are valid and drop with R-AQM."""
    base = 'duration = "20s"\n[tcp]\nrecovery = "sack"\nrwnd = "2097kB"\n[traffic]\nmodel = "upload"\nfiles = 1\nsize = "100MB"\n[core]\ndelay = "60ms"\n'
    base += '[bottleneck]\nrate = "10Mbps"\n'
    for page, heading in (("scenario.md", "### R-AQM and Buffer Status Reports"), ("queues.md", "## R-AQM and combined AQM")):
        doc = (ROOT / "docs" / page).read_text(encoding="utf-8")
        match = re.search(re.escape(heading) + r".*?```toml\n(.*?)```", doc, re.S)
        assert match, f"docs/{page} shows an [uplink] with R-AQM"
        summary = cellaqm.run(tomllib.loads(base + match.group(1))).summary
        assert summary["uplink"]["drops"].get("receiver", 0) > 0, page
        assert summary["bsr"]["reports"] > 0, page


def test_linux_24_tcp_profile_is_the_sweeps_and_runs_both_ways():
    """docs/scenario.md's Linux 2.4 [tcp] block (DSCH study) parses, is sweeps/fack-vs-sack.toml's
    base, and runs with SACK+FACK on and off (NewReno)."""
    doc = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    match = re.search(r"### Linux 2\.4 TCP as the DSCH study ran it.*?```toml\n(.*?)```", doc, re.S)
    assert match, "docs/scenario.md shows the Linux 2.4 [tcp] block"
    tcp = tomllib.loads(match.group(1))["tcp"]
    sweep = tomllib.loads((ROOT / "sweeps" / "fack-vs-sack.toml").read_text(encoding="utf-8"))
    assert tcp == sweep["base"]["tcp"]
    base = {
        "duration": "20s",
        "traffic": {"model": "file", "size": "200kB"},
        "core": {"delay": "100ms"},
        "bottleneck": {"rate": "384kbps", "buffer": "6kB"},
    }
    for pair in ({}, {"recovery": "newreno", "fack": False}):
        summary = cellaqm.run({**base, "tcp": {**tcp, **pair}}).summary
        assert summary["downloads"]["completed"] == 1, pair
        assert summary["fast_retransmits"] > 0, pair


def test_every_compiled_rust_example_is_shown_verbatim():
    """Each docs/examples/*.rs (compiled and tested by cargo test through a #[path] module)
    stands on a docs page exactly as the file is: the scheduler and the radio on
    docs/scenario.md, the queue scheme on docs/queues.md."""
    pages = {
        "longest_queue.rs": "scenario.md",
        "fixed_rate_radio.rs": "scenario.md",
        "fixed_drop.rs": "queues.md",
    }
    examples = sorted(p.name for p in (ROOT / "docs" / "examples").glob("*.rs"))
    assert examples == sorted(pages), "name the page of each example"
    for name, page in pages.items():
        example = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        shown = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert f"```rust\n{example}```" in shown, f"docs/{page}: show docs/examples/{name}"
