"""The reference recogniser's reading of a wheel frame: the ball is the
largest bright, round blob in the pocket ring; the green zero pocket gives
the rotor's angle; the ball's angle from the zero, in pockets, indexes the
calibrated pocket order.

Apart from the dice (``bench.vision.reference``): a wheel shares nothing of
the tray's reading but the calibration, and the learned recogniser, which
learned dice only, reads a wheel with it too.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage

from bench.vision.calibration import Calibration


def read_wheel(rgb: np.ndarray, cal: Calibration) -> dict:
    """The pocket the ball lies in, from the ball and the green zero."""
    camera, data = cal.camera, cal.data
    pockets = data["pockets"]
    r_in, r_out, ball_r = data["pocket_inner_radius_m"], data["pocket_outer_radius_m"], data["ball_radius_m"]
    if "ring" not in cal.cache:        # the pocket ring in the image: the same for every frame
        h, w = rgb.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w]
        ground = camera.on_plane(np.column_stack([xx.ravel(), yy.ravel()]), ball_r).reshape(h, w, 3)
        radius = np.hypot(ground[..., 0], ground[..., 1])
        cal.cache["ring"] = (radius > r_in - ball_r) & (radius < r_out + 0.5 * ball_r)
    ring = cal.cache["ring"]
    image = rgb.astype(float)
    low = image.min(axis=2)
    high = image.max(axis=2)
    px_per_m = camera.width_px / 2 / (math.tan(math.radians(camera.fov_deg) / 2) * camera.width_px
                                      / camera.height_px * (camera.position_m[2] - ball_r))
    ball_px = ball_r * px_per_m
    bright = ring & (low > 150) & (high - low < 60)
    bright = ndimage.binary_opening(bright, structure=_disc(max(1, int(ball_px * 0.45))))
    blobs, n = ndimage.label(bright)
    reading: dict = {"pocket": None}
    if n == 0:
        return reading | {"why": "no ball in the pocket ring"}
    sizes = ndimage.sum(bright, blobs, range(1, n + 1))
    best = int(np.argmax(sizes)) + 1
    if sizes[best - 1] < 0.3 * math.pi * ball_px ** 2:
        return reading | {"why": "no ball-sized blob in the pocket ring"}
    by, bx = ndimage.center_of_mass(blobs == best)
    ball = camera.on_plane([(bx, by)], ball_r)[0]
    green = ring & (image[..., 1] > image[..., 0] + 30) & (image[..., 1] > image[..., 2] + 15)
    green = ndimage.binary_opening(green, iterations=1)
    if green.sum() < 20:
        return reading | {"why": "the zero's green pocket is not seen"}
    gy, gx = ndimage.center_of_mass(green)
    zero = camera.on_plane([(gx, gy)], 0.0)[0]
    pitch = 2 * math.pi / len(pockets)
    zero_angle, ball_angle = math.atan2(zero[1], zero[0]), math.atan2(ball[1], ball[0])
    rotor = zero_angle + pockets.index(0) * pitch          # pocket k is centred at rotor - k * pitch
    k = int(round((rotor - ball_angle) / pitch)) % len(pockets)
    return {"pocket": pockets[k], "ball_px": [round(bx, 1), round(by, 1)]}


def _disc(r: int) -> np.ndarray:
    y, x = np.mgrid[-r:r + 1, -r:r + 1]
    return x * x + y * y <= r * r
