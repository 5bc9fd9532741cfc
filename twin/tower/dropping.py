"""One drop of the dice through a tower: load, hold, release, tumble, rest, read.

The round follows 58 Pa. Code 625b.2(d): the dice wait in the compartment
((c)(1)) until the release ((d)(3)), tumble down the body against the
obstacles ((c)(3)), come to rest in the tray ((d)(4)); a die that is not flat
on the tray's bottom makes the drop a "no roll" ((d)(5)).

A rest with a die not flat is taken only if it stands a small disturbance
(``twin.tower.resting.try_rest``: gravity tilted 2 deg every way, each from
the rest as it lay); one that stands is reported exactly as it lay, one that
gives way falls on and rests again. Where the whole-group static check is
clear about the rest (half a degree either side of the trial's 2 deg), its
verdict is the trial's (``decide_rest``).

Determinism: every drop runs in a new physics world (see ``_Engine``), with
``deterministicOverlappingPairs=1``, and every
random choice (the load when none is given, the dice's yaw and place in the
compartment) comes from ``numpy.random.default_rng(seed)``. The disturbance
goes back to the rest through a state saved in the same world, the same
steps in the same order in every process. The same design, seed and load
therefore give the same drop after any other drops and in any process. A
drop is bounded by ``physics.max_time_s`` of simulated time (and at most
``MAX_TRIALS`` disturbances) and stops as soon as all dice have been at rest
for ``physics.rest_for_s``.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np
from twin.physics_engine import pybullet as pb

from twin.errors import DesignError
from twin.tower.design import TowerDesign
from twin.tower.rest_decision import decide_rest
from twin.tower.resting import Hold, holds
from twin.tower.world import DOOR_PARKED, World, build, place_dice, set_rest_erp

CHECK_EVERY_STEPS = 4        # rest is checked every 4 steps (1/60 s at 240 Hz)
MAX_TRIALS = 4               # a drop whose rests keep giving way is reported as it lies after these
YAW_SPREAD_DEG = 15.0


@dataclass(frozen=True)
class DieRest:
    """One die at the end of a drop."""
    face: int                  # the face nearest to up
    flat: bool                 # flat on the tray's bottom, 625b.2(d)(5)
    reason: str | None         # what holds it when not flat: "wall" (or an obstacle), "die", or "edge"
                               # (nothing but the floor touches it); None when flat
    tilt_deg: float            # angle between the up face's normal and vertical
    position_m: tuple[float, float, float]
    orientation_xyzw: tuple[float, float, float, float]
    supported: bool = True     # not flat: the rest was kept (the static check held it, or it stood the
                               # tilts: twin.tower.rest_decision); False only after MAX_TRIALS rests gave way
    held_at_m: tuple[float, float, float] | None = None   # not flat: where its strongest holder but the floor
                                                          # presses on it
    held_by: tuple[Hold, ...] = ()   # not flat: every body touching it, its push and where, from the engine

    def describe_hold(self) -> str:
        """What holds a die that is not flat, in words: its strongest holder
        but the floor, where and how hard it pushes."""
        beside = [h for h in self.held_by if h.kind != "floor"]
        if not beside:
            return "nothing but the floor touches it"
        h = beside[0]
        if h.kind != "die":
            what = f"the {h.kind}"
        elif h.die is None:
            # Not reached: a die's holder names which die it is (resting.holds, Hold.from_dict of its record).
            raise AssertionError("a hold by a die that does not say which die")
        else:
            what = f"die {h.die + 1}"
        x, y, z = (1000 * v for v in h.at_m)
        text = f"held by {what} at ({x:.1f}, {y:.1f}, {z:.1f}) mm with {h.push_n:.3f} N"
        return text if self.supported else text + ", but it did not stand the tilts"


@dataclass(frozen=True)
class DropResult:
    faces: tuple[int, int, int]
    dice: tuple[DieRest, ...]
    no_roll: bool              # any die not flat, or the dice never settled (625b.2(d)(5))
    settled: bool              # all dice at rest in the tray within physics.max_time_s
    settle_time_s: float       # simulated seconds from release to rest (max_time_s when unsettled)
    seed: int
    loaded: tuple[int, int, int]   # top faces as placed in the compartment (625b.2(d)(6))
    design: str = ""
    gave_way: int = 0          # rests with a die not flat that gave way before this one (twin.tower.rest_decision)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["dice"] = [dict(asdict(r), position_m=[round(v, 5) for v in r.position_m],
                          orientation_xyzw=[round(v, 5) for v in r.orientation_xyzw],
                          held_at_m=None if r.held_at_m is None else [round(v, 5) for v in r.held_at_m],
                          held_by=[h.to_dict() for h in r.held_by])
                     for r in self.dice]
        for r in d["dice"]:
            r["tilt_deg"] = round(r["tilt_deg"], 3)
        d["settle_time_s"] = round(self.settle_time_s, 4)
        d["faces"], d["loaded"] = list(self.faces), list(self.loaded)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict) -> "DropResult":
        """A result from ``to_dict`` (a journal's or a campaign file's record);
        fields a record made before them lacks take their defaults."""
        def rest(r: dict) -> DieRest:
            return DieRest(face=int(r["face"]), flat=bool(r["flat"]), reason=r.get("reason"),
                           tilt_deg=float(r.get("tilt_deg", 0.0)), position_m=tuple(r["position_m"]),
                           orientation_xyzw=tuple(r["orientation_xyzw"]), supported=bool(r.get("supported", True)),
                           held_at_m=None if r.get("held_at_m") is None else tuple(r["held_at_m"]),
                           held_by=tuple(Hold.from_dict(h) for h in r.get("held_by") or ()))
        return cls(faces=tuple(d["faces"]), dice=tuple(rest(r) for r in d["dice"]), no_roll=bool(d["no_roll"]),
                   settled=bool(d.get("settled", True)), settle_time_s=float(d.get("settle_time_s", 0.0)),
                   seed=int(d["seed"]), loaded=tuple(d.get("loaded") or ()), design=str(d.get("design", "")),
                   gave_way=int(d.get("gave_way", 0)))


@dataclass
class Trace:
    """What a camera and a contact sensor would record during one drop."""
    times_s: list[float] = field(default_factory=list)             # since loading
    poses: list[list[tuple[tuple, tuple]]] = field(default_factory=list)  # per frame, per die
    release_s: float = 0.0
    obstacle_hits: list[int] = field(default_factory=list)          # per die: separate contacts
    max_z_drop_during_hold_m: float = 0.0                           # how far any die moved down before release


class _Engine:
    """A new physics world for one drop: the tower's static parts, warmed up.

    Every drop gets its own world. Reusing one world (even with new dice
    bodies, or a restored saved state) was measured to let about one drop in
    4,000 depend on the drops before it in the last bits, enough to move a
    rest check; a new world per drop makes a drop a function of its design,
    seed and load alone, in any process and after any other drops. The
    process keeps one physics client and resets it, which is cheaper than a
    new connection and just as fresh (``resetSimulation`` empties the world).
    """

    _client: int | None = None

    def __init__(self, design: TowerDesign):
        if _Engine._client is None or not pb.isConnected(_Engine._client):
            _Engine._client = pb.connect(pb.DIRECT)
        self.client = _Engine._client
        pb.resetSimulation(physicsClientId=self.client)
        # Every drop is the first in its world, so no warm-up is needed to
        # make the first drop of a process equal the later ones.
        self.world = build(self.client, design)


def _check_loaded(design: TowerDesign, loaded: Sequence[int]) -> tuple[int, ...]:
    faces = tuple(loaded)
    if len(faces) != design.dice.count or any(
            isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= f <= 6 for f in faces):
        raise DesignError(f"must be {design.dice.count} faces from 1 to 6, got {loaded!r}", field="loaded")
    return tuple(int(f) for f in faces)


def orientation_with_top(design: TowerDesign, face: int, yaw_rad: float) -> tuple[float, ...]:
    """The quaternion that puts ``face`` up, turned by ``yaw_rad`` about the vertical."""
    axis = next(a for a, f in design.dice.pips if f == face)
    # Roll/pitch that bring the body axis carrying ``face`` to world +z.
    to_up = {"+z": (0, 0, 0), "-z": (math.pi, 0, 0), "+x": (0, -math.pi / 2, 0),
             "-x": (0, math.pi / 2, 0), "+y": (math.pi / 2, 0, 0), "-y": (-math.pi / 2, 0, 0)}[axis]
    tilt = pb.getQuaternionFromEuler(to_up)
    yaw = pb.getQuaternionFromEuler((0, 0, yaw_rad))
    return pb.multiplyTransforms((0, 0, 0), yaw, (0, 0, 0), tilt)[1]


def up_face(design: TowerDesign, orientation) -> tuple[int, float]:
    """The face nearest to up and its tilt from vertical in degrees."""
    m = pb.getMatrixFromQuaternion(orientation)
    zs = (m[6], m[7], m[8])            # world z component of body x, y, z axes
    best_axis, best = "+z", -2.0
    for i, name in enumerate(("x", "y", "z")):
        for sign in (1, -1):
            if sign * zs[i] > best:
                best, best_axis = sign * zs[i], ("+" if sign > 0 else "-") + name
    face = dict(design.dice.pips)[best_axis]
    return face, math.degrees(math.acos(max(-1.0, min(1.0, best))))


def _place(design: TowerDesign, seed: int, loaded: Sequence[int] | None):
    """Where the dealer sets each die in the compartment, and the load used."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise DesignError(f"must be a whole number >= 0, got {seed!r}", field="seed")
    rng = np.random.default_rng(int(seed))
    d, b = design.dice, design.body
    yaws = rng.uniform(-YAW_SPREAD_DEG, YAW_SPREAD_DEG, d.count)
    spacing = b.width_m / d.count
    footprint = d.edge_m * (math.cos(math.radians(YAW_SPREAD_DEG)) + math.sin(math.radians(YAW_SPREAD_DEG)))
    x_room = max(0.0, (spacing - footprint) / 2 - 0.0005)
    y_room = max(0.0, (b.depth_m - footprint) / 2 - 0.0005)
    xs = rng.uniform(-x_room, x_room, d.count)
    ys = rng.uniform(-y_room, y_room, d.count)
    random_faces = tuple(int(f) for f in rng.integers(1, 7, d.count))
    if loaded is None:
        if design.loading.mode != "faces":
            loaded = random_faces
        elif design.loading.faces is None:
            # Not reached: a design loaded with "faces" lists them (tower.design refuses one without).
            raise AssertionError("a faces loading without its faces")
        else:
            loaded = design.loading.faces
    faces = _check_loaded(design, loaded)
    poses = []
    for i in range(d.count):
        x = -b.width_m / 2 + spacing * (i + 0.5) + xs[i]
        pos = (x, ys[i], b.top_z_m + d.edge_m / 2 + 0.0005)
        poses.append((pos, orientation_with_top(design, faces[i], math.radians(yaws[i]))))
    return faces, poses


