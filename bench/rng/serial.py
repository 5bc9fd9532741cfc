"""Dependence between successive values: the overlaps test 810a.5(c)(4),
the adjacency criterion (c)(9), runs (c)(11), interplay correlation (c)(12)
and the serial correlation test with its degree (c)(13). Integers in
``range(size)``; p-values from SciPy's ``chi2`` and ``norm``."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

from bench.rng.chisq import MIN_EXPECTED, TooShort
from bench.rng.outcome import Detectable, TestOutcome
from bench.rng.power import cohen_w, noncentrality, relative_cell_shift, z_shift

KNUTH = "Knuth, TAOCP vol. 2, 3.3.2"


def overlaps(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(4): the overlapping pairs (x_i, x_i+1), read circularly.
    Their counts are not independent, so the statistic is Good's
    nabla psi^2 = psi^2_2 - psi^2_1, chi-square with size^2 - size degrees of
    freedom (Good 1953; Knuth 3.3.2 B and exercise 24; NIST SP 800-22 2.11
    uses the same). A sequence that recurs (a short period) piles onto few
    pairs."""
    n = len(values)
    needed = math.ceil(MIN_EXPECTED * size * size)
    if n < needed:
        raise TooShort(f"the overlaps test needs {needed} values, has {n}")
    x = np.asarray(values, dtype=np.int64)
    singles = np.bincount(x, minlength=size)[:size].astype(float)
    pairs = np.bincount(x * size + np.roll(x, -1), minlength=size * size)[:size * size].astype(float)
    psi2 = size * size / n * float(((pairs - n / size ** 2) ** 2).sum())
    psi1 = size / n * float(((singles - n / size) ** 2).sum())
    statistic = psi2 - psi1
    dof = size * size - size
    return TestOutcome("overlaps", "810a.5(c)(4)", source, statistic, float(stats.chi2.sf(statistic, dof)),
                       Detectable(cohen_w(n, dof, alpha), "Cohen's w of the distribution of successive pairs"),
                       dof=dof, n=n, detail="overlapping pairs, Good's nabla psi^2", reference=f"{KNUTH} B")


def adjacency(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(9), the adjacency criterion: the step from each value to the
    next, (x_i+1 - x_i) mod size, is uniform and independent from step to step
    when the values are (each x_i+1 uniform whatever came before); chi-square
    over the size steps. It finds a draw that favours the previous value, or
    its neighbour."""
    n = len(values)
    needed = math.ceil(MIN_EXPECTED * size) + 1
    if n < needed:
        raise TooShort(f"the adjacency test needs {needed} values, has {n}")
    x = np.asarray(values, dtype=np.int64)
    steps = np.bincount((x[1:] - x[:-1]) % size, minlength=size)[:size]
    result = stats.chisquare(steps)
    worst = int(np.argmax(np.abs(steps - (n - 1) / size)))
    return TestOutcome("adjacency criterion", "810a.5(c)(9)", source, float(result.statistic), float(result.pvalue),
                       Detectable(relative_cell_shift(n - 1, size, alpha), "relative excess of one step"),
                       dof=size - 1, n=n, detail=f"step +{worst} seen {int(steps[worst])} times, "
                                                 f"{(n - 1) / size:.1f} expected",
                       reference="Knuth, TAOCP vol. 2, 3.3.2 B (pairs)")


def serial_correlation(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(13), its potency and degree: Knuth's serial correlation
    coefficient C of lag 1, read circularly (3.3.2 K), whose null mean is
    -1/(n-1) and standard deviation about sqrt(n^2 / ((n-1)^2 (n-2)));
    the degree is C itself, the potency the smallest |C| it finds."""
    n = len(values)
    if n < 30:
        raise TooShort(f"the serial correlation test needs 30 values, has {n}")
    u = np.asarray(values, dtype=float)
    total, squares = u.sum(), (u * u).sum()
    denominator = n * squares - total * total
    if denominator == 0:
        coefficient = 1.0
        z = math.inf
    else:
        coefficient = float((n * (u * np.roll(u, -1)).sum() - total * total) / denominator)
        mean = -1 / (n - 1)
        sd = math.sqrt(n * n / ((n - 1) ** 2 * (n - 2)))
        z = (coefficient - mean) / sd
    sd = math.sqrt(n * n / ((n - 1) ** 2 * (n - 2)))
    return TestOutcome("serial correlation", "810a.5(c)(13)", source, coefficient, float(2 * stats.norm.sf(abs(z))),
                       Detectable(z_shift(sd, alpha), "serial correlation coefficient |C| of lag 1"),
                       n=n, detail=f"C = {coefficient:+.4f}", reference=f"{KNUTH} K")


LAGS = tuple(range(2, 9))


def interplay_correlation(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(12): how values further apart play on one another, the
    autocorrelations at lags 2 to 8 taken together (Ljung and Box 1978,
    Q = n (n + 2) sum r_k^2 / (n - k), chi-square with 7 degrees of freedom);
    lag 1 is the serial correlation test's."""
    n = len(values)
    if n < 100:
        raise TooShort(f"the interplay correlation test needs 100 values, has {n}")
    u = np.asarray(values, dtype=float)
    u = u - u.mean()
    variance = float((u * u).sum())
    if variance == 0:
        r = np.ones(len(LAGS))
    else:
        r = np.array([float((u[:-k] * u[k:]).sum()) / variance for k in LAGS])
    q = float(n * (n + 2) * (r * r / (n - np.array(LAGS))).sum())
    dof = len(LAGS)
    worst = int(np.argmax(np.abs(r)))
    return TestOutcome("interplay correlation", "810a.5(c)(12)", source, q, float(stats.chi2.sf(q, dof)),
                       Detectable(math.sqrt(noncentrality(dof, alpha) / n), "autocorrelation at one lag of 2 to 8"),
                       dof=dof, n=n, detail=f"largest at lag {LAGS[worst]}: {r[worst]:+.4f}",
                       reference="Ljung and Box 1978; Knuth, TAOCP vol. 2, 3.3.2 K")


def runs(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(11): runs above and below the middle of the range (values
    >= size // 2 or not, Wald and Wolfowitz 1940 for a Bernoulli sequence):
    R = 1 + the number of switches, mean 1 + 2 (n-1) p q, variance
    2 (n-1) p q (1 - 2 p q) + 2 (n-2) (p q - 4 p^2 q^2); Knuth's runs-up test
    (3.3.2 G) assumes no ties, which small ranges have."""
    n = len(values)
    if n < 30:
        raise TooShort(f"the runs test needs 30 values, has {n}")
    p = (size - size // 2) / size
    q = 1 - p
    high = np.asarray(values) >= size // 2
    switches = int((high[1:] != high[:-1]).sum())
    mean = 2 * (n - 1) * p * q
    variance = 2 * (n - 1) * p * q * (1 - 2 * p * q) + 2 * (n - 2) * (p * q - 4 * p * p * q * q)
    sd = math.sqrt(variance)
    z = (switches - mean) / sd
    return TestOutcome("runs", "810a.5(c)(11)", source, float(1 + switches), float(2 * stats.norm.sf(abs(z))),
                       Detectable(z_shift(sd, alpha) / (n - 1), "change in the share of steps that cross the middle"),
                       n=n, detail=f"{1 + switches} runs, {1 + mean:.1f} expected",
                       reference="Wald and Wolfowitz 1940; Knuth, TAOCP vol. 2, 3.3.2 G")
