"""One spin of the wheel, from a seed: the croupier's launch, the track, the descent.

The seed draws what a croupier varies (ball speed and release angle, rotor
speed and phase) from the design's ranges; the track phase is an ODE
(twin.wheel.track), the descent is PyBullet (twin.wheel.world). Same design
and seed, same spin, in any process. A ball that escapes the wheel or does
not settle in time makes an invalid spin: a dealer would spin again.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import numpy as np

from twin.wheel.design import WheelDesign
from twin.wheel.integrator import Steps
from twin.wheel.track import TrackModel
from twin.wheel.world import Frame, pocket_under, world_for

TWO_PI = 2 * math.pi


@dataclass(frozen=True)
class Launch:
    """What the seed decided."""
    ball_angle_rad: float
    ball_speed_m_s: float
    rotor_angle_rad: float
    rotor_speed_rad_s: float     # signed: the rotor turns clockwise (negative)


@dataclass(frozen=True)
class SpinResult:
    seed: int
    valid: bool
    number: int | None           # 0-36, None when the spin is invalid
    invalid_reason: str | None
    leave_angle_deg: float       # where the ball left the track, on the stator, [0, 360)
    track_time_s: float          # ball on the track
    spin_time_s: float           # launch to rest (or to giving up)
    ball_revolutions: float      # of the ball on the track, stator frame
    rotor_revolutions: float     # of the rotor from launch to the end of the spin
    settled: bool
    rotor_speed_rev_s: float = 0.0       # the rotor's speed when the ball left the track
    leave_pocket: int | None = None      # rotor position (0 = first listed pocket) under the leaving point then
    hit_pocket: int | None = None        # rotor position under the ball when it first touched the rotor
    hit_time_s: float | None = None      # that moment, after the launch

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


# The track hands the descent its state rounded to a nanoradian and a
# nanometre a second: far below anything physical, and it stops a difference
# in the last bits of the track's arithmetic (another libm, another
# compiler) from reaching PyBullet, where the deflectors would amplify it
# into another pocket. Python's round() is exact (correctly rounded decimal).
HANDOVER_DIGITS = 9


def handed_over(value: float) -> float:
    """A value as one stage of the spin hands it to the next."""
    return round(value, HANDOVER_DIGITS)


Z_99 = 2.5758293035489   # the standard normal's two-sided 99% point


def _speed(rng: np.random.Generator, span: tuple[float, float], distribution: str) -> float:
    """A speed from ``span``: uniform, or log-normal with ``span`` as its
    central 99% (a croupier's push varies by a factor, not by an amount;
    the rare draw outside the span is drawn again, so the span bounds it)."""
    low, high = span
    if distribution == "uniform" or low == high:
        return float(rng.uniform(low, high))
    mu, sigma = (math.log(low) + math.log(high)) / 2, (math.log(high) - math.log(low)) / (2 * Z_99)
    while True:
        value = float(rng.lognormal(mu, sigma))
        if low <= value <= high:
            return value


def draw_launch(design: WheelDesign, seed: int) -> Launch:
    """The croupier's part of a spin, drawn from ``seed`` (numpy PCG64)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    launch = design.launch
    ball_speed_rev = _speed(rng, launch.ball_speed_rev_s, launch.distribution)
    ball_angle = math.radians(rng.uniform(*launch.ball_angle_deg))
    rotor_speed_rev = _speed(rng, launch.rotor_speed_rev_s, launch.distribution)
    rotor_angle = rng.uniform(0.0, TWO_PI)
    return Launch(ball_angle_rad=ball_angle,
                  ball_speed_m_s=ball_speed_rev * TWO_PI * design.bowl.track_radius_m,
                  rotor_angle_rad=rotor_angle,
                  rotor_speed_rad_s=-rotor_speed_rev * TWO_PI)


