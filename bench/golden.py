"""Regression check for optimisations that must not change any simulated result.

    .venv/bin/python bench/golden.py --regen    # record the goldens (with the code you trust)
    .venv/bin/python bench/golden.py            # compare the current build against them

The cases are every scenario file under scenarios/ (recursively) for 120
simulated seconds, and every row of the ns-3 validation matrix
(validation/compare.py: RATES x QUEUES x BUFFERS x FLOWS x SACK) at seed 1 for
the matrix's default duration (``--quick``: a quarter of these). Each case
runs twice through the Python API: once plain, recording
``deterministic_summary()``, the flows, the downloads and the occupancy
distribution in full, and once with ``packets=True, trace=True``, recording a
SHA-256 digest of every packet and trace column (and checking that recording
them changed nothing else). Comparison is exact: the canonical JSON
texts must be identical, except that keys the golden does not have (results a
later version added, such as ``summary.cells``) are left out of the
comparison and counted.

The goldens go to a directory outside the repository (``--dir``, default
/tmp/cellaqm-golden): they are large and belong to the build they came from.
Build the extension first (``make build``).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validation"))

#: Simulated duration of the scenario files (``--quick``: a quarter).
SCENARIO_DURATION_S = 120


def cases(quick: bool) -> list[tuple[str, Any, list[str]]]:
    """(name, scenario path or dict, --set overrides) of every case."""
    import compare

    out: list[tuple[str, Any, list[str]]] = []
    for path in sorted((ROOT / "scenarios").rglob("*")):
        if path.suffix not in (".toml", ".json"):
            continue
        duration = SCENARIO_DURATION_S // (4 if quick else 1)
        out.append((str(path.relative_to(ROOT)), str(path), [f"duration={duration}s"]))
    for rate, queue, buffer, flows, sack in itertools.product(
        compare.RATES, compare.QUEUES, compare.BUFFERS, compare.FLOWS, compare.SACK
    ):
        row = {
            "rate_bps": rate,
            "queue": queue,
            "buffer_bytes": buffer,
            "flows": flows,
            "sack": sack,
            "duration_s": compare.DURATION_S[rate][0] // (4 if quick else 1),
        }
        name = f"row/{rate}-{queue}-{buffer}-{flows}-{'sack' if sack else 'newreno'}"
        out.append((name, compare.scenario(row, 1), []))
    return out


def digest(columns: Any) -> dict[str, str]:
    """SHA-256 of each column (numpy arrays by their bytes, lists by their JSON)."""
    import numpy as np

    out = {}
    for name in sorted(columns):
        value = columns[name]
        h = hashlib.sha256()
        if isinstance(value, np.ndarray):
            h.update(str(value.dtype).encode())
            h.update(value.tobytes())
        else:
            h.update(json.dumps(value).encode())
        out[name] = h.hexdigest()
    return out


def record(case: tuple[str, Any, list[str]]) -> tuple[str, str]:
    """Runs one case; returns its name and the canonical JSON of its results."""
    import cellaqm

    name, scenario, sets = case
    plain = cellaqm.run(scenario, seed=1, sets=sets)
    full = cellaqm.run(scenario, seed=1, sets=sets, packets=True, trace=True)
    result = {
        "summary": plain.deterministic_summary(),
        "flows": plain.flows.to_dict(orient="list"),
        "downloads": plain.downloads.to_dict(orient="list"),
        "occupancy": plain.occupancy.to_dict(orient="list"),
        "recording_changes_nothing": full.deterministic_summary() == plain.deterministic_summary(),
        "packets": digest(full._packet_columns),
        "trace": {table: digest(cols) for table, cols in sorted(full._trace_columns.items())},
    }
    return name, json.dumps(result, sort_keys=True, indent=1, default=str)


def file_of(directory: Path, name: str) -> Path:
    return directory / (name.replace("/", "__") + ".json")


def restrict(now: Any, golden: Any) -> tuple[Any, int]:
    """``now`` without the dict keys that ``golden`` lacks (recursively), and how many were left out."""
    if isinstance(now, dict) and isinstance(golden, dict):
        out, dropped = {}, len(set(now) - set(golden))
        for key in now.keys() & golden.keys():
            out[key], n = restrict(now[key], golden[key])
            dropped += n
        return out, dropped
    return now, 0


def first_difference(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {i + 1}: golden {x.strip()!r} vs now {y.strip()!r}"
    return "lengths differ"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--regen", action="store_true", help="record the goldens instead of comparing")
    p.add_argument("--dir", type=Path, default=Path("/tmp/cellaqm-golden"), help="where the goldens are")
    p.add_argument("--jobs", type=int, default=2, help="processes")
    p.add_argument("--quick", action="store_true", help="shorter durations (a separate set of goldens)")
    p.add_argument("--only", default="", help="only the cases whose name contains this")
    args = p.parse_args()
    directory = args.dir / ("quick" if args.quick else "full")
    todo = [c for c in cases(args.quick) if args.only in c[0]]
    if args.regen:
        directory.mkdir(parents=True, exist_ok=True)
    failed = new_keys = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, text in pool.map(record, todo):
            path = file_of(directory, name)
            if args.regen:
                path.write_text(text)
                continue
            if not path.exists():
                print(f"MISSING {name} (no golden; run with --regen)")
                failed += 1
                continue
            golden = path.read_text()
            now, added = restrict(json.loads(text), json.loads(golden))
            new_keys += added
            text = json.dumps(now, sort_keys=True, indent=1, default=str)
            if golden != text:
                print(f"DIFFERS {name}: {first_difference(golden, text)}")
                failed += 1
    if args.regen:
        print(f"recorded {len(todo)} goldens in {directory}")
        return 0
    print(f"{len(todo) - failed}/{len(todo)} cases identical" + (f" ({new_keys} keys the goldens lack left out)" if new_keys else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
