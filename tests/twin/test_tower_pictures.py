"""The tray picture marks a die that is not flat; the side view animates the drop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from twin.tower import drop, drop_traced, load_design
from twin.tower.picture import drop_gif, tray_png
from twin.tower.staging import stage

TOWERS = Path(__file__).resolve().parents[2] / "fixtures" / "towers"


def red_pixels(path: Path) -> int:
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    return int(((r > 190) & (g < 40) & (b < 40)).sum())


def test_a_cocked_die_is_marked_red_and_flat_dice_are_not(tmp_path):
    narrow = load_design(TOWERS / "narrow-tray.yaml")
    _seed, _loaded, cocked = stage(narrow, cocked_die=0, against="wall", start_seed=93000)   # 93026
    _seed, _loaded, flat = stage(narrow, faces=(2, 3, 4), start_seed=180)     # 180; no 1: its pip is red
    tray_png(narrow, cocked, tmp_path / "cocked.png")
    tray_png(narrow, flat, tmp_path / "flat.png")
    assert red_pixels(tmp_path / "cocked.png") > 200          # outline, label, verdict
    assert red_pixels(tmp_path / "flat.png") == 0


def test_the_side_view_has_a_frame_per_recorded_pose_and_shows_the_dice_moving(tmp_path):
    standard = load_design(TOWERS / "standard.yaml")
    result, trace = drop_traced(standard, 2)
    path = drop_gif(standard, result, trace, tmp_path / "drop.gif")
    gif = Image.open(path)
    assert gif.n_frames == len(trace.times_s)
    gif.seek(0)
    first = gif.convert("RGB").copy()
    gif.seek(gif.n_frames - 1)
    last = gif.convert("RGB").copy()
    assert first.tobytes() != last.tobytes()
    assert result == drop(standard, 2)


def test_the_gif_marks_the_deciding_die_and_gives_the_verdict_on_its_last_frame_only(tmp_path):
    narrow = load_design(TOWERS / "narrow-tray.yaml")
    result, trace = drop_traced(narrow, 93088)                 # two dice held not flat: a no roll
    assert result.no_roll
    path = drop_gif(narrow, result, trace, tmp_path / "drop.gif")
    with Image.open(path) as gif:
        frames = []
        for k in (0, gif.n_frames // 2, gif.n_frames - 1):
            gif.seek(k)
            frames.append(gif.convert("RGB").copy())
            assert gif.info["duration"] >= (3000 if k == gif.n_frames - 1 else 20)
    reds = []
    for k, frame in enumerate(frames):
        frame.save(tmp_path / f"{k}.png")
        reds.append(red_pixels(tmp_path / f"{k}.png"))
    assert reds[0] == 0 and reds[1] == 0      # no verdict while the dice fall
    assert reds[2] > 200                      # the verdict, and the cocked dice outlined in red
