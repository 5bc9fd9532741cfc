"""The regulated paytables as plain data, and the files that change them.

The numbers live once, in ``tablebench_fixtures/paytables.yaml``: the rules
(``bench.rules``) settle by them and ``twin edge`` weighs a player's bets by
them, and neither imports the other, so both read them here. A game file
(``fixtures/games/*.yaml``) changes rows of its base game's table
(``changed_rows``, used by ``bench.rules.variant`` and by ``read_dice_game``);
a Lightning Roulette rules submission gives the Lucky draw a straight up is
worth on average (``read_lucky_means``). Every error names the file, the
field and the clause that bounds the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Callable, Mapping

from tablebench_io.fields import Fields, suggestion
from tablebench_io.located import LocatedError
from tablebench_io.yamlfile import parse_yaml, read_yaml

SHIPPED = "paytables.yaml"
MAX_ODDS = 100_000      # "N to 1": beyond this a paytable row is a typo, not a game

Error = Callable[..., Exception]


@dataclass(frozen=True)
class Table:
    """One paytable: bet (or kind of bet) -> N of "N to 1", and the clause that sets it."""
    clause: str
    rows: Mapping[str, int]


@dataclass(frozen=True)
class LuckyTerms:
    """What a regulation allows a Lucky draw: how many Lucky Numbers, which payouts."""
    count: tuple[int, int]
    count_clause: str
    pays: tuple[int, ...]
    pays_clause: str


@lru_cache(maxsize=1)
def _shipped() -> Mapping:
    entry = resources.files("tablebench_fixtures") / SHIPPED
    return parse_yaml(entry.read_text(encoding="utf-8"), str(entry))


def table(game: str, name: str) -> Table:
    """The shipped table ``name`` of ``game`` (``lightning-dice``/``base``, ``lightning-roulette``/``lightning``)."""
    raw = _shipped()[game][name]
    return Table(str(raw["clause"]), MappingProxyType({str(k): int(v) for k, v in raw["rows"].items()}))


def lucky_terms(game: str) -> LuckyTerms:
    raw = _shipped()[game]["lucky"]
    low, high = raw["count"]
    return LuckyTerms((int(low), int(high)), str(raw["count_clause"]), tuple(int(p) for p in raw["pays"]),
                      str(raw["pays_clause"]))


def checked_odds(value: object, *, file: str | None, field: str, clause: str, error: Error = LocatedError) -> int:
    """A paytable row's odds: a whole N of "N to 1" from 1 to MAX_ODDS."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ODDS:
        raise error(f"must be whole odds 'N to 1' from 1 to {MAX_ODDS}, got {value!r}",
                    file=file, field=field, clause=clause)
    return value


def changed_rows(base: Table, rows: object, *, game: str, file: str | None, field: str = "paytable",
                 error: Error = LocatedError) -> Table:
    """``base`` with a game file's ``paytable`` rows in place of its own: each row
    one the base has, each odds whole (``checked_odds``); errors cite the base's clause."""
    if not isinstance(rows, Mapping) or not rows:
        raise error("must be a mapping of bet to 'N to 1' odds", file=file, field=field, clause=base.clause)
    changed = dict(base.rows)
    for bet, odds in rows.items():
        where = f"{field}.{bet}"
        if bet not in changed:
            raise error(f"{game}'s paytable has no row {bet!r}{suggestion(bet, changed)}", file=file,
                        field=where, clause=base.clause)
        changed[bet] = checked_odds(odds, file=file, field=where, clause=base.clause, error=error)
    return Table(base.clause, MappingProxyType(changed))


# -- a Lightning Dice game file, as `twin edge` reads it ------------------------------

DICE_GAME = "lightning-dice"
# The readings of 625b.2's ambiguous clauses a dice game file may choose (the
# first: the default, as bench.rules.lightning_dice has them).
DICE_OPTIONS = {"low_high": ("small-big", "paytable-label"), "any_double_on_triple": ("wins", "loses"),
                "no_roll": ("any-die", "all-dice"), "totals": ("3-18", "4-17")}
# Fields of a game file that do not bear on a paytable's rows; bench.rules.variant checks them.
_OTHER_FIELDS = ("name", "description", "phases", "lucky_count", "enhanced_ranges", "lucky")


@dataclass(frozen=True)
class DiceGame:
    """A Lightning Dice game's payouts: the base paytable (625b.2(f)) with a game
    file's rows, the bets it offers (None: every row) and its readings."""
    name: str | None     # a game file's own: text, or None where it says ``name: null`` (read_dice_game allows it)
    base: Table
    offered: frozenset[str] | None
    options: Mapping[str, str]
    source: str          # the game file, or the shipped paytables


def shipped_path() -> str:
    """Where the shipped paytables are read from (a report names it)."""
    return str(resources.files("tablebench_fixtures") / SHIPPED)


def shipped_dice_game() -> DiceGame:
    return DiceGame(DICE_GAME, table(DICE_GAME, "base"), None,
                    MappingProxyType({k: v[0] for k, v in DICE_OPTIONS.items()}), shipped_path())


def _file_of(path, error: Error, key: str, game: str, what: str, clause: str) -> Fields:
    """The file's fields, once its ``key`` names ``game`` (else: ``what`` it must be)."""
    f = Fields(read_yaml(path, error), "", str(path), error=error)
    given = f.raw(key, None)
    if given != game:
        raise f.error(key, f"{what}, not {given!r}", clause)
    return f


