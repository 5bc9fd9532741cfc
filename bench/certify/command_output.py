"""A step's commands' output read back: the JSON objects of a ``--json``
output, a line each, and the verdict line among them.

Apart from the judges (``bench.certify.judge_*``), every one of which reads
its commands' output this way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a command's output, a line each (a line that is not one is left out)."""
    found = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _verdict_line(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return next((d for d in reversed(lines) if d.get("record") == "verdict" or d.get("verdict") is True), {})