def rotor_at(design: WheelDesign, launch: Launch, t: float) -> tuple[float, float]:
    """Rotor angle and speed t seconds after the launch: it coasts down exponentially."""
    tau = design.rotor.decay_time_s
    angle = launch.rotor_angle_rad + launch.rotor_speed_rad_s * tau * (1 - math.exp(-t / tau))
    return angle, launch.rotor_speed_rad_s * math.exp(-t / tau)


@dataclass(frozen=True)
class Trace:
    """Everything a picture needs: the launch, the track solution, the descent frames."""
    result: SpinResult
    launch: Launch
    track_solution: Steps        # the ride's steps: .sol(t) gives (angle, speed) at any time on the track
    track_time_s: float
    frames: tuple[Frame, ...]    # descent, t from the leaving moment


def spin(design: WheelDesign, seed: int) -> SpinResult:
    """Spin the wheel once; deterministic per (design, seed)."""
    return _run(design, seed, record_every_s=None).result


def trace(design: WheelDesign, seed: int, record_every_s: float = 1 / 15) -> Trace:
    """Spin as :func:`spin` does, keeping what a GIF needs."""
    return _run(design, seed, record_every_s=record_every_s)


def _run(design: WheelDesign, seed: int, record_every_s: float | None) -> Trace:
    launch = draw_launch(design, seed)
    model = TrackModel.for_spin(design, seed)
    exit_, solution = model.ride(launch.ball_angle_rad, launch.ball_speed_m_s)
    leave_deg = exit_.angle_deg
    rotor_angle, rotor_speed = (handed_over(x) for x in rotor_at(design, launch, exit_.time_s))
    # The rotor when the ball left the track, in the result of either ending.
    rotor_speed_rev_s = round(abs(rotor_speed) / TWO_PI, 6)
    leave_pocket = pocket_under(math.cos(exit_.angle_rad), math.sin(exit_.angle_rad), rotor_angle)
    if not exit_.left:
        angle = rotor_angle
        result = SpinResult(seed=seed, valid=False, number=None,
                            invalid_reason="the ball did not leave the track in time",
                            leave_angle_deg=round(leave_deg, 6), track_time_s=round(exit_.time_s, 6),
                            spin_time_s=round(exit_.time_s, 6),
                            ball_revolutions=round(exit_.revolutions, 6),
                            rotor_revolutions=round(abs(angle - launch.rotor_angle_rad) / TWO_PI, 6),
                            settled=False, rotor_speed_rev_s=rotor_speed_rev_s, leave_pocket=leave_pocket)
        return Trace(result, launch, solution, exit_.time_s, ())
    world = world_for(design)    # restored to its state as built: the same as a new world
    descent = world.descend(handed_over(exit_.angle_rad), handed_over(exit_.speed_m_s), rotor_angle, rotor_speed,
                            record_every_s=record_every_s)
    total = exit_.time_s + descent.time_s
    rotor_turns = abs(descent.rotor_angle_rad - launch.rotor_angle_rad) / TWO_PI
    reason = None
    if descent.escaped:
        reason = "the ball escaped the wheel"
    elif not descent.settled:
        reason = f"the ball did not settle within {design.simulation.max_descent_time_s:g} s of leaving the track"
    number = None
    if descent.settled:
        if descent.pocket_index is None:
            # Not reached: World.descend ends every settled descent with the pocket it settled in.
            raise AssertionError("a settled descent without its pocket")
        number = design.pockets[descent.pocket_index]
    result = SpinResult(seed=seed, valid=descent.settled, number=number, invalid_reason=reason,
                        leave_angle_deg=round(leave_deg, 6), track_time_s=round(exit_.time_s, 6),
                        spin_time_s=round(total, 6), ball_revolutions=round(exit_.revolutions, 6),
                        rotor_revolutions=round(rotor_turns, 6), settled=descent.settled,
                        rotor_speed_rev_s=rotor_speed_rev_s, leave_pocket=leave_pocket,
                        hit_pocket=descent.first_hit_pocket,
                        hit_time_s=None if descent.first_hit_s is None else round(exit_.time_s + descent.first_hit_s, 6))
    return Trace(result, launch, solution, exit_.time_s, descent.frames)
