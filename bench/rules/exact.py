"""Exact numbers from a rules submission: probabilities as Fractions, never floats.

A submission may write a probability as an integer (0 or 1), a decimal (0.25,
read digit for digit, not through a binary float's error) or a fraction string
("1/3"). Every value the bench computes with is a ``Fraction``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TypeVar

from bench.rules.errors import RulesError

_T = TypeVar("_T")


def parse_probability(value: object, *, file: str | None, field: str) -> Fraction:
    """A probability in [0, 1] read exactly; a clear error otherwise."""
    if isinstance(value, bool):
        raise RulesError(f"expected a probability, got {value!r}", file=file, field=field)
    try:
        if isinstance(value, int):
            prob = Fraction(value)
        elif isinstance(value, float):
            # YAML gave a float; its shortest repr is the decimal the author wrote.
            prob = Fraction(repr(value))
        elif isinstance(value, str):
            prob = Fraction(value.strip())
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise RulesError(f"expected a probability such as 0.25 or \"1/3\", got {value!r}",
                         file=file, field=field) from None
    if not 0 <= prob <= 1:
        raise RulesError(f"a probability must lie between 0 and 1, got {value!r}",
                         file=file, field=field)
    return prob


def parse_int(value: object, *, file: str | None, field: str, what: str = "an integer") -> int:
    """An integer (YAML may write a mapping key as a string: "4" is accepted)."""
    if isinstance(value, bool):
        raise RulesError(f"expected {what}, got {value!r}", file=file, field=field)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise RulesError(f"expected {what}, got {value!r}", file=file, field=field)


def draw(weights: tuple[tuple[_T, Fraction], ...], rng) -> _T:
    """One value drawn exactly from ``((value, probability), ...)``: an integer
    uniform on the common denominator, so no float rounding biases the draw."""
    denominator = math.lcm(*(p.denominator for _, p in weights))
    ticket = rng.randrange(denominator)
    cumulative = 0
    for value, prob in weights:
        cumulative += prob.numerator * (denominator // prob.denominator)
        if ticket < cumulative:
            return value
    raise AssertionError("probabilities do not sum to 1")  # validated on load


def percent(value: Fraction, places: int = 2) -> str:
    """A fraction as a percent rounded half-up for display (the exact value is shown beside it)."""
    scaled = value * 100 * 10 ** places
    rounded = math.floor(scaled + Fraction(1, 2))
    sign = "-" if rounded < 0 else ""
    rounded = abs(rounded)
    whole, frac = divmod(rounded, 10 ** places)
    return f"{sign}{whole}.{frac:0{places}d}%" if places else f"{sign}{whole}%"
