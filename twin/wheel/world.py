"""The PyBullet world of the descent: stator slope, deflectors, turning rotor, ball.

The ball arrives here at the point where it left the track (twin.wheel.track)
and PyBullet takes it down the stator's slope, over the deflectors, onto the
turning rotor and across the frets until it rests in a pocket.

Built for PyBullet 3.2.7's known traps:
- ``createCollisionShapeArray`` keeps only its first 16 children, so the
  rotor is one multibody: a floor link on a revolute joint (turned by a velocity
  motor), and the centre cone and 5 fret links of at most 16 children each
  (a fret and a piece of the rotor's rim per pocket), fixed to the floor.
- a small fast ball tunnels through thin walls at 1/240 s, so the step is at
  most 1/500 s (the design refuses more) and every stator part is a thick
  convex piece rather than a thin triangle mesh.
- a world stepped through one descent and then reset body by body is not
  the world it was (the solver's cached contacts remain), so a descent must
  start from the freshly built world: either a new one (about 20 ms to build)
  or one restored to the state saved right after building it
  (``saveState``/``restoreState``, which keep the contact cache, with
  ``deterministicOverlappingPairs``). The two give bit-identical descents in
  any order (tests/twin/test_wheel_spin.py); the twin reuses one restored
  world per design and process (``world_for``).
- Bullet keeps a collision margin of 1 mm *outside* every convex hull, so a
  hull built at the design's size collides 1 mm too big: the descent used to
  start with the ball 1 mm inside the slope and the rim wall, and recovering
  from that threw it 7 mm up. Every hull here has its margin set to 0 (the
  ball is a sphere, whose own margin is its radius, so the contact tests stay
  robust; boxes and cylinders keep theirs inside): everything collides at its
  design size (``true_size``), and the ball starts touching the slope piece
  under it, exactly (``start_state``).

Frame: z up, z = 0 the pocket floor, gravity tilted by the design's tilt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from twin.physics_engine import pybullet as p

from twin.wheel.design import POCKET_COUNT, WheelDesign

GRAVITY = 9.81
RIM_THICKNESS = 0.006        # the rotor's outer wall
LIP = 0.002                  # the stator's inner edge overhangs the pockets by this much
INNER_WALL_RUN = 0.012       # the cone's steep foot: from the pockets' inner edge to fret height
RIM_CLEARANCE = 0.002        # between the rotor's wall and the stator lip above it
SECTORS = 72                 # stator slope pieces round the wheel (5 degrees each)
MAX_CHILDREN = 16            # createCollisionShapeArray keeps no more
# Only the ball touches anything: the turning rotor never meets the stator, and
# testing its 77 pieces against the stator's 152 every step took most of the time.
STATOR_GROUP, BALL_GROUP, ROTOR_GROUP = 1, 2, 4
CHECK_EVERY = 10             # physics steps between checks on the ball
TOUCH = 1e-4                # a contact point this near is a touch (the solver also lists points a few mm apart)
CAUGHT_SHARE = 0.5           # the ball's energy must be under half the climb over a fret (margin for the solver)
ESCAPE_MARGIN = 0.05
WALL_HEIGHT = 0.10          # the bowl's wall above the track: a lively bounce off a fast rotor cleared 6 cm
CONE_LINK = 1                # the rotor's links: 0 the floor, 1 the cone, then the frets


@dataclass(frozen=True)
class Frame:
    """One picture's worth of state, for the GIF."""
    t: float
    ball: tuple[float, float, float]
    rotor_angle: float


@dataclass(frozen=True)
class Descent:
    settled: bool
    escaped: bool
    pocket_index: int | None     # position on the rotor, 0 = the first listed pocket
    time_s: float
    rotor_angle_rad: float       # at the end
    frames: tuple[Frame, ...] = field(default=(), repr=False)
    first_hit_s: float | None = None         # the ball first touched the rotor (frets, rim, floor)
    first_hit_pocket: int | None = None      # the pocket under the ball then
    caught_s: float | None = None            # from then on the ball could not climb out of its pocket
    caught_pocket: int | None = None


