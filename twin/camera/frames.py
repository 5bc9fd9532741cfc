"""Labelled frames of drops and spins: what a studio camera records, with the truth.

``Studio`` holds one design's scene and camera. ``Studio.drop_frames(seed)``
drops the dice (``twin.tower.drop``) and renders the tray at rest (and, with
``fall_every_s``, during the fall); ``Studio.spin_frames(seed)`` spins the
wheel (``twin.wheel.trace``) and renders it at rest. ``Studio.rest_of_drop``
renders a drop already made, from its result alone (the bench's camera in
the loop). Each ``Frame`` is the encoded picture and its labels
(``twin.camera.labels``). The variation is drawn from the seed within a
level's ranges (``twin.camera.variation``: a shipped level or a variation
file); a level with the studio's factors has its picture finished by
``twin.camera.effects`` (glass, translucent dice, show light, the dealer's
hand, lens, codec), the labels taken from the mask as the finished picture
shows it, and frames of the fall exposed over a shutter (motion blur). The
same design, camera, level and seed give the same bytes.

``write_folder`` writes a series: per frame an image and a JSON file of its
labels, a COCO-style ``coco.json`` for the folder, and ``calibration.json``
(the camera as installed and the geometry a calibrated recogniser may know:
the dice's edge, the tray; the wheel's pocket order and radii).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from twin.camera.label_files import read_labels  # noqa: F401  (callers have read it from here)
from twin.camera import labels as label
from twin.camera.effects import OCCLUDER, studio_picture
from twin.camera.scene import Rendered, TowerScene, WheelScene
from twin.camera.spec import Camera, tower_camera, wheel_camera
from twin.camera.variation import Level, Variation, draw, finish, load_level

FINE_TRACE_S = 1 / 240        # the fall traced this finely when frames are exposed over a shutter
SHUTTER_SAMPLES = 4           # renders averaged over a shutter

SCHEMA = 1


@dataclass(frozen=True)
class Frame:
    name: str                 # file stem: the design, the seed and, during a fall, the time
    image: bytes              # PNG or JPEG as the camera delivers it
    extension: str            # "png" or "jpg"
    label: dict               # what is true in it (written beside it as NAME.json)

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.extension}"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.image).hexdigest()


def _jittered(camera: Camera, v: Variation) -> Camera:
    return camera.moved(np.add(camera.position_m, v.camera_shift_m), np.add(camera.target_m, v.target_shift_m),
                        camera.fov_deg * v.fov_scale)


def content_digest(value) -> str:
    """The SHA-256 of a design's or variation's content (a frozen dataclass), canonical JSON.
    Its ``source`` (the path it was read from) is left out: the same file from another
    checkout or named another way is the same content, and calibration.json the same bytes."""
    fields = {k: v for k, v in asdict(value).items() if k != "source"}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Studio:
    """One design before one camera: makes the labelled frames of its drops or spins."""

    def __init__(self, design, kind: str, camera: Camera | None = None, level: "str | Level" = "default"):
        """``level``: a shipped level's name, a variation file's path, or a ``Level``
        (a bad file raises ``DesignError`` naming the file and field)."""
        self.variation = load_level(level)
        self.design, self.kind, self.level = design, kind, self.variation.name
        self.camera = camera or (tower_camera(design) if kind == "tower" else wheel_camera(design))
        self.scene: Any = TowerScene(design, self.variation.surround) if kind == "tower" else \
            WheelScene(design, self.variation.wheel_dressing)

    def close(self) -> None:
        self.scene.close()

    def calibration(self) -> dict:
        """What a recogniser installed at this camera may know: the camera as
        mounted (without a frame's jitter) and the fixed geometry it looks at."""
        d = self.design
        # By content, not only by name: a series resumes only where these match, and a design
        # or variation file edited under the same name would have mixed two studios' frames.
        out = {"schema": SCHEMA, "scene": self.kind, "design": d.name, "design_sha256": content_digest(d),
               "variation_sha256": content_digest(self.variation), "camera": self.camera.to_dict()}
        if self.kind == "tower":
            out.update(dice={"count": d.dice.count, "edge_m": d.dice.edge_m},
                       tray={"width_m": d.tray.width_m, "depth_m": d.tray.depth_m, "floor_z_m": 0.0})
        else:
            from twin.wheel.design import RED_NUMBERS
            out.update(pockets=list(d.pockets), red=sorted(RED_NUMBERS), centre_m=[0.0, 0.0, 0.0],
                       pocket_inner_radius_m=d.rotor.pocket_inner_radius_m,
                       pocket_outer_radius_m=d.rotor.pocket_outer_radius_m, ball_radius_m=d.ball.radius_m,
                       pocket_order="clockwise seen from above, from the pocket centred on the rotor's angle 0")
        return out

    def _picture(self, rendered: Rendered, variation: Variation) -> tuple[Rendered, Callable | None, dict | None]:
        """The studio's finish of a rendered frame: the picture and mask as the camera
        shows them, a map of projected points onto it (None: none), the occluder's label."""
        if variation.studio is None:
            return rendered, None, None
        dice = list(self.scene.dice) if self.kind == "tower" else []
        rgb, mask, warp, occluder = studio_picture(rendered.rgb, rendered.mask, variation, self.scene.textured,
                                                   dice, glassed=self.kind == "tower")
        if occluder is not None:
            box, visible = label.mask_box(mask, OCCLUDER)
            occluder.update(box_px=box, visible_px=visible)
        return Rendered(rgb, mask), (warp.points if warp and not warp.identity else None), occluder

    def _frame(self, name: str, seed: int, moment: str, time_s: float | None, rendered, camera: Camera,
               variation: Variation, truth: dict) -> Frame:
        image = finish(rendered.rgb, variation)
        frame = Frame(name, image, variation.extension, {})
        frame.label.update({
            "schema": SCHEMA, "image": frame.file_name, "sha256": frame.digest, "scene": self.kind,
            "design": self.design.name, "seed": int(seed), "moment": moment,
            "time_s": None if time_s is None else round(time_s, 4),
            "width_px": camera.width_px, "height_px": camera.height_px, "camera": camera.to_dict(),
            "variation": variation.to_dict(), "truth": truth})
        return frame

    # -- the tower --------------------------------------------------------
    def rest_of_drop(self, result, name: str | None = None, variation_seed: int | None = None) -> Frame:
        """The tray at rest after ``result`` (a ``DropResult``), drawn from the result alone."""
        seed = result.seed if variation_seed is None else variation_seed
        v = draw(self.variation, seed)
        camera = _jittered(self.camera, v)
        rendered, moved, occluder = self._picture(
            self.scene.frame([(d.position_m, d.orientation_xyzw) for d in result.dice], camera, v), v)
        truth = label.tower_labels(result, self.design.dice.edge_m, camera, rendered.mask, self.scene.dice)
        _as_shown(truth, moved, occluder)
        return self._frame(name or f"{self.design.name}-{result.seed:06d}", result.seed, "rest", None,
                           rendered, camera, v, truth)

    def drop_frames(self, seed: int, fall_every_s: float | None = None) -> list[Frame]:
        """The drop of ``seed``: frames during the fall every ``fall_every_s``
        (None: none), then the tray at rest."""
        from twin.tower import drop, drop_traced
        if fall_every_s is None:
            return [self.rest_of_drop(drop(self.design, seed))]
        v = draw(self.variation, seed)
        shutter = v.studio.shutter_s if v.studio is not None else 0.0
        step = min(fall_every_s, FINE_TRACE_S) if shutter > 0 else fall_every_s
        result, trace = drop_traced(self.design, seed, frame_every_s=step)
        frames = []
        edge = self.design.dice.edge_m
        taken = -math.inf
        for k, (time_s, poses) in enumerate(zip(trace.times_s, trace.poses)):
            if time_s < trace.release_s or (step < fall_every_s and time_s < taken + fall_every_s - step / 2):
                continue               # in the compartment (the camera sees the tray empty), or between frames
            taken = time_s
            camera = _jittered(self.camera, v)
            rendered = self.scene.frame(poses, camera, v)
            if shutter > 0:            # the shutter open from time_s - shutter: the renders of it averaged
                back = max(1, round(shutter / step))
                picks = sorted({max(0, k - round(back * i / (SHUTTER_SAMPLES - 1))) for i in range(SHUTTER_SAMPLES)})
                rgb = rendered.rgb.astype(np.float32)
                for j in picks[:-1]:
                    rgb += self.scene.frame(trace.poses[j], camera, v).rgb
                rgb /= len(picks)
                rendered = Rendered(np.clip(rgb, 0, 255).round().astype(np.uint8), rendered.mask)
            rendered, moved, occluder = self._picture(rendered, v)
            truth = {"game": "dice", "dice": label.moving_dice(poses, edge, camera, rendered.mask, self.scene.dice),
                     "seed": int(seed), "moving": True, "result": None, "shutter_s": round(shutter, 4)}
            _as_shown(truth, moved, occluder)
            since = time_s - trace.release_s
            frames.append(self._frame(f"{self.design.name}-{seed:06d}-t{round(since * 1000):05d}", seed,
                                      "falling", since, rendered, camera, v, truth))
        return frames + [self.rest_of_drop(result)]

    # -- the wheel --------------------------------------------------------
    def spin_frames(self, seed: int) -> list[Frame]:
        """The spin of ``seed`` at rest (an invalid spin: where the ball was last)."""
        from twin.wheel import trace
        spun = trace(self.design, seed, record_every_s=math.inf)
        return [self.rest_of_spin(spun)]

    def rest_of_spin(self, spun, name: str | None = None) -> Frame:
        """The wheel at rest after a traced spin (``twin.wheel.trace``)."""
        from twin.wheel.spin import rotor_at
        result = spun.result
        if spun.frames:
            last = spun.frames[-1]
            ball, rotor_angle = last.ball, last.rotor_angle
        else:                       # the ball never left the track: no descent to show
            ball, rotor_angle = None, rotor_at(self.design, spun.launch, result.spin_time_s)[0]
        v = draw(self.variation, result.seed)
        camera = _jittered(self.camera, v)
        rendered, moved, occluder = self._picture(self.scene.frame(rotor_angle, ball, camera, v), v)
        truth = label.wheel_labels(result, ball, rotor_angle, self.design.ball.radius_m, camera,
                                   rendered.mask, self.scene.ball)
        _as_shown(truth, moved, occluder)
        return self._frame(name or f"{self.design.name}-{result.seed:06d}", result.seed, "rest", None,
                           rendered, camera, v, truth)

    def frames(self, seed: int, fall_every_s: float | None = None) -> list[Frame]:
        return self.drop_frames(seed, fall_every_s) if self.kind == "tower" else self.spin_frames(seed)


def _as_shown(truth: dict, moved: Callable | None, occluder: dict | None) -> None:
    """The labels' projected points where the distorted picture shows them
    (outlines, the ball's centre), and the occluder in view."""
    if moved is not None:
        for d in truth.get("dice", []):
            d["outline_px"] = [[round(float(x), 2), round(float(y), 2)] for x, y in moved(d["outline_px"])]
            if "visible_share" in d:
                d["visible_share"] = round(d["visible_px"] / max(1.0, label.polygon_area(d["outline_px"])), 3)
        ball = truth.get("ball")
        if ball and ball.get("centre_px") is not None:
            ball["centre_px"] = [round(float(v), 2) for v in moved([ball["centre_px"]])[0]]
    if occluder is not None:
        truth["occluder"] = occluder


def save(frame: Frame, folder: Path) -> None:
    """The image and its labels, each written whole (a temporary file renamed)."""
    for path, data in ((folder / frame.file_name, frame.image),
                       (folder / f"{frame.name}.json", json.dumps(frame.label, sort_keys=True, indent=1).encode())):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)


