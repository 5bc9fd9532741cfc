"""The learned recogniser: dice read by two small networks trained only on
the twin's frames (docs/camera.md, "The learned recogniser").

It is installed like the reference (``bench.vision.reference``): it knows
the camera's calibration, never a frame's labels, and speaks the same
streaming interface and reading JSON. What it learned is in
``learned.npz`` beside this file (a few hundred kilobytes of numpy arrays,
no pickle), read and run with numpy and scipy alone.

Per frame:

1. The image is looked at on the plane of a flat die's top face (the
   calibrated camera projects that plane's points into the image): there
   every flat die's top is a square of one size wherever it lies. Two
   channels: the distance of each pixel's colour from the felt's (the felt
   is the commonest colour of the floor's darker pixels, as the reference
   finds it) and its brightness above the felt's, each smoothed to the
   sampling step.
2. A detector (a one-hidden-layer network over a window 1.5 edges wide,
   sampled 8 times an edge) gives every place on the tray a chance of being
   a die's centre; its peaks, one per die's width, are the candidates.
3. A classifier (the same kind of network, the window 1.25 edges wide at 16
   samples an edge, its brightness scaled to the brightest of the window)
   calls each candidate a face 1-6 lying flat, a die not flat (cocked:
   625b.2(d)(5)) or no die, averaged over three turns of the window (a face
   may lie at any angle).
4. The tray holds ``dice.count`` dice: the most confident that many are
   the reading; a frame is a no roll when one of them is not flat or fewer
   are found (625b.2(d)(5)). A flat die whose face's chance is under the
   model's ``face_unread_below`` (chosen on a validation split of the
   training seeds) is read with no face: the frame is unread (the bench
   re-reads, then voids), never settled on a guess.

Train: ``python -m bench.vision.learned train FRAMES... --seed S --out FILE``
on folders written by ``twin frames`` (at ``--variation hard`` and
``studio``, seeds 200000 on: apart from every scoring set). Read: ``python -m
bench.vision.learned --calibration FILE IMAGE...`` or ``--stream``, as the
reference.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage
from scipy.optimize import minimize

from bench.vision.reference import (Calibration, _luminance, _otsu, answer_frames, load_calibration, read_wheel,
                                    recogniser_parser)

MODEL = Path(__file__).with_name("learned.npz")
SCHEMA = 1
DET_STEP = 8            # detector: samples per die edge
DET_WINDOW = 12         # ... its window: 1.5 edges
CLS_STEP = 16           # classifier: samples per die edge
CLS_WINDOW = 20         # ... its window: 1.25 edges
CLASSES = ("none", "1", "2", "3", "4", "5", "6", "cocked")
COCKED = CLASSES.index("cocked")
DETECT_MIN = 0.5        # a detector peak below this chance is no candidate
TURNS_DEG = (0.0, 90.0, 180.0, 270.0)   # the window is read at these turns from the die's sides, chances averaged
FELT_DISTANCE = 48 / 128         # the reference's distance from the felt that makes a pixel a die's
VALIDATION_EVERY = 5            # one training drop in five is the validation split
UNREAD_GRID = tuple(round(0.05 * k, 2) for k in range(0, 19))   # face-unread thresholds tried: 0 to 0.9


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


def fit(x: np.ndarray, y: np.ndarray, classes: int, hidden: int, seed: int, weights: np.ndarray | None = None,
        iterations: int = 300, l2: float = 1e-3) -> Net:
    """A one-hidden-layer network fitted by L-BFGS (scipy) to labels ``y``: the
    weighted cross-entropy plus ``l2`` on the weights, from a start drawn from ``seed``."""
    x = np.asarray(x, np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    n, d = xs.shape
    w = np.ones(n) if weights is None else np.asarray(weights, float)
    w = w / w.sum()
    onehot = np.zeros((n, classes))
    onehot[np.arange(n), y] = 1.0
    rng = np.random.default_rng([seed, 38])
    shapes = [(d, hidden), (hidden,), (hidden, classes), (classes,)]
    start = np.concatenate([rng.normal(0, 1 / math.sqrt(d), d * hidden), np.zeros(hidden),
                            rng.normal(0, 1 / math.sqrt(hidden), hidden * classes), np.zeros(classes)])

    def unpack(theta):
        out, at = [], 0
        for s in shapes:
            size = int(np.prod(s))
            out.append(theta[at:at + size].reshape(s))
            at += size
        return out

    def loss(theta):
        w1, b1, w2, b2 = unpack(theta)
        h = np.tanh(xs @ w1 + b1)
        z = h @ w2 + b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        value = -float(np.sum(w * np.log(np.sum(p * onehot, axis=1) + 1e-12)))
        value += l2 * (float(np.sum(w1 * w1)) + float(np.sum(w2 * w2)))
        dz = (p - onehot) * w[:, None]
        gw2 = h.T @ dz + 2 * l2 * w2
        gb2 = dz.sum(axis=0)
        dh = (dz @ w2.T) * (1 - h * h)
        gw1 = xs.T @ dh + 2 * l2 * w1
        gb1 = dh.sum(axis=0)
        return value, np.concatenate([gw1.ravel(), gb1, gw2.ravel(), gb2])

    done = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    w1, b1, w2, b2 = unpack(done.x)
    return Net(mean, scale, w1, b1, w2, b2)


# -- what the camera shows, on the plane of the dice's tops -------------------------------------------
class View:
    """One frame's two channels (distance from the felt, brightness above it),
    smoothed for the detector's and the classifier's sampling steps."""

    def __init__(self, rgb: np.ndarray, cal: Calibration):
        self.cal = cal
        camera, self.edge = cal.camera, float(cal.data["dice"]["edge_m"])
        tray = cal.data["tray"]
        self.half = (tray["width_m"] / 2, tray["depth_m"] / 2)
        image = rgb.astype(np.float64)
        lum = _luminance(image)
        floor_px = self._floor_pixels()
        on_floor = ndimage.map_coordinates(lum, floor_px, order=0, mode="nearest")
        colours = np.stack([ndimage.map_coordinates(image[..., k], floor_px, order=0, mode="nearest")
                            for k in range(3)], axis=1)
        dark = colours[on_floor <= _otsu(on_floor)]
        dark = dark if len(dark) >= 50 else colours
        q = dark.astype(int) >> 4
        bins = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
        felt = np.median(dark[bins == np.bincount(bins).argmax()], axis=0)
        self.felt = felt
        distance = np.sqrt(((image - felt) ** 2).sum(axis=2)) / 128.0
        bright = (lum - _luminance(felt)) / 128.0
        centre_px = camera.project([(0.0, 0.0, self.edge), (self.edge, 0.0, self.edge)])
        px_per_edge = float(np.hypot(*(centre_px[1] - centre_px[0])))
        self.px_per_edge = px_per_edge
        self.channels = {}
        for step in (DET_STEP, CLS_STEP):
            sigma = max(0.0, 0.5 * px_per_edge / step - 0.3)
            self.channels[step] = [ndimage.gaussian_filter(c, sigma) if sigma > 0.05 else c
                                   for c in (distance, bright)]

    def _floor_pixels(self) -> np.ndarray:
        """Image coordinates (rows, columns) of a grid over the tray's floor."""
        w, d = self.half
        xs = np.linspace(-w, w, 48)
        ys = np.linspace(-d, d, 32)
        gx, gy = np.meshgrid(xs, ys)
        pts = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
        px = self.cal.camera.project(pts)
        return np.vstack([px[:, 1] - 0.5, px[:, 0] - 0.5])

    def sample(self, step: int, world_xy: np.ndarray) -> np.ndarray:
        """The two channels at world points (N x 2) on the plane z = edge: N x 2."""
        pts = np.column_stack([world_xy, np.full(len(world_xy), self.edge)])
        px = self.cal.camera.project(pts)
        coords = np.vstack([px[:, 1] - 0.5, px[:, 0] - 0.5])
        return np.stack([ndimage.map_coordinates(c, coords, order=1, mode="nearest")
                         for c in self.channels[step]], axis=1)

    # -- the detector's map ---------------------------------------------------
    def detector_grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every detector window's features (M x F) and its centre (world x, y per window)."""
        s = self.edge / DET_STEP
        w, d = self.half
        margin = DET_WINDOW / 2 * s
        nx = int(math.ceil((2 * w + 2 * margin) / s))
        ny = int(math.ceil((2 * d + 2 * margin) / s))
        x0, y0 = -w - margin, -d - margin
        gx, gy = np.meshgrid(x0 + (np.arange(nx) + 0.5) * s, y0 + (np.arange(ny) + 0.5) * s)
        values = self.sample(DET_STEP, np.column_stack([gx.ravel(), gy.ravel()])).reshape(ny, nx, 2)
        windows = np.lib.stride_tricks.sliding_window_view(values, (DET_WINDOW, DET_WINDOW), axis=(0, 1))
        my, mx = windows.shape[:2]
        features = windows.reshape(my * mx, -1)
        cx = x0 + (np.arange(mx) + DET_WINDOW / 2) * s
        cy = y0 + (np.arange(my) + DET_WINDOW / 2) * s
        return features, cx, cy

    # -- the classifier's window ---------------------------------------------
    def _grid(self, centre_xy, turn_rad: float) -> np.ndarray:
        s = self.edge / CLS_STEP
        u = (np.arange(CLS_WINDOW) - (CLS_WINDOW - 1) / 2) * s
        gu, gv = np.meshgrid(u, u)
        c, sn = math.cos(turn_rad), math.sin(turn_rad)
        return np.column_stack([centre_xy[0] + c * gu.ravel() - sn * gv.ravel(),
                                centre_xy[1] + sn * gu.ravel() + c * gv.ravel()])

    def yaw(self, centre_xy) -> float:
        """The die's turn about the vertical, modulo a quarter turn: the angle of the fourth
        harmonic of its pixels (far from the felt) within 0.72 edge of the centre, whose
        corners weigh most; the window turned by it shows the die's sides along its own."""
        xy = self._grid(centre_xy, 0.0)
        die = self.sample(CLS_STEP, xy)[:, 0] > FELT_DISTANCE
        z = (xy[:, 0] - centre_xy[0]) + 1j * (xy[:, 1] - centre_xy[1])
        die &= np.abs(z) <= 0.72 * self.edge
        moment = np.sum(z[die] ** 4) if die.any() else 0j
        return float(np.angle(moment)) / 4 - math.pi / 4

    def window(self, centre_xy, turn_rad: float) -> np.ndarray:
        """The classifier's features of the window centred at ``centre_xy``, turned by ``turn_rad``
        from the die's own sides (``yaw``)."""
        values = self.sample(CLS_STEP, self._grid(centre_xy, self.yaw(centre_xy) + turn_rad))
        bright = values[:, 1]
        top = max(float(np.percentile(bright, 95)), 0.15)
        return np.concatenate([values[:, 0], bright / top])


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


