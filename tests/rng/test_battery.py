"""The 810a.5 battery (bench.rng): a fair generator passes the family, each
defect of a generator or its scaling is found by the test meant for it, and
the exact distributions the tests use are right."""

from __future__ import annotations

import math
import random

import pytest

from bench.emulator.rng_misbehaviours import LuckyRng, _FollowingRng, _ModuloRng, _PeriodicRng, _StuckLowBitRng
from bench.rng import battery, patterns, recurrence
from bench.rng.outcome import PROFILES, family

PA = PROFILES["pennsylvania"]
N = 20_000


def judged(rng: LuckyRng, size: int = 16):
    run = battery.raw_words(rng.raw(N), PA.alpha)
    run.extend(battery.integers(rng.scaled(N, size), size, PA.alpha, "scaled"))
    return family(run.outcomes, PA, run.too_short)


def failed(verdict) -> set[tuple[str, str]]:
    return {(o.source, o.test) for o, _ in verdict.failed}


@pytest.mark.parametrize("seed", [1, 2])
def test_a_fair_generator_runs_every_named_test_and_passes_the_family(seed):
    verdict = judged(LuckyRng(seed))
    assert verdict.passed and not verdict.too_short
    clauses = {o.clause for o in verdict.outcomes}
    assert {f"810a.5(c)({i})" for i in range(1, 16)} <= clauses
    assert all(0 <= o.p_value <= 1 and o.detectable.value > 0 for o in verdict.outcomes)


def test_modulo_bias_is_found_in_the_scaled_values_and_not_in_the_raw():
    found = failed(judged(_ModuloRng(3)))
    assert ("scaled", "chi-square") in found
    assert not {s for s, _ in found if s.startswith("raw")}


def test_a_stuck_low_bit_is_found_in_the_raw_bits_and_not_in_the_scaled_values():
    found = failed(judged(_StuckLowBitRng(3)))
    assert ("raw:bits", "bit positions") in found and ("raw:low-nibble", "chi-square") in found
    assert not {s for s, _ in found if s == "scaled"}


def test_a_short_period_is_found_as_a_recurrent_pattern():
    found = failed(judged(_PeriodicRng(3)))
    assert ("raw:high-nibble", "recurrence") in found and ("scaled", "recurrence") in found


def test_a_value_that_follows_the_previous_one_is_found_by_adjacency_and_serial_tests():
    found = failed(judged(_FollowingRng(3)))
    assert {("scaled", "adjacency criterion"), ("scaled", "overlaps")} <= found
    assert ("scaled", "chi-square") not in found           # each value still as often as it should be


def test_the_exact_distributions_sum_to_one():
    assert sum(math.perm(16, r) * patterns.stirling2(5, r) for r in range(1, 6)) == 16 ** 5
    assert patterns.stirling2(5, 2) == 15 and patterns.stirling2(4, 4) == 1
    assert abs(sum(patterns.coupon_probabilities(16, 16 * 12)) - 1) < 1e-12


def test_the_longest_repeat_is_found_within_and_across_sequences():
    values = [random.Random(4).randrange(16) for _ in range(500)]
    assert recurrence.longest_repeat(values + values[:40], 16)[0] >= 40
    assert recurrence.longest_common([9] + values[100:160], values, 16)[:2] == (60, 1)
