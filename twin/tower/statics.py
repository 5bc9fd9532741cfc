"""An independent check that a die at rest is held: found from the design's
geometry and the dice's poses alone, not from the engine's contacts or its
solver.

The twin says a die not flat rests because PyBullet held it still and it
stood gravity tilted every way (``twin.tower.resting``). An engine can hold a
body by penetration recovery or by a contact a real die would not have, so
this module asks the question again with nothing from the engine but the
poses: which surfaces touch the die, and can forces inside each contact's
friction cone hold it against gravity?

Contacts. A die is a sphere-swept box: its inner box (half edge
``edge/2 - corner_radius``) swept by a ball of the corner radius. Points
sampled on the inner box's edges and corners, and on the edges of the static
boxes near it, are measured against the other body; where the gap between
the surfaces is at most ``CONTACT_GAP_M`` they touch, pushing along the line
between the closest points. The tray's floor, walls and lid, the shaft and
the obstacles come from the design's own layout (``twin.tower.world.layout``),
the other dice from their poses. Of the points where one body presses on a
die along one normal only the corners of their hull are kept (``_patches``).

Forces. At each contact the force lies in its friction cone, approximated
from inside by a pyramid of ``CONE_SIDES`` sides (so the check never grants
more friction than the cone allows); the friction coefficient is the product
of the two materials' (Bullet's rule, docs/tower.md). Where the materials
resist rolling and turning (the felt), the body pressing on a die may also
apply a torque up to those coefficients times its push. A linear program
(``scipy.optimize.linprog``, HiGHS) asks for forces that balance the weight
of every die of a group of dice that touch each other (they stand or fall
together; a die pushed by another pushes it back). A die is ``held`` when
they exist under level gravity, and ``stands_tilts`` when they also exist
under gravity tilted ``TILT_DEG`` towards each of eight directions, the
disturbance the twin itself applies.

Why a linear program: the forces at many contacts of a die at rest are not
determined by statics alone (a die on four corners can share its weight in
many ways); the question is only whether some admissible share exists, which
is a feasibility problem over a polyhedral cone, exactly what an LP answers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from scipy.optimize import linprog

from twin import fixed_arithmetic as fx

from twin.tower.design import TowerDesign
from twin.tower.resting import TILT_DEG, TILT_DIRECTIONS
from twin.tower.world import layout

CONTACT_GAP_M = 0.0002      # surfaces this close (or overlapping) touch: the engine rests dice within ~0.1 mm
EDGE_SAMPLES = 11           # points along each edge of a die's inner box (its corners included)
CONE_SIDES = 16             # the friction cone as an inscribed pyramid of 16 sides (at worst 2% less friction)
MAX_TILT_DEG = 20.0         # the holding tilt is searched up to here (a die on felt slides from ~11 deg)


@dataclass(frozen=True)
class Contact:
    """A surface touching a die: where, which way it can push, with what friction."""
    die: int                        # the die it pushes
    other: str                      # "floor", "wall", "obstacle" or "die"
    other_die: int | None           # the die pushing back (and pushed the other way) when ``other`` is "die"
    point: tuple[float, float, float]
    normal: tuple[float, float, float]      # unit, the way the other body pushes ``die``
    friction: float
    gap_m: float
    rolling_m: float = 0.0          # the contact's rolling resistance (torque per newton of push)
    spinning_m: float = 0.0         # and its resistance to turning about the normal


@dataclass(frozen=True)
class Verdict:
    """The check's verdict on one die: on the group of dice that touch it,
    which stand or fall together."""
    die: int
    held: bool                      # forces inside the friction cones hold it under level gravity
    tilts_held: int                 # ... and under this many of the TILT_DIRECTIONS tilted gravities
    group: tuple[int, ...]          # the dice judged with it (those it touches, and theirs)
    touching: tuple[str, ...]       # what touches it ("wall", "die 2", ...), the closest first, the floor last
    contacts: tuple[Contact, ...]   # its own contacts
    holding_tilt_deg: float | None = None   # the largest tilt the group stands in every direction (when asked)

    @property
    def stands_tilts(self) -> bool:
        """Held, and under gravity tilted ``TILT_DEG`` every way: the twin's own test of a rest."""
        return self.held and self.tilts_held == TILT_DIRECTIONS

    def describe(self) -> str:
        what = ", ".join(self.touching) or "nothing"
        verdict = ("held, stands the tilts" if self.stands_tilts else "held level only" if self.held else "NOT held")
        tilt = "" if self.holding_tilt_deg is None else f", stands a {self.holding_tilt_deg:.1f} deg tilt"
        return f"die {self.die + 1}: {verdict} ({self.tilts_held}/{TILT_DIRECTIONS} tilts; touching {what}{tilt})"