# -- training ----------------------------------------------------------------------------------------------
def _held_for_validation(label: dict) -> bool:
    """Frames of one drop in five (its seed, whatever the variation drawn) are kept out of the
    fitting to choose the face-unread threshold on: training seeds, never a scoring set's."""
    return int(label["seed"]) % VALIDATION_EVERY == 0


def _frames(folders: list[Path], limit: int | None, validation: bool | None = None):
    """(label, rgb, calibration) of every frame at rest of the folders, in name order
    (``validation``: True only the validation frames, False only the others, None all)."""
    for folder in folders:
        cal = Calibration.load(str(folder / "calibration.json"))
        if cal.scene != "tower":
            raise ValueError(f"{folder}: frames of a wheel; the learned recogniser learns dice")
        labels = sorted(folder.glob("*.json"))
        labels = [p for p in labels if p.name not in ("calibration.json", "coco.json")]
        for n, path in enumerate(labels):
            if limit is not None and n >= limit:
                break
            label = json.loads(path.read_text(encoding="utf-8"))
            if label.get("moment") != "rest":
                continue
            if validation is not None and _held_for_validation(label) != validation:
                continue
            rgb = np.asarray(Image.open(folder / label["image"]).convert("RGB"))
            yield label, rgb, cal


def _truth_dice(label: dict) -> list[tuple[float, float, int, bool]]:
    """Per true die: x, y, its class (a face, or cocked), whether the camera sees it."""
    out = []
    for d in label["truth"]["dice"]:
        cls = int(d["face"]) if d["flat"] else COCKED
        out.append((float(d["position_m"][0]), float(d["position_m"][1]), cls, d.get("visible_share", 1.0) >= 0.25))
    return out


