"""The verdict of a wheel's edge estimate: the latest safe "no more bets", how sure
it is, whether a given call time is shown safe, and when two wheels differ.

The latest safe call is the latest cutoff up to which every rung's interval of
the player's edge lies below zero (``estimate.latest_safe_cutoff``). It is a
figure of the spins that happened to be run, so it is given with an interval
from repeated splits: the fit spins and the held-out spins are each split in
two halves at random, without replacement (``resamples`` halves, seeded), and
the whole estimate (the player's choice of strategy included) is made again
on each half, **judged as the whole campaign**: each spin of a half counts
twice in the player's tests and in each rung's interval (judged as a half,
every rung's interval was a square root of two wider, and the calls were
those of campaigns of half the spins).

A half's call is still a call on half the spins' outcomes, and the call is the
first rung whose interval reaches zero: the more noise, the sooner some rung
reaches it, so a half's call is biased early, and the halves' calls (the
interval before issue 39) ran from the launch on most wheels. The two halves of
one split are two independent campaigns of half the spins sharing that bias,
so their difference is free of it: it is how far two such campaigns land
apart. Two campaigns of all the spins land a square root of two closer (for a
call that settles as 1/sqrt(n): an assumption, checked below), so the interval
is **where another campaign of as many spins would put its call**: the
campaign's call, moved either way by the ``level`` quantile of the splits'
differences over REPLICATE, rounded outward to rungs. It is checked on wheels
whose edge is planted (``twin.edge.planted``, ``benchmarks/edge_coverage_bench.py``,
docs/edge.md): how often one campaign's interval holds another's call.
"None" (not shown safe even at the launch) counts as the rung before the first.

Halves, not a bootstrap: the call is a threshold on the best of many
strategies, a statistic the bootstrap does not reproduce (subsampling without
replacement does). Worse, a bootstrap draw repeats spins, and a class of a
few dozen spins some of them drawn three or four times looks predictable to
the player's skip test, which counts every copy: at 16,000 spins of the
level wheel, 15 of 100 bootstrap draws had the player bet one number on
0.5% of the spins at 0.5 s, and the interval's low end fell to the launch.

A call time T is *shown safe* when T is no later than the latest safe call and
no later than the low end of its interval: a verdict that a few hundred other
spins could overturn is not shown. Two wheels are compared by the difference
of their calls in rungs, against the differences that each campaign's own
error (half its splits' differences) makes between two wheels whose calls
share an expectation: they are said to differ when so large a difference
comes up less than ``ALPHA`` of the time, so wheels alike are said to differ
about ``ALPHA`` of the time (checked by simulation, docs/edge.md); otherwise
they are "not distinguishable at N spins".
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
REPLICATE = math.sqrt(2)  # two campaigns of half the spins differ by sqrt(2) times two of all of them
ALPHA = 0.05             # the comparison's error rate: wheels alike said to differ


@dataclass(frozen=True)
class Verdict:
    payout: str
    latest_safe_call_s: float | None          # None: not shown safe even at the launch
    interval_s: tuple[float | None, float | None]
    spins: int                                # valid spins the estimate rests on (fit and held out)
    resamples: int
    level: float
    cutoffs: tuple[float, ...] = ()           # the ladder the call is on
    differences: tuple[int, ...] = ()         # each split's first half's call less its second's, in rungs

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
                    seed: int = RESAMPLE_SEED, progress=None, as_whole: bool = True) -> list[float | None]:
    """The latest safe call of ``resamples`` halves of the spins (half the fit spins
    and half the held-out ones, without replacement). ``as_whole``: in complementary
    pairs (a split's two halves, one after the other), each judged as the whole
    campaign; False: each half drawn on its own and judged as a campaign of half
    the spins, as before issue 39."""
    rng = np.random.default_rng([seed, 617])
    n_fit, n_held = len(ladder.fit[0]), len(ladder.held[0])
    half_fit, half_held = max(1, n_fit // 2), max(1, n_held // 2)
    calls: list[float | None] = []

    def call_of(fit_index: np.ndarray, held_index: np.ndarray, weight: float) -> None:
        rows = ladder_edges(ladder.take(np.sort(fit_index), np.sort(held_index)), payout, confidence, weight=weight)
        calls.append(latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows]))
        if progress is not None:
            progress(1)

    if not as_whole:
        for _ in range(resamples):
            call_of(rng.permutation(n_fit)[:half_fit], rng.permutation(n_held)[:half_held], 1.0)
        return calls
    for _ in range((resamples + 1) // 2):
        fit, held = rng.permutation(n_fit), rng.permutation(n_held)
        for f, h in ((fit[:half_fit], held[:half_held]), (fit[half_fit:], held[half_held:])):
            if len(calls) < resamples and f.size and h.size:
                call_of(f, h, (n_fit + n_held) / (f.size + h.size))
    return calls


def rung(call: float | None, cutoffs: list[float] | tuple[float, ...]) -> int:
    """A call's place on the ladder: the index of its cutoff, -1 for "not even at the launch"."""
    return -1 if call is None else list(cutoffs).index(call)


def split_differences(calls: list[float | None], cutoffs: list[float] | tuple[float, ...]) -> tuple[int, ...]:
    """Each split's first half's call less its second's, in rungs (``resampled_calls``' pairs)."""
    return tuple(rung(calls[i], cutoffs) - rung(calls[i + 1], cutoffs) for i in range(0, len(calls) - 1, 2))


def replication_interval(point: float | None, differences: list[int] | tuple[int, ...],
                         cutoffs: list[float] | tuple[float, ...], level: float = LEVEL
                         ) -> tuple[float | None, float | None]:
    """Where another campaign of as many spins puts its call: the point moved either
    way by the ``level`` quantile of the splits' differences (taken both ways)
    divided by REPLICATE, rounded outward to rungs (see the module)."""
    if not differences:
        return None, None
    both = sorted([abs(d) for d in differences])
    reach = both[int(math.ceil(level * (len(both) - 1)))] / REPLICATE
    step = math.ceil(reach - 1e-9)       # 1.0000000002 rungs is one rung
    at = rung(point, cutoffs)
    low, high = max(-1, at - step), min(len(cutoffs) - 1, at + step)
    return (None if low < 0 else float(cutoffs[low])), (None if high < 0 else float(cutoffs[high]))


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
    differences = split_differences(calls, ladder.cutoffs)
    return Verdict(payout.key, point, replication_interval(point, differences, ladder.cutoffs, level),
                   len(ladder.fit[0]) + len(ladder.held[0]), resamples, level, tuple(ladder.cutoffs), differences)


def difference_p(a: Verdict, b: Verdict) -> float | None:
    """How often wheels whose calls share an expectation differ by as many rungs as
    ``a`` and ``b`` do: the share of pairs of the two campaigns' own errors (each
    from its splits' differences) at least that far apart. None: not comparable
    (no resamples, or ladders that are not one within the other)."""
    shorter, longer = sorted((a.cutoffs, b.cutoffs), key=len)
    if not a.differences or not b.differences or tuple(longer[:len(shorter)]) != tuple(shorter):
        return None
    gap = abs(rung(a.latest_safe_call_s, a.cutoffs) - rung(b.latest_safe_call_s, b.cutoffs))
    # a split's difference is two campaigns of half the spins apart: half of it is one
    # campaign's own error (variance 4/n against 1/n), each taken either way
    own_a = np.concatenate([np.array(a.differences), -np.array(a.differences)]) / 2
    own_b = np.concatenate([np.array(b.differences), -np.array(b.differences)]) / 2
    null = np.abs(np.subtract.outer(own_a, own_b))
    return float((null >= gap - 1e-9).mean())


def compare(name_a: str, a: Verdict, name_b: str, b: Verdict, alpha: float = ALPHA) -> str:
    """One sentence: which wheel's latest safe call is earlier, only when the
    difference is one that wheels alike show less than ``alpha`` of the time."""
    figures = (f"{name_a} {_seconds(a.latest_safe_call_s)} [{_seconds(a.interval_s[0])}, {_seconds(a.interval_s[1])}], "
               f"{name_b} {_seconds(b.latest_safe_call_s)} [{_seconds(b.interval_s[0])}, {_seconds(b.interval_s[1])}]")
    p = difference_p(a, b)
    if p is None:
        return f"not compared (no resamples, or other cutoffs): {figures}"
    said = f"p = {p:.3f}; wheels alike are said to differ {100 * alpha:g}% of the time"
    if p < alpha:
        early, late = ((name_a, name_b) if rung(a.latest_safe_call_s, a.cutoffs) < rung(b.latest_safe_call_s, b.cutoffs)
                       else (name_b, name_a))
        return f"{early} must close betting earlier than {late} ({said}): {figures}"
    return f"not distinguishable at {min(a.spins, b.spins)} spins ({said}): {figures}"
