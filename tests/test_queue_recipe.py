"""docs/queues.md's recipe for adding a queue scheme, followed literally (issue 39, item 7).

The test copies the core crate (with the docs it reads) to a temporary
workspace, makes every step of "Adding a scheme in Rust" as the page writes
it (the ``cp`` command, then each block "after the line ... of FILE"), and
runs the new scheme's tests and the catalogue's with cargo. A step whose
anchor line is not in the code, or a registration the compiler or the
catalogue refuses, fails here: the page had a module name that clashed
(E0428) and left out the PDCP arm.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Adding a scheme in Rust"
#: "After the line `X` of `FILE`:", "Before the last line `X` of `FILE`:" or
#: "After the line starting ``X`` of `FILE`:", then a fenced block.
STEP = re.compile(
    r"(After|Before) the (last )?line (starting )?(``|`)(.+?)\4 of `([^`]+)`[^\n]*:\n\n```\w*\n(.*?)```",
    re.S,
)


def recipe() -> tuple[list[tuple[str, str]], list[tuple[str, bool, bool, str, str, str]]]:
    """The page's copy commands and its insertions: (where, last, prefix, anchor, file, text)."""
    text = (ROOT / "docs" / "queues.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    copies = re.findall(r"^cp (\S+) (\S+)$", section, re.M)
    steps = [(where, bool(last), bool(prefix), anchor, file, block)
             for where, last, prefix, _, anchor, file, block in STEP.findall(section)]
    return copies, steps


def apply(root: Path, steps: list[tuple[str, bool, bool, str, str, str]]) -> None:
    for where, last, prefix, anchor, file, block in steps:
        path = root / file
        lines = path.read_text(encoding="utf-8").split("\n")
        hits = [i for i, line in enumerate(lines) if (line.startswith(anchor) if prefix else line == anchor)]
        assert hits, f"docs/queues.md: no line {anchor!r} in {file}"
        assert last or len(hits) == 1, f"docs/queues.md: the line {anchor!r} is not unique in {file}"
        at = hits[-1] + (1 if where == "After" else 0)
        lines[at:at] = block.rstrip("\n").split("\n")
        path.write_text("\n".join(lines), encoding="utf-8")


def test_the_recipe_names_every_place():
    copies, steps = recipe()
    assert copies == [("docs/examples/fixed_drop.rs", "crates/cellaqm-core/src/queue/fixed_drop.rs")]
    files = [s[4] for s in steps]
    assert files.count("crates/cellaqm-core/src/queue/mod.rs") == 7
    assert {"crates/cellaqm-core/src/radio/bearer/pdcp.rs", "crates/cellaqm-core/src/queue/registry.rs",
            "docs/scenario.md"} <= set(files)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed (the recipe is Rust)")
def test_the_recipe_followed_literally_compiles_and_passes_its_tests(tmp_path: Path):
    work = tmp_path / "workspace"
    shutil.copytree(ROOT / "crates" / "cellaqm-core", work / "crates" / "cellaqm-core",
                    ignore=shutil.ignore_patterns("target"))
    shutil.copytree(ROOT / "docs", work / "docs")
    for name in ("Cargo.lock", "rustfmt.toml", "rust-toolchain.toml"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, work / name)
    manifest = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    manifest = re.sub(r"members\s*=\s*\[[^\]]*\]", 'members = ["crates/cellaqm-core"]', manifest)
    (work / "Cargo.toml").write_text(manifest, encoding="utf-8")

    copies, steps = recipe()
    for source, dest in copies:
        shutil.copy(work / source, work / dest)
    apply(work, steps)

    # The crate's own target directory: its dependencies are built already.
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"))
    proc = subprocess.run(["cargo", "test", "-q", "--offline", "-p", "cellaqm-core", "--lib", "--", "fixed_drop",
                           "catalogue", "pdcp"], cwd=work, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = re.findall(r"test result: ok\. (\d+) passed", proc.stdout)
    assert ran and int(ran[0]) >= 10, proc.stdout[-2000:]
