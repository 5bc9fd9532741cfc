"""Edge verdicts no lucky class can carry (issue 39, part 5), on wheels whose edge is
known (``twin.edge.planted``: a player's spins drawn directly, no physics).

A wheel that tells nothing is shown safe at every rung and never bet on a
class of under 1% of the spins; a wheel with an edge planted in a third of its
spins is found by a skipping player, and two campaigns of it agree within
their intervals; the comparison tells it from a wheel that tells nothing, and
not from itself."""

import numpy as np

from twin.edge.bets import MIN_CLASS_SHARE, Spins, choose
from twin.edge.payouts import straight_payouts
from twin.edge.planted import planted_ladder
from twin.edge.verdict import Verdict, compare, difference_p, replication_interval, verdict
from twin.edge.wheel import ladder_edges
from twin.edge.estimate import latest_safe_cutoff

LIGHTNING = straight_payouts()["lightning"]
CUTOFFS = [0.0, 1.0, 2.0, 3.0]
INFORMED = [0.0, 1.0, 1.0, 1.0]
EDGE = [0.0, 0.0, 0.03, 0.08]          # planted in rotor bin 2 (a third of the spins) at three times this
NOTHING = [0.0, 0.0, 0.0, 0.0]


def call_of(ladder) -> tuple[float | None, list]:
    rows = ladder_edges(ladder, LIGHTNING, 0.99)
    return latest_safe_cutoff([r.cutoff_s for r in rows], [r.edge for r in rows]), rows


def test_a_wheel_that_tells_nothing_is_safe_throughout_and_no_tiny_class_is_bet():
    for seed in range(3):
        call, rows = call_of(planted_ladder(seed, 2000, CUTOFFS, NOTHING, INFORMED))
        assert call == CUTOFFS[-1], [(r.cutoff_s, r.strategy, r.bet_share, r.edge.high) for r in rows]
        assert all(r.bet_share >= MIN_CLASS_SHARE for r in rows)


def test_a_class_lucky_on_the_fit_spins_alone_is_not_bet_when_it_is_tiny():
    """0.7% of the fit spins, never predicted, all rest in pocket 0 (the
    prediction of an uninformed spin): a class that the skip test passes on the
    spins that chose it (7 of 7 is clearly positive) but that holds too few
    spins to be measured on the held-out ones. It used to carry the call."""
    rng = np.random.default_rng(4)
    n = 1000
    informed = np.ones(n, dtype=bool)
    informed[:7] = False
    offset = rng.integers(0, 37, n)
    offset[:7] = 0
    fit = Spins(offset, informed, rng.integers(0, 3, n), rng.integers(0, 3, n))
    strategy, _, _, kept = choose(fit, 1 + LIGHTNING.odds)
    assert not (strategy.skip and kept == (0,)), (strategy, kept)


def test_a_planted_edge_is_found_by_skipping_to_the_class_that_holds_it():
    call, rows = call_of(planted_ladder(1, 2000, CUTOFFS, EDGE, INFORMED, in_rotor_bin=2))
    last = rows[-1]
    assert call is not None and call < CUTOFFS[-1]
    assert "skipping" in last.strategy and 0.25 < last.bet_share < 0.45, last
    assert last.edge.low > 0          # 24% of a third of the spins rest where predicted: clearly beaten


def test_two_campaigns_of_one_wheel_agree_and_are_told_from_a_wheel_that_tells_nothing():
    got = {}
    for name, seed, planted in (("one", 11, EDGE), ("two", 12, EDGE), ("nothing", 0, NOTHING)):
        ladder = planted_ladder(seed, 2000, CUTOFFS, planted, INFORMED, in_rotor_bin=2)
        got[name] = verdict(ladder, LIGHTNING, 0.99, call_of(ladder)[0], resamples=12)
    one, two, nothing = got["one"], got["two"], got["nothing"]
    for a, b in ((one, two), (two, one)):
        low, high = a.interval_s
        assert (low is None or low <= (b.latest_safe_call_s or -1)) and b.latest_safe_call_s <= high, (a, b)
    assert compare("one", one, "two", two).startswith("not distinguishable at 2000 spins")
    assert nothing.latest_safe_call_s == CUTOFFS[-1]
    assert compare("nothing", nothing, "one", one).startswith("one must close betting earlier than nothing")


def test_the_interval_is_the_call_moved_by_the_splits_differences_over_root_two():
    cutoffs = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
    # 95% of the differences within 2 rungs: 2 / sqrt(2) = 1.41, rounded out to 2 rungs either way
    differences = (0,) * 10 + (1, -1) * 5 + (2, -2) * 2
    assert replication_interval(1.0, differences, cutoffs) == (0.0, 2.0)
    assert replication_interval(None, differences, cutoffs) == (None, 0.5)     # "none" is the rung before 0
    assert replication_interval(3.0, (0,) * 20, cutoffs) == (3.0, 3.0)
    assert replication_interval(1.0, (), cutoffs) == (None, None)


def test_the_comparisons_error_rate_is_stated_and_its_p_read_from_both_campaigns_errors():
    cutoffs = (0.0, 0.5, 1.0, 1.5, 2.0)
    steady = (0,) * 20
    a = Verdict("lightning", 0.5, (0.5, 0.5), 2000, 40, 0.95, cutoffs, steady)
    b = Verdict("lightning", 1.5, (1.5, 1.5), 2000, 40, 0.95, cutoffs, steady)
    assert difference_p(a, b) == 0.0
    said = compare("a", a, "b", b)
    assert said.startswith("a must close betting earlier than b") and "5% of the time" in said
    shaky = Verdict("lightning", 1.5, (None, 2.0), 2000, 40, 0.95, cutoffs, (4, -4) * 10)
    assert difference_p(a, shaky) == 1.0        # half of 4 rungs either way covers the gap of 2
    assert compare("a", a, "shaky", shaky).startswith("not distinguishable")
    assert compare("a", a, "old", Verdict("lightning", 1.5, (1.5, 1.5), 2000, 0, 0.95)).startswith("not compared")
