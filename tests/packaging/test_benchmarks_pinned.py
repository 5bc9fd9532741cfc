"""Every benchmark that computes in its own process runs the libm the
commands run (``tablebench_io.portable_math.restart_pinned``, first thing
under ``__main__``): one that did not drew other drops and other p-values
than ``twin`` and ``bench`` give for the same seed, and its figures were
not theirs (docs/reproducibility.md). A benchmark that only runs the
commands in subprocesses needs nothing: they pin themselves."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IN_PROCESS = ("twin", "bench")


def computes_in_process(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in IN_PROCESS:
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in IN_PROCESS for a in node.names):
            return True
    return False


def main_block(tree: ast.Module) -> ast.If | None:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return node
    return None


def first_call(block: ast.If) -> str | None:
    for statement in block.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        calls = [n for n in ast.walk(statement) if isinstance(n, ast.Call)]
        return ast.unparse(calls[-1].func) if calls else None     # the innermost: sys.exit(main()) is main
    return None


def in_process_benchmarks() -> list[Path]:
    """The benchmarks run as programs that import ``twin`` or ``bench`` (not
    the helper modules, nor those that only run the commands)."""
    found = []
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if main_block(tree) is not None and computes_in_process(tree):
            found.append(path)
    return found


def test_the_benchmarks_that_compute_are_found():
    names = {p.name for p in in_process_benchmarks()}
    assert {"tower_bench.py", "rng_battery_bench.py", "floors.py"} <= names and "conformance_line_bench.py" not in names


@pytest.mark.parametrize("path", in_process_benchmarks(), ids=lambda p: p.name)
def test_a_benchmark_computing_in_its_process_runs_the_pinned_libm_first(path):
    block = main_block(ast.parse(path.read_text(encoding="utf-8")))
    assert block is not None and first_call(block) == "restart_pinned", \
        f"{path.name}: call tablebench_io.portable_math.restart_pinned() first under __main__ (docs/reproducibility.md)"
