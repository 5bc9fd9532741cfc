"""The reference recogniser: reads a studio frame of the tray or the wheel
with numpy and scipy, as a baseline for any other recogniser and as the test
of the loop (docs/camera.md, "The reference recogniser").

It is installed with its camera like a real one: it knows the camera's
calibration (``calibration.json`` of a frames folder: the camera as mounted,
the dice's edge, the tray, the wheel's pocket order and radii), never a
frame's labels.

Dice, per frame:
1. The tray is the calibrated floor projected into the image. The felt is
   the commonest colour of its pixels darker than Otsu's level (lit dice are
   the brightest things on it and may cover half a small tray); dice are the
   pixels far from the felt in colour.
2. Flat dice's top faces all face the light alike: their brightness is the
   commonest among the dice's pixels. A face is the pixels near it, grown
   through pixels a little further from it (a gleam brightens one end), pips
   filled in; two faces joined where dice touch are split where they narrow,
   and a region two faces long that does not narrow (a cocked die's lit
   face lying along the top of the die it leans on) is cut across its middle.
3. The face's pips are its dark holes of at least a third of a pip's
   expected size: their count is the face.
4. Flat or not (625b.2(d)(5)): a flat die's face and pips have known shapes
   and sizes wherever it lies, through the calibrated camera. The pip
   pattern, back-projected onto the height of a flat die's top, must have
   its size (a die on other dice is nearer the camera: larger) and be
   square; every pip is a disc, which a face tilted by t shows as an ellipse
   of axes in the ratio cos t; a lone pip must not be too large; the face
   must be square; the die must not show its side beyond the outline of a
   flat die lying there. A patch of die pixels that no flat die explains is
   a die whose top face was not found: not flat. Only while more faces are
   found than the tray holds dice are two faces closer than an edge one
   cocked die showing two sides; with no more faces than dice they are dice
   leaning on one another.

Wheel, per frame (``bench.vision.reference_wheel``): the ball is the
largest bright, round blob in the pocket ring; the green zero pocket gives
the rotor's angle; the ball's angle from the zero, in pockets, indexes the
calibrated pocket order.

Run as a command: ``python -m bench.vision.reference --calibration FILE
IMAGE`` prints one JSON reading; ``--stream`` reads one image path a line
on stdin and answers one JSON line each (``bench recognize`` uses it; the
command line is every shipped recogniser's, ``bench.vision.shipped_command``).
The calibration is ``bench.vision.calibration``'s.
"""

from __future__ import annotations

import io
import math
import sys

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage
from scipy.spatial import ConvexHull

from bench.vision.calibration import Calibration
from bench.vision.reference_wheel import read_wheel
from bench.vision.shipped_command import answer_frames, load_calibration, recogniser_parser
from twin.camera.spec import Camera

