"""Lightning Roulette (58 Pa. Code § 617c.3) on a single-zero wheel.

A straight up pays 29 to 1 (f), unless its number is one of the round's 1 to 5
Lucky Numbers (d), in which case it pays the odds shown for it (e), one of the
list in (g). The other standard single-zero wagers pay their standard odds
(§ 617a.4, whose text is not among the seed regulations: split 17, street 11,
corner 8, six line 5, dozen and column 2, the even-money bets 1 to 1; every one
of them loses on 0).

Bets: ``straight:N`` (0-36), ``split:A-B`` (adjacent, low first; 0-1, 0-2, 0-3
included), ``street:N`` (N = 1, 4, .. 34), ``corner:A-B-C-D`` (low first;
0-1-2-3 the "first four" included), ``six-line:N`` (N = 1, 4, .. 31),
``dozen:1|2|3``, ``column:1|2|3``, ``red``, ``black``, ``odd``, ``even``,
``1-18``, ``19-36``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from bench.rules.errors import RulesError
from bench.rules.base import Lucky, Round, Settlement, Wager
from bench.rules.lucky import check_round_lucky, require_distribution
from bench.rules.descriptor import WHEEL, GameDescriptor, clauses, frozen, lucky_draw_clauses
from bench.rules.outcome_classes import (LUCKY_POCKET, LUCKY_WIN, LUCKY_WIN_AFTER, POCKET, OutcomeClass, lucky_wins,
                                         pockets)
from bench.rules.registry import register
from bench.rules.wagers import check_wagers, paid
from tablebench_io import paytables

POCKETS = range(0, 37)          # § 617c.3(a): a single zero wheel, 0-36
_LUCKY_POSITIONS = tuple(f"straight:{n}" for n in POCKETS)   # checked every round: made once
WHEEL_CLAUSE = "617c.3(a)"
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})

# The paytables' one copy is the shipped data the twin's edge reads too
# (tablebench_fixtures/paytables.yaml).
_LIGHTNING = paytables.table("lightning-roulette", "lightning")
_STANDARD = paytables.table("lightning-roulette", "standard")
_LUCKY_TERMS = paytables.lucky_terms("lightning-roulette")
STRAIGHT_ODDS = _LIGHTNING.rows["straight"]   # § 617c.3(f): a straight up that is not a Lucky Number (29)
STRAIGHT_CLAUSE = _LIGHTNING.clause           # "617c.3(f)"
LUCKY_CLAUSE = "617c.3(e)"
LUCKY_PAYS = _LUCKY_TERMS.pays                # § 617c.3(g)(1)-(9)
STANDARD_CLAUSE = _STANDARD.clause            # "617a.4"
# Standard single-zero odds, "N to 1" (§ 617a.4, as the issue states them); a
# Lightning Roulette straight up pays STRAIGHT_ODDS instead of the standard one.
STANDARD_ODDS = {kind: odds for kind, odds in _STANDARD.rows.items() if kind != "straight"}


def _covered() -> dict[str, frozenset[int]]:
    """Every bet and the numbers it covers, in layout order (inside bets, then outside)."""
    bets: dict[str, frozenset[int]] = {f"straight:{n}": frozenset({n}) for n in POCKETS}
    splits = [(0, 1), (0, 2), (0, 3)]
    for n in range(1, 37):
        if n % 3:
            splits.append((n, n + 1))
        if n <= 33:
            splits.append((n, n + 3))
    for a, b in sorted(splits):
        bets[f"split:{a}-{b}"] = frozenset({a, b})
    rows = [3 * row + 1 for row in range(12)]
    for first in rows:
        bets[f"street:{first}"] = frozenset(range(first, first + 3))
    bets["corner:0-1-2-3"] = frozenset({0, 1, 2, 3})   # the "first four"
    for n in range(1, 33):
        if n % 3:
            bets[f"corner:{n}-{n + 1}-{n + 3}-{n + 4}"] = frozenset({n, n + 1, n + 3, n + 4})
    for first in rows[:-1]:
        bets[f"six-line:{first}"] = frozenset(range(first, first + 6))
    for d in (1, 2, 3):
        bets[f"dozen:{d}"] = frozenset(range(12 * d - 11, 12 * d + 1))
    for d in (1, 2, 3):
        bets[f"column:{d}"] = frozenset(range(d, 37, 3))
    bets["red"] = RED
    bets["black"] = frozenset(range(1, 37)) - RED
    bets["odd"] = frozenset(range(1, 37, 2))
    bets["even"] = frozenset(range(2, 37, 2))
    bets["1-18"] = frozenset(range(1, 19))
    bets["19-36"] = frozenset(range(19, 37))
    return bets


COVERED = _covered()

# The default Lucky distribution; the same as fixtures/submissions/lightning-roulette.yaml.
# 1 to 5 Lucky Numbers (d), on any of the 37 numbers, odds from (g)'s list,
# weighted so that a straight up returns about 97.10% (the published figure).
DEFAULT_LUCKY = {
    "count": {1: "0.25", 2: "0.25", 3: "0.2", 4: "0.15", 5: "0.15"},
    "positions": "all",
    # (g)'s nine payouts; E[N] = 110.25, so a straight up returns
    # (30 + 2.7/37 * (110.25 - 29)) / 37 = 97.105% exactly-ish (see `bench rtp`).
    "odds": {"all": {49: "0.425", 99: "0.275", 149: "0.15", 199: "0.07", 249: "0.03",
                     299: "0.02", 349: "0.01", 399: "0.01", 499: "0.01"}},
}


def _check_pocket(pocket: object) -> int:
    if isinstance(pocket, bool) or not isinstance(pocket, int) or pocket not in POCKETS:
        raise RulesError(f"a single-zero wheel has pockets 0 to 36, got {pocket!r}", field="pocket",
                         clause=WHEEL_CLAUSE)
    return pocket


class LightningRoulette:
    name = "lightning-roulette"
    descriptor: GameDescriptor      # set below, once the class is made
    regulation = "58 Pa. Code § 617c.3"
    paytables: tuple[str, ...] = ()
    paytable_clause = STRAIGHT_CLAUSE
    line_fields = frozenset({"pocket", "lucky"})   # a `bench settle` line's round fields
    outcome_field = "pocket"
    option_choices: dict[str, tuple[str, ...]] = {}
    option_clauses: dict[str, str] = {}
    lucky_count_range = _LUCKY_TERMS.count   # § 617c.3(d): 1 to 5
    lucky_count_clause = _LUCKY_TERMS.count_clause
    lucky_position_clause = "617c.3(d)"
    lucky_pays_clause = "617c.3(g)"
    # (g): "The possible payouts, all of which shall be included in the certificate
    # holder's Rules Submission": each must have a positive probability.
    lucky_pays_required = LUCKY_PAYS
    DEFAULT_LUCKY = DEFAULT_LUCKY

    def is_no_roll(self, flat, rules) -> bool:
        """A ball always comes to rest in a pocket."""
        return False

    def bet_names(self, rules=None) -> list[str]:
        return list(COVERED)

    def check_bet(self, bet: str, rules=None) -> None:
        if bet not in COVERED:
            raise RulesError(f"Lightning Roulette offers no bet {bet!r}; see `bench settle --help` "
                             "(splits, corners: adjacent numbers, low first)", field="bet",
                             clause="617c.3(a)")

    def odds_clause(self, bet: str, rules) -> str:
        """The clause that sets the bet's payout odds."""
        return "617c.3(e)-(g)" if bet.startswith("straight:") else STANDARD_CLAUSE

    def decide(self, bet: str, pocket: int) -> tuple[int | None, str]:
        """The paytable odds of a win, or None, and the deciding clause (no Lucky Numbers)."""
        kind = bet.partition(":")[0]
        if pocket not in COVERED[bet]:
            return None, ("617c.3(a)" if kind == "straight" else STANDARD_CLAUSE)
        if kind == "straight":
            return STRAIGHT_ODDS, STRAIGHT_CLAUSE
        return STANDARD_ODDS[kind], STANDARD_CLAUSE

    # -- Lucky Numbers ------------------------------------------------------
    def lucky_positions(self, options: Mapping[str, str]) -> tuple[str, ...]:
        """(d): "numbers on the layout", 0 included; a Lucky Number enhances its straight up."""
        return _LUCKY_POSITIONS

    def check_lucky_pays(self, bet: str, pays: int) -> None:
        if pays not in LUCKY_PAYS:
            raise RulesError(f"a Lucky Number pays one of {', '.join(map(str, LUCKY_PAYS))} to 1, "
                             f"not {pays} to 1", field="pays", clause="617c.3(g)")

    def check_lucky(self, lucky: Sequence[Lucky], rules) -> None:
        check_round_lucky(lucky, self, {})

    def draw_lucky(self, rules, rng) -> tuple[Lucky, ...]:
        """This round's Lucky Numbers from the submission's distribution (rng: a seeded random.Random)."""
        return require_distribution(rules, self).draw(rng)

    # -- settlement and RTP -------------------------------------------------
    def settle(self, round_: Round, wagers: Iterable[Wager], rules) -> list[Settlement]:
        wagers = check_wagers(wagers, self.check_bet)
        self.check_lucky(round_.lucky, rules)
        pocket = _check_pocket(round_.pocket)
        enhanced = {item.bet: item.pays for item in round_.lucky}
        settlements = []
        for wager in wagers:
            odds, clause = self.decide(wager.bet, pocket)
            if odds is not None and wager.bet in enhanced:
                odds, clause = enhanced[wager.bet], LUCKY_CLAUSE
            settlements.append(paid(wager, odds, clause))
        return settlements

    def win_probability(self, bet: str, rules) -> Fraction:
        self.check_bet(bet)
        return Fraction(len(COVERED[bet]), len(POCKETS))

    def rtp(self, bet: str, rules) -> Fraction:
        """Over the 37 equally likely pockets; a Lucky draw independent of the ball."""
        self.check_bet(bet)
        returned = Fraction(0)
        for pocket in POCKETS:
            odds, _ = self.decide(bet, pocket)
            if odds is None:
                continue
            expected = Fraction(odds)
            if rules is not None and rules.lucky is not None and rules.lucky.lucky_probability(bet):
                q = rules.lucky.lucky_probability(bet)
                expected = (1 - q) * odds + q * rules.lucky.expected_pays(bet)
            returned += 1 + expected
        return returned / len(POCKETS)


