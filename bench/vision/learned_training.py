"""The learned recogniser's training: both networks fitted (L-BFGS, scipy)
on the frames of ``twin frames`` folders, the detector first and then the
classifier on the detector's own candidates, every draw from one seed; the
face-unread threshold chosen on a validation split of the training seeds;
and more frames of cocked dice made with the twin (``more_cocked``).

Apart from reading (``bench.vision.learned_model``): a recogniser installed
at a table reads with the shipped model and never trains.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from PIL import Image
from scipy.optimize import minimize

from bench.vision.calibration import Calibration
from bench.vision.learned_model import CLASSES, COCKED, SCHEMA, Model, Net
from bench.vision.learned_view import CLS_STEP, DET_STEP, View

VALIDATION_EVERY = 5            # one training drop in five is the validation split
UNREAD_GRID = tuple(round(0.05 * k, 2) for k in range(0, 19))   # face-unread thresholds tried: 0 to 0.9


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
