"""The Lucky Number random draw of the lightning games, as a submission states
it: how many Lucky Numbers a round reveals, which betting positions they fall
on and which enhanced odds each gets.

Model (exact, and what ``draw`` does): the count k is drawn from ``count``;
k distinct positions are then drawn uniformly without replacement from
``positions``; each drawn position gets odds drawn from its own ``odds``
distribution, independently of the rest and of the dice or the ball. Hence a
given position is Lucky with probability E[k] / len(positions), which makes
the exact RTP a short sum (see ``bench.rules.rtp_table``).

The limits (2–4 Lucky Numbers and the ranges of 58 Pa. Code § 625b.2(g)(3) for
Lightning Dice; 1–5 and the list of § 617c.3(g) for Lightning Roulette) belong
to each game; ``parse_lucky`` asks the game through ``LuckyLimits``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Protocol, Sequence

from bench.rules.errors import RulesError
from tablebench_io.fields import refuse_unknown
from bench.rules.base import Lucky
from bench.rules.exact import draw, parse_int, parse_probability


class LuckyLimits(Protocol):
    """What a lightning game's regulation allows for its Lucky Numbers."""
    name: str
    lucky_count_range: tuple[int, int]
    lucky_count_clause: str
    lucky_position_clause: str
    lucky_pays_clause: str

    def lucky_positions(self, options: Mapping[str, str]) -> Sequence[str]: ...
    # Optional ``lucky_pays_required``: payouts the submission must give a positive
    # probability somewhere (617c.3(g): "all of which shall be included").
    def check_lucky_pays(self, bet: str, pays: int) -> None: ...


@dataclass(frozen=True)
class LuckyDistribution:
    count: tuple[tuple[int, Fraction], ...]                 # (k, probability)
    positions: tuple[str, ...]                              # drawn uniformly, without replacement
    odds: tuple[tuple[str, tuple[tuple[int, Fraction], ...]], ...]  # position -> ((pays, probability), ...)

    def expected_count(self) -> Fraction:
        return sum((k * p for k, p in self.count), Fraction(0))

    def lucky_probability(self, bet: str) -> Fraction:
        """P(this bet is one of the round's Lucky Numbers)."""
        if bet not in self.positions:
            return Fraction(0)
        return self.expected_count() / len(self.positions)

    def pays_distribution(self, bet: str) -> tuple[tuple[int, Fraction], ...]:
        return dict(self.odds)[bet]

    def expected_pays(self, bet: str) -> Fraction:
        """E[enhanced odds N (of "N to 1") | the bet is Lucky]."""
        return sum((pays * p for pays, p in self.pays_distribution(bet)), Fraction(0))

    def draw(self, rng) -> tuple[Lucky, ...]:
        """One round's Lucky Numbers from ``rng`` (a seeded ``random.Random``)."""
        k = draw(self.count, rng)
        chosen = rng.sample(list(self.positions), k)
        return tuple(Lucky(bet, draw(self.pays_distribution(bet), rng)) for bet in chosen)


_TOP_FIELDS = {"count", "positions", "odds"}
ALL = "all"  # in `positions`: every position the regulation allows; in `odds`: every position not listed


def _distribution(raw: object, *, file: str | None, field: str, what: str,
                  key_check, clause: str) -> tuple[tuple[int, Fraction], ...]:
    if not isinstance(raw, Mapping) or not raw:
        raise RulesError(f"expected a mapping of {what} to probability", file=file, field=field)
    pairs = []
    for key, value in raw.items():
        n = parse_int(key, file=file, field=f"{field}.{key}", what=what)
        key_check(n, f"{field}.{key}")
        pairs.append((n, parse_probability(value, file=file, field=f"{field}.{key}")))
    total = sum(p for _, p in pairs)
    if total != 1:
        raise RulesError(f"the probabilities sum to {total}, not 1", file=file, field=field, clause=clause)
    return tuple(sorted(pairs))


