"""Outcome classes: each game declares the outcomes on which its payouts turn;
``bench.rules.coverage`` says what shows each, how often a round can, and a
session's account of what it covered."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bench.rules import Lucky, describe
from bench.rules.coverage import Before, ClassCoverage, Seen, coverage
from bench.rules.submission import default_rules
from bench.rules.variant import load_game_file

FLAT = (True, True, True)


def judge(game: str) -> ClassCoverage:
    return ClassCoverage(game, default_rules(game, describe(game).default_paytable))


def test_lightning_dice_declares_each_triple_the_extreme_totals_each_double_two_no_rolls_and_four_lucky_positions():
    ids = {c.id for c in judge("lightning-dice").classes}
    assert {f"triple:{f}" for f in range(1, 7)} <= ids
    assert {"total:3", "total:4", "total:17", "total:18"} <= ids
    assert {f"double:{f}" for f in range(1, 7)} <= ids
    assert {"no-roll:1", "no-roll:2", "lucky-win-after:no-roll", "lucky-win-after:lucky-win"} <= ids
    assert {f"lucky-win:{k}" for k in range(1, 5)} <= ids and "lucky-win:5" not in ids


def test_lightning_roulette_declares_every_number_zero_as_a_lucky_number_and_five_lucky_positions():
    ids = {c.id for c in judge("lightning-roulette").classes}
    assert {f"pocket:{n}" for n in range(37)} <= ids
    assert {"lucky-pocket:0"} | {f"lucky-win:{k}" for k in range(1, 6)} <= ids


def test_dice_ology_declares_its_sequences_and_a_throw_not_flat():
    ids = {c.id for c in judge("dice-ology").classes}
    assert ids == {"sequence:all-win", "sequence:little-only", "sequence:big-only", "sequence:come-out-seven",
                   "no-roll:1"}


def test_a_game_file_that_reveals_at_most_three_lucky_numbers_has_no_fourth_position_to_cover():
    game = load_game_file("fixtures/games/lightning-dice-1to3.yaml")
    classes = ClassCoverage(game.name, default_rules(game.name))
    assert "lucky-win:3" in {c.id for c in classes.classes}
    assert "lucky-win:4" in {c.id for c in classes.unreachable}


def test_how_often_a_round_can_show_a_class_comes_from_the_submissions_lucky_distribution():
    ld, lr = judge("lightning-dice"), judge("lightning-roulette")
    by_id = lambda j: {c.id: c for c in j.classes}     # noqa: E731
    assert ld.availability(by_id(ld)["lucky-win:4"]) == pytest.approx(0.2)      # four Lucky Numbers: 20%
    assert ld.availability(by_id(ld)["triple:4"]) == 1.0
    zero = by_id(lr)["lucky-pocket:0"]
    assert lr.availability(zero) == pytest.approx(float(Fraction(27, 10) / 37))   # E[count] / 37 numbers
    # 99% of sessions whose rounds 2.. may all be staged see zero Lucky within this many rounds
    needed = lr.rounds_needed(zero)
    assert (1 - lr.availability(zero)) ** (needed - 1) <= 0.01 < (1 - lr.availability(zero)) ** (needed - 2)
    assert ld.rounds_needed(by_id(ld)["triple:4"]) is None


def test_what_a_round_shows_follows_the_plant_and_the_lucky_numbers():
    ld = judge("lightning-dice")
    lucky = (Lucky("total:10", 9), Lucky("total:12", 5), Lucky("total:6", 29))
    shown, after = ld.shown([Seen(dice=(2, 2, 2), flat=FLAT)], lucky)
    assert {"triple:2", "total:6", "lucky-win:3"} <= shown and "double:2" not in shown
    assert after.lucky_won and after.no_roll_run == 0
    shown, after = ld.shown([Seen(dice=(5, 6, 6), flat=(True, False, True))], lucky, Before(no_roll_run=1))
    assert shown == {"no-roll:1", "no-roll:2"} and after.no_roll_run == 2
    # right after a no roll, a Lucky win on a Lucky Number the no-roll round did not have at those odds
    fresh, _ = ld.shown([Seen(dice=(1, 4, 5), flat=FLAT)], lucky, Before(no_roll_run=1, lucky=(("total:12", 5),)))
    assert "lucky-win-after:no-roll" in fresh and "lucky-win:1" in fresh
    stale, _ = ld.shown([Seen(dice=(1, 4, 5), flat=FLAT)], lucky, Before(no_roll_run=1, lucky=(("total:10", 9),)))
    assert "lucky-win-after:no-roll" not in stale


def test_sic_bo_shows_two_no_rolls_in_a_row_within_one_round():
    sb = judge("sic-bo")
    cocked = Seen(dice=(1, 2, 3), flat=(False, True, True))
    shown, after = sb.shown([cocked, cocked, Seen(dice=(3, 3, 5), flat=FLAT)])
    assert {"no-roll:1", "no-roll:2", "double:3"} <= shown and after.no_roll_run == 0


def test_a_dice_ology_sequence_shows_which_side_bets_it_wins():
    do = judge("dice-ology")
    rolls = lambda *totals: [Seen(dice=(max(1, t - 6), t - max(1, t - 6)), flat=(True, True)) for t in totals]  # noqa
    assert "sequence:little-only" in do.shown(rolls(2, 3, 4, 5, 6, 8, 7))[0]
    assert "sequence:all-win" in do.shown(rolls(2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 7))[0]
    assert do.shown(rolls(7))[0] == {"sequence:come-out-seven"}


LUCKIEST = {"lightning-dice": (Lucky("total:3", 249), Lucky("total:10", 9), Lucky("total:12", 9), Lucky("total:18", 249)),
            "lightning-roulette": tuple(Lucky(f"straight:{n}", 49) for n in (0, 5, 10, 15, 20))}


@pytest.mark.parametrize("game", ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"))
def test_every_class_a_game_declares_can_be_staged(game):
    """Given the Lucky Numbers it needs (as many as the rules reveal, zero
    among them, or none: a class of base odds is shown when its bet is not
    Lucky) and the round before it needs, some stage shows each class."""
    j = judge(game)
    shown = set()
    for lucky in (LUCKIEST.get(game, ()), ()):
        for before in (Before(), Before(no_roll_run=1), Before(lucky_won=True)):
            for stage in j.stages(lucky, random.Random(1)):
                shown |= j.shown(j.seen_of(stage), lucky, before)[0]
    assert {c.id for c in j.classes} <= shown


def test_a_total_won_as_a_lucky_number_is_a_lucky_win_not_the_base_odds_of_its_class():
    """625b.2(g)(2): (f)'s 149 to 1 for total 3 or 18 is paid only when no
    multiplier applies; a round in which total 3 wins as a Lucky Number pays
    (g)(3)'s odds and shows a Lucky win, not the class that tests (f)."""
    ld = judge("lightning-dice")
    one_one_one, six_six_six = [Seen(dice=(1, 1, 1), flat=FLAT)], [Seen(dice=(6, 6, 6), flat=FLAT)]
    lucky = (Lucky("total:3", 249), Lucky("total:10", 9))
    shown, _ = ld.shown(one_one_one, lucky)
    assert "lucky-win:1" in shown and "total:3" not in shown
    assert "triple:1" in shown           # its bets (low, high, any double, any triple) are paid at base odds
    assert "total:3" in ld.shown(one_one_one, (Lucky("total:18", 249), Lucky("total:10", 9)))[0]
    assert "total:3" in ld.shown(one_one_one)[0]
    # a Lucky Number that loses changes no payout: 6-6-6 with total 3 Lucky is total 18 at base odds
    assert "total:18" in ld.shown(six_six_six, lucky)[0]
    # a game file making any triple Lucky: a triple won on it tests no base odds of (f) either
    submitted = (Lucky("any-triple", 99), Lucky("total:10", 9))
    assert "triple:1" not in ld.shown(one_one_one, submitted)[0]