def pocket_under(x: float, y: float, rotor_angle: float) -> int:
    """The rotor's pocket (position on the rotor) under a point of the wheel."""
    beta = math.atan2(y, x) - rotor_angle
    return int(round(-beta / (2 * math.pi / POCKET_COUNT))) % POCKET_COUNT


def caught(design: WheelDesign, gravity, position, velocity, spin, omega: float) -> bool:
    """The ball cannot leave its pocket any more: its energy in the rotor's frame is
    below what climbing over a fret would take, however the wheel turns under it.

    In the turning rotor's frame the ball's energy (motion relative to the rotor,
    its spin relative to the rotor, height, the centrifugal potential) changes only
    by friction and the bounces' losses, which take energy away; the rotor's slow
    decay adds a negligible Euler force. To change pockets the ball's centre must
    rise over a fret's top (fret height plus its radius above the floor), at most
    at the outermost radius it can reach (touching the rotor's rim wall), where
    the centrifugal potential helps most; a tilt is allowed its worst case, its
    pull from the lowest to the highest place the ball could be. A ball in this
    state is in its final pocket: the descent can stop (docs/wheel.md measures
    it against waiting until the ball is still)."""
    x, y, z = position
    ball, rotor = design.ball, design.rotor
    g_down = -gravity[2]
    g_side = math.hypot(gravity[0], gravity[1])
    radius = math.hypot(x, y)
    if not (rotor.pocket_inner_radius_m - INNER_WALL_RUN < radius < rotor.pocket_outer_radius_m):
        return False
    relative = (velocity[0] + omega * y, velocity[1] - omega * x, velocity[2])
    spin_rel = (spin[0], spin[1], spin[2] - omega)
    kinetic = 0.5 * sum(v * v for v in relative) + 0.2 * ball.radius_m ** 2 * sum(w * w for w in spin_rel)
    over_fret = rotor.fret_height_m + ball.radius_m
    widest = rotor.pocket_outer_radius_m - ball.radius_m
    climb = (g_down * (over_fret - z) - g_side * (radius + widest)
             - 0.5 * omega * omega * (widest * widest - radius * radius))
    return kinetic < CAUGHT_SHARE * climb


def stator_surface_z(design: WheelDesign, radius: float) -> float:
    """Height of the stator's slope at a radius (z = 0 is the pocket floor)."""
    inner = stator_inner_radius(design)
    return design.rotor.step_m + (radius - inner) * math.tan(math.radians(design.bowl.incline_deg))


def stator_inner_radius(design: WheelDesign) -> float:
    """The stator's lip overhangs the rotor's wall, so no ball can rest on the
    wall's top wedged against the stator (an early version let it ride there)."""
    return design.rotor.pocket_outer_radius_m - LIP


def rim_radius(design: WheelDesign) -> float:
    """The rim wall the ball presses on while it rides the track."""
    return design.bowl.track_radius_m + design.ball.radius_m


def gravity_vector(design: WheelDesign) -> tuple[float, float, float]:
    """Gravity in the wheel's frame: a tilt leans it toward the low side."""
    a = math.radians(design.tilt.angle_deg)
    phi = math.radians(design.tilt.low_side_deg)
    return (GRAVITY * math.sin(a) * math.cos(phi), GRAVITY * math.sin(a) * math.sin(phi),
            -GRAVITY * math.cos(a))


def slope_piece(angle_rad: float) -> float:
    """The middle angle of the stator piece under a stator angle."""
    width = 2 * math.pi / SECTORS
    return (math.floor((angle_rad % (2 * math.pi)) / width) + 0.5) * width


def start_state(design: WheelDesign, leave_angle_rad: float, leave_speed_m_s: float):
    """Where the descent starts: the ball's centre at the track's radius, resting on
    the slope piece under it (touching it, not inside it), moving along the track
    at its leaving speed within the slope's plane, and rolling without slipping.
    The rim wall's face is never nearer than touching (``_build_stator``).
    Returns (position, velocity, angular velocity)."""
    r, radius = design.bowl.track_radius_m, design.ball.radius_m
    incline = math.radians(design.bowl.incline_deg)
    mid = slope_piece(leave_angle_rad)
    along_mid = r * math.cos(leave_angle_rad - mid)          # the piece's height grows along its middle line
    z = stator_surface_z(design, along_mid) + radius / math.cos(incline)
    position = (r * math.cos(leave_angle_rad), r * math.sin(leave_angle_rad), z)
    normal = (-math.sin(incline) * math.cos(mid), -math.sin(incline) * math.sin(mid), math.cos(incline))
    tangent = (-math.sin(leave_angle_rad), math.cos(leave_angle_rad), 0.0)
    into = sum(a * b for a, b in zip(tangent, normal))
    in_plane = [a - into * b for a, b in zip(tangent, normal)]
    size = math.sqrt(sum(a * a for a in in_plane))
    velocity = tuple(leave_speed_m_s * a / size for a in in_plane)
    spin = tuple(w / radius for w in _cross(normal, velocity))
    return position, velocity, spin


