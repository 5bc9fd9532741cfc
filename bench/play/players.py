"""Simulated players: who bets what in each round, from a configurable mix.

A mix is a list of bets with weights; each round the players place
``wagers_per_round`` wagers drawn from it, with stakes drawn from ``stakes``
(minor units). The draw for round r comes from its own seeded RNG, so a
round's wagers do not depend on earlier rounds.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from bench.rules import Wager, describe

DEFAULT_STAKES = (100, 200, 500, 1000)


@dataclass(frozen=True)
class PlayerMix:
    bets: tuple[tuple[str, int], ...]
    wagers_per_round: int = 10
    stakes: tuple[int, ...] = DEFAULT_STAKES
    covers_layout = False    # a random mix: a probe round places the probe's own bets instead

    @classmethod
    def default(cls, game: str, wagers_per_round: int = 10) -> "PlayerMix":
        """The game's default mix (its descriptor's ``players``)."""
        return cls(describe(game).players, wagers_per_round)

    def wagers(self, session_seed: int, round_no: int) -> list[Wager]:
        digest = hashlib.sha256(f"{session_seed}:players:{round_no}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        names = [bet for bet, _ in self.bets]
        weights = [weight for _, weight in self.bets]
        return [Wager(f"r{round_no}w{i + 1}", rng.choices(names, weights)[0], rng.choice(self.stakes))
                for i in range(self.wagers_per_round)]


@dataclass(frozen=True)
class CoveringPlayers:
    """Players who cover the layout every round (``bench.rules.cover``), with
    stakes that turn through small, large and odd amounts: every winning
    position is paid in every round it wins."""
    game: str
    rules: object
    covers_layout = True     # every round: the cycle places no probe's own bets instead

    def wagers(self, session_seed: int, round_no: int) -> list[Wager]:
        from bench.rules.cover import cover
        return [Wager(f"r{round_no}c{i + 1}", bet, stake)
                for i, (bet, stake) in enumerate(cover(self.game, self.rules, round_no))]

    @property
    def bets(self) -> tuple[tuple[str, int], ...]:
        from bench.rules.cover import cover
        return tuple((bet, 1) for bet, _ in cover(self.game, self.rules, 0))

    @property
    def stakes(self) -> tuple[int, ...]:
        from bench.rules.cover import STAKE_LADDER, stake_limits
        low, high = stake_limits(self.rules)
        return tuple(s for s in STAKE_LADDER if low <= s <= (high or s)) or (low,)
