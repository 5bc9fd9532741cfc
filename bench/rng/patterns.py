"""Patterns within groups and between occurrences: the gap test 810a.5(c)(3),
the poker test (c)(5), the coupon collector's test (c)(6), the permutation
test (c)(7) and the order statistic test (c)(10), each as Knuth, TAOCP
vol. 2, 3.3.2 C to H, gives it for integers in ``range(size)``; every p-value
a chi-square of SciPy's (``bench.rng.chisq``)."""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

from bench.rng.chisq import TooShort, goodness
from bench.rng.outcome import Detectable, TestOutcome
from bench.rng.power import cohen_w

KNUTH = "Knuth, TAOCP vol. 2, 3.3.2"
MIN_GROUPS = 50


def _chi(test: str, clause: str, source: str, observed, probabilities, groups: int, alpha: float,
         what: str, detail: str, reference: str, n: int, least: int = MIN_GROUPS) -> TestOutcome:
    if groups < least:
        raise TooShort(f"the {test} test needs {least} {what}, has {groups}")
    statistic, dof, p_value, _ = goodness(observed, probabilities, what=f"the {test} test")
    return TestOutcome(test, clause, source, statistic, p_value,
                       Detectable(cohen_w(groups, dof, alpha), f"Cohen's w over the {what}"),
                       dof=dof, n=n, detail=detail, reference=reference)


GAP_LONGEST = 40


def gap(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(3), Knuth 3.3.2 C: the lengths of the gaps between values in
    the lower half of the range [0, size // 2) are geometric with
    p = (size // 2) / size; gaps of 0 .. 39 and longer."""
    half = max(1, size // 2)
    p = half / size
    hits = np.flatnonzero(np.asarray(values) < half)
    gaps = np.diff(hits) - 1
    observed = np.bincount(np.minimum(gaps, GAP_LONGEST), minlength=GAP_LONGEST + 1)
    probabilities = [p * (1 - p) ** r for r in range(GAP_LONGEST)] + [(1 - p) ** GAP_LONGEST]
    return _chi("gap", "810a.5(c)(3)", source, observed, probabilities, len(gaps), alpha, "gaps",
                f"gaps between values below {half}", f"{KNUTH} C", len(values))


def stirling2(n: int, k: int) -> int:
    """Stirling numbers of the second kind (Knuth 1.2.6), exactly."""
    row = [1] + [0] * k                   # S(0, j)
    for _ in range(n):
        row = [0] + [j * row[j] + row[j - 1] for j in range(1, k + 1)]
    return row[k]


POKER_HAND = 5


def poker(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(5), Knuth 3.3.2 D (the simpler form): in hands of five, the
    number r of distinct values has P(r) = size (size-1) ... (size-r+1) S(5, r) / size^5."""
    k = POKER_HAND
    hands = len(values) // k
    arr = np.asarray(values[:hands * k]).reshape(hands, k) if hands else np.zeros((0, k), dtype=int)
    distinct = np.array([len(set(row)) for row in arr.tolist()], dtype=np.int64)
    observed = np.bincount(distinct, minlength=k + 1)[1:]
    probabilities = [math.perm(size, r) * stirling2(k, r) / size ** k for r in range(1, k + 1)]
    return _chi("poker", "810a.5(c)(5)", source, observed, probabilities, hands, alpha, "hands",
                f"{hands} hands of {k}", f"{KNUTH} D", hands * k)


def coupon_probabilities(size: int, longest: int) -> list[float]:
    """P(a segment collecting all ``size`` values has length r), r = size ..
    longest - 1, and the tail P(r >= longest): the collection as a Markov chain
    on the number of values seen (equivalent to Knuth's Stirling-number form)."""
    state = np.zeros(size + 1)
    state[0] = 1.0
    out: list[float] = []
    for r in range(1, longest):
        seen = np.arange(size + 1)
        stay = state * seen / size
        move = state * (size - seen) / size
        state = stay.copy()
        state[1:] += move[:-1]
        done = state[size]
        state[size] = 0.0
        if r >= size:
            out.append(float(done))
    out.append(max(0.0, 1.0 - sum(out)))
    return out


MIN_SEGMENTS = 20      # each segment is long (size H_size values): pooling keeps every cell at 5 expected


def coupon_collector(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(6), Knuth 3.3.2 E: the lengths of the segments it takes to
    see every one of the ``size`` values."""
    longest = size * 12
    lengths: list[int] = []
    seen: set[int] = set()
    start = 0
    for i, v in enumerate(values):
        seen.add(v)
        if len(seen) == size:
            lengths.append(i - start + 1)
            seen, start = set(), i + 1
    probabilities = coupon_probabilities(size, longest)
    observed = np.bincount(np.minimum(np.asarray(lengths, dtype=np.int64), longest) - size,
                           minlength=len(probabilities)) if lengths else np.zeros(len(probabilities))
    return _chi("coupon collector", "810a.5(c)(6)", source, observed, probabilities, len(lengths), alpha,
                "segments", f"{len(lengths)} segments collecting all {size} values", f"{KNUTH} E", start,
                least=MIN_SEGMENTS)


def permutation(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(7), Knuth 3.3.2 F: in groups of t (4 when the run is long
    enough for 24 cells, else 3), the relative order of the values, each of
    t! orders equally likely; groups with a tie are left out (exchangeable
    under the null, so the orders of the rest stay equally likely)."""
    t = 4 if len(values) >= 4 * 24 * 10 else 3
    orders = {p: i for i, p in enumerate(itertools.permutations(range(t)))}
    groups = len(values) // t
    observed = np.zeros(len(orders))
    used = 0
    for g in range(groups):
        group = values[g * t:(g + 1) * t]
        if len(set(group)) < t:
            continue
        observed[orders[tuple(sorted(range(t), key=group.__getitem__))]] += 1
        used += 1
    probabilities = [1 / len(orders)] * len(orders)
    return _chi("permutation", "810a.5(c)(7)", source, observed, probabilities, used, alpha, "groups without a tie",
                f"{used} groups of {t}", f"{KNUTH} F", groups * t)


ORDER_GROUP = 5


def order_statistic(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(10), Knuth 3.3.2 H (maximum-of-t): the largest of each group
    of five has P(max = v) = ((v + 1)^5 - v^5) / size^5."""
    t = ORDER_GROUP
    groups = len(values) // t
    if groups:
        maxima = np.asarray(values[:groups * t]).reshape(groups, t).max(axis=1)
    else:
        maxima = np.zeros(0, dtype=np.int64)
    observed = np.bincount(maxima, minlength=size)[:size]
    probabilities = [((v + 1) ** t - v ** t) / size ** t for v in range(size)]
    return _chi("order statistic", "810a.5(c)(10)", source, observed, probabilities, groups, alpha, "groups",
                f"maxima of {groups} groups of {t}", f"{KNUTH} H", groups * t)
