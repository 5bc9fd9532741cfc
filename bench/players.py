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
