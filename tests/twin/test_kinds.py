"""The plant kinds in one place (twin.kinds), and a twin whose modules import
no cycle: the edge estimate and the validation each reach the other's part of
a kind through the registry, not by importing each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from twin.errors import DesignError
from twin.kinds import KINDS, PLANT_KINDS, design_kind, plant_kind

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_names_a_function_for_every_job():
    for kind in PLANT_KINDS.values():
        jobs = ["loader", "one_run", "checks", "edge_estimate", "edge_text", "edge_page", "validation_page"]
        jobs += ["validation_extra"] if kind.validation_extra else []
        for job in jobs:
            assert kind.part(job) is not None, (kind.name, job)
    assert plant_kind("wheel").size_option == "--spins" and plant_kind("tower").runs == "drops"
    with pytest.raises(ValueError, match="tower, wheel"):
        plant_kind("shaker")


def test_a_design_says_its_kind(tmp_path):
    assert [design_kind(name) for name in ("towers/standard", "wheels/standard")] == list(KINDS)
    other = tmp_path / "other.yaml"
    other.write_text("name: x\n", encoding="utf-8")
    with pytest.raises(DesignError, match="neither a tower"):
        design_kind(other)


def _imports(path: Path, module: str) -> set[str]:
    """Every twin module ``path`` imports, at the top or inside a function, with
    the packages each import runs (``import twin.a.b`` runs twin/a/__init__.py)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            found |= {".".join(parts[:k]) for k in range(2, len(parts) + 1) if parts[0] == "twin"}
    # a package's own modules run inside it: its __init__ is already under way
    ancestors = {".".join(module.split(".")[:k]) for k in range(1, module.count(".") + 2)}
    return found - ancestors


def test_the_twin_imports_no_cycle():
    modules = {}
    for path in (ROOT / "twin").rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    graph = {m: {d for d in _imports(p, m) if d in modules} for m, p in modules.items()}
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycle = trail[trail.index(d):] + [d] if d in trail else [m, d]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d, trail + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