def parse_lucky(raw: object, game: LuckyLimits, options: Mapping[str, str], *,
                file: str | None, field: str = "lucky") -> LuckyDistribution:
    """Validate the ``lucky`` section of a submission against the game's regulation."""
    if not isinstance(raw, Mapping):
        raise RulesError("expected a mapping with count, positions and odds", file=file, field=field)
    refuse_unknown(raw, _TOP_FIELDS, error=RulesError, file=file, prefix=field)
    missing = _TOP_FIELDS - set(raw)
    if missing:
        raise RulesError(f"missing field(s) {sorted(missing)}", file=file, field=field)

    low, high = game.lucky_count_range

    def check_count(k: int, where: str) -> None:
        if not low <= k <= high:
            raise RulesError(f"a round reveals between {low} and {high} Lucky Numbers, not {k}",
                             file=file, field=where, clause=game.lucky_count_clause)

    count = _distribution(raw["count"], file=file, field=f"{field}.count",
                          what="number of Lucky Numbers", key_check=check_count,
                          clause=game.lucky_count_clause)

    allowed = game.lucky_positions(options)
    raw_positions = raw["positions"]
    if raw_positions == ALL:
        positions = tuple(allowed)
    elif isinstance(raw_positions, list) and raw_positions:
        for i, bet in enumerate(raw_positions):
            if bet not in allowed:
                raise RulesError(f"{bet!r} is not a betting position that can be Lucky; "
                                 f"allowed: {', '.join(allowed)}", file=file,
                                 field=f"{field}.positions[{i}]", clause=game.lucky_position_clause)
        if len(set(raw_positions)) != len(raw_positions):
            raise RulesError("a position is listed twice", file=file, field=f"{field}.positions",
                             clause=game.lucky_position_clause)
        positions = tuple(raw_positions)
    else:
        raise RulesError(f"expected a list of bets or {ALL!r}", file=file, field=f"{field}.positions")
    most = max(k for k, p in count if p > 0)
    if most > len(positions):
        raise RulesError(f"{most} Lucky Numbers cannot fall on only {len(positions)} positions",
                         file=file, field=f"{field}.positions", clause=game.lucky_count_clause)

    raw_odds = raw["odds"]
    if not isinstance(raw_odds, Mapping):
        raise RulesError("expected a mapping from position (or 'all') to an odds distribution",
                         file=file, field=f"{field}.odds")
    for key in raw_odds:
        if key != ALL and key not in positions:
            raise RulesError(f"{key!r} is not one of lucky.positions", file=file, field=f"{field}.odds.{key}",
                             clause=game.lucky_position_clause)
    odds = []
    for bet in positions:
        key = bet if bet in raw_odds else ALL
        if key not in raw_odds:
            raise RulesError(f"no odds distribution for position {bet!r} (and no 'all' entry)",
                             file=file, field=f"{field}.odds")

        def check_pays(pays: int, where: str, bet: str = bet) -> None:
            try:
                game.check_lucky_pays(bet, pays)
            except RulesError as err:
                raise RulesError(err.message, file=file, field=where, clause=err.clause) from None

        odds.append((bet, _distribution(raw_odds[key], file=file, field=f"{field}.odds.{key}",
                                        what="payout odds N (of 'N to 1')", key_check=check_pays,
                                        clause=game.lucky_pays_clause)))
    required = set(getattr(game, "lucky_pays_required", ()))
    offered = {pays for _, dist in odds for pays, p in dist if p > 0}
    if required - offered:
        absent = ", ".join(f"{n} to 1" for n in sorted(required - offered, reverse=True))
        raise RulesError(f"every possible payout must be included in the submission; missing {absent}",
                         file=file, field=f"{field}.odds", clause=game.lucky_pays_clause)
    return LuckyDistribution(count=count, positions=positions, odds=tuple(odds))


def check_round_lucky(lucky, game: LuckyLimits, options: Mapping[str, str]) -> None:
    """The Lucky Numbers revealed in one round, against the regulation."""
    low, high = game.lucky_count_range
    if not low <= len(lucky) <= high:
        raise RulesError(f"a round reveals between {low} and {high} Lucky Numbers, got {len(lucky)}",
                         field="lucky", clause=game.lucky_count_clause)
    allowed = game.lucky_positions(options)
    seen = set()
    for i, item in enumerate(lucky):
        if item.bet not in allowed:
            raise RulesError(f"{item.bet!r} is not a betting position that can be Lucky",
                             field=f"lucky[{i}].bet", clause=game.lucky_position_clause)
        if item.bet in seen:
            raise RulesError(f"{item.bet!r} is Lucky twice in one round", field=f"lucky[{i}].bet",
                             clause=game.lucky_position_clause)
        seen.add(item.bet)
        if isinstance(item.pays, bool) or not isinstance(item.pays, int):
            raise RulesError(f"pays must be an integer N of 'N to 1', got {item.pays!r}",
                             field=f"lucky[{i}].pays")
        try:
            game.check_lucky_pays(item.bet, item.pays)
        except RulesError as err:
            raise RulesError(err.message, field=f"lucky[{i}].pays", clause=err.clause) from None


def require_distribution(rules, game: LuckyLimits) -> LuckyDistribution:
    """The submission's Lucky distribution, or a RulesError saying it has none."""
    if rules is None or rules.lucky is None:
        raise RulesError(f"the rules give no Lucky Number distribution to draw from; load a "
                         f"{game.name} submission or use default_rules({game.name!r})",
                         field="lucky", clause=game.lucky_count_clause)
    return rules.lucky
