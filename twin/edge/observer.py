"""What a player watching a spin can know of it at a cutoff time: the observer model.

The player films the wheel. A camera gives a frame every ``frame_s`` seconds
(default 1/60 s) and reads angles to ``angle_res_deg`` (default 1 degree);
both are settable, and 0 means perfect. Two ways of watching:

- ``passages`` (default; Thorp and Shannon's clicks, Small & Tse's timings):
  the player times the ball each time it passes a fixed mark on the stator,
  and the rotor each time one of its 37 pockets passes the same mark. A time
  is known to a frame (uniform error over one frame, its mean lag removed)
  and the mark's position to the angle resolution (a further time error of
  up to half the resolution divided by the speed).
- ``frames`` (a computer reading every frame): the ball's and the rotor's
  angles in every frame, each read to the angle resolution (uniform error of
  half a step either way).

Only what was seen in the last ``window_s`` seconds before the cutoff is used
(default 4 s: two passages of the slowest ball), and at least two sightings of the ball and of the rotor are
needed; otherwise the player knows nothing of the spin. The rotor is turning
and on camera before the croupier launches the ball (a studio's stream shows
the wheel throughout the betting time), so its sightings may start up to
``rotor_lead_s`` before the launch (default 4 s, the window; 0: only after
the launch): early in a spin the rotor's speed is then known as well as late. The player knows the
design (the twin's own track model and the rotor's decay): this is the ideal
observer a regulator has to allow for. From the sightings the player fits the
state at the last sighting; to first order in the reading errors, the fitted
angle and speed are off by the intercept and slope of the least-squares line
through those errors, which is how the errors are drawn here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MODES = ("passages", "frames")
GRID_S = 0.001          # the true trajectories are sampled this finely to find passages
POCKETS = 37


@dataclass(frozen=True)
class Camera:
    frame_s: float = 1 / 60
    angle_res_deg: float = 1.0
    mode: str = "passages"
    window_s: float = 4.0
    rotor_lead_s: float = 4.0    # the rotor is watched this long before the launch

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"observer must be one of {', '.join(MODES)}, got {self.mode!r}")
        for name in ("frame_s", "angle_res_deg"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"{name.replace('_', '-')} is a measurement noise: it must be 0 or more, "
                                 f"got {value}")
        if self.mode == "frames" and self.frame_s <= 0:
            raise ValueError("frame-s must be more than 0 when the observer reads frames")
        if not self.window_s > 0 or not math.isfinite(self.window_s):
            raise ValueError(f"window-s must be more than 0, got {self.window_s}")
        if not (self.rotor_lead_s >= 0 and math.isfinite(self.rotor_lead_s)):
            raise ValueError(f"rotor-lead-s must be 0 or more, got {self.rotor_lead_s}")

    def to_json(self) -> dict:
        return {"observer": self.mode, "frame_s": self.frame_s, "angle_res_deg": self.angle_res_deg,
                "window_s": self.window_s, "rotor_lead_s": self.rotor_lead_s}


@dataclass(frozen=True)
class Estimate:
    """The player's estimate of the spin's state at ``t_s`` (after the launch)."""
    t_s: float
    ball_angle_rad: float        # unwrapped, stator frame, counter-clockwise
    ball_speed_m_s: float
    rotor_angle_rad: float
    rotor_speed_rad_s: float     # signed (the rotor turns clockwise: negative)


def _fit_errors(times: np.ndarray, errors: np.ndarray, at: float) -> tuple[float, float]:
    """Intercept at ``at`` and slope of the least-squares line through (times, errors)."""
    x = times - at
    xm, em = x.mean(), errors.mean()
    sxx = float(((x - xm) ** 2).sum())
    slope = float(((x - xm) * (errors - em)).sum() / sxx) if sxx > 0 else 0.0
    return em - slope * xm, slope


def _crossings(t: np.ndarray, angle: np.ndarray, step: float) -> np.ndarray:
    """Times at which a monotonic ``angle`` passes a multiple of ``step`` (linear interpolation)."""
    k = np.floor(angle / step)
    idx = np.nonzero(np.diff(k) != 0)[0]
    out = []
    for i in idx:
        for m in range(int(min(k[i], k[i + 1])) + 1, int(max(k[i], k[i + 1])) + 1):
            target = m * step
            a0, a1 = angle[i], angle[i + 1]
            out.append(t[i] + (target - a0) / (a1 - a0) * (t[i + 1] - t[i]))
    return np.asarray(out)


def observe(camera: Camera, cutoff_s: float, ball, rotor, radius_m: float,
            rng: np.random.Generator) -> Estimate | None:
    """The player's estimate at ``cutoff_s``, or None when too little was seen.

    ``ball(t)`` gives the true (angle, speed along the track) at times
    0 <= t <= cutoff_s and ``rotor(t)`` the true (angle, signed angular speed)
    at times t <= cutoff_s, before the launch too (arrays)."""
    start = max(0.0, cutoff_s - camera.window_s)
    if cutoff_s <= start:
        return None
    rotor_start = max(-camera.rotor_lead_s, cutoff_s - camera.window_s)
    half_res = math.radians(camera.angle_res_deg) / 2
    if camera.mode == "frames":
        ball_times, rotor_times = _frame_times(camera, start, cutoff_s), _frame_times(camera, rotor_start, cutoff_s)
        if ball_times.size < 2:
            return None
        at = float(ball_times[-1])
        ball_err = rng.uniform(-half_res, half_res, ball_times.size)
        rotor_err = rng.uniform(-half_res, half_res, rotor_times.size)
    else:
        grid = np.arange(start, cutoff_s + GRID_S / 2, GRID_S)
        ball_times = _crossings(grid, ball(grid)[0], 2 * math.pi)
        rotor_grid = np.arange(rotor_start, cutoff_s + GRID_S / 2, GRID_S)
        rotor_times = _crossings(rotor_grid, -rotor(rotor_grid)[0], 2 * math.pi / POCKETS)
        if ball_times.size < 2 or rotor_times.size < 2:
            return None
        at = float(ball_times[-1])
        ball_err = _passage_errors(camera, ball_times, ball(ball_times)[1] / radius_m, half_res, rng)
        rotor_err = _passage_errors(camera, rotor_times, np.abs(rotor(rotor_times)[1]), half_res, rng)
    a_ball, b_ball = _fit_errors(ball_times, ball_err, at)
    a_rot, b_rot = _fit_errors(rotor_times, rotor_err, at)
    theta, v = (float(x[0]) for x in ball(np.array([at])))
    phi, omega = (float(x[0]) for x in rotor(np.array([at])))
    return Estimate(at, theta + a_ball, v + b_ball * radius_m, phi + a_rot, omega + b_rot)


def _frame_times(camera: Camera, start: float, end: float) -> np.ndarray:
    """The frames' times in [start, end] (frames fall on multiples of frame_s)."""
    first = math.ceil(start / camera.frame_s - 1e-9)
    return np.arange(first, math.floor(end / camera.frame_s + 1e-9) + 1) * camera.frame_s


def _passage_errors(camera: Camera, times: np.ndarray, omega: np.ndarray, half_res: float,
                    rng: np.random.Generator) -> np.ndarray:
    """Angle reading errors equivalent to timing a passage: a frame's uncertainty
    (mean lag removed) plus the mark's position known to the resolution."""
    timing = rng.uniform(-camera.frame_s / 2, camera.frame_s / 2, times.size)
    place = rng.uniform(-half_res, half_res, times.size)
    return omega * timing + place
