"""The statistics twin validate adds: Holm's correction keeps a fair design
passing, the empty-arc test has the false-alarm rate it claims and flags a
forbidden zone, the one-sided rate test flags a rate above its ceiling."""

import random

import numpy as np
import pytest

from twin.stats import holm_adjusted, largest_empty_arc, largest_gap_sf, rate_at_most
from twin.validate.tower_checks import tower_checks
from twin.validate.verdict import judge


def test_holm_adjusts_step_down_and_keeps_order():
    # Sorted p 0.01, 0.03, 0.04, 0.5 against m = 4: 0.04, 0.09, max(0.09, 0.08), 0.5.
    assert holm_adjusted([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm_adjusted([0.3, 0.2]) == pytest.approx([0.4, 0.4])     # never below a smaller p's


def test_largest_gap_probability_matches_simulation():
    rng = np.random.default_rng(3)
    n = 40
    points = np.sort(rng.random((40000, n)), axis=1)
    gaps = np.maximum(np.diff(points, axis=1).max(axis=1), points[:, 0] + 1 - points[:, -1])
    for gap in (0.08, 0.12, 0.2):
        assert largest_gap_sf(n, gap) == pytest.approx((gaps >= gap).mean(), abs=0.006)
    assert largest_gap_sf(3, 0.5) == pytest.approx(0.75)      # 3 (1/2)^2, by hand


def test_empty_arc_false_alarms_at_most_its_level_and_flags_a_forbidden_zone():
    rng = random.Random(4)
    alarms = sum(not largest_empty_arc("u", [rng.uniform(0, 360) for _ in range(200)]).passed
                 for _ in range(400))
    assert alarms <= 10                                          # 1% of 400 is 4
    zone = largest_empty_arc("tilted", [rng.uniform(0, 250) for _ in range(30)])
    assert not zone.passed and zone.statistic > zone.detectable


def test_rate_ceiling_flags_a_high_rate_and_has_the_power_it_claims():
    assert rate_at_most("ok", 10, 1000, 0.05).passed
    assert not rate_at_most("high", 90, 1000, 0.05).passed
    result = rate_at_most("x", 0, 1000, 0.05)
    rng = np.random.default_rng(5)
    flagged = np.mean([not rate_at_most("x", int(k), 1000, 0.05).passed
                       for k in rng.binomial(1000, result.detectable, 400)])
    assert 0.72 <= flagged <= 0.88


def _fair_drops(rng, n):
    return [{"seed": s, "faces": [rng.randint(1, 6) for _ in range(3)], "loaded": [rng.randint(1, 6) for _ in range(3)],
             "no_roll": False, "settled": True, "settle_time_s": 1.0, "not_flat": []} for s in range(n)]


def test_a_fair_tower_fails_the_family_rarely_with_holm_and_often_without():
    """Ten tests at 99%: uncorrected, a fair tower would fail about one
    campaign in ten; judged after Holm's correction, about one in a hundred."""
    rng = random.Random(6)
    corrected = uncorrected = 0
    for _ in range(150):
        checks = judge(tower_checks(_fair_drops(rng, 250), 0.99), 0.99)
        corrected += any(c.passed is False for c in checks)
        uncorrected += any(c.result is not None and not c.result.passed for c in checks)
    assert corrected <= 5
    assert uncorrected >= 6
