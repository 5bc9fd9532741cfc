"""The Lucky Numbers judged as draws of a distribution, not one round at a time.

Every round's LUCKY is checked against the regulation when it comes (its
count, positions and ranges: ``bench.rules``). A controller can pass every
one of those checks and still not draw from the distribution its rules
submission declares: odds only ever 49 or 99, total 18 never Lucky, the
draw of a no-roll round repeated in the next. This module judges the draws:

- at once, in the round (``DrawLog.at_lucky``): a value the submission's
  distribution never gives (a count, a position, odds it gives probability
  0), and a round's Lucky positions drawn again right after a no roll or a
  void, whatever their odds, when a fresh draw repeats them with a chance
  under 1% (the chance is the p-value; docs/rules.md, "The Lucky draw from
  round to round");
- over the session (``judge``): goodness of fit of the counts (chi-square),
  of each position's share of rounds (an exact two-sided binomial test per
  position) and of the odds given the position (chi-square, positions that
  share one odds distribution pooled), as one family of tests at 99% with
  Holm's correction. Each failing test is a violation naming the clause the
  game gives that part of its draw (``GameDescriptor.lucky_draw_clauses``)
  and its p-value.

A session too short to judge says so: the verdict gives the rounds the
family needs to find one position that is never Lucky, and the smallest
shift of a position's Lucky rate it would find with 80% power.

The distributions are plain Python (``bench.oracle.lucky_pvalues``: the
exact binomial test, the chi-square tail, the normal quantile, checked
against scipy.stats; ``twin.stats`` for the pooling of cells and Holm's
correction): every replay and session judges its draw, and importing
scipy.stats took a second and a half of CPU, most of a short replay's
start-up (issue 42).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Sequence

from bench.oracle.lucky_pvalues import binomial_two_sided, chi_square, normal_quantile

from bench.rules.base import Lucky

CONFIDENCE = 0.99       # the family's: a compliant controller fails it in at most 1% of sessions
AT_ONCE = 0.01          # a repeat after a no roll or a void is flagged when its chance is below this
POWER = 0.80


@dataclass(frozen=True)
class DrawTest:
    part: str               # count, positions, odds
    name: str               # what was tested, e.g. "total:18"
    clause: str
    p_value: float
    adjusted: float = 1.0   # Holm-adjusted within the family
    detail: str = ""

    def to_json(self) -> dict:
        return {"part": self.part, "name": self.name, "clause": self.clause, "p": self.p_value,
                "p_adjusted": self.adjusted, "detail": self.detail}


@dataclass
class DrawVerdict:
    """The session's Lucky draw: ``pass``, ``fail`` or ``too-short``."""
    rounds: int
    verdict: str
    tests: list[DrawTest] = field(default_factory=list)
    needs: int | None = None            # rounds the family needs to find a position never Lucky
    detectable: float | None = None     # smallest shift of a position's Lucky rate found with 80% power
    rate: float | None = None           # a position's chance to be Lucky in a round (the smallest)

    @property
    def failed(self) -> list[DrawTest]:
        return [t for t in self.tests if t.adjusted < 1 - CONFIDENCE]

    def line(self) -> str:
        """One line for a summary."""
        from twin.pvalue import p_equals
        if self.verdict == "fail":
            worst = min(self.failed, key=lambda t: t.adjusted)
            return (f"Lucky draw: not the submission's distribution over {self.rounds} rounds: [{worst.clause}] "
                    f"{worst.detail}, {p_equals(worst.p_value)} (Holm-adjusted {worst.adjusted:.3g})")
        smallest = min((t.adjusted for t in self.tests), default=1.0)
        if self.verdict == "too-short":
            what = (f"a bias of one position never Lucky (Lucky in {100 * self.rate:.1f}% of rounds)"
                    if self.rate is not None else "any bias")
            shift = (f"; these rounds find a position's Lucky rate off by {100 * self.detectable:.0f} points "
                     "(80% power)" if self.detectable is not None and math.isfinite(self.detectable) else "")
            return (f"Lucky draw: too few rounds to detect {what}: {self.rounds} rounds judged, "
                    f"{self.needs} needed at {100 * CONFIDENCE:g}%{shift}")
        return (f"Lucky draw: consistent with the submission over {self.rounds} rounds at {100 * CONFIDENCE:g}% "
                f"(smallest Holm-adjusted p {smallest:.3g}); a position never Lucky would have been found")

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "rounds": self.rounds, "confidence": CONFIDENCE,
                "needs_rounds": self.needs, "detectable_rate_shift": self.detectable, "line": self.line(),
                "tests": [t.to_json() for t in self.tests]}


