"""A roulette wheel design: the YAML file a vendor writes, checked field by field.

Lightning Roulette must be played on a single-zero wheel (58 Pa. Code
617c.3(a), referring to 617a.1(c)), so the design must list 37 pockets
holding 0 to 36 exactly once. The loader checks every value so that the
physics never sees a wheel it cannot build; a bad value raises
``DesignError`` naming the file and the dotted field.

Units: metres, kilograms, seconds, degrees; speeds in revolutions per second
because that is what a croupier or a wheel inspector measures.

Conventions (see docs/wheel.md): the stator angle is counter-clockwise seen
from above, 0 along +x; the ball runs counter-clockwise on the track and the
rotor turns clockwise. ``pockets`` lists the numbers clockwise seen from
above, starting from the pocket centred on the rotor's angle 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twin.errors import DesignError
from twin.shipped import shipped_design
from tablebench_io.fields import Fields
from twin.camera.spec import camera_from_mapping
from tablebench_io.yamlfile import read_yaml

# The standard single-zero order, read clockwise from the zero (617a.1(c)
# wheels as built by every major maker).
STANDARD_POCKETS = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8,
                    23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18, 29, 7, 28,
                    12, 35, 3, 26)
POCKET_COUNT = 37  # single zero: 0 and 1-36, 617c.3(a)
RED_NUMBERS = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30,
                         32, 34, 36})
# Thorp: a tilt of about 0.2 degrees already makes a zone of the track the
# ball never leaves from. A design tilted more than this is flagged.
TILT_FLAG_DEG = 0.1


@dataclass(frozen=True)
class Ball:
    mass_kg: float
    radius_m: float
    drag_coefficient: float      # sphere in air, about 0.47
    restitution: float
    lateral_friction: float      # against frets, pockets and deflectors
    rolling_friction: float


@dataclass(frozen=True)
class Deflector:
    """One of the diamond-shaped obstacles ("canoes") on the stator's slope."""
    angle_deg: float             # its centre on the stator
    along_track: bool            # long axis along the track (else across it)


@dataclass(frozen=True)
class Bowl:
    """The fixed part: the ball track at the rim and the slope below it."""
    track_radius_m: float        # radius of the ball's centre riding the rim
    incline_deg: float           # slope of the track and stator toward the centre
    rim_friction: float          # sliding friction of the ball against the rim wall
    rolling_resistance: float    # rolling resistance coefficient on the track
    air_density_kg_m3: float
    deflector_radius_m: float
    deflector_length_m: float
    deflector_width_m: float
    deflector_height_m: float
    deflectors: tuple[Deflector, ...]


@dataclass(frozen=True)
class Rotor:
    """The turning part: pockets between frets, ringed by the rotor's rim."""
    pocket_outer_radius_m: float
    pocket_inner_radius_m: float
    fret_height_m: float
    fret_thickness_m: float
    rim_height_m: float          # the rotor's outer wall above the pocket floor
    step_m: float                # the stator's inner edge above the pocket floor
    cone_height_m: float         # the rotor's centre cone, above the pocket floor
    cone_top_radius_m: float
    lateral_friction: float
    restitution: float
    decay_time_s: float          # the rotor slows as exp(-t / decay_time_s)


LAUNCH_DISTRIBUTIONS = ("uniform", "lognormal")


@dataclass(frozen=True)
class Launch:
    """What the croupier does: ranges a seed draws from. ``distribution``
    says how the ball's and the rotor's speeds are drawn: ``uniform`` over
    their ranges, or ``lognormal`` with each range as its central 99%
    (draws outside are drawn again): see docs/wheel.md."""
    ball_speed_rev_s: tuple[float, float]
    ball_angle_deg: tuple[float, float]
    rotor_speed_rev_s: tuple[float, float]
    distribution: str = "uniform"


@dataclass(frozen=True)
class Tilt:
    angle_deg: float
    low_side_deg: float          # stator angle of the wheel's lowest point


@dataclass(frozen=True)
class Simulation:
    time_step_s: float           # PyBullet step for the descent
    max_track_time_s: float      # a ball still on the track after this: invalid
    max_descent_time_s: float    # a ball not settled this long after leaving: invalid
    settle_time_s: float         # at rest in a pocket this long counts as settled


@dataclass(frozen=True)
class WheelDesign:
    name: str
    source: str
    pockets: tuple[int, ...]
    ball: Ball
    bowl: Bowl
    rotor: Rotor
    launch: Launch
    tilt: Tilt
    simulation: Simulation

    @property
    def findings(self) -> tuple[str, ...]:
        """What a wheel inspector should hear about a design that still builds."""
        notes = []
        if self.tilt.angle_deg > TILT_FLAG_DEG:
            notes.append(
                f"{self.source}: tilt.angle_deg: the wheel is tilted {self.tilt.angle_deg:g} degrees "
                f"(more than {TILT_FLAG_DEG:g}); about 0.2 degrees already makes a zone of the "
                "track the ball never leaves from (Thorp): level the wheel")
        if self.pockets != STANDARD_POCKETS:
            notes.append(f"{self.source}: pockets: not the standard single-zero order")
        return tuple(notes)