def write_folder(studio: Studio, folder: str | Path, seeds: Iterable[int], fall_every_s: float | None = None,
                 step: Callable[[], None] = lambda: None) -> dict:
    """Write the frames of ``seeds`` to ``folder`` as they are made, then its
    ``coco.json`` and ``calibration.json``; returns counts. A seed whose rest
    frame is already there (same design, camera and level: the calibration
    file says so) is not made again: a stopped series resumes."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    calibration = studio.calibration() | {"level": studio.level}
    calibration_path = folder / "calibration.json"
    resume = calibration_path.exists() and json.loads(calibration_path.read_text()) == calibration
    calibration_path.write_text(json.dumps(calibration, sort_keys=True, indent=1))
    made = kept = 0
    for seed in seeds:
        rest = folder / f"{studio.design.name}-{seed:06d}.json"
        if resume and rest.exists():
            kept += 1
        else:
            for frame in studio.frames(seed, fall_every_s):
                save(frame, folder)
                made += 1
        step()
    frames = read_labels(folder)
    info = {"description": f"tablebench twin frames of {studio.design.name}", "scene": studio.kind,
            "level": studio.level, "camera": studio.camera.to_dict()}
    (folder / "coco.json").write_text(json.dumps(label.coco(frames, info), sort_keys=True))
    return {"made": made, "kept": kept, "frames": len(frames),
            "no_roll": sum(1 for f in frames if f["moment"] == "rest" and f["truth"].get("no_roll")),
            "cocked_dice": sum(1 for f in frames if f["moment"] == "rest"
                               for d in f["truth"].get("dice", []) if not d["flat"])}
