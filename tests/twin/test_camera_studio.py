"""Studio frames (issue 38, item 2): variation files, the studio's effects,
labels that stay the truth of what the finished picture shows.

A few frames of the narrow tray and the wheel (a studio frame costs about
0.4 CPU s)."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from twin.camera.effects import Warp
from twin.camera.frames import Studio
from twin.camera.variation import LEVELS, SHIPPED, load_level
from twin.errors import DesignError
from twin.tower import drop, load_design as load_tower
from twin.wheel import load_design as load_wheel, spin


def _twin(*args):
    return subprocess.run([sys.executable, "-m", "twin.cli", *args], capture_output=True, text=True, timeout=300)


def test_the_shipped_levels_are_variation_files():
    """Each shipped level is a file a lab can copy; loading the file by its path
    gives the level loaded by name."""
    assert {"none", "default", "studio", "hard"} <= set(LEVELS)
    for name, level in LEVELS.items():
        assert load_level(SHIPPED / f"{name}.yaml") == level
    assert not LEVELS["default"].studio and LEVELS["studio"].studio and LEVELS["hard"].studio


BAD_FILES = [
    ("lens: {blur_px: [2, 1]}\n", "lens.blur_px"),
    ("glass: {reflektion: [0, 0.1]}\n", "glass.reflektion"),
    ("dice: {sets: {red: {body: [300, 0, 0], pips: [0, 0, 0]}}}\n", "dice.sets.red.body"),
    ("dealer: {chance: 1.5}\n", "dealer.chance"),
    ("encoding: {jpeg_quality: [70.5, 90]}\n", "encoding.jpeg_quality"),
]


def test_a_bad_variation_file_is_one_line_naming_the_file_and_field(tmp_path):
    for k, (text, field) in enumerate(BAD_FILES):
        bad = tmp_path / f"lab{k}.yaml"
        bad.write_text(text)
        with pytest.raises(DesignError, match=f"{bad}: " + field.replace(".", r"\.") + ": "):
            load_level(bad)
    done = _twin("frames", "narrow-tray", "--variation", str(bad), "--out", str(tmp_path / "f"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert str(bad) in done.stderr and field in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "f").exists()


@pytest.fixture(scope="module")
def narrow():
    return load_tower("narrow-tray")


def test_a_labs_file_sets_its_studio(narrow, tmp_path):
    """A lab's own file (every frame with the dealer's hand, translucent dice):
    the same seed gives the same bytes; the hand's pixels are no die's, so a
    die it covers shows fewer pixels than the same die without it; boxes lie
    inside the outlines carried through the lens."""
    text = (SHIPPED / "studio.yaml").read_text().replace("chance: 0.12", "chance: 1.0")
    lab = tmp_path / "our-studio.yaml"
    lab.write_text(text.replace("name: studio", "name: our-studio"))
    result = drop(narrow, 70013)
    studio = Studio(narrow, "tower", level=str(lab))
    try:
        first, again = studio.rest_of_drop(result), studio.rest_of_drop(result)
    finally:
        studio.close()
    assert first.image == again.image and first.label == again.label
    assert first.label["variation"]["level"] == "our-studio"
    truth = first.label["truth"]
    occluder = truth["occluder"]
    assert occluder["kind"] in ("hand", "scraper") and occluder["visible_px"] > 1000
    clean = Studio(narrow, "tower", level=dataclasses.replace(load_level(lab), occluder=0.0))
    try:
        bare = clean.rest_of_drop(result).label["truth"]
    finally:
        clean.close()
    assert "occluder" not in bare
    assert sum(d["visible_px"] for d in truth["dice"]) < sum(d["visible_px"] for d in bare["dice"])
    for d in truth["dice"]:
        if d["box_px"] is None:
            continue
        x, y, w, h = d["box_px"]
        outline = np.array(d["outline_px"])
        assert outline[:, 0].min() - 4 <= x and x + w <= outline[:, 0].max() + 4
        assert outline[:, 1].min() - 4 <= y and y + h <= outline[:, 1].max() + 4


def test_the_lens_carries_points_where_the_picture_shows_them():
    """A bright dot rendered at a point lands, after the warp, where ``points`` says."""
    warp = Warp(120, 160, -0.1, 1.5, seed=5)
    rgb = np.zeros((120, 160, 3), np.float32)
    mask = np.full((120, 160), -1, np.int32)
    rgb[20:23, 130:133] = 255
    mask[20:23, 130:133] = 7
    moved_rgb, moved_mask = warp.apply(rgb, mask)
    ys, xs = np.nonzero(moved_mask == 7)
    (px, py), = warp.points([[131.0, 21.0]])
    assert abs(xs.mean() - px) < 1.0 and abs(ys.mean() - py) < 1.0
    assert (px, py) != pytest.approx((131.0, 21.0), abs=0.5)       # it did move
    assert moved_rgb[int(round(py)), int(round(px))].max() > 200


def test_frames_of_the_fall_are_blurred_and_labelled_moving(narrow):
    studio = Studio(narrow, "tower", level="studio")
    try:
        frames = studio.drop_frames(4, fall_every_s=0.5)
    finally:
        studio.close()
    falling = [f for f in frames if f.label["moment"] == "falling"]
    assert falling and frames[-1].label["moment"] == "rest"
    for f in falling:
        assert f.label["truth"]["moving"] is True and f.label["truth"]["result"] is None
        assert "faces" not in f.label["truth"] and f.label["truth"]["shutter_s"] > 0
    times = [f.label["time_s"] for f in falling]
    assert all(b - a == pytest.approx(0.5, abs=0.01) for a, b in zip(times, times[1:]))


def test_the_studio_wheel_keeps_its_pocket_and_ball():
    """With the ball track, deflectors and turret drawn and the lens's distortion, the
    ball is seen where the label says, and the pocket is the spin's."""
    design = load_wheel("wheels/standard")
    studio = Studio(design, "wheel", level="studio")
    try:
        (frame,) = studio.spin_frames(7)
    finally:
        studio.close()
    assert frame.label["variation"]["level"] == "studio"
    assert frame.label["truth"]["pocket"] == spin(design, 7).number
    ball = frame.label["truth"]["ball"]
    assert ball["visible_px"] > 0
    x, y, w, h = ball["box_px"]
    assert x - 1 <= ball["centre_px"][0] <= x + w + 1 and y - 1 <= ball["centre_px"][1] <= y + h + 1


def test_pixels_the_lens_brings_from_beyond_the_picture_show_no_object():
    """Barrel distortion (the hard level's k1 = -0.12) shows, in the frame's
    corners, pixels from beyond the rendered picture: the mask says -1 there,
    not the edge pixel's object, so a die at the edge gains no phantom
    pixels in its box and visible count (the labels stay the picture's truth)."""
    import numpy as np
    from twin.camera.effects import Warp
    h, w = 48, 64
    mask = np.full((h, w), 7, dtype=np.int32)           # one object everywhere, edges included
    rgb = np.zeros((h, w, 3), dtype=np.float32)
    _, warped = Warp(h, w, -0.12, 0.0, seed=1).apply(rgb, mask)
    warped = warped.reshape(h, w)
    assert warped[0, 0] == warped[-1, -1] == -1 and warped[h // 2, w // 2] == 7
    assert 0 < (warped == -1).sum() < h * w // 4