def load_design(path: str | Path) -> WheelDesign:
    """Read and check a wheel design (or a shipped one, by name: ``tilted``);
    raise ``DesignError`` naming file and field."""
    path = shipped_design(path, "wheel")
    data = read_yaml(path, DesignError)
    try:
        return design_from_mapping(data, source=str(path))
    except DesignError as err:
        raise err.located(file=str(path)) from None


def design_from_mapping(data: Any, source: str = "<design>") -> WheelDesign:
    fields = Fields(data, "", error=DesignError)
    pockets = _pockets(fields.raw("pockets"))
    ball = fields.sub("ball")
    bowl = fields.sub("bowl")
    rotor = fields.sub("rotor")
    launch = fields.sub("launch")
    tilt = fields.sub("tilt")
    sim = fields.sub("simulation")

    the_ball = Ball(
        mass_kg=ball.number("mass_kg", low=0.001, high=0.2),
        radius_m=ball.number("radius_m", low=0.005, high=0.02),
        drag_coefficient=ball.number("drag_coefficient", low=0.0, high=2.0),
        restitution=ball.number("restitution", low=0.0, high=1.0),
        lateral_friction=ball.number("lateral_friction", low=0.0, high=2.0),
        rolling_friction=ball.number("rolling_friction", low=0.0, high=0.1),
    )
    deflector_fields = bowl.sub("deflectors")
    count = deflector_fields.integer("count", low=0, high=16)
    first = deflector_fields.number("first_angle_deg", low=-360.0, high=360.0)
    deflectors = tuple(Deflector(angle_deg=first + 360.0 * k / count, along_track=(k % 2 == 0))
                       for k in range(count))
    the_bowl = Bowl(
        track_radius_m=bowl.number("track_radius_m", low=0.2, high=0.6),
        incline_deg=bowl.number("incline_deg", low=5.0, high=40.0),
        rim_friction=bowl.number("rim_friction", low=0.0, high=1.0),
        rolling_resistance=bowl.number("rolling_resistance", low=0.0, high=0.05),
        air_density_kg_m3=bowl.number("air_density_kg_m3", low=0.0, high=2.0),
        deflector_radius_m=deflector_fields.number("radius_m", low=0.1, high=0.6),
        deflector_length_m=deflector_fields.number("length_m", low=0.005, high=0.1),
        deflector_width_m=deflector_fields.number("width_m", low=0.003, high=0.05),
        deflector_height_m=deflector_fields.number("height_m", low=0.002, high=0.03),
        deflectors=deflectors,
    )
    the_rotor = Rotor(
        pocket_outer_radius_m=rotor.number("pocket_outer_radius_m", low=0.1, high=0.5),
        pocket_inner_radius_m=rotor.number("pocket_inner_radius_m", low=0.05, high=0.5),
        fret_height_m=rotor.number("fret_height_m", low=0.003, high=0.03),
        fret_thickness_m=rotor.number("fret_thickness_m", low=0.001, high=0.01),
        rim_height_m=rotor.number("rim_height_m", low=0.003, high=0.05),
        step_m=rotor.number("step_m", low=0.003, high=0.08),
        cone_height_m=rotor.number("cone_height_m", low=0.0, high=0.2),
        cone_top_radius_m=rotor.number("cone_top_radius_m", low=0.01, high=0.3),
        lateral_friction=rotor.number("lateral_friction", low=0.0, high=2.0),
        restitution=rotor.number("restitution", low=0.0, high=1.0),
        decay_time_s=rotor.number("decay_time_s", low=1.0, high=10000.0),
    )
    the_launch = Launch(
        ball_speed_rev_s=launch.span("ball_speed_rev_s", low=0.2, high=5.0),
        ball_angle_deg=launch.span("ball_angle_deg", low=-360.0, high=720.0),
        rotor_speed_rev_s=launch.span("rotor_speed_rev_s", low=0.0, high=3.0),
        distribution=launch.choice("distribution", LAUNCH_DISTRIBUTIONS, "uniform"),
    )
    if the_launch.distribution == "lognormal" and the_launch.rotor_speed_rev_s[0] <= 0:
        raise DesignError("a log-normal speed needs a range above 0", field="launch.rotor_speed_rev_s")
    the_tilt = Tilt(angle_deg=tilt.number("angle_deg", low=0.0, high=5.0),
                    low_side_deg=tilt.number("low_side_deg", low=-360.0, high=360.0))
    the_sim = Simulation(
        time_step_s=sim.number("time_step_s", low=1e-4, high=1.0 / 500.0),  # 1/240 s lets the ball tunnel
        max_track_time_s=sim.number("max_track_time_s", low=1.0, high=600.0),
        max_descent_time_s=sim.number("max_descent_time_s", low=1.0, high=120.0),
        settle_time_s=sim.number("settle_time_s", low=0.05, high=5.0),
    )
    for section in (ball, deflector_fields, bowl, rotor, launch, tilt, sim):
        section.done()
    _check_geometry(the_ball, the_bowl, the_rotor, the_launch)
    name = fields.raw("name", "unnamed wheel")
    if fields.has("camera"):   # the studio camera's pose (twin.camera, docs/camera.md): checked here, used there
        camera_from_mapping(fields.raw("camera"))
    fields.done()
    return WheelDesign(name=str(name), source=source, pockets=pockets, ball=the_ball,
                       bowl=the_bowl, rotor=the_rotor, launch=the_launch, tilt=the_tilt,
                       simulation=the_sim)


