"""An ordinary differential equation integrated the same way on every machine.

scipy's ``solve_ivp`` measures each step's error with ``np.linalg.norm``,
which goes through BLAS: the kernel OpenBLAS picks for the CPU
(``OPENBLAS_CORETYPE``) sums in another order, the last bits of a step's
error change, the next step's size with them, and the descent through the
deflectors turns that into another pocket (issue 36: seed 1000081 of the
standard wheel gave pockets 1, 5 or 16). This integrator uses nothing but
Python's float arithmetic, one IEEE-754 double operation after another in
an order fixed here, and ``math``'s functions in the right-hand side: no
BLAS, no SIMD, no threads. (glibc's libm picks an FMA variant of sin, cos
and exp on CPUs that have one; tablebench_io.portable_math pins one variant,
see docs/reproducibility.md.)

The method is Dormand and Prince's 5(4) pair (Hairer, Norsett and Wanner,
"Solving Ordinary Differential Equations I", 2nd ed., section II.5, table
5.2), with its standard step-size control (section II.4). A two-component
state is carried as two floats rather than as arrays: the track's ride takes
a few hundred steps, and numpy's per-call overhead would outweigh the
arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

State = tuple[float, float]
RightHandSide = Callable[[float, float, float], State]     # (t, y0, y1) -> (dy0/dt, dy1/dt)

# The Butcher tableau (Hairer et al., table 5.2). The seventh stage is the
# fifth-order solution's own slope: it is the next step's first (FSAL).
C2, C3, C4, C5 = 1 / 5, 3 / 10, 4 / 5, 8 / 9
A21 = 1 / 5
A31, A32 = 3 / 40, 9 / 40
A41, A42, A43 = 44 / 45, -56 / 15, 32 / 9
A51, A52, A53, A54 = 19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729
A61, A62, A63, A64, A65 = 9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656
B1, B3, B4, B5, B6 = 35 / 384, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84
# the fifth-order solution minus the embedded fourth-order one
E1, E3, E4, E5, E6, E7 = 71 / 57600, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40

SAFETY, GROW_MAX, SHRINK_MAX = 0.9, 10.0, 0.2      # the usual step-size controller (section II.4)


def _stages(f: RightHandSide, t: float, y0: float, y1: float, k1: State, h: float):
    """The six further stages of one step; returns the new state, its slope and
    the error estimate's two components."""
    a0, a1 = k1
    b0, b1 = f(t + C2 * h, y0 + h * (A21 * a0), y1 + h * (A21 * a1))
    c0, c1 = f(t + C3 * h, y0 + h * (A31 * a0 + A32 * b0), y1 + h * (A31 * a1 + A32 * b1))
    d0, d1 = f(t + C4 * h, y0 + h * (A41 * a0 + A42 * b0 + A43 * c0),
               y1 + h * (A41 * a1 + A42 * b1 + A43 * c1))
    e0, e1 = f(t + C5 * h, y0 + h * (A51 * a0 + A52 * b0 + A53 * c0 + A54 * d0),
               y1 + h * (A51 * a1 + A52 * b1 + A53 * c1 + A54 * d1))
    g0, g1 = f(t + h, y0 + h * (A61 * a0 + A62 * b0 + A63 * c0 + A64 * d0 + A65 * e0),
               y1 + h * (A61 * a1 + A62 * b1 + A63 * c1 + A64 * d1 + A65 * e1))
    n0 = y0 + h * (B1 * a0 + B3 * c0 + B4 * d0 + B5 * e0 + B6 * g0)
    n1 = y1 + h * (B1 * a1 + B3 * c1 + B4 * d1 + B5 * e1 + B6 * g1)
    k7 = f(t + h, n0, n1)
    err0 = h * (E1 * a0 + E3 * c0 + E4 * d0 + E5 * e0 + E6 * g0 + E7 * k7[0])
    err1 = h * (E1 * a1 + E3 * c1 + E4 * d1 + E5 * e1 + E6 * g1 + E7 * k7[1])
    return (n0, n1), k7, err0, err1


@dataclass
class Steps:
    """The accepted steps of a ride: times, states and slopes, in order. Between
    two steps the state is the cubic Hermite interpolant of the ends' states and
    slopes (error of order h^4: well under a micro-radian for the track's
    steps), for pictures and for an observer's view of the ride; where a value
    must be as accurate as the steps themselves (an event), :meth:`Integrator.at`
    takes a fresh step from the last accepted one instead."""
    t: list[float]
    y: list[State]
    k: list[State]

    def sol(self, t):
        """The state at time(s) ``t`` (a float or an array): an array of shape
        (2,) or (2, n). Times outside the path take its ends."""
        ts = np.asarray(self.t)
        tq = np.clip(np.asarray(t, dtype=float), ts[0], ts[-1])
        i = np.clip(np.searchsorted(ts, tq, side="right") - 1, 0, len(ts) - 2)
        y, k = np.asarray(self.y), np.asarray(self.k)
        t0, h = ts[i], ts[i + 1] - ts[i]
        s = (tq - t0) / h
        h00 = (1 + 2 * s) * (1 - s) * (1 - s)
        h10 = s * (1 - s) * (1 - s)
        h01 = s * s * (3 - 2 * s)
        h11 = s * s * (s - 1)
        out = np.stack([h00 * y[i, j] + h10 * h * k[i, j] + h01 * y[i + 1, j] + h11 * h * k[i + 1, j]
                        for j in range(2)])
        return out


class Integrator:
    """Dormand-Prince 5(4) with error control, stepping a two-component state
    from ``t0``; the caller decides what to do after each accepted step."""

    def __init__(self, f: RightHandSide, t0: float, y0: State, *, rtol: float, atol: float,
                 max_step: float, first_step: float):
        self.f, self.rtol, self.atol, self.max_step = f, rtol, atol, max_step
        self.t, self.y = t0, (float(y0[0]), float(y0[1]))
        self.k = f(t0, *self.y)
        self.h = min(first_step, max_step)
        self.path = Steps([self.t], [self.y], [self.k])

    def step(self, t_end: float) -> bool:
        """Take one accepted step, not past ``t_end``; False once ``t_end`` is reached."""
        if self.t >= t_end:
            return False
        while True:
            h = min(self.h, self.max_step, t_end - self.t)
            y_new, k_new, e0, e1 = _stages(self.f, self.t, self.y[0], self.y[1], self.k, h)
            s0 = self.atol + self.rtol * max(abs(self.y[0]), abs(y_new[0]))
            s1 = self.atol + self.rtol * max(abs(self.y[1]), abs(y_new[1]))
            err = math.sqrt(((e0 / s0) ** 2 + (e1 / s1) ** 2) / 2)
            if err <= 1.0:
                grow = GROW_MAX if err == 0.0 else min(GROW_MAX, SAFETY * err ** -0.2)
                self.t = self.t + h if h < t_end - self.t else t_end
                self.y, self.k, self.h = y_new, k_new, h * grow
                self.path.t.append(self.t)
                self.path.y.append(self.y)
                self.path.k.append(self.k)
                return True
            self.h = h * max(SHRINK_MAX, SAFETY * err ** -0.2)

    def at(self, t: float) -> State:
        """The state at ``t`` within the last accepted step, as accurate as the
        step: a fresh step of size ``t - t_prev`` from its start."""
        t0, y0, k0 = self.path.t[-2], self.path.y[-2], self.path.k[-2]
        if t <= t0:
            return y0
        if t >= self.path.t[-1]:
            return self.path.y[-1]      # exactly the step's end, whatever t1 - t0 rounds to
        return _stages(self.f, t0, y0[0], y0[1], k0, t - t0)[0]
