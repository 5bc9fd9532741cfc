"""Whether a die that is not flat truly rests, and what holds it.

A die tilted on the tray's floor turns about the edge or corner it stands
on; gravity pulls its centre of mass over that pivot, towards its *falling
side*. It can only rest if something on that side pushes back: a wall it
leans on, or another die it lies against or on. A body beside it (a wall
whose face lies flush with the die's side, its normal across the fall) or
nothing at all (an edge balanced in the open) cannot hold it. In Bullet such
dice can still stand still for seconds: torsional friction at a flush wall
contact, scaled by the normal force of penetration recovery, resists
exactly the turn of the fall (see docs/tower.md). So a not-flat rest is a
claim to verify: ``support`` names the holder and says whether it is on the
falling side, and ``nudge`` gives a die a small turn towards its fall, which
a held die shrugs off and a falsely resting one does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np
from twin.physics_engine import pybullet as pb

from twin.tower.world import World

PIVOT_BAND_M = 0.001        # contacts within 1 mm of the lowest one carry the die's weight
SHAPE_BAND_M = 0.00005      # the die's own hull points this close to its lowest one are its base
UPWARD = 0.5                # a contact whose push is within 60 deg of up is one the die stands on
BALANCED_M = 0.0003         # a centre of mass this close above its pivot leans nowhere
INSIDE_M = 0.001            # inside its base by 1 mm: a face lies on that base
WEDGED_SHARE = 0.8          # off the floor: contacts that can carry 80% of the weight hold the die
HOLD_MIN = 0.25             # a holder's push must turn the die back with at least a quarter of its lever
NUDGE_RADPS = 1.0           # the nudge: a turn of 1 rad/s towards the fall (lifting a die that leans at
                            # 40 deg back over its edge needs about 2 rad/s, at 30 deg about 5)
TILT_DEG = 3.0              # then gravity tilted 3 deg towards the fall (a die on felt slides from ~22 deg)
TILT_S = 0.25


@dataclass(frozen=True)
class Support:
    """What holds one die, read from its contacts at rest."""
    holder: str | None          # "wall", "die", "obstacle", "floor" (a flat base) or None
    supported: bool             # the holder pushes back on the falling side
    fall_axis: tuple[float, float, float]   # the axis gravity turns the die about (unit, or zeros); for a
                                            # die balanced against a holder, the way it falls without it
    at: tuple[float, float, float] | None = None   # where the holder pushes (its strongest contact)


def _kind(world: World, body: int) -> str:
    if body == world.floor:
        return "floor"
    if body in world.dice:
        return "die"
    if body in world.obstacles:
        return "obstacle"
    return "wall"


def convex_hull(points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (monotone chain) of 2-D points, counter-clockwise; one
    or two points when that is all there is."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    return hull if len(hull) >= 2 else pts[:1]


def _nearest_on(hull: list[tuple[float, float]], q: tuple[float, float]) -> tuple[tuple[float, float], bool]:
    """The point of ``hull`` (a point, a segment or a polygon) nearest to
    ``q``, and whether ``q`` lies inside it by more than ``INSIDE_M``."""
    qx, qy = q
    if len(hull) == 1:
        return hull[0], False
    best, best_d2, inside = hull[0], math.inf, len(hull) >= 3
    for i in range(len(hull) if len(hull) >= 3 else 1):
        (ax, ay), (bx, by) = hull[i], hull[(i + 1) % len(hull)]
        ex, ey = bx - ax, by - ay
        length2 = ex * ex + ey * ey
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((qx - ax) * ex + (qy - ay) * ey) / length2))
        px, py = ax + t * ex, ay + t * ey
        d2 = (qx - px) ** 2 + (qy - py) ** 2
        if d2 < best_d2:
            best, best_d2 = (px, py), d2
        # Counter-clockwise: inside is to the left of every edge, by a margin.
        if length2 and (ex * (qy - ay) - ey * (qx - ax)) / math.sqrt(length2) < INSIDE_M:
            inside = False
    return best, inside


def support(world: World, die: int, shape) -> Support:
    """The holder of ``die`` (whose hull points in its own frame are
    ``shape``) and whether it is on the die's falling side.

    The base is the upward-pushing contacts within ``PIVOT_BAND_M`` of the
    lowest one: a face, an edge or a corner. Seen from above, the die leans from the point
    of its base nearest to its centre of mass (the pivot) towards the centre
    of mass. A contact holds the die when its push turns the die about the
    pivot against gravity's turn."""
    client = world.client
    com, orn = pb.getBasePositionAndOrientation(die, physicsClientId=client)
    com = np.array(com)
    contacts = [(c[2], np.array(c[5]), np.array(c[7]))
                for c in pb.getContactPoints(bodyA=die, physicsClientId=client)]
    if not contacts:
        return Support(None, False, (0.0, 0.0, 0.0))
    if all(body != world.floor for body, _, _ in contacts):
        # Off the floor: lying on a die, or wedged between bodies that press
        # it from both sides. It is held if the pushes and the friction they
        # allow (Bullet's combined friction is the product of the two) can
        # carry its weight.
        friction = pb.getDynamicsInfo(die, -1, physicsClientId=client)[1]
        weight = pb.getDynamicsInfo(die, -1, physicsClientId=client)[0] * 9.81
        carry, strongest = 0.0, (0.0, None, None)
        for c in pb.getContactPoints(bodyA=die, physicsClientId=client):
            mu = friction * pb.getDynamicsInfo(c[2], -1, physicsClientId=client)[1]
            nz, force = c[7][2], c[9]
            carry += force * (max(0.0, nz) + mu * math.sqrt(max(0.0, 1 - nz * nz)))
            strongest = max(strongest, (force, _kind(world, c[2]), tuple(c[5])), key=lambda fk: fk[0])
        if carry >= WEDGED_SHARE * weight:
            return Support(strongest[1], True, (0.0, 0.0, 0.0), strongest[2])
    if any(body == world.floor for body, _, _ in contacts):
        # On the floor it stands on its lowest face, edge or corner: its
        # contacts with the floor, and its shape's lowest points (a contact
        # manifold may hold only a few points, at one end of an edge).
        rot = np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)
        points = np.asarray(shape) @ rot.T + com
        lowest = float(points[:, 2].min())
        base = [(world.floor, p) for p in points[points[:, 2] <= lowest + SHAPE_BAND_M]]
        base += [(body, p) for body, p, _ in contacts if body == world.floor]
    else:
        # On another body: the contacts that push up, the lowest of them.
        under = [(b, p, n) for b, p, n in contacts if n[2] > UPWARD] or contacts
        lowest = min(p[2] for _, p, _ in under)
        base = [(b, p) for b, p, _ in under if p[2] <= lowest + PIVOT_BAND_M]
    base_kind = _kind(world, base[0][0])
    hull = convex_hull((float(p[0]), float(p[1])) for _, p in base)
    nearest, inside = _nearest_on(hull, (float(com[0]), float(com[1])))
    if inside:          # its centre of mass above a face it lies on: that base holds it
        return Support(base_kind, True, (0.0, 0.0, 0.0), tuple(float(v) for v in base[0][1]))
    pivot = np.array([nearest[0], nearest[1], lowest])
    lean = com - pivot
    lean[2] = 0.0
    if np.linalg.norm(lean) < BALANCED_M:
        # Balanced above an edge or a corner: it tips over the edge at the
        # least touch. A holder on one side (a wall its upper edge touches)
        # catches it that way; the nudge then goes the other way, where
        # nothing does, and the rest stands only if the die does not fall.
        points = np.array([p[:2] for _, p in base])
        if len(points) >= 2:
            _, spread, axes = np.linalg.svd(points - points.mean(axis=0), full_matrices=False)
            if spread[0] > 0.005 and spread[-1] < 0.2 * spread[0]:   # an edge: tip about it
                along = np.array([axes[0][0], axes[0][1], 0.0])
                for sign in (1.0, -1.0):
                    kind, best, at = _holder(world, contacts, pivot, sign * along)
                    if best >= HOLD_MIN:
                        return Support(kind, True, tuple(float(v) for v in -sign * along), at)
                return Support(None, False, tuple(float(v) for v in along))
        return Support(None, False, (0.0, 0.0, 0.0))
    axis = np.cross(lean, (0.0, 0.0, -1.0))
    axis /= np.linalg.norm(axis)
    kind, best, at = _holder(world, contacts, pivot, axis)
    return Support(kind, bool(best >= HOLD_MIN), tuple(float(v) for v in axis), at)