FACE_SHARE = 0.8            # the flat part of a die's face (the rest is its rounded edges)
PIP_RADIUS = 0.09           # of the edge
FELT_DISTANCE = 48          # RGB distance from the felt that makes a pixel a die's
FACE_BAND = 0.07            # a flat die's top face: pixels within 7% of the top faces' brightness
PIP_SHARE = 0.6             # a pip: darker than 60% of it
SQUARENESS_MIN = 0.86       # the face's principal spreads' ratio below this: tilted
SIZE_MAX = 1.2              # the face's shorter side this much longer than a flat die's there: lifted
SIZE_MIN = 0.85             # ... or this much shorter: tilted
LEFTOVER_DIE = 0.4          # die pixels unexplained by flat dice, this many faces' worth: a die not flat
LONG_REGION = 1.7           # a face region this many faces' sides long, unparted by erosion: two faces
OUTSIDE_MAX = 0.2           # the die's pixels outside a flat die's outline, in faces: its side shows
PIP_SCALE = (0.97, 1.03)    # the pip pattern's size against a flat die's there
PIP_SQUARENESS_MIN = 0.96   # the pip pattern's squareness against its own
PIP_ROUNDNESS_PX = 0.6      # the pips' median ratio of axes below 1 - this / (pip radius in pixels): tilted
PIP_SIZE_MAX = 1.08         # a lone pip this much wider than a flat die's there: lifted


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def _otsu(values: np.ndarray) -> float:
    """The level that best splits ``values`` (0-255) in two (Otsu): the felt below, lit dice above."""
    counts = np.bincount(np.clip(values, 0, 255).astype(int), minlength=256).astype(float)
    levels = np.arange(256)
    weight = np.cumsum(counts)
    mass = np.cumsum(counts * levels)
    total, total_mass = weight[-1], mass[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (total_mass * weight - mass * total) ** 2 / (weight * (total - weight))
    return float(np.nanargmax(between[:-1]))


def _polygon_mask(shape, polygon) -> np.ndarray:
    image = Image.new("1", (shape[1], shape[0]), 0)
    ImageDraw.Draw(image).polygon([tuple(map(float, p)) for p in polygon], fill=1)
    return np.asarray(image, bool)


def _area(polygon) -> float:
    p = np.asarray(polygon, float)
    return float(abs(np.dot(p[:, 0], np.roll(p[:, 1], 1)) - np.dot(p[:, 1], np.roll(p[:, 0], 1))) / 2)


def _spreads(ys: np.ndarray, xs: np.ndarray) -> tuple[float, float]:
    """The principal standard deviations of a pixel set, larger first."""
    cov = np.cov(np.vstack([xs, ys]).astype(float))
    low, high = np.linalg.eigvalsh(cov)
    return math.sqrt(max(high, 0.0)), math.sqrt(max(low, 0.0))


def _min_rectangle(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float]:
    """The smallest rectangle holding the points: its angle (radians, modulo
    a quarter turn) and its two sides, longer first (rotating calipers over
    the convex hull)."""
    pts = np.unique(np.column_stack([xs, ys]).astype(float), axis=0)
    if len(pts) < 3:
        return 0.0, 1.0, 1.0
    hull = pts[ConvexHull(pts).vertices]
    best = (math.inf, 0.0, 0.0, 0.0)
    for a, b in zip(hull, np.roll(hull, -1, axis=0)):
        angle = math.atan2(b[1] - a[1], b[0] - a[0])
        c, s = math.cos(angle), math.sin(angle)
        u, v = hull @ np.array([c, s]), hull @ np.array([-s, c])
        w, h = u.max() - u.min(), v.max() - v.min()
        if w * h < best[0]:
            best = (w * h, angle % (math.pi / 2), max(w, h), min(w, h))
    return best[1], best[2] + 1, best[3] + 1


def _flat_die(camera: Camera, edge: float, ground, yaw: float) -> np.ndarray:
    """The image outline of a die lying flat with its top face's centre at ``ground`` (on z = edge)."""
    c, s = math.cos(yaw), math.sin(yaw)
    h = edge / 2
    corners = [(ground[0] + (sx * c - sy * s) * h, ground[1] + (sx * s + sy * c) * h, z)
               for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, edge)]
    px = camera.project(corners)
    return px[ConvexHull(px).vertices]


def _face_area(camera: Camera, edge: float, centre) -> float:
    """The image area of a flat die's top face (its flat part) whose centre shows at ``centre``."""
    ground = camera.on_plane([centre], edge)[0]
    half = edge * FACE_SHARE / 2
    return _area(camera.project([(ground[0] + sx * half, ground[1] + sy * half, edge)
                                 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]))


def _split_joined(faces: np.ndarray, camera: Camera, edge: float) -> np.ndarray:
    """The face regions labelled, a region too large or too long for one face
    (two dice's faces meeting where their edges touch) split where it narrows:
    eroded until it falls apart, each pixel then given to the nearest part."""
    regions, count = ndimage.label(faces)
    next_label = count + 1
    for index, where in enumerate(ndimage.find_objects(regions), start=1):
        if where is None:
            continue
        region = regions[where] == index
        ys, xs = np.nonzero(region)
        expected = _face_area(camera, edge, (xs.mean() + where[1].start, ys.mean() + where[0].start))
        major, minor = _spreads(ys, xs)
        if len(xs) < 1.3 * expected and minor >= 0.75 * major:
            continue
        core, parts = region, 1
        for _ in range(int(0.3 * math.sqrt(expected))):
            core = ndimage.binary_erosion(core)
            labels, parts = ndimage.label(core)
            sizes = ndimage.sum(core, labels, range(1, parts + 1)) if parts else []
            big = [k + 1 for k, size in enumerate(sizes) if size >= 0.08 * expected]
            if len(big) >= 2:
                seeds = np.where(np.isin(labels, big), labels, 0)
                _, (iy, ix) = ndimage.distance_transform_edt(seeds == 0, return_indices=True)
                nearest = seeds[iy, ix]
                window = regions[where]
                for n, k in enumerate(big):
                    window[region & (nearest == k)] = index if n == 0 else next_label
                    next_label += n > 0
                break
            if parts == 0:
                break
        else:
            next_label += _cut_long(regions[where], region, index, next_label, expected)
    return regions


