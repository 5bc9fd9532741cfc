"""Covering play: every winning position is held every round, at stakes that
turn through small, large and odd amounts within the submission's limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.errors import RulesError
from bench.oracle.clauses import awaited_clause
from bench.rules import describe, get_game
from bench.rules.cover import cover
from bench.rules.lightning_roulette import COVERED
from bench.rules.submission import default_rules, parse_rules

GAMES = ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology")
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", ("lightning-dice", "sic-bo", "dice-ology"))
def test_every_wager_the_game_offers_is_placed_every_round(game):
    rules = default_rules(game, describe(game).default_paytable)
    for round_no in (1, 2, 7):
        assert {bet for bet, _ in cover(game, rules, round_no)} == set(get_game(game).bet_names(rules))


def test_roulette_every_kind_holds_every_number_and_every_split_comes_in_turn():
    rules = default_rules("lightning-roulette")
    kinds = ("straight", "split", "street", "corner", "six-line", "dozen", "column")
    played = set()
    for round_no in range(1, 7):
        bets = [bet for bet, _ in cover("lightning-roulette", rules, round_no)]
        played |= set(bets)
        for kind in kinds:
            held = set().union(*(COVERED[b] for b in bets if b.startswith(kind + ":")))
            assert held >= set(range(1, 37)), (kind, round_no)
        assert {"red", "black", "odd", "even", "1-18", "19-36"} <= set(bets)
    splits = {b for b in COVERED if b.startswith("split:")}
    assert len(played & splits) > len(splits) // 2       # the choice turns from round to round


def _narrow(game: str, rules):
    return parse_rules({"game": game, **({"paytable": rules.paytable} if rules.paytable else {}),
                        **({"lucky": get_game(game).DEFAULT_LUCKY} if describe(game).lightning else {}),
                        "limits": {"min_stake": 50, "max_stake": 2_000}})


@pytest.mark.parametrize("game", GAMES)
def test_stakes_are_small_large_and_odd_and_within_the_limits(game):
    rules = default_rules(game, describe(game).default_paytable)
    stakes = {stake for round_no in range(1, 4) for _, stake in cover(game, rules, round_no)}
    assert min(stakes) == 1 and max(stakes) == 1_000_000 and any(s % 2 for s in stakes if s > 1)
    assert any(10_000 <= s < 1_000_000 for s in stakes)
    assert all(50 <= stake <= 2_000 for _, stake in cover(game, _narrow(game, rules), 5))


@pytest.mark.parametrize("game", GAMES)
def test_every_round_stakes_the_minimum_and_the_maximum_exactly_the_maximum_on_a_likeliest_bet(game):
    """A controller that refuses a stake at a limit (601a.2) shows in round 1."""
    rules = default_rules(game, describe(game).default_paytable)
    spec = get_game(game)
    for limits in (rules, _narrow(game, rules)):
        for round_no in (1, 2, 3):
            wagers = cover(game, limits, round_no)
            stakes = [stake for _, stake in wagers]
            assert limits.min_stake in stakes and limits.max_stake in stakes, (game, round_no)
            best = max(spec.win_probability(bet, limits) for bet, _ in wagers)
            at_max = [bet for bet, stake in wagers if stake == limits.max_stake]
            assert any(spec.win_probability(bet, limits) == best for bet in at_max), at_max
            if limits is rules:        # a maximum above the stake ladder: one wager stands on it
                assert len(at_max) == 1, at_max


def test_limits_out_of_order_are_refused_naming_the_field_and_clause():
    with pytest.raises(RulesError) as err:
        parse_rules({"game": "sic-bo", "paytable": "A", "limits": {"min_stake": 10, "max_stake": 5}}, file="x.yaml")
    assert err.value.field == "limits" and err.value.clause == "601a.2"


def test_a_reply_that_does_not_come_names_the_clause_ordering_it():
    assert awaited_clause("lightning-dice", ("LUCKY",)) == "625b.2(d)(2)"
    assert awaited_clause("lightning-roulette", ("LUCKY",)) == "617c.3(d)"
    assert awaited_clause("lightning-dice", ("SETTLED",)) == "625b.2(d)(6)"
    assert awaited_clause("dice-ology", ("NOMORE",)) == "20:18:33:14(1)(d)"
    assert awaited_clause("sic-bo", ("OPEN",)) == "protocol"


def _stake_statement(doc: str) -> str:
    text = (REPO / "docs" / doc).read_text()
    start = text.index("**Stake limits**")
    return " ".join(text[start:text.index("\n\n", start)].split())


def test_the_protocol_and_the_rules_documents_state_the_stake_limits_alike():
    """One statement of the stake limits: an implementer reading either document builds the same controller."""
    from bench.rules.submission import DEFAULT_MAX_STAKE, DEFAULT_MIN_STAKE, LIMITS_CLAUSE
    statement = _stake_statement("protocol.md")
    assert statement == _stake_statement("rules.md")
    assert f"default {DEFAULT_MIN_STAKE} and {DEFAULT_MAX_STAKE:,}" in statement and LIMITS_CLAUSE in statement
