"""A chi-square goodness of fit over ordered cells, the building block of
most of the battery (Knuth, TAOCP vol. 2, 3.3.1 B): cells whose expected
count is under 5 are pooled with their neighbours (Knuth's rule of thumb),
the p-value is SciPy's ``chisquare``."""

from __future__ import annotations

from typing import Sequence, Union

import numpy as np
from scipy import stats

from twin.stats import pool_cells

MIN_EXPECTED = 5.0
Counts = Union[Sequence[float], np.ndarray]


class TooShort(ValueError):
    """The sequence is too short for this test (the message says what it needs)."""


def pooled(observed: Counts, probabilities: Counts,
           minimum: float = MIN_EXPECTED) -> tuple[list[float], list[float]]:
    """Observed and expected counts with adjacent cells pooled until each
    expects at least ``minimum`` (twin.stats.pool_cells)."""
    total = float(sum(observed))
    return pool_cells([float(o) for o in observed], [p * total for p in probabilities], minimum)


def goodness(observed: Counts, probabilities: Counts, *, what: str,
             extra_dof: int = 0) -> tuple[float, int, float, int]:
    """(statistic, degrees of freedom, p-value, cells after pooling).
    ``extra_dof``: parameters fitted from the data, subtracted."""
    obs, exp = pooled(observed, probabilities)
    dof = len(obs) - 1 - extra_dof
    if dof < 1:
        raise TooShort(f"{what}: {int(sum(observed))} observations leave fewer than two cells expecting "
                       f"{MIN_EXPECTED:.0f} or more")
    result = stats.chisquare(np.asarray(obs), np.asarray(exp) * (sum(obs) / sum(exp)), ddof=extra_dof)
    return float(result.statistic), dof, float(result.pvalue), len(obs)