# -- the exact chance of one draw -------------------------------------------------

def draw_chance(distribution, lucky: Sequence[Lucky]) -> Fraction:
    """P(a round draws exactly these Lucky Numbers, in any order) under the
    submission's distribution (``bench.rules.lucky.LuckyDistribution``)."""
    k = len(lucky)
    count = dict(distribution.count).get(k, Fraction(0))
    positions = distribution.positions
    if count == 0 or any(x.bet not in positions for x in lucky) or len({x.bet for x in lucky}) != k:
        return Fraction(0)
    chance = count / math.comb(len(positions), k)
    for x in lucky:
        chance *= dict(distribution.pays_distribution(x.bet)).get(x.pays, Fraction(0))
    return chance


def positions_chance(distribution, lucky: Sequence[Lucky]) -> Fraction:
    """P(a round's Lucky Numbers fall on exactly these positions, whatever
    their odds): the count's chance over the ways to choose that many
    positions (drawn uniformly without replacement, docs/rules.md)."""
    k = len(lucky)
    count = dict(distribution.count).get(k, Fraction(0))
    positions = distribution.positions
    if count == 0 or any(x.bet not in positions for x in lucky) or len({x.bet for x in lucky}) != k:
        return Fraction(0)
    return count / math.comb(len(positions), k)


def impossible(distribution, lucky: Sequence[Lucky]) -> tuple[str, str] | None:
    """(part, what) of a value the submission's distribution never gives; None if none."""
    k = len(lucky)
    if dict(distribution.count).get(k, 0) == 0:
        allowed = ", ".join(str(c) for c, p in distribution.count if p > 0)
        return "count", f"{k} Lucky Numbers, a count the submission never draws (it draws {allowed})"
    for x in lucky:
        if x.bet not in distribution.positions:
            return "positions", f"{x.bet} Lucky, a position the submission never draws"
        pays = dict(distribution.pays_distribution(x.bet))
        if pays.get(x.pays, 0) == 0:
            allowed = ", ".join(str(v) for v, p in sorted(pays.items()) if p > 0)
            return "odds", f"{x.bet} at {x.pays} to 1, odds the submission never gives it ({allowed} to 1)"
    return None


# -- the family of tests over a session -------------------------------------------

def _chi_square(name: str, observed: list[int], probabilities: list[float]) -> tuple[float, str]:
    """twin.stats.chi_square_goodness's p-value and words (its pooling of
    cells expecting under 5), with the plain-Python tail (lucky_pvalues)."""
    from twin.stats import pool_cells
    total = sum(observed)
    if total == 0:
        return 1.0, "no samples"
    cells, expected = pool_cells([float(o) for o in observed], [p * total for p in probabilities])
    if len(cells) < 2:
        return 1.0, f"too few samples ({total}) for a chi-square"
    _, p_value = chi_square(cells, expected)
    return p_value, f"chi-square, {len(cells) - 1} degrees of freedom, {total} samples"


def _count_test(distribution, counts: Counter, clause: str) -> DrawTest | None:
    support = [(k, float(p)) for k, p in distribution.count if p > 0]
    if len(support) < 2:
        return None
    observed = [counts.get(k, 0) for k, _ in support]
    p_value, words = _chi_square("count", observed, [p for _, p in support])
    shown = ", ".join(f"{k}: {counts.get(k, 0)}" for k, _ in support)
    return DrawTest("count", "count", clause, p_value,
                    detail=f"Lucky Numbers a round {shown} against {', '.join(f'{k}: {p:.0%}' for k, p in support)}"
                           f" ({words})")


