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
from scipy.optimize import brentq

from twin import fixed_arithmetic as fx
from twin.wheel.design import WheelDesign
from twin.wheel.integrator import Integrator, Steps

GRAVITY = 9.81
# The ball rolls on the track (I = 2/5 m R^2 about its centre): a force on it moves
# its centre 5/7 as much as it would a sliding point, the rest spinning it, and
# keeping it to the circle takes 7/5 of the point's inward force. The descent
# (PyBullet) starts from a rolling ball, so the track must leave it where a
# rolling ball leaves: with the point's criterion it still pressed the rim wall.
ROLLING = 5.0 / 7.0
WARP_STREAM = 6170           # the warp's draws: their own stream of the spin's seed
MAX_STEP_S = 0.2             # integrator steps stay under a sixth of the slowest turn (about 1.3 s)
FIRST_STEP_S = 0.01          # the integrator's first try; its error control takes over from there
RTOL, ATOL = 1e-9, 1e-10     # the integrator's tolerances (theta in rad, v in m/s)
XTOL_S = 1e-12               # a leaving moment is found to this
# A dip's lowest point is found exactly when the cubic through the step's ends
# puts it this near zero (m/s^2). That cubic's error is of order h^4 times the
# push's fourth derivative, about 1e-5 m/s^2 at the track's step sizes; the
# margin is 5000 times that, and costs exact searches only in the last turns.
DIP_MARGIN = 0.05
DIP_SAMPLES = 16


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
        # Constants of the right-hand side, worked out once: each is the value the
        # expression it replaces gave (the same operations on the same operands), so
        # the ride's bytes do not change. The warp is asked about the same angle
        # several times a step (the last stage, the push and its rate at the step's
        # end), so its last answer is kept.
        self._kr = ROLLING * self.r
        self._tilt_pull = GRAVITY * math.sin(self.tilt)
        self._warp_terms = (tuple(zip(range(1, len(warp.cos) + 1), warp.cos, warp.sin)) if warp else ())
        self._warp_theta = math.nan
        self._warp_value = (0.0, 0.0)

    def _warp_at(self, theta: float) -> tuple[float, float]:
        """:meth:`Warp.at`, the same arithmetic in the same order, its last answer kept."""
        if theta == self._warp_theta:
            return self._warp_value
        slope = rate = 0.0
        cos, sin = math.cos, math.sin
        for m, a, b in self._warp_terms:
            c, s = cos(m * theta), sin(m * theta)
            slope += a * c + b * s
            rate += m * (b * c - a * s)
        self._warp_theta, self._warp_value = theta, (slope, rate)
        return slope, rate

    def incline_at(self, theta: float) -> float:
        d = self.incline - self.tilt * math.cos(theta - self.low_side)
        return d + self._warp_at(theta)[0] if self.warp else d

    def wall_push(self, theta: float, v: float) -> float:
        d = self.incline_at(theta)
        return v * v / self._kr * math.cos(d) - GRAVITY * math.sin(d)

    def slope(self, _t: float, theta: float, v: float) -> tuple[float, float]:
        """The right-hand side: (d theta/dt, dv/dt), in plain float arithmetic."""
        d = self.incline - self.tilt * math.cos(theta - self.low_side)
        pull = self._tilt_pull * math.sin(theta - self.low_side)
        terms = self._warp_terms
        if len(terms) == 1:                    # the shipped warp: one harmonic, written out (as _warp_at)
            _, a, b = terms[0]
            c, s = math.cos(1 * theta), math.sin(1 * theta)
            d += 0.0 + (a * c + b * s)
            pull += GRAVITY * (0.0 + 1 * (b * c - a * s))
        elif terms:
            slope, rate = self._warp_at(theta)
            d += slope
            pull += GRAVITY * rate             # a tilt's pull is g * its slope's rate along the track
        vv = v * v
        cos_d, sin_d = math.cos(d), math.sin(d)
        n = vv / self._kr * cos_d - GRAVITY * sin_d
        if not n > 0.0:                        # max(0.0, n), as it was, without the call
            n = 0.0
        floor = GRAVITY * cos_d + vv / self.r * sin_d
        dv = ROLLING * (-self.mu_rim * n - self.mu_roll * floor - self.c_drag * v * v - pull)
        return v / self.r, dv

    def rhs(self, t: float, y) -> list[float]:
        """:meth:`slope` for a state vector ``y = (theta, v)``."""
        return list(self.slope(t, float(y[0]), float(y[1])))

    def slope_rate(self, theta: float) -> float:
        """How fast the incline changes along the track (per radian)."""
        rate = self.tilt * math.sin(theta - self.low_side)
        return rate + self._warp_at(theta)[1] if self.warp else rate

    def wall_push_rate(self, theta: float, v: float, dv: float) -> float:
        """The wall's push's rate of change along the ride (per second), the
        ball moving at ``v`` and changing speed at ``dv``."""
        d = self.incline_at(theta)
        return (2 * v * dv * math.cos(d) / self._kr
                + (-v * v * math.sin(d) / self._kr - GRAVITY * math.cos(d)) * self.slope_rate(theta) * v / self.r)

    def ride(self, start_angle_rad: float, start_speed_m_s: float) -> tuple[TrackExit, Steps]:
        """Integrate from the launch to the leaving point; return (TrackExit, the ride's steps).

        The ball leaves where the wall's push first reaches zero. On a tilted or
        warped track the push dips once a turn, and a dip below zero can begin
        and end within one step (it did in one spin of 200 of tilted.yaml, which
        then left a turn late), so each step is also searched for a lowest
        point of the push: where its rate turns from falling to rising within
        the step. A lowest point that the step's ends say is within
        ``DIP_MARGIN`` of zero is found exactly, and the ride ends there if the
        push is not positive. Steps are kept under a fraction of a turn, so a
        step holds at most one lowest point."""
        ode = Integrator(self.slope, 0.0, (start_angle_rad, start_speed_m_s), rtol=RTOL, atol=ATOL,
                         max_step=MAX_STEP_S, first_step=FIRST_STEP_S)
        t_leave: float | None = 0.0 if self.wall_push(start_angle_rad, start_speed_m_s) <= 0 else None
        rate_before = self.wall_push_rate(*ode.y, ode.k[1])
        push_before = self.wall_push(*ode.y)
        while t_leave is None and ode.step(self.max_time):
            rate_now = self.wall_push_rate(*ode.y, ode.k[1])
            push_now = self.wall_push(*ode.y)
            t_leave = self._leaving_within(ode, rate_before, rate_now, push_before, push_now)
            rate_before, push_before = rate_now, push_now
        left = t_leave is not None
        t = t_leave if t_leave is not None else ode.t
        theta, v = ode.at(t) if left else ode.y
        exit_ = TrackExit(left=left, time_s=t, angle_rad=theta, speed_m_s=v,
                          revolutions=(theta - start_angle_rad) / (2 * math.pi))
        return exit_, ode.path

    def _leaving_within(self, ode: Integrator, rate_before: float, rate_now: float, push_before: float,
                        push_now: float) -> float | None:
        """When the ball left the track within the step just taken (the push and its
        rate at the step's ends given: each is the next step's start), or None."""
        steps = ode.path
        t0, t1 = steps.t[-2], steps.t[-1]

        def push(t: float) -> float:
            return self.wall_push(*ode.at(t))

        if rate_before < 0 <= rate_now:                  # a lowest point within the step
            h = t1 - t0
            estimate = min(_hermite(push_before, push_now, rate_before * h, rate_now * h, i / DIP_SAMPLES)
                           for i in range(DIP_SAMPLES + 1))
            if estimate <= DIP_MARGIN:
                def rate(t: float) -> float:
                    theta, v = ode.at(t)
                    return self.wall_push_rate(theta, v, self.slope(t, theta, v)[1])
                t_low = float(brentq(rate, t0, t1, xtol=XTOL_S))
                if push(t_low) <= 0:
                    return float(brentq(push, t0, t_low, xtol=XTOL_S))
        if push_now <= 0:
            return float(brentq(push, t0, t1, xtol=XTOL_S))
        return None


