"""What holds a die at rest, read from the engine's own contacts, and the
disturbance that tells a rest that holds from one that does not.

A die that comes to rest not flat makes the drop a no roll (625b.2(d)(5)),
so such a rest must be one a real die keeps. ``holds`` reads what presses on
a die from PyBullet's contact points and the forces its solver applied there:
the body, where (the force-weighted centre of its contact points) and how
hard, so that a report can say "held by the wall at (x, y, z) with 0.05 N".
``try_rest`` is the disturbance a drop applies before it accepts such a rest
(``twin.tower.dropping``): gravity tilted by ``TILT_DEG`` towards each of
eight directions in turn, each from the rest as it lay, as a tray not quite
level or a knock on the table would tilt it. A rest that stands every tilt
is kept exactly as it lay; one that gives way falls on.

Before, the twin nudged every cocked die towards the side its contacts said
it would fall to. That knocked over rests a real die keeps (a die leaning
36 deg on another, which holds under a 4 deg tilt, ended flat), so the
no-roll rate was an undercount by construction. A tilt every way needs no
guess at which way a die falls, and changes nothing that stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from twin.physics_engine import pybullet as pb

from twin import fixed_arithmetic as fx

from twin.tower.world import World, die_core

GRAVITY = 9.81
CHECK_EVERY_STEPS = 4       # during a tilt, the dice are looked at every 4 steps (1/60 s at 240 Hz)
TILT_DEG = 2.0              # the disturbance: gravity tilted 2 deg (a die on felt slides from ~11 deg) ...
TILT_DIRECTIONS = 8         # ... towards each of 8 directions 45 deg apart, one after the other ...
TILT_S = 0.3                # ... for 0.3 s each, from the rest as it lay
MOVED_M = 0.003             # a rest gave way if a point of a die moved more than 3 mm (solver jitter at rest
                            # moves one up to ~2 mm in 0.3 s; a die that tips or slides passes 3 mm well
                            # within it), or a die became flat or stopped being flat


@dataclass(frozen=True)
class Hold:
    """One body pressing on a die at rest, from the engine's contact points."""
    kind: str                       # "floor", "wall" (a tray or shaft wall, the lid), "obstacle" or "die"
    die: int | None                 # which die (0-based) when ``kind`` is "die"
    at_m: tuple[float, float, float]        # the force-weighted centre of its contact points on the die
    force_n: tuple[float, float, float]     # the force it applies to the die (normal and friction), N
    points: int                     # how many contact points the engine keeps between them

    @property
    def push_n(self) -> float:
        return float(math.sqrt(sum(f * f for f in self.force_n)))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "die": self.die, "at_m": [round(v, 5) for v in self.at_m],
                "force_n": [round(v, 5) for v in self.force_n], "points": self.points}

    @classmethod
    def from_dict(cls, d: dict) -> "Hold":
        return cls(str(d["kind"]), None if d.get("die") is None else int(d["die"]),
                   _xyz(d["at_m"]), _xyz(d["force_n"]), int(d["points"]))


def _xyz(values) -> tuple[float, float, float]:
    """A point or force as the three floats a Hold keeps (unpacked, so that its type says three)."""
    x, y, z = values
    return float(x), float(y), float(z)


def kind_of(world: World, body: int) -> str:
    if body == world.floor:
        return "floor"
    if body in world.dice:
        return "die"
    if body in world.obstacles:
        return "obstacle"
    return "wall"


def holds(world: World, die: int) -> tuple[Hold, ...]:
    """Every body touching ``die``, with the force the solver applied through
    it on the last step, strongest first; summed with gravity, a die at rest
    balances to within the solver's tolerance.

    Asked for the contacts of ``die``, PyBullet lists each as if ``die`` were
    body A: the normal force along ``contactNormalOnB``, from the other body
    towards the die. The friction forces keep the order of Bullet's own
    contact pair, whose first body is the one made first (the lower id):
    against a wall or the floor, made before the dice, the friction on the
    die is minus the reported one; against a die made later, plus."""
    client = world.client
    # PyBullet gives a contact's force as the impulse of the last internal
    # step over the whole step: solved in n substeps (the rest's), 1/n of it.
    per_step = world.substeps
    grouped: dict[int, list] = {}
    for c in pb.getContactPoints(bodyA=die, physicsClientId=client):
        friction = c[10] * np.asarray(c[11]) + c[12] * np.asarray(c[13])
        force = per_step * (c[9] * np.asarray(c[7]) + (friction if c[2] > die else -friction))
        grouped.setdefault(c[2], []).append((np.asarray(c[5]), force, per_step * c[9]))
    found = []
    for body, contacts in grouped.items():
        total = sum(f for _, f, _ in contacts)
        weights = np.array([max(n, 0.0) for _, _, n in contacts])
        points = np.array([p for p, _, _ in contacts])
        at = points.mean(axis=0) if weights.sum() <= 0 else (weights[:, None] * points).sum(axis=0) / weights.sum()
        kind = kind_of(world, body)
        found.append(Hold(kind, world.dice.index(body) if kind == "die" else None,
                          _xyz(at), _xyz(total), len(contacts)))
    return tuple(sorted(found, key=lambda h: -h.push_n))


