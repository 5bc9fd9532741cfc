"""The shared vocabulary of every game's rules: a wager, a round's outcome,
a settlement, and the Game interface each game module implements.

Money is integer minor units throughout. "N to 1" pays N times the stake plus
the stake back, so a winning wager's ``returned`` is ``stake * (N + 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Protocol


@dataclass(frozen=True, slots=True)   # slots: made in every round by the oracle and the controller
class Wager:
    id: str
    bet: str          # a bet name as documented in `bench settle --help`, e.g. "total:11"
    stake: int        # minor units, > 0


@dataclass(frozen=True, slots=True)   # slots: made in every round by the oracle and the controller
class Lucky:
    """One Lucky Number with its enhanced payout, "pays to 1"."""
    bet: str          # e.g. "total:11" (Lightning Dice) or "straight:17" (roulette)
    pays: int


@dataclass(frozen=True, slots=True)   # slots: made in every round by the oracle and the controller
class Round:
    """What happened in one round, as the settle JSON line gives it.

    Only the fields of the round's game are set: ``dice`` for the dice games,
    ``pocket`` for roulette, ``rolls`` (two-dice rolls made after the bets) for
    Dice-Ology.
    """
    game: str
    dice: tuple[int, ...] | None = None
    pocket: int | None = None
    rolls: tuple[tuple[int, int], ...] | None = None
    no_roll: bool = False
    lucky: tuple[Lucky, ...] = ()
    paytable: str | None = None   # "A"/"B" for sic-bo, "1"/"2" for dice-ology


@dataclass(frozen=True, slots=True)   # slots: made in every round by the oracle and the controller
class Settlement:
    wager_id: str
    returned: int     # everything handed back, stake included; 0 for a loss
    clause: str       # the clause that decided it, e.g. "625a.6(a)(1)"
    open: bool = False  # dice-ology: the bet is still unresolved


class Game(Protocol):
    """What every game module registers. Implementations live one per module
    in ``bench/rules/`` and are looked up by name through the registry."""

    name: str         # "lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"
    regulation: str   # e.g. "58 Pa. Code § 625b.2"

    def bet_names(self) -> list[str]: ...
    def settle(self, round_: Round, wagers: Iterable[Wager], rules: "object") -> list[Settlement]: ...
    def win_probability(self, bet: str, rules: "object") -> Fraction: ...
    def rtp(self, bet: str, rules: "object") -> Fraction: ...
