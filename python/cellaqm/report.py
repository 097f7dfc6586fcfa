"""What ``cellaqm reproduce`` prints and writes: each experiment's table, the published comparison, the
findings, and ``report.md``, which starts with a summary.

Terminal output comes in four formats (``--format``): ``text`` (tables that
fit the width: :mod:`cellaqm.textable`), ``md`` (the report's Markdown),
``csv`` (each table as CSV under a ``# name: title`` line) and ``json`` (one
JSON object per table and line). With ``md``, ``csv`` and ``json`` stdout
holds only the tables; the lines around them go to stderr.

``report.md`` is rewritten as each experiment finishes. It starts with the
summary: what was run, how long it took, the published comparison (the
count of the study's stated findings by verdict, and a published table beside
ours where the study has one); the experiments' sections follow, then, as at
the end of the terminal output, the findings table and the stalled-flow
warning.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TextIO

from cellaqm import findings, study, textable
from cellaqm.findings import Finding, Verdict
from cellaqm.plan import ExperimentPlan, StudyPlan, describe
from cellaqm.study import Comparison

FORMATS = ("text", "md", "csv", "json")
#: The summary's timing line starts with this (it is the only line two reproductions of the same runs differ in).
HOW_LONG = "- How long:"


def _json_value(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def _csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


@dataclass
class Output:
    plan: StudyPlan
    out: Path
    fmt: str = "text"
    #: Called around anything printed (a terminal progress bar steps aside).
    pause: Any = None
    sections: list[str] = field(default_factory=list)
    stalled: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    written: int = 0

    @property
    def study(self) -> study.Study:
        return self.plan.study

    # ------------------------------------------------------------------ printing

    def say(self, text: str) -> None:
        """A line around the tables: stdout in text format, else stderr (stdout keeps only the tables);
        wrapped to the width."""
        self.emit(textable.from_markdown(text, textable.width()), sys.stdout if self.fmt == "text" else sys.stderr)

    def prose(self, text: str) -> None:
        """Markdown beside the tables (an analysis, notes): as text that fits the width, or as Markdown."""
        if self.fmt == "text":
            self.emit(textable.from_markdown(text, textable.width()) + "\n")
        elif self.fmt == "md":
            self.emit(text + "\n")

    def emit(self, text: str, stream: Optional[TextIO] = None) -> None:
        stream = stream or sys.stdout
        if self.pause is not None:
            with self.pause():
                stream.write(text)
                stream.flush()
        else:
            stream.write(text)
            stream.flush()

    def table(self, name: str, title: str, text: textable.Table, md: str, columns: list[str],
              rows: list[dict[str, Any]]) -> None:
        """One table in the chosen format."""
        if self.fmt == "text":
            self.emit(textable.render(text, textable.width()) + "\n")
        elif self.fmt == "md":
            self.emit(md + "\n")
        elif self.fmt == "csv":
            self.emit(f"# {name}: {title}\n" + _csv(columns, rows) + "\n")
        else:
            self.emit(json.dumps({"table": name, "title": title,
                                  "rows": [{c: _json_value(r.get(c)) for c in columns} for r in rows]},
                                 ensure_ascii=False) + "\n")

    def header(self, jobs: int, backend: str) -> None:
        p = self.plan
        self.say(f"{self.study.name} ({p.mode}): {describe(p)}, {p.reps} replication(s) where random, {jobs} jobs"
                 f"{' on Ray' if backend == 'ray' else ''}; model and parameters: {self.study.doc}"
                 + (f"; with {', '.join(p.sets)}" if p.sets else ""))

    # ------------------------------------------------------------------ experiments

    def experiment(self, ep: ExperimentPlan, rows: list[dict[str, Any]]) -> None:
        """An experiment's table on the terminal, its CSV, figure and report section."""
        exp, runs = ep.experiment, ep.runs
        labels = self.study.labels
        md = study.markdown(exp, rows, labels)
        cols = study.columns(rows, exp.group, exp.measures)
        self.table(exp.name, exp.title, study.text_table(exp, rows, labels), md, cols, rows)
        self.stalled += study.stalled_cases(exp.name, runs)
        section = [md, f"![{exp.name}]({exp.name}.png)", ""]
        if exp.analysis is not None:
            text = exp.analysis(runs)
            self.prose(text)
            section += [text, ""]
        self.sections.append("\n".join(section))
        out = self.out

        def write() -> None:
            study.write_csv(rows, cols, out / f"{exp.name}.csv", exact=exp.group)
            exp.figure(runs, rows, out / f"{exp.name}.png")

        study.writing(out, write)
        self.written += 1

    def failures(self, ep: ExperimentPlan, errors: list[str]) -> None:
        """An experiment some of whose runs failed: no table; the errors (``--resume`` reruns them)."""
        line = (f"experiment {ep.name}: {len(errors)} of {len(ep.runs)} runs failed, so it has no table "
                f"(--resume reruns them); first error: {errors[0]}")
        self.failed.append(line)
        self.say(line)
        self.sections.append(f"## {ep.experiment.title}\n\n`{ep.name}`: {line}\n")

    # ------------------------------------------------------------------ the end

    def comparison(self, c: Comparison) -> None:
        self.table("published", c.title, c.table, c.markdown, c.columns, c.rows)
        self.prose("\n".join(c.notes))
        study.writing(self.out, lambda: study.write_csv(c.rows, c.columns, self.out / "comparison.csv", digits=3))

    def findings(self, judged: list[tuple[Finding, Verdict]]) -> None:
        cols = ["id", "strength", "statement", "rule", "evidence", "verdict"]
        rows = [{"id": f.id, "strength": f.strength, "statement": f.statement, "rule": f.rule, "evidence": v.evidence,
                 "verdict": v.verdict} for f, v in judged]
        self.table("findings", findings.TITLE, findings.text_table(judged), findings.markdown(judged), cols, rows)
        study.writing(self.out, lambda: findings.write_csv(judged, self.out / "findings.csv"))

    def report(self, timing: str, judged: Optional[list[tuple[Finding, Verdict]]] = None,
               comparison: Optional[Comparison] = None, done: bool = True) -> str:
        """``report.md``: the summary, the published comparison, the experiments, then (as on the terminal) the
        findings judged and the stalled-flow warning."""
        p, s = self.plan, self.study
        names = ", ".join(f"`{ep.name}`" for ep in p.experiments)
        lines = [f"# {s.title}: cellaqm reproduce {s.name} ({p.mode})", "", "## Summary", "",
                 f"- What was run: {describe(p)} ({names}); {p.reps} replication(s) where random"
                 + (f"; with `--set` {', '.join(p.sets)}" if p.sets else "") + f". Model, parameters and "
                 f"simplifications: {s.doc}.",
                 f"{HOW_LONG} {timing}",
                 "- Every run's row is kept in `store/<experiment>/` beside this report (read one experiment's runs "
                 "with `cellaqm table DIR/store/<experiment> --metric M`)."]
        if not done:
            lines.append(f"- In progress: {len(self.sections)} of {len(p.experiments)} experiments finished.")
        if comparison is not None:
            lines.append(f"- Published results: {comparison.line}.")
        if judged:
            lines.append(f"- The study's stated findings: {findings.counts(judged)} (judged at the end of this "
                         "report).")
        elif comparison is not None and comparison.stated:
            lines.append(f"- The study's stated findings: {comparison.stated}.")
        elif done:
            lines.append("- The study's stated findings: none are judged by this reproduction yet.")
        if self.stalled:
            lines.append(f"- Warning: {len(self.stalled)} run(s) ended with stalled flows (the end of this report).")
        lines += [f"- {line}." for line in self.failed]
        lines.append("")
        if comparison is not None:
            lines += [f"## {comparison.title}", "", comparison.markdown]
        lines += self.sections
        if judged:
            lines.append(findings.markdown(judged))
        if self.stalled:
            lines += ["## Warning", "", study.stall_warning(self.stalled), ""]
        return "\n".join(lines)

    def write_report(self, text: str) -> None:
        study.writing(self.out, lambda: (self.out / "report.md").write_text(text))


def finish_lines(out: Path, written: int) -> str:
    return (f"wrote {out / 'report.md'}, a CSV table and PNG figure per experiment ({written}) in {out}, and every "
            f"run's row in {out / 'store'}")
