"""Issue 26: runs that stop on Ctrl-C, outputs that never mislabel, a store
that names what is corrupt, one-line errors. One section per item."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cellaqm
from conftest import _cellaqm_command
from cellaqm.progress import RunProgress

#: A run far longer than any test waits for.
ENDLESS = """\
duration = "100000000s"
[traffic]
model = "bulk"
[bottleneck]
rate = "2Mbps"
buffer = "30kB"
"""


# ------------------------------------------------------------------ 1. Ctrl-C stops a run


class Stop(Exception):
    pass


def test_an_exception_from_progress_stops_the_run():
    seen = []

    def progress(simulated_s: float, duration_s: float) -> None:
        seen.append((simulated_s, duration_s))
        if len(seen) == 3:
            raise Stop

    with pytest.raises(Stop):
        cellaqm.run(_endless_dict(), progress=progress)
    assert seen[-1][1] == 1e8 and 0 < seen[-1][0] < 1e8


def _endless_dict() -> dict:
    return {"duration": "100000000s", "traffic": {"model": "bulk"},
            "bottleneck": {"rate": "2Mbps", "buffer": "30kB"}}


def test_sigint_stops_cellaqm_run_in_python():
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cellaqm.run(_endless_dict())
    finally:
        timer.cancel()


def test_sigint_stops_the_cli_with_status_130(tmp_path: Path):
    path = tmp_path / "endless.toml"
    path.write_text(ENDLESS, encoding="utf-8")
    proc = subprocess.Popen([*_cellaqm_command(), "run", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        threading.Event().wait(3.0)  # imported, and well into the run
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip() == "cellaqm: error: interrupted"


def test_progress_shows_simulated_time_and_eta_after_a_few_seconds():
    now = [0.0]
    stream = io.StringIO()
    p = RunProgress(stream, after=3.0, clock=lambda: now[0])
    now[0] = 1.0
    p(100.0, 1000.0)
    assert stream.getvalue() == ""  # short runs show nothing
    now[0] = 10.0
    p(250.0, 1000.0)
    assert stream.getvalue() == "\rsimulated 250 of 1,000 s (25%), 10s elapsed, ETA 30s (Ctrl-C stops)"
    p.close()
    assert stream.getvalue().endswith("\r")
    assert stream.getvalue().rsplit("\r", 2)[1].strip() == ""


# ------------------------------------------------------------------ 2. a reused --out never mixes runs


def test_a_second_run_into_the_same_out_removes_the_firsts_files(cli, scenario_file, tmp_path: Path):
    out = tmp_path / "out"
    assert cli("run", scenario_file, "--packets", "--trace", "--out", out).returncode == 0
    assert (out / "trace").is_dir() and list(out.glob("packets.*"))
    assert cli("run", scenario_file, "--seed", "2", "--out", out).returncode == 0
    assert not (out / "trace").exists() and not list(out.glob("packets.*"))
    proc = cli("plot", out, "--kind", "trace")
    assert proc.returncode == 2 and "no trace" in proc.stderr, proc.stderr


def test_plot_refuses_a_trace_of_another_run(cli, scenario_file, tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("run", scenario_file, "--trace", "--out", a).returncode == 0
    assert cli("run", scenario_file, "--set", "bottleneck.rate=1Mbps", "--out", b).returncode == 0
    (b / "summary.json").replace(a / "summary.json")
    proc = cli("plot", a, "--kind", "trace")
    assert proc.returncode == 2 and proc.stderr.startswith("cellaqm: error: "), proc.stderr
    assert "not of the run in summary.json" in proc.stderr


# ------------------------------------------------------------------ 10. no partial files on a full disk


def test_a_full_disk_leaves_no_partial_run_files(scenario_file, tmp_path: Path, monkeypatch):
    import errno

    import pandas as pd

    res = cellaqm.run(scenario_file, packets=True)
    res.to_dir(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}

    def full(self, path, *args, **kwargs):
        Path(path).write_bytes(b"PAR1 partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.raises(OSError):
        cellaqm.run(scenario_file, packets=True, seed=5).to_dir(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not [n for n in names if n.endswith(".tmp")], names
    assert "summary.json" not in names  # incomplete: no summary claims it
    for p in tmp_path.iterdir():
        assert p.stat().st_size > 0 and before.get(p.name) != b"PAR1 partial"
    assert not (tmp_path / "packets.parquet").exists()


# ------------------------------------------------------------------ 11. file modes honour the umask


def test_store_and_run_files_get_the_modes_of_new_files(scenario_file, tmp_path: Path):
    from cellaqm.files import UMASK
    from cellaqm.store import write_json_atomic

    wanted = 0o666 & ~UMASK
    write_json_atomic(tmp_path / "x.json", {"a": 1})
    assert (tmp_path / "x.json").stat().st_mode & 0o777 == wanted
    for p in cellaqm.run(scenario_file).to_dir(tmp_path / "run"):
        assert p.stat().st_mode & 0o777 == wanted, p


# ------------------------------------------------------------------ 3. a corrupt file in a store


SWEEP = """\
name = "tiny"
base = "{scenario}"
replications = 1
seed = 1
[set]
duration = "2s"
[factors]
"bottleneck.buffer" = ["10kB", "30kB"]
"""


@pytest.fixture
def small_sweep(cli, scenario_file, tmp_path: Path) -> tuple[Path, Path]:
    """A finished two-run sweep (its file, its directory) with the first run's file corrupted."""
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP.format(scenario=scenario_file.as_posix()), encoding="utf-8")
    out = tmp_path / "store"
    proc = cli("sweep", sweep, "--out", out, "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    (out / "results.parquet").unlink()
    first = sorted((out / "runs").glob("*.parquet"))[0]
    first.write_bytes(first.read_bytes()[:40] + b"garbage" * 10)
    return sweep, out


def test_table_and_plot_name_a_corrupt_run_file(cli, small_sweep):
    _sweep, out = small_sweep
    first = sorted((out / "runs").glob("*.parquet"))[0]
    for args in (("table", out, "--metric", "goodput_bps"), ("plot", out, "--metric", "goodput_bps")):
        proc = cli(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("cellaqm: error: ") and len(proc.stderr.splitlines()) == 1
        assert first.name in proc.stderr


def test_resume_reruns_a_corrupt_run(cli, small_sweep):
    sweep, out = small_sweep
    proc = cli("sweep", sweep, "--out", out, "--resume", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    assert "1 run now" in proc.stderr and "1 already finished" in proc.stderr
    assert cli("table", out, "--metric", "goodput_bps").returncode == 0


# ------------------------------------------------------------------ 7. Ctrl-C during a sweep


@pytest.mark.parametrize("second_at_once", [False, True], ids=["after-the-message", "at-once"])
def test_ctrl_c_in_a_sweep_says_what_it_waits_for_and_a_second_one_exits_cleanly(tmp_path: Path,
                                                                                 second_at_once: bool):
    """The second Ctrl-C abandons the runs wherever it lands, even while the first one is being handled."""
    scenario = tmp_path / "endless.toml"
    scenario.write_text(ENDLESS, encoding="utf-8")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP.format(scenario=scenario.as_posix()).replace('duration = "2s"', ""), encoding="utf-8")
    out = tmp_path / "store"
    proc = subprocess.Popen([*_cellaqm_command(), "sweep", str(sweep), "--out", str(out), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120  # the plan is stored just before the runs start (a loaded machine is slow)
        while not (out / "sweep.json").exists() and time.monotonic() < deadline:
            threading.Event().wait(0.05)
        threading.Event().wait(2.0)  # both runs under way
        proc.send_signal(signal.SIGINT)
        if second_at_once:
            threading.Event().wait(0.05)  # (signals sent closer than their delivery merge into one)
            proc.send_signal(signal.SIGINT)
        first_line = proc.stderr.readline()
        if not second_at_once:
            proc.send_signal(signal.SIGINT)
        _out, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert first_line == "cellaqm: finishing 2 runs in flight… (Ctrl-C again to abandon them; --resume reruns them)\n"
    assert proc.returncode == 130, rest
    assert "Traceback" not in rest
    assert rest.splitlines()[-1] == "cellaqm: error: interrupted"
    assert not list((out / "runs").glob("*.parquet")) and not list((out / "failed").glob("*"))


# ------------------------------------------------------------------ 8. one sweep at a time per directory


def test_a_second_sweep_on_a_busy_directory_is_refused(cli, scenario_file, tmp_path: Path):
    from cellaqm.store import Store

    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP.format(scenario=scenario_file.as_posix()), encoding="utf-8")
    out = tmp_path / "store"
    with Store(out).lock():
        proc = cli("sweep", sweep, "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"cellaqm: error: {out}: another sweep (process {os.getpid()}) is writing here; "
                           "wait for it to end, or choose another output directory\n")
    assert not (out / "runs").exists()
    assert cli("sweep", sweep, "--out", out).returncode == 0  # released


# ------------------------------------------------------------------ 9. one line, not a traceback


def _one_line_error(proc, status: int = 2) -> str:
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("cellaqm: error: ")
    return proc.stderr


def test_reproduce_into_an_unwritable_out_fails_at_once(cli, tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    err = _one_line_error(cli("reproduce", "wcdma-rnc-aqm", "--demo", "--quiet", "--out", blocker / "x"), 1)
    assert f"cannot write {blocker / 'x'}" in err


def test_table_refuses_negative_digits(cli, small_sweep):
    assert "--digits" in _one_line_error(cli("table", small_sweep[1], "--metric", "goodput_bps", "--digits", "-1"))


def test_a_set_that_is_not_utf8_is_named(scenario_file, tmp_path: Path):
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([*map(os.fsencode, _cellaqm_command()), b"run", os.fsencode(scenario_file),
                           b"--set", b"bottleneck.rate=\xff"], capture_output=True, env=env)
    proc.stderr = proc.stderr.decode()
    assert "--set 'bottleneck.rate=\\udcff': not UTF-8 text" in _one_line_error(proc)


# ------------------------------------------------------------------ 12. messages that do not mislead


def test_a_rate_with_an_exponent_is_a_number_out_of_range(cli, scenario_file):
    err = _one_line_error(cli("run", scenario_file, "--set", "bottleneck.rate=1e99Mbps"))
    assert "bottleneck.rate: a rate must be between 1bps and 10000Gbps" in err


@pytest.mark.parametrize(("value", "reason"), [(float("nan"), "nan is not a finite number"),
                                               (float("inf"), "inf is not a finite number"),
                                               (None, "None is not a value")])
def test_a_dict_scenario_names_the_key_of_a_bad_value(scenario_dict, value, reason):
    scenario_dict["bottleneck"]["loss"] = value
    with pytest.raises(cellaqm.ScenarioError, match=f"^bottleneck.loss: {reason}"):
        cellaqm.run(scenario_dict)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "seed: expected an integer between 0 and 2**64-1, got -1"),
    ({"seed": 2**70}, "seed: expected an integer"),
    ({"buffer_packets": 2**40}, "buffer_packets: expected a whole number of packets"),
    ({"target": float("nan")}, "codel.target: nan is not a finite number"),
    ({"rate": float("nan")}, "rate: nan is not a finite number"),
])
def test_queues_make_names_a_bad_parameter(kwargs, message):
    from cellaqm import queues

    with pytest.raises(cellaqm.ScenarioError) as info:
        queues.make("codel", **kwargs)
    assert str(info.value).startswith(message)


def test_a_json_scenario_that_is_a_list_says_so(cli, tmp_path: Path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    assert "a scenario must be a JSON object of keys (like the TOML's tables), not array" in _one_line_error(
        cli("run", path))


def test_duplicate_labels_are_reported_as_labels(tmp_path: Path):
    from cellaqm.sweepfile import SweepError, load_plan

    base = {"duration": "1s", "traffic": {"model": "bulk"}, "bottleneck": {"rate": "1Mbps", "buffer": "10kB"}}
    sweep = {"name": "s", "base": base, "factors": {"buf": {"path": "bottleneck.buffer",
                                                             "levels": ["10kB", "20kB"], "labels": ["x", "x"]}}}
    with pytest.raises(SweepError, match=r"factor buf: duplicate label 'x' \(levels 1 and 2\)$"):
        load_plan(sweep)


def test_a_table_without_factors_has_no_empty_header_cell(tmp_path: Path):
    from cellaqm.table import render, table_cells

    base = {"duration": "1s", "traffic": {"model": "bulk"}, "bottleneck": {"rate": "1Mbps", "buffer": "10kB"}}
    df = cellaqm.sweep({"name": "s", "base": base, "replications": 2}, jobs=1)
    text = render(table_cells(df, "goodput_bps"), "md")
    assert "| goodput_bps |" in text.splitlines()
    assert "|  |" not in text and "| |" not in text


# ------------------------------------------------------------------ 13. smaller items


def test_tukey_hsd_keeps_the_sweeps_level_order():
    import numpy as np
    import pandas as pd

    from cellaqm.stats import tukey_hsd

    levels = ["10kB", "20kB", "100kB"]
    df = pd.DataFrame({"buffer": pd.Categorical(np.repeat(levels, 4), categories=levels, ordered=True),
                       "y": np.repeat([1.0, 2.0, 3.0], 4) + np.tile([0.0, 0.1, -0.1, 0.05], 3)})
    tk = tukey_hsd(df, "y", "buffer")
    assert list(zip(tk.group1, tk.group2)) == [("10kB", "20kB"), ("10kB", "100kB"), ("20kB", "100kB")]
    assert list(tk.mean_diff.round(6)) == [1.0, 2.0, 1.0]


def test_plot_out_pdf_writes_a_pdf(cli, small_sweep, tmp_path: Path):
    _sweep, out = small_sweep
    for corrupt in (out / "runs").glob("*.parquet"):
        corrupt.unlink()  # the corrupted one too: rerun them
    assert cli("sweep", _sweep, "--out", out, "--resume", "--jobs", "1").returncode == 0
    target = tmp_path / "x.pdf"
    proc = cli("plot", out, "--metric", "goodput_bps", "--out", target)
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes().startswith(b"%PDF") and not (tmp_path / "x.pdf.png").exists()


def test_a_yaml_scenario_is_refused(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text("duration: 10s\n", encoding="utf-8")
    with pytest.raises(cellaqm.ScenarioError, match=r"s\.yaml: a scenario file is TOML \(\.toml\) or JSON \(\.json\), not \.yaml"):
        cellaqm.run(path)


REPO = Path(__file__).resolve().parents[1]


def test_the_docs_sweep_file_example_is_a_valid_sweep():
    from cellaqm.sweepfile import load_plan

    text = (REPO / "docs" / "experiments.md").read_text(encoding="utf-8")
    example = text.split("## Sweep files", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    example = example.replace('"../scenarios/default.toml"', f'"{(REPO / "scenarios" / "default.toml").as_posix()}"')
    tomllib = pytest.importorskip("tomllib")
    plan = load_plan(tomllib.loads(example))
    assert len(plan.runs) == 640


def test_readme_and_wcdma_doc_agree_on_the_reproduce_time():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    wcdma = (REPO / "docs" / "wcdma.md").read_text(encoding="utf-8")
    assert "headline table (about 20 s on 2 cores)" in readme
    assert "(about 20 s on 2 cores)" in wcdma


# ------------------------------------------------------------------ 4. trace figures of long runs


def test_thin_keeps_each_bins_first_last_and_extremes():
    import numpy as np
    import pandas as pd

    from cellaqm.plot import thin

    t = np.linspace(0, 100, 100_001)
    y = np.sin(t) * 1000 + np.where(np.arange(len(t)) == 54_321, 1e6, 0)  # one spike
    df = pd.DataFrame({"time_s": t, "v": y})
    kept = thin(df, "v", 0.0, 100.0, bins=100)
    assert len(kept) <= 4 * 100
    assert kept["v"].max() == y.max() > 1e5 and kept["v"].min() == y.min()
    assert kept["time_s"].iloc[0] == 0.0 and kept["time_s"].iloc[-1] == 100.0
    assert kept["time_s"].is_monotonic_increasing
    assert thin(df.head(50), "v", 0.0, 100.0, bins=100).equals(df.head(50))  # few points: all


def test_the_trace_figure_of_a_long_run_stays_small(tmp_path: Path):
    import numpy as np
    import pandas as pd

    from cellaqm import plot

    n = 400_000  # about a 10-hour run at 384 kb/s
    t = np.linspace(0.0, 36_000.0, n)
    flow = np.zeros(n, dtype=np.uint32)
    tables = {
        "cwnd": pd.DataFrame({"time_s": t, "flow": flow, "dir": "down", "cwnd_bytes": (t % 97 * 1000).astype(np.uint64),
                              "ssthresh_bytes": np.full(n, 30_000, dtype=np.uint64)}),
        "queue": pd.DataFrame({"time_s": t, "bytes": (t % 53 * 1000).astype(np.uint64),
                               "packets": (t % 53).astype(np.uint32)}),
        "drops": pd.DataFrame({"time_s": t[::20], "flow": flow[::20], "dir": "down", "uid": np.arange(n // 20),
                               "size": 1500, "cause": "overflow"}),
        "delivered": pd.DataFrame({"time_s": t, "flow": flow, "seq": np.arange(n, dtype=np.uint64) * 1460,
                                   "len": 1460, "retransmission": np.arange(n) % 50 == 0}),
    }
    fig, _notes = plot.trace(tables)
    written = plot.save(fig, tmp_path / "trace")
    for path in written:
        assert path.stat().st_size < 3_000_000, (path, path.stat().st_size)


# ------------------------------------------------------------------ 6. reading a store back in bounded memory


def test_reading_run_files_back_holds_one_batch_at_a_time(tmp_path: Path, monkeypatch):
    import pyarrow as pa

    import cellaqm.store as store

    row = {"run_id": "", "rep": 0, "seed": 1, **{f"metric_{i}": float(i) for i in range(100)}}
    paths = []
    for i in range(600):
        path = tmp_path / f"r{i}.parquet"
        store.write_table_atomic(path, pa.Table.from_pylist([{**row, "run_id": f"r{i}"}]), lean=True)
        paths.append(path)
    one = store._read_one(paths[0]).nbytes
    real = store._read_one
    start = pa.total_allocated_bytes()
    peak = [0]

    def counting(path):
        peak[0] = max(peak[0], pa.total_allocated_bytes() - start)
        return real(path)

    monkeypatch.setattr(store, "_read_one", counting)
    monkeypatch.setattr(store, "READ_BATCH", 50, raising=False)
    df = store.read_rows(paths)
    assert list(df["run_id"]) == [f"r{i}" for i in range(600)]
    assert peak[0] < 200 * max(one, 8 * 1024), (peak[0], one)  # all 600 at once would be ~600 of them
