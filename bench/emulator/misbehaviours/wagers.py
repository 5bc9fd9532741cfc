"""Wagers: amounts rounded or capped by the stake, and wagers the rules
refuse (unknown bet, zero stake, over the limit, a duplicate id) accepted."""

from __future__ import annotations

from bench.rules.base import Wager

from bench.emulator.misbehaviours.core import (ALL_GAMES, DICE_OLOGY, LIGHTNING_DICE, LIGHTNING_ROULETTE, SIC_BO,
                                               WIN_AMOUNT, misbehaviour, Policy)


@misbehaviour
class OddStakeRounding(Policy):
    name = "odd-stake-rounding"
    games = ALL_GAMES
    clause = "625b.2(f)"
    clauses = WIN_AMOUNT
    rare = True
    summary = "works a win out on the stake rounded down to an even amount (odd stakes are paid short)"

    def _short(self, wager: Wager, amount: int) -> int:
        if amount > wager.stake and wager.stake % 2:
            return amount - amount // wager.stake     # the odds plus one, times one unit less of stake
        return amount

    def settle(self, ctrl, round_, wagers):
        returned = super().settle(ctrl, round_, wagers)
        return {w.id: self._short(w, returned[w.id]) for w in wagers}

    def settle_one_craps(self, ctrl, round_, wager):
        amount = super().settle_one_craps(ctrl, round_, wager)
        return amount if amount is None else self._short(wager, amount)


PAYOUT_CAP = 20_000   # minor units: random players at stakes of 1-10 units rarely win more on one wager


@misbehaviour
class PayoutCap(Policy):
    name = "payout-cap"
    games = frozenset({LIGHTNING_DICE, SIC_BO, LIGHTNING_ROULETTE})
    clause = "625b.2(f)"
    # A no roll returns every stake (625b.2(d)(5)): a large one is capped too.
    clauses = {**WIN_AMOUNT, LIGHTNING_DICE: WIN_AMOUNT[LIGHTNING_DICE] + ("625b.2(d)(5)",)}
    rare = True
    summary = f"never returns more than {PAYOUT_CAP} minor units on one wager (a cap the rules do not have)"

    def settle(self, ctrl, round_, wagers):
        return {k: min(v, PAYOUT_CAP) for k, v in super().settle(ctrl, round_, wagers).items()}


# -- wagers that must be refused ------------------------------------------------

class _AcceptsUnlawful(Policy):
    games = ALL_GAMES
    reason = ""

    def accept_unlawful_wager(self, reason):
        return reason == self.reason


@misbehaviour
class AcceptUnknownBet(_AcceptsUnlawful):
    name = "accept-unknown-bet"
    reason = "unknown-bet"
    clause = "625b.2(e)(5)"
    # The probe's bet is a total the dice cannot make; a scenario's may be of any shape ((e), 625a.3).
    clauses = {LIGHTNING_DICE: ("625b.2(e)(5)", "625b.2(e)"), SIC_BO: ("625a.3(4)", "625a.3"),
               LIGHTNING_ROULETTE: ("617c.3(a)",), DICE_OLOGY: ("20:18:33:14",)}
    summary = "accepts a bet the game does not offer (and lets it lose)"


@misbehaviour
class AcceptZeroStake(_AcceptsUnlawful):
    name = "accept-zero-stake"
    reason = "bad-stake"
    clause = "protocol"
    summary = "accepts a wager with a stake of zero"


@misbehaviour
class AcceptOverLimit(_AcceptsUnlawful):
    name = "accept-over-limit"
    reason = "over-limit"
    clause = "601a.2"
    summary = "accepts a stake over the maximum of the rules submission"


@misbehaviour
class AcceptDuplicateId(_AcceptsUnlawful):
    name = "accept-duplicate-id"
    reason = "duplicate-id"
    clause = "protocol"
    summary = "accepts a second wager under an id already used in the round"

