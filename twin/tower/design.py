"""A Lightning Dice tower design: the YAML file a vendor writes, checked field by field.

The design follows the parts 58 Pa. Code 625b.2(c) requires of a tower:
the compartment at the top and its release ((c)(1), (c)(2)), the enclosed
transparent body with its obstacles ((c)(3)) and the tray at the bottom
((c)(4)). Lengths are metres, masses kilograms, times seconds, angles degrees.
Every value the loader accepts is checked here, so that the physics never
sees a design it cannot build; a bad value raises ``DesignError`` naming the
file and the dotted field.
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

# Body axes of a die, in the order the pip table is written.
AXES = ("+x", "-x", "+y", "-y", "+z", "-z")
OBSTACLE_KINDS = ("ramp", "rod", "bumper")
LOADING_MODES = ("random", "faces")


# Physical bounds: a design past them is a typo or a hostile file, not a
# tower (each costs the physics time or memory in proportion). A real tower
# stands under a metre; 3 m leaves room for any studio's.
MAX_HEIGHT_M = 3.0       # body.bottom_z_m, body.top_z_m, obstacles[].z_m
MAX_SHAFT_M = 1.0        # body.width_m, body.depth_m, obstacle lengths and offsets
MAX_TRAY_M = 2.0         # tray.width_m, tray.depth_m
MAX_WALL_M = 0.2         # wall thicknesses, a rod's radius, a ramp's thickness
MAX_OBSTACLES = 50

@dataclass(frozen=True)
class Material:
    restitution: float
    lateral_friction: float
    rolling_friction: float
    spinning_friction: float


@dataclass(frozen=True)
class Dice:
    count: int
    edge_m: float
    corner_radius_m: float
    mass_kg: float
    pips: tuple[tuple[str, int], ...]   # (axis, face) for each of AXES
    material: Material


@dataclass(frozen=True)
class Compartment:
    """625b.2(c)(1): the dice wait here until the dealer's release, (c)(2)."""
    height_m: float
    hold_s: float


@dataclass(frozen=True)
class Obstacle:
    """625b.2(c)(3): a ramp, rod or bumper the falling dice strike.

    ``z_m`` is the height of its centre above the tray floor; ``x_m`` its
    centre across the shaft (0 is the middle; a ramp is placed by ``side``).
    """
    kind: str
    z_m: float
    x_m: float = 0.0
    side: str = "left"          # ramps: the wall the ramp hangs from
    length_m: float = 0.0       # ramps: along the slope; bumpers: edge of the cube
    angle_deg: float = 0.0      # ramps: slope below horizontal; bumpers: yaw
    thickness_m: float = 0.0    # ramps
    radius_m: float = 0.0       # rods


@dataclass(frozen=True)
class Body:
    """625b.2(c)(3): the enclosed transparent shaft. Its interior is
    ``width_m`` across (x) and ``depth_m`` front to back (y); it runs from
    ``bottom_z_m`` above the tray floor up to ``top_z_m``, where the
    compartment's door is."""
    width_m: float
    depth_m: float
    bottom_z_m: float
    top_z_m: float
    wall_thickness_m: float
    obstacles: tuple[Obstacle, ...]
    material: Material


@dataclass(frozen=True)
class Tray:
    """625b.2(c)(4): where the dice come to rest, centred under the shaft and
    closed by a glass lid at the shaft's bottom (dice cannot leave it)."""
    width_m: float
    depth_m: float
    wall_thickness_m: float
    material: Material          # the floor (felt)
    wall_material: Material     # the tray's walls and lid; the floor's material when not given


@dataclass(frozen=True)
class Physics:
    timestep_s: float
    solver_iterations: int
    max_time_s: float           # a drop that has not settled by then is reported unsettled
    rest_linear_mps: float
    rest_angular_radps: float
    rest_for_s: float
    flat_tilt_deg: float        # a die tilted more than this is not flat, 625b.2(d)(5)


@dataclass(frozen=True)
class Loading:
    """How the dealer puts the dice in the compartment (625b.2(d)(6)):
    ``random`` top faces drawn from the drop's seed, or fixed ``faces``."""
    mode: str
    faces: tuple[int, ...] | None


@dataclass(frozen=True)
class TowerDesign:
    name: str
    source: str
    dice: Dice
    compartment: Compartment
    body: Body
    tray: Tray
    physics: Physics
    loading: Loading


# ---------------------------------------------------------------- loading

def _material(f: Fields) -> Material:
    m = Material(
        restitution=f.number("restitution", low=0.0, high=1.0),
        lateral_friction=f.number("lateral_friction", low=0.0, high=2.0),
        # Without rolling and spinning friction a rounded die spins on an edge
        # for many seconds; too much and it never tumbles (ANCHORS pitfalls).
        rolling_friction=f.number("rolling_friction", low=0.0, high=0.1),
        spinning_friction=f.number("spinning_friction", low=0.0, high=0.1),
    )
    f.done()
    return m


