"""An edge and its interval, and the call time they allow.

An edge is the mean return per unit staked over held-out runs (runs not used
to fit the predictor), so it is what a player would have won, not what the
fit promises. Its interval is the Wilson interval of the hit rate when every
bet of a run pays the same (straight ups: the return is a scaled hit), a
normal interval of the mean return otherwise.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from scipy.stats import norm

from twin.stats import wilson_interval


@dataclass(frozen=True)
class Edge:
    edge: float                 # mean return per unit staked, held-out runs
    low: float                  # the interval at ``confidence``
    high: float
    house_edge: float           # what the same bets return on a fair game
    runs: int                   # held-out runs the edge is measured on
    fit_runs: int               # runs the predictor was fitted on
    confidence: float

    def to_json(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def scaled_hits_edge(hits: int, runs: int, pays: float, confidence: float, house_edge: float,
                     fit_runs: int) -> Edge:
    """Edge of a bet returning ``pays`` units (stake included) per unit on a hit, -1 otherwise."""
    if runs == 0:
        nan = float("nan")
        return Edge(nan, nan, nan, house_edge, 0, fit_runs, confidence)
    i = wilson_interval(hits, runs, confidence)
    return Edge(hits / runs * pays - 1, i.low * pays - 1, i.high * pays - 1, house_edge, runs, fit_runs,
                confidence)


def weighted_hits_edge(hits: int, runs: int, pays: float, confidence: float, house_edge: float,
                       fit_runs: int, weight: float) -> Edge:
    """:func:`scaled_hits_edge` with the interval a campaign of ``weight`` times as many
    runs would give at the same hit rate (a halving of the spins judged as the
    whole campaign, ``twin.edge.verdict``): the Wilson interval of ``weight * hits``
    in ``weight * runs``."""
    if runs == 0:
        nan = float("nan")
        return Edge(nan, nan, nan, house_edge, 0, fit_runs, confidence)
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    n, p = weight * runs, hits / runs
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == runs else min(1.0, centre + half)
    return Edge(p * pays - 1, low * pays - 1, high * pays - 1, house_edge, runs, fit_runs, confidence)


def mean_edge(returns: list[float], confidence: float, house_edge: float, fit_runs: int) -> Edge:
    """Edge as the mean of per-run returns, with a normal interval."""
    n = len(returns)
    if n == 0:
        nan = float("nan")
        return Edge(nan, nan, nan, house_edge, 0, fit_runs, confidence)
    mean = sum(returns) / n
    var = sum((r - mean) ** 2 for r in returns) / (n - 1) if n > 1 else float("inf")
    half = norm.ppf(0.5 + confidence / 2) * math.sqrt(var / n)
    return Edge(mean, mean - half, mean + half, house_edge, n, fit_runs, confidence)


def latest_safe_cutoff(cutoffs: list[float], edges: list[Edge]) -> float | None:
    """The latest cutoff up to which every interval lies below zero (None: not even the first)."""
    safe = None
    for c, e in sorted(zip(cutoffs, edges), key=lambda ce: ce[0]):
        if not e.high < 0:
            break
        safe = c
    return safe
