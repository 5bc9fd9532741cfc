"""Staged outcomes are real drops: replaying the returned seed and load gives
the same result, and it shows what was asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from twin.tower import drop, load_design
from twin.tower.staging import StagingError, stage

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"


@pytest.fixture(scope="module")
def narrow():
    return load_design(TOWERS / "narrow-tray.yaml")


@pytest.fixture(scope="module")
def standard():
    return load_design(TOWERS / "standard.yaml")


def test_a_staged_die_cocked_against_the_wall_is_a_replayable_no_roll(narrow):
    # Die 2 against the wall comes about once in a thousand drops from seed 0; from 93100, at 93126.
    seed, loaded, result = stage(narrow, cocked_die=1, against="wall", start_seed=93100)
    die = result.dice[1]
    assert not die.flat and die.reason == "wall" and die.tilt_deg > narrow.physics.flat_tilt_deg
    assert result.settled and result.no_roll            # 625b.2(d)(5)
    assert drop(narrow, seed, loaded) == result


def test_staged_faces_come_from_a_flat_settled_drop(standard):
    seed, loaded, result = stage(standard, faces=(6, 2, 4))
    assert sorted(result.faces) == [2, 4, 6]
    assert result.settled and not result.no_roll
    assert drop(standard, seed, loaded) == result


def test_staging_with_the_load_the_dealer_used(standard):
    # 625b.2(d)(6): the dice go back in as the last round left them.
    seed, loaded, result = stage(standard, faces=(5, 5, 1), loaded=(3, 3, 3))
    assert sorted(result.faces) == [1, 5, 5] and loaded == (3, 3, 3)
    assert drop(standard, seed, loaded) == result


def test_an_outcome_not_found_within_the_budget_is_reported(standard):
    with pytest.raises(StagingError, match="no drop with faces .* in seeds 0 to 4"):
        stage(standard, faces=(6, 6, 6), max_drops=5)


def test_a_staging_request_out_of_range_is_refused(standard):
    with pytest.raises(ValueError, match="cocked_die"):
        stage(standard, cocked_die=3)
    with pytest.raises(ValueError, match="faces"):
        stage(standard, faces=(0, 1, 2))
    with pytest.raises(ValueError, match="give faces"):
        stage(standard)
