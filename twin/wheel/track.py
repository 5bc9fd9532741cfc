"""The ball on the track: an ordinary differential equation, integrated deterministically.

A ball riding a mesh bowl in PyBullet leaves the track within a second or two,
and shows no tilt (see docs/wheel.md). The track phase is instead the model of
Eichberger (2003) and Small & Tse (2012): the ball runs along the rim, pressed
against the rim's wall while it is fast, and leaves when the wall no longer
has to push it inward. Along the track (arc length s = r * theta):

    n      = v^2 / r * cos(d) - g * sin(d)               wall's push per unit mass
    dv/dt  = - mu_rim * n                                 sliding on the rim wall
             - mu_roll * (g * cos(d) + v^2 / r * sin(d))  rolling on the track
             - c_drag * v^2                               air
             - g * sin(a) * sin(theta - phi)              the tilt's pull along the track
    d(theta)/dt = v / r

with the incline d = incline - a * cos(theta - phi) changed by a tilt a whose
low side is at phi. The ball leaves where n falls to zero. Rim friction, the
dominant brake while the ball is fast, fades as n does, so near the end the
ball slows only by drag and rolling resistance, a few per cent of its
kinetic energy a revolution: a tilt that changes the height of the track by
a few millimetres then decides where the ball can leave (Thorp's forbidden zone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from twin.wheel.design import WheelDesign

GRAVITY = 9.81
# The ball rolls on the track (I = 2/5 m R^2 about its centre): a force on it moves
# its centre 5/7 as much as it would a sliding point, the rest spinning it, and
# keeping it to the circle takes 7/5 of the point's inward force. The descent
# (PyBullet) starts from a rolling ball, so the track must leave it where a
# rolling ball leaves: with the point's criterion it still pressed the rim wall.
ROLLING = 5.0 / 7.0
WARP_STREAM = 6170           # the warp's draws: their own stream of the spin's seed


@dataclass(frozen=True)
class TrackExit:
    """Where and how the ball left the track (stator frame, counter-clockwise)."""
    left: bool                   # False: still on the track at the time limit
    time_s: float                # time on the track
    angle_rad: float             # unwrapped ball angle when leaving
    speed_m_s: float             # along the track when leaving
    revolutions: float           # of the ball on the track

    @property
    def angle_deg(self) -> float:
        """Where the ball left, on the stator, in [0, 360)."""
        return math.degrees(self.angle_rad) % 360.0


@dataclass(frozen=True)
class Warp:
    """The track as one spin's ball meets it: the design's, warped a little.

    Two spins of the same launch on a real wheel do not leave the track at the
    same place: the ball never runs the same line over a worn track twice,
    dust and wear move, the table vibrates, the ball wobbles. None of that is
    measured for this project, so it is lumped, as an assumption, into one
    random warp of the track per spin: a height profile round the rim made of
    ``modes`` harmonics with random phases, whose every harmonic both tilts the
    track's cross slope and pulls the ball along the track the way a tilt of
    its size does (a tilt is the first harmonic of such a profile). Its size,
    ``irregularity_deg``, is the root mean square of the cross slope it adds,
    in degrees (docs/wheel.md: calibrated to Thorp's forbidden zone). The player
    of ``twin edge`` knows the design, not the warp."""
    cos: tuple[float, ...]       # harmonic m = 1, 2, ...: cross slope (rad) = a_m cos(m theta) + b_m sin(m theta)
    sin: tuple[float, ...]

    @staticmethod
    def draw(design: WheelDesign, seed: int) -> "Warp | None":
        """This spin's warp, from its own stream of the spin's seed (the launch's
        draws are unchanged), or None for a design without track noise."""
        noise = design.track_noise
        if noise is None or noise.irregularity_deg == 0:
            return None
        rng = np.random.default_rng([seed, WARP_STREAM])
        sd = math.radians(noise.irregularity_deg) / math.sqrt(noise.modes)
        a, b = rng.normal(0.0, sd, noise.modes), rng.normal(0.0, sd, noise.modes)
        return Warp(tuple(float(x) for x in a), tuple(float(x) for x in b))

    def at(self, theta: float) -> tuple[float, float]:
        """The cross slope the warp adds (rad) and its rate along the track (per rad)."""
        slope = rate = 0.0
        for m, (a, b) in enumerate(zip(self.cos, self.sin), start=1):
            c, s = math.cos(m * theta), math.sin(m * theta)
            slope += a * c + b * s
            rate += m * (b * c - a * s)
        return slope, rate


class TrackModel:
    """The right-hand side and the leaving event for one design; with a ``warp``,
    the track one spin's ball meets (``for_spin``)."""

    @classmethod
    def for_spin(cls, design: WheelDesign, seed: int) -> "TrackModel":
        """The track of spin ``seed``: the design's, warped by the spin's own noise."""
        return cls(design, Warp.draw(design, seed))

    def __init__(self, design: WheelDesign, warp: Warp | None = None):
        self.warp = warp
        bowl, ball = design.bowl, design.ball
        self.r = bowl.track_radius_m
        self.incline = math.radians(bowl.incline_deg)
        self.tilt = math.radians(design.tilt.angle_deg)
        self.low_side = math.radians(design.tilt.low_side_deg)
        self.mu_rim = bowl.rim_friction
        self.mu_roll = bowl.rolling_resistance
        area = math.pi * ball.radius_m ** 2
        self.c_drag = bowl.air_density_kg_m3 * ball.drag_coefficient * area / (2.0 * ball.mass_kg)
        self.max_time = design.simulation.max_track_time_s

    def incline_at(self, theta: float) -> float:
        d = self.incline - self.tilt * math.cos(theta - self.low_side)
        return d + self.warp.at(theta)[0] if self.warp else d

    def wall_push(self, theta: float, v: float) -> float:
        d = self.incline_at(theta)
        return v * v / (ROLLING * self.r) * math.cos(d) - GRAVITY * math.sin(d)

    def rhs(self, _t: float, y: np.ndarray) -> list[float]:
        theta, v = y
        d = self.incline - self.tilt * math.cos(theta - self.low_side)
        pull = GRAVITY * math.sin(self.tilt) * math.sin(theta - self.low_side)
        if self.warp:
            slope, rate = self.warp.at(theta)
            d += slope
            pull += GRAVITY * rate             # a tilt's pull is g * its slope's rate along the track
        n = max(0.0, v * v / (ROLLING * self.r) * math.cos(d) - GRAVITY * math.sin(d))
        floor = GRAVITY * math.cos(d) + v * v / self.r * math.sin(d)
        dv = ROLLING * (-self.mu_rim * n - self.mu_roll * floor - self.c_drag * v * v - pull)
        return [v / self.r, dv]

    def ride(self, start_angle_rad: float, start_speed_m_s: float, dense: bool = False):
        """Integrate from the launch to the leaving point; return (TrackExit, solution)."""
        def leaves(t, y):
            return self.wall_push(y[0], y[1])
        leaves.terminal = True
        leaves.direction = -1
        solution = solve_ivp(self.rhs, (0.0, self.max_time), [start_angle_rad, start_speed_m_s],
                             method="DOP853", rtol=1e-9, atol=1e-10, events=leaves,
                             dense_output=dense)
        if solution.t_events[0].size:
            t = float(solution.t_events[0][0])
            theta, v = (float(x) for x in solution.y_events[0][0])
            left = True
        else:
            t = float(solution.t[-1])
            theta, v = float(solution.y[0, -1]), float(solution.y[1, -1])
            left = False
        exit_ = TrackExit(left=left, time_s=t, angle_rad=theta, speed_m_s=v,
                          revolutions=(theta - start_angle_rad) / (2 * math.pi))
        return exit_, solution


def ride_track(design: WheelDesign, start_angle_deg: float, start_speed_rev_s: float,
               seed: int | None = None) -> TrackExit:
    """The track phase alone: launch the ball at an angle and speed, return where it
    leaves (on the track of spin ``seed``, warped by its noise; None: the design's)."""
    model = TrackModel(design) if seed is None else TrackModel.for_spin(design, seed)
    speed = start_speed_rev_s * 2 * math.pi * model.r
    exit_, _ = model.ride(math.radians(start_angle_deg), speed)
    return exit_
