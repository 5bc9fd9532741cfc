"""What each wager should return, recomputed with ``bench.rules`` from what
the plant showed (never from the controller's own numbers).

A round whose Lucky Numbers were unlawful (already reported under their
clause) cannot be settled by ``game.settle`` as it stands, since the rules
refuse such a round. The oracle then judges each wager on its own: a wager
whose bet was not announced as Lucky is settled with a lawful stand-in draw
that leaves its bet alone (the Lucky Numbers do not change a wager on
another position); a winning wager on an announced Lucky Number is owed the
announced odds when those odds, taken alone, are lawful; otherwise it
cannot be judged (None) and only the Lucky violation stands.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Iterable, Sequence, cast

from bench.errors import RulesError
from bench.rules import Lucky, Round, Settlement, Wager, get_game

STAND_IN_SEED = 625   # the stand-in Lucky draws are seeded: the same stream gives the same verdicts
STAND_IN_TRIES = 200


class Recompute:
    def __init__(self, game: str, rules):
        self.game_name = game
        self.game = get_game(game)
        self.rules = rules
        self.lightning = self.game.descriptor.lightning
        self._stand_ins: dict[str, tuple[Lucky, ...] | None] = {}
        self._bet_problems: dict[str, RulesError | None] = {}

    # -- checks a controller's announcement --------------------------------
    def lucky_problem(self, lucky: Sequence[Lucky]) -> RulesError | None:
        try:
            self.game.check_lucky(tuple(lucky), self.rules)
        except RulesError as err:
            return err
        return None

    def bet_problem(self, bet: object) -> RulesError | None:
        # The rules do not change within a session and players repeat their
        # bets: each bet name is checked once.
        key = bet if isinstance(bet, str) else None     # only a name is cached
        if key is not None and key in self._bet_problems:
            return self._bet_problems[key]
        try:
            self.game.check_bet(bet, self.rules)
            problem = None
        except RulesError as err:
            problem = err
        if key is not None:
            self._bet_problems[key] = problem
        return problem

    def is_no_roll(self, flat: Sequence[bool]) -> bool:
        """Lightning Dice reads 625b.2(d)(5) as the submission chooses; Sic Bo and
        Dice-Ology (craps) need every die flat for an outcome."""
        return bool(self.game.is_no_roll(tuple(flat), self.rules))

    # -- one throw: Lightning Dice, Sic Bo, Lightning Roulette -------------
    def one_throw(self, wagers: Iterable[Wager], *, dice=None, pocket=None, no_roll: bool = False,
                  lucky: Sequence[Lucky] = (), lucky_lawful: bool = True) -> dict[str, Settlement | None]:
        """Each wager's lawful settlement, or None where it cannot be judged."""
        wagers = list(wagers)
        paytable = None if self.rules.paytable is None else str(self.rules.paytable)
        round_ = Round(self.game_name, dice=None if dice is None else tuple(dice), pocket=pocket,
                       no_roll=no_roll, lucky=tuple(lucky) if self.lightning else (), paytable=paytable)
        if self.lightning and not lucky_lawful:
            return {w.id: self._despite_lucky(round_, w) for w in wagers}
        try:
            return {s.wager_id: s for s in self.game.settle(round_, wagers, self.rules)}
        except RulesError:
            # One bad wager (or a bad outcome) spoils the batch: judge them one by one.
            return {w.id: self._settle_one(round_, w) for w in wagers}

    def _settle_one(self, round_: Round, wager: Wager) -> Settlement | None:
        try:
            (settlement,) = self.game.settle(round_, [wager], self.rules)
        except RulesError:
            return None
        return settlement

    def _despite_lucky(self, round_: Round, wager: Wager) -> Settlement | None:
        stand_in = self._stand_in(wager.bet)
        if stand_in is None:
            return None
        base = self._settle_one(dataclasses.replace(round_, lucky=stand_in), wager)
        announced = {x.bet: x for x in round_.lucky}
        if base is None or round_.no_roll or wager.bet not in announced or base.returned == 0:
            return base
        entry = announced[wager.bet]
        if not self._entry_lawful(entry):
            return None
        return Settlement(wager.id, wager.stake * (entry.pays + 1), self.game.descriptor.lucky_win_clause)

    def _entry_lawful(self, entry: Lucky) -> bool:
        try:
            if entry.bet not in self.game.lucky_positions(self.rules.options):
                return False
            self.game.check_lucky_pays(entry.bet, entry.pays)
        except (RulesError, TypeError, KeyError):
            return False
        return True

    def _stand_in(self, bet: str) -> tuple[Lucky, ...] | None:
        """A lawful Lucky draw in which ``bet`` is not Lucky (None if the rules
        give no distribution to draw from)."""
        if bet not in self._stand_ins:
            found = None
            rng = random.Random(STAND_IN_SEED)
            try:
                for _ in range(STAND_IN_TRIES):
                    draw = tuple(self.game.draw_lucky(self.rules, rng))
                    if all(x.bet != bet for x in draw):
                        found = draw
                        break
            except RulesError:
                found = None
            self._stand_ins[bet] = found
        return self._stand_ins[bet]

    # -- Dice-Ology: the rolls since the wager was placed -----------------
    def over_rolls(self, wager: Wager, rolls: Sequence[tuple[int, int]]) -> Settlement | None:
        """The wager after ``rolls`` (``open`` set while it is unresolved), or None."""
        paytable = None if self.rules.paytable is None else str(self.rules.paytable)
        # cast: the rolls are the controller's, unchecked; Dice-Ology's settle (check_rolls) makes sure
        # that each is two dice before it reads one.
        round_ = Round(self.game_name, rolls=cast("tuple[tuple[int, int], ...]", tuple(tuple(r) for r in rolls)),
                       paytable=paytable)
        return self._settle_one(round_, wager)