def _cut_long(window: np.ndarray, region: np.ndarray, index: int, new_label: int, expected: float) -> int:
    """A region two faces long that erosion could not part (a cocked die's lit face
    lying on the face of the die it leans on, joined along a whole edge): cut across
    its long axis where it is narrowest between a third and two thirds of its length.
    Returns how many labels it used (0: not that long, left whole)."""
    ys, xs = np.nonzero(region)
    centred = np.column_stack([xs, ys]).astype(float)
    centred -= centred.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)
    along = centred @ vectors[:, 1]                  # the long axis
    length = along.max() - along.min() + 1
    if length < LONG_REGION * math.sqrt(expected):
        return 0
    bins = np.floor(along - along.min()).astype(int)
    widths = np.bincount(bins)
    lo, hi = int(len(widths) / 3), int(2 * len(widths) / 3)
    cut = lo + int(np.argmin(widths[lo:hi + 1]))
    far = bins > cut
    window[ys[far], xs[far]] = new_label
    return 1


def _pip_scale(pips: list[tuple[float, float]], camera: Camera, edge: float) -> tuple[float, float | None] | None:
    """From the pips of a face with at least two: how large its pip pattern
    is against a flat die's (1 when flat on the floor) and how square (the
    ratio of its principal spreads against the pattern's own; 1 when flat;
    None for a pattern whose own spreads have no ratio: 2 and 3 lie on a line)."""
    n = len(pips)
    if n < 2 or n > 6:
        return None
    world = camera.on_plane(pips, edge)[:, :2]
    centred = world - world.mean(axis=0)
    # The patterns' spreads (in quarters of an edge): 2 and 3 lie on a
    # diagonal, 4 and 5 on corners, 6 in two columns.
    cov = centred.T @ centred / n
    low, high = np.linalg.eigvalsh(cov)
    quarter = edge / 4
    expected = {2: (2.0, 0.0), 3: (4 / 3, 0.0), 4: (1.0, 1.0), 5: (0.8, 0.8), 6: (1.0, 2 / 3)}[n]
    scale = math.sqrt(high / expected[0]) / quarter
    squareness = math.sqrt(low / high) / math.sqrt(expected[1] / expected[0]) if expected[1] else None
    return scale, squareness