def _pockets(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                              for v in value):
        raise DesignError("must be a list of whole numbers", field="pockets")
    if len(value) != POCKET_COUNT or sorted(value) != list(range(POCKET_COUNT)):
        raise DesignError(
            f"a single-zero wheel has 37 pockets holding 0 to 36 once each (617c.3(a)); "
            f"got {len(value)} pockets" + _pocket_problem(value), field="pockets")
    return tuple(value)


def _pocket_problem(value: list[int]) -> str:
    seen, doubles = set(), []
    for number in value:
        if number in seen:
            doubles.append(number)
        seen.add(number)
    missing = sorted(set(range(POCKET_COUNT)) - seen)
    extra = sorted(n for n in seen if not 0 <= n < POCKET_COUNT)
    parts = []
    if doubles:
        parts.append(f"repeated {doubles}")
    if missing:
        parts.append(f"missing {missing}")
    if extra:
        parts.append(f"out of range {extra}")
    return ", " + "; ".join(parts) if parts else ""


def _check_geometry(ball: Ball, bowl: Bowl, rotor: Rotor, launch: Launch) -> None:
    if rotor.pocket_inner_radius_m >= rotor.pocket_outer_radius_m:
        raise DesignError("must be smaller than rotor.pocket_outer_radius_m",
                          field="rotor.pocket_inner_radius_m")
    if rotor.cone_top_radius_m >= rotor.pocket_inner_radius_m - 0.03:
        raise DesignError("must be at least 3 cm smaller than rotor.pocket_inner_radius_m",
                          field="rotor.cone_top_radius_m")
    if bowl.track_radius_m <= rotor.pocket_outer_radius_m + 4 * ball.radius_m:
        raise DesignError("the track must lie well outside the rotor's pockets",
                          field="bowl.track_radius_m")
    if not rotor.pocket_outer_radius_m < bowl.deflector_radius_m < bowl.track_radius_m - 2 * ball.radius_m:
        raise DesignError("deflectors must stand on the slope between the rotor and the track",
                          field="bowl.deflectors.radius_m")
    pitch = 2 * math.pi * rotor.pocket_inner_radius_m / POCKET_COUNT
    if pitch - rotor.fret_thickness_m < 2 * ball.radius_m * 1.05:
        raise DesignError(
            f"the ball (diameter {2 * ball.radius_m:g} m) does not fit between the frets at the "
            f"pockets' inner edge ({pitch - rotor.fret_thickness_m:.4f} m)",
            field="rotor.pocket_inner_radius_m")
    foot = rotor.pocket_inner_radius_m - 0.012   # the cone's steep foot (twin.wheel.world)
    if rotor.cone_height_m < rotor.fret_height_m + 0.005 or \
            (rotor.cone_height_m - rotor.fret_height_m) / (foot - rotor.cone_top_radius_m) > 1.0:
        raise DesignError("the centre cone must rise above the frets, less steeply than its foot",
                          field="rotor.cone_height_m")
    if rotor.fret_height_m < 0.5 * ball.radius_m:
        raise DesignError("frets lower than half the ball's radius cannot hold it in a pocket",
                          field="rotor.fret_height_m")
    if rotor.step_m < rotor.rim_height_m + 0.008 or rotor.step_m < 2.2 * ball.radius_m:
        raise DesignError("the stator's lip must stand at least 8 mm above the rotor's rim and "
                          "clear a ball resting in a pocket", field="rotor.step_m")
    if launch.ball_speed_rev_s[0] * 2 * math.pi * bowl.track_radius_m ** 0.5 < \
            math.sqrt(9.81 * math.tan(math.radians(bowl.incline_deg + 1.0))):
        raise DesignError("the slowest launch would not hold the ball on the track",
                          field="launch.ball_speed_rev_s")
