"""Properties of settlement and of the exact RTP, checked against definitions
written here independently of the rules modules (from the regulation texts)."""

import itertools
from collections import Counter
from fractions import Fraction
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.rules import Lucky, Round, Wager, get_game
from bench.rules.submission import default_rules

FAST = settings(max_examples=150, deadline=None)
FACE = st.integers(1, 6)
DICE = st.tuples(FACE, FACE, FACE)
STAKE = st.integers(1, 10**9)

# ---- independent definitions of a win -----------------------------------


def sic_bo_wins(bet, dice):
    """58 Pa. Code 625a.3, read directly (default readings)."""
    counts = Counter(dice)
    total = sum(dice)
    kind, _, arg = bet.partition(":")
    triple = len(counts) == 1
    if kind == "triple":
        return counts[int(arg)] == 3
    if kind == "double":
        return counts[int(arg)] >= 2
    if kind == "any-triple":
        return triple
    if kind == "total":
        return total == int(arg)
    if kind == "combo":
        a, b = map(int, arg.split("-"))
        return counts[a] > 0 and counts[b] > 0
    if kind == "small":
        return total in range(4, 11) and not triple
    if kind == "big":
        return total in range(11, 18) and not triple
    return counts[int(arg)] > 0   # single


def lightning_dice_wins(bet, dice):
    """625b.2(e) with the default readings: low/high are small/big."""
    if bet in ("low", "high"):
        return sic_bo_wins({"low": "small", "high": "big"}[bet], dice)
    if bet == "any-double":
        return max(Counter(dice).values()) >= 2
    if bet == "any-triple":
        return len(set(dice)) == 1
    return sum(dice) == int(bet.partition(":")[2])


def is_red(n):
    # The standard layout rule: from 1-10 and 19-28 the odd numbers are red,
    # from 11-18 and 29-36 the even ones.
    return n != 0 and ((n % 2 == 1) == (n in range(1, 11) or n in range(19, 29)))


def roulette_wins(bet, pocket):
    kind, _, arg = bet.partition(":")
    if kind in ("straight", "split", "corner"):
        return pocket in {int(x) for x in arg.split("-")}
    if kind == "street":
        return pocket in range(int(arg), int(arg) + 3)
    if kind == "six-line":
        return pocket in range(int(arg), int(arg) + 6)
    if pocket == 0:
        return False
    if kind == "dozen":
        return (pocket - 1) // 12 + 1 == int(arg)
    if kind == "column":
        return (pocket - int(arg)) % 3 == 0
    return {"red": is_red(pocket), "black": not is_red(pocket), "odd": pocket % 2 == 1,
            "even": pocket % 2 == 0, "1-18": pocket <= 18, "19-36": pocket >= 19}[bet]


NEEDED = {"little-ones": {2, 3, 4, 5, 6}, "big-ones": {8, 9, 10, 11, 12},
          "boom-or-bust": {2, 3, 4, 5, 6, 8, 9, 10, 11, 12}}

# ---- settlement never pays a loss; returns are integers -------------------

SIC_BO_RULES = {p: default_rules("sic-bo", p) for p in "AB"}
LD_RULES = default_rules("lightning-dice")
LR_RULES = default_rules("lightning-roulette")
DICE_LUCKY = (Lucky("total:10", 49), Lucky("any-double", 3))


def _check(settlements, wagers, wins):
    for settlement, wager, won in zip(settlements, wagers, wins):
        assert isinstance(settlement.returned, int)
        if won:
            assert settlement.returned >= 2 * wager.stake      # at least 1 to 1
            assert settlement.returned % wager.stake == 0      # stake * (N + 1)
        else:
            assert settlement.returned == 0


def wagers_from(game, picks):
    """Wagers on the game's bets picked by index, with their stakes."""
    bets = game.bet_names()
    return [Wager(f"w{i}", bets[b], s) for i, (b, s) in enumerate(picks)]

@FAST
@given(dice=DICE, paytable=st.sampled_from("AB"), picks=st.lists(st.tuples(st.integers(0, 49), STAKE), min_size=1, max_size=8))
def test_sic_bo_pays_exactly_the_winning_bets(dice, paytable, picks):
    game = get_game("sic-bo")
    wagers = wagers_from(game, picks)
    settlements = game.settle(Round("sic-bo", dice=dice), wagers, SIC_BO_RULES[paytable])
    _check(settlements, wagers, [sic_bo_wins(w.bet, dice) for w in wagers])