def pocket_angle(index: int) -> float:
    """Rotor-frame angle of a pocket's centre: pockets run clockwise from angle 0."""
    return -2 * math.pi * index / POCKET_COUNT


class WheelWorld:
    """One PyBullet client holding one wheel, for one descent (then ``close``)."""

    def __init__(self, design: WheelDesign):
        self.design = design
        self.client = p.connect(p.DIRECT)
        try:
            self._build()
        except Exception:
            p.disconnect(self.client)
            raise

    def close(self) -> None:
        if self.client is not None and p.isConnected(self.client):
            p.disconnect(self.client)
        self.client = None

    def restore(self) -> "WheelWorld":
        """Back to the state it was built in, contact cache included: a descent
        from here is the same as from a new world."""
        p.restoreState(self.built, physicsClientId=self.client)
        return self

    # -- building --------------------------------------------------------

    def _build(self) -> None:
        d, c = self.design, self.client
        p.setPhysicsEngineParameter(fixedTimeStep=d.simulation.time_step_s, numSolverIterations=20,
                                    deterministicOverlappingPairs=1, physicsClientId=c)
        p.setGravity(*gravity_vector(d), physicsClientId=c)
        self._build_stator()
        self.rotor = self._build_rotor()
        self.ball = self._build_ball()
        self.built = p.saveState(physicsClientId=c)

    def _hull(self, points) -> int:
        return p.createCollisionShape(p.GEOM_MESH, vertices=[list(q) for q in points],
                                      physicsClientId=self.client)

    def _true_size(self, body: int, link: int = -1) -> None:
        """No collision margin round a hull: it collides at the size it was built."""
        p.changeDynamics(body, link, collisionMargin=0.0, physicsClientId=self.client)

    def _static(self, shape: int, position=(0, 0, 0), orientation=(0, 0, 0, 1)) -> int:
        # a plain rigid body: as a (Featherstone) multibody, each of the 152 static pieces
        # cost the solver its share of every step, far or near the ball (65 against 15
        # microseconds a step for 150 of them)
        body = p.createMultiBody(baseMass=0, baseCollisionShapeIndex=shape,
                                 basePosition=position, baseOrientation=orientation,
                                 useMaximalCoordinates=True, physicsClientId=self.client)
        p.changeDynamics(body, -1, restitution=self.design.rotor.restitution,
                         lateralFriction=self.design.rotor.lateral_friction,
                         physicsClientId=self.client)
        p.setCollisionFilterGroupMask(body, -1, STATOR_GROUP, BALL_GROUP, physicsClientId=self.client)
        self._true_size(body)
        return body

    def _build_stator(self) -> None:
        d = self.design
        inner, outer = stator_inner_radius(d), rim_radius(d)
        z_in, z_out = stator_surface_z(d, inner), stator_surface_z(d, outer)
        bottom = d.rotor.rim_height_m + RIM_CLEARANCE   # clear of the turning rotor
        wall_top = z_out + WALL_HEIGHT
        # Each piece is a flat facet of the conical slope whose middle line lies on the
        # cone, so the slope is nowhere above the design's. A piece reaches half a piece
        # over each neighbour, under it: where two meet, the ball sees the higher face,
        # never the end edge of the next piece (butted pieces threw a rolling ball up
        # to 4 mm: the solver bounced it off the next piece's edge, with restitution,
        # before the ball got there). The rim wall's face touches the rim's circle at
        # each piece's middle, so a ball riding the rim never starts inside it.
        width = 2 * math.pi / SECTORS
        grow = 1.0 / math.cos(width)          # corners a whole piece's width from the middle line
        wall_grow = 1.0 / math.cos(width / 2)
        for k in range(SECTORS):
            a0, a1 = width * (k - 0.5), width * (k + 1.5)
            points = []
            for a in (a0, a1):
                ca, sa = math.cos(a), math.sin(a)
                points += [(inner * grow * ca, inner * grow * sa, z_in), (inner * grow * ca, inner * grow * sa, bottom),
                           (outer * grow * ca, outer * grow * sa, z_out),
                           (outer * grow * ca, outer * grow * sa, bottom)]
            self._static(self._hull(points))
            # the rim wall: the ball must not leave the bowl after a bounce
            wall = []
            for a in (width * k, width * (k + 1)):
                ca, sa = math.cos(a), math.sin(a)
                for radius in (outer * wall_grow, (outer + 0.02) * wall_grow):
                    wall += [(radius * ca, radius * sa, z_out - 0.01), (radius * ca, radius * sa, wall_top)]
            self._static(self._hull(wall))
        bowl = d.bowl
        radius = bowl.deflector_radius_m
        for deflector in bowl.deflectors:
            half_l, half_w = bowl.deflector_length_m / 2, bowl.deflector_width_m / 2
            base = stator_surface_z(d, radius - half_l) - 0.005
            top = stator_surface_z(d, radius) + bowl.deflector_height_m
            # a diamond: tips along its long axis (x local), waist across (y local)
            outline = [(half_l, 0), (0, half_w), (-half_l, 0), (0, -half_w)]
            points = [(x, y, z) for x, y in outline for z in (base, top)]
            a = math.radians(deflector.angle_deg)
            yaw = a + math.pi / 2 if deflector.along_track else a
            orientation = p.getQuaternionFromEuler((0, 0, yaw))
            self._static(self._hull(points), (radius * math.cos(a), radius * math.sin(a), 0.0),
                         orientation)

    def _build_rotor(self) -> int:
        d, c = self.design, self.client
        rotor = d.rotor
        r_in, r_out = rotor.pocket_inner_radius_m, rotor.pocket_outer_radius_m
        pitch = 2 * math.pi / POCKET_COUNT
        floor_depth = 0.02
        # the centre cone, with a steep foot that closes the pockets' inner ends: the frets
        # run into it, so no ball can rest between a fret's end and the cone
        foot = r_in - INNER_WALL_RUN
        cone = []
        for k in range(48):
            a = 2 * math.pi * k / 48
            ca, sa = math.cos(a), math.sin(a)
            cone += [(r_in * ca, r_in * sa, -0.005), (foot * ca, foot * sa, rotor.fret_height_m),
                     (rotor.cone_top_radius_m * ca, rotor.cone_top_radius_m * sa, rotor.cone_height_m)]
        # link 0, on the turning joint: the pocket floor (a cylinder); the cone and the
        # fret links are fixed to it
        floor_shape = p.createCollisionShape(p.GEOM_CYLINDER, radius=r_out + RIM_THICKNESS,
                                             height=floor_depth, physicsClientId=c)
        cone_shape = self._hull(cone)
        # fret links: each pocket brings a fret (on its clockwise side) and a piece of rim wall
        groups = []
        per_link = MAX_CHILDREN // 2
        for start in range(0, POCKET_COUNT, per_link):
            shapes, positions, orientations, extents = [], [], [], []
            for k in range(start, min(start + per_link, POCKET_COUNT)):
                fret_angle = pocket_angle(k) - pitch / 2
                fret_in = r_in - INNER_WALL_RUN
                mid = (fret_in + r_out) / 2
                shapes.append(p.GEOM_BOX)
                extents.append([(r_out - fret_in) / 2, rotor.fret_thickness_m / 2, rotor.fret_height_m / 2])
                positions.append([mid * math.cos(fret_angle), mid * math.sin(fret_angle),
                                  rotor.fret_height_m / 2])
                orientations.append(p.getQuaternionFromEuler((0, 0, fret_angle)))
                wall_angle = pocket_angle(k)
                wall_r = r_out + RIM_THICKNESS / 2
                chord = 2 * (r_out + RIM_THICKNESS) * math.tan(pitch / 2) * 1.02
                shapes.append(p.GEOM_BOX)
                extents.append([RIM_THICKNESS / 2, chord / 2, rotor.rim_height_m / 2])
                positions.append([wall_r * math.cos(wall_angle), wall_r * math.sin(wall_angle),
                                  rotor.rim_height_m / 2])
                orientations.append(p.getQuaternionFromEuler((0, 0, wall_angle)))
            groups.append(p.createCollisionShapeArray(
                shapeTypes=shapes, halfExtents=extents, collisionFramePositions=positions,
                collisionFrameOrientations=orientations, physicsClientId=c))
        link_shapes = [floor_shape, cone_shape] + groups
        n = len(link_shapes)
        zero, identity = [0, 0, 0], [0, 0, 0, 1]
        body = p.createMultiBody(
            baseMass=0, baseCollisionShapeIndex=-1, basePosition=zero,
            linkMasses=[3.0] + [0.2] * (n - 1),
            linkCollisionShapeIndices=link_shapes,
            linkVisualShapeIndices=[-1] * n,
            linkPositions=[[0, 0, -floor_depth / 2]] + [[0, 0, floor_depth / 2]] * (n - 1),
            linkOrientations=[identity] * n,
            linkInertialFramePositions=[zero] * n,
            linkInertialFrameOrientations=[identity] * n,
            linkParentIndices=[0] + [1] * (n - 1),
            linkJointTypes=[p.JOINT_REVOLUTE] + [p.JOINT_FIXED] * (n - 1),
            linkJointAxis=[[0, 0, 1]] * n,
            physicsClientId=c)
        for link in range(-1, n):
            p.changeDynamics(body, link, restitution=rotor.restitution,
                             lateralFriction=rotor.lateral_friction, linearDamping=0.0,
                             angularDamping=0.0, physicsClientId=c)
            p.setCollisionFilterGroupMask(body, link, ROTOR_GROUP, BALL_GROUP, physicsClientId=c)
        self._true_size(body, CONE_LINK)     # the only hull of the rotor; its boxes keep their margin inside
        return body

    def _build_ball(self) -> int:
        d, c = self.design, self.client
        ball = d.ball
        shape = p.createCollisionShape(p.GEOM_SPHERE, radius=ball.radius_m, physicsClientId=c)
        body = p.createMultiBody(baseMass=ball.mass_kg, baseCollisionShapeIndex=shape,
                                 basePosition=[0, 0, 1.0], physicsClientId=c)
        p.changeDynamics(body, -1, restitution=ball.restitution, lateralFriction=ball.lateral_friction,
                         rollingFriction=ball.rolling_friction, spinningFriction=ball.rolling_friction,
                         linearDamping=0.0, angularDamping=0.0, ccdSweptSphereRadius=ball.radius_m * 0.9,
                         physicsClientId=c)
        p.setCollisionFilterGroupMask(body, -1, BALL_GROUP, STATOR_GROUP | ROTOR_GROUP, physicsClientId=c)
        return body

    # -- running ---------------------------------------------------------

    def descend(self, leave_angle_rad: float, leave_speed_m_s: float, rotor_angle_rad: float,
                rotor_speed_rad_s: float, record_every_s: float | None = None, until: str = "caught") -> Descent:
        """Put the ball where it left the track and run until it is caught in a pocket
        (``until="caught"``: it can no longer climb out, see :func:`caught`) or, as
        the twin did before, until it has been still in it for the design's
        ``settle_time_s`` (``until="still"``, which also records when it was caught).

        ``rotor_speed_rad_s`` is signed (negative: clockwise). The rotor keeps
        slowing with the design's decay time. Bounded: after the design's
        ``max_descent_time_s`` an unsettled ball ends the descent.
        """
        d, c = self.design, self.client
        position, velocity, spin = start_state(d, leave_angle_rad, leave_speed_m_s)
        p.resetBasePositionAndOrientation(self.ball, position, (0, 0, 0, 1), physicsClientId=c)
        p.resetBaseVelocity(self.ball, velocity, spin, physicsClientId=c)
        p.resetJointState(self.rotor, 0, rotor_angle_rad, rotor_speed_rad_s, physicsClientId=c)

        sim = d.simulation
        dt = sim.time_step_s
        decay = d.rotor.decay_time_s
        gravity = gravity_vector(d)
        r_in, r_out = d.rotor.pocket_inner_radius_m, d.rotor.pocket_outer_radius_m
        low_z = d.ball.radius_m + 0.5 * d.rotor.fret_height_m
        escape_r = rim_radius(d) + ESCAPE_MARGIN
        frames: list[Frame] = []
        next_frame = 0.0
        max_steps = int(round(sim.max_descent_time_s / dt))
        settled_for = 0.0
        step = 0
        t = 0.0
        rotor_angle = rotor_angle_rad
        first_hit_s = first_hit_pocket = caught_s = caught_pocket = None

        def end(settled: bool, escaped: bool, pocket: int | None) -> Descent:
            return Descent(settled, escaped, pocket, t, rotor_angle, tuple(frames), first_hit_s, first_hit_pocket,
                           caught_s, caught_pocket)

        while step < max_steps:
            omega = rotor_speed_rad_s * math.exp(-t / decay)
            p.setJointMotorControl2(self.rotor, 0, p.VELOCITY_CONTROL, targetVelocity=omega,
                                    force=1e4, physicsClientId=c)
            for _ in range(CHECK_EVERY):
                p.stepSimulation(physicsClientId=c)
                step += 1
                if first_hit_s is None and any(
                        q[8] < TOUCH for q in p.getContactPoints(self.ball, self.rotor, physicsClientId=c)):
                    # every step until then: where the ball first meets the rotor is what
                    # practitioners' scatter charts count pockets from
                    (x, y, _), _ = p.getBasePositionAndOrientation(self.ball, physicsClientId=c)
                    first_hit_s = step * dt
                    first_hit_pocket = pocket_under(x, y, p.getJointState(self.rotor, 0, physicsClientId=c)[0])
            t = step * dt
            (x, y, bz), _ = p.getBasePositionAndOrientation(self.ball, physicsClientId=c)
            rotor_angle, omega_now = p.getJointState(self.rotor, 0, physicsClientId=c)[:2]
            if record_every_s is not None and t >= next_frame:
                frames.append(Frame(t, (x, y, bz), rotor_angle))
                next_frame += record_every_s
            radius = math.hypot(x, y)
            if radius > escape_r or bz < -0.1 or bz > 0.5:
                return end(False, True, None)
            if caught_s is None and first_hit_s is not None:
                velocity, spin = p.getBaseVelocity(self.ball, physicsClientId=c)
                if caught(d, gravity, (x, y, bz), velocity, spin, omega_now):
                    caught_s, caught_pocket = t, pocket_under(x, y, rotor_angle)
                    if until == "caught":
                        if record_every_s is not None:
                            frames.append(Frame(t, (x, y, bz), rotor_angle))
                        return end(True, False, caught_pocket)
            if r_in - INNER_WALL_RUN < radius < r_out + 0.002 and bz < low_z:
                (vx, vy, vz), _ = p.getBaseVelocity(self.ball, physicsClientId=c)
                rel = math.sqrt((vx + omega_now * y) ** 2 + (vy - omega_now * x) ** 2 + vz * vz)
                settled_for = settled_for + CHECK_EVERY * dt if rel < 0.05 else 0.0
            else:
                settled_for = 0.0
            if settled_for >= sim.settle_time_s:
                if record_every_s is not None:
                    frames.append(Frame(t, (x, y, bz), rotor_angle))
                return end(True, False, pocket_under(x, y, rotor_angle))
        return end(False, False, None)


_WORLDS: dict[WheelDesign, WheelWorld] = {}
KEPT_WORLDS = 2              # designs whose worlds a process keeps (a campaign uses one)


def world_for(design: WheelDesign) -> WheelWorld:
    """This process's world of ``design``, restored to its state as built."""
    world = _WORLDS.pop(design, None)
    if world is None or world.client is None:
        world = WheelWorld(design)
    _WORLDS[design] = world            # the most recently used last
    while len(_WORLDS) > KEPT_WORLDS:
        _WORLDS.pop(next(iter(_WORLDS))).close()
    return world.restore()


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
