"""The twin's edge weighs a player's bets by the same payouts the rules settle
by: every bet of both games, on every outcome, for the shipped paytables and
for a game file's or a submission's (the twin reads them as data, never
through ``bench``). And a game file given to ``twin edge`` changes the verdict;
one outside the regulation's range is refused with file, field and clause."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bench.rules.base import Lucky, Round, Wager
from bench.rules.dice_bets import ALL_ROLLS
from bench.rules.registry import get_game
from bench.rules.submission import default_rules, load_submission
from bench.rules.variant import load_game_file
from twin.cli import main as twin_main
from twin.edge.payouts import dice_game, straight_payouts, tower_bet_wins, tower_bets, tower_odds
from twin.edge.pipeline import estimate_edge
from twin.edge.tower import tower_edge

ROOT = Path(__file__).resolve().parents[2]
STAKE = 100


def _settled(game, rules, bet: str, **outcome) -> int:
    """What the rules return on a unit of ``bet``, with Lucky Numbers drawn on
    other positions (a round must reveal some; none on the bet, so the base paytable decides)."""
    others = [p for p in game.lucky_positions(rules.options) if p != bet]
    low = game.lucky_count_range[0]
    lucky = tuple(Lucky(p, min(rules.lucky.pays_distribution(p))[0] if p in rules.lucky.positions
                        else game.enhanced_ranges[p][0]) for p in others[:low])
    [settlement] = game.settle(Round(game.name, lucky=lucky, **outcome), [Wager("w", bet, STAKE)], rules)
    return settlement.returned


def _twin_returns(game, bet: str, faces) -> int:
    return STAKE * (1 + tower_odds(game, bet)) if tower_bet_wins(bet, faces) else 0


VARIANT_TEXT = """name: twin-agree-{n}
base: lightning-dice
paytable: {{total:10: 7, low: 2, any-triple: 30}}
bets: [low, high, any-triple, total:10, total:11, total:3]
lucky: {{count: {{2: 1}}, positions: [total:3, total:10, total:11],
        odds: {{total:3: {{149: 1}}, total:10: {{9: 1}}, total:11: {{9: 1}}}}}}
"""


@pytest.fixture(scope="module")
def variant_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("games") / "twin-agree.yaml"
    path.write_text(VARIANT_TEXT.format(n=1), encoding="utf-8")
    return path


@pytest.mark.parametrize("which", ["shipped", "1to3", "variant"])
def test_the_towers_payouts_are_the_rules_settlement_for_every_bet_and_roll(which, variant_file):
    if which == "shipped":
        name, twin_game = "lightning-dice", dice_game()
    else:
        path = ROOT / "fixtures/games/lightning-dice-1to3.yaml" if which == "1to3" else variant_file
        name, twin_game = load_game_file(path).name, dice_game(path)
    game, rules = get_game(name), default_rules(name)
    bets = tower_bets(twin_game)
    # the twin weighs every bet the game offers but any double (625b.2(e)(3)), which it does not model
    assert set(bets) == set(game.bet_names(rules)) - {"any-double"}
    for bet in bets:
        for faces in ALL_ROLLS:
            assert _twin_returns(twin_game, bet, faces) == _settled(game, rules, bet, dice=faces), (bet, faces)


def test_a_game_files_rows_and_bets_reach_the_twin(variant_file):
    twin_game = dice_game(variant_file)
    assert tower_odds(twin_game, "total:10") == 7 and tower_odds(twin_game, "total:11") == 4
    assert tower_bets(twin_game) == ("low", "high", "any-triple", "total:3", "total:10", "total:11")


def test_the_wheels_straight_ups_are_the_rules_settlement_on_every_pocket():
    game, rules = get_game("lightning-roulette"), default_rules("lightning-roulette")
    lightning = straight_payouts()["lightning"]
    for n in range(37):
        for pocket in range(37):
            expected = STAKE * (1 + lightning.odds) if pocket == n else 0
            assert _settled(game, rules, f"straight:{n}", pocket=pocket) == expected


SUBMISSION = """game: lightning-roulette
lucky:
  count: {1: 0.5, 5: 0.5}
  positions: [straight:0, straight:7, straight:17, straight:20, straight:29, straight:32]
  odds:
    all: {49: 0.5, 499: 0.5}
    straight:17: {99: 0.25, 149: 0.25, 199: 0.125, 249: 0.125, 299: 0.0625, 349: 0.0625, 399: 0.0625, 499: 0.0625}