@FAST
@given(dice=DICE, picks=st.lists(st.tuples(st.integers(0, 19), STAKE), min_size=1, max_size=8))
def test_lightning_dice_pays_exactly_the_winning_bets(dice, picks):
    game = get_game("lightning-dice")
    wagers = wagers_from(game, picks)
    settlements = game.settle(Round("lightning-dice", dice=dice, lucky=DICE_LUCKY), wagers, LD_RULES)
    _check(settlements, wagers, [lightning_dice_wins(w.bet, dice) for w in wagers])


@FAST
@given(dice=DICE, picks=st.lists(st.tuples(st.integers(0, 19), STAKE), min_size=1, max_size=8))
def test_a_no_roll_returns_exactly_the_stakes(dice, picks):
    game = get_game("lightning-dice")
    wagers = wagers_from(game, picks)
    for round_ in (Round("lightning-dice", dice=dice, no_roll=True, lucky=DICE_LUCKY),
                   Round("lightning-dice", no_roll=True, lucky=DICE_LUCKY)):
        settlements = game.settle(round_, wagers, LD_RULES)
        assert [s.returned for s in settlements] == [w.stake for w in wagers]


@FAST
@given(pocket=st.integers(0, 36), lucky_numbers=st.sets(st.integers(0, 36), min_size=1, max_size=5),
       pays=st.sampled_from([49, 99, 149, 199, 249, 299, 349, 399, 499]),
       picks=st.lists(st.tuples(st.integers(0, 154), STAKE), min_size=1, max_size=8))
def test_lightning_roulette_pays_exactly_the_winning_bets(pocket, lucky_numbers, pays, picks):
    game = get_game("lightning-roulette")
    wagers = wagers_from(game, picks)
    lucky = tuple(Lucky(f"straight:{n}", pays) for n in sorted(lucky_numbers))
    settlements = game.settle(Round("lightning-roulette", pocket=pocket, lucky=lucky), wagers, LR_RULES)
    _check(settlements, wagers, [roulette_wins(w.bet, pocket) for w in wagers])
    for settlement, wager in zip(settlements, wagers):
        if wager.bet == f"straight:{pocket}":
            assert settlement.returned == wager.stake * ((pays if pocket in lucky_numbers else 29) + 1)


@FAST
@given(rolls=st.lists(st.tuples(FACE, FACE), max_size=40), bet=st.sampled_from(sorted(NEEDED)),
       paytable=st.sampled_from("12"), stake=STAKE)
def test_dice_ology_wins_only_when_every_number_comes_before_a_seven(rolls, bet, paytable, stake):
    totals = [a + b for a, b in rolls]
    first_seven = totals.index(7) if 7 in totals else len(totals)
    firsts = [totals.index(n) if n in totals else len(totals) for n in NEEDED[bet]]
    completed = max(firsts) < first_seven
    [settlement] = get_game("dice-ology").settle(Round("dice-ology", rolls=tuple(rolls)),
                                                 [Wager("w", bet, stake)], default_rules("dice-ology", paytable))
    assert isinstance(settlement.returned, int)
    assert (settlement.returned > 0) == completed
    assert settlement.open == (not completed and first_seven == len(totals))


# ---- the exact RTP is the average return over every outcome --------------

ALL_DICE = list(itertools.product(range(1, 7), repeat=3))


def average_return(game, bet, rules, outcomes, make_round):
    """Mean of settle()'s returns per unit staked over equally likely outcomes."""
    stake = 1
    total = sum(game.settle(make_round(o), [Wager("w", bet, stake)], rules)[0].returned for o in outcomes)
    return Fraction(total, len(outcomes) * stake)


def lucky_chance(lucky, bet):
    """P(bet is Lucky), k positions drawn uniformly from n: sum_k P(k) * C(n-1, k-1) / C(n, k)."""
    n = len(lucky.positions)
    if bet not in lucky.positions:
        return Fraction(0)
    return sum((p * Fraction(comb(n - 1, k - 1), comb(n, k)) for k, p in lucky.count), Fraction(0))


