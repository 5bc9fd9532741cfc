"""Tower design files: the shipped ones load; a bad one is refused naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from twin.errors import DesignError
from twin.tower import load_design, parse_design

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"
INVALID = sorted((TOWERS / "invalid").glob("*.yaml"))


@pytest.mark.parametrize("name", ["standard.yaml", "narrow-tray.yaml", "straight-chute.yaml"])
def test_shipped_designs_load_with_three_dice_whose_opposite_faces_sum_to_seven(name):
    design = load_design(TOWERS / name)
    pips = dict(design.dice.pips)
    assert design.dice.count == 3
    assert sorted(pips.values()) == [1, 2, 3, 4, 5, 6]
    for axis in "xyz":
        assert pips["+" + axis] + pips["-" + axis] == 7


def test_only_the_straight_chute_lacks_obstacles():
    # 625b.2(c)(3): the body must hold obstacles; the straight chute is the
    # design that does not, for the validator to flag.
    assert load_design(TOWERS / "standard.yaml").body.obstacles
    assert load_design(TOWERS / "narrow-tray.yaml").body.obstacles
    assert load_design(TOWERS / "straight-chute.yaml").body.obstacles == ()


def test_there_are_invalid_examples_to_check():
    assert len(INVALID) >= 6


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_an_invalid_design_is_refused_naming_file_and_field(path):
    expected = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect-field:").strip()
    with pytest.raises(DesignError) as caught:
        load_design(path)
    assert caught.value.field == expected
    assert caught.value.file == str(path)
    assert str(caught.value).startswith(f"{path}: {expected}: ")


def test_a_missing_file_and_broken_yaml_are_refused_naming_the_file(tmp_path):
    with pytest.raises(DesignError, match="cannot read"):
        load_design(tmp_path / "nowhere.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(DesignError, match=f"^{broken}: is not valid YAML"):
        load_design(broken)


def test_a_design_that_is_not_a_mapping_is_refused():
    with pytest.raises(DesignError, match="must be a mapping"):
        parse_design(["not", "a", "design"], "list.yaml")
