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

import io
import json
import math
from importlib import resources
from typing import Any, TextIO

from tablebench_io import progress

SCHEMA_PACKAGE = "tablebench_schemas"    # the repository's schemas/ folder, shipped under this name

_verdicts_written = 0      # in this process: commandline.make_main ends a --json run that wrote none with one


def verdicts_written() -> int:
    """How many verdict lines this process has written (``JsonLines.verdict``)."""
    return _verdicts_written


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


def json_help(kind: str, version: int = 1) -> str:
    """The ``--json`` option's help, the same words on every command."""
    return (f"write JSON Lines on stdout instead of the text (schema {schema_name(kind, version)}, "
            "the last line the verdict; bench docs json)")


def add_json_option(parser: Any, kind: str, version: int = 1) -> None:
    """Give a command ``--json`` (``args.json``), saying its kind in its help;
    the kind is kept on the parser so that a test finds every reporting
    command's kind (tests/cli/test_json_output.py)."""
    parser.add_argument("--json", action="store_true", help=json_help(kind, version))
    parser.set_defaults(json_kind=kind)


def _finite(value: Any) -> Any:
    """``value`` with every infinite or NaN float as null: JSON has no such
    numbers (Python would write ``NaN``, which a JSON reader refuses), and a
    figure with nothing to divide by (a return on nothing staked) has no value."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


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

    @classmethod
    def collected(cls, kind: str, version: int = 1) -> "JsonLines":
        """Lines kept in memory (``text()``), for a command that writes its
        result through ``commandline.stdout_for_result``'s ``emit``."""
        return cls(kind, version, out=io.StringIO())

    def text(self) -> str:
        """What a ``collected`` writer holds, without its last newline."""
        if not isinstance(self.out, io.StringIO):
            raise RuntimeError(f"{self.schema}: text() of lines not collected")
        return self.out.getvalue().rstrip("\n")

    def line(self, record: str, **fields: Any) -> dict[str, Any]:
        """The object a line carries (``schema`` and ``record`` first; a
        field of either name among ``fields`` would hide them, and is refused)."""
        clash = {"schema", "record"} & fields.keys()
        if clash:
            raise ValueError(f"{self.schema}: a {record!r} line's fields may not be named {sorted(clash)}")
        return {"schema": self.schema, "record": record, **fields}

    def write(self, record: str, **fields: Any) -> None:
        if self.ended:
            raise RuntimeError(f"{self.schema}: a {record!r} line after the verdict")
        self._emit(self.line(record, **fields))

    def verdict(self, *, passed: bool, status: int, **fields: Any) -> None:
        """The last line: whether the run passed and its exit status."""
        global _verdicts_written
        self._emit(self.line("verdict", passed=passed, status=int(status), **fields))
        self.ended = True
        _verdicts_written += 1

    def _emit(self, obj: dict[str, Any]) -> None:
        text = json.dumps(_finite(obj), ensure_ascii=False, allow_nan=False, default=_plain)
        if self.out is None:
            progress.echo(text)          # stdout, below a progress bar that shares the terminal
            return
        self.out.write(text + "\n")
        self.out.flush()