def _position_tests(distribution, rounds: int, seen: Counter, clause: str) -> list[DrawTest]:
    tests = []
    for bet in distribution.positions:
        q = float(distribution.lucky_probability(bet))
        if not 0 < q < 1:
            continue
        x = seen.get(bet, 0)
        p = binomial_two_sided(x, rounds, q)
        tests.append(DrawTest("positions", bet, clause, p,
                              detail=f"{bet} Lucky in {x} of {rounds} rounds, {q * rounds:.1f} expected"))
    return tests


def _odds_tests(distribution, odds: dict[str, Counter], clause: str) -> list[DrawTest]:
    groups: dict[tuple, list[str]] = {}
    for bet, dist in distribution.odds:
        groups.setdefault(dist, []).append(bet)
    tests = []
    for dist, bets in groups.items():
        support = [(pays, float(p)) for pays, p in dist if p > 0]
        if len(support) < 2:
            continue
        pooled: Counter[int] = Counter()     # pays N (of "N to 1") -> how often drawn
        for bet in bets:
            pooled.update(odds.get(bet, Counter()))
        total = sum(pooled.values())
        if not total:
            continue
        p_value, words = _chi_square("odds", [pooled.get(v, 0) for v, _ in support], [p for _, p in support])
        name = bets[0] if len(bets) == 1 else (", ".join(bets) if len(bets) <= 3 else f"{len(bets)} positions")
        shown = ", ".join(f"{v}: {pooled.get(v, 0)}" for v, _ in support)
        tests.append(DrawTest("odds", name, clause, p_value,
                              detail=f"odds of {name} ({total} Lucky Numbers) {shown} against "
                                     f"{', '.join(f'{v}: {p:.1%}' for v, p in support)} ({words})"))
    return tests


@lru_cache(maxsize=64)
def rounds_to_find_never_lucky(rate: float, family: int, confidence: float = CONFIDENCE) -> int:
    """The fewest rounds after which a position of Lucky ``rate`` that was
    never Lucky fails its test in a family of ``family`` (Holm's first step:
    its p-value at most (1 - confidence) / family)."""
    alpha = (1 - confidence) / max(1, family)
    low, high = 1, 2
    while binomial_two_sided(0, high, rate) > alpha:
        low, high = high, high * 2
        if high > 1_000_000:
            return high
    while low < high:
        mid = (low + high) // 2
        if binomial_two_sided(0, mid, rate) <= alpha:
            high = mid
        else:
            low = mid + 1
    return high


def detectable_shift(rate: float, rounds: int, family: int, confidence: float = CONFIDENCE,
                     power: float = POWER) -> float:
    """The smallest shift of a position's Lucky rate its test finds with
    ``power`` (normal approximation, two-sided, Bonferroni over the family)."""
    if rounds <= 0:
        return math.inf
    z = normal_quantile(1 - (1 - confidence) / (2 * max(1, family))) + normal_quantile(power)
    return float(z * math.sqrt(rate * (1 - rate) / rounds))


@dataclass
class DrawTally:
    """All the session's verdict reads of its draws: how many rounds drew, how
    many Lucky Numbers each drew, each position's rounds and its odds. A few
    hundred counts however long the session: the list of every draw it
    replaces grew about 60 bytes a round (issue 42, item 6)."""
    rounds: int = 0
    counts: Counter = field(default_factory=Counter)       # Lucky Numbers a round -> rounds
    seen: Counter = field(default_factory=Counter)         # position -> rounds it was Lucky
    odds: dict[str, Counter] = field(default_factory=dict)  # position -> pays -> how often

    def add(self, draw: Sequence[Lucky]) -> None:
        self.rounds += 1
        self.counts[len(draw)] += 1
        for x in draw:
            self.seen[x.bet] += 1
            self.odds.setdefault(x.bet, Counter())[x.pays] += 1

    @classmethod
    def of(cls, draws: Iterable[Sequence[Lucky]]) -> DrawTally:
        tally = cls()
        for draw in draws:
            tally.add(draw)
        return tally


