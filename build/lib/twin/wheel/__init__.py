"""The roulette wheel twin: a single-zero wheel (58 Pa. Code 617c.3(a)), its
ball track as an ODE and the ball's descent into a pocket in PyBullet.

Public API::

    design = load_design("fixtures/wheels/standard.yaml")   # WheelDesign, or DesignError
    result = spin(design, seed=7)                           # SpinResult (frozen)
    result.number, result.valid, result.leave_angle_deg, result.to_json()
"""

from twin.wheel.design import STANDARD_POCKETS, WheelDesign, load_design
from twin.wheel.spin import SpinResult, spin, trace
from twin.wheel.track import ride_track

__all__ = ["STANDARD_POCKETS", "SpinResult", "WheelDesign", "load_design", "ride_track", "spin",
           "trace"]
