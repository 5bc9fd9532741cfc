"""The Lucky draw as a distribution (bench.oracle.lucky_draw): found only
over many rounds, by the draw's fit."""

from __future__ import annotations

from bench.rules.base import Lucky
from bench.rules import describe
from bench.rules.submission import default_rules
from bench.emulator.misbehaviours.core import (LIGHTNING_DICE, LIGHTNING_ROULETTE, SIC_BO, misbehaviour, Policy)


@misbehaviour
class LuckyOddsOnly49Or99(Policy):
    name = "lucky-odds-49-or-99"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(g)"
    statistical = True
    summary = "draws Lucky odds of 49 or 99 to 1 only, never the other seven payouts of 617c.3(g)"

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        return tuple(Lucky(x.bet, 49 if rng.random() < 0.425 / 0.7 else 99) for x in lawful)


@misbehaviour
class TotalEighteenNeverLucky(Policy):
    name = "total-18-never-lucky"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(1)"
    statistical = True
    summary = "never draws total 18 as a Lucky Number (drawn again whenever it comes up)"

    @classmethod
    def rounds_needed(cls, game):
        # What the bench's report says it needs: the oracle's own figure (asked by the mutation bench only).
        from bench.oracle.lucky_draw import judge
        rules = default_rules(game)
        return judge(rules.lucky, describe(game).lucky_draw_clauses, []).needs

    def draw_lucky(self, ctrl, rng):
        while True:
            drawn = super().draw_lucky(ctrl, rng)
            if all(x.bet != "total:18" for x in drawn):
                return drawn


@misbehaviour
class AlwaysTwoLuckyNumbers(Policy):
    name = "always-two-lucky-numbers"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    statistical = True
    summary = "reveals two Lucky Numbers every round (lawful each time; the submission draws three or four in 60%)"

    def draw_lucky(self, ctrl, rng):
        return super().draw_lucky(ctrl, rng)[:2]


@misbehaviour
class LuckyOddsNotInSubmission(Policy):
    name = "lucky-odds-not-in-submission"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(1)"
    summary = ("gives the first Lucky Number odds within 625b.2(g)(3)'s range that the submission never draws "
               "(one more than drawn), and pays them")

    def draw_lucky(self, ctrl, rng):
        lawful = super().draw_lucky(ctrl, rng)
        first = lawful[0]
        low, high = ctrl.game.enhanced_ranges[first.bet]
        support = {pays for pays, p in ctrl.rules.lucky.pays_distribution(first.bet) if p > 0}
        pays = next(v for v in list(range(first.pays + 1, high + 1)) + list(range(low, first.pays)) if v not in support)
        return (Lucky(first.bet, pays),) + lawful[1:]


@misbehaviour
class LuckyRepeatAfterNoRoll(Policy):
    name = "lucky-repeat-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    rare = True
    summary = "reveals the no-roll round's Lucky Numbers again in the round after it (the draw kept, not made afresh)"

    kept: tuple[Lucky, ...] | None = None

    def draw_lucky(self, ctrl, rng):
        drawn = super().draw_lucky(ctrl, rng)
        kept, self.kept = self.kept, None
        return kept or drawn

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.kept = round_.lucky
        return super().settle(ctrl, round_, wagers)


@misbehaviour
class LuckyPositionsRepeatAfterNoRoll(Policy):
    name = "lucky-positions-repeat-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    rare = True
    summary = ("reveals the no-roll round's Lucky positions again in the round after it, with odds drawn afresh "
               "(the positions kept, not drawn again)")

    kept: tuple[Lucky, ...] | None = None

    def draw_lucky(self, ctrl, rng):
        from bench.rules.lucky import draw
        drawn = super().draw_lucky(ctrl, rng)
        kept, self.kept = self.kept, None
        if not kept:
            return drawn
        distribution = ctrl.rules.lucky
        # New odds for at least one position (where its distribution has another value), each
        # lawful and drawn from the submission: only the positions repeat.
        for _ in range(100):
            fresh = tuple(Lucky(x.bet, draw(distribution.pays_distribution(x.bet), rng)) for x in kept)
            if fresh != kept:
                return fresh
        return kept

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.kept = round_.lucky
        return super().settle(ctrl, round_, wagers)


# -- outcomes a staged round must show as staged (issue 45, item 5) ------------------

@misbehaviour
class TotalThreeEighteenClamped(Policy):
    name = "ld-total-3-18-clamped"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(f)"
    rare = True
    summary = ("pays a win on total 3 or 18 that is not a Lucky Number at 99 to 1 (its base odds clamped to two "
               "digits; 625b.2(f): 149 to 1, by (g)(2)); a Lucky one is paid at its announced odds")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        lucky = {x.bet for x in round_.lucky}
        for w in wagers:
            if w.bet in ("total:3", "total:18") and w.bet not in lucky and returned[w.id] > 0 and not round_.no_roll:
                returned[w.id] = w.stake * (99 + 1)
        return returned


@misbehaviour
class SicBoReshakeOnNoRoll(Policy):
    name = "sicbo-reshake-on-noroll"
    games = frozenset({SIC_BO})
    clause = "625a.5"
    rare = True
    summary = ("shakes the dice again when one is not flat without calling the no roll (no NOROLL, "
               "straight to the next RELEASE): a round with a die not flat never ends for the bench")

    def announce_no_roll(self, ctrl):
        return False