def judge(distribution, clauses, draws: Iterable[Sequence[Lucky]] | DrawTally) -> DrawVerdict:
    """The session's verdict on ``draws`` (each round's lawful Lucky Numbers, or their tally)."""
    from twin.stats import holm_adjusted
    tally = draws if isinstance(draws, DrawTally) else DrawTally.of(draws)
    rounds, counts, seen, odds = tally.rounds, tally.counts, tally.seen, tally.odds
    tests: list[DrawTest] = []
    if rounds:
        count = _count_test(distribution, counts, clauses["count"])
        tests += [count] if count else []
        tests += _position_tests(distribution, rounds, seen, clauses["positions"])
        tests += _odds_tests(distribution, odds, clauses["odds"])
    adjusted = holm_adjusted([t.p_value for t in tests])
    tests = [DrawTest(t.part, t.name, t.clause, t.p_value, a, t.detail) for t, a in zip(tests, adjusted)]
    rates = [float(distribution.lucky_probability(bet)) for bet in distribution.positions]
    rate = min((r for r in rates if 0 < r < 1), default=None)
    # Before any round, the family the first rounds will make: the count, each position, each odds group.
    family = len(tests) if tests else 1 + len(distribution.positions) + len({d for _, d in distribution.odds})
    needs = rounds_to_find_never_lucky(rate, family) if rate else None
    verdict = DrawVerdict(rounds, "pass", tests, needs, detectable_shift(rate, rounds, family) if rate else None, rate)
    if verdict.failed:
        verdict.verdict = "fail"
    elif needs is not None and rounds < needs:
        verdict.verdict = "too-short"
    return verdict


class DrawLog:
    """What the oracle keeps of the Lucky draws: the lawful draws' tally, and
    the last draw with how its round ended."""

    def __init__(self, rules, clauses) -> None:
        self.distribution = getattr(rules, "lucky", None)
        self.clauses = clauses
        self.tally = DrawTally()
        self._last: tuple[tuple[Lucky, ...], str] | None = None   # (draw, how its round ended)

    @property
    def active(self) -> bool:
        return self.distribution is not None and bool(self.clauses)

    def at_lucky(self, lucky: tuple[Lucky, ...]) -> list[tuple[str, str]]:
        """A lawful draw as it comes: (clause, message) for what it breaks at once."""
        if not self.active:
            return []
        found = []
        bad = impossible(self.distribution, lucky)
        if bad is not None:
            found.append((self.clauses[bad[0]], f"Lucky Numbers {_shown(lucky)}: {bad[1]}"))
        last = self._last
        # The draw chooses the positions first and their odds after (docs/rules.md): the same
        # positions again with new odds are the positions' draw not made afresh all the same. So
        # the positions are compared whatever the odds; the chance is that of what repeated (the
        # positions, or the positions with their odds when those repeat too).
        if last is not None and last[1] in ("no-roll", "void") and _positions(last[0]) == _positions(lucky):
            from twin.pvalue import format_p
            exact = set(last[0]) == set(lucky)
            chance = float(draw_chance(self.distribution, lucky) if exact
                           else positions_chance(self.distribution, lucky))
            if chance < AT_ONCE:
                how = ("repeat those of the round before" if exact else
                       f"repeat the positions of the round before ({_shown(last[0])}) with new odds")
                gives = "exactly these" if exact else "these positions, whatever their odds,"
                found.append((self.clauses["repeat"],
                              f"Lucky Numbers {_shown(lucky)} {how}, which ended in a "
                              f"{'no roll' if last[1] == 'no-roll' else 'void'}: a fresh draw gives {gives} "
                              f"with chance p = {format_p(chance)} (flagged below {AT_ONCE:g})"))
        self.tally.add(lucky)
        self._last = (tuple(lucky), "pending")
        return found

    def round_ended(self, how: str) -> None:
        """The round of the last draw ended: ``played``, ``no-roll`` or ``void``."""
        if self._last is not None and self._last[1] == "pending":
            self._last = (self._last[0], how)

    def verdict(self) -> DrawVerdict | None:
        if not self.active:
            return None
        return judge(self.distribution, self.clauses, self.tally)


def _shown(lucky) -> str:
    return ", ".join(f"{x.bet}@{x.pays}" for x in lucky)


def _positions(lucky) -> frozenset[str]:
    return frozenset(x.bet for x in lucky)


__all__ = ["AT_ONCE", "CONFIDENCE", "DrawLog", "DrawTally", "DrawTest", "DrawVerdict", "draw_chance", "impossible", "judge",
           "positions_chance", "rounds_to_find_never_lucky"]
