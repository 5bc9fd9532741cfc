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

import numpy as np
import pybullet as pb

from twin.tower.design import Material, TowerDesign

DOOR_PARKED = (0.0, 0.0, -5.0)    # where the compartment's door goes on release


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


def rounded_cube_points(edge: float, radius: float, per_corner: int = 3) -> np.ndarray:
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


def _apply(client: int, body: int, m: Material) -> None:
    pb.changeDynamics(body, -1, restitution=m.restitution, lateralFriction=m.lateral_friction,
                      rollingFriction=m.rolling_friction, spinningFriction=m.spinning_friction,
                      physicsClientId=client)


def _static_box(client: int, half: tuple[float, float, float], pos, orn=(0, 0, 0, 1)) -> int:
    shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=client)
    return pb.createMultiBody(0, shape, -1, pos, orn, physicsClientId=client)


def build(client: int, design: TowerDesign) -> World:
    """Create the tower's static parts and the dice's shape; ``place_dice``
    adds the dice."""
    b, t, d, c = design.body, design.tray, design.dice, design.compartment
    pb.setGravity(0, 0, -9.81, physicsClientId=client)
    pb.setPhysicsEngineParameter(fixedTimeStep=design.physics.timestep_s,
                                 numSolverIterations=design.physics.solver_iterations,
                                 deterministicOverlappingPairs=1,
                                 physicsClientId=client)
    hw, hd, wt = b.width_m / 2, b.depth_m / 2, b.wall_thickness_m

    # Shaft and compartment walls (625b.2(c)(1),(3)): one box per side.
    z0, z1 = b.bottom_z_m, b.top_z_m + c.height_m
    zc, zh = (z0 + z1) / 2, (z1 - z0) / 2
    shaft = [_static_box(client, (wt / 2, hd + wt, zh), (sx * (hw + wt / 2), 0, zc)) for sx in (-1, 1)]
    shaft += [_static_box(client, (hw, wt / 2, zh), (0, sy * (hd + wt / 2), zc)) for sy in (-1, 1)]
    for w in shaft:
        _apply(client, w, b.material)

    # The compartment's door (625b.2(c)(2)): a plate whose top is the shaft top.
    door_pose = ((0.0, 0.0, b.top_z_m - wt / 2), (0.0, 0.0, 0.0, 1.0))
    door = _static_box(client, (hw, hd, wt / 2), *door_pose)
    _apply(client, door, b.material)

    # Obstacles (625b.2(c)(3)).
    obstacles: set[int] = set()
    for o in b.obstacles:
        if o.kind == "ramp":
            a = math.radians(o.angle_deg)
            reach = o.length_m * math.cos(a)
            if o.side in ("left", "right"):
                sign = -1 if o.side == "left" else 1
                half = (o.length_m / 2, hd, o.thickness_m / 2)
                pos = (sign * (hw - reach / 2), 0, o.z_m)
                # A left ramp falls towards +x: rotate about y by +angle.
                orn = pb.getQuaternionFromEuler((0, -sign * a, 0))
            else:
                sign = -1 if o.side == "front" else 1
                half = (hw, o.length_m / 2, o.thickness_m / 2)
                pos = (0, sign * (hd - reach / 2), o.z_m)
                orn = pb.getQuaternionFromEuler((sign * a, 0, 0))
            body = _static_box(client, half, pos, orn)
        elif o.kind == "rod":
            shape = pb.createCollisionShape(pb.GEOM_CYLINDER, radius=o.radius_m, height=2 * hd,
                                            physicsClientId=client)
            body = pb.createMultiBody(0, shape, -1, (o.x_m, 0, o.z_m),
                                      pb.getQuaternionFromEuler((math.pi / 2, 0, 0)),
                                      physicsClientId=client)
        else:  # bumper: a square bar across the shaft, turned by angle_deg
            body = _static_box(client, (o.length_m / 2, hd, o.length_m / 2), (o.x_m, 0, o.z_m),
                               pb.getQuaternionFromEuler((0, math.radians(o.angle_deg), 0)))
        _apply(client, body, b.material)
        obstacles.add(body)

    # The tray (625b.2(c)(4)): floor, four walls up to the shaft, and a lid
    # with the shaft's opening so that no die leaves it.
    tw, td, tt = t.width_m / 2, t.depth_m / 2, t.wall_thickness_m
    walls: set[int] = set()
    floor = _static_box(client, (tw + tt, td + tt, tt / 2), (0, 0, -tt / 2))
    _apply(client, floor, t.material)
    th = b.bottom_z_m / 2
    for sx in (-1, 1):
        walls.add(_static_box(client, (tt / 2, td + tt, th), (sx * (tw + tt / 2), 0, th)))
    for sy in (-1, 1):
        walls.add(_static_box(client, (tw, tt / 2, th), (0, sy * (td + tt / 2), th)))
    lid_z = b.bottom_z_m + wt / 2
    if tw > hw:
        for sx in (-1, 1):
            walls.add(_static_box(client, ((tw - hw) / 2, td, wt / 2), (sx * (tw + hw) / 2, 0, lid_z)))
    if td > hd:
        for sy in (-1, 1):
            walls.add(_static_box(client, (hw, (td - hd) / 2, wt / 2), (0, sy * (td + hd) / 2, lid_z)))
    for w in walls:
        _apply(client, w, t.material)
    walls.update(shaft)

    # The dice's shape: a rounded cube (a sphere-swept box), made once.
    points = rounded_cube_points(d.edge_m, d.corner_radius_m)
    die_shape = pb.createCollisionShape(pb.GEOM_MESH, vertices=points.tolist(), physicsClientId=client)
    return World(client, [], die_shape, door, door_pose, obstacles, walls, floor)


def place_dice(world: World, design: TowerDesign, poses) -> None:
    """Put fresh dice at ``poses`` (position, quaternion), at rest, removing
    the last drop's dice: new bodies carry no contact history."""
    client, d = world.client, design.dice
    for die in world.dice:
        pb.removeBody(die, physicsClientId=client)
    pb.resetBasePositionAndOrientation(world.door, *world.door_pose, physicsClientId=client)
    world.dice = []
    inertia = d.mass_kg * d.edge_m ** 2 / 6     # a solid cube's, not the hull's box estimate
    for pos, orn in poses:
        die = pb.createMultiBody(d.mass_kg, world.die_shape, -1, pos, orn, physicsClientId=client)
        pb.changeDynamics(die, -1, localInertiaDiagonal=(inertia,) * 3,
                          linearDamping=0.0, angularDamping=0.0,
                          activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
                          physicsClientId=client)
        _apply(client, die, d.material)
        world.dice.append(die)
