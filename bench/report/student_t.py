"""Student's t quantile, for the confidence interval of a session's observed
return (``bench.report.summary.return_interval``), without SciPy: the base
install (the QA engineer's) does not carry it, and the standard library has
the normal distribution but not Student's.

Exact for the whole numbers of degrees of freedom a session has: the t
distribution's CDF for integer ν is a finite trigonometric series
(Abramowitz & Stegun 26.7.3, 26.7.4), inverted by bisection. Past
``EXPANSION_FROM`` degrees of freedom the series gets long and the
Cornish-Fisher expansion about the normal quantile (A&S 26.7.5, terms to
ν⁻³) is exact to far below a float's precision. tests/bench/test_student_t.py checks both
against SciPy.
"""

from __future__ import annotations

import math
from statistics import NormalDist

EXPANSION_FROM = 2000
_BISECTIONS = 80


def central_probability(t: float, df: int) -> float:
    """P(|T| < t) for T with ``df`` degrees of freedom, t >= 0 (A&S 26.7.3/4)."""
    theta = math.atan(t / math.sqrt(df))
    return _central_at(theta, df)


def _central_at(theta: float, df: int) -> float:
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:                       # sin θ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + …), ν/2 terms
        term = total = 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)        # 2/π (θ + sin θ (cos θ + 2/3 cos³θ + …)), (ν-1)/2 terms
    for k in range(1, (df - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return 2 / math.pi * (theta + s * total)


def quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0 < p < 1) of Student's t with ``df`` >= 1 degrees of freedom."""
    if not 0 < p < 1 or df < 1 or int(df) != df:
        raise ValueError(f"quantile needs 0 < p < 1 and a whole df >= 1, got p={p!r}, df={df!r}")
    df = int(df)
    if p < 0.5:
        return -quantile(1 - p, df)
    if p == 0.5:
        return 0.0
    if df >= EXPANSION_FROM:
        x = NormalDist().inv_cdf(p)
        return (x + (x**3 + x) / 4 / df + (5 * x**5 + 16 * x**3 + 3 * x) / 96 / df**2
                + (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384 / df**3)
    wanted = 2 * p - 1
    low, high = 0.0, math.pi / 2
    for _ in range(_BISECTIONS):
        mid = (low + high) / 2
        if _central_at(mid, df) < wanted:
            low = mid
        else:
            high = mid
    return math.sqrt(df) * math.tan((low + high) / 2)
