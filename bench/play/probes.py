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

from bench.rules import describe
from bench.rules.cover import lucky_win
from bench.rules.descriptor import Probe, Stage   # each game's probes are in its descriptor


def probe_schedule(game: str, rounds: int) -> dict[int, Probe]:
    """Probes by session round (1-based), from round 2 on: at most half of
    the rounds after the first, so most of a session stays ordinary play."""
    probes = describe(game).probes
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
