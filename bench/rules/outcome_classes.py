"""Outcome classes: the outcomes on which a payout turns, as each game declares them.

A breach a controller could ship often shows on one outcome only: a high bet
paid on 4-4-4, total 18 settled as a plain triple, a second no roll in a row,
the fourth Lucky Number listed, a Lucky zero. Each game's descriptor
(``GameDescriptor.outcome_classes``) lists the classes of outcome that decide
a payout of that game; the bench stages the ones a session has not yet seen
(``bench.play.coverage``) and reports which it covered (``bench.rules.coverage``
says what shows each class and how to stage it).

The declarations are plain data: a class is its ``kind`` (below) and a
``value``, with the clauses it puts to the test. A new game declares its own
classes from these kinds; a new kind of outcome adds its kinds here and in
``bench.rules.coverage``.

A class that tests a base paytable names the ``bets`` it pays: a round in
which one of them is a Lucky Number and wins pays that bet the announced odds
(625b.2(g)(3), 617c.3(e)), not the base odds the class is there to test
(625b.2(g)(2) sends a position no multiplier applies to to (f)'s paytable,
617c.3(f) a straight up not Lucky to 29 to 1), so it does not show the class:
a total 3 won as a Lucky Number is a Lucky win (``lucky-win:N``), not the
149 to 1 of (f).
"""

from __future__ import annotations

from dataclasses import dataclass

# Kinds of class. Three dice (DICE3): the settling throw shows
FACES = "faces"                   # these faces (value: the sorted faces), e.g. a triple
DOUBLE = "double"                 # exactly two dice showing the face ``value``
TOTAL = "total"                   # the total ``value``
# Any game with dice (a die not flat)
NO_ROLL = "no-roll"               # ``value`` throws in a row not flat (1: a no roll; 2: a second one right after)
# The lightning games
LUCKY_WIN = "lucky-win"           # the Lucky Number listed at position ``value`` (1-based) wins
LUCKY_WIN_AFTER = "lucky-win-after"   # a Lucky Number wins in the round right after ``value`` (NO_ROLL or LUCKY_WIN),
                                      # on a Lucky Number that round did not have at those odds
# A wheel
POCKET = "pocket"                 # the ball rests in pocket ``value``
LUCKY_POCKET = "lucky-pocket"     # pocket ``value`` is a Lucky Number and the ball rests in it
# Numbered two-dice rolls until every side bet resolves (craps)
SEQUENCE = "sequence"             # the round's rolls make the side bets end as ``value`` says (SEQUENCES)

KINDS = (FACES, DOUBLE, TOTAL, NO_ROLL, LUCKY_WIN, LUCKY_WIN_AFTER, POCKET, LUCKY_POCKET, SEQUENCE)

# Dice-Ology sequences: which side bets a sequence of rolls wins (the others lose at its seven).
SEQUENCES = {
    "all-win": "every number before a seven: every side bet wins",
    "little-only": "2 to 6 before a seven, not every big number: Little Ones wins, Big Ones loses",
    "big-only": "8 to 12 before a seven, not every little number: Big Ones wins, Little Ones loses",
    "come-out-seven": "a seven on the come-out roll: every side bet loses",
}