def read_dice_game(path, error: Error = LocatedError) -> DiceGame:
    """A Lightning Dice game file's payouts (``bench.rules.variant`` reads the rest of it)."""
    file = str(path)
    f = _file_of(path, error, "base", DICE_GAME, f"a dice game's payouts come from a game file varying {DICE_GAME}",
                 "625b.2")
    name = f.text("name")
    shipped = shipped_dice_game()
    rows = shipped.base
    if f.has("paytable"):
        rows = changed_rows(rows, f.raw("paytable"), game=DICE_GAME, file=file, error=error)
    offered = None
    if f.has("bets"):
        bets = f.raw("bets")
        if not isinstance(bets, list) or not bets:
            raise f.error("bets", f"must be a non-empty list of bets of {DICE_GAME}", "625b.2(e)")
        for i, bet in enumerate(bets):
            if bet not in rows.rows:
                raise f.error(f"bets[{i}]", f"Lightning Dice offers no bet {bet!r}{suggestion(bet, rows.rows)}",
                              "625b.2(e)")
        offered = frozenset(bets)
    options = dict(shipped.options)
    if f.has("options"):
        sub = f.sub("options")
        for option, readings in DICE_OPTIONS.items():
            options[option] = sub.choice(option, readings, readings[0])
        sub.done()
    for key in _OTHER_FIELDS:
        f.raw(key, None)
    f.done()
    return DiceGame(name, rows, offered, MappingProxyType(options), file)


# -- a Lightning Roulette rules submission's Lucky draw, on average ------------------

ROULETTE_GAME = "lightning-roulette"
POCKETS = 37         # 617c.3(a): a single-zero wheel, straight:0 .. straight:36
ALL = "all"          # as in a submission: every position (in ``positions``), every one not listed (in ``odds``)


@dataclass(frozen=True)
class LuckyMeans:
    """What a straight up's Lucky Numbers are worth before they are drawn:
    the mean count a round, and the mean odds of a Lucky Number averaged over
    the positions they fall on (uniform, 617c.3(d)), so that over the 37
    numbers a straight up is worth ``29 + count / 37 * (odds - 29)`` on average."""
    count: float
    odds: float
    source: str


def _probabilities(f: Fields, key: str, check_key: Callable[[object, str], int]) -> Fraction:
    """The mean of a {value: probability} distribution, each value checked."""
    sub = f.sub(key)
    if not sub.data:
        raise f.error(key, "must be a mapping of value to probability")
    total, mean = Fraction(0), Fraction(0)
    for value, p in sub.data.items():
        where = f"{sub.path}.{value}"
        number = check_key(value, where)
        if isinstance(p, bool) or not isinstance(p, (int, float, str)):
            raise f.error_class(f"must be a probability, got {p!r}", file=f.file, field=where)
        try:
            share = Fraction(str(p))
        except (ValueError, ZeroDivisionError):
            raise f.error_class(f"must be a probability, got {p!r}", file=f.file, field=where) from None
        if not 0 <= share <= 1:
            raise f.error_class(f"must be a probability from 0 to 1, got {p!r}", file=f.file, field=where)
        total += share
        mean += number * share
    if abs(total - 1) > Fraction(1, 10**9):
        raise f.error(key, f"probabilities must add up to 1, got {float(total):g}")
    return mean


def read_lucky_means(path, error: Error = LocatedError) -> LuckyMeans:
    """The ``lucky`` of a Lightning Roulette rules submission (``fixtures/submissions``), on average;
    counts outside 617c.3(d) and payouts not on 617c.3(g)'s list are refused."""
    file = str(path)
    f = _file_of(path, error, "game", ROULETTE_GAME,
                 f"a wheel's Lucky Numbers come from a {ROULETTE_GAME} rules submission", "617c.3")
    terms = lucky_terms(ROULETTE_GAME)
    lucky = f.sub("lucky")

    def count(value, where) -> int:
        low, high = terms.count
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise error(f"a round reveals {low} to {high} Lucky Numbers, not {value!r}", file=file, field=where,
                        clause=terms.count_clause)
        return value

    def pays(value, where) -> int:
        if isinstance(value, bool) or value not in terms.pays:
            raise error(f"a Lucky Number pays one of {', '.join(map(str, terms.pays))} to 1, not {value!r}",
                        file=file, field=where, clause=terms.pays_clause)
        return value

    mean_count = _probabilities(lucky, "count", count)
    positions = lucky.raw("positions")
    if positions == ALL:
        positions = [f"straight:{n}" for n in range(POCKETS)]
    elif not isinstance(positions, list) or not positions or not all(isinstance(p, str) for p in positions):
        raise lucky.error("positions", f"must be {ALL!r} or a list of straight ups", terms.count_clause)
    odds = lucky.sub("odds")
    means = {str(key): _probabilities(odds, str(key), pays) for key in list(odds.data)}
    odds.done()
    lucky.done()
    f.raw("description", None)
    f.raw("options", None)
    f.done()
    missing = [p for p in positions if p not in means and ALL not in means]
    if missing:
        raise lucky.error("odds", f"gives no payouts for {missing[0]} (nor for {ALL!r})", terms.pays_clause)
    # The positions are drawn uniformly (617c.3(d)): each weighs the same.
    # Each position has its own odds or those for ALL: the missing ones were refused above.
    mean_odds = sum((means[p] if p in means else means[ALL] for p in positions), Fraction(0)) / len(positions)
    return LuckyMeans(float(mean_count), float(mean_odds), file)