def _flat(design: TowerDesign, pos, orn) -> bool:
    """On the tray's bottom (a flat die's centre is edge/2 above the floor,
    not on another die) and tilted at most physics.flat_tilt_deg."""
    return pos[2] < design.dice.edge_m * 0.7 and up_face(design, orn)[1] <= design.physics.flat_tilt_deg


def _classify(design: TowerDesign, world: World, supported: Sequence[bool] | None = None) -> tuple[DieRest, ...]:
    """The dice as they lie now. A die not flat is described by what the
    engine says presses on it (``holds``); ``supported`` says, per die,
    whether the rest stood the tilts (all True when none gave way)."""
    client = world.client
    rests = []
    for i, die in enumerate(world.dice):
        pos, orn = pb.getBasePositionAndOrientation(die, physicsClientId=client)
        face, tilt = up_face(design, orn)
        flat = _flat(design, pos, orn)
        reason, held_at, stood = None, None, True
        held_by: tuple[Hold, ...] = ()
        if not flat:
            held_by = holds(world, die)
            beside = [h for h in held_by if h.kind != "floor"]
            # What keeps it from lying flat: the strongest push but the floor's;
            # "edge" when nothing but the floor touches it.
            reason = ("die" if beside[0].kind == "die" else "wall") if beside else "edge"
            held_at = beside[0].at_m if beside else None
            stood = True if supported is None else bool(supported[i])
        rests.append(DieRest(face, flat, reason, tilt, tuple(pos), tuple(orn), stood, held_at, held_by))
    return tuple(rests)


