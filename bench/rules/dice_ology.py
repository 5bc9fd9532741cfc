"""Dice-Ology (S.D. Admin. R. 20:18:33:14): three craps side bets settled over
the sequence of two-dice rolls made after the bet.

Each bet needs a set of totals "rolled before a seven"; the dealer marks
(lammers) each total as it is rolled; the bet wins when all are marked, loses
on any seven (the come-out seven included) and is otherwise still open.

Bets: ``little-ones`` (2-6), ``big-ones`` (8-12), ``boom-or-bust`` (2-6, 8-12).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Sequence

from bench.rules.errors import RulesError
from bench.rules.base import Round, Settlement, Wager
from bench.rules.descriptor import CRAPS, NO_ROLL_AGAIN, GameDescriptor, clauses, frozen
from bench.rules.outcome_classes import SEQUENCE, SEQUENCES, OutcomeClass, no_rolls
from bench.rules.registry import register
from bench.rules.wagers import check_wagers, paid

RULE = "20:18:33:14"
PAY_TABLE_CLAUSE = f"{RULE} Pay Tables"


class SideBet:
    def __init__(self, name: str, numbers: Iterable[int], part: str, *, win: str, loss: str,
                 definition: str, odds: dict[str, int]):
        self.name = name
        self.numbers = frozenset(numbers)
        self.win_clause = f"{RULE}({part})({win})"     # all numbers lammered: paid and taken down
        self.loss_clause = f"{RULE}({part})({loss})"   # a seven
        self.open_clause = f"{RULE}({part})({definition})"
        self.odds = odds                               # pay table -> "N to 1"


# The three side bets and the Pay Tables, "N to 1" under Pay Table 1 and 2.
SIDE_BETS = {
    bet.name: bet for bet in (
        SideBet("little-ones", (2, 3, 4, 5, 6), "1", win="c", loss="b", definition="a",
                odds={"1": 34, "2": 30}),
        SideBet("big-ones", (8, 9, 10, 11, 12), "2", win="d", loss="c", definition="b",
                odds={"1": 34, "2": 30}),
        SideBet("boom-or-bust", (2, 3, 4, 5, 6, 8, 9, 10, 11, 12), "3", win="c", loss="b",
                definition="a", odds={"1": 175, "2": 150}),
    )
}

# Ways to roll each total with two fair dice, out of 36.
WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}


@lru_cache(maxsize=None)
def win_chance(needed: frozenset[int]) -> Fraction:
    """P(every total in ``needed`` is rolled before a seven). Only rolls of a
    needed total or a seven change the state, so the next such roll is a needed
    total t with probability WAYS[t] / (WAYS[7] + sum of WAYS[needed])."""
    if not needed:
        return Fraction(1)
    relevant = WAYS[7] + sum(WAYS[t] for t in needed)
    return sum((Fraction(WAYS[t], relevant) * win_chance(needed - {t}) for t in needed), Fraction(0))


def check_rolls(rolls: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(rolls, (list, tuple)):
        raise RulesError(f"expected a list of two-dice rolls such as [[1, 2], [3, 3]], got {rolls!r}",
                         field="rolls", clause=RULE)
    checked = []
    for i, roll in enumerate(rolls):
        if not isinstance(roll, (list, tuple)) or len(roll) != 2:
            raise RulesError(f"a craps roll is two dice, got {roll!r}", field=f"rolls[{i}]", clause=RULE)
        for j, face in enumerate(roll):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
                raise RulesError(f"a die shows 1 to 6, got {face!r}", field=f"rolls[{i}][{j}]", clause=RULE)
        checked.append((roll[0], roll[1]))
    return tuple(checked)


class DiceOlogy:
    name = "dice-ology"
    descriptor: GameDescriptor      # set below, once the class is made
    regulation = "S.D. Admin. R. 20:18:33:14"
    paytables = ("1", "2")
    paytable_clause = PAY_TABLE_CLAUSE
    line_fields = frozenset({"rolls"})   # a `bench settle` line's round fields
    outcome_field = "rolls"
    option_choices: dict[str, tuple[str, ...]] = {}
    option_clauses: dict[str, str] = {}
    lucky_count_range = None

    def is_no_roll(self, flat, rules) -> bool:
        """Craps: a die not flat is no roll, thrown again."""
        return not all(flat)

    def bet_names(self, rules=None) -> list[str]:
        return list(SIDE_BETS)

    def check_bet(self, bet: str, rules=None) -> None:
        if bet not in SIDE_BETS:
            raise RulesError(f"Dice-Ology offers no bet {bet!r}; its side bets are "
                             f"{', '.join(SIDE_BETS)}", field="bet", clause=RULE)

    def odds_clause(self, bet: str, rules) -> str:
        """The clause that sets the bet's payout odds."""
        return PAY_TABLE_CLAUSE

    def resolve(self, bet: str, rolls: Sequence[tuple[int, int]], paytable: str) -> tuple[int | None, str, bool]:
        """(odds or None, clause, open) after the rolls made since the bet."""
        side = SIDE_BETS[bet]
        marked: set[int] = set()
        for a, b in rolls:
            t = a + b
            if t == 7:
                return None, side.loss_clause, False
            marked.add(t)
            if side.numbers <= marked:
                return side.odds[paytable], side.win_clause, False
        return None, side.open_clause, True

    def settle(self, round_: Round, wagers: Iterable[Wager], rules) -> list[Settlement]:
        wagers = check_wagers(wagers, self.check_bet)
        if rules.paytable not in self.paytables:
            raise RulesError("dice-ology needs a pay table: 1 or 2", field="paytable", clause=PAY_TABLE_CLAUSE)
        rolls = check_rolls(round_.rolls if round_.rolls is not None else [])
        settlements = []
        for wager in wagers:
            odds, clause, still_open = self.resolve(wager.bet, rolls, rules.paytable)
            settlement = paid(wager, odds, clause)
            if still_open:
                settlement = Settlement(wager.id, 0, clause, open=True)
            settlements.append(settlement)
        return settlements

    def win_probability(self, bet: str, rules) -> Fraction:
        self.check_bet(bet)
        return win_chance(SIDE_BETS[bet].numbers)

    def rtp(self, bet: str, rules) -> Fraction:
        """Every bet resolves with probability 1 (a seven comes), so the RTP is
        P(win) times the odds plus the stake."""
        if rules.paytable not in self.paytables:
            raise RulesError("dice-ology needs a pay table: 1 or 2", field="paytable", clause=PAY_TABLE_CLAUSE)
        return self.win_probability(bet, rules) * (SIDE_BETS[bet].odds[rules.paytable] + 1)