# What the bench needs besides settlement: bench.rules.descriptor.
LightningRoulette.descriptor = GameDescriptor(
    name="lightning-roulette", kind=WHEEL, command="SPIN", plant="wheel", lightning=True,
    title="Lightning Roulette", amount_clauses=("617c.3(e)", "617c.3(f)", "617a.4"),
    lucky_win_clause="617c.3(e)",
    phase_clauses=clauses(
        betting="617c.3(c)",         # straight wagers "before the croupier calls no more bets"
        lucky="617c.3(d)",           # "After all wagers have been placed, the RNG shall be initiated"
        lucky_count="617c.3(d)",     # "between 1 and 5 numbers"
        trigger="617a.5",            # rotation of wheel and ball, cited by 617c.3(c)
        result="617c.3(e)",          # where the ball "comes to rest"
        settlement="617c.3(e)",      # the winning straight "shall win and be paid"
    ),
    late_bet="red", quiet_outcome=frozen({"pocket": 5}),
    players=(("straight:17", 3), ("straight:0", 1), ("split:1-2", 1), ("street:4", 1),
             ("corner:1-2-4-5", 1), ("six-line:7", 1), ("dozen:2", 1), ("column:3", 1),
             ("red", 2), ("black", 2), ("odd", 1), ("even", 1), ("1-18", 1), ("19-36", 1)),
    # Every number over a session (each pocket decides the standard wagers that
    # hold it, 617a.4, and its straight up, 617c.3(f); zero first, on which every
    # outside bet loses), a Lucky win at each listed position (e), zero as a
    # Lucky Number, and a Lucky win right after a Lucky win (a paytable kept
    # from the round before shows there). A pocket shows its class only when
    # its straight up is not a Lucky Number: 617c.3(f)'s 29 to 1 is paid then
    # alone (a Lucky one is paid by (e), a Lucky win). A round that shows a
    # Lucky win shows no pocket at base odds, so a Lucky win weighs 2: staged
    # before the pockets a session of 30 rounds cannot all reach anyway.
    outcome_classes=(
        lucky_wins(5, "617c.3(e)", weight=2.0)
        + (OutcomeClass(LUCKY_POCKET, 0, "617c.3(d),(e); 617a.4"),
           OutcomeClass(LUCKY_WIN_AFTER, LUCKY_WIN, "617c.3(e),(f)"),
           OutcomeClass(POCKET, 0, "617a.4: every outside bet loses; 617c.3(f)", weight=2.0, bets=("straight:0",)))
        + pockets(range(1, 37), "617c.3(f); 617a.4", bets=("straight:{}",))
    ),
    lucky_draw_clauses=lucky_draw_clauses(
        count="617c.3(d)",           # "will select between 1 and 5 numbers", as the submission weights them
        positions="617c.3(d)",       # "numbers on the layout that are the Lucky Numbers"
        odds="617c.3(g)",            # "The possible payouts ... that may be selected by the random number generator"
        repeat="617c.3(d)",          # "the random number generator shall be initiated" each round
    ),
    cover="every-number",
    not_offered="split:1-5",         # 1 and 5 do not touch on the layout; 617c.3(a)
)

GAME = register(LightningRoulette())