class _Sensor:
    """What a camera and a contact sensor record of a drop (``drop_traced``): the
    dice's poses every frame, how far they sank while held, their obstacle hits."""

    def __init__(self, trace: Trace, world: World, client: int, start_z: list[float], dt: float,
                 hold_steps: int, frame_every_s: float):
        self.trace, self.world, self.client, self.dt = trace, world, client, dt
        self.hold_steps, self.start_z = hold_steps, start_z
        self.frame_every = max(1, round(frame_every_s / dt))
        self.touching = [False] * len(world.dice)
        trace.release_s = hold_steps * dt
        trace.obstacle_hits = [0] * len(world.dice)
        self.record(0)

    def record(self, n: int) -> None:
        self.trace.times_s.append(n * self.dt)
        self.trace.poses.append([pb.getBasePositionAndOrientation(die, physicsClientId=self.client)
                                 for die in self.world.dice])

    def sense(self, n: int) -> None:
        """After step ``n``: a frame when one is due, the sinking while held, new obstacle contacts."""
        trace, client, dice = self.trace, self.client, self.world.dice
        if n % self.frame_every == 0:
            self.record(n)
        if n < self.hold_steps:
            for i, die in enumerate(dice):
                drop = self.start_z[i] - pb.getBasePositionAndOrientation(die, physicsClientId=client)[0][2]
                trace.max_z_drop_during_hold_m = max(trace.max_z_drop_during_hold_m, drop)
        for i, die in enumerate(dice):
            now = any(c[2] in self.world.obstacles for c in pb.getContactPoints(bodyA=die, physicsClientId=client))
            if now and not self.touching[i]:
                trace.obstacle_hits[i] += 1
            self.touching[i] = now

    def last(self, n: int) -> None:
        """The pose at rest, unless the last frame already shows it."""
        if not self.trace.times_s or self.trace.times_s[-1] != n * self.dt:
            self.record(n)


