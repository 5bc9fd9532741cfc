"""A game settled on one roll of three dice (Sic Bo, Lightning Dice): the shared
settlement loop and the exact probabilities by enumerating all 216 rolls.

A subclass names its bets (``bet_names``), validates one (``check_bet``) and
decides one roll (``decide``: the "N to 1" odds of a win, or None, and the
clause that decided it).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

from bench.rules.errors import RulesError
from bench.rules.base import Round, Settlement, Wager
from bench.rules.dice_bets import ALL_ROLLS, check_dice
from bench.rules.wagers import check_wagers, paid

if TYPE_CHECKING:
    from bench.rules.descriptor import GameDescriptor


class DiceGame:
    name: str
    descriptor: GameDescriptor      # set by each game's module once the class is made (bench.rules.descriptor)
    regulation: str
    dice_clause: str
    paytables: tuple[str, ...] = ()
    paytable_clause: str = ""
    option_choices: dict[str, tuple[str, ...]] = {}
    option_clauses: dict[str, str] = {}
    has_no_roll = False      # Lightning Dice: a "no roll" returns every wager, 625b.2(d)(5)
    lucky_count_range: tuple[int, int] | None = None   # a lightning game: how many Lucky Numbers

    def is_no_roll(self, flat, rules) -> bool:
        """A die not flat shows no outcome: the dice are thrown again."""
        return not all(flat)

    # -- to implement -------------------------------------------------------
    def bet_names(self, rules=None) -> list[str]:
        raise NotImplementedError

    def check_bet(self, bet: str, rules=None) -> None:
        raise NotImplementedError

    def decide(self, bet: str, dice: tuple[int, ...], rules) -> tuple[int | None, str]:
        raise NotImplementedError

    # -- shared -------------------------------------------------------------
    def _checked(self, round_: Round, wagers: Iterable[Wager], rules) -> tuple[list[Wager], tuple[int, ...] | None]:
        wagers = check_wagers(wagers, lambda bet: self.check_bet(bet, rules))
        if self.paytables and rules.paytable not in self.paytables:
            raise RulesError(f"{self.name} needs a paytable: one of {', '.join(self.paytables)}",
                             field="paytable", clause=self.paytable_clause)
        if round_.no_roll and not self.has_no_roll:
            raise RulesError(f"{self.name} has no 'no roll'", field="no_roll", clause=self.dice_clause)
        dice = None if round_.no_roll and round_.dice is None else check_dice(round_.dice, clause=self.dice_clause)
        return wagers, dice

    def settle(self, round_: Round, wagers: Iterable[Wager], rules) -> list[Settlement]:
        wagers, dice = self._checked(round_, wagers, rules)
        if dice is None:    # a no roll: only a game that has one (its own ``settle`` returns the stakes) gets here
            raise RulesError(f"{self.name} settles no 'no roll'", field="no_roll", clause=self.dice_clause)
        return [paid(w, *self.decide(w.bet, dice, rules)) for w in wagers]

    def win_probability(self, bet: str, rules) -> Fraction:
        self.check_bet(bet, rules)
        wins = sum(1 for roll in ALL_ROLLS if self.decide(bet, roll, rules)[0] is not None)
        return Fraction(wins, len(ALL_ROLLS))

    def expected_odds(self, bet: str, base_odds: int, rules) -> Fraction:
        """E[odds paid] on a win whose paytable odds are ``base_odds`` (Lucky games override)."""
        return Fraction(base_odds)

    def rtp(self, bet: str, rules) -> Fraction:
        """Expected amount returned per unit staked, over all 216 equally likely rolls."""
        self.check_bet(bet, rules)
        returned = Fraction(0)
        for roll in ALL_ROLLS:
            odds, _ = self.decide(bet, roll, rules)
            if odds is not None:
                returned += 1 + self.expected_odds(bet, odds, rules)
        return returned / len(ALL_ROLLS)
