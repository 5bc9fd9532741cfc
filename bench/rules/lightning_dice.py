"""Lightning Dice (58 Pa. Code § 625b.2): a Super Sic Bo variation dropped
through a tower. Wagers of (e) paid by the base paytable (f), except a
betting position the random number generator made Lucky, which pays its
enhanced odds from the ranges of (g)(3). A "no roll" (d)(5) returns every wager.

Bets: ``low``, ``high``, ``any-double``, ``any-triple``, ``total:3`` .. ``total:18``.
The ambiguous clauses are ``option_choices`` (first choice = default); see
docs/rules.md for the texts and the reasons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from bench.rules.errors import RulesError
from bench.rules.base import Lucky, Round, Settlement, Wager
from bench.rules.dice_bets import is_triple, largest_group, parse_number, total
from bench.rules.dice_game import DiceGame
from bench.rules.lucky import check_round_lucky, require_distribution
from bench.rules.descriptor import DICE3, NO_ROLL_VOIDS, GameDescriptor, clauses, frozen, lucky_draw_clauses
from bench.rules.outcome_classes import (LUCKY_WIN, LUCKY_WIN_AFTER, NO_ROLL, OutcomeClass, doubles, lucky_wins,
                                         no_rolls, totals, triples)
from bench.rules.registry import register
from bench.rules.wagers import paid
from tablebench_io import paytables

# § 625b.2(f): the base paytable, "N to 1"; its one copy is the shipped data
# the twin's edge reads too (tablebench_fixtures/paytables.yaml).
_BASE = paytables.table("lightning-dice", "base")
BASE_PAYTABLE: dict[str, int] = dict(_BASE.rows)
BASE_CLAUSE = _BASE.clause                    # "625b.2(f)"

# § 625b.2(g)(3): the range the enhanced "N to 1" odds of a Lucky position must lie in.
ENHANCED_RANGES: dict[str, tuple[int, int]] = {
    "low": (1, 9), "high": (1, 9), "any-double": (1, 3), "any-triple": (24, 249),
    "total:3": (149, 999), "total:4": (49, 499), "total:5": (24, 249), "total:6": (14, 99),
    "total:7": (9, 99), "total:8": (6, 49), "total:9": (5, 49), "total:10": (4, 49),
    "total:11": (4, 49), "total:12": (5, 49), "total:13": (6, 49), "total:14": (9, 99),
    "total:15": (14, 99), "total:16": (24, 249), "total:17": (49, 499), "total:18": (149, 999),
}
ENHANCED_CLAUSE = "625b.2(g)(3)"

# Where (e) defines each wager (the clause of a loss).
WAGER_CLAUSES = {"low": "625b.2(e)(1)", "high": "625b.2(e)(2)", "any-double": "625b.2(e)(3)",
                 "any-triple": "625b.2(e)(4)", "total": "625b.2(e)(5)"}
NO_ROLL_CLAUSE = "625b.2(d)(5)"

# The default Lucky distribution; the same as fixtures/submissions/lightning-dice.yaml.
# Like the commercial game, only the sixteen totals become Lucky (any position of
# (g)(3) may, in a submission). Two to four positions (d)(2); each total's odds
# lie in its (g)(3) range and are weighted so that every total returns about
# 96.2% (the published figure is 96.21%); `bench rtp` prints the exact values.
DEFAULT_LUCKY = {
    "count": {2: "0.4", 3: "0.4", 4: "0.2"},
    "positions": [f"total:{t}" for t in range(3, 19)],
    "odds": {},  # filled in below
}

# Each entry: the enhanced "N to 1" odds -> probability, for a total and its mirror (21 - t).
_MIRRORED_ODDS = {
    3: {249: "0.469", 499: "0.241", 749: "0.19", 999: "0.1"},   # (g)(3): 149—999
    4: {99: "0.55", 149: "0.249", 249: "0.131", 499: "0.07"},   # (g)(3): 49—499
    5: {49: "0.509", 74: "0.26", 99: "0.151", 249: "0.08"},     # (g)(3): 24—249
    6: {29: "0.511", 49: "0.259", 74: "0.13", 99: "0.1"},       # (g)(3): 14—99
    7: {19: "0.55", 29: "0.249", 49: "0.131", 99: "0.07"},      # (g)(3): 9—99
    8: {14: "0.45", 19: "0.23", 29: "0.19", 49: "0.13"},        # (g)(3): 6—49
    9: {9: "0.459", 14: "0.24", 24: "0.161", 49: "0.14"},       # (g)(3): 5—49
    10: {9: "0.42", 14: "0.229", 24: "0.191", 49: "0.16"},      # (g)(3): 4—49
}
DEFAULT_LUCKY["odds"] = {f"total:{t}": dict(_MIRRORED_ODDS[min(t, 21 - t)]) for t in range(3, 19)}


class LightningDice(DiceGame):
    name = "lightning-dice"
    regulation = "58 Pa. Code § 625b.2"
    dice_clause = "625b.2(d)(4)"
    paytable_clause = BASE_CLAUSE
    line_fields = frozenset({"dice", "lucky", "no_roll", "flat"})   # a `bench settle` line's round fields
    outcome_field = "dice"
    option_choices = {
        "low_high": ("small-big", "paytable-label"),
        "any_double_on_triple": ("wins", "loses"),
        "no_roll": ("any-die", "all-dice"),
        "totals": ("3-18", "4-17"),
    }
    option_clauses = {"low_high": "625b.2(e)(1)", "any_double_on_triple": "625b.2(e)(3)",
                      "no_roll": NO_ROLL_CLAUSE, "totals": "625b.2(e)(5)"}
    lucky_count_range = (2, 4)                  # § 625b.2(d)(2), (g)(1)
    lucky_count_clause = "625b.2(d)(2)"
    lucky_position_clause = "625b.2(g)(1)"
    lucky_pays_clause = ENHANCED_CLAUSE
    DEFAULT_LUCKY = DEFAULT_LUCKY
    has_no_roll = True
    base_paytable: Mapping[str, int] = BASE_PAYTABLE         # (f); a game file may change rows
    enhanced_ranges: Mapping[str, tuple[int, int]] = ENHANCED_RANGES   # (g)(3); likewise

    # -- bets ---------------------------------------------------------------
    def _total_range(self, rules) -> tuple[int, int]:
        reading = rules.option("totals") if rules is not None else "3-18"
        return (3, 18) if reading == "3-18" else (4, 17)

    def bet_names(self, rules=None) -> list[str]:
        low, high = self._total_range(rules)
        return ["low", "high", "any-double", "any-triple"] + [f"total:{t}" for t in range(low, high + 1)]

    def check_bet(self, bet: str, rules=None) -> None:
        if not isinstance(bet, str):
            raise RulesError(f"expected a bet name, got {bet!r}", field="bet")
        if bet in ("low", "high", "any-double", "any-triple"):
            return
        kind, _, arg = bet.partition(":")
        if kind == "total" and arg:
            low, high = self._total_range(rules)
            parse_number(arg, bet, low=low, high=high, clause=WAGER_CLAUSES["total"])
            return
        raise RulesError(f"Lightning Dice offers no bet {bet!r}; its wagers are low, high, any-double, "
                         "any-triple and total:N", field="bet", clause="625b.2(e)")

    def odds_clause(self, bet: str, rules) -> str:
        """The clause that sets the bet's payout odds (with (g)(3) if it may be Lucky)."""
        lucky = rules.lucky if rules is not None else None
        return f"{BASE_CLAUSE}, (g)(3)" if lucky and lucky.lucky_probability(bet) else BASE_CLAUSE

    def decide(self, bet, dice, rules):
        t = total(dice)
        if bet in ("low", "high"):
            if rules.option("low_high") == "small-big":
                # (e)(1),(2): the small/big bet of § 625a.3(6),(7): 4–10 / 11–17, losing on any triple.
                low, high = (4, 10) if bet == "low" else (11, 17)
                won = low <= t <= high and not is_triple(dice)
                return (self.base_paytable[bet], BASE_CLAUSE) if won else (None, WAGER_CLAUSES[bet])
            # (f)'s labels "Low (3—9)", "High (12—18)", read literally: every roll of those totals.
            low, high = (3, 9) if bet == "low" else (12, 18)
            return (self.base_paytable[bet], BASE_CLAUSE) if low <= t <= high else (None, BASE_CLAUSE)
        if bet == "any-double":
            group = largest_group(dice)
            won = group == 2 or (group == 3 and rules.option("any_double_on_triple") == "wins")
            return (self.base_paytable[bet], BASE_CLAUSE) if won else (None, WAGER_CLAUSES[bet])
        if bet == "any-triple":
            return (self.base_paytable[bet], BASE_CLAUSE) if is_triple(dice) else (None, WAGER_CLAUSES[bet])
        won = t == int(bet.partition(":")[2])
        return (self.base_paytable[bet], BASE_CLAUSE) if won else (None, WAGER_CLAUSES["total"])

    # -- Lucky Numbers ------------------------------------------------------
    def lucky_positions(self, options: Mapping[str, str]) -> tuple[str, ...]:
        """Every betting position of (g)(3) the game offers under these options."""
        return _LUCKY_POSITIONS["3-18" if options.get("totals", "3-18") == "3-18" else "4-17"]

    def check_lucky_pays(self, bet: str, pays: int) -> None:
        low, high = self.enhanced_ranges[bet]
        if not low <= pays <= high:
            raise RulesError(f"enhanced odds for {bet} must lie in {low}—{high} to 1, got {pays} to 1",
                             field="pays", clause=ENHANCED_CLAUSE)

    def check_lucky(self, lucky: Sequence[Lucky], rules) -> None:
        check_round_lucky(lucky, self, rules.options if rules is not None else {})

    def draw_lucky(self, rules, rng) -> tuple[Lucky, ...]:
        """This round's Lucky Numbers from the submission's distribution (rng: a seeded random.Random)."""
        return require_distribution(rules, self).draw(rng)

    def is_no_roll(self, flat: Sequence[bool], rules) -> bool:
        """(d)(5) "In the event that all three dice fail to land flat": ``flat`` says
        which dice landed flat. Default "any-die": a no roll when any die is not
        flat (a cocked die shows no outcome); "all-dice": only when none is flat."""
        if len(flat) != 3:
            raise RulesError(f"expected three flat/cocked flags, got {len(flat)}", field="flat",
                             clause=NO_ROLL_CLAUSE)
        if rules.option("no_roll") == "any-die":
            return not all(flat)
        return not any(flat)

    # -- settlement and RTP -------------------------------------------------
    def settle(self, round_: Round, wagers: Iterable[Wager], rules) -> list[Settlement]:
        wagers, dice = self._checked(round_, wagers, rules)
        self.check_lucky(round_.lucky, rules)
        if round_.no_roll:
            return [paid(w, 0, NO_ROLL_CLAUSE) for w in wagers]   # "0 to 1": the stake back
        enhanced = {item.bet: item.pays for item in round_.lucky}
        settlements = []
        for wager in wagers:
            odds, clause = self.decide(wager.bet, dice, rules)
            if odds is not None and wager.bet in enhanced:
                odds, clause = enhanced[wager.bet], ENHANCED_CLAUSE
            settlements.append(paid(wager, odds, clause))
        return settlements

    def expected_odds(self, bet: str, base_odds: int, rules) -> Fraction:
        """E[odds | win]: the Lucky draw is independent of the dice ((g)(1): it is
        made after "no more bets", before the outcome)."""
        if rules.lucky is None:
            return Fraction(base_odds)
        q = rules.lucky.lucky_probability(bet)
        if q == 0:
            return Fraction(base_odds)
        return (1 - q) * base_odds + q * rules.lucky.expected_pays(bet)