def _holder(world: World, contacts, pivot: np.ndarray, axis: np.ndarray):
    """The contact (other than the floor) that turns the die back hardest
    about ``axis`` through ``pivot``: its kind, its share of lever, its point."""
    best_kind, best, best_at = None, 0.0, None
    for body, point, push in contacts:
        if body == world.floor:         # the floor's part is the base itself, judged above
            continue
        arm = point - pivot
        reach = np.linalg.norm(arm)
        if reach < PIVOT_BAND_M:
            continue
        against = -float(np.dot(np.cross(arm, push), axis)) / reach
        if against > best:
            best_kind, best, best_at = _kind(world, body), against, tuple(float(v) for v in point)
    return best_kind, best, best_at


def nudge(world: World, die: int, held: Support, rng: np.random.Generator) -> tuple[float, float, float]:
    """Disturb ``die`` as a touch of the table would: turn it at
    ``NUDGE_RADPS`` towards its fall (about ``held.fall_axis`` through its
    centre; either way for a die balanced or propped from beside, about a
    random horizontal axis when it leans nowhere), and return the sideways
    force of gravity tilted by ``TILT_DEG`` the same way, which the caller
    applies for ``TILT_S``. A held die is pushed into its holder; a die
    held only by the solver's grip on a flush wall gives way."""
    axis = np.array(held.fall_axis, dtype=float)
    if not axis.any():
        angle = rng.uniform(0.0, 2 * math.pi)
        axis = np.array([math.cos(angle), math.sin(angle), 0.0])
    elif not held.supported:
        axis *= rng.choice((-1.0, 1.0))
    linear, angular = pb.getBaseVelocity(die, physicsClientId=world.client)
    pb.resetBaseVelocity(die, linear, tuple(np.array(angular) + NUDGE_RADPS * axis),
                         physicsClientId=world.client)
    mass = pb.getDynamicsInfo(die, -1, physicsClientId=world.client)[0]
    towards = np.cross(axis, (0.0, 0.0, 1.0))          # the fall's direction on the floor
    return tuple(towards * mass * 9.81 * math.sin(math.radians(TILT_DEG)))
