"""A YAML mapping read field by field: typed values, the dotted field named in
every error, and unknown fields refused with the nearest known name."""

from __future__ import annotations

import difflib
import math
from typing import Any, Callable, Mapping

from tablebench_io.located import LocatedError


def suggestion(name: str, known) -> str:
    """"; did you mean 'x'?" for the known name nearest ``name``, or ""."""
    near = difflib.get_close_matches(str(name), [str(k) for k in known], n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


def refuse_unknown(data: Mapping, known, *, error: Callable[..., Exception] = LocatedError,
                   file: str | None = None, prefix: str = "") -> None:
    """Raise ``error`` naming the first field of ``data`` not in ``known``."""
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        name = unknown[0]
        raise error(f"is not a known field{suggestion(name, known) or ' (a typo?)'}",
                    file=file, field=f"{prefix}.{name}" if prefix else name)


class Fields:
    """One YAML mapping. Each getter marks its field as read; ``done()``
    refuses whatever the file holds that nobody read."""

    def __init__(self, data: Any, path: str = "", file: str | None = None, *,
                 error: Callable[..., Exception] = LocatedError):
        self.error_class = error
        if not isinstance(data, Mapping):
            raise error(f"must be a mapping of fields, got {type(data).__name__}", file=file,
                        field=path or None)
        self.data, self.path, self.file = data, path, file
        self.used: set[str] = set()

    def field(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str, clause: str | None = None) -> Exception:
        extra = {"clause": clause} if clause else {}
        return self.error_class(message, file=self.file, field=self.field(key), **extra)

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str, default: Any = ...) -> Any:
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                near = difflib.get_close_matches(key, [str(k) for k in self.data if k not in self.used], n=1)
                if near:     # a misspelt name is the likely cause: name that field
                    raise self.error(near[0], f"is not a known field; did you mean {key!r}?")
                raise self.error(key, "missing")
            return default
        return self.data[key]

    def sub(self, key: str, default: Any = ...) -> "Fields":
        return Fields(self.raw(key, default), self.field(key), self.file, error=self.error_class)

    def number(self, key: str, default: Any = ..., *, low: float | None = None,
               high: float | None = None, low_open: bool = False) -> float:
        value = self.raw(key, default)
        # An integer too large for a float (10**400) is not finite either; it
        # would make math.isfinite raise OverflowError.
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or (isinstance(value, int) and abs(value) > 1e300) or not math.isfinite(value):
            shown = repr(value) if not isinstance(value, int) or abs(value) < 1e300 else \
                f"an integer of {len(str(abs(value)))} digits"
            raise self.error(key, f"must be a number, got {shown}")
        if low is not None and high is not None and not low_open and not low <= value <= high:
            raise self.error(key, f"must be between {low:g} and {high:g}, got {value:g}")
        if low is not None and (value < low or (low_open and value == low)):
            raise self.error(key, f"must be {'>' if low_open else '>='} {low}, got {value}")
        if high is not None and value > high:
            raise self.error(key, f"must be <= {high}, got {value}")
        return float(value)

    def positive(self, key: str, default: Any = ..., high: float | None = None) -> float:
        return self.number(key, default, low=0.0, low_open=True, high=high)

    def integer(self, key: str, default: Any = ..., *, low: int, high: int, clause: str | None = None) -> int:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be a whole number, got {value!r}", clause)
        if not low <= value <= high:
            raise self.error(key, f"must be between {low} and {high}, got {value}", clause)
        return value

    def span(self, key: str, default: Any = ..., *, low: float, high: float) -> tuple[float, float]:
        value = self.raw(key, default)
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) <= 1e300
                           for v in value)):
            raise self.error(key, f"must be a pair [low, high] of numbers, got {value!r:.200}")
        first, last = float(value[0]), float(value[1])
        if not (low <= first <= last <= high):
            raise self.error(key, f"must satisfy {low:g} <= low <= high <= {high:g}, got {value!r}")
        return first, last

    def choice(self, key: str, options: tuple[str, ...], default: Any = ..., clause: str | None = None) -> str:
        value = self.raw(key, default)
        if value not in options:
            raise self.error(key, f"must be one of {', '.join(options)}, got {value!r}"
                                  f"{suggestion(value, options) if isinstance(value, str) else ''}", clause)
        return value

    def text(self, key: str, default: Any = ...) -> str | None:
        value = self.raw(key, default)
        if value is not None and not isinstance(value, str):
            raise self.error(key, f"must be text, got {value!r}")
        return value

    def done(self) -> None:
        refuse_unknown(self.data, self.used, error=self.error_class, file=self.file, prefix=self.path)
