"""Paytables: another paytable's odds paid than the one declared."""

from __future__ import annotations

import dataclasses

from bench.emulator.misbehaviours.core import (DICE_OLOGY, LIGHTNING_ROULETTE, SIC_BO, WIN_AMOUNT, is_lawful,
                                               misbehaviour, Policy)


class _OtherPaytable(Policy):
    paytable = ""

    def _round(self, round_):
        return dataclasses.replace(round_, paytable=self.paytable)

    def _rules(self, ctrl):
        return dataclasses.replace(ctrl.rules, paytable=self.paytable)


@misbehaviour
class SicBoTotalsByPaytableB(_OtherPaytable):
    name = "sic-bo-totals-by-paytable-b"
    games = frozenset({SIC_BO})
    clause = "625a.6(a)"
    paytable = "B"
    summary = "with paytable A, pays the total bets by paytable B (a stale paytable for the totals)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        totals = [w for w in wagers if w.bet.startswith("total:")]
        if totals:
            returned.update({s.wager_id: s.returned for s in ctrl.game.settle(
                self._round(round_), totals, self._rules(ctrl))})
        return returned


@misbehaviour
class SinglePairPaysEven(Policy):
    name = "single-pair-pays-even"
    games = frozenset({SIC_BO})
    clause = "625a.6(b)(2)"
    summary = "pays a one of a kind showing on two dice 1 to 1 instead of 2 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        for w in wagers:
            if w.bet.startswith("single:") and dice.count(int(w.bet[7:])) == 2 and not round_.no_roll:
                returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class DiceOlogyPayTableTwo(_OtherPaytable):
    name = "dice-ology-pay-table-2"
    games = frozenset({DICE_OLOGY})
    clause = "20:18:33:14(1)(c)"
    clauses = {DICE_OLOGY: WIN_AMOUNT[DICE_OLOGY]}
    paytable = "2"
    rare = True
    summary = "with Pay Table 1, pays a winning side bet by Pay Table 2"

    def settle_one_craps(self, ctrl, round_, wager):
        if not is_lawful(ctrl, wager):
            return 0
        (settlement,) = ctrl.game.settle(self._round(round_), [wager], self._rules(ctrl))
        return None if settlement.open else settlement.returned


@misbehaviour
class BigOnesSurviveSeven(Policy):
    name = "big-ones-survive-seven"
    games = frozenset({DICE_OLOGY})
    clause = "20:18:33:14(2)(c)"
    summary = "keeps a Big Ones bet alive after the first seven instead of losing it"

    def craps_counting_from(self, ctrl, wager, start, rolls):
        if wager.bet == "big-ones" and start == 0:
            sevens = [i for i, roll in enumerate(rolls) if sum(roll) == 7]
            if sevens:
                return sevens[0] + 1
        return start


@misbehaviour
class EvenMoneyHalfBackOnZero(Policy):
    name = "even-money-half-back-on-zero"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617a.4"
    rare = True
    summary = "returns half the stake of an even-money bet when the ball lands on 0 (la partage, which 617a.4 does not give)"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        if round_.pocket == 0:
            for w in wagers:
                if w.bet in ("red", "black", "odd", "even", "1-18", "19-36"):
                    returned[w.id] = w.stake // 2
        return returned