def _dice(f: Fields) -> Dice:
    count = f.integer("count", 3, low=3, high=3)   # Sic Bo and 625b.2 use three dice
    edge = f.number("edge_m", low=0.005, high=0.1)
    radius = f.number("corner_radius_m", low=0.0, high=edge * 0.25)
    mass = f.positive("mass_kg", high=1.0)
    pips_f = f.sub("pips")
    pips = []
    for axis in AXES:
        pips.append((axis, pips_f.integer(axis, low=1, high=6)))
    pips_f.done()
    faces = [face for _, face in pips]
    if sorted(faces) != [1, 2, 3, 4, 5, 6]:
        raise f.error("pips", f"must show each of 1 to 6 once, got {faces}")
    for i in range(0, 6, 2):
        (a, fa), (b, fb) = pips[i], pips[i + 1]
        if fa + fb != 7:
            raise DesignError(f"opposite faces must sum to 7, {a}={fa} and {b}={fb}",
                              file=f.file, field=f.field("pips") + f".{b}")
    material = _material(f.sub("material"))
    f.done()
    return Dice(count, edge, radius, mass, tuple(pips), material)


def _obstacle(f: Fields) -> Obstacle:
    kind = f.choice("kind", OBSTACLE_KINDS)
    z = f.positive("z_m", high=MAX_HEIGHT_M)
    if kind == "ramp":
        o = Obstacle(kind, z, side=f.choice("side", ("left", "right", "front", "back")),
                     length_m=f.positive("length_m", high=MAX_SHAFT_M),
                     angle_deg=f.number("angle_deg", low=5.0, high=80.0),
                     thickness_m=f.positive("thickness_m", high=MAX_WALL_M))
    elif kind == "rod":
        o = Obstacle(kind, z, x_m=f.number("x_m", 0.0, low=-MAX_SHAFT_M, high=MAX_SHAFT_M),
                     radius_m=f.positive("radius_m", high=MAX_WALL_M))
    else:
        o = Obstacle(kind, z, x_m=f.number("x_m", 0.0, low=-MAX_SHAFT_M, high=MAX_SHAFT_M),
                     length_m=f.positive("length_m", high=MAX_SHAFT_M),
                     angle_deg=f.number("angle_deg", 45.0, low=-180.0, high=180.0))
    f.done()
    return o


OBSTACLES_CLAUSE = "625b.2(c)(3)"   # the body "shall contain ramps, bumpers, rods or other obstacles"
# The clauses a design may say it breaks on purpose (``breaks:``): a counter-example for
# twin validate and twin edge to flag, such as the shipped straight-chute.
BREAKABLE = frozenset({OBSTACLES_CLAUSE})


def _breaks(f: Fields) -> frozenset[str]:
    """The clauses the design says it breaks on purpose (``breaks: [625b.2(c)(3)]``)."""
    given = f.raw("breaks", [])
    if not isinstance(given, list) or not all(isinstance(c, str) for c in given):
        raise f.error("breaks", "must be a list of clauses, e.g. [625b.2(c)(3)]")
    unknown = sorted(set(given) - BREAKABLE)
    if unknown:
        raise f.error("breaks", f"only {', '.join(sorted(BREAKABLE))} may be broken on purpose, got {unknown[0]}")
    return frozenset(given)


def _body(f: Fields, dice: Dice, breaks: frozenset[str] = frozenset()) -> Body:
    width = f.positive("width_m", high=MAX_SHAFT_M)
    depth = f.positive("depth_m", high=MAX_SHAFT_M)
    bottom = f.positive("bottom_z_m", high=MAX_HEIGHT_M)
    top = f.positive("top_z_m", high=MAX_HEIGHT_M)
    wall = f.number("wall_thickness_m", low=0.01, high=MAX_WALL_M)   # thick walls: a fast die must not tunnel
    diagonal = dice.edge_m * math.sqrt(3)
    for key, value in (("width_m", width), ("depth_m", depth)):
        if value <= diagonal:
            raise f.error(key, f"must exceed the dice's diagonal {diagonal:.4f} m or a die jams, got {value}")
    if top <= bottom + 2 * dice.edge_m:
        raise f.error("top_z_m", f"must be above bottom_z_m + two dice edges, got {top}")
    items = f.raw("obstacles")
    if not isinstance(items, list):
        raise f.error("obstacles", "must be a list (it may be empty)")
    if not items and OBSTACLES_CLAUSE not in breaks:
        raise f.error("obstacles", "is empty: the tower body must contain ramps, bumpers, rods or other obstacles "
                                   "the falling dice strike (a counter-example without them says breaks: "
                                   f"[{OBSTACLES_CLAUSE}])", clause=OBSTACLES_CLAUSE)
    if len(items) > MAX_OBSTACLES:
        raise f.error("obstacles", f"must be at most {MAX_OBSTACLES} obstacles (each costs every drop its "
                                   f"collisions), got {len(items)}")
    obstacles = []
    for i, item in enumerate(items):
        o = _obstacle(Fields(item, f.field(f"obstacles[{i}]"), f.file, error=DesignError))
        key = f"obstacles[{i}]"
        if not bottom < o.z_m < top:
            raise DesignError(f"z_m must lie inside the shaft ({bottom} to {top}), got {o.z_m}",
                              file=f.file, field=f.field(key) + ".z_m")
        if o.kind == "ramp":
            across = width if o.side in ("left", "right") else depth
            reach = o.length_m * math.cos(math.radians(o.angle_deg))
            if across - reach < dice.edge_m * 1.5:
                raise DesignError(f"leaves a gap of {across - reach:.4f} m, under 1.5 dice edges: dice would jam",
                                  file=f.file, field=f.field(key) + ".length_m")
        else:
            half = o.radius_m if o.kind == "rod" else o.length_m * math.sqrt(0.5)
            if abs(o.x_m) + half > width / 2:
                raise DesignError("reaches into the wall", file=f.file, field=f.field(key) + ".x_m")
            widest_gap = width / 2 + abs(o.x_m) - half
            if widest_gap < dice.edge_m * 1.5:
                raise DesignError(f"leaves a widest gap of {widest_gap:.4f} m, under 1.5 dice edges: dice would jam",
                                  file=f.file, field=f.field(key) + ".x_m")
        obstacles.append(o)
    material = _material(f.sub("material"))
    f.done()
    return Body(width, depth, bottom, top, wall, tuple(obstacles), material)