def rotation(q: Sequence[float]) -> np.ndarray:
    """The rotation matrix of a quaternion (x, y, z, w)."""
    x, y, z, w = (float(v) for v in q)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _box_edge_points(half: np.ndarray, samples: int) -> np.ndarray:
    """Points along the 12 edges of a box of half extents ``half``, in its frame."""
    t = np.linspace(-1.0, 1.0, samples)
    points = []
    for axis in range(3):
        a, b = (axis + 1) % 3, (axis + 2) % 3
        for sa in (-1, 1):
            for sb in (-1, 1):
                p = np.zeros((samples, 3))
                p[:, axis] = t * half[axis]
                p[:, a], p[:, b] = sa * half[a], sb * half[b]
                points.append(p)
    return np.unique(np.round(np.concatenate(points), 12), axis=0)


def _closest_on_box(points: np.ndarray, centre: np.ndarray, rot: np.ndarray, half: np.ndarray):
    """For each point: the closest point of a solid box, the distance, and the
    unit direction from the box towards the point (for a point inside: out
    through the nearest face, with a negative distance)."""
    local = fx.matmul(points - centre, rot)
    clamped = np.clip(local, -half, half)
    delta = local - clamped
    dist = fx.row_norms(delta)
    normal = np.zeros_like(local)
    outside = dist > 1e-12
    normal[outside] = delta[outside] / dist[outside, None]
    inside = ~outside
    if inside.any():
        room = half - np.abs(local[inside])
        axis = np.argmin(room, axis=1)
        rows = np.arange(len(axis))
        n = np.zeros((len(axis), 3))
        n[rows, axis] = np.sign(local[inside][rows, axis]) + (local[inside][rows, axis] == 0)
        normal[inside] = n
        dist[inside] = -room[rows, axis]
        clamped[inside] = local[inside] - n * (dist[inside, None])    # on the nearest face
    return fx.matmul(clamped, rot.T) + centre, dist, fx.matmul(normal, rot.T)


def _closest_on_cylinder(points: np.ndarray, centre: np.ndarray, rot: np.ndarray, radius: float, half_len: float):
    """The same for a solid cylinder along its local z."""
    local = fx.matmul(points - centre, rot)
    rho = fx.row_norms(local[:, :2])
    scale = np.where(rho > radius, radius / np.maximum(rho, 1e-12), 1.0)
    clamped = np.column_stack([local[:, 0] * scale, local[:, 1] * scale, np.clip(local[:, 2], -half_len, half_len)])
    delta = local - clamped
    dist = fx.row_norms(delta)
    normal = np.zeros_like(local)
    outside = dist > 1e-12
    normal[outside] = delta[outside] / dist[outside, None]
    normal[~outside] = np.array([0.0, 0.0, 1.0])      # inside a rod: never the case for a die at rest
    return fx.matmul(clamped, rot.T) + centre, dist, fx.matmul(normal, rot.T)


