"""The Lucky draw's plain-Python distributions (bench.oracle.lucky_pvalues)
give scipy.stats's p-values: the verdict of a session must not depend on
which library computed it (issue 42 took scipy.stats out of replay's start-up)."""

from __future__ import annotations

import random

import pytest
from scipy import stats

from bench.oracle.lucky_pvalues import binomial_two_sided, chi_square_sf, normal_quantile


def _cases(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.choice([1, 3, 10, 40, 250, 1000, 20000])
        p = rng.choice([1 / 37, 0.05, 0.16, 0.25, 0.5, 0.73, rng.uniform(0.01, 0.99)])
        spread = 3 * (n * p * (1 - p)) ** 0.5 + 1
        yield min(n, max(0, round(rng.gauss(n * p, spread)))), n, p


@pytest.mark.parametrize("k, n, p", list(_cases(42, 150)) + [(0, 300, 1 / 37), (0, 5, 0.2), (7, 7, 0.5)])
def test_binomial_two_sided_is_scipys_binomtest(k, n, p):
    expected = float(stats.binomtest(k, n, p).pvalue)
    assert binomial_two_sided(k, n, p) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("dof", [1, 2, 3, 4, 7, 12, 35])
@pytest.mark.parametrize("statistic", [0.0, 0.3, 1.0, 4.2, 11.07, 30.0, 120.0])
def test_chi_square_tail_is_scipys(dof, statistic):
    assert chi_square_sf(statistic, dof) == pytest.approx(float(stats.chi2.sf(statistic, dof)), rel=1e-12)


@pytest.mark.parametrize("q", [0.8, 0.99, 0.995, 1 - 0.01 / 38, 1e-6])
def test_normal_quantile_is_scipys(q):
    assert normal_quantile(q) == pytest.approx(float(stats.norm.ppf(q)), rel=1e-12)
