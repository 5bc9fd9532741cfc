"""Sic Bo: the wagers of 58 Pa. Code § 625a.3 paid by paytable A or B of
§ 625a.6(a) and the One of a Kind rule of § 625a.6(b).

Bets: ``triple:N`` (three of a kind), ``double:N`` (two of a kind),
``any-triple``, ``total:4`` .. ``total:17``, ``combo:A-B``, ``small``, ``big``,
``single:N`` (one of a kind).
"""

from __future__ import annotations

from typing import Mapping

from bench.rules.errors import RulesError
from bench.rules.dice_bets import FACES, is_triple, parse_combo, parse_number, shows, total
from bench.rules.dice_game import DiceGame
from bench.rules.descriptor import DICE3, NO_ROLL_AGAIN, GameDescriptor, clauses, frozen
from bench.rules.outcome_classes import doubles, no_rolls, totals, triples
from bench.rules.registry import register

# § 625a.6(a): "N to 1" odds, paytable A and paytable B.
PAYTABLES: dict[str, dict[str, object]] = {
    "A": {
        "triple": 150, "double": 8, "any-triple": 24, "combo": 5, "small": 1, "big": 1,
        "total": {4: 50, 5: 18, 6: 14, 7: 12, 8: 8, 9: 6, 10: 6,
                  11: 6, 12: 6, 13: 8, 14: 12, 15: 14, 16: 18, 17: 50},
        # § 625a.6(b): one of a kind by how many dice show the number.
        "single": {1: (1, "625a.6(b)(1)"), 2: (2, "625a.6(b)(2)"), 3: (3, "625a.6(b)(3)(i)")},
    },
    "B": {
        "triple": 180, "double": 11, "any-triple": 31, "combo": 6, "small": 1, "big": 1,
        "total": {4: 62, 5: 31, 6: 18, 7: 12, 8: 8, 9: 7, 10: 6,
                  11: 6, 12: 7, 13: 8, 14: 12, 15: 18, 16: 31, 17: 62},
        "single": {1: (1, "625a.6(b)(1)"), 2: (2, "625a.6(b)(2)"), 3: (12, "625a.6(b)(3)(ii)")},
    },
}
PAYTABLE_CLAUSE = "625a.6(a)"

# Where § 625a.3 defines each wager (the clause of a loss).
WAGER_CLAUSES = {
    "triple": "625a.3(1)", "double": "625a.3(2)", "any-triple": "625a.3(3)", "total": "625a.3(4)",
    "combo": "625a.3(5)", "small": "625a.3(6)", "big": "625a.3(7)", "single": "625a.3(8)",
}


def two_of_a_kind(dice, face: int, on_triple: str) -> bool:
    """§ 625a.3(2) "wins if the same number is showing on two of the three dice".
    ``on_triple`` "wins" (default): a triple of the number shows it on two of the
    three dice too, and unlike (6)/(7) the clause names no triple exception;
    "loses": exactly two."""
    count = shows(dice, face)
    return count == 2 or (count == 3 and on_triple == "wins")