class Scene:
    """The tower's static parts and the dice's poses, as geometry."""

    def __init__(self, design: TowerDesign, poses: Sequence[tuple[Sequence[float], Sequence[float]]],
                 padding_m: float = 0.0):
        d = design.dice
        self.design = design
        # ``padding_m`` grows each die all round (not the static parts, which
        # Bullet pads inside): the twin before issue 24 collided its dice as
        # hulls padded by a 1 mm margin, 27 mm cubes.
        self.radius = d.corner_radius_m + padding_m
        self.inner = np.full(3, d.edge_m / 2 - d.corner_radius_m)
        self.dice = [(np.asarray(pos, dtype=float), rotation(orn)) for pos, orn in poses]
        self.samples = _box_edge_points(self.inner, EDGE_SAMPLES)
        self.parts = [p for p in layout(design) if p.role != "door"]     # the door is open once the dice fall
        self.reach = fx.norm(self.inner) + self.radius + CONTACT_GAP_M

    def _die_points(self, i: int) -> np.ndarray:
        centre, rot = self.dice[i]
        return fx.matmul(self.samples, rot.T) + centre

    def static_contacts(self, i: int) -> list[Contact]:
        """The tower's parts touching die ``i``."""
        d, r = self.design.dice, self.radius
        centre, rot = self.dice[i]
        mine = self._die_points(i)
        found: list[Contact] = []
        for part in self.parts:
            pc, prot = np.asarray(part.position), rotation(part.orientation)
            kind = {"floor": "floor", "obstacle": "obstacle"}.get(part.role, "wall")
            m, dm = part.material, d.material
            mu = dm.lateral_friction * m.lateral_friction
            # Bullet's combination (docs/tower.md): r_a * mu_b + r_b * mu_a.
            rolling = dm.rolling_friction * m.lateral_friction + m.rolling_friction * dm.lateral_friction
            spinning = dm.spinning_friction * m.lateral_friction + m.spinning_friction * dm.lateral_friction
            if part.shape == "box":
                half = np.asarray(part.size)
                q, dist, n = _closest_on_box(mine, pc, prot, half)
            else:
                q, dist, n = _closest_on_cylinder(mine, pc, prot, part.size[0], part.size[1])
            for k in np.nonzero(dist - r <= CONTACT_GAP_M)[0]:
                found.append(Contact(i, kind, None, tuple(q[k]), tuple(n[k]), mu, float(dist[k] - r),
                                     rolling, spinning))
            if part.shape == "box":
                # The part's own edges near the die (a die lying across the lid's edge).
                corners = fx.matmul(_box_edge_points(half, 2), prot.T) + pc
                for a, b in _edges(corners, prot, pc):
                    seg = _segment_near(a, b, centre, self.reach)
                    if seg is None:
                        continue
                    pts = np.linspace(seg[0], seg[1], 41)
                    q2, dist2, n2 = _closest_on_box(pts, centre, rot, self.inner)
                    for k in np.nonzero(dist2 - r <= CONTACT_GAP_M)[0]:
                        found.append(Contact(i, kind, None, tuple(pts[k]), tuple(-n2[k]), mu, float(dist2[k] - r),
                                             rolling, spinning))
        return found

    def pair_contacts(self, i: int, j: int) -> list[Contact]:
        """Where dice ``i`` and ``j`` touch, each as a push on ``i`` (and the
        opposite push on ``j``)."""
        dm = self.design.dice.material
        r, mu = self.radius, dm.lateral_friction ** 2
        rolling, spinning = 2 * dm.rolling_friction * dm.lateral_friction, 2 * dm.spinning_friction * dm.lateral_friction
        (ci, roti), (cj, rotj) = self.dice[i], self.dice[j]
        if fx.norm(ci - cj) > 2 * self.reach:
            return []
        found = []
        # i's corners and edges against j's inner box, and j's against i's.
        for points, centre, rot, sign in ((self._die_points(i), cj, rotj, 1.0), (self._die_points(j), ci, roti, -1.0)):
            q, dist, n = _closest_on_box(points, centre, rot, self.inner)
            for k in np.nonzero(dist - 2 * r <= CONTACT_GAP_M)[0]:
                point = q[k] + n[k] * (r + (dist[k] - 2 * r) / 2)       # midway between the two surfaces
                found.append(Contact(i, "die", j, tuple(point), tuple(sign * n[k]), mu, float(dist[k] - 2 * r),
                                     rolling, spinning))
        return found


def _edges(corners: np.ndarray, rot: np.ndarray, centre: np.ndarray):
    """The 12 edges of a box as pairs of world points."""
    local = fx.matmul(corners - centre, rot)
    for a in range(len(local)):
        for b in range(a + 1, len(local)):
            if np.sum(np.abs(local[a] - local[b]) > 1e-9) == 1:
                yield corners[a], corners[b]


def _segment_near(a: np.ndarray, b: np.ndarray, centre: np.ndarray, reach: float):
    """The part of segment ab within ``reach`` of ``centre``, or None."""
    d = b - a
    length2 = fx.dot(d, d)
    if length2 == 0:
        return None
    t = float(np.clip(fx.dot(centre - a, d) / length2, 0.0, 1.0))
    closest = a + t * d
    off = fx.norm(closest - centre)
    if off > reach:
        return None
    half_chord = math.sqrt(max(0.0, reach * reach - off * off)) / math.sqrt(length2)
    return a + max(0.0, t - half_chord) * d, a + min(1.0, t + half_chord) * d


def _pyramid(normal: np.ndarray, friction: float) -> np.ndarray:
    """The edges of a contact's friction pyramid: unit push plus friction,
    ``CONE_SIDES`` of them (rows)."""
    n = normal / fx.norm(normal)
    t1, t2 = _tangents(n)
    angles = 2 * math.pi * np.arange(CONE_SIDES) / CONE_SIDES
    return n + friction * (np.outer(fx.cos(angles), t1) + np.outer(fx.sin(angles), t2))


