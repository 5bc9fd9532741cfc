"""The camera in the loop (``bench run --camera``): each round's result as a
studio camera sees it.

``CameraPlant`` wraps a physics plant (the tower or the wheel). For each
reading it renders the frame at rest (``twin.camera``), writes it with its
labels under ``DIR/frames/``, serves it on the MJPEG stream if asked
(``bench.vision.mjpeg``: a vision-based controller reads the camera itself),
and, with a recogniser (``bench.vision.recognizer``), sends the recogniser's
reading as the round's reading instead of the twin's. The journal's plant
record keeps both: ``detail.camera`` holds the frame's name and SHA-256, the
twin's truth and the recogniser's reading.

A recogniser's reading the bench cannot turn into the round's dice (a die
not found, a face not read, more dice than there are) is sent as a no roll:
every die not flat, as a dealer calls a no roll when the camera cannot read
the dice (625b.2(d)(5)). A wheel frame with no pocket read is spun again, as
the croupier spins again when the result cannot be determined.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from bench.errors import BenchError
from bench.play.plant import Reading


@dataclass(frozen=True)
class CameraOptions:
    camera: str | None = None           # a camera file; None: the design's camera section, else the default
    level: str = "default"              # twin.camera.variation.LEVELS
    recognizer: str | None = None       # bench.vision.recognizer spec; None: the twin's reading is sent
    stream: bool = False                # the recogniser command streams (a line a frame)
    serve: str | None = None            # HOST:PORT of the MJPEG stream; None: no stream
    timeout_s: float = 30.0

    def to_json(self) -> dict:
        return {"camera": self.camera, "level": self.level, "recognizer": self.recognizer,
                "stream": self.stream, "serve": self.serve}


def _as_drop(detail: dict):
    """A ``DropResult``-like view of a reading's detail (the twin's result as
    JSON): what the camera needs to draw and label the tray, no physics again."""
    dice = tuple(SimpleNamespace(**d) for d in detail["dice"])
    return SimpleNamespace(dice=dice, faces=tuple(detail["faces"]), no_roll=detail["no_roll"],
                           settled=detail["settled"], seed=detail["seed"], loaded=tuple(detail["loaded"]))


class CameraPlant:
    """A physics plant seen through a studio camera."""

    MAX_UNREAD_SPINS = 10

    def __init__(self, inner, options: CameraOptions, out: str | Path):
        from bench.play.plant import TowerPlant, WheelPlant
        from twin.camera.frames import Studio
        from twin.camera.spec import design_camera, load_camera
        from twin.errors import DesignError
        if not isinstance(inner, (TowerPlant, WheelPlant)):
            raise BenchError(f"--camera needs a physics plant (the tower or the wheel), not {inner.name!r}")
        self.inner, self.options = inner, options
        self.kind = "tower" if isinstance(inner, TowerPlant) else "wheel"
        try:
            camera = load_camera(options.camera) if options.camera else design_camera(inner.design_path)
            self.studio = Studio(inner.design, self.kind, camera, options.level)
        except DesignError as err:
            raise BenchError(str(err)) from None
        except ValueError as err:
            raise BenchError(f"--camera-variation: {err}") from None
        self.folder = Path(out) / "frames"
        self.folder.mkdir(parents=True, exist_ok=True)
        calibration = json.dumps(self.studio.calibration(), sort_keys=True, indent=1).encode()
        self.calibration_path = self.folder / "calibration.json"
        self.calibration_path.write_bytes(calibration)
        self.calibration_sha256 = hashlib.sha256(calibration).hexdigest()
        self.server = self.recognizer = None
        try:
            if options.serve:
                from bench.vision.mjpeg import MjpegServer
                self.server = MjpegServer(options.serve, calibration)
            if options.recognizer:
                from bench.vision.recognizer import Recognizer
                self.recognizer = Recognizer(options.recognizer, self.calibration_path.resolve(),
                                             stream=options.stream, timeout_s=options.timeout_s)
        except ValueError as err:
            self.close()
            raise BenchError(str(err)) from None

    def __getattr__(self, name):            # name, design_path, design... are the inner plant's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def header(self) -> dict:
        """What the journal's session record says about the camera."""
        return {**self.options.to_json(), "calibration_sha256": self.calibration_sha256,
                "stream_address": self.server.address if self.server else None,
                "frames": str(self.folder)}

    def read(self, round_no: int, attempt: int, dice_count: int = 3, throw=None) -> Reading:
        if self.kind == "tower":
            truth = self.inner.read(round_no, attempt, dice_count, throw)
            frame = self.studio.rest_of_drop(_as_drop(truth.detail), name=f"round-{round_no:05d}-{attempt}")
            return self._seen(truth, frame, dice_count)
        for respin in range(self.MAX_UNREAD_SPINS):
            # A frame whose pocket cannot be read is spun again (another seed: see draw_seed).
            truth = self.inner.read(round_no, attempt + 1000 * respin, dice_count, throw if respin == 0 else None)
            frame = self._wheel_frame(truth, round_no, attempt, respin)
            reading = self._seen(truth, frame, dice_count)
            if reading.pocket is not None:
                return reading
        raise BenchError(f"round {round_no}: the recogniser read no pocket in {self.MAX_UNREAD_SPINS} spins")

    def _wheel_frame(self, truth: Reading, round_no: int, attempt: int, respin: int):
        from twin.wheel import trace
        spun = trace(self.inner.design, truth.seed, record_every_s=float("inf"))
        suffix = f"-{respin}" if respin else ""
        return self.studio.rest_of_spin(spun, name=f"round-{round_no:05d}-{attempt}{suffix}")

    def _seen(self, truth: Reading, frame, dice_count: int) -> Reading:
        from twin.camera.frames import save
        save(frame, self.folder)
        if self.server:
            self.server.publish(frame.image)
        told = {"dice": list(truth.dice) if truth.dice else None, "flat": list(truth.flat) if truth.flat else None,
                "pocket": truth.pocket}
        camera = {"frame": frame.file_name, "sha256": frame.digest, "calibration_sha256": self.calibration_sha256,
                  "truth": told, "reading": None}
        if self.recognizer is None:
            return Reading(truth.dice, truth.flat, truth.pocket, truth.seed, truth.duration_s,
                           {**truth.detail, "camera": camera})
        read = self.recognizer.read((self.folder / frame.file_name).resolve(), frame.image)
        camera["reading"] = read
        detail = {**truth.detail, "camera": camera}
        if self.kind == "wheel":
            pocket = read.get("pocket")
            pocket = pocket if isinstance(pocket, int) and not isinstance(pocket, bool) and 0 <= pocket <= 36 else None
            return Reading(pocket=pocket, seed=truth.seed, duration_s=truth.duration_s, detail=detail)
        dice, flat = _dice_of(read, dice_count)
        return Reading(dice=dice, flat=flat, seed=truth.seed, duration_s=truth.duration_s, detail=detail)

    def close(self) -> None:
        if self.recognizer:
            self.recognizer.close()
        if self.server:
            self.server.close()
        self.studio.close()
        self.inner.close()          # the physics plant keeps its staging catalogue (bench.play.staging)


def _dice_of(read: dict, count: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """The faces and flatness a recogniser's reading gives, left to right in
    the image; a no roll (every die not flat) when it does not give ``count``
    dice each with a face."""
    found = [d for d in read.get("dice") or [] if isinstance(d, dict)] if isinstance(read.get("dice"), list) else []

    def x_of(d):
        c = d.get("centre_px") or d.get("box_px") or [0]
        return c[0] if isinstance(c, list) and c and isinstance(c[0], (int, float)) else 0

    found.sort(key=x_of)
    faces = [d.get("face") for d in found]
    readable = len(found) == count and all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6
                                           for f in faces)
    if not readable:
        faces = [f if isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 else 1 for f in faces]
        faces = (faces + [1] * count)[:count]
        return tuple(faces), (False,) * count
    return tuple(faces), tuple(bool(d.get("flat", True)) for d in found)
