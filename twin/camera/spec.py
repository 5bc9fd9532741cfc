"""A studio camera: where it stands, where it looks, its field of view and
resolution, and the projection of world points to its pixels.

The same matrices go to PyBullet's renderer (``computeViewMatrix``,
``computeProjectionMatrixFOV``) and to ``project``, so a label's outline of
a die lies on the die's pixels exactly. Pixel (0, 0) is the top-left corner
of the image; x runs right, y down.

A camera comes from a camera file (YAML), from the design's optional
``camera`` section (the same fields), or, without either, from the scene
itself: ``tower_camera`` looks straight down on the tray, ``wheel_camera``
straight down on the rotor, each fitting what it looks at into the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tablebench_io.fields import Fields
from tablebench_io.yamlfile import read_yaml
from twin.errors import DesignError
from twin import fixed_arithmetic as fx

MAX_PIXELS = 4096


@dataclass(frozen=True)
class Camera:
    position_m: tuple[float, float, float]
    target_m: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 1.0, 0.0)   # the world direction that is "up" in the image
    fov_deg: float = 40.0                             # vertical field of view
    width_px: int = 640
    height_px: int = 480

    @property
    def near_m(self) -> float:
        return max(0.005, 0.2 * self.distance_m)

    @property
    def far_m(self) -> float:
        return 3.0 * self.distance_m + 1.0

    @property
    def distance_m(self) -> float:
        return fx.norm(np.subtract(self.position_m, self.target_m))

    def view_matrix(self) -> np.ndarray:
        """World to camera (OpenGL: the camera looks down its -z), 4x4, row-major."""
        eye, target = np.array(self.position_m, float), np.array(self.target_m, float)
        forward = target - eye
        forward /= fx.norm(forward)
        side = np.cross(forward, np.array(self.up, float))
        side /= fx.norm(side)
        up = np.cross(side, forward)
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = side, up, -forward
        m[:3, 3] = -fx.matmul(m[:3, :3], eye)
        return m

    def projection_matrix(self) -> np.ndarray:
        """Camera to clip space (OpenGL perspective), 4x4, row-major."""
        f = 1.0 / math.tan(math.radians(self.fov_deg) / 2)
        aspect = self.width_px / self.height_px
        n, fa = self.near_m, self.far_m
        return np.array([[f / aspect, 0, 0, 0], [0, f, 0, 0],
                         [0, 0, (fa + n) / (n - fa), 2 * fa * n / (n - fa)], [0, 0, -1, 0]])

    def gl_matrices(self) -> tuple[list[float], list[float]]:
        """The view and projection matrices as PyBullet takes them (column-major lists)."""
        return ([float(v) for v in self.view_matrix().T.ravel()],
                [float(v) for v in self.projection_matrix().T.ravel()])

    def project(self, points) -> np.ndarray:
        """World points (N x 3, metres) to pixel coordinates (N x 2)."""
        pts = np.atleast_2d(np.asarray(points, float))
        homo = np.hstack([pts, np.ones((len(pts), 1))])
        clip = fx.matmul(homo, fx.matmul(self.projection_matrix(), self.view_matrix()).T)
        ndc = clip[:, :2] / clip[:, 3:4]
        return np.column_stack([(ndc[:, 0] + 1) * self.width_px / 2, (1 - ndc[:, 1]) * self.height_px / 2])

    def ray(self, pixels) -> tuple[np.ndarray, np.ndarray]:
        """The camera's position and the unit directions through ``pixels`` (N x 2)."""
        px = np.atleast_2d(np.asarray(pixels, float))
        ndc = np.column_stack([2 * px[:, 0] / self.width_px - 1, 1 - 2 * px[:, 1] / self.height_px])
        f = 1.0 / math.tan(math.radians(self.fov_deg) / 2)
        aspect = self.width_px / self.height_px
        local = np.column_stack([ndc[:, 0] * aspect / f, ndc[:, 1] / f, -np.ones(len(px))])
        rot = self.view_matrix()[:3, :3]
        directions = fx.matmul(local, rot)            # camera to world: the transpose of the rotation
        directions /= fx.row_norms(directions)[:, None]
        return np.array(self.position_m, float), directions

    def on_plane(self, pixels, z_m: float) -> np.ndarray:
        """Where the rays through ``pixels`` meet the horizontal plane at height ``z_m`` (N x 3)."""
        eye, directions = self.ray(pixels)
        t = (z_m - eye[2]) / directions[:, 2]
        return eye + directions * t[:, None]

    def moved(self, position_m=None, target_m=None, fov_deg=None) -> "Camera":
        return replace(self, position_m=_three_floats(position_m if position_m is not None else self.position_m),
                       target_m=_three_floats(target_m if target_m is not None else self.target_m),
                       fov_deg=float(fov_deg if fov_deg is not None else self.fov_deg))

    def to_dict(self) -> dict:
        return {"position_m": [round(v, 6) for v in self.position_m],
                "target_m": [round(v, 6) for v in self.target_m],
                "up": [round(v, 6) for v in self.up], "fov_deg": round(self.fov_deg, 6),
                "width_px": self.width_px, "height_px": self.height_px}


