"""A wheel design is read field by field; a bad one is refused naming the field."""

from pathlib import Path

import pytest

from twin.errors import DesignError
from twin.wheel import STANDARD_POCKETS, load_design

WHEELS = Path(__file__).resolve().parents[2] / "fixtures" / "wheels"


def test_standard_wheel_is_single_zero_in_the_standard_order():
    design = load_design(WHEELS / "standard.yaml")
    # 617c.3(a): Lightning Roulette is played on a single-zero wheel
    assert sorted(design.pockets) == list(range(37))
    assert design.pockets == STANDARD_POCKETS
    assert design.pockets[:5] == (0, 32, 15, 19, 4)
    assert len(design.bowl.deflectors) == 8
    assert design.findings == ()


def test_tilted_wheel_builds_but_is_flagged():
    design = load_design(WHEELS / "tilted.yaml")
    assert design.tilt.angle_deg == pytest.approx(0.5)
    assert len(design.findings) == 1
    assert "tilt.angle_deg" in design.findings[0]
    assert "level the wheel" in design.findings[0]


@pytest.mark.parametrize("name, field, words", [
    ("repeated_pocket.yaml", "pockets", "repeated [32]; missing [15]"),
    ("missing_ball_radius.yaml", "ball.radius_m", "missing"),
    ("coarse_time_step.yaml", "simulation.time_step_s", "between"),
    ("ball_does_not_fit.yaml", "rotor.pocket_inner_radius_m", "does not fit"),
    ("incline_not_a_number.yaml", "bowl.incline_deg", "must be a number"),
])
def test_bad_designs_are_refused_naming_file_and_field(name, field, words):
    path = WHEELS / "invalid" / name
    with pytest.raises(DesignError) as caught:
        load_design(path)
    assert caught.value.field == field
    assert caught.value.file == str(path)
    assert words in str(caught.value)


def test_a_missing_file_is_refused_naming_it(tmp_path):
    with pytest.raises(DesignError) as caught:
        load_design(tmp_path / "nowhere.yaml")
    assert "nowhere.yaml" in str(caught.value)


def test_a_double_zero_wheel_is_refused(tmp_path):
    text = (WHEELS / "standard.yaml").read_text()
    # 38 pockets: an American wheel is not allowed for Lightning Roulette, 617c.3(a)
    path = tmp_path / "american.yaml"
    path.write_text(text.replace("pockets: [0, 32,", "pockets: [0, 37, 32,"))
    with pytest.raises(DesignError) as caught:
        load_design(path)
    assert caught.value.field == "pockets"
    assert "got 38 pockets" in str(caught.value)
