"""Breaches on outcomes a session sees only if it stages them
(bench.play.coverage): a high triple, totals 3 and 18, a second no roll,
Lucky Numbers beyond the third or on zero."""

from __future__ import annotations

from bench.rules import describe
from bench.rules.coverage import ClassCoverage
from bench.rules.submission import default_rules
from bench.rules.lightning_roulette import STRAIGHT_ODDS
from bench.emulator.misbehaviours.core import (LIGHTNING, LIGHTNING_DICE, LIGHTNING_ROULETTE, LUCKY_WIN, SIC_BO,
                                               base_odds, is_lawful, lucky_winners, misbehaviour, Policy)


def _class_rounds(game: str, class_id: str) -> int | None:
    """The rounds a session needs to see a class of the controller's draw with 99% chance."""
    judge = ClassCoverage(game, default_rules(game, describe(game).default_paytable))
    found = [c for c in judge.classes if c.id == class_id]
    return judge.rounds_needed(found[0]) if found else None


@misbehaviour
class HighWinsOnHighTriple(Policy):
    name = "high-wins-on-high-triple"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(e)(2)"
    rare = True
    summary = "pays a high bet 1 to 1 on 4-4-4 and 5-5-5, which lose (the big bet of 625a.3(7) loses on any triple)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if not round_.no_roll and len(set(dice)) == 1 and dice[0] in (4, 5):
            for w in wagers:
                if w.bet == "high" and is_lawful(ctrl, w):
                    returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class TotalThreeEighteenAtTripleOdds(Policy):
    name = "total-3-18-at-triple-odds"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(f)"
    clauses = {LIGHTNING_DICE: ("625b.2(f)", "625b.2(g)(3)")}
    rare = True
    summary = "settles totals 3 and 18 (1-1-1, 6-6-6) as the any-triple bet, 24 to 1 instead of 149 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if not round_.no_roll and len(set(dice)) == 1 and dice[0] in (1, 6):
            for w in wagers:
                if w.bet == f"total:{sum(dice)}" and returned[w.id] > 0:
                    returned[w.id] = w.stake * 25
        return returned


@misbehaviour
class SecondNoRollSettles(Policy):
    name = "second-no-roll-settles"
    games = frozenset({LIGHTNING_DICE, SIC_BO})
    clause = "625b.2(d)(5)"
    clauses = {LIGHTNING_DICE: ("625b.2(d)(5)",), SIC_BO: ("625a.5",)}
    rare = True
    summary = ("takes the dice as they lie on a second no roll right after one (a limit of one re-drop or "
               "re-shake), settling on a cocked die")

    last_was_no_roll = False

    def no_roll(self, ctrl, flat, lawful):
        called = lawful and not self.last_was_no_roll
        self.last_was_no_roll = lawful
        return called


@misbehaviour
class LuckyBeyondThirdAtBase(Policy):
    name = "lucky-beyond-third-at-base"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a win on the fourth or fifth Lucky Number listed at base odds (a display of three enhanced slots)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        late = {x.bet for x in round_.lucky[3:]}
        for w, _ in lucky_winners(round_, wagers, returned):
            if w.bet in late:
                returned[w.id] = w.stake * (base_odds(ctrl, round_, w) + 1)
        return returned


@misbehaviour
class LuckyZeroAtBase(Policy):
    name = "lucky-zero-at-29-to-1"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(e)"
    rare = True
    statistical = True
    summary = "pays a straight up on 0 at 29 to 1 even when 0 is a Lucky Number (zero treated as never Lucky)"

    @classmethod
    def rounds_needed(cls, game):
        return _class_rounds(game, "lucky-pocket:0")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        if round_.pocket == 0:
            for w in wagers:
                if w.bet == "straight:0" and returned[w.id] > 0:
                    returned[w.id] = w.stake * (STRAIGHT_ODDS + 1)
        return returned