def _three_floats(values) -> tuple[float, float, float]:
    """A point or direction as the three floats a Camera holds (unpacked, so that its type says three)."""
    x, y, z = values
    return float(x), float(y), float(z)


def overhead(target: tuple[float, float, float], half_width_m: float, half_depth_m: float,
             height_m: float, width_px: int = 640, height_px: int = 480, margin: float = 1.12) -> Camera:
    """A camera ``height_m`` above ``target`` looking straight down, the back
    of the scene (+y) at the top of the image, its field of view just wide
    enough (by ``margin``) to hold a rectangle of the given half sizes."""
    aspect = width_px / height_px
    half_v = max(half_depth_m, half_width_m / aspect) * margin
    fov = 2 * math.degrees(math.atan(half_v / height_m))
    x, y, z = target
    return Camera((x, y, z + height_m), (x, y, z), (0.0, 1.0, 0.0), fov, width_px, height_px)


def tower_camera(design) -> Camera:
    """The result camera of a tower: straight above the tray's middle, high
    enough that a die at the tray's corner shows little of its sides (the
    perspective stays under 15 degrees) and the tray fills the frame."""
    t = design.tray
    half_w, half_d = t.width_m / 2 + t.wall_thickness_m, t.depth_m / 2 + t.wall_thickness_m
    height = max(0.25, 2.0 * math.hypot(t.width_m / 2, t.depth_m / 2) / math.tan(math.radians(30)))
    return overhead((0.0, 0.0, 0.0), half_w, half_d, height)


def wheel_camera(design) -> Camera:
    """The result camera of a wheel: straight above the rotor, holding the
    pocket ring and a little of the stator around it."""
    r = design.rotor.pocket_outer_radius_m * 1.1
    return overhead((0.0, 0.0, 0.0), r, r, 4 * r)


def _vector(f: Fields, key: str) -> tuple[float, float, float]:
    value = f.raw(key)
    if not isinstance(value, (list, tuple)) or len(value) != 3 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        raise f.error(key, f"must be three numbers [x, y, z], got {value!r}")
    return _three_floats(value)


def camera_from_mapping(data: Any, file: str | None = None, prefix: str = "camera") -> Camera:
    """A camera from its fields (a camera file, or a design's ``camera`` section)."""
    f = Fields(data, prefix, file, error=DesignError)
    position, target = _vector(f, "position_m"), _vector(f, "target_m")
    up = _vector(f, "up") if f.has("up") else (0.0, 1.0, 0.0)
    fov = f.raw("fov_deg", 40.0)
    if isinstance(fov, bool) or not isinstance(fov, (int, float)) or not 5 <= fov <= 120:
        raise f.error("fov_deg", f"must be a number of degrees from 5 to 120, got {fov!r}")
    size = []
    for key, default in (("width_px", 640), ("height_px", 480)):
        value = f.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 16 <= value <= MAX_PIXELS:
            raise f.error(key, f"must be a whole number of pixels from 16 to {MAX_PIXELS}, got {value!r}")
        size.append(value)
    f.done()
    forward = np.subtract(target, position)
    if fx.norm(forward) < 1e-3:
        raise f.error("target_m", "must be at least 1 mm from position_m")
    if fx.norm(np.cross(forward / fx.norm(forward), up)) < 1e-3:
        raise f.error("up", "must not point along the line of sight")
    return Camera(position, target, up, float(fov), size[0], size[1])


def load_camera(path: str | Path) -> Camera:
    """A camera file (YAML or JSON: ``position_m``, ``target_m``, ``up``,
    ``fov_deg``, ``width_px``, ``height_px``); a bad one raises ``DesignError``
    naming the file and the field."""
    data = read_yaml(path, error=DesignError)
    if isinstance(data, Mapping) and "camera" in data and "position_m" not in data:
        data = data["camera"]          # a calibration file written by ``twin frames`` holds it under "camera"
    return camera_from_mapping(data, str(path), prefix="")


def design_camera(design_path: str | Path) -> Camera | None:
    """The camera a design file describes in its ``camera`` section, or None
    (the loaders have checked it already)."""
    data = read_yaml(design_path, error=DesignError)
    if isinstance(data, Mapping) and data.get("camera") is not None:
        return camera_from_mapping(data["camera"], str(design_path))
    return None
