"""The fleet's p-values are honest in the far tail Benjamini-Hochberg reaches
(issue 44: a fair table flagged among ten). A fair Lucky draw in which the
rarest odds of one group came up 18 times in 88 (6.2 expected) is rare, but
a chi-square with cells of 5 expected puts it at p = 6.6e-7, below the exact
chance of that one cell alone: the fleet's test is exact, never below it."""

import random

from scipy.stats import binomtest

from bench.archive.rules_of import lucky_test
from bench.rules.submission import default_rules

ROUNDS, SEED = 300, 6      # the seed of the fair draw found by benchmarks/archive_bench.py null


def fair_draws(rules, seed: int, rounds: int) -> list[list[tuple[str, int]]]:
    """Each round's Lucky Numbers drawn from the submission's distribution, as the fair emulator draws them."""
    return [[(x.bet, x.pays) for x in rules.lucky.draw(random.Random(f"null:{seed}:lucky:{r}"))] for r in range(rounds)]


def test_a_fair_draw_is_never_rarer_than_the_exact_chance_of_its_most_extreme_cell():
    rules = default_rules("lightning-dice", None)
    draws = fair_draws(rules, SEED, ROUNDS)
    pooled = [pays for d in draws for bet, pays in d if bet in ("total:7", "total:14")]
    assert (len(pooled), pooled.count(99)) == (88, 18)               # the draw this test is about
    alone = binomtest(18, 88, 0.07).pvalue                           # 99 to 1 has chance 7.0% in that group
    found = lucky_test(rules, draws)
    assert found is not None
    p, detail, clause = found
    assert alone <= p < 0.01 and clause == "625b.2(g)(1)"
    assert "exact binomial" in detail and "total:7, total:14 at 99: 18 of 88" in detail