def read_dice(rgb: np.ndarray, cal: Calibration) -> dict:
    """The dice of a tray frame: per die its face, whether it lies flat, its box."""
    camera, edge = cal.camera, float(cal.data["dice"]["edge_m"])
    tray = cal.data["tray"]
    w, d = tray["width_m"] / 2, tray["depth_m"] / 2
    floor = ndimage.binary_erosion(_polygon_mask(rgb.shape, camera.project(
        [(-w, -d, 0), (w, -d, 0), (w, d, 0), (-w, d, 0)])), iterations=3)
    # A die against a wall shows its top beyond the floor's outline, over the wall's inside face.
    inside = _polygon_mask(rgb.shape, camera.project([(-w, -d, edge), (w, -d, edge), (w, d, edge), (-w, d, edge)]))
    image = rgb.astype(float)
    lum = _luminance(image)
    # The felt: the commonest colour (16 levels a channel) of the floor's darker pixels (the dice's
    # lit faces are the brightest things on it, and may cover more of a small tray than the felt).
    on_floor = lum[floor]
    pixels = rgb[floor][on_floor <= _otsu(on_floor)].astype(int)
    if len(pixels) < 100:
        pixels = rgb[floor].astype(int)
    bins = (pixels[:, 0] >> 4) * 256 + (pixels[:, 1] >> 4) * 16 + (pixels[:, 2] >> 4)
    felt = np.median(pixels[bins == np.bincount(bins).argmax()], axis=0)
    dice = floor & (np.linalg.norm(image - felt, axis=2) > FELT_DISTANCE)
    dice = ndimage.binary_opening(dice, iterations=1)
    # The top faces of flat dice all face the light alike: the commonest brightness of the dice's pixels.
    levels = np.round(lum[dice] / 2).astype(int)
    top = 2.0 * np.bincount(levels).argmax() if levels.size else 255.0
    # Over the walls' inside faces only what is as bright as a top face is a die's.
    dice |= inside & ~floor & (lum >= (1 - 2 * FACE_BAND) * top)
    # A face: pixels near that brightness, grown through pixels a little further from it
    # (a specular gleam makes a face brighter at one end than the other).
    core = dice & (np.abs(lum - top) <= max(6.0, FACE_BAND * top))
    loose = dice & (np.abs(lum - top) <= max(10.0, 2 * FACE_BAND * top))
    faces = ndimage.binary_propagation(core, mask=loose)
    faces = ndimage.binary_opening(ndimage.binary_fill_holes(faces), iterations=2)
    regions = _split_joined(faces, camera, edge)
    # Every die pixel goes to the nearest face: a die's blob, split among its faces' dice.
    _, (iy, ix) = ndimage.distance_transform_edt(regions == 0, return_indices=True)
    owner = np.where(dice, regions[iy, ix], 0)
    found = []
    for index, where in enumerate(ndimage.find_objects(regions), start=1):
        if where is None:
            continue
        region = regions[where] == index
        ys, xs = np.nonzero(region)
        ys, xs = ys + where[0].start, xs + where[1].start
        centre = (float(xs.mean()), float(ys.mean()))
        ground = camera.on_plane([centre], edge)[0]
        half = edge * FACE_SHARE / 2
        expected = _area(camera.project([(ground[0] + sx * half, ground[1] + sy * half, edge)
                                         for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]))
        if len(xs) < 0.25 * expected:
            continue          # a sliver: a side face's lit bevel, a reflection
        px_per_m = math.sqrt(expected) / (edge * FACE_SHARE)
        pip_area = math.pi * (PIP_RADIUS * edge * px_per_m) ** 2
        # The pips: the dark holes of the face.
        holes, n = ndimage.label(region & (lum[where] < PIP_SHARE * top))
        pips, pip_sizes, roundness = [], [], []
        for k, spot in enumerate(ndimage.find_objects(holes), start=1):
            hole_size = int((holes[spot] == k).sum())
            if hole_size >= pip_area / 3:
                py, px = np.nonzero(holes[spot] == k)
                pips.append((px.mean() + spot[1].start + where[1].start, py.mean() + spot[0].start + where[0].start))
                pip_sizes.append(math.sqrt(hole_size / pip_area))
                long, short = _spreads(py, px)
                roundness.append(short / long if long else 1.0)
        yaw, _, short_side = _min_rectangle(xs, ys)
        major, minor = _spreads(ys, xs)
        squareness = minor / major if major else 0.0
        size = short_side / (edge * FACE_SHARE * px_per_m)
        pattern = _pip_scale(pips, camera, edge)
        # Where a flat die lying here would show: what of the die shows outside it is its side, tilted up.
        outline = _flat_die(camera, edge, ground, yaw)
        shadow = ndimage.binary_dilation(_polygon_mask(dice.shape, outline),
                                         iterations=max(2, int(0.04 * edge * px_per_m)))
        checks: dict[str, float | None] = {"squareness": round(squareness, 3), "size": round(size, 3)}
        flat = squareness >= SQUARENESS_MIN and size >= SIZE_MIN
        if roundness:
            # A pip is a disc: seen tilted by t it is an ellipse, its axes in the ratio cos t.
            # Small pips are rounded off by the pixels: the least a flat die's may show falls with their size.
            pip_roundness = round(float(np.median(roundness)), 3)
            checks["pip_roundness"] = pip_roundness
            least = 1 - PIP_ROUNDNESS_PX / (PIP_RADIUS * edge * px_per_m)
            flat = flat and pip_roundness >= least
        if len(pips) < 2:
            # No pattern to measure: the face's own size, and its pip's, say how near the camera it is.
            checks["pip_size"] = round(pip_sizes[0], 3) if pip_sizes else None
            flat = flat and (pip_sizes[0] <= PIP_SIZE_MAX if pip_sizes else size <= SIZE_MAX)
        if pattern is not None:
            checks["pip_scale"] = round(pattern[0], 3)
            flat = flat and PIP_SCALE[0] <= pattern[0] <= PIP_SCALE[1]
            if pattern[1] is not None:
                checks["pip_squareness"] = round(pattern[1], 3)
                flat = flat and pattern[1] >= PIP_SQUARENESS_MIN
        found.append({"face": len(pips) if 1 <= len(pips) <= 6 else None, "flat": bool(flat),
                      "centre_px": [round(centre[0], 1), round(centre[1], 1)],
                      "box_px": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                                 int(ys.max() - ys.min() + 1)], "checks": checks, "_area": len(xs),
                      "_index": index, "_shadow": shadow, "_expected": expected})
    # Die pixels no flat die lying where a face was found would show: a large patch is a die
    # whose top face was not found (tilted away from the light); a small one, the side a
    # nearby face's die shows because it is tilted.
    explained = np.zeros(dice.shape, bool)
    for f in found:
        explained |= f["_shadow"]
    leftover = ndimage.binary_opening(dice & ~explained, iterations=2)
    patches, _ = ndimage.label(leftover)
    face_area = float(np.median([f["_expected"] for f in found])) if found else 0.0
    for k, where in enumerate(ndimage.find_objects(patches), start=1):
        if where is None:
            continue
        ys, xs = np.nonzero(patches[where] == k)
        if face_area and len(xs) >= LEFTOVER_DIE * face_area:
            ys, xs = ys + where[0].start, xs + where[1].start
            found.append({"face": None, "flat": False, "centre_px": [round(float(xs.mean()), 1),
                                                                      round(float(ys.mean()), 1)],
                          "box_px": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                                     int(ys.max() - ys.min() + 1)],
                          "checks": {"unexplained": round(len(xs) / face_area, 3)}, "_area": 0})
            leftover[patches == k] = False
    for f in found:
        if "_index" in f:
            outside = float((leftover & (owner == f["_index"])).sum()) / f["_expected"]
            f["checks"]["outside"] = round(outside, 3)
            f["flat"] = f["flat"] and outside <= OUTSIDE_MAX

    found = _one_face_a_die(found, edge, camera, int(cal.data["dice"]["count"]))
    for f in found:
        for key in ("_area", "_index", "_shadow", "_expected"):
            f.pop(key, None)
    return {"dice": found, "no_roll": any(not f["flat"] for f in found) or len(found) != cal.data["dice"]["count"]}


