"""Probe rounds: the edge cases every session exercises on purpose.

A compliant-looking controller can hide a breach that only shows on a rare
outcome: a cocked die (about one drop in a hundred or fewer), a triple (1 in
36), a winning straight up that is not a Lucky Number. Fifty random rounds
would often miss them, so the bench, which plays the plant, stages these
outcomes in early rounds with wagers that the outcome decides. A staged
outcome is still physics: a seed search in the twin (``twin.tower.staging``,
``twin.wheel.staging``), recorded in the journal and replayable.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.rules import Wager


@dataclass(frozen=True)
class Stage:
    faces: tuple[int, ...] | None = None   # the dice at rest (any order)
    cocked: bool = False                    # a die not flat
    pockets: tuple[int, ...] = ()           # the first of these that is not a Lucky Number


@dataclass(frozen=True)
class Probe:
    name: str
    exercises: str                          # the clauses the outcome puts to the test
    bets: tuple[str, ...]
    stage: Stage

    def wagers(self, round_no: int, stake: int = 100) -> list[Wager]:
        return [Wager(f"r{round_no}p{i + 1}", bet, stake) for i, bet in enumerate(self.bets)]


PROBES: dict[str, tuple[Probe, ...]] = {
    "lightning-dice": (
        Probe("a die comes to rest cocked", "625b.2(d)(5)",
              ("total:10", "low", "high", "any-double", "any-triple"), Stage(cocked=True)),
        Probe("a triple", "625b.2(e)(1)-(4)",
              ("any-triple", "any-double", "low", "high", "total:6"), Stage(faces=(2, 2, 2))),
    ),
    "sic-bo": (
        Probe("a triple", "625a.3(6),(7); 625a.6(b)(3)",
              ("small", "big", "single:2", "double:2", "triple:2", "any-triple", "total:6"), Stage(faces=(2, 2, 2))),
    ),
    "lightning-roulette": (
        Probe("a winning straight up that is not a Lucky Number", "617c.3(f)",
              ("straight:17", "straight:5", "straight:32", "straight:26"), Stage(pockets=(17, 5, 32, 26))),
    ),
    # Dice-Ology needs none: every sequence ends at a seven, which settles every side bet.
    "dice-ology": (),
}


def probe_schedule(game: str, rounds: int) -> dict[int, Probe]:
    """Probes by session round (1-based), from round 2 on: at most half of
    the rounds after the first, so most of a session stays ordinary play."""
    probes = PROBES.get(game, ())
    room = min(len(probes), max(0, (rounds - 1) // 2))
    return {2 + i: probe for i, probe in enumerate(probes[:room])}
