"""The round's messages: a Lucky draw after the result, and SETTLE frames
sent twice or for a wager never made."""

from __future__ import annotations

from bench.emulator.misbehaviours.core import (ALL_GAMES, LIGHTNING, LIGHTNING_DICE, LIGHTNING_ROULETTE,
                                               SETTLEMENT_ORDER, misbehaviour, Policy)


@misbehaviour
class LuckyAfterResult(Policy):
    name = "lucky-after-result"
    games = LIGHTNING
    clause = "625b.2(d)(2)"
    clauses = {LIGHTNING_DICE: ("625b.2(d)(2)", "625b.2(g)(1)"), LIGHTNING_ROULETTE: ("617c.3(d)",)}
    summary = "holds the Lucky Numbers back until the outcome is known, then reveals and pays them"

    def lucky_after_result(self):
        return True


# -- settlement frames --------------------------------------------------------

@misbehaviour
class SettleTwice(Policy):
    name = "settle-twice"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "sends the SETTLE of the round's first settled wager twice"

    def settle_frames(self, ctrl, wagers, returned):
        frames = super().settle_frames(ctrl, wagers, returned)
        return frames + frames[:1]


@misbehaviour
class SettlePhantomWager(Policy):
    name = "settle-phantom-wager"
    games = ALL_GAMES
    clause = "625b.2(d)(6)"
    clauses = SETTLEMENT_ORDER
    summary = "settles a wager nobody placed (a refused wager's id, paid its stake back)"

    def settle_frames(self, ctrl, wagers, returned):
        frames = super().settle_frames(ctrl, wagers, returned)
        return frames + [(f"ghost{ctrl.round}", 100)] if frames else frames

