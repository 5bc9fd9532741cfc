"""The campaign statistics flag what a test lab would flag, and say honestly
how small a bias a campaign of a given size can see."""

import random

import pytest

from twin.stats import (detectable_face_bias, independence, serial_correlation,
                        uniformity, wilson_interval)


def die_counts(rng, n, weights=(1, 1, 1, 1, 1, 1)):
    counts = [0] * 6
    for face in rng.choices(range(6), weights=weights, k=n):
        counts[face] += 1
    return counts


def test_fair_die_passes_and_loaded_die_fails():
    rng = random.Random(1)
    assert uniformity("fair", die_counts(rng, 3000)).passed
    loaded = die_counts(rng, 3000, weights=(1.5, 1, 1, 1, 1, 1))   # one face at 23%, as a straight chute
    result = uniformity("loaded", loaded)
    assert not result.passed
    assert result.p_value < 1e-6


def test_detectable_bias_has_the_power_it_claims():
    """At the bias it reports, the test rejects about 80% of campaigns."""
    n = 1200
    delta = detectable_face_bias(n, 6, confidence=0.99)
    p0 = 1 / 6
    weights = [p0 + delta] + [p0 - delta / 5] * 5
    rng = random.Random(2)
    rejected = sum(not uniformity("x", die_counts(rng, n, weights), 0.99).passed for _ in range(300))
    assert 0.70 <= rejected / 300 <= 0.90
    assert detectable_face_bias(4 * n, 6) == pytest.approx(delta / 2, rel=1e-6)   # shrinks as 1/sqrt(n)


def test_dependence_of_resting_face_on_loaded_face_is_found():
    rng = random.Random(3)
    fair = [[0] * 6 for _ in range(6)]
    sticky = [[0] * 6 for _ in range(6)]
    for _ in range(2000):
        loaded = rng.randrange(6)
        fair[loaded][rng.randrange(6)] += 1
        # 23% keep the loaded face (ANCHORS: a straight chute), the rest spread evenly
        rest = loaded if rng.random() < 0.23 else rng.choice([f for f in range(6) if f != loaded])
        sticky[loaded][rest] += 1
    assert independence("fair", fair).passed
    assert not independence("sticky", sticky).passed


def test_serial_correlation_finds_memory_between_drops():
    rng = random.Random(4)
    iid = [rng.gauss(0, 1) for _ in range(2000)]
    assert serial_correlation("iid", iid).passed
    memory = [0.0]
    for _ in range(1999):
        memory.append(0.3 * memory[-1] + rng.gauss(0, 1))
    result = serial_correlation("ar1", memory)
    assert not result.passed
    assert result.statistic == pytest.approx(0.3, abs=0.06)


def test_wilson_interval_is_sound_at_zero_and_covers_the_rate():
    none_seen = wilson_interval(0, 100, confidence=0.95)
    assert none_seen.low == 0.0
    assert none_seen.high == pytest.approx(3.8415 / (100 + 3.8415), rel=1e-3)
    some = wilson_interval(12, 1000)
    assert some.low < 0.012 < some.high


def test_sparse_cells_are_pooled_so_totals_can_be_tested():
    # three-dice totals: 3 and 18 have probability 1/216 each
    from itertools import product
    probs = [0.0] * 16
    for dice in product(range(1, 7), repeat=3):
        probs[sum(dice) - 3] += 1 / 216
    rng = random.Random(5)
    counts = [0] * 16
    for _ in range(500):
        counts[sum(rng.randint(1, 6) for _ in range(3)) - 3] += 1
    from twin.stats import chi_square_goodness
    result = chi_square_goodness("totals", counts, probs)
    assert result.passed
    assert "degrees of freedom" in result.detail


def test_share_test_flags_a_tower_that_keeps_or_flips_the_loaded_face():
    from twin.stats import share_test
    rng = random.Random(6)
    fair = sum(rng.random() < 1 / 6 for _ in range(4500))
    keeps = sum(rng.random() < 0.20 for _ in range(4500))
    flips = sum(rng.random() < 0.10 for _ in range(4500))
    assert share_test("fair", fair, 4500, 1 / 6).passed
    assert not share_test("keeps", keeps, 4500, 1 / 6).passed
    assert not share_test("flips", flips, 4500, 1 / 6).passed
    small, large = share_test("n", 100, 600, 1 / 6), share_test("n", 400, 2400, 1 / 6)
    assert large.detectable == pytest.approx(small.detectable / 2, rel=1e-9)
