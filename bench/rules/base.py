"""The shared vocabulary of every game's rules: a wager, a round's outcome,
a settlement, and the Game interface each game module implements.

Money is integer minor units throughout. "N to 1" pays N times the stake plus
the stake back, so a winning wager's ``returned`` is ``stake * (N + 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Protocol, Sequence

if TYPE_CHECKING:
    from bench.rules.descriptor import GameDescriptor


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
    in ``bench/rules/`` and are looked up by name through the registry; every
    member below is present on every game (no probing with getattr)."""

    name: str         # "lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"
    regulation: str   # e.g. "58 Pa. Code § 625b.2"
    descriptor: "GameDescriptor"                 # everything besides settlement: bench.rules.descriptor
    paytables: tuple[str, ...]                   # the paytables a submission chooses from; () for one
    option_choices: dict[str, tuple[str, ...]]   # ambiguous clause -> readings, the default first
    option_clauses: dict[str, str]
    lucky_count_range: tuple[int, int] | None    # how many Lucky Numbers a round reveals; None: not lightning

    def bet_names(self, rules: "object | None" = None) -> list[str]: ...
    def check_bet(self, bet: str, rules: "object | None" = None) -> None: ...
    def is_no_roll(self, flat: Sequence[bool], rules: "object") -> bool: ...
    def settle(self, round_: Round, wagers: Iterable[Wager], rules: "object") -> list[Settlement]: ...
    def win_probability(self, bet: str, rules: "object") -> Fraction: ...
    def rtp(self, bet: str, rules: "object") -> Fraction: ...
