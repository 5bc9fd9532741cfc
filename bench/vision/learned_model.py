"""The learned recogniser's model and its reading of a frame (inference):
the two networks (``Net``: one hidden layer, softmax out), the file they
are kept in (``learned.npz`` beside this file: numpy arrays and a JSON
header, no pickle), and ``Model.read``: the detector's candidates, each
classified, the tray's count of dice kept (steps 2 to 4 of
``bench.vision.learned``).

Apart from the training (``bench.vision.learned_training``), which needs
scipy's optimiser and the twin; reading needs this, the view
(``bench.vision.learned_view``) and numpy and scipy alone.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

from bench.vision.calibration import Calibration
from bench.vision.learned_view import View
from bench.vision.reference_wheel import read_wheel

MODEL = Path(__file__).with_name("learned.npz")
SCHEMA = 1
CLASSES = ("none", "1", "2", "3", "4", "5", "6", "cocked")
COCKED = CLASSES.index("cocked")
DETECT_MIN = 0.5        # a detector peak below this chance is no candidate
TURNS_DEG = (0.0, 90.0, 180.0, 270.0)   # the window is read at these turns from the die's sides, chances averaged


# -- the networks: one hidden layer, softmax out -------------------------------------------------------
@dataclass
class Net:
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def chances(self, x: np.ndarray) -> np.ndarray:
        h = np.tanh(((x - self.mean) / self.scale) @ self.w1 + self.b1)
        z = h @ self.w2 + self.b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def arrays(self, prefix: str) -> dict:
        return {f"{prefix}_{k}": getattr(self, k).astype(np.float32)
                for k in ("mean", "scale", "w1", "b1", "w2", "b2")}

    @classmethod
    def from_arrays(cls, data, prefix: str) -> "Net":
        return cls(*(np.asarray(data[f"{prefix}_{k}"], np.float64) for k in ("mean", "scale", "w1", "b1", "w2", "b2")))


# -- reading ---------------------------------------------------------------------------------------------
class Model:
    def __init__(self, detector: Net, classifier: Net, meta: dict):
        self.detector, self.classifier, self.meta = detector, classifier, meta

    @classmethod
    def load(cls, path: str | Path = MODEL) -> "Model":
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                if not isinstance(meta, dict):
                    raise ValueError("its meta is not an object")
                if meta.get("schema") != SCHEMA:
                    raise ValueError(f"a learned model of schema {meta.get('schema')}, this reader's is {SCHEMA}")
                return cls(Net.from_arrays(data, "det"), Net.from_arrays(data, "cls"), meta)
        except (zipfile.BadZipFile, EOFError, UnicodeDecodeError, AttributeError, IndexError) as err:
            raise ValueError(f"not a learned model's file ({type(err).__name__}: {err})") from None

    def save(self, path: str | Path) -> None:
        arrays = self.detector.arrays("det") | self.classifier.arrays("cls")
        arrays["meta"] = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode(), np.uint8)
        out = io.BytesIO()
        np.savez_compressed(out, **dict(sorted(arrays.items())))
        Path(path).write_bytes(_stable_npz(out.getvalue()))

    def candidates(self, view: View) -> list[tuple[float, float, float]]:
        """The detector's peaks: (x, y, chance), at least a die's width apart, likeliest first."""
        features, cx, cy = view.detector_grid()
        chance = self.detector.chances(features)[:, 1].reshape(len(cy), len(cx))
        peaks = (chance == ndimage.maximum_filter(chance, size=5)) & (chance >= DETECT_MIN)
        found: list[tuple[float, float, float]] = []
        for i, j in sorted(zip(*np.nonzero(peaks)), key=lambda ij: -chance[ij]):
            lo_i, lo_j = max(0, i - 1), max(0, j - 1)
            hi_i, hi_j = min(chance.shape[0], i + 2), min(chance.shape[1], j + 2)
            patch = chance[lo_i:hi_i, lo_j:hi_j]
            wy, wx = np.mgrid[lo_i:hi_i, lo_j:hi_j]
            x = float(np.interp((patch * wx).sum() / patch.sum(), np.arange(len(cx)), cx))
            y = float(np.interp((patch * wy).sum() / patch.sum(), np.arange(len(cy)), cy))
            if all(math.hypot(x - a, y - b) >= 0.75 * view.edge for a, b, _ in found):
                found.append((x, y, float(chance[i, j])))
        return found

    def classify(self, view: View, xy) -> np.ndarray:
        rows = np.stack([view.window(xy, math.radians(t)) for t in TURNS_DEG])
        return self.classifier.chances(rows).mean(axis=0)

    def read(self, rgb: np.ndarray, cal: Calibration) -> dict:
        view = View(rgb, cal)
        count = int(cal.data["dice"]["count"])
        dice = []
        for x, y, seen in self.candidates(view):
            p = self.classify(view, (x, y))
            if p.argmax() == 0:
                continue
            dice.append((seen * (1 - p[0]), x, y, p))
        dice = sorted(dice, key=lambda d: -d[0])[:count]
        out = []
        unread_below = float(self.meta.get("face_unread_below", 0.0))
        for conf, x, y, p in dice:
            flat = int(p.argmax()) != COCKED
            face: int | None = int(np.argmax(p[1:7])) + 1
            if flat and p[face] < unread_below:     # a face it is unsure of is not read (a re-read, not a guess)
                face = None
            outline = _outline(cal, view.edge, x, y)
            centre = cal.camera.project([(x, y, view.edge)])[0]
            out.append({"face": face if flat else None, "flat": flat,
                        "centre_px": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
                        "box_px": [int(outline[:, 0].min()), int(outline[:, 1].min()),
                                   int(np.ptp(outline[:, 0]) + 1), int(np.ptp(outline[:, 1]) + 1)],
                        "confidence": round(float(conf), 4),
                        "chances": {k: round(float(v), 4) for k, v in zip(CLASSES, p)}})
        return {"dice": out, "no_roll": len(out) < count or any(not d["flat"] for d in out)}


def _outline(cal: Calibration, edge: float, x: float, y: float) -> np.ndarray:
    h = edge / 2
    return cal.camera.project([(x + sx * h, y + sy * h, z) for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, edge)])


def _stable_npz(data: bytes) -> bytes:
    """An .npz whose bytes depend on its arrays alone (zip entries carry no clock time)."""
    import zipfile
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in sorted(src.namelist()):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(info, src.read(name))
    return out.getvalue()


_LOADED: dict = {}


def read_image(data: bytes, cal: Calibration, model: Model | None = None) -> dict:
    """The reading of one encoded frame (PNG or JPEG) of a tray."""
    rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    if rgb.shape[:2] != (cal.camera.height_px, cal.camera.width_px):
        raise ValueError(f"the frame is {rgb.shape[1]}x{rgb.shape[0]}, the calibrated camera "
                         f"{cal.camera.width_px}x{cal.camera.height_px}")
    if cal.scene != "tower":          # it learned dice; the wheel's pocket is the reference's reading
        return read_wheel(rgb, cal)
    if model is None:
        model = _LOADED.setdefault("model", Model.load())
    return model.read(rgb, cal)
