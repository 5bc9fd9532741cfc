"""The fleet's Lucky-draw family with an exact reference distribution for
every test (docs/archive.md, "The Lucky test's cells").

``bench.oracle.lucky_draw.judge`` tests the count of Lucky Numbers a round
and the odds given the position with chi-squares (cells pooled to 5 expected,
``twin.stats.pool_cells``). That approximation is good enough for its own 99%
verdict, but not in the far tail a fleet's Benjamini-Hochberg reaches: among
fifty tables the first discovery needs about p < 0.05 / 100 of a Holm family
already multiplied by its size, and there a chi-square with cells of 5 to 10
expected is wrong by an order of magnitude or more. A fair draw of 300 rounds
of Lightning Dice's default distribution (benchmarks/archive_bench.py null,
draw seed ``null:6``) had the 99 to 1 odds of total:7 and total:14, 6.2
expected of 88, 18 times: the chi-square's tail gives p = 6.6e-7, where the
statistic's own distribution (10^7 multinomial draws) gives 6.9e-6 and the
exact chance of that one cell alone is 3.4e-5 (tests/archive/test_fleet_pvalues.py).

So here every test is exact: each count, and each odds value of each group of
positions sharing one odds distribution (pooled as the oracle pools them), is
a two-sided binomial test (``bench.oracle.lucky_pvalues``, checked against
scipy.stats.binomtest), a distribution's values one test by Bonferroni (its
smallest p times their number), so that the family keeps the oracle's size
(one count test, each position, one test per odds distribution: 25 for
Lightning Dice; every cell a test of its own made it 51 and cost the
position tests half their power); each position's share of rounds is the
oracle's own binomial test. Holm's correction is taken over the family, as
the oracle does; the group's p is its smallest adjusted p, a valid p-value
(at most the chance a fair draw gives one as small). A binomial p is
discrete, so under a fair draw P(p <= a) is at most a, never more.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from bench.oracle.lucky_draw import DrawTest, judge
from bench.oracle.lucky_pvalues import binomial_two_sided
from bench.rules.base import Lucky


def _cells(part: str, name: str, clause: str, observed: Counter, support: list[tuple[int, float]], total: int,
           what: str) -> list[DrawTest]:
    """One test of a distribution's cells: each cell's exact binomial p, the smallest times the cells
    (Bonferroni), so that the family has one test per distribution as the oracle's has."""
    cells = []
    for value, q in support:
        if not 0 < q < 1:
            continue
        seen = observed.get(value, 0)
        cells.append((binomial_two_sided(seen, total, q), value, seen, q))
    if not cells:
        return []
    p, value, seen, q = min(cells)
    return [DrawTest(part, name, clause, min(1.0, len(cells) * p),
                     detail=f"{what} {value}: {seen} of {total}, {q * total:.1f} expected ({q:.1%}; exact binomial, "
                            f"the most extreme of {len(cells)} values, p = {p:.2g} before Bonferroni)")]


def exact_family(distribution, clauses: dict[str, str], draws: Sequence[tuple[Lucky, ...]]) -> list[DrawTest]:
    """The family's tests with their Holm-adjusted p (``adjusted``)."""
    from twin.stats import holm_adjusted
    rounds = len(draws)
    if not rounds:
        return []
    tests = [t for t in judge(distribution, clauses, draws).tests if t.part == "positions"]
    counts = Counter(len(d) for d in draws)
    tests += _cells("count", "count", clauses["count"], counts,
                    [(k, float(p)) for k, p in distribution.count if p > 0], rounds, "rounds with Lucky Numbers")
    odds: dict[str, Counter] = {}
    for d in draws:
        for x in d:
            odds.setdefault(x.bet, Counter())[x.pays] += 1
    groups: dict[tuple, list[str]] = {}
    for bet, dist in distribution.odds:
        groups.setdefault(dist, []).append(bet)
    for dist, bets in groups.items():
        support = [(pays, float(p)) for pays, p in dist if p > 0]
        pooled: Counter = Counter()
        for bet in bets:
            pooled.update(odds.get(bet, Counter()))
        total = sum(pooled.values())
        if len(support) < 2 or not total:
            continue
        name = bets[0] if len(bets) == 1 else (", ".join(bets) if len(bets) <= 3 else f"{len(bets)} positions")
        tests += _cells("odds", name, clauses["odds"], pooled, support, total, f"odds of {name} at")
    adjusted = holm_adjusted([t.p_value for t in tests])
    return [DrawTest(t.part, t.name, t.clause, t.p_value, a, t.detail) for t, a in zip(tests, adjusted)]
