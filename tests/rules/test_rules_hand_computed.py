"""The exact figures of `bench rtp` against figures a mathematician works out
by hand. Each expected value is derived in the comment above it, from the
regulation's odds and by counting outcomes, not copied from the program."""

from fractions import Fraction as F

import pytest

from bench.rules import get_game
from bench.rules.submission import Rules, default_rules, load_submission

SUBMISSIONS = "fixtures/submissions"


def rtp(game, bet, rules):
    return get_game(game).rtp(bet, rules)


def win(game, bet, rules):
    return get_game(game).win_probability(bet, rules)


@pytest.mark.parametrize("paytable", ["A", "B"])
def test_sic_bo_small_and_big_have_a_house_edge_of_1_in_36(paytable):
    # Totals 4-10 can be rolled 3+6+10+15+21+25+27 = 107 ways of 216; the triples
    # 2-2-2 and 3-3-3 lose (625a.3(6)), leaving 105. At 1 to 1: RTP = 2*105/216 = 35/36,
    # edge 1/36 = 2.78%. Big is the mirror image.
    rules = default_rules("sic-bo", paytable)
    for bet in ("small", "big"):
        assert win("sic-bo", bet, rules) == F(105, 216)
        assert 1 - rtp("sic-bo", bet, rules) == F(1, 36)


@pytest.mark.parametrize("paytable, triple_odds, expected", [
    # One of a kind on N: exactly one die shows N in 3*5*5 = 75 ways, two in 3*5 = 15,
    # three in 1 (625a.6(b)). A: (75*2 + 15*3 + 1*4)/216 = 199/216;
    # B pays 12 to 1 on three: (150 + 45 + 13)/216 = 208/216 = 26/27.
    ("A", 3, F(199, 216)),
    ("B", 12, F(26, 27)),
])
def test_sic_bo_one_of_a_kind_pays_by_count(paytable, triple_odds, expected):
    rules = default_rules("sic-bo", paytable)
    assert win("sic-bo", "single:4", rules) == F(91, 216)   # 216 - 5**3 rolls show a 4
    assert rtp("sic-bo", "single:4", rules) == expected


def test_sic_bo_two_of_a_kind_on_a_triple_follows_the_reading():
    # Two of a kind on 5: exactly two fives in 3*5 = 15 rolls, plus 5-5-5.
    # Default reading (a triple shows the number on two of the three dice): 16/216,
    # at 8 to 1 (paytable A) RTP = 9*16/216 = 2/3. Other reading: 15/216, RTP 135/216 = 5/8.
    wins = default_rules("sic-bo", "A")
    loses = Rules(game="sic-bo", paytable="A", options={"double_on_triple": "loses"})
    assert win("sic-bo", "double:5", wins) == F(16, 216)
    assert rtp("sic-bo", "double:5", wins) == F(2, 3)
    assert win("sic-bo", "double:5", loses) == F(15, 216)
    assert rtp("sic-bo", "double:5", loses) == F(5, 8)


def test_sic_bo_combination_and_totals():
    # Rolls showing both 1 and 2: 216 - 2*5**3 + 4**3 = 30 (inclusion-exclusion).
    # Paytable A 5 to 1: 6*30/216 = 5/6; paytable B 6 to 1: 7*30/216 = 35/36.
    assert win("sic-bo", "combo:1-2", default_rules("sic-bo", "A")) == F(30, 216)
    assert rtp("sic-bo", "combo:1-2", default_rules("sic-bo", "A")) == F(5, 6)
    assert rtp("sic-bo", "combo:1-2", default_rules("sic-bo", "B")) == F(35, 36)
    # Total 4 is 1-1-2 in 3 orders: A pays 50 to 1, 51*3/216 = 17/24.
    assert rtp("sic-bo", "total:4", default_rules("sic-bo", "A")) == F(17, 24)


def test_little_ones_and_big_ones_win_chance():
    # All of 2,3,4,5,6 (1,2,3,4,5 ways of 36) before a 7 (6 ways): by inclusion-
    # exclusion over which of them come after the first 7, the published
    # 20049/760760. Big Ones (8-12: 5,4,3,2,1 ways) has the same ways, so the same chance.
    for paytable, odds in (("1", 34), ("2", 30)):
        rules = default_rules("dice-ology", paytable)
        for bet in ("little-ones", "big-ones"):
            assert win("dice-ology", bet, rules) == F(20049, 760760)
            assert rtp("dice-ology", bet, rules) == F(20049, 760760) * (odds + 1)


def test_lightning_dice_low_high_and_any_double_readings():
    base = Rules(game="lightning-dice")  # no Lucky distribution: the base paytable (f) alone
    # small-big reading: the Sic Bo small bet, 105/216 at 1 to 1 -> 35/36.
    assert rtp("lightning-dice", "low", base) == F(35, 36)
    # paytable-label reading "Low (3-9)": 1+3+6+10+15+21+25 = 81 rolls, triples included,
    # at 1 to 1 -> 162/216 = 3/4.
    label = Rules(game="lightning-dice", options={"low_high": "paytable-label"})
    assert win("lightning-dice", "low", label) == F(81, 216)
    assert rtp("lightning-dice", "high", label) == F(3, 4)
    # Any double: 6*15 = 90 rolls with exactly two alike, plus 6 triples by default:
    # 96/216 at 1 to 1 -> 8/9; exactly two -> 180/216 = 5/6.
    assert rtp("lightning-dice", "any-double", base) == F(8, 9)
    exactly = Rules(game="lightning-dice", options={"any_double_on_triple": "loses"})
    assert rtp("lightning-dice", "any-double", exactly) == F(5, 6)


def test_lightning_dice_total_3_with_the_shipped_lucky_distribution():
    # Lucky on total:3 with probability E[count]/16 = (2*.4 + 3*.4 + 4*.2)/16 = 7/40;
    # E[enhanced odds] = 249*.469 + 499*.241 + 749*.19 + 999*.1 = 479.25.
    # RTP = 1/216 * (1 + 33/40*149 + 7/40*479.25) = 207.79375/216 = 33247/34560 = 96.20%.
    rules = load_submission(f"{SUBMISSIONS}/lightning-dice.yaml")
    assert rtp("lightning-dice", "total:3", rules) == F(33247, 34560)


def test_lightning_roulette_straight_up_near_the_published_97_10_percent():
    # q = E[count]/37 = 2.7/37; E[odds | Lucky] = 110.25 (weights of the submission);
    # RTP = (30 + q*(110.25 - 29)) / 37 = 1329.375/1369 = 10635/10952 = 97.106%.
    rules = load_submission(f"{SUBMISSIONS}/lightning-roulette.yaml")
    assert rtp("lightning-roulette", "straight:17", rules) == F(10635, 10952)
    # Every other bet: covers n numbers at 36/n - 1 to 1 -> 36/37 (house edge 2.70%).
    for bet in ("split:0-1", "street:4", "corner:0-1-2-3", "six-line:31", "dozen:3", "column:1", "red", "19-36"):
        assert rtp("lightning-roulette", bet, rules) == F(36, 37)
