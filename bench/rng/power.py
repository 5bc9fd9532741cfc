"""The smallest deviation a test detects with 80% power at this N, from the
noncentral distributions (SciPy's ``ncx2``, ``norm``): what a pass is worth.

- A chi-square test of ``dof`` degrees of freedom on ``n`` observations
  detects Cohen's effect size w = sqrt(sum (p1 - p0)^2 / p0) when n w^2 is the
  noncentrality that rejects at alpha with 80% power.
- For k equally likely cells, w is turned into the shift of ONE cell's
  probability, relative to 1/k, with the others sharing the difference:
  w^2 = k^2 delta^2 / (k - 1), so delta k = w sqrt(k - 1).
- A two-sided z test whose statistic has standard deviation ``sd`` under the
  null detects a shift of its mean of (z_{1-alpha/2} + z_power) sd.
"""

from __future__ import annotations

import math
from functools import lru_cache

from scipy import optimize, stats

from bench.rng.outcome import POWER


@lru_cache(maxsize=512)
def noncentrality(dof: int, alpha: float, power: float = POWER) -> float:
    """The noncentrality a chi-square test needs to reject at ``alpha`` with ``power``."""
    critical = stats.chi2.isf(alpha, dof)
    return float(optimize.brentq(lambda lam: stats.ncx2.sf(critical, dof, lam) - power, 1e-9, 1e7))


def cohen_w(n: int, dof: int, alpha: float) -> float:
    """Cohen's w a chi-square test on ``n`` observations detects with 80% power."""
    if n <= 0 or dof <= 0:
        return math.inf
    return math.sqrt(noncentrality(dof, alpha) / n)


def relative_cell_shift(n: int, cells: int, alpha: float, dof: int | None = None) -> float:
    """The relative excess of one of ``cells`` equally likely cells (0.1: that
    cell 10% more likely than 1/cells) a chi-square test detects."""
    return cohen_w(n, cells - 1 if dof is None else dof, alpha) * math.sqrt(cells - 1)


def z_shift(sd: float, alpha: float, power: float = POWER) -> float:
    """The shift of a two-sided z statistic's mean (in its own units, sd the
    null's standard deviation) detected with ``power``."""
    return (stats.norm.isf(alpha / 2) + stats.norm.ppf(power)) * sd
