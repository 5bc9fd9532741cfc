"""One machine-readable shape for every command that reports (issue 41;
docs/json.md): ``--json`` writes JSON Lines on stdout, each line an object
with

* ``schema``: the kind of output and its version, ``tablebench.<kind>/<n>``
  (``tablebench.replay/1``), whose JSON Schema ships as
  ``schemas/<kind>-<n>.schema.json`` (``load_schema``);
* ``record``: what the line is (``round``, ``check``, ``test``, ...);

and the last line ``"record": "verdict"`` with ``passed`` and the command's
exit ``status`` (``tablebench_io.commandline.Exit``), so that a consumer reads
lines as they come and knows the run ended when the verdict arrives (a run
cut short has none). A version changes only when a field changes meaning or
goes away; a new field is added within a version.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from typing import Any, TextIO

SCHEMA_PACKAGE = "tablebench_schemas"    # the repository's schemas/ folder, shipped under this name


def schema_name(kind: str, version: int = 1) -> str:
    """The ``schema`` field of a kind's lines: ``tablebench.replay/1``."""
    return f"tablebench.{kind}/{version}"


def schema_file(kind: str, version: int = 1) -> str:
    """The name of the kind's JSON Schema file in ``schemas/``."""
    return f"{kind}-{version}.schema.json"


def load_schema(kind: str, version: int = 1) -> dict[str, Any]:
    """The JSON Schema a kind's lines validate against (shipped in the wheel)."""
    text = resources.files(SCHEMA_PACKAGE).joinpath(schema_file(kind, version)).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _plain(value: Any) -> Any:
    """What json cannot write by itself: sets (sorted), paths and other objects (their text)."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if hasattr(value, "_asdict"):
        return value._asdict()
    return str(value)


class JsonLines:
    """Writes one command's JSON Lines: ``write`` for each record, then
    ``verdict`` once, last. Each line is flushed as written (a consumer on a
    pipe sees it at once)."""

    def __init__(self, kind: str, version: int = 1, out: TextIO | None = None):
        self.schema = schema_name(kind, version)
        self.out = out
        self.ended = False

    def line(self, record: str, **fields: Any) -> dict[str, Any]:
        """The object a line carries (``schema`` and ``record`` first)."""
        return {"schema": self.schema, "record": record, **fields}

    def write(self, record: str, **fields: Any) -> None:
        if self.ended:
            raise RuntimeError(f"{self.schema}: a {record!r} line after the verdict")
        self._emit(self.line(record, **fields))

    def verdict(self, *, passed: bool, status: int, **fields: Any) -> None:
        """The last line: whether the run passed and its exit status."""
        self._emit(self.line("verdict", passed=passed, status=int(status), **fields))
        self.ended = True

    def _emit(self, obj: dict[str, Any]) -> None:
        out = self.out if self.out is not None else sys.stdout
        out.write(json.dumps(obj, ensure_ascii=False, allow_nan=False, default=_plain) + "\n")
        out.flush()
