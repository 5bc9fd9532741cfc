"""The truth of a frame, as labels a recogniser is scored against.

Every label comes from the twin's public results (``DropResult``'s dice:
face, flat, tilt, what holds it, pose; ``SpinResult``'s pocket) and from the
renderer's own segmentation mask, never from the picture: a die's box is the
box of the pixels the renderer drew for it (what the camera sees of it, a
die behind another cut short), its outline the convex hull of its projected
corners (where it is, whether seen or not).

``coco`` gathers a folder's labels into one COCO-style file: categories
``face-1`` .. ``face-6`` for dice (with ``flat``, ``tilt_deg`` and
``holder`` as attributes) and ``ball`` (with the pocket as an attribute).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.spatial import ConvexHull

from twin.camera.spec import Camera
from twin import fixed_arithmetic as fx

CATEGORIES = [{"id": f, "name": f"face-{f}", "supercategory": "die"} for f in range(1, 7)] + \
             [{"id": 7, "name": "ball", "supercategory": "ball"}]
BALL_CATEGORY = 7


def _rotation(quaternion) -> np.ndarray:
    x, y, z, w = quaternion
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def die_corners(edge_m: float, position, orientation) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return fx.matmul(signs * edge_m / 2, _rotation(orientation).T) + np.asarray(position, float)


def outline(camera: Camera, points) -> list[list[float]]:
    """The convex hull of ``points`` (world) in the image, as [[x, y], ...]."""
    px = camera.project(points)
    hull = ConvexHull(px)
    return [[round(float(x), 2), round(float(y), 2)] for x, y in px[hull.vertices]]


def mask_box(mask: np.ndarray, body: int) -> tuple[list[int] | None, int]:
    """The box [x, y, width, height] of the pixels showing ``body``, and their count."""
    ys, xs = np.nonzero(mask == body)
    if len(xs) == 0:
        return None, 0
    x0, y0 = int(xs.min()), int(ys.min())
    return [x0, y0, int(xs.max()) - x0 + 1, int(ys.max()) - y0 + 1], int(len(xs))


def polygon_area(polygon) -> float:
    pts = np.asarray(polygon)
    x, y = pts[:, 0], pts[:, 1]
    return float(abs(fx.dot(x, np.roll(y, 1)) - fx.dot(y, np.roll(x, 1))) / 2)


def die_truth(rest) -> dict[str, Any]:
    """One die's truth from the twin's result (``DieRest``)."""
    holder = getattr(rest, "holder", None) or getattr(rest, "reason", None)
    return {"face": int(rest.face), "flat": bool(rest.flat), "tilt_deg": round(float(rest.tilt_deg), 3),
            "holder": None if rest.flat else holder, "supported": bool(getattr(rest, "supported", True)),
            "position_m": [round(float(v), 5) for v in rest.position_m],
            "orientation_xyzw": [round(float(v), 5) for v in rest.orientation_xyzw]}


def tower_labels(result, edge_m: float, camera: Camera, mask: np.ndarray, bodies: list[int]) -> dict[str, Any]:
    """The truth of a tower frame at rest: the faces, each die (flat or not,
    its tilt and holder, its outline, its visible box) and the no-roll verdict
    (625b.2(d)(5))."""
    dice = []
    for i, (rest, body) in enumerate(zip(result.dice, bodies)):
        d = die_truth(rest)
        hull = outline(camera, die_corners(edge_m, rest.position_m, rest.orientation_xyzw))
        box, visible = mask_box(mask, body)
        d.update(die=i + 1, outline_px=hull, box_px=box, visible_px=visible,
                 visible_share=round(visible / max(1.0, polygon_area(hull)), 3))
        dice.append(d)
    return {"game": "dice", "faces": [int(f) for f in result.faces], "dice": dice,
            "no_roll": bool(result.no_roll), "settled": bool(result.settled),
            "seed": int(result.seed), "loaded": [int(f) for f in result.loaded]}


def moving_dice(poses, edge_m: float, camera: Camera, mask: np.ndarray, bodies: list[int]) -> list[dict]:
    """The dice of a frame taken during the fall: where they are, no faces yet."""
    dice = []
    for i, ((position, orientation), body) in enumerate(zip(poses, bodies)):
        box, visible = mask_box(mask, body)
        dice.append({"die": i + 1, "position_m": [round(float(v), 5) for v in position],
                     "orientation_xyzw": [round(float(v), 5) for v in orientation],
                     "outline_px": outline(camera, die_corners(edge_m, position, orientation)),
                     "box_px": box, "visible_px": visible})
    return dice


def wheel_labels(result, ball_xyz, rotor_angle_rad: float, ball_radius_m: float, camera: Camera,
                 mask: np.ndarray, ball_body: int) -> dict[str, Any]:
    """The truth of a wheel frame at rest: the winning pocket, the ball's place
    in the image and the rotor's angle."""
    box, visible = mask_box(mask, ball_body)
    ball = None           # no ball in the frame: nothing to place
    if ball_xyz is not None:
        centre = camera.project([ball_xyz])[0]
        edge = camera.project([np.add(ball_xyz, (ball_radius_m, 0, 0))])[0]
        ball = {"position_m": [round(float(v), 5) for v in ball_xyz],
                "centre_px": [round(float(v), 2) for v in centre],
                "radius_px": round(float(np.hypot(*(edge - centre))), 2),
                "box_px": box, "visible_px": visible}
    return {"game": "wheel", "pocket": result.number, "valid": bool(result.valid), "seed": int(result.seed),
            "rotor_angle_deg": round(math.degrees(rotor_angle_rad) % 360, 4), "ball": ball}


def coco(frames: list[dict], info: dict) -> dict:
    """A COCO-style file of a folder's frame labels (each as written beside its image)."""
    images: list[dict] = []
    annotations: list[dict] = []
    for image_id, label in enumerate(frames, start=1):
        images.append({"id": image_id, "file_name": label["image"], "width": label["width_px"],
                       "height": label["height_px"], "seed": label["seed"], "moment": label["moment"]})
        truth = label["truth"]
        for d in truth.get("dice", []):
            if d.get("box_px") is None or "face" not in d:
                continue
            annotations.append({
                "id": len(annotations) + 1, "image_id": image_id, "category_id": d["face"], "iscrowd": 0,
                "bbox": d["box_px"], "area": d["visible_px"],
                "segmentation": [[v for point in d["outline_px"] for v in point]],
                "attributes": {"die": d["die"], "flat": d["flat"], "tilt_deg": d["tilt_deg"],
                               "holder": d["holder"], "no_roll": truth["no_roll"]}})
        ball = truth.get("ball")
        if ball and ball.get("box_px"):
            annotations.append({
                "id": len(annotations) + 1, "image_id": image_id, "category_id": BALL_CATEGORY, "iscrowd": 0,
                "bbox": ball["box_px"], "area": ball["visible_px"],
                "attributes": {"pocket": truth["pocket"]}})
    return {"info": info, "images": images, "annotations": annotations, "categories": CATEGORIES}