# Checked every round by the oracle and the controller: made once.
_LUCKY_POSITIONS = {totals: ("low", "high", "any-double", "any-triple") + tuple(f"total:{t}" for t in range(low, high + 1))
                    for totals, (low, high) in (("3-18", (3, 18)), ("4-17", (4, 17)))}

# What the bench needs besides settlement: bench.rules.descriptor.
LightningDice.descriptor = GameDescriptor(
    name="lightning-dice", kind=DICE3, command="RELEASE", plant="tower", lightning=True, title="Lightning Dice",
    amount_clauses=("625b.2(f)", "625b.2(g)(3)"),
    no_roll=NO_ROLL_VOIDS,                      # 625b.2(d)(5): every wager returned
    lucky_win_clause=ENHANCED_CLAUSE,
    phase_clauses=clauses(
        betting="625b.2(d)(1)",      # wagers "prior to the time allotted ... having expired"
        lucky="625b.2(g)(1)",        # after "no more bets", before the winning wager is established
        lucky_count="625b.2(d)(2)",  # the RNG "shall be activated to reveal between two and four"
        trigger="625b.2(d)(3)",      # "The dealer shall trigger the release of the dice"
        result="625b.2(d)(4)",       # the dice at rest reveal the outcome
        no_roll=NO_ROLL_CLAUSE,      # dice not flat: "no roll", every wager returned
        settlement="625b.2(d)(6)",   # settled before the dice are removed from the tray
    ),
    late_bet="total:10", quiet_outcome=frozen({"dice": [1, 2, 4]}),
    players=(("total:10", 3), ("total:11", 3), ("total:4", 1), ("total:17", 1), ("low", 2),
             ("high", 2), ("any-double", 1), ("any-triple", 1), ("total:3", 1), ("total:18", 1)),
    # Every outcome on which a payout of (e)-(g) turns: each triple (low and high
    # lose, any double and any triple win, totals 3 and 18), the totals of 4 and 17,
    # each double, a no roll and a second in a row (d)(5), a Lucky win at each
    # listed position (g)(2),(3), and a Lucky win right after a no roll or a Lucky
    # win (a paytable kept from the round before shows there). The triples, totals
    # and doubles test (f)'s odds, which (g)(2) pays only where no multiplier
    # applies: each names the bets it pays, and a round in which one of them is
    # Lucky and wins shows a Lucky win, not the class (bench.rules.outcome_classes).
    outcome_classes=(
        triples("625b.2(e)(1)-(4), (f), (g)(2)", bets=("low", "high", "any-double", "any-triple"))
        + totals((3, 4, 17, 18), "625b.2(e)(5), (f), (g)(2)", bets=("total:{}",))
        + doubles("625b.2(e)(3), (f), (g)(2)", bets=("any-double",))
        + no_rolls(NO_ROLL_CLAUSE)
        + lucky_wins(4, "625b.2(g)(2),(3)")
        + (OutcomeClass(LUCKY_WIN_AFTER, NO_ROLL, "625b.2(g)(2),(3)"),
           OutcomeClass(LUCKY_WIN_AFTER, LUCKY_WIN, "625b.2(g)(2),(3)"))
    ),
    lucky_draw_clauses=lucky_draw_clauses(
        count="625b.2(d)(2)",        # "between two and four Lucky Numbers", as the submission weights them
        positions="625b.2(g)(1)",    # "a randomly generated multiplier may be applied between two and
                                     # four of the betting positions"
        odds="625b.2(g)(1)",         # the multiplier is randomly generated, within (g)(3)'s ranges
        repeat="625b.2(d)(2)",       # "The random number generator shall be activated" each round
    ),
    cover="every-bet",
    not_offered="total:19",          # three dice make 3 to 18; 625b.2(e)(5)
)

GAME = register(LightningDice())