def _one_face_a_die(found: list[dict], edge: float, camera: Camera, count: int) -> list[dict]:
    """A cocked die may show two lit faces: while more dice are found than the
    tray holds (``count``), the two faces closest together, closer than an edge,
    are one die, which is then cocked; it reads as its larger face. With no more
    faces than dice, faces that close are dice leaning on one another, each
    judged by its own face."""
    found = list(found)
    ground = {id(f): camera.on_plane([f["centre_px"]], edge)[0] for f in found}
    while len(found) > count:
        pairs = [(math.hypot(*(ground[id(a)][:2] - ground[id(b)][:2])), i, j)
                 for i, a in enumerate(found) for j, b in enumerate(found) if i < j]
        gap, i, j = min(pairs)
        if gap >= 0.85 * edge:
            break
        keep, gone = (found[i], found[j]) if found[i]["_area"] >= found[j]["_area"] else (found[j], found[i])
        keep["flat"] = False
        x0, y0 = min(keep["box_px"][0], gone["box_px"][0]), min(keep["box_px"][1], gone["box_px"][1])
        x1 = max(keep["box_px"][0] + keep["box_px"][2], gone["box_px"][0] + gone["box_px"][2])
        y1 = max(keep["box_px"][1] + keep["box_px"][3], gone["box_px"][1] + gone["box_px"][3])
        keep["box_px"] = [x0, y0, x1 - x0, y1 - y0]
        found.remove(gone)
    return sorted(found, key=lambda f: -f["_area"])


def read_image(data: bytes, cal: Calibration) -> dict:
    """The reading of one encoded frame (PNG or JPEG)."""
    rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    if rgb.shape[:2] != (cal.camera.height_px, cal.camera.width_px):
        raise ValueError(f"the frame is {rgb.shape[1]}x{rgb.shape[0]}, the calibrated camera "
                         f"{cal.camera.width_px}x{cal.camera.height_px}")
    return read_dice(rgb, cal) if cal.scene == "tower" else read_wheel(rgb, cal)


def main(argv: list[str] | None = None) -> int:
    args = recogniser_parser("python -m bench.vision.reference",
                             "The reference recogniser: one JSON reading per frame.").parse_args(argv)
    cal = load_calibration(args.calibration, "reference recogniser")
    if cal is None:
        return 2
    return answer_frames(args, lambda data: read_image(data, cal))


if __name__ == "__main__":
    sys.exit(main())
