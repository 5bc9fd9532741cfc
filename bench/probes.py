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
from bench.rules.cover import EVERY_NUMBER_THEN_SEVEN, lucky_win


@dataclass(frozen=True)
class Stage:
    faces: tuple[int, ...] | None = None   # the dice at rest (any order)
    cocked: bool = False                    # a die not flat
    pockets: tuple[int, ...] = ()           # the first of these that is not a Lucky Number
    lucky: bool = False                     # the round's first Lucky Number wins (bench.rules.cover.lucky_win)
    rolls: tuple[tuple[int, int], ...] = ()  # Dice-Ology: the rolls of the sequence, in order


@dataclass(frozen=True)
class Probe:
    name: str
    exercises: str                          # the clauses the outcome puts to the test
    bets: tuple[str, ...]
    stage: Stage

    def wagers(self, round_no: int, stake: int = 100) -> list[Wager]:
        """The probe's own wagers (none: the players' cover of the layout is what it needs)."""
        return [Wager(f"r{round_no}p{i + 1}", bet, stake) for i, bet in enumerate(self.bets)]


LUCKY_DICE_BETS = tuple(f"total:{t}" for t in range(3, 19)) + ("low", "high", "any-double", "any-triple")
LUCKY_WHEEL_BETS = tuple(f"straight:{n}" for n in range(37)) + ("split:0-1", "street:1", "corner:0-1-2-3",
                                                                "six-line:1", "dozen:1", "column:1", "red", "black")

PROBES: dict[str, tuple[Probe, ...]] = {
    "lightning-dice": (
        Probe("a die comes to rest cocked", "625b.2(d)(5)",
              ("total:10", "low", "high", "any-double", "any-triple"), Stage(cocked=True)),
        # After the cocked die, so that a paytable kept from the no-roll round shows.
        Probe("a Lucky Number wins", "625b.2(g)(2),(3)", LUCKY_DICE_BETS, Stage(lucky=True)),
        Probe("a triple", "625b.2(e)(1)-(4)",
              ("any-triple", "any-double", "low", "high", "total:6"), Stage(faces=(2, 2, 2))),
    ),
    "sic-bo": (
        Probe("a triple", "625a.3(6),(7); 625a.6(b)(3)",
              ("small", "big", "single:2", "double:2", "triple:2", "any-triple", "total:6"), Stage(faces=(2, 2, 2))),
        Probe("a pair", "625a.3(2); 625a.6(b)(2)",
              ("small", "single:3", "single:5", "double:3", "combo:3-5", "total:11"), Stage(faces=(3, 3, 5))),
    ),
    "lightning-roulette": (
        Probe("a winning straight up that is not a Lucky Number", "617c.3(f)",
              ("straight:17", "straight:5", "straight:32", "straight:26"), Stage(pockets=(17, 5, 32, 26))),
        # Twice in a row: a paytable kept from one round to the next shows in the second.
        Probe("a Lucky Number wins", "617c.3(e); 617a.4", LUCKY_WHEEL_BETS, Stage(lucky=True)),
        Probe("a Lucky Number wins again", "617c.3(e); 617a.4", LUCKY_WHEEL_BETS, Stage(lucky=True)),
        Probe("zero", "617a.4", ("straight:0", "split:0-1", "corner:0-1-2-3", "red", "black", "odd", "even",
                                 "1-18", "19-36", "dozen:1", "column:1"), Stage(pockets=(0,))),
    ),
    # Every sequence ends at a seven, which settles every side bet; a win is
    # rare (1 in 36 for Little Ones), so one sequence wins all three.
    "dice-ology": (
        Probe("every number before a seven", "20:18:33:14(1)(c),(2)(d),(3)(c)",
              ("little-ones", "big-ones", "boom-or-bust"), Stage(rolls=EVERY_NUMBER_THEN_SEVEN)),
    ),
}


def probe_schedule(game: str, rounds: int) -> dict[int, Probe]:
    """Probes by session round (1-based), from round 2 on: at most half of
    the rounds after the first, so most of a session stays ordinary play."""
    probes = PROBES.get(game, ())
    room = min(len(probes), max(0, (rounds - 1) // 2))
    return {2 + i: probe for i, probe in enumerate(probes[:room])}


def resolve_stage(game: str, stage: Stage | None, lucky: tuple[tuple[str, int], ...],
                  previous: tuple[tuple[str, int], ...] = ()) -> Stage | None:
    """The stage as faces or pockets, once the round's Lucky Numbers (bet,
    odds) are known. A Lucky win is staged on the first of them that the
    round before (``previous``) did not have at the same odds, so that a
    paytable kept from that round shows."""
    if stage is None or not stage.lucky:
        return stage
    fresh = [bet for bet, pays in lucky if (bet, pays) not in previous]
    outcome = lucky_win(game, tuple(fresh + [bet for bet, _ in lucky if bet not in fresh]))
    if not outcome:
        return None          # no Lucky Numbers revealed: nothing to stage, an ordinary round
    if "pocket" in outcome:
        return Stage(pockets=(outcome["pocket"],))
    return Stage(faces=tuple(outcome["dice"]))
