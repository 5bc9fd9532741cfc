"""The scenarios of features/lightning_roulette_wheel.feature, run against the wheel twin."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from twin.errors import DesignError
from twin.wheel import load_design, spin
from twin.wheel.design import POCKET_COUNT
from twin.wheel.spin import draw_launch, rotor_at
from twin.wheel.track import TrackModel
from twin.wheel.world import world_for

WHEELS = Path(__file__).resolve().parents[2] / "fixtures" / "wheels"

scenarios("lightning_roulette_wheel.feature")


@pytest.fixture
def wheel() -> dict:
    """What a scenario has built up: the design, its path, what happened."""
    return {}


@given(parsers.parse('the wheel design "{name}"'))
def given_design(wheel, name):
    wheel["design"] = load_design(WHEELS / name)


@given(parsers.parse('the wheel design "{name}" with a double zero pocket added'))
def given_double_zero(wheel, name, tmp_path):
    text = (WHEELS / name).read_text(encoding="utf-8")
    assert "pockets: [0, 32," in text
    path = tmp_path / "double_zero.yaml"
    # an American wheel: "00" sits opposite the zero
    path.write_text(text.replace("pockets: [0, 32,", 'pockets: [0, "00", 32,'), encoding="utf-8")
    wheel["path"] = path


@when("the design is loaded")
def load(wheel):
    try:
        wheel["design"] = load_design(wheel["path"])
    except DesignError as err:
        wheel["error"] = err


@then(parsers.parse('it is refused naming the field "{field}"'))
def refused(wheel, field):
    assert "design" not in wheel, "the design was accepted"
    assert wheel["error"].field == field
    assert str(wheel["path"]) in str(wheel["error"])


@then("the wheel has 37 pockets holding each number from 0 to 36 once")
def single_zero_pockets(wheel):
    pockets = wheel["design"].pockets
    assert len(pockets) == 37
    assert sorted(pockets) == list(range(37))


@then("exactly one pocket is a zero")
def one_zero(wheel):
    assert wheel["design"].pockets.count(0) == 1


@when(parsers.parse("the ball leaves the track as in spin {seed:d} and the rotor is turned "
                    "a third of a pocket further for each of {drops:d} drops"))
def drops_at_rotor_phases(wheel, seed, drops):
    """Real physics every time: the track ODE gives where and how fast the ball
    leaves, then PyBullet runs the full descent with the rotor at a phase a third
    of a pocket further each drop. The ball bounces on over the frets, so a
    pocket's turn does not simply move the resting pocket by one: three phases
    a pocket give every pocket its chance."""
    design = wheel["design"]
    launch = draw_launch(design, seed)
    exit_, _ = TrackModel.for_spin(design, seed).ride(launch.ball_angle_rad, launch.ball_speed_m_s)
    rotor_angle, rotor_speed = rotor_at(design, launch, exit_.time_s)
    numbers = []
    for k in range(drops):
        descent = world_for(design).descend(exit_.angle_rad, exit_.speed_m_s,
                                            rotor_angle + 2 * math.pi * k / (3 * POCKET_COUNT), rotor_speed)
        numbers.append(design.pockets[descent.pocket_index] if descent.settled else None)
    wheel["numbers"] = numbers


@then(parsers.parse("the ball comes to rest in each of the {count:d} pockets"))
def every_pocket(wheel, count):
    numbers = wheel["numbers"]
    assert None not in numbers, f"some drops did not settle: {numbers}"
    assert sorted(set(numbers)) == list(range(count)), f"pockets reached: {sorted(set(numbers))}"


@when(parsers.parse("the wheel is spun with seeds {first:d} to {last:d}"))
def spun(wheel, first, last):
    wheel["seeds"] = range(first, last + 1)
    wheel["results"] = [spin(wheel["design"], seed) for seed in wheel["seeds"]]


@then("every spin is valid and its number is between 0 and 36")
def valid_spins(wheel):
    for result in wheel["results"]:
        assert result.valid, result.invalid_reason
        assert 0 <= result.number <= 36


@then("spinning again with the same seeds gives the same numbers")
def same_again(wheel):
    again = [spin(wheel["design"], seed) for seed in wheel["seeds"]]
    assert again == wheel["results"]
