"""The step library: every step sentence of the regulation features
(``features/*.feature``, shipped with tablebench; ``bench features DIR``
writes them out).

The steps speak the regulations' language; every action goes through the
table the ``open_table`` fixture opens: a game controller over its link
(``bench.scenarios.plugin``, the default wherever tablebench is installed) or
the rules engine (``bench.scenarios.rules_table.RulesTable``, which this repository's
own ``tests/features`` use). The "then" steps check what the player is
handed back. A test module binds a feature with one import line and one call::

    from bench.steps import *
    scenarios("lightning_dice.feature")

A project adds scenarios of its own in new ``.feature`` files using these
sentences, and steps of its own beside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, product

import pytest
from pytest_bdd import given, parsers, then, when

from bench.errors import RulesError
from bench.scenarios.controller_scope import TABLE
from bench.rules import Lucky, game_titled
from bench.rules.submission import load_submission

from bench.scenarios.rules_table import refusal

NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
LUCKY_ITEM = re.compile(r'"([^"]+)" at (-?\d+) to 1')
LUCKY_SEPARATORS = re.compile(r"^(?:,\s*|\s+and\s+|\s*)*$")


@dataclass
class Observations:
    """What the "when" steps saw that the table does not keep: a refusal, and
    the Lucky Numbers of many seeded rounds."""
    error: RulesError | None = None
    attempted: bool = False
    draws: dict[int, tuple[Lucky, ...]] = field(default_factory=dict)
    submission: object = None


@pytest.fixture
def seen() -> Observations:
    return Observations()


def parse_lucky(spec: str) -> list[tuple[str, int]]:
    """'"total:11" at 49 to 1 and "any-triple" at 249 to 1' -> pairs; 'none' -> []."""
    if spec.strip() == "none":
        return []
    items = [(bet, int(pays)) for bet, pays in LUCKY_ITEM.findall(spec)]
    leftover = LUCKY_ITEM.sub("", spec)
    assert items and LUCKY_SEPARATORS.match(leftover), f"cannot read the Lucky Numbers {spec!r}"
    return items


def parse_numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"-?\d+", text)]


def parse_rolls(text: str) -> list[tuple[int, int]]:
    rolls = [(int(a), int(b)) for a, b in re.findall(r"(-?\d+)-(-?\d+)", text)]
    assert rolls, f"cannot read the rolls {text!r}"
    return rolls


def normalise_clause(text: str) -> str:
    return re.sub(r"[\s§]", "", text)


def assert_cites(err: RulesError | None, clause: str) -> None:
    assert err is not None, f"accepted, but § {clause} should refuse it"
    assert err.clause and normalise_clause(clause) in normalise_clause(err.clause), (
        f"refused citing {err.clause!r}, expected § {clause}: {err}")


# -- the table ----------------------------------------------------------------

@given(parsers.re(TABLE.pattern), target_fixture="table")
def a_games_table(open_table, title, paytable):
    """A game by its title, with the paytable where the game has several."""
    return open_table(game_titled(title), paytable)


@given(parsers.parse('the rules submission reads {question} as "{reading}"'))
def read_clause_as(table, question, reading):
    table.read_as(question, reading)


# -- placing wagers -------------------------------------------------------------

@given(parsers.parse('the player places {stake:d} on "{bet}"'))
@when(parsers.parse('the player places {stake:d} on "{bet}"'))
def place(table, stake, bet):
    table.place(bet, stake)


@when(parsers.parse('the player tries to place {stake:d} on "{bet}"'))
def try_place(table, seen, stake, bet):
    seen.attempted = True
    seen.error = refusal(lambda: table.place(bet, stake))


@when(parsers.parse('the player tries to place {stake:d} on "{bet}" after those rolls'))
def try_place_after_rolls(table, seen, stake, bet):
    """The rolls so far are thrown first; the wager comes in the middle of the sequence."""
    seen.attempted = True
    seen.error = refusal(lambda: table.place_after_rolls(bet, stake))


@then("the wager is accepted")
def wager_accepted(seen):
    assert seen.attempted and seen.error is None, f"refused: {seen.error}"


@then("the wager is refused")
def wager_refused(seen):
    assert seen.attempted
    assert seen.error is not None, "the wager was accepted"
    assert seen.error.field and seen.error.field.endswith("bet"), f"refused for another reason: {seen.error}"


@then(parsers.parse('the layout offers the wager "{bet}"'))
def layout_offers(table, bet):
    assert bet in table.offers(), f"{bet!r} is not among the wagers offered: {table.offers()}"


@then(parsers.parse('the player may place {stake:d} on "{bet}"'))
def may_place(table, stake, bet):
    err = refusal(lambda: table.place(bet, stake))
    assert err is None, f"the wager on {bet!r} was refused: {err}"


@then(parsers.parse("the layout offers exactly the wagers {bets}"))
def layout_offers_exactly(table, bets):
    assert sorted(table.offers()) == sorted(re.findall(r'"([^"]+)"', bets))


@then("the layout offers a straight wager on each number from 0 to 36 and on no other number")
def straight_on_each_number(table):
    straights = sorted(b for b in table.offers() if b.startswith("straight:"))
    assert straights == sorted(f"straight:{n}" for n in range(37))


# -- the random number generator ------------------------------------------------

REVEAL = r'the random number generator reveals the Lucky Numbers (?P<spec>".*|none)'


@given(parsers.re(REVEAL))
@when(parsers.re(REVEAL))
def reveal_lucky(table, spec):
    table.reveal_lucky(parse_lucky(spec))


@when(parsers.re(r'the random number generator tries to reveal the Lucky Numbers (?P<spec>".*|none)'))
def try_reveal_lucky(table, seen, spec):
    seen.attempted = True
    seen.error = refusal(lambda: table.reveal_lucky(parse_lucky(spec)))


@when(parsers.parse("the random number generator reveals the Lucky Numbers of {rounds:d} rounds, "
                    "seeds 1 to {last:d}"))
def draw_many(table, seen, rounds, last):
    assert rounds == last
    seen.draws = {seed: table.draw_lucky(seed) for seed in range(1, last + 1)}


@then("the Lucky Numbers are accepted")
def lucky_accepted(seen):
    assert seen.attempted and seen.error is None, f"refused: {seen.error}"


@then("the Lucky Numbers are refused")
def lucky_refused(seen):
    assert seen.attempted and seen.error is not None, "the Lucky Numbers were accepted"


@then(parsers.parse("the Lucky Numbers are refused under § {clause}"))
def lucky_refused_under(seen, clause):
    assert seen.attempted
    assert_cites(seen.error, clause)


@then(parsers.parse("every round reveals between {low:d} and {high:d} Lucky Numbers"))
def every_round_count(seen, low, high):
    counts = {seed: len(lucky) for seed, lucky in seen.draws.items()}
    bad = {seed: n for seed, n in counts.items() if not low <= n <= high}
    assert seen.draws and not bad, f"rounds (seed: count) outside {low}-{high}: {bad}"


@then("no betting position is selected twice in a round")
def no_position_twice(seen):
    twice = {seed: lucky for seed, lucky in seen.draws.items()
             if len({n.bet for n in lucky}) != len(lucky)}
    assert not twice, f"rounds selecting a position twice: {twice}"


@then("each Lucky Number is shown on a betting position the layout offers, with its payout odds")
def lucky_on_offered_positions(table, seen):
    offered = set(table.offers())
    for seed, lucky in seen.draws.items():
        for n in lucky:
            assert n.bet in offered, f"seed {seed}: Lucky Number on {n.bet!r}, not on the layout"
            assert isinstance(n.pays, int) and n.pays >= 1, f"seed {seed}: payout {n.pays!r} for {n.bet}"


@then("each round's Lucky Numbers pass the checks of § 625b.2(d)(2) and (g)(3)")
def draws_pass_checks(table, seen):
    # check_lucky itself is walked row by row by the (d)(2) and (g)(3) outlines.
    for seed, lucky in seen.draws.items():
        err = refusal(lambda lucky=lucky: table.check_announcement(lucky))
        assert err is None, f"seed {seed}: {lucky} refused: {err}"


@then("each Lucky Number is a straight wager on a number from 0 to 36")
def lucky_straight_numbers(seen):
    allowed = {f"straight:{n}" for n in range(37)}
    for seed, lucky in seen.draws.items():
        assert all(n.bet in allowed for n in lucky), f"seed {seed}: {lucky}"


@then(parsers.parse("each Lucky Number's payout is one of {listed} to 1"))
def lucky_payout_listed(seen, listed):
    allowed = set(parse_numbers(listed))
    for seed, lucky in seen.draws.items():
        assert all(n.pays in allowed for n in lucky), f"seed {seed}: {lucky} outside {sorted(allowed)}"


@then(parsers.parse("each of the payouts {listed} to 1 is selected in some round"))
def every_payout_selected(seen, listed):
    wanted = set(parse_numbers(listed))
    selected = {n.pays for lucky in seen.draws.values() for n in lucky}
    assert wanted <= selected, (f"never selected in {len(seen.draws)} rounds: {sorted(wanted - selected)}; "
                                f"selected: {sorted(selected)}")


@then("the same seed reveals the same Lucky Numbers")
def same_seed_same_lucky(table, seen):
    for seed in list(seen.draws)[:20]:
        assert table.draw_lucky(seed) == seen.draws[seed], f"seed {seed} drew differently"


@then(parsers.parse('a Lucky Number on "{bet}" at {pays:d} to 1 is accepted'))
def one_lucky_accepted(table, bet, pays):
    err = refusal(lambda: table.reveal_lucky(with_companion(table, bet, pays)))
    assert err is None, f"{bet} at {pays} to 1 refused: {err}"


@then(parsers.parse('a Lucky Number on "{bet}" at {pays:d} to 1 is refused under § {clause}'))
def one_lucky_refused(table, bet, pays, clause):
    assert_cites(refusal(lambda: table.reveal_lucky(with_companion(table, bet, pays))), clause)


def with_companion(table, bet: str, pays: int) -> list[tuple[str, int]]:
    """Lightning Dice reveals at least two Lucky Numbers (625b.2(d)(2)): pair
    the one under test with a lawful one elsewhere (total 10 or 11 at the
    base 4 to 1, the lowest of their (g)(3) range)."""
    if (table.game.lucky_count_range or (1, 1))[0] < 2:
        return [(bet, pays)]
    companion = "total:10" if bet != "total:10" else "total:11"
    return [(bet, pays), (companion, 4)]


# -- the outcome ----------------------------------------------------------------

@when(parsers.re(r"the dice come to rest showing (?P<dice>[-0-9, and]+)"))
def dice_come_to_rest(table, dice):
    table.roll(parse_numbers(dice))


@when(parsers.re(r"the dice come to rest showing (?P<dice>[-0-9, and]+) "
                 r"with (?P<which>.+) not flat on the bottom"))
def dice_come_to_rest_not_flat(table, dice, which):
    faces = parse_numbers(dice)
    if which == "all three dice":
        cocked = set(range(1, len(faces) + 1))
    else:
        cocked = set(parse_numbers(which))
    assert cocked, f"cannot read which dice are not flat: {which!r}"
    table.roll(faces, flat=[i not in cocked for i in range(1, len(faces) + 1)])


@when('the dealer calls "no roll" because a die failed to land flat')
def dealer_calls_no_roll(table):
    table.call_no_roll()


@when(parsers.parse("the ball comes to rest in {pocket:d}"))
def ball_comes_to_rest(table, pocket):
    table.spin(pocket)


@when(parsers.parse("the shooter rolls {rolls}"))
def shooter_rolls(table, rolls):
    table.shoot(parse_rolls(rolls))


@then('the dealer calls "no roll" and all wagers placed are returned')
def no_roll_called(table):
    settlements = table.settle()
    for w in table.wagers:
        s = settlements[w.id]
        assert s["returned"] == w.stake and "625b.2(d)(5)" in s["clause"], (
            f"{w.bet}: {s}; a no roll returns the stake of {w.stake} under § 625b.2(d)(5)")


@then('the dealer does not call "no roll"')
def no_roll_not_called(table):
    settlements = table.settle()
    calls = {w.bet: settlements[w.id] for w in table.wagers if "625b.2(d)(5)" in settlements[w.id]["clause"]}
    assert not calls, f"settled as a no roll: {calls}"
    dice_settled = [settlements[w.id]["returned"] != w.stake for w in table.wagers]
    assert any(dice_settled), f"every stake came back, as in a no roll: {settlements}"


@then("every wager is settled before the dice are removed from the tray")
def settled_before_cleared(table):
    """625b.2(d)(6): on the wire, every SETTLE and the SETTLED total come before CLEARED."""
    settlements = table.settle()
    unsettled = [w.bet for w in table.wagers if w.id not in settlements]
    assert not unsettled, f"never settled: {unsettled}"
    closing = table.closing
    assert "CLEARED" in closing, f"the round's end, as the controller said it: {closing}"
    late = closing[closing.index("CLEARED") + 1:]
    assert not late, f"after CLEARED the controller still sent {late} (625b.2(d)(6))"


@then("the round is refused as impossible")
def round_refused(table):
    err = refusal(table.settle)
    assert err is not None, f"settled an impossible round: {table.outcome}"
    # Refused for the outcome itself, not for a wager or the Lucky Numbers.
    assert err.field and err.field.split("[")[0].split(".")[0] in table.outcome, (
        f"refused, but not for the outcome {table.outcome}: {err}")


# -- settlement -------------------------------------------------------------------

@then(parsers.parse('the wager on "{bet}" wins and is paid {odds:d} to 1'))
def wins_at(table, bet, odds):
    wager, s = table.settlement_for(bet)
    assert not s.get("open", False), f"{bet} is still open: {s}"
    assert s["returned"] == wager.stake * (odds + 1), (
        f"{bet}: returned {s['returned']} for a stake of {wager.stake}, expected {odds} to 1 = "
        f"{wager.stake * (odds + 1)} ({s['clause']})")


@then(parsers.parse('the wager on "{bet}" loses'))
def loses(table, bet):
    _, s = table.settlement_for(bet)
    assert not s.get("open", False), f"{bet} is still open: {s}"
    assert s["returned"] == 0, f"{bet} should lose, but returned {s['returned']} ({s['clause']})"


@then(parsers.parse('the wager on "{bet}" stays up, unresolved'))
def stays_up(table, bet):
    _, s = table.settlement_for(bet)
    assert s.get("open") is True, f"{bet} should stay up: {s}"
    assert s["returned"] == 0, f"{bet} is open but handed back {s['returned']}"


@then(parsers.parse('the player receives {amount:d} for the wager on "{bet}"'))
def receives(table, amount, bet):
    _, s = table.settlement_for(bet)
    assert isinstance(s["returned"], int) and s["returned"] == amount, (
        f"{bet}: returned {s['returned']!r}, expected {amount} ({s['clause']})")


@then("every wager placed is returned to the player")
def every_wager_returned(table):
    settlements = table.settle()
    for w in table.wagers:
        assert settlements[w.id]["returned"] == w.stake, f"{w.bet}: {settlements[w.id]}, stake {w.stake}"


@then(parsers.parse("each settlement cites § {clause}"))
def each_settlement_cites(table, clause):
    for wager_id, s in table.settle().items():
        assert normalise_clause(clause) in normalise_clause(s["clause"]), (
            f"{wager_id} cites {s['clause']!r}, expected § {clause}")


# -- rules submissions ------------------------------------------------------------

@when("the certificate holder files this rules submission:", target_fixture="table")
def file_submission(open_table, seen, tmp_path, docstring):
    path = tmp_path / "rules-submission.yaml"
    path.write_text(docstring + "\n", encoding="utf-8")
    return load_into_table(open_table, seen, path)


@when(parsers.parse('the certificate holder files the rules submission "{path}"'), target_fixture="table")
def file_shipped_submission(open_table, seen, request, path):
    return load_into_table(open_table, seen, request.config.rootpath / path)


def load_into_table(open_table, seen, path):
    seen.attempted = True
    seen.submission = path
    try:
        rules = load_submission(path)
    except RulesError as err:
        seen.error = err
        return None
    return open_table(rules.game, rules=rules)


@then("the rules submission is accepted")
def submission_accepted(seen):
    assert seen.attempted and seen.error is None, f"refused: {seen.error}"


@then(parsers.parse('the rules submission is refused, naming the file and the field "{name}"'))
def submission_refused_naming(seen, name):
    err = seen.error
    assert seen.attempted and err is not None, "the submission was accepted"
    assert err.file == str(seen.submission), f"the error names file {err.file!r}, not {seen.submission}"
    assert err.field == name, f"the error names field {err.field!r}, not {name!r}: {err}"


@then(parsers.parse("the rules submission is refused under § {clause}"))
def submission_refused_under(seen, clause):
    assert seen.attempted
    assert_cites(seen.error, clause)
    assert seen.error.file == str(seen.submission), f"the error does not name the file: {seen.error}"


# -- exact chances and returns (rules engine only) -------------------------------

def dice_chance(predicate) -> Fraction:
    outcomes = list(product(range(1, 7), repeat=3))
    return Fraction(sum(1 for o in outcomes if predicate(o)), len(outcomes))


def all_before_seven(numbers: set[int]) -> Fraction:
    """The chance that every number in ``numbers`` is rolled with two dice
    before the first seven, whatever else is rolled in between. Rolls of
    other totals do not matter, so each total t arrives at rate p(t); by
    inclusion-exclusion over the numbers still missing when the seven comes,
    P = sum over subsets T of (-1)^|T| * p7 / (p7 + p(T))."""
    p = {t: Fraction(sum(1 for a, b in product(range(1, 7), repeat=2) if a + b == t), 36)
         for t in range(2, 13)}
    total = Fraction(0)
    for k in range(len(numbers) + 1):
        for subset in combinations(sorted(numbers), k):
            total += (-1) ** k * p[7] / (p[7] + sum(p[t] for t in subset))
    return total


@then(parsers.parse('the chance of winning "{bet}" is the chance of a total of {low:d} to {high:d} '
                    "that is not a triple"))
def chance_total_not_triple(table, bet, low, high):
    expected = dice_chance(lambda d: low <= sum(d) <= high and len(set(d)) > 1)
    assert table.win_probability(bet) == expected


@then(parsers.parse('the chance of winning "{bet}" is the chance that all of {numbers} are rolled '
                    "before a seven"))
def chance_all_before_seven(table, bet, numbers):
    wanted = {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", numbers) if w in NUMBER_WORDS}
    assert table.win_probability(bet) == all_before_seven(wanted)


@then(parsers.parse('the return to player of "{bet}" is its chance of winning times {odds:d} + 1'))
def rtp_is_chance_times_odds(table, bet, odds):
    assert table.rtp(bet) == table.win_probability(bet) * (odds + 1)


@then(parsers.parse('the house edge of "{bet}" is {edge}'))
def house_edge(table, bet, edge):
    assert 1 - table.rtp(bet) == Fraction(edge)


@then(parsers.parse('the return to player of "{bet}", counting the Lucky Numbers, is no lower than '
                    "its chance of winning times {odds:d} + 1"))
def rtp_no_lower_than_base(table, bet, odds):
    base = table.win_probability(bet) * (odds + 1)
    assert table.rtp(bet) >= base, f"{bet}: RTP {table.rtp(bet)} below the base paytable's {base}"
