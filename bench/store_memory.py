"""Store read-back benchmark: peak memory and time of ``Store.load`` on a large store.

    .venv/bin/python bench/store_memory.py [--runs 100000] [--dir /tmp/cellaqm-store-bench]

Builds (once; kept in ``--dir`` for the next call) a store of ``--runs`` runs
by copying the row of one real run (a sweep with a factor of 10 levels, so
that the rows carry factor labels and a scenario document like real ones),
then reads it back in a fresh process and prints the wall time and the peak
resident memory above the interpreter's with pandas and pyarrow loaded. It
asserts nothing. Target (issue 26): a 100,000-run store read in under 1 GB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Run in a fresh interpreter: the peak RSS of reading the store back.
MEASURE = """
import resource, sys, time
import pandas, pyarrow, pyarrow.parquet
from cellaqm.store import Store
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
df = Store(sys.argv[1]).load()
wall = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{len(df)} runs, {len(df.columns)} columns: {wall:.1f} s, peak {(peak - base) / 1024:.0f} MB above the "
      f"interpreter's {base / 1024:.0f} MB ({(peak - base) / len(df):.1f} kB per run); frame {df.memory_usage(deep=True).sum() / 2**20:.0f} MB")
"""


def build(out: Path, runs: int) -> None:
    """A store of ``runs`` copies of a real run's row (distinct run ids, reps and seeds)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import cellaqm
    from cellaqm.store import Store, write_table_atomic

    if (out / "sweep.json").exists() and len(json.loads((out / "sweep.json").read_text())["runs"]) == runs:
        return
    sweep = {"name": "store-bench", "base": str(ROOT / "scenarios" / "default.toml"), "replications": 1,
             "set": {"duration": "2s"}, "factors": {"bottleneck.buffer": [f"{10 * (i + 1)}kB" for i in range(10)]}}
    cellaqm.sweep(sweep, out=out, jobs=1)
    store = Store(out)
    manifest = store.manifest()
    rows = [pq.read_table(store.run_path(r["run_id"])).to_pylist()[0] for r in manifest["runs"]]
    for p in store.runs_dir.glob("*.parquet"):
        p.unlink()
    (out / "results.parquet").unlink(missing_ok=True)
    entries = []
    for i in range(runs):
        row = dict(rows[i % len(rows)])
        row.update(run_id=f"run{i:07d}", rep=i // len(rows), seed=1 + i // len(rows))
        write_table_atomic(store.run_path(row["run_id"]), pa.Table.from_pylist([row]), lean=True)
        entries.append({"run_id": row["run_id"], "levels": {"bottleneck.buffer": row["bottleneck.buffer"]},
                        "rep": row["rep"], "seed": row["seed"]})
    manifest["runs"] = entries
    (out / "sweep.json").write_text(json.dumps(manifest))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/cellaqm-store-bench"))
    args = ap.parse_args()
    out = args.dir / str(args.runs)
    build(out, args.runs)
    subprocess.run([sys.executable, "-c", MEASURE, str(out)], check=True)


if __name__ == "__main__":
    main()
