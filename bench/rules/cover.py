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
Every round two wagers stand on the limits themselves (``boundary_stakes``):
one at the table's minimum and one at its maximum exactly, which a controller
must take (601a.2); the probe wagers put one just outside each
(``bench.play.probe_wagers``). The maximum goes on a bet among those most
likely to win, turning with the round, so that one large stake does not
swamp the session's observed return.

Each game's descriptor (``bench.rules.descriptor``) says how its layout is
covered (``cover``: a key of ``COVERS``) and names a bet it does not offer
but that a lax controller might take for one (``not_offered``): the probe
wagers place it every round and it must be refused.
"""

from __future__ import annotations

from typing import Callable

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
    """The round's covering wagers: (bet, stake) pairs, two of them at the
    table's minimum and maximum stake (``boundary_stakes``)."""
    low, high = stake_limits(rules)
    how = COVERS[describe(game).cover or "every-bet"]
    wagers = [(bet, stake_for(round_no, i, min_stake=low, max_stake=high))
              for i, bet in enumerate(how(game, rules, round_no))]
    for index, stake in boundary_stakes(game, rules, round_no, [bet for bet, _ in wagers]).items():
        wagers[index] = (wagers[index][0], stake)
    return wagers


_LIKELIEST: dict[tuple[str, int, frozenset], tuple[object, tuple[str, ...]]] = {}


def _likeliest(game: str, rules, bets: list[str]) -> tuple[str, ...]:
    """The bets of ``bets`` with the highest chance to win (kept per rules object)."""
    key = (game, id(rules), frozenset(bets))
    kept = _LIKELIEST.get(key)
    if kept is None or kept[0] is not rules:
        spec = get_game(game)
        chance = {bet: spec.win_probability(bet, rules) for bet in sorted(set(bets))}
        best = max(chance.values())
        kept = _LIKELIEST[key] = (rules, tuple(bet for bet in sorted(chance) if chance[bet] == best))
    return kept[1]


def boundary_stakes(game: str, rules, round_no: int, bets: list[str]) -> dict[int, int]:
    """Which of the round's covering wagers (by index into ``bets``) stand at
    the limits: the maximum exactly on a bet among the likeliest to win, the
    minimum on another, each turning with the round."""
    low, high = stake_limits(rules)
    if not bets:
        return {}
    stakes: dict[int, int] = {}
    if high is not None:
        likeliest = [i for i, bet in enumerate(bets) if bet in _likeliest(game, rules, bets)]
        stakes[likeliest[round_no % len(likeliest)]] = high
    others = [i for i in range(len(bets)) if i not in stakes]
    if others:
        stakes[others[(round_no * 5) % len(others)]] = low
    return stakes


def stake_limits(rules) -> tuple[int, int | None]:
    """(min, max) stake of the submission, minor units; no maximum: None."""
    return getattr(rules, "min_stake", 1), getattr(rules, "max_stake", None)