def test_sic_bo_rtp_is_the_average_over_216_rolls():
    game = get_game("sic-bo")
    for _paytable, rules in SIC_BO_RULES.items():
        for bet in game.bet_names():
            expected = average_return(game, bet, rules, ALL_DICE, lambda d: Round("sic-bo", dice=d))
            assert game.rtp(bet, rules) == expected, bet


def _lucky_average(game, bet, rules, outcomes, make_round, fillers, base_round_lucky):
    """RTP by settle(): without the bet Lucky, and with it Lucky at each of its odds."""
    q = lucky_chance(rules.lucky, bet)
    plain = average_return(game, bet, rules, outcomes, lambda o: make_round(o, base_round_lucky(bet)))
    if q == 0:
        return plain
    enhanced = Fraction(0)
    for pays, p in rules.lucky.pays_distribution(bet):
        lucky = (Lucky(bet, pays),) + tuple(f for f in fillers if f.bet != bet)[:1]
        enhanced += p * average_return(game, bet, rules, outcomes, lambda o, lucky=lucky: make_round(o, lucky))
    return (1 - q) * plain + q * enhanced


def test_lightning_dice_rtp_is_the_average_over_216_rolls_and_the_lucky_draw():
    game = get_game("lightning-dice")
    fillers = (Lucky("any-double", 2), Lucky("low", 2), Lucky("high", 2))

    def not_lucky(bet):
        return tuple(f for f in fillers if f.bet != bet)[:2]

    for bet in game.bet_names(LD_RULES):
        expected = _lucky_average(game, bet, LD_RULES, ALL_DICE,
                                  lambda d, lucky: Round("lightning-dice", dice=d, lucky=lucky),
                                  fillers, not_lucky)
        assert game.rtp(bet, LD_RULES) == expected, bet


def test_lightning_roulette_rtp_is_the_average_over_37_pockets_and_the_lucky_draw():
    game = get_game("lightning-roulette")
    fillers = (Lucky("straight:1", 49), Lucky("straight:2", 49))

    def not_lucky(bet):
        return tuple(f for f in fillers if f.bet != bet)[:1]

    for bet in game.bet_names():
        if not bet.startswith("straight:") and bet not in ("split:0-1", "corner:0-1-2-3", "red", "dozen:2"):
            continue  # every standard bet's average is checked through these; straights all
        expected = _lucky_average(game, bet, LR_RULES, range(37),
                                  lambda p, lucky: Round("lightning-roulette", pocket=p, lucky=lucky),
                                  fillers, not_lucky)
        assert game.rtp(bet, LR_RULES) == expected, bet


WAYS = {t: 6 - abs(t - 7) for t in range(2, 13)}


def all_before_seven(numbers):
    """Inclusion-exclusion: P(every total in `numbers` before a 7) =
    sum over subsets T of (-1)^|T| * w7 / (w7 + w_T) (each total a Poisson clock)."""
    numbers = sorted(numbers)
    return sum((Fraction((-1) ** r * WAYS[7], WAYS[7] + sum(WAYS[t] for t in subset))
                for r in range(len(numbers) + 1) for subset in itertools.combinations(numbers, r)),
               Fraction(0))


def test_dice_ology_rtp_is_the_average_over_the_36_first_rolls():
    game = get_game("dice-ology")
    first_rolls = list(itertools.product(range(1, 7), repeat=2))
    for paytable in "12":
        rules = default_rules("dice-ology", paytable)
        for bet in game.bet_names():
            odds = {"1": {"boom-or-bust": 175}, "2": {"boom-or-bust": 150}}[paytable].get(
                bet, 34 if paytable == "1" else 30)
            # After the first roll: lost (a seven), or still open with that total marked.
            # A roll of a total the bet does not need leaves the bet where it started,
            # so RTP = (1/36) * (sum over rolls of value after it), solved for RTP.
            resolved, unchanged = Fraction(0), 0
            for roll in first_rolls:
                [s] = game.settle(Round("dice-ology", rolls=(roll,)), [Wager("w", bet, 1)], rules)
                if not s.open:
                    assert s.returned == 0      # one roll can only lose (a seven)
                elif sum(roll) in NEEDED[bet]:
                    resolved += all_before_seven(NEEDED[bet] - {sum(roll)}) * (odds + 1)
                else:
                    unchanged += 1
            assert game.rtp(bet, rules) == resolved / (36 - unchanged), bet
            assert game.win_probability(bet, rules) == all_before_seven(NEEDED[bet])