def _tray(f: Fields, body: Body) -> Tray:
    width = f.positive("width_m", high=MAX_TRAY_M)
    depth = f.positive("depth_m", high=MAX_TRAY_M)
    if width < body.width_m:
        raise f.error("width_m", f"must be at least the body's width_m {body.width_m} (the shaft opens into the tray)")
    if depth < body.depth_m:
        raise f.error("depth_m", f"must be at least the body's depth_m {body.depth_m} (the shaft opens into the tray)")
    wall = f.number("wall_thickness_m", low=0.01, high=MAX_WALL_M)
    material = _material(f.sub("material"))
    # The walls are often glass over a felt floor; a design that does not say
    # so gets walls of the floor's material, as before this field existed.
    wall_material = _material(f.sub("wall_material")) if f.has("wall_material") else material
    f.done()
    return Tray(width, depth, wall, material, wall_material)


def _physics(f: Fields) -> Physics:
    p = Physics(
        timestep_s=f.number("timestep_s", 1 / 240, low=1 / 2000, high=1 / 60),
        solver_iterations=f.integer("solver_iterations", 10, low=1, high=200),
        max_time_s=f.number("max_time_s", 8.0, low=0.5, high=60.0),
        rest_linear_mps=f.positive("rest_linear_mps", 0.01, high=1.0),
        rest_angular_radps=f.positive("rest_angular_radps", 0.1, high=10.0),
        rest_for_s=f.positive("rest_for_s", 0.15, high=5.0),
        flat_tilt_deg=f.number("flat_tilt_deg", 3.0, low=0.1, high=20.0),
    )
    f.done()
    return p


def _loading(f: Fields, dice: Dice) -> Loading:
    mode = f.choice("mode", LOADING_MODES, "random")
    faces = None
    if mode == "faces":
        raw = f.raw("faces")
        if (not isinstance(raw, list) or len(raw) != dice.count
                or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in raw)):
            raise f.error("faces", f"must list {dice.count} faces from 1 to 6, got {raw!r}")
        faces = tuple(raw)
    f.done()
    return Loading(mode, faces)


def parse_design(data: Any, file: str = "<design>") -> TowerDesign:
    """Check a design already read from YAML; ``file`` names it in errors."""
    f = Fields(data, "", file, error=DesignError)
    name = f.raw("name")
    if not isinstance(name, str) or not name.strip():
        raise f.error("name", "must be a non-empty string")
    f.raw("description", "")
    dice = _dice(f.sub("dice"))
    compartment_f = f.sub("compartment")
    compartment = Compartment(height_m=compartment_f.number("height_m", low=dice.edge_m * 1.5, high=1.0),
                              hold_s=compartment_f.number("hold_s", 0.1, low=0.0, high=5.0))
    compartment_f.done()
    body = _body(f.sub("body"), dice, _breaks(f))
    # Three dice side by side must fit in the compartment across the shaft.
    if body.width_m < dice.count * dice.edge_m * 1.2:
        raise DesignError(f"must fit {dice.count} dice side by side in the compartment "
                          f"({dice.count * dice.edge_m * 1.2:.4f} m), got {body.width_m}",
                          file=file, field="body.width_m")
    tray = _tray(f.sub("tray"), body)
    physics = _physics(f.sub("physics") if "physics" in data else Fields({}, "physics", file, error=DesignError))
    loading = _loading(f.sub("loading") if "loading" in data else Fields({}, "loading", file, error=DesignError), dice)
    if f.has("camera"):        # the studio camera's pose (twin.camera, docs/camera.md): checked here, used there
        camera_from_mapping(f.raw("camera"), file)
    f.done()
    return TowerDesign(name=name, source=file, dice=dice, compartment=compartment, body=body,
                       tray=tray, physics=physics, loading=loading)


def load_design(path: str | Path) -> TowerDesign:
    """Read and check a tower design file (or a shipped one, by name: ``standard``);
    raise ``DesignError`` naming the field."""
    path = shipped_design(path, "tower")
    return parse_design(read_yaml(path, DesignError), str(path))
