"""Checks every game applies to the wagers of a round before settling them."""

from __future__ import annotations

from typing import Callable, Iterable

from bench.rules.errors import RulesError
from bench.rules.base import Settlement, Wager


def check_wagers(wagers: Iterable[Wager], check_bet: Callable[[str], None] | None = None) -> list[Wager]:
    """The wagers as a list; a RulesError for a bad id or stake (money is
    integer minor units) or, with ``check_bet`` (the game's), a bet the game
    does not offer, located at its wager."""
    checked = []
    seen = set()
    for i, wager in enumerate(wagers):
        if not isinstance(wager.id, str) or not wager.id:
            raise RulesError(f"a wager needs a non-empty text id, got {wager.id!r}", field=f"wagers[{i}].id")
        if wager.id in seen:
            raise RulesError(f"wager id {wager.id!r} is used twice in one round", field=f"wagers[{i}].id")
        seen.add(wager.id)
        if not isinstance(wager.bet, str):
            raise RulesError(f"expected a bet name, got {wager.bet!r}", field=f"wagers[{i}].bet")
        if isinstance(wager.stake, bool) or not isinstance(wager.stake, int) or wager.stake <= 0:
            raise RulesError(f"a stake is a positive whole number of minor units, got {wager.stake!r}",
                             field=f"wagers[{i}].stake")
        checked.append(wager)
    if check_bet is not None:
        for i, wager in enumerate(checked):
            try:
                check_bet(wager.bet)
            except RulesError as err:
                raise bet_error(err, i) from None
    return checked


def paid(wager: Wager, odds: int | None, clause: str) -> Settlement:
    """"N to 1" hands back the stake times N plus the stake; ``None`` odds is a loss."""
    returned = 0 if odds is None else wager.stake * (odds + 1)
    return Settlement(wager_id=wager.id, returned=returned, clause=clause)


def bet_error(err: RulesError, index: int) -> RulesError:
    """A bet error located at its wager."""
    return RulesError(err.message, field=f"wagers[{index}].bet", clause=err.clause)
