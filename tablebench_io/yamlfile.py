"""Reading a YAML input file so that a file that cannot be read, is not
UTF-8, is not YAML or is hostile is refused with one line naming it, in
bounded time and memory.

Limits: a file over ``MAX_BYTES``; nesting deeper than ``MAX_DEPTH`` (the
composer recurses once per level); more than ``MAX_ALIASES`` alias uses (a
"billion laughs" file of a few KB expands to gigabytes once anything walks
it). No design, submission or game file comes near them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import yaml
from yaml.events import AliasEvent

from tablebench_io.located import LocatedError

MAX_BYTES = 1 << 20     # 1 MiB; the largest shipped input is a few KB
MAX_DEPTH = 64
MAX_ALIASES = 64


class _Limit(Exception):
    pass


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that counts nesting and alias uses while composing."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _Limit(f"uses more than {MAX_ALIASES} YAML aliases (an alias bomb?)")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Limit(f"nests deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def read_yaml(path: str | Path, error: Callable[..., Exception] = LocatedError) -> Any:
    """The parsed contents of ``path``; ``error(message, file=path)`` is raised
    if it cannot be read, is too large, is not UTF-8 or not YAML, or breaks a limit."""
    file = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as err:
        raise error(f"cannot read: {err.strerror or err}", file=file) from None
    if len(raw) > MAX_BYTES:
        raise error(f"is larger than {MAX_BYTES} bytes: not an input file", file=file)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"is not UTF-8 text (byte {err.start})", file=file) from None
    return parse_yaml(text, file, error)


def _where(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _syntax_error(err: yaml.YAMLError) -> tuple[str | None, str]:
    """Where in the file a syntax error is and what it is, in one line:
    PyYAML's own text spans several, with the offending line quoted and a
    caret under it (and a file name of its own, "<unicode string>")."""
    problem = getattr(err, "problem", None)
    mark = getattr(err, "problem_mark", None)
    if not problem:
        return None, " ".join(str(err).split())[:300]
    what = " ".join(str(problem).split())
    context, context_mark = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context:
        what += f" ({' '.join(str(context).split())}" + (f" from {_where(context_mark)})" if context_mark else ")")
    return (_where(mark) if mark is not None else None), what[:300]


def parse_yaml(text: str, file: str, error: Callable[..., Exception] = LocatedError) -> Any:
    """``text`` parsed as YAML under the same limits as ``read_yaml``."""
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    except _Limit as err:
        raise error(str(err), file=file) from None
    except yaml.YAMLError as err:
        where, what = _syntax_error(err)
        raise error(f"is not valid YAML{' at ' + where if where else ''}: {what}", file=file) from None
    except RecursionError:
        raise error(f"nests too deeply to read (limit {MAX_DEPTH})", file=file) from None
    finally:
        loader.dispose()
