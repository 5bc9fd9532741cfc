"""What the learned recogniser sees of a frame (its features): the image
looked at on the plane of a flat die's top face, where every flat die's top
is a square of one size wherever it lies, in two channels (the distance of
each pixel's colour from the felt's, its brightness above the felt's), each
smoothed to the detector's and the classifier's sampling steps (step 1 of
``bench.vision.learned``); the detector's grid of windows and the
classifier's window, turned to the die's own sides.

Apart from the networks (``bench.vision.learned_model``) because training
and reading both make their examples from it, exactly alike.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import ndimage

from bench.vision.calibration import Calibration
from bench.vision.reference import _luminance, _otsu

DET_STEP = 8            # detector: samples per die edge
DET_WINDOW = 12         # ... its window: 1.5 edges
CLS_STEP = 16           # classifier: samples per die edge
CLS_WINDOW = 20         # ... its window: 1.25 edges
FELT_DISTANCE = 48 / 128         # the reference's distance from the felt that makes a pixel a die's


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
