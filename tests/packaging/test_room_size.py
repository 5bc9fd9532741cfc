"""Rooms a reader can hold (issue 43, item 3): no module of the bench, the
twin or their I/O over 500 lines unless its docstring says why, in a
paragraph that begins "Why this module is over 500 lines:"."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bench", "twin", "tablebench_io")
LIMIT = 500
REASON = "Why this module is over 500 lines:"


def _over_without_reason() -> list[str]:
    found = []
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.count("\n") + (not text.endswith("\n"))
            if lines <= LIMIT:
                continue
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if REASON not in docstring:
                found.append(f"{path.relative_to(ROOT).as_posix()}: {lines} lines")
    return found


def test_no_module_over_500_lines_without_its_reason():
    assert _over_without_reason() == []


def test_the_check_finds_a_long_module_without_a_reason(tmp_path, monkeypatch):
    """The check itself: a 501-line module with no reason is named; with one, it is not."""
    package = tmp_path / "bench"
    package.mkdir()
    body = "\n".join(f"x{i} = {i}" for i in range(LIMIT)) + "\n"
    (package / "long.py").write_text('"""A long module."""\n' + body)
    (package / "explained.py").write_text(f'"""A long module.\n\n{REASON} it must be.\n"""\n' + body)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("bench",))
    assert _over_without_reason() == [f"bench/long.py: {LIMIT + 1} lines"]
