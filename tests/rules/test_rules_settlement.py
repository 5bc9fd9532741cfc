"""Settling single rounds the way a dealer would, clause by clause."""

import pytest

from bench.errors import RulesError
from bench.rules import Round as Round_, get_game
from bench.rules.settle_json import settle_line

DICE_LUCKY = [{"bet": "total:11", "pays": 49}, {"bet": "total:4", "pays": 99}]


def one(line, **kw):
    [settlement] = settle_line(line, **kw)["settlements"]
    return settlement


def sic_bo(bet, dice, paytable="A", stake=100):
    return one({"game": "sic-bo", "paytable": paytable, "dice": dice,
                "wagers": [{"id": "w1", "bet": bet, "stake": stake}]})


@pytest.mark.parametrize("bet, dice, paytable, returned, clause", [
    ("single:2", [2, 2, 5], "A", 300, "625a.6(b)(2)"),
    ("single:2", [2, 1, 5], "A", 200, "625a.6(b)(1)"),
    ("single:2", [2, 2, 2], "A", 400, "625a.6(b)(3)(i)"),
    ("single:2", [2, 2, 2], "B", 1300, "625a.6(b)(3)(ii)"),
    ("single:2", [1, 3, 5], "B", 0, "625a.3(8)"),
    ("small", [3, 3, 3], "A", 0, "625a.3(6)"),          # total 9 but a three of a kind
    ("small", [1, 3, 6], "A", 200, "625a.6(a)"),
    ("big", [6, 6, 6], "B", 0, "625a.3(7)"),
    ("triple:4", [4, 4, 4], "B", 18100, "625a.6(a)"),
    ("any-triple", [4, 4, 4], "A", 2500, "625a.6(a)"),
    ("double:4", [4, 4, 1], "B", 1200, "625a.6(a)"),
    ("double:4", [4, 4, 4], "A", 900, "625a.6(a)"),     # default reading: a triple wins
    ("combo:1-6", [6, 1, 6], "A", 600, "625a.6(a)"),
    ("total:17", [6, 6, 5], "B", 6300, "625a.6(a)"),
])
def test_sic_bo_pays_by_its_paytable(bet, dice, paytable, returned, clause):
    assert sic_bo(bet, dice, paytable) == {"id": "w1", "returned": returned, "clause": clause}


def test_lightning_dice_lucky_total_pays_its_enhanced_odds_and_others_the_base():
    line = {"game": "lightning-dice", "dice": [5, 5, 1], "lucky": DICE_LUCKY,
            "wagers": [{"id": "lucky", "bet": "total:11", "stake": 10},
                       {"id": "double", "bet": "any-double", "stake": 10},
                       {"id": "high", "bet": "high", "stake": 10},
                       {"id": "four", "bet": "total:4", "stake": 10}]}
    out = {s["id"]: (s["returned"], s["clause"]) for s in settle_line(line)["settlements"]}
    assert out == {"lucky": (500, "625b.2(g)(3)"), "double": (20, "625b.2(f)"),
                   "high": (20, "625b.2(f)"), "four": (0, "625b.2(e)(5)")}


def test_lightning_dice_no_roll_returns_every_stake():
    line = {"game": "lightning-dice", "no_roll": True, "lucky": DICE_LUCKY,
            "wagers": [{"id": "a", "bet": "total:11", "stake": 7}, {"id": "b", "bet": "any-triple", "stake": 3}]}
    assert settle_line(line)["settlements"] == [
        {"id": "a", "returned": 7, "clause": "625b.2(d)(5)"},
        {"id": "b", "returned": 3, "clause": "625b.2(d)(5)"}]


@pytest.mark.parametrize("flat, reading, is_no_roll", [
    ([True, False, True], "any-die", True),
    ([True, False, True], "all-dice", False),
    ([False, False, False], "all-dice", True),
    ([True, True, True], "any-die", False),
])
def test_the_no_roll_reading_decides_a_cocked_die(tmp_path, flat, reading, is_no_roll):
    from bench.rules.submission import load_submission
    path = tmp_path / "ld.yaml"
    path.write_text(f"game: lightning-dice\noptions: {{no_roll: {reading}}}\n"
                    "lucky: {count: {2: 1}, positions: [total:10, total:11], odds: {all: {9: 1}}}\n")
    line = {"game": "lightning-dice", "dice": [1, 2, 3], "flat": flat, "lucky": DICE_LUCKY,
            "wagers": [{"id": "w", "bet": "total:6", "stake": 10}]}
    settlement = one(line, rules=load_submission(path))
    assert settlement["returned"] == (10 if is_no_roll else 150)


def test_lightning_dice_low_reading_from_the_paytable_label():
    from bench.rules.submission import Rules
    label = Rules(game="lightning-dice", options={"low_high": "paytable-label"})
    default = Rules(game="lightning-dice")
    line = {"game": "lightning-dice", "dice": [1, 1, 1], "lucky": DICE_LUCKY,
            "wagers": [{"id": "w", "bet": "low", "stake": 10}]}
    assert one(line, rules=label)["returned"] == 20          # "Low (3-9)": 3 is low
    assert one(line, rules=default)["returned"] == 0         # the small bet loses on a triple


