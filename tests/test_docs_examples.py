"""The examples in README.md and docs/scenario.md stay true to the code."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import cellaqm

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
