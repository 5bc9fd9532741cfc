"""Payouts on a Lucky Number: a Lucky win short, at base odds, on other
bets, or with a stale draw after a no roll or a Lucky win."""

from __future__ import annotations

import dataclasses

from bench.rules.base import Lucky
from bench.emulator.misbehaviours.core import (LIGHTNING, LIGHTNING_DICE, LIGHTNING_ROULETTE, LUCKY_WIN, base_odds,
                                               lucky_winners, misbehaviour, Policy)


# Under a random mix of bets these are rare: the round's Lucky Numbers must
# win, and a player must hold them (the bench's covering play holds every
# position; its staged plan makes a Lucky Number win at each listed position).

@misbehaviour
class LuckyWinOneUnitShort(Policy):
    name = "lucky-win-one-unit-short"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a winning wager on a Lucky Number one minor unit short"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        for w, _ in lucky_winners(round_, wagers, returned):
            returned[w.id] -= 1
        return returned


@misbehaviour
class LuckyWinAtBaseOdds(Policy):
    name = "lucky-win-at-base-odds"
    games = LIGHTNING
    clause = "625b.2(g)(3)"
    clauses = LUCKY_WIN
    rare = True
    summary = "pays a winning wager on a Lucky Number at the base paytable's odds"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        for w, _ in lucky_winners(round_, wagers, returned):
            returned[w.id] = w.stake * (base_odds(ctrl, round_, w) + 1)
        return returned


def _covers(game: str, bet: str, outcome) -> bool:
    """Does ``bet`` (another kind than the Lucky one) win with this outcome?"""
    from bench.rules.lightning_roulette import COVERED
    if bet in COVERED:      # a roulette bet: the pockets it holds (no dice bet shares a name with one)
        return not bet.startswith("straight:") and outcome in COVERED[bet]
    return bet in ("low", "high", "any-double")


@misbehaviour
class LuckyOddsOnOtherBets(Policy):
    name = "lucky-odds-on-other-bets"
    games = LIGHTNING
    clause = "625b.2(f)"
    clauses = {LIGHTNING_ROULETTE: ("617a.4",)}
    rare = True
    summary = ("pays the winning Lucky Number's enhanced odds on the other winning bets that hold it "
               "(low, high, any double; splits, streets, corners, six lines), which get base odds")

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        winners = lucky_winners(round_, wagers, returned)
        if not winners:
            return returned
        pays = winners[0][1]
        outcome = ctrl.outcome.of_round(round_)
        for w in wagers:
            if returned[w.id] > 0 and w.bet not in {x.bet for x in round_.lucky} and _covers(ctrl.game_name, w.bet, outcome):
                returned[w.id] = w.stake * (pays + 1)
        return returned


@misbehaviour
class StaleLuckyAfterNoRoll(Policy):
    name = "stale-lucky-after-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(3)"
    clauses = {LIGHTNING_DICE: ("625b.2(g)(3)", "625b.2(f)")}
    rare = True
    summary = "settles the round after a no roll with the Lucky Numbers of the no-roll round (a stale paytable, one round)"

    stale: tuple[Lucky, ...] | None = None

    def settle(self, ctrl, round_, wagers):
        if round_.no_roll:
            self.stale = round_.lucky
            return super().settle(ctrl, round_, wagers)
        stale, self.stale = self.stale, None
        return super().settle(ctrl, round_ if stale is None else dataclasses.replace(round_, lucky=stale), wagers)


@misbehaviour
class StaleLuckyAfterLuckyWin(Policy):
    name = "stale-lucky-after-lucky-win"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(e)"
    clauses = {LIGHTNING_ROULETTE: ("617c.3(e)", "617c.3(f)")}
    rare = True
    summary = "settles the round after a Lucky Number won with that round's Lucky Numbers (a stale paytable, one round)"

    stale: tuple[Lucky, ...] | None = None

    def settle(self, ctrl, round_, wagers):
        stale, self.stale = self.stale, None
        if any(x.bet == f"straight:{round_.pocket}" for x in round_.lucky):
            self.stale = round_.lucky
        return super().settle(ctrl, round_ if stale is None else dataclasses.replace(round_, lucky=stale), wagers)

