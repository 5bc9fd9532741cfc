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

What the recogniser reads is judged against the twin's truth by the
oracle (``bench.oracle.recognition``): a misread result is a violation.
When the recogniser cannot read a frame (no reply, a malformed one, not the
round's dice), the documented policy (docs/camera.md, "When the recogniser
cannot read") applies: the frame is read again up to ``REREADS`` times;
then, for dice, the dealer calls a no roll, every die not flat, and the
wagers are returned as 625b.2(d)(5) returns them (a game that throws again
after a no roll throws again); for the wheel, the croupier spins again
(617a.5), up to ``MAX_UNREAD_SPINS`` spins, then the round is void (a
failed round naming 617a.5, never a crash).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from bench.errors import BenchError
from bench.play.plant import Reading
from bench.play.round_script import NoResult

REREADS = 2                 # a frame the recogniser cannot read is asked again this many times
UNREAD_SPIN_CLAUSE = "617a.5"     # rotation of wheel and ball: the croupier spins again


class Unreadable(NoResult):
    """No spin of the round could be read: the round is void (``clause``)."""
    clause = UNREAD_SPIN_CLAUSE


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


def _variation_file(level: str) -> dict:
    """A lab's own variation file (not a shipped level's name): its text and
    SHA-256 go into the journal, so that the ranges the frames were drawn
    from travel with it, as a design's text does."""
    path = Path(level)
    if "/" not in level and not level.endswith((".yaml", ".yml")) or not path.is_file():
        return {}
    data = path.read_bytes()
    return {"variation_sha256": hashlib.sha256(data).hexdigest(), "variation_text": data.decode("utf-8", "replace")}


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
                **_variation_file(self.options.level),
                "stream_address": self.server.address if self.server else None,
                "frames": str(self.folder),
                **({"recognizer_command": self.recognizer.description, "rereads": REREADS,
                    "unread_spins": self.MAX_UNREAD_SPINS} if self.recognizer else {})}

    def read(self, round_no: int, attempt: int, dice_count: int = 3, throw=None) -> Reading:
        if self.kind == "tower":
            truth = self.inner.read(round_no, attempt, dice_count, throw)
            frame = self.studio.rest_of_drop(_as_drop(truth.detail), name=f"round-{round_no:05d}-{attempt}")
            return self._seen(truth, frame, dice_count)
        unread = None
        for respin in range(self.MAX_UNREAD_SPINS):
            # A frame whose pocket cannot be read is spun again (another seed: see draw_seed).
            truth = self.inner.read(round_no, attempt + 1000 * respin, dice_count, throw if respin == 0 else None)
            frame = self._wheel_frame(truth, round_no, attempt, respin)
            reading = self._seen(truth, frame, dice_count, respins=respin)
            camera = reading.detail["camera"]
            if camera.get("call") != "unread":
                return reading
            unread = camera["unread"][-1]
        raise Unreadable(f"round {round_no}: the recogniser read no pocket in {self.MAX_UNREAD_SPINS} spins "
                         f"({REREADS} re-reads each; the last: {unread}): the round is void (docs/camera.md)")

    def _wheel_frame(self, truth: Reading, round_no: int, attempt: int, respin: int):
        from twin.wheel import trace
        if truth.seed is None:      # the wheel plant's every reading names the seed it spun
            raise ValueError(f"round {round_no}: the wheel's reading names no seed to draw its frame from")
        spun = trace(self.inner.design, truth.seed, record_every_s=float("inf"))
        suffix = f"-{respin}" if respin else ""
        return self.studio.rest_of_spin(spun, name=f"round-{round_no:05d}-{attempt}{suffix}")

    def _seen(self, truth: Reading, frame, dice_count: int, respins: int = 0) -> Reading:
        from twin.camera.frames import save
        save(frame, self.folder)
        if self.server:
            self.server.publish(frame.image)
        told = {"dice": list(truth.dice) if truth.dice else None, "flat": list(truth.flat) if truth.flat else None,
                "pocket": truth.pocket}
        camera: dict = {"frame": frame.file_name, "sha256": frame.digest,
                        "calibration_sha256": self.calibration_sha256, "truth": told, "reading": None}
        if self.recognizer is None:
            return Reading(truth.dice, truth.flat, truth.pocket, truth.seed, truth.duration_s,
                           {**truth.detail, "camera": camera})
        from bench.vision.recognizer import dice_call, pocket_call
        path = (self.folder / frame.file_name).resolve()
        earlier: list[str] = []
        for _asked in range(REREADS + 1):
            read = self.recognizer.read(path, frame.image)
            if self.kind == "wheel":
                pocket, unread = pocket_call(read)
            else:
                dice, flat, unread = dice_call(read, dice_count)
            if unread is None:
                break
            earlier.append(unread)
        camera.update(reading=read, call="unread" if unread else "read", rereads=len(earlier) - 1 if unread else len(earlier))
        if earlier:
            camera["unread"] = earlier          # why each unread ask was (the last, if the policy called it)
        if respins:
            camera["respins"] = respins
        detail = {**truth.detail, "camera": camera}
        if self.kind == "wheel":
            return Reading(pocket=pocket, seed=truth.seed, duration_s=truth.duration_s, detail=detail)
        # Unread: the dealer's call, a no roll (every die not flat; dice_call gives it so).
        return Reading(dice=dice, flat=flat, seed=truth.seed, duration_s=truth.duration_s, detail=detail)

    def close(self) -> None:
        if self.recognizer:
            self.recognizer.close()
        if self.server:
            self.server.close()
        self.studio.close()
        self.inner.close()          # the physics plant keeps its staging catalogue (bench.play.staging)

