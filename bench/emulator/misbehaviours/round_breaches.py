"""One breach at each point of a round: the Lucky Numbers' count and odds, a
no roll paid, the table cleared before settling, Lucky Numbers before no
more bets, a wager taken late, and the first payouts mispaid."""

from __future__ import annotations

import dataclasses

from bench.emulator.misbehaviours.core import (ALL_GAMES, DICE_OLOGY, LIGHTNING, LIGHTNING_DICE,
                                               LIGHTNING_ROULETTE, SETTLEMENT_ORDER, SIC_BO, misbehaviour,
                                               more_lucky, per_game, Policy, TrustsItsLucky, unlawful_odds)


@misbehaviour
class FiveLuckyNumbers(TrustsItsLucky):
    name = "five-lucky-numbers"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(2)"
    summary = "reveals five Lucky Numbers (the regulation allows two to four)"

    def unlawful(self, ctrl, lawful, rng):
        return more_lucky(ctrl, lawful, rng, 5)


@misbehaviour
class LuckyOddsOutOfRange(TrustsItsLucky):
    name = "lucky-odds-out-of-range"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(g)(3)"
    summary = "gives the first Lucky Number enhanced odds just above its range, and pays them"

    def unlawful(self, ctrl, lawful, rng):
        return unlawful_odds(ctrl, lawful)


@misbehaviour
class PayOnNoRoll(Policy):
    name = "pay-on-no-roll"
    games = frozenset({LIGHTNING_DICE})
    clause = "625b.2(d)(5)"
    summary = "on a no roll, settles on the faces showing instead of returning every wager"

    def settle(self, ctrl, round_, wagers):
        return super().settle(ctrl, dataclasses.replace(round_, no_roll=False), wagers)


@misbehaviour
class ClearBeforeSettle(Policy):
    name = "clear-before-settle"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "clears the dice (CLEARED) before settling the wagers"

    def clear_before_settle(self):
        return True


@misbehaviour
class LuckyBeforeNoMoreBets(Policy):
    name = "lucky-before-no-more-bets"
    games = LIGHTNING
    clause = "625b.2(g)(1)"
    clauses = per_game(LIGHTNING, lambda d: d.phase_clause("lucky"))
    summary = "reveals the Lucky Numbers as betting opens, before no more bets"

    def lucky_before_close(self):
        return True


@misbehaviour
class StraightUpThirtyFiveToOne(Policy):
    name = "straight-up-35-to-1"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(f)"
    summary = "pays a winning straight up that is not a Lucky Number 35 to 1 instead of 29 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        lucky = {x.bet for x in round_.lucky}
        for w in wagers:
            if w.bet == f"straight:{round_.pocket}" and w.bet not in lucky:
                returned[w.id] = w.stake * 36
        return returned


@misbehaviour
class SixLuckyNumbers(TrustsItsLucky):
    name = "six-lucky-numbers"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(d)"
    summary = "reveals six Lucky Numbers (the regulation allows one to five)"

    def unlawful(self, ctrl, lawful, rng):
        return more_lucky(ctrl, lawful, rng, 6)


@misbehaviour
class LuckyPayoutNotListed(TrustsItsLucky):
    name = "lucky-payout-not-listed"
    games = frozenset({LIGHTNING_ROULETTE})
    clause = "617c.3(g)"
    summary = "gives the first Lucky Number a payout that 617c.3(g) does not list, and pays it"

    def unlawful(self, ctrl, lawful, rng):
        return unlawful_odds(ctrl, lawful)


@misbehaviour
class SmallWinsOnTriple(Policy):
    name = "small-wins-on-triple"
    games = frozenset({SIC_BO})
    clause = "625a.3(6)"
    summary = "pays a small bet 1 to 1 on a triple totalling 4 to 10 (2-2-2, 3-3-3), which loses"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if len(set(dice)) == 1 and 4 <= sum(dice) <= 10:
            for w in wagers:
                if w.bet == "small":
                    returned[w.id] = w.stake * 2
        return returned


@misbehaviour
class OneOfAKindTwelveToOne(Policy):
    name = "one-of-a-kind-12-to-1"
    games = frozenset({SIC_BO})
    clause = "625a.6(b)(3)(i)"      # paytable A's 3 to 1; (ii) is paytable B's 12 to 1
    paytable_needed, paytable_why = "A", "Sic Bo paytable A (B pays 12 to 1 lawfully)"
    summary = "with paytable A, pays a one of a kind 12 to 1 (paytable B's odds) on three matching dice instead of 3 to 1"

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        dice = round_.dice or ()
        if len(set(dice)) == 1:
            for w in wagers:
                if w.bet == f"single:{dice[0]}":
                    returned[w.id] = w.stake * 13
        return returned


@misbehaviour
class LittleOnesSurviveSeven(Policy):
    name = "little-ones-survive-seven"
    games = frozenset({DICE_OLOGY})
    clause = "20:18:33:14(1)(b)"
    summary = "keeps a Little Ones bet alive after the first seven instead of losing it"

    def craps_counting_from(self, ctrl, wager, start, rolls):
        if wager.bet == "little-ones" and start == 0:
            sevens = [i for i, roll in enumerate(rolls) if sum(roll) == 7]
            if sevens:
                return sevens[0] + 1   # forget everything up to and including the first seven
        return start


@misbehaviour
class AcceptLateWager(Policy):
    name = "accept-late-wager"
    games = ALL_GAMES
    clause = "625b.2(d)(1)"
    clauses = per_game(ALL_GAMES, lambda d: d.betting_clause)
    summary = ("accepts (and settles) a wager placed after no more bets: 625b.2(d)(1), 625a.5(c), "
               "617c.3(c), 20:18:33:14(1)(d)")

    def accept_late_wager(self):
        return True


