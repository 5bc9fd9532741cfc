"""Building a tower design as a PyBullet world (DIRECT mode, explicit client).

Coordinates: the tray floor's top surface is z = 0; the shaft is centred on
the z axis, ``width_m`` across x and ``depth_m`` along y. Every static part is
its own body made of one box or cylinder (``createCollisionShapeArray`` keeps
only 16 children, so compounds are avoided), and every wall is at least 1 cm
thick so that a fast die cannot pass through it in one step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from twin.physics_engine import pybullet as pb

from twin.tower.design import Material, TowerDesign

DOOR_PARKED = (0.0, 0.0, -5.0)    # where the compartment's door goes on release
CONTACT_ERP = 0.1                 # see build
# Once the dice have all but stopped, the solver works off what overlap is
# left as a rest needs (issue 39): at the fall's 0.1 a die wedged in the
# narrow tray rested up to 0.43 mm inside a glass wall (53 dice of 200 drops
# more than 0.1 mm inside something), the solver's push out of the overlap
# holding rests that true geometry does not. At 1.0 a step from the moment
# the dice are nearly still, a die cocked on a flat one across the tray's
# 50 mm still pressed it 0.16 mm into its glass wall (a chain wall-die-die-
# wall that 10 solver iterations do not work through in a step): 7 dice of
# 1,000 narrow drops over 0.1 mm. So each step of the rest is solved in 4
# substeps (second round): none over 0.1 mm, where 50 or 100 solver
# iterations still left 2-3. The ERP is then 0.25 a substep, not 1.0: the
# push out of an overlap is erp * depth / dt, and 1.0 over a quarter of the
# step pushed four times as hard, flipping dice that had landed flat (the
# straight chute kept 92.9% of its loaded faces, against 98.7% unsplit;
# 0.25 keeps 99.3%, the push of the unsplit 1.0). 1.0 throughout the fall
# is no answer either: the chute's dice are thrown by it (12 of 120 kept
# their face at 0.8, against 119 at 0.1), and PyBullet's split impulse,
# which would take the push out of the velocity, does not act on multibody
# dice. The fall is as before: only the steps from the rest's ERP on are split.
REST_ERP = 0.25
REST_SUBSTEPS = 4


def set_rest_erp(world: "World", resting: bool) -> None:
    """The contact ERP and substeps of the fall (``CONTACT_ERP``, none) or of
    the rest (``REST_ERP``, ``REST_SUBSTEPS``)."""
    pb.setPhysicsEngineParameter(contactERP=REST_ERP if resting else CONTACT_ERP,
                                 numSubSteps=REST_SUBSTEPS if resting else 0, physicsClientId=world.client)
    world.substeps = REST_SUBSTEPS if resting else 1


@dataclass
class World:
    """Body ids of one built tower in one physics client."""
    client: int
    dice: list[int]            # the current drop's dice (see place_dice)
    die_shape: int
    door: int
    door_pose: tuple[tuple[float, float, float], tuple[float, float, float, float]]
    obstacles: set[int]        # 625b.2(c)(3) ramps, bumpers, rods
    walls: set[int]            # shaft, compartment and tray walls, tray lid
    floor: int                 # the tray's floor
    edge_m: float = 0.0        # a die's edge
    substeps: int = 1          # internal steps a step is solved in now (set_rest_erp)


def rounded_cube_points(edge: float, radius: float, per_corner: int = 4) -> np.ndarray:
    """Points whose convex hull is a cube with rounded corners and edges (a
    sphere-swept box): each corner is a sphere octant of ``radius`` sampled on
    a small latitude/longitude grid."""
    inner = edge / 2 - radius
    points = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                centre = np.array([sx, sy, sz]) * inner
                if radius <= 0:
                    points.append(centre)
                    continue
                for i in range(per_corner + 1):
                    theta = (math.pi / 2) * i / per_corner          # from the z pole
                    for j in range(per_corner + 1 if 0 < i else 1):
                        phi = (math.pi / 2) * j / per_corner
                        d = np.array([math.sin(theta) * math.cos(phi),
                                      math.sin(theta) * math.sin(phi),
                                      math.cos(theta)])
                        points.append(centre + radius * d * np.array([sx, sy, sz]))
    return np.unique(np.round(np.array(points), 9), axis=0)


@lru_cache(maxsize=16)
def die_vertices(edge: float, radius: float) -> list:
    """Points sampled on a die's surface (the corners' sphere octants), in its
    own frame, computed once: for drawing and for reading its lowest points."""
    return rounded_cube_points(edge, radius).tolist()


def die_core(edge: float, radius: float) -> list:
    """The eight corners of a die's inner box: the box that, swept by a
    sphere of ``radius``, is the die (see ``build``)."""
    return rounded_cube_points(edge - 2 * radius, 0.0).tolist()


def _apply(client: int, body: int, m: Material) -> None:
    pb.changeDynamics(body, -1, restitution=m.restitution, lateralFriction=m.lateral_friction,
                      rollingFriction=m.rolling_friction, spinningFriction=m.spinning_friction,
                      physicsClientId=client)


@dataclass(frozen=True)
class Part:
    """One static part of the tower: a box (``size`` = half extents) or a
    cylinder along its local z (``size`` = (radius, half length, 0))."""
    role: str                  # "wall", "door", "obstacle", "floor"
    shape: str                 # "box" or "cylinder"
    size: tuple[float, float, float]
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    material: Material


def layout(design: TowerDesign) -> list[Part]:
    """The tower's static parts, in the order they are built. The builder
    and the pictures both draw from this one list."""
    b, t, c = design.body, design.tray, design.compartment
    hw, hd, wt = b.width_m / 2, b.depth_m / 2, b.wall_thickness_m
    level = (0.0, 0.0, 0.0, 1.0)
    parts: list[Part] = []

    def box(role, half, pos, orn=level, material=b.material):
        parts.append(Part(role, "box", tuple(half), tuple(pos), tuple(orn), material))

    # Shaft and compartment walls (625b.2(c)(1),(3)): one box per side.
    z0, z1 = b.bottom_z_m, b.top_z_m + c.height_m
    zc, zh = (z0 + z1) / 2, (z1 - z0) / 2
    for sx in (-1, 1):
        box("wall", (wt / 2, hd + wt, zh), (sx * (hw + wt / 2), 0, zc))
    for sy in (-1, 1):
        box("wall", (hw, wt / 2, zh), (0, sy * (hd + wt / 2), zc))

    # The compartment's door (625b.2(c)(2)): a plate whose top is the shaft top.
    box("door", (hw, hd, wt / 2), (0.0, 0.0, b.top_z_m - wt / 2))

    # Obstacles (625b.2(c)(3)).
    for o in b.obstacles:
        if o.kind == "ramp":
            a = math.radians(o.angle_deg)
            reach = o.length_m * math.cos(a)
            if o.side in ("left", "right"):
                sign = -1 if o.side == "left" else 1
                # A left ramp falls towards +x: rotate about y by +angle.
                box("obstacle", (o.length_m / 2, hd, o.thickness_m / 2), (sign * (hw - reach / 2), 0, o.z_m),
                    pb.getQuaternionFromEuler((0, -sign * a, 0)))
            else:
                sign = -1 if o.side == "front" else 1
                box("obstacle", (hw, o.length_m / 2, o.thickness_m / 2), (0, sign * (hd - reach / 2), o.z_m),
                    pb.getQuaternionFromEuler((sign * a, 0, 0)))
        elif o.kind == "rod":   # a round bar across the shaft, front to back
            parts.append(Part("obstacle", "cylinder", (o.radius_m, hd, 0.0), (o.x_m, 0.0, o.z_m),
                              tuple(pb.getQuaternionFromEuler((math.pi / 2, 0, 0))), b.material))
        else:  # bumper: a square bar across the shaft, turned by angle_deg
            box("obstacle", (o.length_m / 2, hd, o.length_m / 2), (o.x_m, 0, o.z_m),
                pb.getQuaternionFromEuler((0, math.radians(o.angle_deg), 0)))

    # The tray (625b.2(c)(4)): floor, four walls up to the shaft, and a lid
    # with the shaft's opening so that no die leaves it.
    tw, td, tt = t.width_m / 2, t.depth_m / 2, t.wall_thickness_m
    box("floor", (tw + tt, td + tt, tt / 2), (0, 0, -tt / 2), material=t.material)
    th = b.bottom_z_m / 2
    for sx in (-1, 1):
        box("wall", (tt / 2, td + tt, th), (sx * (tw + tt / 2), 0, th), material=t.wall_material)
    for sy in (-1, 1):
        box("wall", (tw, tt / 2, th), (0, sy * (td + tt / 2), th), material=t.wall_material)
    lid_z = b.bottom_z_m + wt / 2
    if tw > hw:
        for sx in (-1, 1):
            box("wall", ((tw - hw) / 2, td, wt / 2), (sx * (tw + hw) / 2, 0, lid_z), material=t.wall_material)
    if td > hd:
        for sy in (-1, 1):
            box("wall", (hw, (td - hd) / 2, wt / 2), (0, sy * (td + hd) / 2, lid_z), material=t.wall_material)
    return parts


def build(client: int, design: TowerDesign) -> World:
    """Create the tower's static parts and the dice's shape; ``place_dice``
    adds the dice."""
    pb.setGravity(0, 0, -9.81, physicsClientId=client)
    # contactERP: the share of a contact's overlap the solver removes each
    # step. At PyBullet's default a die still sat up to 0.2 mm deep in the
    # felt when a drop came to rest (its last impact not yet worked off);
    # at 0.1 every flat die of 150 drops rested within 0.06 mm of half an
    # edge, as fast, and the straight chute kept its loaded faces as before
    # (99%). More is not better: at 0.2 the chute kept 94%, at 0.3 31%, the
    # overlap removed each step throwing the dice back up (docs/tower.md).
    pb.setPhysicsEngineParameter(fixedTimeStep=design.physics.timestep_s,
                                 numSolverIterations=design.physics.solver_iterations,
                                 deterministicOverlappingPairs=1, contactERP=CONTACT_ERP,
                                 physicsClientId=client)
    roles: dict[str, set[int]] = {"wall": set(), "door": set(), "obstacle": set(), "floor": set()}
    door_pose = None
    for part in layout(design):
        if part.shape == "box":
            shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=part.size, physicsClientId=client)
        else:
            shape = pb.createCollisionShape(pb.GEOM_CYLINDER, radius=part.size[0], height=2 * part.size[1],
                                            physicsClientId=client)
        # A plain rigid body, not a (Featherstone) multibody of no links: the
        # solver's cost of each static part fell (a narrow-tray drop 32 to 25 ms,
        # issue 42), the chute's dice keep their faces as before (119 of 120).
        body = pb.createMultiBody(0, shape, -1, part.position, part.orientation,
                                  useMaximalCoordinates=True, physicsClientId=client)
        _apply(client, body, part.material)
        roles[part.role].add(body)
        if part.role == "door":
            door_pose = (part.position, part.orientation)

    # The dice's shape, made once: a sphere-swept box at its design size.
    # Bullet collides a convex hull with a margin added all round it (1 mm
    # by default in PyBullet), which made the dice 27 mm cubes: a flat die's
    # centre rested 13.5 mm above the felt and stacked dice 27 mm apart. A
    # hull of the inner box's 8 corners with the margin set to the corner
    # radius is exactly the rounded die (its edges and corners are true
    # cylinders and spheres, not sampled facets), and 8 points make the
    # collision tests cheaper than the 168-point hull they replace. The
    # static parts are box and cylinder primitives, which keep their margin
    # inside their size.
    d = design.dice
    die_shape = pb.createCollisionShape(pb.GEOM_MESH, vertices=die_core(d.edge_m, d.corner_radius_m),
                                        physicsClientId=client)
    (door,), (floor,) = roles["door"], roles["floor"]
    if door_pose is None:
        # Not reached: the one door body was made in the loop that keeps its pose.
        raise AssertionError("the tower's layout has a door body but no door pose")
    return World(client, [], die_shape, door, door_pose, roles["obstacle"], roles["wall"], floor, d.edge_m)


def place_dice(world: World, design: TowerDesign, poses) -> None:
    """Put fresh dice at ``poses`` (position, quaternion), at rest, removing
    the last drop's dice: new bodies carry no contact history."""
    client, d = world.client, design.dice
    for die in world.dice:
        pb.removeBody(die, physicsClientId=client)
    pb.resetBasePositionAndOrientation(world.door, *world.door_pose, physicsClientId=client)
    set_rest_erp(world, False)
    world.dice = []
    inertia = d.mass_kg * d.edge_m ** 2 / 6     # a solid cube's, not the hull's box estimate
    for pos, orn in poses:
        die = pb.createMultiBody(d.mass_kg, world.die_shape, -1, pos, orn, physicsClientId=client)
        # mass given again: PyBullet 3.2.7 sets a plain rigid body's mass to 0
        # when only its inertia is changed (a die so made falls as NaN)
        pb.changeDynamics(die, -1, mass=d.mass_kg, localInertiaDiagonal=(inertia,) * 3,
                          linearDamping=0.0, angularDamping=0.0, collisionMargin=d.corner_radius_m,
                          activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
                          physicsClientId=client)
        _apply(client, die, d.material)
        world.dice.append(die)

