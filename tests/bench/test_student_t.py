"""Student's t quantile of the session summary (bench.report.student_t),
written so that the base install needs no SciPy: against SciPy's own, and
against the printed tables."""

from __future__ import annotations

import pytest
from scipy.special import stdtrit

from bench.report.student_t import EXPANSION_FROM, quantile


@pytest.mark.parametrize("df", [*range(1, 41), 60, 120, 999, EXPANSION_FROM - 1, EXPANSION_FROM, 10_000, 10**6])
def test_the_quantile_is_scipys_to_twelve_digits(df):
    for p in (0.6, 0.9, 0.975, 0.995, 0.9995, 0.025):
        assert quantile(p, df) == pytest.approx(float(stdtrit(df, p)), rel=1e-11, abs=1e-12)


def test_the_printed_table_and_symmetry():
    # t(0.975): 12.706 (1), 4.303 (2), 2.228 (10), 2.042 (30); z = 1.960 in the limit.
    assert [round(quantile(0.975, df), 3) for df in (1, 2, 10, 30, 10**7)] == [12.706, 4.303, 2.228, 2.042, 1.960]
    assert quantile(0.5, 7) == 0.0 and quantile(0.1, 7) == -quantile(0.9, 7)
    for bad in ((0.0, 5), (1.0, 5), (0.9, 0), (0.9, 2.5)):
        with pytest.raises(ValueError):
            quantile(*bad)
