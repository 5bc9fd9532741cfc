"""How often each value comes: the chi-square 810a.5(c)(1), the
equi-distribution (frequency) test (c)(2), the Poisson distribution (c)(15),
the Kolmogorov-Smirnov test (c)(8) and tests on subsequences (c)(14).

Each takes a sequence of integers in ``range(size)`` (scaled values, Lucky
positions, faces, pockets) and the profile's ``alpha``; p-values are SciPy's.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

from bench.rng.chisq import MIN_EXPECTED, TooShort, goodness
from bench.rng.outcome import Detectable, TestOutcome
from bench.rng.power import cohen_w, relative_cell_shift

KNUTH = "Knuth, TAOCP vol. 2, 3.3.2"


def counts(values: Sequence[int], size: int) -> np.ndarray:
    return np.bincount(np.asarray(values, dtype=np.int64), minlength=size)[:size]


def _need(n: int, needed: int, what: str) -> None:
    if n < needed:
        raise TooShort(f"{what} needs {needed} values, has {n}")


def one_cell(n: int, size: int, alpha: float, dof: int | None = None) -> Detectable:
    return Detectable(relative_cell_shift(n, size, alpha, dof), "relative excess of one value's probability")


def chi_square(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(1): the counts of each value against 1/size each (Knuth 3.3.1 B)."""
    n = len(values)
    _need(n, math.ceil(MIN_EXPECTED * size), "the chi-square test")
    result = stats.chisquare(counts(values, size))
    return TestOutcome("chi-square", "810a.5(c)(1)", source, float(result.statistic), float(result.pvalue),
                       one_cell(n, size, alpha), dof=size - 1, n=n, reference="Knuth, TAOCP vol. 2, 3.3.1 B")


SEGMENTS = 10


def equidistribution(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(2): the same distribution throughout. Knuth's frequency test
    (3.3.2 A) applied to each of up to ten consecutive segments at once: a
    contingency chi-square of segment against value, which finds a generator
    that drifts (fair over the whole run, biased in parts)."""
    n = len(values)
    segments = min(SEGMENTS, n // math.ceil(MIN_EXPECTED * size))
    if segments < 2:
        raise TooShort(f"the equi-distribution test needs {2 * math.ceil(MIN_EXPECTED * size)} values, has {n}")
    length = n // segments
    table = np.array([counts(values[i * length:(i + 1) * length], size) for i in range(segments)])
    table = table[:, table.sum(axis=0) > 0]
    statistic, p_value, dof, _ = stats.chi2_contingency(table, correction=False)
    return TestOutcome("equi-distribution", "810a.5(c)(2)", source, float(statistic), float(p_value),
                       Detectable(cohen_w(length * segments, int(dof), alpha),
                                  "Cohen's w of a change of distribution between segments"),
                       dof=int(dof), n=length * segments, detail=f"{segments} segments of {length}",
                       reference=f"{KNUTH} A")


def poisson(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(15): in windows of ``size`` draws, how many times one value
    comes (window j counts value j mod size, so windows are independent) is
    Binomial(size, 1/size), near Poisson(1); chi-square over 0, 1, 2, ... and more."""
    n = len(values)
    windows = n // size
    if windows < 30:
        raise TooShort(f"the Poisson test needs 30 windows of {size} values ({30 * size}), has {n}")
    arr = np.asarray(values[:windows * size], dtype=np.int64).reshape(windows, size)
    hits = (arr == (np.arange(windows) % size)[:, None]).sum(axis=1)
    top = 6
    observed = np.bincount(np.minimum(hits, top), minlength=top + 1)
    pmf = stats.binom.pmf(np.arange(top), size, 1 / size)
    probabilities = list(pmf) + [1 - float(pmf.sum())]
    statistic, dof, p_value, _ = goodness(observed, probabilities, what="the Poisson test")
    return TestOutcome("Poisson", "810a.5(c)(15)", source, statistic, p_value,
                       Detectable(cohen_w(windows, dof, alpha), "Cohen's w of the count distribution"),
                       dof=dof, n=windows * size, detail=f"{windows} windows of {size}",
                       reference="Knuth, TAOCP vol. 2, 3.3.2 (counts in windows); SciPy binom")


def ks_detectable(count: int, alpha: float) -> Detectable:
    """A sup-distance delta from the null CDF is found with at least 80%
    power when delta >= the critical D + z_0.8 * 0.5 / sqrt(count) (the
    empirical CDF at the point of largest distance alone rejects)."""
    critical = float(stats.kstwo.isf(alpha, count))
    return Detectable(critical + float(stats.norm.ppf(0.8)) * 0.5 / math.sqrt(count),
                      "sup-distance of the distribution function from the uniform")


def kolmogorov_smirnov_unit(u: Sequence[float] | np.ndarray, alpha: float, source: str, detail: str = "") -> TestOutcome:
    """810a.5(c)(8) on values in [0, 1) (raw words over 2**32): SciPy's kstest
    against the uniform distribution (Knuth 3.3.1 B, the KS test)."""
    n = len(u)
    _need(n, 5, "the Kolmogorov-Smirnov test")
    result = stats.kstest(np.asarray(u, dtype=float), "uniform")
    return TestOutcome("Kolmogorov-Smirnov", "810a.5(c)(8)", source, float(result.statistic), float(result.pvalue),
                       ks_detectable(n, alpha), n=n, detail=detail, reference="Knuth, TAOCP vol. 2, 3.3.1 B")


KS_SEGMENTS = 20


def kolmogorov_smirnov(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(8) on integers: the KS test applied, as Knuth advises for a
    discrete distribution (3.3.1 B, "a good way to combine"), to the
    chi-square p-values of up to 20 consecutive segments, which are uniform
    under the null; it finds a generator good on average and bad in patches."""
    n = len(values)
    per = math.ceil(MIN_EXPECTED * size)
    segments = min(KS_SEGMENTS, n // per)
    if segments < 5:
        raise TooShort(f"the Kolmogorov-Smirnov test needs {5 * per} values, has {n}")
    length = n // segments
    p_values = [float(stats.chisquare(counts(values[i * length:(i + 1) * length], size)).pvalue)
                for i in range(segments)]
    outcome = kolmogorov_smirnov_unit(p_values, alpha, source, f"over the chi-square p-values of {segments} "
                                                               f"segments of {length}")
    return TestOutcome(outcome.test, outcome.clause, source, outcome.statistic, outcome.p_value,
                       outcome.detectable, n=length * segments, detail=outcome.detail, reference=outcome.reference)


STRIDES = (2, 3, 4)


def subsequences(values: Sequence[int], size: int, alpha: float, source: str) -> TestOutcome:
    """810a.5(c)(14): the chi-square test on every t-th value (t = 2, 3, 4),
    as Knuth proposes (3.3.2 I, "tests on subsequences"): a generator fair
    overall whose every other value is biased. The worst stride's p-value,
    Bonferroni-corrected for the three."""
    n = len(values)
    _need(n, math.ceil(MIN_EXPECTED * size) * max(STRIDES), "the subsequence test")
    results = [(t, stats.chisquare(counts(values[::t], size))) for t in STRIDES]
    stride, worst = min(results, key=lambda r: float(r[1].pvalue))
    p_value = min(1.0, len(STRIDES) * float(worst.pvalue))
    return TestOutcome("subsequences", "810a.5(c)(14)", source, float(worst.statistic), p_value,
                       one_cell(n // max(STRIDES), size, alpha / len(STRIDES)), dof=size - 1, n=n,
                       detail=f"worst: every {stride}th value", reference=f"{KNUTH} I")