def detector_examples(view: View, label: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The detector's windows of a frame: centred within 0.15 edge of a die's centre (1), farther
    than 0.45 edge from every die (0: 80 of those within 1.5 edges of a die, 30 others); between, none."""
    features, cx, cy = view.detector_grid()
    gx, gy = np.meshgrid(cx, cy)
    gx, gy = gx.ravel(), gy.ravel()
    near = np.full(gx.shape, np.inf)
    for x, y, _, _ in _truth_dice(label):
        near = np.minimum(near, np.hypot(gx - x, gy - y) / view.edge)
    seen = np.zeros(gx.shape, bool)
    for x, y, _, visible in _truth_dice(label):
        if visible:
            seen |= np.hypot(gx - x, gy - y) / view.edge <= 0.15
    far = np.nonzero(near > 0.45)[0]
    close = far[near[far] <= 1.5]
    rest = far[near[far] > 1.5]
    close = rng.choice(close, size=min(80, len(close)), replace=False) if len(close) else close
    rest = rng.choice(rest, size=min(30, len(rest)), replace=False) if len(rest) else rest
    pos = np.nonzero(seen)[0]
    take = np.concatenate([pos, np.sort(close), np.sort(rest)])
    return features[take].astype(np.float32), np.concatenate([np.ones(len(pos), int), np.zeros(len(close) + len(rest), int)])


def classifier_examples(view: View, label: dict, model: Model, rng: np.random.Generator,
                        turns: int) -> tuple[list[np.ndarray], list[int]]:
    """The classifier's windows of a frame: at each detector candidate (labelled by the true die
    within 0.45 edge, or no die), and at each true die's centre moved by up to 0.1 edge; each
    at ``turns`` turns drawn at random."""
    truth = _truth_dice(label)
    places = []
    for x, y, _ in model.candidates(view):
        best = min(truth, key=lambda t: math.hypot(t[0] - x, t[1] - y))
        gap = math.hypot(best[0] - x, best[1] - y) / view.edge
        if gap > 0.45:
            places.append((x, y, 0))
        elif best[3]:
            places.append((x, y, best[2]))
    for x, y, cls, visible in truth:
        if visible:
            dx, dy = rng.uniform(-0.1, 0.1, 2) * view.edge
            places.append((x + dx, y + dy, cls))
    rows, ys = [], []
    for x, y, cls in places:
        for turn in rng.integers(0, 4, turns) * (math.pi / 2) + rng.normal(0, math.radians(4), turns):
            rows.append(view.window((x, y), float(turn)).astype(np.float32))
            ys.append(cls)
    return rows, ys


def choose_unread_threshold(model: Model, frames) -> tuple[float, dict]:
    """The face-unread threshold from validation frames (``(label, rgb, calibration)``): of
    ``UNREAD_GRID``, the one with the fewest roll frames settled on wrong faces, then the
    fewest roll frames left unread or called a no roll; with the figures at each threshold."""
    rolls = []          # per roll frame: called a no roll, faces right, the least chance of a face read
    for label, rgb, cal in frames:
        if label["truth"]["no_roll"]:
            continue
        reading = model.read(rgb, cal)
        dice = reading["dice"]
        least = min((d["chances"][str(d["face"])] for d in dice if d["face"] is not None), default=0.0)
        right = sorted(str(d["face"]) for d in dice) == sorted(str(f) for f in label["truth"]["faces"])
        rolls.append((bool(reading["no_roll"]), right, least))
    table = {}
    for t in UNREAD_GRID:
        wrong = sum(1 for called, right, least in rolls if not called and least >= t and not right)
        void = sum(1 for called, right, least in rolls if called or least < t)
        table[f"{t:.2f}"] = {"rolls_settled_wrong": wrong, "roll_frames_not_settled": void}
    best = min(UNREAD_GRID, key=lambda t: (table[f"{t:.2f}"]["rolls_settled_wrong"],
                                           table[f"{t:.2f}"]["roll_frames_not_settled"], t))
    return best, {"roll_frames": len(rolls), "by_threshold": table}


def train(folders: list[Path], seed: int, limit: int | None = None, iterations: int = 300,
          step=lambda: None, cocked_weight: float = 1.0) -> Model:
    """Both networks from the frames of ``folders`` but the validation split (the detector
    first, then the classifier on the detector's own candidates), every draw from ``seed``;
    then the face-unread threshold chosen on the validation split. ``cocked_weight``: the
    cocked class's total weight against a face's average."""
    rng = np.random.default_rng([seed, 1])
    xs, ys = [], []
    for label, rgb, cal in _frames(folders, limit, validation=False):
        x, y = detector_examples(View(rgb, cal), label, rng)
        xs.append(x)
        ys.append(y)
        step()
    x_det, y_det = np.concatenate(xs), np.concatenate(ys)
    weights = np.where(y_det == 1, 0.5 / max(1, y_det.sum()), 0.5 / max(1, (y_det == 0).sum()))
    detector = fit(x_det, y_det, 2, 24, seed, weights, iterations)
    model = Model(detector, detector, {})
    rows: list[np.ndarray] = []
    classes: list[int] = []
    rng = np.random.default_rng([seed, 2])
    frames = 0
    for label, rgb, cal in _frames(folders, limit, validation=False):
        windows, their_classes = classifier_examples(View(rgb, cal), label, model, rng, turns=3)
        rows += windows
        classes += their_classes
        frames += 1
        step()
    x_cls, y_cls = np.stack(rows), np.asarray(classes)
    counts = np.bincount(y_cls, minlength=len(CLASSES)).astype(float)
    # Each class weighs as the square root of its count (rare cocked dice count for more than their number).
    per_class = np.where(counts > 0, 1 / np.sqrt(np.maximum(counts, 1)), 0.0)
    # ... and cocked dice (a no roll missed settles a void drop, 625b.2(d)(5)) as much as
    # ``cocked_weight`` times a face's average total.
    totals = per_class * counts
    if counts[COCKED] > 0:
        per_class[COCKED] = cocked_weight * float(np.mean(totals[1:7])) / counts[COCKED]
    classifier = fit(x_cls, y_cls, len(CLASSES), 40, seed + 1, per_class[y_cls], iterations)
    model = Model(detector, classifier, {})
    held = list(_frames(folders, limit, validation=True))
    threshold, validation = choose_unread_threshold(model, held)
    meta = {"schema": SCHEMA, "seed": int(seed), "frames": frames, "iterations": iterations,
            "folders": [f.name for f in folders], "detector_windows": int(len(y_det)),
            "classifier_windows": {c: int(n) for c, n in zip(CLASSES, counts)},
            "cocked_weight": cocked_weight, "face_unread_below": threshold,
            "validation": {"frames": len(held), "every": VALIDATION_EVERY} | validation,
            "steps": {"detector": DET_STEP, "classifier": CLS_STEP}}
    return Model(detector, classifier, meta)


def more_cocked(folder: Path, out: Path, draws: int, level: str | None = None, design_file: str | None = None) -> int:
    """Cocked dice for training: each drop of ``folder`` (written by ``twin frames``) whose
    tray rests with a die not flat, dropped again (the same seed, the same rest) and drawn
    under ``draws`` more variation seeds (300000 + 16 x (seed - 200000) + k: training seeds,
    apart from every scoring set) by the folder's camera, at the folder's level (or ``level``:
    a name or a variation file, which must be the level the folder names), of the folder's
    design (or ``design_file``: the design file it was made from, when not a shipped one);
    written to ``out`` as ``twin frames`` writes. Returns the frames written."""
    from twin.camera.frames import Studio, read_labels, save
    from twin.camera.variation import load_level
    from twin.errors import DesignError
    from twin.tower import drop, load_design
    calibration = json.loads((folder / "calibration.json").read_text(encoding="utf-8"))
    design = load_design(design_file or calibration["design"])
    if design.name != calibration["design"]:
        raise DesignError(f"is the design {design.name!r}; the folder's frames are of {calibration['design']!r}",
                          file=design_file)
    try:
        variation = load_level(level or calibration["level"])
    except DesignError:
        if level is not None:
            raise
        raise DesignError(f"the frames were drawn at the level {calibration['level']!r}, which is not a shipped "
                          "one: give its variation file (--variation FILE)", file=str(folder / "calibration.json"),
                          field="level") from None
    if variation.name != calibration["level"]:
        raise DesignError(f"is the level {variation.name!r}; the folder's frames were drawn at "
                          f"{calibration['level']!r}", file=level)
    # The folder's camera as mounted, not the design's default one: the new frames must be seen
    # as the folder's were (a lab's camera, moved or another lens, is in calibration.json).
    camera = Calibration.from_dict(calibration).camera   # as a recogniser installed there reads it
    studio = Studio(design, "tower", camera, level=variation)
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(studio.calibration() | {"level": studio.level},
                                                     sort_keys=True, indent=1))
    made = 0
    try:
        for label in read_labels(folder, moment="rest"):
            if all(d["flat"] for d in label["truth"]["dice"]):
                continue
            seed = int(label["seed"])
            result = drop(design, seed)
            for k in range(draws):
                save(studio.rest_of_drop(result, name=f"{design.name}-{seed:06d}-v{k:02d}",
                                         variation_seed=300000 + (seed - 200000) * 16 + k), out)
                made += 1
    finally:
        studio.close()
    return made


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["train"]:
        return _train_main(argv[1:])
    if argv[:1] == ["cocked"]:
        return _cocked_main(argv[1:])
    parser = recogniser_parser("python -m bench.vision.learned", "The learned recogniser: one JSON reading per "
                               "frame ('train' as the first argument trains one).")
    parser.add_argument("--model", default=str(MODEL), metavar="FILE", help="the model (default: the shipped one)")
    args = parser.parse_args(argv)
    cal = load_calibration(args.calibration, "learned recogniser")
    if cal is None:
        return 2
    try:
        model = Model.load(args.model)
    except (OSError, ValueError, KeyError) as err:
        print(f"learned recogniser: {args.model}: not a learned model: {err}", file=sys.stderr)
        return 2
    return answer_frames(args, lambda data: read_image(data, cal, model))


def _cocked_main(argv: list[str]) -> int:
    from twin.errors import DesignError
    parser = argparse.ArgumentParser(prog="python -m bench.vision.learned cocked",
                                     description="More training frames of cocked dice: the drops of a twin frames "
                                                 "folder with a die not flat, drawn under more variation seeds.")
    parser.add_argument("folder", metavar="FRAMES", help="a folder written by twin frames (a tower)")
    parser.add_argument("--draws", type=int, default=6, help="variation seeds a cocked drop (default 6)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    parser.add_argument("--variation", metavar="FILE", default=None,
                        help="the variation file the folder was drawn with, when not a shipped level")
    parser.add_argument("--design", metavar="FILE", default=None,
                        help="the tower design file the folder was made from, when not a shipped design")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if not (folder / "calibration.json").is_file():
        print(f"learned cocked: {folder}: no calibration.json: not a folder written by twin frames", file=sys.stderr)
        return 2
    try:
        made = more_cocked(folder, Path(args.out), args.draws, args.variation, args.design)
    except DesignError as err:
        print(f"learned cocked: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"learned cocked: {folder}: {err}", file=sys.stderr)
        return 2
    print(json.dumps({"out": args.out, "frames": made}))
    return 0


THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _train_main(argv: list[str]) -> int:
    if any(os.environ.get(k) != "1" for k in THREADS) and __name__ == "__main__":
        # One BLAS thread: a product's sums in one order, so a seed gives the same model bytes.
        # The variables are read when numpy loads: the command starts again with them set.
        env = os.environ | {k: "1" for k in THREADS}
        os.execve(sys.executable, [sys.executable, "-m", "bench.vision.learned", "train", *argv], env)
    parser = argparse.ArgumentParser(prog="python -m bench.vision.learned train",
                                     description="Train the learned recogniser on folders of twin frames.")
    parser.add_argument("folders", nargs="+", metavar="FRAMES", help="folders written by twin frames (towers)")
    parser.add_argument("--seed", type=int, required=True, help="every draw of the training comes from it")
    parser.add_argument("--out", required=True, metavar="FILE", help="the model file to write (.npz)")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="at most N frames a folder")
    parser.add_argument("--iterations", type=int, default=300, help="L-BFGS iterations a network (default 300)")
    parser.add_argument("--cocked-weight", type=float, default=1.0,
                        help="the cocked class's total weight against a face's average (default 1)")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.folders]
    for f in folders:
        if not (f / "calibration.json").is_file():
            print(f"learned train: {f}: no calibration.json: not a folder written by twin frames", file=sys.stderr)
            return 2
    try:
        model = train(folders, args.seed, args.limit, args.iterations, cocked_weight=args.cocked_weight)
    except (OSError, ValueError, KeyError) as err:
        print(f"learned train: {err}", file=sys.stderr)
        return 2
    model.save(args.out)
    print(json.dumps({"out": args.out, "bytes": Path(args.out).stat().st_size} | model.meta, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
