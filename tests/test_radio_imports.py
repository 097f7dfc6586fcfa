"""The radio layer's files import one another without a circle (issue 37).

A file depends on another when its code names an item of it: a `use` or a path
in the code (`crate::radio::…`, `super::…`, a child module's name). A folder's
`mod.rs` depends on a child it re-exports from (`pub use child::X`), and a
child that names an item of its `mod.rs` depends on it. A path through a
re-export counts as a path to the file that re-exports, since that is the file
the reader opens. Test code (`#[cfg(test)]` items, `tests.rs`) may reach
anywhere for its fixtures and is left out; comments are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "crates" / "cellaqm-core" / "src"
RADIO = SRC / "radio"

# A path of two or more segments, with a `{…}` group or `*` at its end.
PATH = re.compile(r"(?<![\w:])\w+(?:::(?:\w+|\{[^;]*?\}|\*))+")
ITEM_START = re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:mod|fn|impl|use|struct|enum|const|static|macro_rules!)\b")


def module_of(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(SRC).with_suffix("").parts
    return parts[:-1] if parts[-1] == "mod" else parts


def split_group(path: str) -> list[str]:
    """`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`."""
    m = re.match(r"^(.*?)::\{(.*)\}$", path, re.S)
    if not m:
        return [path]
    head, body, depth, item, items = m.group(1), m.group(2), 0, "", []
    for ch in body:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    return [f"{head}::{p}" for it in items if it.strip() for p in split_group(it.strip())]


def code_lines(text: str) -> list[str]:
    """The file's lines outside comments and `#[cfg(test)]` items."""
    out, skip_depth, pending_test, depth = [], None, False, 0
    for line in text.split("\n"):
        code = line.split("//")[0]
        stripped = code.strip()
        if skip_depth is None and pending_test and ITEM_START.match(code):
            skip_depth, pending_test = depth, False
        if stripped == "#[cfg(test)]":
            pending_test = True
        elif skip_depth is None and stripped:
            out.append(code)
        depth += code.count("{") - code.count("}")
        if skip_depth is not None and depth <= skip_depth and (";" in code or "}" in code):
            skip_depth = None
    return out


def dependencies(files: dict[tuple[str, ...], Path]) -> dict[Path, set[Path]]:
    def file_of(parts: list[str]) -> Path | None:
        for n in range(len(parts), 0, -1):
            if tuple(parts[:n]) in files:
                return files[tuple(parts[:n])]
        return None

    graph = {}
    for module, path in files.items():
        deps = set()
        for code in code_lines(path.read_text(encoding="utf-8")):
            for match in PATH.finditer(code):
                for p in split_group(match.group(0)):
                    parts = [s for s in p.split("::") if s not in ("*", "self")]
                    if parts[0] == "crate":
                        target = parts[1:]
                    elif parts[0] == "super":
                        base = list(module)
                        while parts and parts[0] == "super":
                            base, parts = base[:-1], parts[1:]
                        target = base + parts
                    elif (*module, parts[0]) in files:
                        target = [*module, *parts]
                    else:
                        continue
                    dep = file_of(target)
                    if dep is not None and dep != path:
                        deps.add(dep)
        graph[path] = deps
    return graph


def circles(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in graph:
        if v not in index:
            visit(v)
    return found


def radio_graph() -> dict[Path, set[Path]]:
    files = {module_of(p): p for p in sorted(RADIO.rglob("*.rs")) if p.name != "tests.rs"}
    return dependencies(files)


def test_no_import_circle_inside_radio():
    graph = radio_graph()
    assert len(graph) > 60, "the radio layer's files were read"
    named = []
    for component in circles(graph):
        inside = set(component)
        edges = sorted(f"{a.relative_to(RADIO)} -> {b.relative_to(RADIO)}" for a in component for b in graph[a] & inside)
        named.append("; ".join(edges))
    assert not named, "import circles in radio/: " + " | ".join(named)


def test_the_check_sees_a_circle_and_skips_test_code(tmp_path):
    """The checker on a hand-made circle (a mod.rs re-exporting its child, the child using the
    mod.rs's trait), and not on the same use written in a #[cfg(test)] module."""
    global SRC
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mod.rs").write_text("pub mod a;\npub use a::A;\npub trait T {}\n", encoding="utf-8")
    (tmp_path / "x" / "a.rs").write_text("use super::T;\npub struct A;\n", encoding="utf-8")
    (tmp_path / "x" / "b.rs").write_text(
        "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::x::c::C;\n}\n", encoding="utf-8"
    )
    (tmp_path / "x" / "c.rs").write_text("use crate::x::b::B;\npub struct C;\n", encoding="utf-8")
    saved, SRC = SRC, tmp_path
    try:
        files = {module_of(p): p for p in sorted((tmp_path / "x").rglob("*.rs"))}
        found = circles(dependencies(files))
    finally:
        SRC = saved
    assert [sorted(p.name for p in c) for c in found] == [["a.rs", "mod.rs"]]