class SicBo(DiceGame):
    name = "sic-bo"
    regulation = "58 Pa. Code § 625a.3, § 625a.6"
    dice_clause = "625a.3"
    paytables = ("A", "B")
    paytable_clause = PAYTABLE_CLAUSE
    line_fields = frozenset({"dice"})     # a `bench settle` line's round fields
    outcome_field = "dice"
    option_choices = {"double_on_triple": ("wins", "loses")}
    option_clauses = {"double_on_triple": "625a.3(2)"}
    paytable_tables: Mapping[str, Mapping[str, object]] = PAYTABLES   # a game file may change rows

    def bet_names(self, rules=None) -> list[str]:
        names = [f"triple:{n}" for n in FACES] + [f"double:{n}" for n in FACES] + ["any-triple"]
        names += [f"total:{t}" for t in range(4, 18)]
        names += [f"combo:{a}-{b}" for a in FACES for b in FACES if a < b]
        names += ["small", "big"] + [f"single:{n}" for n in FACES]
        return names

    def _parse(self, bet: str) -> tuple[str, object]:
        if not isinstance(bet, str):
            raise RulesError(f"expected a bet name, got {bet!r}", field="bet")
        kind, _, arg = bet.partition(":")
        clause = WAGER_CLAUSES.get(kind, "625a.3")
        if kind in ("any-triple", "small", "big") and not arg:
            return kind, None
        if kind in ("triple", "double", "single") and arg:
            return kind, parse_number(arg, bet, low=1, high=6, clause=clause)
        if kind == "total" and arg:
            return kind, parse_number(arg, bet, low=4, high=17, clause=clause)
        if kind == "combo" and arg:
            return kind, parse_combo(arg, bet, clause=clause)
        raise RulesError(f"Sic Bo offers no bet {bet!r}; see `bench settle --help` for the bet names",
                         field="bet", clause="625a.3")

    def check_bet(self, bet: str, rules=None) -> None:
        self._parse(bet)

    def odds_clause(self, bet: str, rules) -> str:
        """The clause that sets the bet's payout odds."""
        return "625a.6(b)" if bet.startswith("single:") else PAYTABLE_CLAUSE

    def decide(self, bet, dice, rules):
        kind, arg = self._parse(bet)
        if rules.paytable not in self.paytable_tables:
            raise RulesError(f"Sic Bo needs a paytable: {' or '.join(self.paytable_tables)}", field="paytable",
                             clause=PAYTABLE_CLAUSE)
        table = self.paytable_tables[rules.paytable]
        loss = (None, WAGER_CLAUSES[kind])
        if kind == "triple":
            won = is_triple(dice) and dice[0] == arg
        elif kind == "double":
            won = two_of_a_kind(dice, arg, rules.option("double_on_triple"))
        elif kind == "any-triple":
            won = is_triple(dice)
        elif kind == "total":
            won = total(dice) == arg
            return (table["total"][arg], PAYTABLE_CLAUSE) if won else loss
        elif kind == "combo":
            won = shows(dice, arg[0]) >= 1 and shows(dice, arg[1]) >= 1
        elif kind == "small":
            won = 4 <= total(dice) <= 10 and not is_triple(dice)
        elif kind == "big":
            won = 11 <= total(dice) <= 17 and not is_triple(dice)
        else:  # single, § 625a.6(b)
            count = shows(dice, arg)
            return table["single"][count] if count else loss
        return (table[kind], PAYTABLE_CLAUSE) if won else loss


# What the bench needs besides settlement: bench.rules.descriptor.
SicBo.descriptor = GameDescriptor(
    name="sic-bo", kind=DICE3, command="RELEASE", plant="tower", default_paytable="A", title="Sic Bo",
    amount_clauses=("625a.6(a)", "625a.6(b)(1)", "625a.6(b)(2)", "625a.6(b)(3)(i)", "625a.6(b)(3)(ii)"),
    no_roll=NO_ROLL_AGAIN,                      # the shaker's dice must show an outcome
    # § 625a.5 (procedures for opening and dealing the game) is cited by 625b.2(g)(1)
    # for "no more bets" in (c); its text is not among the seed regulations.
    phase_clauses=clauses(betting="625a.5(c)", trigger="625a.5", result="625a.5",
                          no_roll="625a.5", settlement="625a.5"),
    late_bet="big", quiet_outcome=frozen({"dice": [1, 2, 4]}),
    players=(("small", 3), ("big", 3), ("single:2", 2), ("double:5", 1), ("triple:6", 1),
             ("any-triple", 1), ("total:9", 1), ("combo:1-2", 1)),
    # Each triple (small and big lose, 625a.3(6),(7); a one of a kind on three
    # dice, 625a.6(b)(3)), the totals of 4 and 17, each pair (625a.3(2),
    # 625a.6(b)(2)), and the shaker's dice not flat once and twice in a row
    # (shaken again, the wagers stand).
    outcome_classes=(
        triples("625a.3(1),(3),(6),(7); 625a.6(b)(3)")
        + totals((4, 17), "625a.3(4); 625a.6(a)")
        + doubles("625a.3(2),(5); 625a.6(b)(2)")
        + no_rolls("625a.5")
    ),
    cover="every-bet",
    not_offered="total:3",           # 625a.3(4): a total of 4 to 17
)

GAME = register(SicBo())
