"""Reading one JSON line from outside (a ``bench settle`` input line) within
bounds, so that a hostile line is refused in one line naming the limit, in
bounded time and memory, never with a traceback.

Limits: a line over ``MAX_BYTES``; nesting deeper than ``MAX_DEPTH``; an
integer of more than ``MAX_INT_DIGITS`` digits (no stake, round or face comes
near: the largest amount in minor units a table takes has a dozen digits);
NaN and infinities, which are not JSON.
"""

from __future__ import annotations

import json
from typing import Any, Iterator


MAX_BYTES = 1 << 20     # 1 MiB: a round of a thousand wagers is under 100 KB
MAX_DEPTH = 32          # a settle line nests three levels deep
MAX_INT_DIGITS = 30


class _Limit(ValueError):
    pass


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Limit(f"an integer of {digits} digits, over the {MAX_INT_DIGITS}-digit limit")
    return int(text)


def _constant(name: str):
    raise _Limit(f"{name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deep ``value`` nests (iteratively: a deep value must not recurse here)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


class JsonLineError(ValueError):
    """A line that is not JSON or breaks a limit (no file or field: the
    caller adds its line number)."""


def parse_line(text: str | bytes) -> Any:
    """The JSON value of one line; JsonLineError for a line that is not JSON
    or breaks a limit."""
    if len(text) > MAX_BYTES:
        raise JsonLineError(f"a line of {len(text)} bytes, over the {MAX_BYTES}-byte limit")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise JsonLineError(f"not UTF-8 text (byte {err.start})") from None
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except _Limit as err:
        raise JsonLineError(str(err)) from None
    except json.JSONDecodeError as err:
        raise JsonLineError(f"not valid JSON: {err.msg} at column {err.colno}") from None
    except RecursionError:
        raise JsonLineError(f"nested deeper than the {MAX_DEPTH}-level limit") from None
    except ValueError as err:
        raise JsonLineError(f"not valid JSON: {err}") from None
    if _depth(value) > MAX_DEPTH:
        raise JsonLineError(f"nested deeper than the {MAX_DEPTH}-level limit")
    return value


def numbered_lines(stream) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for each line of a binary stream, reading at most
    ``MAX_BYTES`` of a line into memory: an over-long line comes as None
    (the rest of it skipped), for the caller to refuse."""
    number = 0
    while line := stream.readline(MAX_BYTES + 1):
        number += 1
        if len(line) > MAX_BYTES:
            while line and not line.endswith(b"\n"):
                line = stream.readline(1 << 16)
            yield number, None
        else:
            yield number, line