# What the bench needs besides settlement: bench.rules.descriptor.
DiceOlogy.descriptor = GameDescriptor(
    name="dice-ology", kind=CRAPS, command="ROLL", plant="dice", default_paytable="1", title="Dice-Ology",
    amount_clauses=("20:18:33:14(1)(c)", "20:18:33:14(2)(d)", "20:18:33:14(3)(c)"),
    no_roll=NO_ROLL_AGAIN,                      # craps: a die not flat is no roll, thrown again
    phase_clauses=clauses(
        betting="20:18:33:14(1)(d)",  # "A player may bet this feature at the beginning of the roll only"
        trigger="20:18:33:14",        # a variation of craps: the shooter throws on the dealer's call
        result="20:18:33:14(1)(e)",   # the dealer marks the number rolled
        no_roll="20:18:33:14",        # craps: a die not flat is no roll, thrown again
        settlement="20:18:33:14(1)(f)",  # paid (or lost) and taken down as each bet resolves
    ),
    late_bet="little-ones", quiet_outcome=frozen({"rolls": [[3, 4]]}),
    players=(("little-ones", 2), ("big-ones", 2), ("boom-or-bust", 1)),
    # Its sequences: every number before a seven (all three side bets win), the
    # little numbers only or the big ones only (one wins, the other loses at the
    # seven), a seven on the come-out roll (all lose), and a throw not flat in
    # the middle of a sequence (thrown again; nothing resolves).
    outcome_classes=(
        tuple(OutcomeClass(SEQUENCE, name, "20:18:33:14(1)(b),(c); (2)(c),(d); (3)(b),(c)") for name in SEQUENCES)
        + no_rolls("20:18:33:14", in_a_row=1)
    ),
    cover="every-bet",
    not_offered="field",             # the three side bets only; 20:18:33:14
)

GAME = register(DiceOlogy())