def test_lightning_roulette_straight_up_29_to_1_unless_lucky():
    lucky = [{"bet": "straight:17", "pays": 499}, {"bet": "straight:0", "pays": 49}]
    line = {"game": "lightning-roulette", "pocket": 17, "lucky": lucky,
            "wagers": [{"id": "s17", "bet": "straight:17", "stake": 10},
                       {"id": "red", "bet": "red", "stake": 10},
                       {"id": "black", "bet": "black", "stake": 10},
                       {"id": "corner", "bet": "corner:13-14-16-17", "stake": 10}]}
    out = {s["id"]: (s["returned"], s["clause"]) for s in settle_line(line)["settlements"]}
    assert out == {"s17": (5000, "617c.3(e)"), "red": (0, "617a.4"), "black": (20, "617a.4"),
                   "corner": (90, "617a.4")}
    line["lucky"] = [{"bet": "straight:3", "pays": 499}]
    assert settle_line(line)["settlements"][0] == {"id": "s17", "returned": 300, "clause": "617c.3(f)"}


def test_lightning_roulette_even_money_loses_on_zero():
    line = {"game": "lightning-roulette", "pocket": 0, "lucky": [{"bet": "straight:5", "pays": 49}],
            "wagers": [{"id": b, "bet": b, "stake": 10} for b in ("red", "black", "odd", "even", "1-18", "19-36")]}
    assert all(s["returned"] == 0 for s in settle_line(line)["settlements"])


@pytest.mark.parametrize("rolls, returned, clause, still_open", [
    ([[3, 4]], 0, "20:18:33:14(1)(b)", False),                              # come-out seven
    ([[1, 1], [1, 2], [2, 2], [2, 3], [3, 3]], 3500, "20:18:33:14(1)(c)", False),
    ([[1, 1], [1, 2], [2, 2], [2, 3], [3, 3], [3, 4]], 3500, "20:18:33:14(1)(c)", False),  # paid, taken down
    ([[1, 1], [6, 6], [2, 2], [2, 3], [3, 3]], 0, "20:18:33:14(1)(a)", True),  # 3 not yet marked
    ([[1, 1], [1, 2], [2, 2], [2, 3], [6, 1], [3, 3]], 0, "20:18:33:14(1)(b)", False),
    ([], 0, "20:18:33:14(1)(a)", True),
])
def test_little_ones_over_a_sequence_of_rolls(rolls, returned, clause, still_open):
    settlement = one({"game": "dice-ology", "paytable": 1, "rolls": rolls,
                      "wagers": [{"id": "w", "bet": "little-ones", "stake": 100}]})
    expected = {"id": "w", "returned": returned, "clause": clause}
    if still_open:
        expected["open"] = True
    assert settlement == expected


def test_boom_or_bust_pay_table_2():
    rolls = [[1, 1], [1, 2], [2, 2], [2, 3], [3, 3], [4, 4], [4, 5], [5, 5], [5, 6], [6, 6]]
    settlement = one({"game": "dice-ology", "paytable": "2", "rolls": rolls,
                      "wagers": [{"id": "w", "bet": "boom-or-bust", "stake": 2}]})
    assert settlement == {"id": "w", "returned": 302, "clause": "20:18:33:14(3)(c)"}