def _hermite(p0: float, p1: float, m0: float, m1: float, s: float) -> float:
    """The cubic through values p0, p1 with slopes m0, m1 (per unit s) at s = 0, 1."""
    return ((1 + 2 * s) * (1 - s) ** 2 * p0 + s * (1 - s) ** 2 * m0
            + s * s * (3 - 2 * s) * p1 + s * s * (s - 1) * m1)


def ride_track(design: WheelDesign, start_angle_deg: float, start_speed_rev_s: float,
               seed: int | None = None) -> TrackExit:
    """The track phase alone: launch the ball at an angle and speed, return where it
    leaves (on the track of spin ``seed``, warped by its noise; None: the design's)."""
    model = TrackModel(design) if seed is None else TrackModel.for_spin(design, seed)
    speed = start_speed_rev_s * 2 * math.pi * model.r
    exit_, _ = model.ride(math.radians(start_angle_deg), speed)
    return exit_


class LeavingMap:
    """Where and when a ball at (angle, speed) on the track will leave it: the
    same model as :class:`TrackModel`, solved along the track instead of in time.

    While the wall pushes, the ODE is linear in E = v^2 along the angle theta:

        dE/dtheta = -A(theta) E + B(theta)
        A = 2 mu_rim cos d + 2 k mu_roll sin d + 2 k r c_drag,   k = ROLLING
        B = 2 k r (mu_rim g sin d - mu_roll g cos d - pull)

    with periodic A and B, so E(theta) = exp(-L(theta)) (E0 exp(L(theta0)) + K(theta) - K(theta0)),
    L and K the integrals of A and B exp(L), tabulated once over one turn and
    carried over whole turns in closed form. The ball leaves where E first falls
    to k r g tan d, the wall no longer pushing; the time is the integral of r / v.
    A player's prediction (``twin edge``) asks this a dozen times a spin: here
    it costs about 0.1 ms instead of 7 ms for scipy's DOP853, and agrees with it
    to well under a millisecond and a hundredth of a degree
    (tests/twin/test_wheel_track.py)."""

    FINE = 7200              # table points a turn (0.05 degrees)
    COARSE = 72              # search points a turn (5 degrees): where the leaving is first looked for
    TURNS = 60               # the most turns looked ahead
    CHUNK = 4                # turns searched at once

    def __init__(self, model: TrackModel):
        self.model = model
        self.period = 2 * math.pi
        grid = np.linspace(0.0, self.period, self.FINE + 1)
        a, b = self._coefficients(grid)
        h = grid[1] - grid[0]
        big_l = np.concatenate([[0.0], np.cumsum((a[1:] + a[:-1]) * h / 2)])
        f = b * fx.exp(big_l)
        big_k = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) * h / 2)])
        self.grid, self.big_l, self.big_k = grid, big_l, big_k
        self.l_turn, self.k_turn = float(big_l[-1]), float(big_k[-1])

    def _profile(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = self.model
        d = m.incline - m.tilt * fx.cos(theta - m.low_side)
        pull = GRAVITY * math.sin(m.tilt) * fx.sin(theta - m.low_side)
        if m.warp:
            for k, (a, b) in enumerate(zip(m.warp.cos, m.warp.sin), start=1):
                c, s = fx.cos(k * theta), fx.sin(k * theta)
                d = d + a * c + b * s
                pull = pull + GRAVITY * k * (b * c - a * s)
        return d, pull

    def _coefficients(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, k = self.model, ROLLING
        d, pull = self._profile(theta)
        a = 2 * m.mu_rim * fx.cos(d) + 2 * k * m.mu_roll * fx.sin(d) + 2 * k * m.r * m.c_drag
        b = 2 * k * m.r * (m.mu_rim * GRAVITY * fx.sin(d) - m.mu_roll * GRAVITY * fx.cos(d) - pull)
        return a, b

    def _integrals(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """L and K at unwrapped angles (from angle 0), by whole turns and the table."""
        turns = np.floor(theta / self.period)
        part = theta - turns * self.period
        l_part = np.interp(part, self.grid, self.big_l)
        k_part = np.interp(part, self.grid, self.big_k)
        grow = fx.exp(turns * self.l_turn)
        # K over j whole turns: k_turn (1 + e^L + ... + e^((j-1)L))
        whole = self.k_turn * np.where(turns > 0, fx.expm1(turns * self.l_turn) / math.expm1(self.l_turn), 0.0)
        return turns * self.l_turn + l_part, whole + grow * k_part

    def _energy(self, theta: np.ndarray, theta0: float, e0: float) -> np.ndarray:
        l_at, k_at = self._integrals(theta)
        l0, k0 = self._integrals(np.array([theta0]))
        return fx.exp(l0[0] - l_at) * e0 + fx.exp(-l_at) * (k_at - k0[0])

    def _margin(self, theta: np.ndarray, theta0: float, e0: float) -> np.ndarray:
        """E minus the E at which the wall stops pushing: the ball leaves where it reaches 0."""
        d, _ = self._profile(theta)
        return self._energy(theta, theta0, e0) - ROLLING * self.model.r * GRAVITY * fx.tan(d)

    def leave(self, theta0: float, v0: float) -> tuple[float, float]:
        """(time from now, unwrapped angle) at which a ball at ``theta0`` moving at
        ``v0`` leaves the track; (the time limit's worth, the angle reached) if it
        does not within ``TURNS`` turns."""
        e0 = v0 * v0
        if self._margin(np.array([theta0]), theta0, e0)[0] <= 0:
            return 0.0, theta0
        step = self.period / self.COARSE
        first = None
        for chunk in range(0, self.TURNS, self.CHUNK):      # a few turns at a time: most rides end soon
            coarse = theta0 + step * np.arange(self.COARSE * chunk, self.COARSE * (chunk + self.CHUNK) + 1)
            below = np.nonzero(self._margin(coarse, theta0, e0) <= 0)[0]
            if below.size:
                first = int(below[0]) + self.COARSE * chunk
                break
        if first is None:
            return self.model.max_time, float(coarse[-1])
        coarse = theta0 + step * np.arange(max(0, first - 2), first + 1)
        first = min(first, 2)
        # the first fine crossing after the last coarse point above it, one coarse step
        # back as well (a dip between two coarse points is smooth at this scale)
        lo = coarse[max(0, first - 2)]
        fine = np.linspace(lo, coarse[first], int(round((coarse[first] - lo) / (self.period / self.FINE))) + 1)
        margin = self._margin(fine, theta0, e0)
        i = int(np.nonzero(margin <= 0)[0][0])
        if i == 0:
            theta_leave = float(fine[0])
        else:
            f0, f1 = margin[i - 1], margin[i]
            theta_leave = float(fine[i - 1] + (fine[i] - fine[i - 1]) * f0 / (f0 - f1))
        return self._time(theta0, theta_leave, e0), theta_leave

    def _time(self, theta0: float, theta1: float, e0: float) -> float:
        """The integral of r / v from theta0 to theta1 (Simpson's rule, at most 5 degrees a step:
        1/v is smooth along the track, its error is about a microsecond a ride)."""
        n = max(2, 2 * int(math.ceil((theta1 - theta0) / (2 * self.period / self.COARSE))))
        theta = np.linspace(theta0, theta1, n + 1)
        inv_v = 1.0 / np.sqrt(np.maximum(self._energy(theta, theta0, e0), 1e-12))
        h = (theta1 - theta0) / n
        return float(self.model.r * h / 3 * (inv_v[0] + inv_v[-1] + 4 * inv_v[1:-1:2].sum() + 2 * inv_v[2:-1:2].sum()))
