"""twin frames: studio frames of drops and spins, labelled from the twin's results.

A handful of frames (a frame costs about 0.13 s to render on an idle core).
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from twin.camera.frames import Studio, read_labels, write_folder
from twin.camera.spec import load_camera, tower_camera
from twin.errors import DesignError
from twin.tower import drop, load_design as load_tower
from twin.tower.staging import stage_no_roll
from twin.wheel import load_design as load_wheel, spin


def _twin(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "twin.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_same_seed_same_bytes_in_fresh_processes(tmp_path):
    """Two runs of twin frames in two processes write byte-identical folders."""
    for name in ("a", "b"):
        done = _twin("frames", "narrow-tray", "--seed", "3", "--count", "2", "--out", str(tmp_path / name))
        assert done.returncode == 0, done.stderr
    files_a = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files_a == sorted(p.name for p in (tmp_path / "b").iterdir())
    assert {"calibration.json", "coco.json", "narrow-tray-000003.jpg", "narrow-tray-000004.json"} <= set(files_a)
    for name in files_a:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


@pytest.fixture(scope="module")
def narrow():
    return load_tower("narrow-tray")


def test_tower_labels_are_the_drops_truth(narrow, tmp_path):
    """A cocked drop of the narrow tray: the labels give the twin's faces,
    flatness, tilt and holder, the no roll, and boxes where the renderer drew
    each die; the COCO file holds every die."""
    seed, _, result = stage_no_roll(narrow, start_seed=0, max_drops=200)
    studio = Studio(narrow, "tower")
    try:
        counts = write_folder(studio, tmp_path, [seed, seed + 1])
        frame = studio.rest_of_drop(result)
    finally:
        studio.close()
    label = json.loads((tmp_path / f"narrow-tray-{seed:06d}.json").read_text())
    truth = label["truth"]
    assert truth["no_roll"] is True and truth["faces"] == list(result.faces)
    assert [d["flat"] for d in truth["dice"]] == [d.flat for d in result.dice]
    cocked = [d for d in truth["dice"] if not d["flat"]]
    # Not flat: tilted past 3 deg against a wall or a die, or lying square on another die (seed 3
    # of the narrow tray at true size: 0.2 deg, on die 2), which is no more on the tray's floor.
    assert cocked and all(d["holder"] in ("wall", "die") and (d["tilt_deg"] > 3 or d["holder"] == "die")
                          for d in cocked)
    assert counts["cocked_dice"] >= len(cocked) and counts["no_roll"] >= 1
    image = tmp_path / label["image"]
    assert hashlib.sha256(image.read_bytes()).hexdigest() == label["sha256"] == frame.digest
    for d in truth["dice"]:
        x, y, w, h = d["box_px"]
        outline = np.array(d["outline_px"])
        # what the renderer drew of a die lies inside its projected outline
        assert outline[:, 0].min() - 2 <= x and x + w <= outline[:, 0].max() + 2
        assert outline[:, 1].min() - 2 <= y and y + h <= outline[:, 1].max() + 2
        assert 0 < d["visible_px"]
    coco = json.loads((tmp_path / "coco.json").read_text())
    assert len(coco["images"]) == 2
    on_frame = [a for a in coco["annotations"] if a["image_id"] == 1]
    assert sorted(a["category_id"] for a in on_frame) == sorted(d["face"] for d in truth["dice"] if d["visible_px"])
    assert {a["attributes"]["flat"] for a in on_frame} == {d["flat"] for d in truth["dice"] if d["visible_px"]}


def test_fall_frames_and_the_rest_frame(narrow, tmp_path):
    studio = Studio(narrow, "tower", level="none")
    try:
        frames = studio.drop_frames(5, fall_every_s=0.5)
    finally:
        studio.close()
    assert [f.label["moment"] for f in frames[:-1]] == ["falling"] * (len(frames) - 1) and len(frames) >= 2
    assert frames[-1].label["moment"] == "rest" and frames[-1].extension == "png"     # level none: lossless
    assert frames[-1].label["truth"]["faces"] == list(drop(narrow, 5).faces)


def test_wheel_label_is_the_spins_pocket(tmp_path):
    design = load_wheel("wheels/standard")
    studio = Studio(design, "wheel")
    try:
        write_folder(studio, tmp_path, [7])
    finally:
        studio.close()
    (label,) = read_labels(tmp_path)
    assert label["truth"]["pocket"] == spin(design, 7).number
    ball = label["truth"]["ball"]
    x, y, w, h = ball["box_px"]
    assert x <= ball["centre_px"][0] <= x + w and y <= ball["centre_px"][1] <= y + h
    calibration = json.loads((tmp_path / "calibration.json").read_text())
    assert calibration["pockets"] == list(design.pockets) and calibration["scene"] == "wheel"


def test_camera_file_and_its_errors(tmp_path):
    good = tmp_path / "cam.yaml"
    good.write_text("position_m: [0.05, -0.2, 0.3]\ntarget_m: [0, 0, 0]\nfov_deg: 45\nwidth_px: 320\nheight_px: 240\n")
    camera = load_camera(good)
    assert (camera.width_px, camera.height_px) == (320, 240)
    # a point on the line of sight lands in the middle of the image
    assert np.allclose(camera.project([camera.target_m])[0], (160, 120))
    bad = tmp_path / "bad.yaml"
    bad.write_text("position_m: [0, 0, 0.3]\ntarget_m: [0, 0, 0]\nfov_deg: 400\n")
    with pytest.raises(DesignError, match=r"bad.yaml: fov_deg: must be a number of degrees"):
        load_camera(bad)
    done = _twin("frames", "narrow-tray", "--camera", str(bad), "--out", str(tmp_path / "f"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "fov_deg" in done.stderr
    assert not (tmp_path / "f").exists()


def test_a_design_may_carry_its_camera(tmp_path):
    text = Path(load_tower("narrow-tray").source).read_text()
    design = tmp_path / "with-camera.yaml"
    design.write_text(text + "camera: {position_m: [0, -0.1, 0.25], target_m: [0, 0, 0], fov_deg: 35}\n")
    done = _twin("frames", str(design), "--out", str(tmp_path / "f"), "--json")
    assert done.returncode == 0, done.stderr
    calibration = json.loads((tmp_path / "f" / "calibration.json").read_text())
    assert calibration["camera"]["position_m"] == [0.0, -0.1, 0.25]
    assert calibration["camera"] != tower_camera(load_tower("narrow-tray")).to_dict()
    design.write_text(text + "camera: {position_m: [0, 0, 0.25], target_m: [0, 0, 0], fov: 35}\n")
    with pytest.raises(DesignError, match="camera.fov"):
        load_tower(design)


def test_a_stray_json_file_in_the_folder_is_one_line_and_exit_2(tmp_path):
    """twin frames writes coco.json from every label in its folder: a JSON file
    there that is not a frame's labels is named in one line, exit 2 (it was an
    internal error, exit 5)."""
    (tmp_path / "notes.json").write_text("[1]")
    done = subprocess.run([sys.executable, "-m", "twin.cli", "frames", "towers/standard", "--count", "1",
                           "--seed", "5", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [f"twin frames: {tmp_path / 'notes.json'}: not a frame's labels: "
                                                f"no image or truth"]


def test_a_series_resumes_only_on_the_same_design_and_variation_not_the_same_names(tmp_path):
    """calibration.json names the design and the variation by content, not by
    name or path: a design or a variation edited under its own name (in a
    field calibration.json does not otherwise carry) makes the frame again;
    the same design read from another path resumes."""
    import dataclasses
    from twin.camera.variation import load_level
    design = load_tower("towers/standard")

    def series(design, level="default"):
        studio = Studio(design, "tower", level=level)
        try:
            return write_folder(studio, tmp_path, [11])
        finally:
            studio.close()
    assert series(design)["made"] == 1
    moved = dataclasses.replace(design, source="elsewhere/standard.yaml")
    assert (series(moved)["made"], series(moved)["kept"]) == (0, 1)
    edited = dataclasses.replace(design, physics=dataclasses.replace(design.physics,
                                                                     timestep_s=design.physics.timestep_s / 2))
    assert edited.name == design.name and series(edited)["made"] == 1
    level = load_level("default")
    blurred = dataclasses.replace(level, blur_px=(level.blur_px[0], level.blur_px[1] + 0.5))
    assert blurred.name == level.name and series(edited, blurred)["made"] == 1
    calibration = json.loads((tmp_path / "calibration.json").read_text())
    assert len(calibration["design_sha256"]) == 64 and len(calibration["variation_sha256"]) == 64