def _tangents(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = normal / fx.norm(normal)
    helper = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(n, helper)
    t1 /= fx.norm(t1)
    return t1, np.cross(n, t1)


def can_hold(scene: Scene, group: Sequence[int], contacts: Sequence[Contact], gravity: np.ndarray) -> bool:
    """Whether forces inside the contacts' friction pyramids hold every die
    of ``group`` still under ``gravity`` (a unit vector): for each die, the
    forces on it and their moments about its centre balance its weight. A
    contact between two dice of the group pushes one and pushes the other
    back equally; a die outside the group is held fixed. Where the materials
    resist rolling and turning (the felt), each body pressing on a die may
    also apply a torque: about the contact's tangents up to the rolling
    coefficient times its push, about its normal up to the spinning
    coefficient times its push. Forces in weights, moments in weights times
    edges."""
    if not contacts:
        return False
    slot = {die: 6 * k for k, die in enumerate(group)}
    rows, edge = 6 * len(group), scene.design.dice.edge_m

    def acting(die: int, other: int | None, force: np.ndarray,
               moment: np.ndarray | Callable[[int], np.ndarray]) -> np.ndarray:
        column = np.zeros(rows)
        for body, sign in ((die, 1.0), (other, -1.0)):
            if body in slot:
                column[slot[body]:slot[body] + 3] = sign * force
                column[slot[body] + 3:slot[body] + 6] = sign * moment(body) if callable(moment) else sign * moment
        return column

    columns: list[np.ndarray] = []
    # Per body pressing on a die (die, what, which die): one of its contacts and its pyramids' columns.
    resisting: dict[tuple[int, str, int | None], tuple[Contact, list[int]]] = {}
    for c in contacts:
        point = np.asarray(c.point)
        for f in _pyramid(np.asarray(c.normal), c.friction):
            if c.rolling_m > 0 or c.spinning_m > 0:
                resisting.setdefault((c.die, c.other, c.other_die), (c, []))[1].append(len(columns))

            # The force's moment about the centre of the die it acts on (f and point bound now, not at the end
            # of the loop).
            def moment(body: int, f: np.ndarray = f, point: np.ndarray = point) -> np.ndarray:
                return np.cross((point - scene.dice[body][0]) / edge, f)

            columns.append(acting(c.die, c.other_die, f, moment))
    forces = len(columns)
    # Rolling and spinning resistance: three torques per body pressing on a
    # die (either sign), bounded by its coefficients times that body's push
    # (the sum of its pyramid weights: each pyramid edge pushes by one weight).
    limits = []
    for (die, _, other), (c, members) in resisting.items():
        n = np.asarray(c.normal)
        t1, t2 = _tangents(n)
        first = len(columns)
        columns += [acting(die, other, np.zeros(3), axis) for axis in (t1, t2, n)]
        roll = c.rolling_m / edge * math.cos(math.pi / CONE_SIDES)   # a polygon inside the disc |torque| <= r N
        for k in range(CONE_SIDES):
            angle = 2 * math.pi * k / CONE_SIDES
            limits.append(({first: math.cos(angle), first + 1: math.sin(angle)}, members, roll))
        for sign in (1.0, -1.0):
            limits.append(({first + 2: sign}, members, c.spinning_m / edge))
    a_eq = np.array(columns).T
    b_eq = -np.concatenate([np.concatenate([gravity, np.zeros(3)]) for _ in group])
    a_ub = b_ub = None
    if limits:
        a_ub = np.zeros((len(limits), len(columns)))
        for k, (torques, members, limit) in enumerate(limits):
            for col, value in torques.items():
                a_ub[k, col] = value
            a_ub[k, members] = -limit
        b_ub = np.zeros(len(limits))
    bounds = [(0, None)] * forces + [(None, None)] * (len(columns) - forces)
    cost = np.concatenate([np.ones(forces), np.zeros(len(columns) - forces)])
    # Least total push among the feasible ones: a bounded problem HiGHS solves exactly.
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    return result.status == 0


def tilted_gravity(direction: int, tilt_deg: float) -> np.ndarray:
    tilt, heading = math.radians(tilt_deg), 2 * math.pi * direction / TILT_DIRECTIONS
    return np.array([math.sin(tilt) * math.cos(heading), math.sin(tilt) * math.sin(heading), -math.cos(tilt)])


def _largest_tilt(scene, group, contacts, direction: int) -> float:
    """The largest tilt towards ``direction`` under which the group is held (bisection, 0.05 deg)."""
    low, high = 0.0, MAX_TILT_DEG
    if can_hold(scene, group, contacts, tilted_gravity(direction, high)):
        return high
    while high - low > 0.05:
        mid = (low + high) / 2
        if can_hold(scene, group, contacts, tilted_gravity(direction, mid)):
            low = mid
        else:
            high = mid
    return low


def _patches(contacts: Sequence[Contact]) -> list[Contact]:
    """The contacts that matter: of the points where one body presses on a
    die along one normal (a patch: a face on the felt, an edge on a wall),
    the corners of their convex hull. A force at a point inside the hull is
    a blend of the same force at its corners, with the same moment, so the
    rest add nothing but work for the solver."""
    groups: dict[tuple, list[Contact]] = {}
    for c in contacts:
        key = (c.die, c.other, c.other_die, tuple(np.round(c.normal, 2)))
        groups.setdefault(key, []).append(c)
    kept = []
    for group in groups.values():
        if len(group) <= 3:
            kept += group
            continue
        t1, t2 = _tangents(np.asarray(group[0].normal))
        flat = [(fx.dot(c.point, t1), fx.dot(c.point, t2)) for c in group]
        corners = set(convex_hull(flat))
        kept += [c for c, xy in zip(group, flat) if xy in corners]
    return kept


def convex_hull(points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The corners of the convex hull of 2-D points (monotone chain),
    counter-clockwise; the points themselves when fewer than three, a
    segment's two ends when they lie in a line."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 1e-14:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 1e-14:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def contacts_and_groups(scene: Scene):
    """Each die's contacts with the tower, each pair's with each other, and
    which group of dice linked by contacts each die is in."""
    count = len(scene.dice)
    own = {i: scene.static_contacts(i) for i in range(count)}
    pairs = {(i, j): scene.pair_contacts(i, j) for i in range(count) for j in range(i + 1, count)}
    group_of = list(range(count))
    for (i, j), found in pairs.items():
        if found:
            gi, gj = group_of[i], group_of[j]
            group_of = [gi if g == gj else g for g in group_of]
    return own, pairs, group_of


def group_with(group_of: Sequence[int], die: int) -> tuple[int, ...]:
    """The dice of ``die``'s group (0-based, in order)."""
    return tuple(k for k, g in enumerate(group_of) if g == group_of[die])


def group_contacts(group: tuple[int, ...], own: dict, pairs: dict) -> list[Contact]:
    return _patches([c for k in group for c in own[k]] + [c for (a, b), cs in pairs.items()
                                                          if a in group and b in group for c in cs])


def check_poses(design: TowerDesign, poses, dice: Sequence[int], holding_tilt: bool = False,
                padding_m: float = 0.0) -> list[Verdict]:
    """The verdicts on ``dice`` (0-based) of a rest whose dice lie at
    ``poses`` (position, orientation xyzw). Dice that touch each other are
    judged together; ``holding_tilt`` also searches the largest tilt each
    group stands (about 60 more linear programs a group); ``padding_m``
    judges dice that much larger all round than the design's."""
    scene = Scene(design, poses, padding_m)
    own, pairs, group_of = contacts_and_groups(scene)
    verdicts, judged = [], {}
    for i in dice:
        group = group_with(group_of, i)
        if group not in judged:
            contacts = group_contacts(group, own, pairs)
            level = can_hold(scene, group, contacts, np.array([0.0, 0.0, -1.0]))
            tilts = sum(can_hold(scene, group, contacts, tilted_gravity(k, TILT_DEG))
                        for k in range(TILT_DIRECTIONS)) if level else 0
            holding = None
            if holding_tilt:
                holding = min(_largest_tilt(scene, group, contacts, k) for k in range(TILT_DIRECTIONS)) if level else 0.0
            judged[group] = (level, tilts, holding)
        level, tilts, holding = judged[group]
        mine = own[i] + [c for (a, b), cs in pairs.items() if i in (a, b) for c in cs]
        gaps: dict[str, float] = {}
        for c in mine:
            if c.other == "die":
                other = c.other_die if c.die == i else c.die
                if other is None:
                    # Not reached: a contact between two dice names both (Scene.pair_contacts).
                    raise AssertionError("a contact with a die that does not say which die")
                name = f"die {other + 1}"
            else:
                name = c.other
            gaps[name] = min(gaps.get(name, math.inf), c.gap_m)
        touching = tuple(sorted(gaps, key=lambda k: (k == "floor", gaps[k])))
        verdicts.append(Verdict(i, level, tilts, group, touching, tuple(mine), holding))
    return verdicts


def check_rest(design: TowerDesign, result, holding_tilt: bool = False, padding_m: float = 0.0) -> list[Verdict]:
    """The verdict on every die of a drop (``DropResult``) that is not flat."""
    return check_poses(design, [(d.position_m, d.orientation_xyzw) for d in result.dice],
                       [i for i, d in enumerate(result.dice) if not d.flat], holding_tilt, padding_m)
