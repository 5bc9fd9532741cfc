"""Dice at rest touch what holds them without sinking into it (issue 39.1).

The depth is measured from the design's geometry and the dice's poses
(``twin.tower.overlap``), not from the engine: first that the measure sees
an overlap it is shown, then that the twin's rests have none beyond 0.1 mm
on the tray where dice crowd and wedge.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from twin.tower import drop, load_design
from twin.tower.overlap import deepest, deepest_of_result

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"
LEVEL = (0.0, 0.0, 0.0, 1.0)


@pytest.fixture(scope="module")
def narrow():
    return load_design(TOWERS / "narrow-tray.yaml")


def test_the_measure_sees_a_die_sunk_in_the_felt_a_wall_or_another_die(narrow):
    half = narrow.dice.edge_m / 2
    wall_y = narrow.tray.depth_m / 2
    poses = [((-0.030, 0.0, half - 0.0005), LEVEL),                   # 0.5 mm into the felt
             ((0.0, wall_y - half + 0.0003, half), LEVEL),            # 0.3 mm into the front wall
             ((0.0, wall_y - half + 0.0003 - 2 * half + 0.0002, half), LEVEL)]   # 0.2 mm into die 2
    found = deepest(narrow, poses)
    assert (found[0].other, round(found[0].depth_m * 1e3, 2)) == ("floor", 0.5)
    assert (found[1].other, round(found[1].depth_m * 1e3, 2)) == ("wall", 0.3)
    assert (found[2].other, round(found[2].depth_m * 1e3, 2)) == ("die 2", 0.2)


def test_a_die_lying_on_the_felt_overlaps_nothing(narrow):
    found = deepest(narrow, [((-0.030, 0.0, narrow.dice.edge_m / 2), LEVEL), ((0.0, 0.0, 0.1), LEVEL),
                             ((0.030, 0.0, 0.1), LEVEL)])
    assert found[0].depth_m < 1e-9


def test_narrow_tray_rests_sit_within_a_tenth_of_a_millimetre(narrow):
    # seeds 0-39 hold six no rolls, dice wedged between the glass walls among them;
    # before issue 39 (contact ERP 0.1 to the end) seed 9's die 3 rested 0.30 mm inside a glass
    # wall and seed 26's dice 2 and 3 0.26 and 0.24 mm: this test failed there
    worst = max((o.depth_m, r.seed, o.die, o.other) for r in (drop(narrow, s) for s in range(40))
                for o in deepest_of_result(narrow, r))
    assert worst[0] < 1e-4, worst