def gravity_tilted(direction: int, g: float = GRAVITY, tilt_deg: float = TILT_DEG) -> tuple[float, float, float]:
    """Gravity tilted ``tilt_deg`` towards the ``direction``-th of
    ``TILT_DIRECTIONS`` compass directions (0 is +x, counter-clockwise)."""
    tilt, heading = math.radians(tilt_deg), 2 * math.pi * direction / TILT_DIRECTIONS
    return (g * math.sin(tilt) * math.cos(heading), g * math.sin(tilt) * math.sin(heading), -g * math.cos(tilt))


def moved(before, after, corners: np.ndarray) -> list[bool]:
    """Per die: whether any of ``corners`` (points of the die in its own
    frame, one row each) moved more than ``MOVED_M`` between two lists of
    (position, orientation)."""
    out = []
    for (pos, orn), (pos0, orn0) in zip(after, before):
        now = fx.matmul(corners, np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3).T) + pos
        then = fx.matmul(corners, np.array(pb.getMatrixFromQuaternion(orn0)).reshape(3, 3).T) + pos0
        out.append(bool(np.max(np.sum((now - then) ** 2, axis=1)) > MOVED_M ** 2))
    return out


def try_rest(world: World, timestep_s: float, is_flat: Callable[[tuple], bool],
             keep_rest: bool = False, tilt_deg: float = TILT_DEG,
             watched: Sequence[int] | None = None) -> tuple[list[bool] | None, int]:
    """Disturb the dice's rest as it lies: gravity tilted ``tilt_deg`` towards
    each of ``TILT_DIRECTIONS`` in turn, each from the rest (a saved state), for
    ``TILT_S``. Returns ``(None, 0)`` when the rest stood every tilt, the
    world put back exactly as it lay, so that a rest that holds is reported
    unchanged. Otherwise, per die whether it gave way (a point of it moved
    more than ``MOVED_M``, or it became flat or stopped being flat:
    ``is_flat`` of a (position, orientation)), and the steps the world went
    on for: it is left as that tilt left it to fall on, or put back as it
    lay with ``keep_rest`` (0 steps). ``watched`` (0-based): only these dice's
    moves count (all of them when None), so that a steeper tilt, under which
    a flat die slides on the felt, is a trial of the dice not flat alone."""
    client = world.client
    position = pb.getBasePositionAndOrientation
    corners = np.array(die_core(world.edge_m, 0.0))
    tilt_steps = round(TILT_S / timestep_s)
    state = pb.saveState(physicsClientId=client)
    before = [position(die, physicsClientId=client) for die in world.dice]
    flat_before = [is_flat(pose) for pose in before]
    try:
        for direction in range(TILT_DIRECTIONS):
            if direction:
                pb.restoreState(stateId=state, physicsClientId=client)
            pb.setGravity(*gravity_tilted(direction, tilt_deg=tilt_deg), physicsClientId=client)
            for k in range(1, tilt_steps + 1):
                pb.stepSimulation(physicsClientId=client)
                if k % CHECK_EVERY_STEPS and k != tilt_steps:
                    continue
                now = [position(die, physicsClientId=client) for die in world.dice]
                gave = [shift or is_flat(pose) != was
                        for shift, pose, was in zip(moved(before, now, corners), now, flat_before)]
                if watched is not None:
                    gave = [g and i in watched for i, g in enumerate(gave)]
                if any(gave):
                    if keep_rest:
                        pb.restoreState(stateId=state, physicsClientId=client)
                        return gave, 0
                    return gave, k
        pb.restoreState(stateId=state, physicsClientId=client)
        return None, 0
    finally:
        pb.setGravity(0, 0, -GRAVITY, physicsClientId=client)
        pb.removeState(state, physicsClientId=client)
