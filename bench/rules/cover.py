"""Covering play: the wagers that put every winning position of a game's
layout to the test in each round, and the wagers a game does not offer.

A breach that only shows when one particular bet wins (a Lucky total paid a
unit short, a Lucky Number's odds paid on a split) is found by chance with a
random mix of bets; with the layout covered it is found in the first round
whose outcome reaches it. Each game's cover is a function of the round, so a
round's wagers depend on nothing but its number and the rules:

- Lightning Dice, Sic Bo, Dice-Ology: every wager the game offers, every round;
- Lightning Roulette: every straight up, and of every other kind (split,
  street, corner, six line, dozen, column, the even-money bets) a set that
  holds every number, turning across rounds so that every split and corner is
  played in turn. Whichever pocket wins, every kind of bet wins with it; when
  the pocket is a Lucky Number, each kind is paid beside a Lucky straight up.
  The Lucky Numbers are revealed after no more bets (617c.3(d)), so the
  players cannot aim at them: covering every number is what holds them.

Stakes (minor units) turn along ``STAKE_LADDER`` from wager to wager and
round to round: small, large and odd amounts, so that rounding and
stake-dependent errors show; each is kept within the submission's limits.

Each game's descriptor (``bench.rules.descriptor``) says how its layout is
covered (``cover``: a key of ``COVERS``) and names a bet it does not offer
but that a lax controller might take for one (``not_offered``): the probe
wagers place it every round and it must be refused.
"""

from __future__ import annotations

from typing import Callable

from bench.rules.descriptor import DICE3, WHEEL
from bench.rules.lightning_roulette import COVERED, POCKETS
from bench.rules.registry import describe, get_game

# Small, large and odd stakes; 1 is the smallest amount there is.
STAKE_LADDER = (100, 1, 2_500, 37, 50_000, 999, 7, 10_000, 333)

def offered_cover(game: str, rules, round_no: int) -> list[str]:
    """Every wager the game offers under these rules."""
    return list(get_game(game).bet_names(rules))


def _turning_cover(kind: str, round_no: int) -> list[str]:
    """Bets of one kind that hold every number any of them holds; for each
    number the one chosen turns with the round, so every bet of the kind is
    played within a few rounds."""
    holders: dict[int, list[str]] = {}
    for bet, numbers in COVERED.items():
        if bet.partition(":")[0] == kind:
            for n in numbers:
                holders.setdefault(n, []).append(bet)
    chosen: list[str] = []
    for n in sorted(holders):
        options = holders[n]
        if any(n in COVERED[bet] for bet in chosen):
            continue
        chosen.append(options[(round_no + n) % len(options)])
    return chosen


ROULETTE_KINDS = ("split", "street", "corner", "six-line", "dozen", "column")
EVEN_MONEY = ("red", "black", "odd", "even", "1-18", "19-36")


def roulette_cover(game: str, rules, round_no: int) -> list[str]:
    bets = [f"straight:{n}" for n in POCKETS]
    for kind in ROULETTE_KINDS:
        bets += _turning_cover(kind, round_no)
    return bets + list(EVEN_MONEY)


# Ways to cover a layout, named by the descriptors' ``cover``.
COVERS: dict[str, Callable[[str, object, int], list[str]]] = {
    "every-bet": offered_cover,             # every wager the game offers, every round
    "every-number": roulette_cover,         # every straight up; of every other kind, every number
}


def not_offered(game: str) -> str:
    """A bet the game does not offer (its descriptor's ``not_offered``)."""
    return describe(game).not_offered


def stake_for(round_no: int, index: int, *, min_stake: int = 1, max_stake: int | None = None) -> int:
    """The stake of the ``index``-th wager of round ``round_no``, within the limits."""
    stake = STAKE_LADDER[(round_no * 4 + index) % len(STAKE_LADDER)]
    if max_stake is not None:
        stake = min(stake, max_stake)
    return max(stake, min_stake)


def cover(game: str, rules, round_no: int) -> list[tuple[str, int]]:
    """The round's covering wagers: (bet, stake) pairs."""
    low, high = stake_limits(rules)
    how = COVERS[describe(game).cover or "every-bet"]
    return [(bet, stake_for(round_no, i, min_stake=low, max_stake=high))
            for i, bet in enumerate(how(game, rules, round_no))]


def stake_limits(rules) -> tuple[int, int | None]:
    """(min, max) stake of the submission, minor units; no maximum: None."""
    return getattr(rules, "min_stake", 1), getattr(rules, "max_stake", None)


def _faces_for_total(target: int) -> tuple[int, int, int]:
    """Three faces making ``target``, all different where the total allows
    (so that the low/high and double bets are not decided by a pair)."""
    options = [(a, b, c) for a in range(1, 7) for b in range(a, 7) for c in range(b, 7) if a + b + c == target]
    return min(options, key=lambda faces: (len(faces) - len(set(faces)), faces))


def dice_for(bet: str) -> tuple[int, ...] | None:
    """Lightning Dice: three faces on which ``bet`` wins (None: not a dice bet)."""
    kind, _, arg = bet.partition(":")
    if kind == "total":
        return _faces_for_total(int(arg))
    return {"low": (1, 2, 4), "high": (3, 4, 6), "any-double": (2, 2, 5), "any-triple": (4, 4, 4)}.get(bet)


def pocket_for(bet: str) -> int | None:
    """Lightning Roulette: the pocket on which a Lucky straight up wins."""
    kind, _, arg = bet.partition(":")
    return int(arg) if kind == "straight" else None


# Where a Lucky Number wins, by the kind of outcome: ``{"dice": faces}`` or ``{"pocket": n}``.
LUCKY_WIN = {
    DICE3: lambda bet: {"dice": dice_for(bet)},
    WHEEL: lambda bet: {"pocket": pocket_for(bet)},
}


def lucky_win(game: str, lucky_bets) -> dict | None:
    """An outcome on which the first of ``lucky_bets`` that has one wins (None: none has)."""
    how = LUCKY_WIN.get(describe(game).kind)
    for bet in lucky_bets if how else ():
        outcome = how(bet)
        if None not in outcome.values():
            return outcome
    return None
