"""The architecture the README's layout promises, checked on the source:
`twin` never imports `bench`, `tablebench_io` imports neither, no import
cycle among the modules (imports inside functions counted, TYPE_CHECKING
blocks not), and `bench/` keeps at most six modules at its top level (the
rest live in its wings)."""

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bench", "twin", "tablebench_io")


def modules() -> dict[str, Path]:
    found = {}
    for top in PACKAGES:
        for path in (ROOT / top).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from pkg import sub`` depends on the submodule, not on the package's __init__
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(set(graph) | {w for targets in graph.values() for w in targets}):
        if v not in index:
            visit(v)
    return found


def test_twin_never_imports_bench_and_the_shared_package_imports_neither():
    graph = import_graph()
    upward = [(a, b) for a, targets in graph.items() for b in targets
              if (a.startswith("twin") and b.startswith("bench"))
              or (a.startswith("tablebench_io") and not b.startswith("tablebench_io"))]
    assert upward == []


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_bench_keeps_at_most_six_modules_at_its_top_level():
    top = sorted(p.name for p in (ROOT / "bench").glob("*.py"))
    assert len(top) <= 6, top