def test_a_pocket_whose_straight_up_is_lucky_is_a_lucky_win_not_the_29_to_1_of_617c3f():
    lr = judge("lightning-roulette")
    shown, _ = lr.shown([Seen(pocket=7)], (Lucky("straight:7", 49),))
    assert "lucky-win:1" in shown and "pocket:7" not in shown
    assert "pocket:7" in lr.shown([Seen(pocket=7)], (Lucky("straight:8", 49),))[0]
    zero, _ = lr.shown([Seen(pocket=0)], (Lucky("straight:0", 49),))
    assert "lucky-pocket:0" in zero and "pocket:0" not in zero


def test_a_sessions_account_names_each_class_not_covered_and_why():
    lr = judge("lightning-roulette")
    lucky = (Lucky("straight:7", 49),)
    account = coverage("lightning-roulette", lr.rules, [(1, [{"pocket": 7}], lucky), (2, [{"pocket": 3}], lucky)])
    assert account.covered["lucky-win:1"] == 1 and account.covered["pocket:3"] == 2
    assert "pocket:7" not in account.covered          # won as a Lucky Number: its 29 to 1 was not paid
    why = {c.id: text for c, text in account.missing()}
    assert "99% chance" in why["lucky-pocket:0"] and "too few" in why["pocket:5"]
    assert "a Lucky win in the round before" in why["lucky-win-after:lucky-win"]
    data = account.to_json()
    assert data["classes"] == len(lr.classes) and {"class": "pocket:3", "title": "pocket 3", "round": 2} in data["covered"]
    assert data["could_not_stage"] == []
    # what the staged plan could not stage is said apart from what the rounds were too few for
    account.unstaged["pocket:5"] = "3 stagings failed (rounds 2, 4, 8 did not finish); not staged again"
    why = {c.id: text for c, text in account.missing()}
    assert why["pocket:5"].startswith("3 stagings failed") and "too few" in why["pocket:6"]
    assert account.to_json()["could_not_stage"] == ["pocket:5"]
    assert account.line().endswith("; could not stage: pocket:5 (3 stagings failed (rounds 2, 4, 8 did not finish); "
                                    "not staged again)")
