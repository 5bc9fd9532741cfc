"""The verdict of a wheel's edge estimate: the latest safe "no more bets", how sure
it is, whether a given call time is shown safe, and when two wheels differ.

The latest safe call is the latest cutoff up to which every rung's interval of
the player's edge lies below zero (``estimate.latest_safe_cutoff``). It is a
figure of the spins that happened to be run, so it is given with an interval
from repeated halvings: half the fit spins and half the held-out spins are
drawn without replacement (``resamples`` times, seeded), the whole estimate
(the player's choice of strategy included) is made again on each half, and
the interval holds the central ``level`` of the latest safe calls so found.
"None" (not shown safe even at the launch) counts as earlier than any cutoff.

Halves, not a bootstrap: the call is a threshold on the best of many
strategies, a statistic the bootstrap does not reproduce (subsampling without
replacement does). Worse, a bootstrap draw repeats spins, and a class of a
few dozen spins some of them drawn three or four times looks predictable to
the player's skip test, which counts every copy: at 16,000 spins of the
level wheel, 15 of 100 bootstrap draws had the player bet one number on
0.5% of the spins at 0.5 s, and the interval's low end fell to the launch.
A half shows what a campaign of half the spins could have said, so its
interval is, if anything, wider than the one at all the spins: the
regulator's side.

A call time T is *shown safe* when T is no later than the latest safe call and
no later than the low end of its interval: a verdict that a few hundred other
spins could overturn is not shown. A comparison of two wheels is stated only
when their intervals do not overlap; otherwise they are "not distinguishable
at N spins".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twin.edge.estimate import latest_safe_cutoff
from twin.edge.payouts import StraightPayout
from twin.edge.wheel import Ladder, ladder_edges

RESAMPLES = 100          # halvings: the interval's ends move by about a rung between runs of 100
RESAMPLE_SEED = 25
LEVEL = 0.95             # the interval's central share of the resampled calls
NOT_EVEN_AT_LAUNCH = -math.inf


@dataclass(frozen=True)
class Verdict:
    payout: str
    latest_safe_call_s: float | None          # None: not shown safe even at the launch
    interval_s: tuple[float | None, float | None]
    spins: int                                # valid spins the estimate rests on (fit and held out)
    resamples: int
    level: float

    def shows_safe(self, call_s: float) -> bool:
        """A call at ``call_s`` seconds after the launch is shown safe (see the module)."""
        low = self.interval_s[0]
        return (self.latest_safe_call_s is not None and low is not None
                and call_s <= self.latest_safe_call_s and call_s <= low)

    def to_json(self) -> dict:
        return {"latest_safe_call_s": self.latest_safe_call_s,
                "latest_safe_call_interval_s": list(self.interval_s), "spins": self.spins,
                "payout": self.payout, "resamples": self.resamples, "interval_level": self.level}

    def text(self) -> str:
        when = ("none: not shown safe even at the launch" if self.latest_safe_call_s is None
                else f"{self.latest_safe_call_s:g} s after the launch")
        if self.resamples == 0:
            return f"{when} (no interval: 0 resamples)"
        return (f"{when} ({100 * self.level:g}% interval {_seconds(self.interval_s[0])} to "
                f"{_seconds(self.interval_s[1])}, {self.resamples} halvings of {self.spins} spins)")


def _seconds(x: float | None) -> str:
    return "none" if x is None else f"{x:g} s"


def resampled_calls(ladder: Ladder, payout: StraightPayout, confidence: float, resamples: int = RESAMPLES,
                    seed: int = RESAMPLE_SEED, progress=None) -> list[float | None]:
    """The latest safe call of each halving of the spins (half the fit spins and
    half the held-out ones, without replacement)."""
    rng = np.random.default_rng([seed, 617])
    n_fit, n_held = len(ladder.fit[0]), len(ladder.held[0])
    calls = []
    for _ in range(resamples):
        draw = ladder.take(np.sort(rng.permutation(n_fit)[:max(1, n_fit // 2)]),
                           np.sort(rng.permutation(n_held)[:max(1, n_held // 2)]))
        rows = ladder_edges(draw, payout, confidence)
        calls.append(latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows]))
        if progress is not None:
            progress(1)
    return calls


def interval(calls: list[float | None], level: float = LEVEL) -> tuple[float | None, float | None]:
    """The central ``level`` of the calls (None lowest); None at an end means "not even at the launch"."""
    if not calls:
        return None, None
    values = np.sort([NOT_EVEN_AT_LAUNCH if c is None else c for c in calls])
    tail = (1 - level) / 2
    low = values[int(math.floor(tail * (len(values) - 1)))]
    high = values[int(math.ceil((1 - tail) * (len(values) - 1)))]
    return (None if low == NOT_EVEN_AT_LAUNCH else float(low)), (None if high == NOT_EVEN_AT_LAUNCH else float(high))


def verdict(ladder: Ladder, payout: StraightPayout, confidence: float, point: float | None,
            resamples: int = RESAMPLES, seed: int = RESAMPLE_SEED, level: float = LEVEL, progress=None) -> Verdict:
    calls = resampled_calls(ladder, payout, confidence, resamples, seed, progress)
    return Verdict(payout.key, point, interval(calls, level), len(ladder.fit[0]) + len(ladder.held[0]), resamples,
                   level)


def compare(name_a: str, a: Verdict, name_b: str, b: Verdict) -> str:
    """One sentence: which wheel's latest safe call is earlier, only when the intervals separate."""
    def ends(v):
        lo, hi = v.interval_s
        return (NOT_EVEN_AT_LAUNCH if lo is None else lo), (NOT_EVEN_AT_LAUNCH if hi is None else hi)
    (lo_a, hi_a), (lo_b, hi_b) = ends(a), ends(b)
    figures = (f"{name_a} {_seconds(a.latest_safe_call_s)} [{_seconds(a.interval_s[0])}, {_seconds(a.interval_s[1])}], "
               f"{name_b} {_seconds(b.latest_safe_call_s)} [{_seconds(b.interval_s[0])}, {_seconds(b.interval_s[1])}]")
    if hi_a < lo_b:
        return f"{name_a} must close betting earlier than {name_b}: {figures}"
    if hi_b < lo_a:
        return f"{name_b} must close betting earlier than {name_a}: {figures}"
    return f"not distinguishable at {min(a.spins, b.spins)} spins: {figures}"