"""


@pytest.mark.parametrize("which", ["shipped", "file"])
def test_the_lucky_straight_up_is_worth_what_the_rules_return_on_average(which, tmp_path):
    if which == "shipped":
        rules, table = default_rules("lightning-roulette"), straight_payouts()
    else:
        path = tmp_path / "lucky.yaml"
        path.write_text(SUBMISSION, encoding="utf-8")
        rules, table = load_submission(path), straight_payouts(submission=path)
    game = get_game("lightning-roulette")
    # over the 37 numbers a player may predict, the rules' mean return of a straight up
    mean_rtp = sum((game.rtp(f"straight:{n}", rules) for n in range(37)), Fraction(0)) / 37
    assert 1 + table["lightning-lucky"].house_edge == pytest.approx(float(mean_rtp), rel=1e-12)


def _records(n: int) -> list[dict]:
    """Drops whose loaded faces say nothing: every third total 10."""
    rolls = [(3, 3, 4), (1, 2, 6), (6, 6, 5)]
    return [{"seed": s, "faces": list(rolls[s % 3]), "loaded": [1, 2, 3], "no_roll": False}
            for s in range(n)]


def test_a_game_file_changes_the_verdict(tmp_path):
    rich = tmp_path / "rich.yaml"
    rich.write_text("name: twin-rich\nbase: lightning-dice\npaytable: {total:10: 40}\n", encoding="utf-8")
    tower = str(ROOT / "fixtures/towers/standard.yaml")
    shipped = estimate_edge(tower, 60, records=_records(60))
    richer = estimate_edge(tower, 60, records=_records(60), game=str(rich))
    assert "total:10" not in shipped.tower.bets and set(richer.tower.bets) == {"total:10"}
    assert richer.tower.edge.house_edge == pytest.approx(27 / 216 * 41 - 1)
    assert richer.verdict_json()["paytable"] == str(rich)
    assert tower_edge(_records(60), 0.99).edge.edge == shipped.tower.edge.edge


@pytest.mark.parametrize("design, text, where", [
    ("towers/standard", "name: bad\nbase: lightning-dice\npaytable: {total:10: 0}\n",
     "paytable.total:10: must be whole odds 'N to 1' from 1 to 100000, got 0 (clause 625b.2(f))"),
    ("towers/standard", "name: bad\nbase: lightning-dice\npaytable: {total:19: 5}\n",
     "paytable.total:19: lightning-dice's paytable has no row 'total:19'"),
    ("wheels/standard", "game: lightning-roulette\nlucky: {count: {2: 1}, positions: all, odds: {all: {500: 1}}}\n",
     "lucky.odds.all.500: a Lucky Number pays one of 499, 399, 349, 299, 249, 199, 149, 99, 49 to 1, not 500 "
     "(clause 617c.3(g))"),
    ("wheels/standard", "game: lightning-roulette\nlucky: {count: {6: 1}, positions: all, odds: {all: {49: 1}}}\n",
     "lucky.count.6: a round reveals 1 to 5 Lucky Numbers, not 6 (clause 617c.3(d))"),
])
def test_a_paytable_outside_the_regulation_exits_2_with_one_line(design, text, where, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    assert twin_main(["edge", design, "--runs", "10", "--game", str(bad), "--results",
                      str(tmp_path / "runs.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"twin edge: {bad}: {where}")
    assert not (tmp_path / "runs.jsonl").exists()          # refused before any run
