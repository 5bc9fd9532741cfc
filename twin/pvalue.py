"""One way to write a p-value, on the command line, in JSON's words and in
reports: three significant figures, and ``< 1e-300`` for a p-value too small
for a double to tell from zero (scipy returns 0 or a subnormal there), so
that the same check never reads ``p=0`` in one place and ``< 1e-300`` in another."""

from __future__ import annotations

import math

FLOOR = 1e-300


def format_p(p: float | None) -> str:
    """``0.0123``, ``4.56e-07``, ``1``, ``< 1e-300``; ``n/a`` when there is none."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    if p < FLOOR:
        return "< 1e-300"
    return f"{p:.3g}"


def p_equals(p: float | None) -> str:
    """``p = 0.0123`` or ``p < 1e-300``: the formatted value with its relation."""
    text = format_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"