class _Drop:
    """One drop while it runs, step by step (``_run`` calls the steps in the
    order of 625b.2(d)): the world, the step count ``n`` and where the rest
    being watched began (``anchor_n``)."""

    def __init__(self, design: TowerDesign, seed: int, loaded: Sequence[int] | None,
                 trace: Trace | None, frame_every_s: float):
        self.design, self.seed = design, seed
        self.faces_loaded, poses = _place(design, seed, loaded)
        engine = _Engine(design)
        self.world, self.client = engine.world, engine.client
        place_dice(self.world, design, poses)
        self.dice = self.world.dice
        p = design.physics
        self.dt = p.timestep_s
        self.hold_steps = round(design.compartment.hold_s / self.dt)
        self.max_steps = self.hold_steps + math.ceil(p.max_time_s / self.dt)
        self.rest_steps = round(p.rest_for_s / self.dt)
        # At rest: over physics.rest_for_s every die's mean speed stayed under
        # rest_linear_mps and its mean turn rate under rest_angular_radps. Poses,
        # not instantaneous velocities: a die lying still on felt shows solver
        # jitter spikes in its velocity that would never let a drop settle.
        self.max_move2 = (p.rest_linear_mps * p.rest_for_s) ** 2
        self.min_cos = math.cos(p.rest_angular_radps * p.rest_for_s / 2)   # |q0.q1| of the largest turn
        self.tray_top = design.body.bottom_z_m
        self.sensor = None if trace is None else _Sensor(trace, self.world, self.client, [pos[2] for pos, _ in poses],
                                                         self.dt, self.hold_steps, frame_every_s)
        self.n = 0
        self.anchor_n = 0
        self.resting = False           # the rest's contact ERP is on (``settle``)

    def _step(self) -> None:
        pb.stepSimulation(physicsClientId=self.client)
        self.n += 1
        if self.sensor is not None:
            self.sensor.sense(self.n)

    def _poses(self) -> list:
        return [pb.getBasePositionAndOrientation(die, physicsClientId=self.client) for die in self.dice]

    def hold(self) -> None:
        """625b.2(c)(1): the dice stay in the compartment, on its closed door, until the release."""
        while self.n < self.hold_steps:
            self._step()

    def release(self) -> None:
        """625b.2(d)(3): the dealer's trigger opens the door."""
        pb.resetBasePositionAndOrientation(self.world.door, DOOR_PARKED, (0, 0, 0, 1), physicsClientId=self.client)

    def _still_since(self, poses_now: list, anchor: list) -> bool:
        """Every die moved and turned less than a rest allows since ``anchor``, in the tray (625b.2(d)(4))."""
        for (pos, orn), (pos0, orn0) in zip(poses_now, anchor):
            dx, dy, dz = pos[0] - pos0[0], pos[1] - pos0[1], pos[2] - pos0[2]
            dot = abs(orn[0] * orn0[0] + orn[1] * orn0[1] + orn[2] * orn0[2] + orn[3] * orn0[3])
            if dx * dx + dy * dy + dz * dz > self.max_move2 or dot < self.min_cos or pos[2] >= self.tray_top:
                return False
        return True

    def settle(self) -> bool:
        """Step until every die has rested for rest_for_s in the tray, or time runs out."""
        anchor: list | None = None
        while self.n < self.max_steps:
            for _ in range(CHECK_EVERY_STEPS):
                self._step()
            poses_now = self._poses()
            if poses_now[0][0][0] != poses_now[0][0][0]:   # NaN: the solver blew up; report unsettled
                self.n = self.max_steps
                return False
            if anchor is None or not self._still_since(poses_now, anchor):
                anchor, self.anchor_n = poses_now, self.n
            elif not self.resting:
                # The dice have all but stopped (none moved 1.5 mm in the last
                # 1/60 s): from here on the solver works off what overlap is
                # left as a rest needs (twin.tower.world.REST_ERP), and the
                # rest is watched afresh under it.
                set_rest_erp(self.world, True)
                self.resting = True
                anchor, self.anchor_n = poses_now, self.n
            elif self.n - self.anchor_n >= self.rest_steps:
                return True
        return False

    def _all_flat(self) -> bool:
        return all(_flat(self.design, *pose) for pose in self._poses())

    def stand_or_fall(self, settled: bool) -> tuple[bool, list[bool] | None, int]:
        """A rest with a die not flat must stand a small disturbance before it is
        taken (625b.2(d)(5) makes it a no roll): one that stands is kept as it
        lay; one that gives way falls on under plain gravity until it rests
        again, and is tried again. After MAX_TRIALS the rest is reported as it
        lay, its dice that moved marked as not standing. Drops whose dice all
        lie flat (nearly all on a fair tower) pay nothing for this.
        Returns (settled, which dice stood or None, how often the rest gave way)."""
        supported: list[bool] | None = None
        gave_way = 0
        for attempt in range(1, MAX_TRIALS + 1):
            if not settled or self._all_flat():
                break
            rest_n = self.anchor_n
            gave, steps = decide_rest(self.world, self.design, self.dt, lambda pose: _flat(self.design, *pose),
                                      keep_rest=attempt == MAX_TRIALS)
            self.n += steps
            if gave is None:
                self.anchor_n = rest_n           # it rested all along: the rest began before the tilts
                break
            if attempt == MAX_TRIALS:
                self.anchor_n, supported = rest_n, [not g for g in gave]
                break
            gave_way += 1
            settled = self.settle()
        return settled, supported, gave_way

    def result(self, settled: bool, supported: list[bool] | None, gave_way: int) -> DropResult:
        """The dice as they lie: faces, flatness and holders, and the no roll of 625b.2(d)(5)."""
        if self.sensor is not None:
            self.sensor.last(self.n)
        rests = _classify(self.design, self.world, supported)
        settle_time = (self.anchor_n - self.hold_steps) * self.dt if settled else self.design.physics.max_time_s
        first, second, third = (r.face for r in rests)       # a tower drops three dice (design: dice.count)
        faces = (first, second, third)
        no_roll = (not settled) or not all(r.flat for r in rests)     # 625b.2(d)(5)
        return DropResult(faces=faces, dice=rests, no_roll=no_roll, settled=settled,
                          settle_time_s=settle_time, seed=int(self.seed), loaded=self.faces_loaded,
                          design=self.design.name, gave_way=gave_way)


def _run(design: TowerDesign, seed: int, loaded: Sequence[int] | None,
         trace: Trace | None = None, frame_every_s: float = 1 / 25) -> DropResult:
    run = _Drop(design, seed, loaded, trace, frame_every_s)
    run.hold()
    run.release()
    settled, supported, gave_way = run.stand_or_fall(run.settle())
    return run.result(settled, supported, gave_way)


def drop(design: TowerDesign, seed: int, loaded: Sequence[int] | None = None) -> DropResult:
    """Drop the dice once. ``loaded`` gives the top faces as the dealer set
    them in the compartment; ``None`` takes the design's loading (random
    faces drawn from ``seed`` unless the design fixes them)."""
    return _run(design, seed, loaded)


def drop_traced(design: TowerDesign, seed: int, loaded: Sequence[int] | None = None,
                frame_every_s: float = 1 / 25) -> tuple[DropResult, Trace]:
    """The same drop as ``drop`` (same result), also recording the dice's
    poses every ``frame_every_s`` and their contacts with the obstacles."""
    trace = Trace()
    result = _run(design, seed, loaded, trace, frame_every_s)
    return result, trace