@pytest.mark.parametrize("line, field, clause", [
    ({"game": "craps", "wagers": []}, "game", None),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 7], "wagers": []}, "dice[2]", "625a.3"),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2], "wagers": []}, "dice", "625a.3"),
    ({"game": "sic-bo", "dice": [1, 2, 3], "wagers": []}, "paytable", "625a.6(a)"),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3],
      "wagers": [{"id": "w", "bet": "total:3", "stake": 1}]}, "wagers[0].bet", "625a.3(4)"),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3],
      "wagers": [{"id": "w", "bet": "low", "stake": 1}]}, "wagers[0].bet", "625a.3"),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3],
      "wagers": [{"id": "w", "bet": "small", "stake": -5}]}, "wagers[0].stake", None),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3],
      "wagers": [{"id": "w", "bet": "small", "stake": 1.5}]}, "wagers[0].stake", None),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3], "pocket": 3, "wagers": []}, "pocket", None),
    ({"game": "lightning-dice", "dice": [1, 2, 3], "wagers": []}, "lucky", "625b.2(d)(2)"),
    ({"game": "lightning-dice", "dice": [1, 2, 3], "lucky": DICE_LUCKY[:1], "wagers": []},
     "lucky", "625b.2(d)(2)"),
    ({"game": "lightning-dice", "dice": [1, 2, 3], "wagers": [],
      "lucky": [{"bet": "total:10", "pays": 50}, {"bet": "low", "pays": 2}]}, "lucky[0].pays", "625b.2(g)(3)"),
    ({"game": "lightning-dice", "dice": [1, 2, 3], "wagers": [],
      "lucky": [{"bet": "low", "pays": 3}, {"bet": "low", "pays": 2}]}, "lucky[1].bet", "625b.2(g)(1)"),
    ({"game": "lightning-roulette", "pocket": 37, "wagers": [],
      "lucky": [{"bet": "straight:1", "pays": 49}]}, "pocket", "617c.3(a)"),
    ({"game": "lightning-roulette", "pocket": 3, "wagers": [],
      "lucky": [{"bet": "straight:1", "pays": 50}]}, "lucky[0].pays", "617c.3(g)"),
    ({"game": "lightning-roulette", "pocket": 3, "wagers": [],
      "lucky": [{"bet": f"straight:{n}", "pays": 49} for n in range(6)]}, "lucky", "617c.3(d)"),
    ({"game": "lightning-roulette", "pocket": 3, "lucky": [{"bet": "straight:1", "pays": 49}],
      "wagers": [{"id": "w", "bet": "split:1-5", "stake": 1}]}, "wagers[0].bet", "617c.3(a)"),
    ({"game": "dice-ology", "paytable": 3, "rolls": [], "wagers": []}, "paytable", "20:18:33:14 Pay Tables"),
    ({"game": "dice-ology", "paytable": 1, "wagers": []}, "rolls", None),
    ({"game": "lightning-roulette", "lucky": [{"bet": "straight:1", "pays": 49}], "wagers": []}, "pocket", None),
    ({"game": "lightning-dice", "lucky": DICE_LUCKY, "wagers": []}, "dice", None),
    ({"game": "lightning-dice", "dice": [1, 2, 3], "flat": [True, True, True], "no_roll": True,
      "lucky": DICE_LUCKY, "wagers": []}, "no_roll", "625b.2(d)(5)"),
    ({"game": "sic-bo", "paytable": "A", "dice": [1, 2, 3],
      "wagers": [{"id": "w", "bet": "small", "stake": 1}, {"id": "w", "bet": "big", "stake": 1}]},
     "wagers[1].id", None),
    ({"game": "dice-ology", "paytable": 1, "rolls": [[1, 0]], "wagers": []}, "rolls[0][1]", "20:18:33:14"),
])
def test_bad_input_names_its_field_and_clause(line, field, clause):
    with pytest.raises(RulesError) as caught:
        settle_line(line)
    assert caught.value.field == field
    assert caught.value.clause == clause


def test_every_offered_bet_is_accepted_and_others_refused():
    for name in ("lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"):
        game = get_game(name)
        for bet in game.bet_names():
            game.check_bet(bet)
        with pytest.raises(RulesError) as caught:
            game.check_bet("no-such-bet")
        assert caught.value.field == "bet" and caught.value.clause
    # 625a.3(5): a combination is two *different* numbers; 617c.3(a) corners must touch.
    for name, bet in (("sic-bo", "combo:3-3"), ("lightning-roulette", "corner:1-2-3-4")):
        with pytest.raises(RulesError):
            get_game(name).check_bet(bet)


def test_bet_counts_match_the_layouts():
    assert len(get_game("sic-bo").bet_names()) == 6 + 6 + 1 + 14 + 15 + 2 + 6
    assert len(get_game("lightning-dice").bet_names()) == 4 + 16
    # 37 straights, 60 splits, 12 streets, 22 corners + the first four, 11 six lines, 12 outside
    assert len(get_game("lightning-roulette").bet_names()) == 37 + 60 + 12 + 23 + 11 + 3 + 3 + 6


def test_direct_api_misuse_is_a_rules_error_not_a_crash():
    from bench.rules.submission import Rules
    import random
    with pytest.raises(RulesError) as caught:
        get_game("sic-bo").settle(Round_("sic-bo", dice=(1, 2, 3)), [], Rules(game="sic-bo"))
    assert caught.value.field == "paytable"
    with pytest.raises(RulesError) as caught:
        get_game("sic-bo").settle(Round_("sic-bo", no_roll=True), [], Rules(game="sic-bo", paytable="A"))
    assert caught.value.field == "no_roll"
    with pytest.raises(RulesError) as caught:
        get_game("lightning-roulette").draw_lucky(Rules(game="lightning-roulette"), random.Random(1))
    assert caught.value.field == "lucky"
    with pytest.raises(RulesError) as caught:
        get_game("dice-ology").rtp("little-ones", Rules(game="dice-ology"))
    assert caught.value.field == "paytable"


def test_a_round_id_is_echoed_back():
    line = {"round": 41, "game": "sic-bo", "paytable": "B", "dice": [1, 2, 3],
            "wagers": [{"id": "w", "bet": "combo:1-3", "stake": 5}]}
    assert settle_line(line) == {"round": 41, "settlements": [{"id": "w", "returned": 35, "clause": "625a.6(a)"}]}
