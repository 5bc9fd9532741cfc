"""The three-dice wagers shared by Sic Bo (58 Pa. Code § 625a.3) and Lightning
Dice (§ 625b.2(e), which defines its bets by reference to § 625a.3).

This module only answers "what does this roll show for this bet"; each game
module decides what a bet pays from its own paytable.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Sequence

from bench.rules.errors import RulesError

# Every equally likely outcome of three fair dice, in order: 6**3 = 216.
# (One range per die rather than ``repeat=3``: the same rolls in the same order, typed as triples.)
ALL_ROLLS: tuple[tuple[int, int, int], ...] = tuple(itertools.product(range(1, 7), range(1, 7), range(1, 7)))

FACES = range(1, 7)


def check_dice(dice: object, *, clause: str, count: int = 3) -> tuple[int, ...]:
    """The dice of a round as a tuple of ints 1..6, or a RulesError naming ``dice``."""
    if not isinstance(dice, (list, tuple)) or len(dice) != count:
        raise RulesError(f"expected {count} dice, got {dice!r}", field="dice", clause=clause)
    for i, face in enumerate(dice):
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise RulesError(f"a die shows 1 to 6, got {face!r}", field=f"dice[{i}]", clause=clause)
    return tuple(dice)


def parse_number(text: str, bet: str, *, low: int, high: int, clause: str) -> int:
    """The N of a bet name such as ``total:N``, checked against its range."""
    if not text.isdigit() or not low <= int(text) <= high:
        raise RulesError(f"bet {bet!r}: the number must be {low} to {high}", field="bet", clause=clause)
    return int(text)


def parse_combo(text: str, bet: str, *, clause: str) -> tuple[int, int]:
    """``combo:A-B`` with two different faces, written low first."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise RulesError(f"bet {bet!r}: write a two dice combination as combo:A-B, e.g. combo:1-2",
                         field="bet", clause=clause)
    a, b = int(parts[0]), int(parts[1])
    if not (1 <= a < b <= 6):
        raise RulesError(f"bet {bet!r}: a two dice combination is two different faces 1-6, "
                         "low first (e.g. combo:2-5)", field="bet", clause=clause)
    return a, b


def total(dice: Sequence[int]) -> int:
    return sum(dice)


def is_triple(dice: Sequence[int]) -> bool:
    return dice[0] == dice[1] == dice[2]


def shows(dice: Sequence[int], face: int) -> int:
    """How many of the dice show ``face``."""
    return sum(1 for d in dice if d == face)


def largest_group(dice: Sequence[int]) -> int:
    """3 for a triple, 2 for a double (exactly two alike), 1 otherwise."""
    return max(Counter(dice).values())
