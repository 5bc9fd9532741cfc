"""Recurrent patterns, 810a.5(c)(11) ("patterns of occurrences should not be
recurrent"), within one sequence and across sequences (the non-repeatability
of draws across sessions, 810a.5(a)(1)).

The longest block of values that occurs twice (within a sequence at two
places, or in two sequences) is judged against chance by a union bound: in
i.i.d. uniform values any two given places agree over L values with chance
size^-L (overlapping places too), so P(some repeat of length L) is at most
pairs x size^-L, a conservative p-value. A generator of short period repeats
blocks as long as the run less one period; a controller that restarts its
sequence repeats a whole session.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from bench.rng.outcome import Detectable, TestOutcome


_BASE = np.uint64(0x9E3779B97F4A7C15)     # odd: invertible modulo 2^64


def _prefix(values: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Prefix hashes H[i] = sum_{j<i} (x_j + 1) B^j and the powers B^-i, modulo 2^64."""
    x = np.asarray(values, dtype=np.uint64) + np.uint64(1)
    n = len(x)
    powers = np.ones(n + 1, dtype=np.uint64)
    inverse = np.ones(n + 1, dtype=np.uint64)
    base_inverse = np.uint64(pow(int(_BASE), -1, 1 << 64))
    with np.errstate(over="ignore"):
        powers[1:] = np.cumprod(np.full(n, _BASE, dtype=np.uint64), dtype=np.uint64)
        inverse[1:] = np.cumprod(np.full(n, base_inverse, dtype=np.uint64), dtype=np.uint64)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        prefix[1:] = np.cumsum(x * powers[:n], dtype=np.uint64)
    return prefix, inverse


def _window_hashes(prefix: np.ndarray, inverse: np.ndarray, length: int) -> np.ndarray:
    count = len(prefix) - length
    with np.errstate(over="ignore"):
        return (prefix[length:] - prefix[:count]) * inverse[:count]


def longest_repeat(values: Sequence[int], size: int) -> tuple[int, int, int]:
    """(length, first place, second place) of the longest block found twice
    (window hashes modulo 2^64, every match checked value by value)."""
    data = list(values)
    prefix, inverse = _prefix(data)

    def found(length: int) -> tuple[int, int] | None:
        hashes = _window_hashes(prefix, inverse, length)
        order = np.argsort(hashes, kind="stable")
        same = np.flatnonzero(hashes[order][1:] == hashes[order][:-1])
        for k in same[:100]:
            i, j = sorted((int(order[k]), int(order[k + 1])))
            if data[i:i + length] == data[j:j + length]:
                return i, j
        return None

    return _search(found, len(data) - 1)


def longest_common(a: Sequence[int], b: Sequence[int], size: int) -> tuple[int, int, int]:
    """(length, place in a, place in b) of the longest block in both."""
    da, db = list(a), list(b)
    pa, ia = _prefix(da)
    pb, ib = _prefix(db)

    def found(length: int) -> tuple[int, int] | None:
        ha, hb = _window_hashes(pa, ia, length), _window_hashes(pb, ib, length)
        common, where_a, where_b = np.intersect1d(ha, hb, assume_unique=False, return_indices=True)
        for i, j in list(zip(where_a.tolist(), where_b.tolist()))[:100]:
            if da[i:i + length] == db[j:j + length]:
                return i, j
        return None

    return _search(found, min(len(da), len(db)))


def _search(found, most: int) -> tuple[int, int, int]:
    """The largest length with ``found(length)``, by doubling then bisection
    (a repeat of length L holds one of every shorter length)."""
    best, where = 0, (0, 0)
    low, high = 0, 1
    while high <= most:
        hit = found(high)
        if hit is None:
            break
        best, where = high, hit
        low, high = high, high * 2
    high = min(high, most + 1)
    while high - low > 1:
        middle = (low + high) // 2
        hit = found(middle)
        if hit is None:
            high = middle
        else:
            low, best, where = middle, middle, hit
    return best, where[0], where[1]


def chance_bound(pairs: float, size: int, length: int) -> float:
    return min(1.0, pairs * float(size) ** -length)


def shortest_found(pairs: float, size: int, alpha: float) -> int:
    """The shortest repeated block this N calls recurrent at ``alpha``."""
    return max(1, math.floor(math.log(pairs / alpha) / math.log(size)) + 1) if pairs > alpha else 1


def recurrence(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    n = len(values)
    if n < 30:
        from bench.rng.chisq import TooShort
        raise TooShort(f"the recurrence test needs 30 values, has {n}")
    length, first, second = longest_repeat(values, size)
    pairs = n * (n - 1) / 2
    return TestOutcome("recurrence", "810a.5(c)(11)", source, float(length), chance_bound(pairs, size, length),
                       Detectable(float(shortest_found(pairs, size, alpha)), "length of a block of values found twice"),
                       n=n, detail=f"longest block found twice: {length} values, at {first} and {second}",
                       reference="union bound over pairs of places (Knuth, TAOCP vol. 2, 3.3.2, on periods)")


def across(sequences: dict[str, Sequence[int]], size: int, alpha: float, source: str) -> TestOutcome:
    """The longest block of values shared by any two of ``sequences`` (named
    by their file), against chance over every pair of places in every pair."""
    names = sorted(sequences)
    best = (0, "", "", 0, 0)
    pairs = 0.0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pairs += len(sequences[a]) * len(sequences[b])
            length, pa, pb = longest_common(sequences[a], sequences[b], size)
            if length > best[0]:
                best = (length, a, b, pa, pb)
    length, a, b, pa, pb = best
    detail = (f"longest block in two sessions: {length} values ({a} at {pa}, {b} at {pb})" if length
              else "no value in common")
    return TestOutcome("non-repeatability", "810a.5(a)(1)", source, float(length),
                       chance_bound(pairs, size, length) if pairs else 1.0,
                       Detectable(float(shortest_found(max(pairs, 1.0), size, alpha)),
                                  "length of a block of values found in two sessions"),
                       n=int(sum(len(s) for s in sequences.values())), detail=detail,
                       reference="union bound over pairs of places")
