"""``cellaqm reproduce wcdma-rnc-aqm --quick``: the WCDMA study's table in CI, and the command's options."""

from __future__ import annotations

import csv

import pytest

from cellaqm import wcdma
from cellaqm.cli import main


def test_quick_reproduce_writes_the_table(tmp_path, capsys):
    assert main(["reproduce", "wcdma-rnc-aqm", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader((tmp_path / "table.csv").open()))
    assert len(rows) == 9 * 6  # 8 rows + the 2.5 MB case, x 6 schemes
    assert {r["scheme"] for r in rows} == {"TD", "RED", "ARED", "PDPC", "TTLRED1", "TTLRED2"}
    for r in rows:
        assert r["runs"] == "2"
        assert float(r["goodput_kbps"]) > 0 and float(r["p95_ms"]) > 0
        if r["scheme"] == "TD":
            assert float(r["p95_ms_vs_td_pct"]) == 0.0
    # On the R99 64k file row an AQM cuts the p95 delay well below tail drop's.
    dch64 = {r["scheme"]: r for r in rows if r["case"] == "R99 64k, file 250 kB"}
    assert float(dch64["ARED"]["p95_ms"]) < 0.7 * float(dch64["TD"]["p95_ms"])
    report = (tmp_path / "report.md").read_text()
    assert "| HSDPA 3.6M, file 2.5 MB | TTLRED2 |" in report
    out = capsys.readouterr().out
    assert "runs' own times sum to" in out
    assert wcdma.DOC in out
    # The study's five observations follow the comparison, on its table and on ours.
    assert "The study's stated observations" in out and '5. "TTLRED for incoming packets' in out
    assert "| ARED, PDPC and TTLRED best |" in report
    # The summary at the top quotes the comparison with Table I; the comparison precedes the experiment.
    summary = report[:report.index("\n## ", report.index("## Summary") + 5)]
    assert "- Published results: vs the published Table I (48 cells)" in summary
    assert report.index("## Next to the published Table I") < report.index("## Table I: p95 IP packet delay")
    assert len(list(csv.DictReader((tmp_path / "comparison.csv").open()))) == 48


def test_a_set_the_scenarios_refuse_is_one_line(tmp_path, capsys):
    assert main(["reproduce", "wcdma-rnc-aqm", "--quick", "--quiet", "--set", "radio.rlc.status.prohibit=fast",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cellaqm: error: --set radio.rlc.status.prohibit=fast: "
                                                   "experiment table (case R99 64k, web, scheme TD): "), err
    assert "radio.rlc.status.prohibit" in err.split(": ", 4)[-1]


def test_demo_writes_a_plot(tmp_path):
    assert main(["reproduce", "wcdma-rnc-aqm", "--demo", "--duration", "30", "--reps", "2", "--quiet",
                 "--out", str(tmp_path)]) == 0
    assert (tmp_path / "demo.png").stat().st_size > 1000
    rows = list(csv.DictReader((tmp_path / "demo.csv").open()))
    assert {r["case"] for r in rows} == {"R99 384k, web"} and len(rows) == 6


def test_scenario_files_match_the_generator(tmp_path):
    """scenarios/wcdma/ is generated from wcdma.py: regenerate and compare."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1] / "scenarios" / "wcdma"
    written = wcdma.write_scenarios(tmp_path)
    assert len(written) == 6 * 33
    for p in written:
        assert (repo / p.relative_to(tmp_path)).read_text() == p.read_text(), p


@pytest.mark.parametrize("option, value", [("--duration", "0"), ("--duration", "-5"), ("--duration", "nan"),
                                           ("--reps", "0"), ("--reps", "1.5"), ("--jobs", "0")])
def test_a_non_positive_duration_replication_or_job_count_is_an_error(tmp_path, capsys, option, value):
    """``--duration 0`` used to be ignored (read as "not given"): now one line naming the option, status 2."""
    assert main(["reproduce", "wcdma-rnc-aqm", "--quick", "--quiet", option, value, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cellaqm: error: argument " + option + ": expected a positive"), err
    assert not (tmp_path / "table.csv").exists()


def test_the_documented_page_exists():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert (root / wcdma.DOC).is_file()
    assert wcdma.DOC in (root / "README.md").read_text()


def test_quick_umts_rlc_tcp_writes_every_experiment(tmp_path, capsys):
    """``cellaqm reproduce umts-rlc-tcp --quick``: a table and a figure per experiment of the study."""
    from cellaqm import rlc_tcp

    assert main(["reproduce", "umts-rlc-tcp", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
    exps = rlc_tcp.STUDY.experiments
    assert [e.name for e in exps] == ["initial-window", "buffer-tcp", "rto-trace", "startup", "limited-transmit", "eifel",
                                      "status-prohibit", "status-trigger", "rlc-window", "window-channel", "max-dat",
                                      "discard-bursts", "in-order", "buffer-aqm", "buffer-count", "occupancy",
                                      "discard-doppler", "pdu-errors"]
    tables = {e.name: list(csv.DictReader((tmp_path / f"{e.name}.csv").open())) for e in exps}
    for e in exps:
        assert (tmp_path / f"{e.name}.png").stat().st_size > 1000
        assert len(tables[e.name]) == len(e.runs(True, 1))  # a row per point
        assert all(r["runs"] == "2" for r in tables[e.name])
    # A 64-PDU RLC window limits a 384 kb/s bearer with a 100 ms RAN round trip (64 x 40 B per round trip).
    window = {r["RLC window [PDUs]"]: float(r["goodput_kbps"]) for r in tables["rlc-window"]}
    assert window["64"] < 0.3 * window["2047"]
    # Initial window 4 downloads 5 kB faster than 1 (fewer round trips).
    iw = {(r["IP packet size [B]"], r["initial window"]): float(r["download_s"]) for r in tables["initial-window"]}
    assert iw[("1500", "IW 4")] < iw[("1500", "IW 1")]
    # Every download of the quick runs finishes: each goodput has its two runs.
    assert all(r["goodput_kbps_n"] == "2" for r in tables["buffer-aqm"])
    out = capsys.readouterr().out
    report = (tmp_path / "report.md").read_text()
    assert rlc_tcp.DOC in out and "## Fig. 10" in report
    # Every one of the study's 16 findings has a verdict row, none "not run".
    verdicts = {r["id"]: r["verdict"] for r in csv.DictReader((tmp_path / "findings.csv").open())}
    assert list(verdicts) == [f"R{i}" for i in range(1, 17)] and "not run" not in verdicts.values()


def test_umts_rlc_tcp_only_runs_the_named_experiments(tmp_path):
    assert main(["reproduce", "umts-rlc-tcp", "--quick", "--quiet", "--only", "in-order", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.csv", "in-order.csv", "in-order.png", "report.md",
                                                          "store"]
    verdicts = {r["id"]: r["verdict"] for r in csv.DictReader((tmp_path / "findings.csv").open())}
    assert verdicts["R9"] != "not run", "R9 reads only the in-order experiment"
    rows = list(csv.DictReader((tmp_path / "in-order.csv").open()))
    assert [r["in-order delivery"] for r in rows] == ["on", "off"] and "series" not in rows[0]


def test_umts_rlc_tcp_has_no_demo(tmp_path, capsys):
    assert main(["reproduce", "umts-rlc-tcp", "--demo", "--quiet", "--out", str(tmp_path)]) == 2
    assert "umts-rlc-tcp: --demo: this study has no demo" in capsys.readouterr().err
    assert main(["reproduce", "umts-rlc-tcp", "--ray-address", "x:1", "--quiet", "--out", str(tmp_path)]) == 2
    assert "--ray-address needs --backend ray" in capsys.readouterr().err


def test_rlc_reference_file_matches_the_generator(tmp_path):
    """scenarios/rlc-tcp/reference.toml is generated from rlc_tcp.reference()."""
    from pathlib import Path

    from cellaqm import rlc_tcp

    repo = Path(__file__).resolve().parents[1]
    written = rlc_tcp.write_reference(tmp_path)
    assert (repo / rlc_tcp.REFERENCE_FILE).read_text() == written.read_text()
    assert (repo / rlc_tcp.DOC).is_file() and rlc_tcp.DOC in (repo / "README.md").read_text()