@dataclass(frozen=True)
class OutcomeClass:
    """One class of outcome a game declares: its ``kind`` and ``value`` say what
    shows it; ``exercises`` the clauses it puts to the test; ``weight`` how
    much sooner than an ordinary class a session should stage it (zero on a
    wheel decides every outside bet at once); ``bets`` the bets it pays at
    base odds (none: no Lucky Number changes what it tests)."""
    kind: str
    value: object
    exercises: str
    weight: float = 1.0
    # The bets whose base odds it tests: one of them Lucky and winning shows a Lucky win instead.
    bets: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown outcome class kind {self.kind!r}; kinds: {', '.join(KINDS)}")

    @property
    def id(self) -> str:
        """A short stable name: ``triple:4``, ``double:3``, ``total:17``, ``no-roll:2``,
        ``lucky-win:4``, ``pocket:17``, ``lucky-pocket:0``, ``sequence:all-win``."""
        if self.kind == FACES:
            faces = self._faces()
            if len(set(faces)) == 1:
                return f"triple:{faces[0]}"
            return "faces:" + "-".join(map(str, faces))
        return f"{self.kind}:{self.value}"

    @property
    def title(self) -> str:
        """The class in words, for a report."""
        kind, value = self.kind, self.value
        if kind == FACES:
            faces = self._faces()
            return ("triple " if len(set(faces)) == 1 else "faces ") + "-".join(map(str, faces))
        if kind == DOUBLE:
            return f"a double of {value}s"
        if kind == TOTAL:
            return f"total {value}"
        if kind == NO_ROLL:
            return "a no roll" if value == 1 else f"{value} no rolls in a row"
        if kind == LUCKY_WIN and isinstance(value, int):     # its value is the listed position
            return f"a Lucky win on the Lucky Number listed {_ordinal(value)}"
        if kind == LUCKY_WIN_AFTER:
            return f"a Lucky win right after {'a no roll' if value == NO_ROLL else 'a Lucky win'}"
        if kind == POCKET:
            return f"pocket {value}"
        if kind == LUCKY_POCKET:
            return f"Lucky {'zero' if value == 0 else value} wins"
        # A sequence's value is its name (a key of SEQUENCES); any other value reads as itself.
        return SEQUENCES.get(value, value) if isinstance(value, str) else str(value)

    def _faces(self) -> tuple[int, ...]:
        """A FACES class's value: the sorted faces, a tuple as ``triples`` builds it."""
        if not isinstance(self.value, tuple):
            raise TypeError(f"a {FACES} class's value is a tuple of faces, not {self.value!r}")
        return self.value


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


@dataclass(frozen=True)
class Throw:
    """One throw a staged round asks the plant to show. ``faces`` as a sorted
    multiset (the plant chooses the order); ``cocked``: a die rests not flat
    (a no roll), the faces then do not matter; ``pick`` a choice drawn from the
    session seed that the plant makes its own (which die is cocked, which of
    its staged drops it uses)."""
    faces: tuple[int, ...] | None = None
    cocked: bool = False
    pick: int = 0
    pocket: int | None = None

    def describe(self) -> str:
        if self.cocked:
            return "a die cocked"
        if self.pocket is not None:
            return f"pocket {self.pocket}"
        return "faces " + "-".join(map(str, self.faces or ()))


# -- declarations a game builds its list from ------------------------------------

# ``bets`` below: the bets a class pays at base odds (``OutcomeClass.bets``); "{}" stands for the class's value.

def _bets(bets: tuple[str, ...], value) -> tuple[str, ...]:
    return tuple(bet.format(value) for bet in bets)


def triples(exercises: str, low: int = 1, high: int = 6, bets: tuple[str, ...] = ()) -> tuple[OutcomeClass, ...]:
    return tuple(OutcomeClass(FACES, (f, f, f), exercises, bets=_bets(bets, f)) for f in range(low, high + 1))


def doubles(exercises: str, bets: tuple[str, ...] = ()) -> tuple[OutcomeClass, ...]:
    return tuple(OutcomeClass(DOUBLE, f, exercises, bets=_bets(bets, f)) for f in range(1, 7))


def totals(values, exercises: str, bets: tuple[str, ...] = ()) -> tuple[OutcomeClass, ...]:
    return tuple(OutcomeClass(TOTAL, t, exercises, bets=_bets(bets, t)) for t in values)


def no_rolls(exercises: str, in_a_row: int = 2) -> tuple[OutcomeClass, ...]:
    return tuple(OutcomeClass(NO_ROLL, n, exercises) for n in range(1, in_a_row + 1))


def lucky_wins(most: int, exercises: str, weight: float = 1.0) -> tuple[OutcomeClass, ...]:
    """A Lucky win at each listed position up to ``most`` (the regulation's
    largest count); a session keeps those its rules can reveal."""
    return tuple(OutcomeClass(LUCKY_WIN, k, exercises, weight=weight) for k in range(1, most + 1))


def pockets(numbers, exercises: str, bets: tuple[str, ...] = ()) -> tuple[OutcomeClass, ...]:
    return tuple(OutcomeClass(POCKET, n, exercises, bets=_bets(bets, n)) for n in numbers)


__all__ = ["DOUBLE", "FACES", "KINDS", "LUCKY_POCKET", "LUCKY_WIN", "LUCKY_WIN_AFTER", "NO_ROLL", "OutcomeClass",
           "POCKET", "SEQUENCE", "SEQUENCES", "TOTAL", "Throw", "doubles", "lucky_wins", "no_rolls", "pockets",
           "totals", "triples"]
