"""What the camera looks at, built of visual shapes only in a PyBullet
client of its own (DIRECT mode), and drawn by PyBullet's CPU renderer
(``ER_TINY_RENDERER``).

The tower's scene is its tray (felt floor, walls) and the three dice, posed
as a drop left them; the glass shaft and lid above the tray are not drawn:
the camera looks through them. The wheel's scene is its rotor (the pocket
ring with its numbers, the frets, the cone), the stator's slope around it
and the ball. No physics runs here: the poses come from the twin's results,
so the picture can be drawn again from a journal's result alone.

A scene is built once per design and process; a frame sets the poses and
colours, renders, and returns the picture with the renderer's segmentation
mask (the body seen at each pixel), from which the labels take each die's
visible outline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twin.camera.meshes import Mesh, die_mesh, ring, textured_square
from twin.camera.spec import Camera
from twin.camera.textures import die_atlas, pocket_ring
from twin.camera.variation import Variation
from twin.physics_engine import pybullet as pb

WALL_RGB = (0.55, 0.6, 0.66)          # the tray's glass walls, seen edge on
STATOR_RGB = (0.47, 0.28, 0.14)
CONE_RGB = (0.72, 0.55, 0.25)
FRET_RGB = (0.85, 0.82, 0.7)
BALL_RGB = (0.97, 0.97, 0.95)
# The studio's surround (variation files' ``scene: {surround: true}``): what the camera sees beyond the tray.
TABLE_RGB = (0.09, 0.08, 0.08)        # the tower's black base and the table
TRIM_RGB = (0.78, 0.6, 0.26)          # the gold trim along the tray's walls
SMOKED_RGB = (0.16, 0.17, 0.2)        # the tray's walls as a studio has them: smoked glass, a black base
TABLE_FELT_RGB = (0.1, 0.32, 0.2)     # the roulette table's layout felt beyond the bowl
BOWL_RGB = (0.22, 0.12, 0.06)         # the wheel's outer wooden bowl
TRACK_RGB = (0.62, 0.42, 0.22)        # the ball track: polished wood
CHROME_RGB = (0.82, 0.82, 0.85)       # deflectors and the turret


@dataclass
class Rendered:
    rgb: np.ndarray            # height x width x 3, uint8
    mask: np.ndarray           # height x width, the body id seen at each pixel (-1: none)


class _Scene:
    """A PyBullet client holding visual bodies, for rendering only."""

    def __init__(self) -> None:
        self.client = pb.connect(pb.DIRECT)
        self._textures: dict[str, int] = {}

    def close(self) -> None:
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None

    def texture(self, path: str) -> int:
        if path not in self._textures:
            self._textures[path] = pb.loadTexture(path, physicsClientId=self.client)
        return self._textures[path]

    def mesh_body(self, mesh: Mesh, rgb=(1, 1, 1), position=(0, 0, 0), orientation=(0, 0, 0, 1)) -> int:
        shape = pb.createVisualShape(pb.GEOM_MESH, vertices=mesh.vertices, indices=mesh.indices, uvs=mesh.uvs,
                                     normals=mesh.normals, rgbaColor=(*rgb, 1), specularColor=(0.4, 0.4, 0.4),
                                     physicsClientId=self.client)
        return pb.createMultiBody(0, -1, shape, position, orientation, physicsClientId=self.client)

    def box_body(self, half, position, rgb, orientation=(0, 0, 0, 1), specular=0.1) -> int:
        shape = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=(*rgb, 1),
                                     specularColor=(specular,) * 3, physicsClientId=self.client)
        return pb.createMultiBody(0, -1, shape, position, orientation, physicsClientId=self.client)

    def render(self, camera: Camera, variation: Variation) -> Rendered:
        view, projection = camera.gl_matrices()
        distance = 10.0 * camera.distance_m
        w, h, rgba, _, mask = pb.getCameraImage(
            camera.width_px, camera.height_px, view, projection,
            lightDirection=[v * distance for v in variation.light_direction],
            lightColor=list(variation.light_colour), lightDistance=distance,
            shadow=1 if variation.shadows else 0, lightAmbientCoeff=variation.ambient,
            lightDiffuseCoeff=variation.diffuse, lightSpecularCoeff=variation.specular,
            renderer=pb.ER_TINY_RENDERER, physicsClientId=self.client)
        rgb = np.asarray(rgba, np.uint8).reshape(h, w, 4)[:, :, :3].copy()
        return Rendered(rgb, np.asarray(mask, np.int32).reshape(h, w))


class TowerScene(_Scene):
    """A tower's tray and three dice."""

    def __init__(self, design, surround: bool = False):
        super().__init__()
        self.design = design
        self.textured: list[int] = []         # bodies the studio's weave goes on (the felt)
        t, d = design.tray, design.dice
        wall_h = design.body.bottom_z_m
        self.felt = self.box_body((t.width_m / 2, t.depth_m / 2, 0.005), (0, 0, -0.005), (1, 1, 1))
        tt = t.wall_thickness_m
        wall = SMOKED_RGB if surround else WALL_RGB
        for sx in (-1, 1):
            self.box_body((tt / 2, t.depth_m / 2 + tt, wall_h / 2), (sx * (t.width_m + tt) / 2, 0, wall_h / 2),
                          wall)
        for sy in (-1, 1):
            self.box_body((t.width_m / 2, tt / 2, wall_h / 2), (0, sy * (t.depth_m + tt) / 2, wall_h / 2), wall)
        self.textured.append(self.felt)
        if surround:          # built only at levels that ask: the other levels' frames stay as they were
            self.box_body((0.8, 0.8, 0.01), (0, 0, -0.0115), TABLE_RGB, specular=0.5)
            # a gold trim along the inner edge of the walls' tops
            trim = 0.3 * tt
            for sx in (-1, 1):
                self.box_body((trim / 2, t.depth_m / 2 + trim, 0.001), (sx * (t.width_m + trim) / 2, 0, wall_h + 0.001),
                              TRIM_RGB, specular=0.7)
            for sy in (-1, 1):
                self.box_body((t.width_m / 2, trim / 2, 0.001), (0, sy * (t.depth_m + trim) / 2, wall_h + 0.001),
                              TRIM_RGB, specular=0.7)
        mesh = die_mesh(d.edge_m, dict(d.pips))
        self.dice = [self.mesh_body(mesh, position=(0.3 * i, 5.0, -1.0)) for i in range(d.count)]
        self._dressed: tuple | None = None

    def frame(self, poses, camera: Camera, variation: Variation) -> Rendered:
        """The picture with the dice at ``poses`` ((position, quaternion) per die)."""
        dress = (variation.felt_rgb, variation.dice)
        if dress != self._dressed:
            pb.changeVisualShape(self.felt, -1, rgbaColor=(*[c / 255 for c in variation.felt_rgb], 1),
                                 physicsClientId=self.client)
            texture = self.texture(die_atlas(*variation.dice_colours))
            for die in self.dice:
                pb.changeVisualShape(die, -1, textureUniqueId=texture, rgbaColor=(1, 1, 1, 1),
                                     physicsClientId=self.client)
            self._dressed = dress
        for die, (position, orientation) in zip(self.dice, poses):
            pb.resetBasePositionAndOrientation(die, position, orientation, physicsClientId=self.client)
        return self.render(camera, variation)


class WheelScene(_Scene):
    """A wheel's rotor (pocket ring, frets, cone), the stator around it and the ball."""

    def __init__(self, design, dressing: bool = False):
        super().__init__()
        self.design = design
        self.textured: list[int] = []
        rotor, pockets = design.rotor, design.pockets
        from twin.wheel.design import RED_NUMBERS
        from twin.wheel.world import pocket_angle, stator_inner_radius, stator_surface_z, rim_radius
        # The texture's ring: pockets from the inner radius to 0.86 of its half width, numbers outside.
        self.ring_half_m = rotor.pocket_outer_radius_m / 0.86
        inner_share = rotor.pocket_inner_radius_m / self.ring_half_m
        self.rotor = self.mesh_body(textured_square(self.ring_half_m))
        pb.changeVisualShape(self.rotor, -1, textureUniqueId=self.texture(
            pocket_ring(tuple(pockets), RED_NUMBERS, inner_share)), physicsClientId=self.client)
        # The frets stand on the ring, turning with it: one body each, placed per frame.
        pitch = 2 * math.pi / len(pockets)
        length = rotor.pocket_outer_radius_m - rotor.pocket_inner_radius_m
        self.frets = []
        for k in range(len(pockets)):
            self.frets.append((pocket_angle(k) - pitch / 2, self.box_body(
                (length / 2, rotor.fret_thickness_m / 2, rotor.fret_height_m / 2), (0, 0, -1), FRET_RGB)))
        self.fret_mid = (rotor.pocket_inner_radius_m + rotor.pocket_outer_radius_m) / 2
        self.fret_z = rotor.fret_height_m / 2
        # The cone in the middle and the stator's slope around the rotor (above the number ring's outer edge).
        self.mesh_body(ring(rotor.cone_top_radius_m, rotor.pocket_inner_radius_m, rotor.cone_height_m, 0.001),
                       CONE_RGB)
        self.mesh_body(ring(0.0, rotor.cone_top_radius_m, rotor.cone_height_m, rotor.cone_height_m), CONE_RGB)
        inner = max(stator_inner_radius(design), self.ring_half_m)
        outer = rim_radius(design) + 0.03
        self.mesh_body(ring(inner, outer, stator_surface_z(design, inner), stator_surface_z(design, outer)),
                       STATOR_RGB)
        if dressing:
            self._dress(design, outer)
        shape = pb.createVisualShape(pb.GEOM_SPHERE, radius=design.ball.radius_m, rgbaColor=(*BALL_RGB, 1),
                                     specularColor=(0.8, 0.8, 0.8), physicsClientId=self.client)
        self.ball = pb.createMultiBody(0, -1, shape, (0, 0, -1), physicsClientId=self.client)

    def _dress(self, design, stator_outer: float) -> None:
        """The wheel as a studio shows it (variation ``scene: {wheel_dressing: true}``): the
        ball track at the rim, the deflectors on the slope (the design's), the turret on
        the cone, the wooden bowl and the table's felt beyond."""
        from twin.wheel.world import rim_radius, stator_surface_z
        rotor, bowl = design.rotor, design.bowl
        rim = rim_radius(design)
        track_in = bowl.track_radius_m - 2 * design.ball.radius_m
        z_track = stator_surface_z(design, track_in)
        self.mesh_body(ring(track_in, rim, z_track + 0.0005, stator_surface_z(design, rim) + 0.0005), TRACK_RGB)
        self.mesh_body(ring(rim, rim + 0.004, stator_surface_z(design, rim) + 0.012,
                            stator_surface_z(design, rim) + 0.012), TRIM_RGB)       # the rim's brass lip
        self.mesh_body(ring(rim + 0.004, rim + 0.09, stator_surface_z(design, rim) + 0.012,
                            stator_surface_z(design, rim) + 0.006), BOWL_RGB)
        self.mesh_body(ring(0.9 * rotor.pocket_outer_radius_m, rim, -0.003, -0.003), BOWL_RGB)   # no gap to see through
        # the table, below the bowl: seen only beyond its wooden edge
        self.textured.append(self.box_body((1.2, 1.2, 0.005), (0, 0, -0.04), TABLE_FELT_RGB))
        half_l, half_w = bowl.deflector_length_m / 2, bowl.deflector_width_m / 2
        radius = bowl.deflector_radius_m
        for deflector in bowl.deflectors:
            a = math.radians(deflector.angle_deg)
            yaw = a + math.pi / 2 if deflector.along_track else a
            z = stator_surface_z(design, radius) + bowl.deflector_height_m / 2
            # a diamond: a box turned 45 degrees about its height, squeezed by the mesh's sides
            self.mesh_body(_diamond(half_l, half_w, bowl.deflector_height_m), CHROME_RGB,
                           (radius * math.cos(a), radius * math.sin(a), z),
                           pb.getQuaternionFromEuler((0, 0, yaw)))
        top = rotor.cone_height_m
        spindle = pb.createVisualShape(pb.GEOM_CYLINDER, radius=0.006, length=0.05, rgbaColor=(*CHROME_RGB, 1),
                                       specularColor=(0.9, 0.9, 0.9), physicsClientId=self.client)
        pb.createMultiBody(0, -1, spindle, (0, 0, top + 0.025), physicsClientId=self.client)
        self.turret = []
        for _ in range(4):
            self.turret.append(self.box_body((0.035, 0.004, 0.004), (0, 0, top + 0.045), CHROME_RGB, specular=0.9))
        knob = pb.createVisualShape(pb.GEOM_SPHERE, radius=0.008, rgbaColor=(*CHROME_RGB, 1),
                                    specularColor=(0.9, 0.9, 0.9), physicsClientId=self.client)
        self.knobs = [pb.createMultiBody(0, -1, knob, (0, 0, -1), physicsClientId=self.client) for _ in range(4)]
        self.turret_z = top + 0.045

    def frame(self, rotor_angle_rad: float, ball_xyz, camera: Camera, variation: Variation) -> Rendered:
        """The picture with the rotor turned to ``rotor_angle_rad`` and the ball at ``ball_xyz`` (None: no ball)."""
        c = self.client
        turn = pb.getQuaternionFromEuler((0, 0, rotor_angle_rad))
        pb.resetBasePositionAndOrientation(self.rotor, (0, 0, 0), turn, physicsClientId=c)
        for angle, fret in self.frets:
            a = angle + rotor_angle_rad
            pb.resetBasePositionAndOrientation(
                fret, (self.fret_mid * math.cos(a), self.fret_mid * math.sin(a), self.fret_z),
                pb.getQuaternionFromEuler((0, 0, a)), physicsClientId=c)
        for k, (arm, knob) in enumerate(zip(getattr(self, "turret", []), getattr(self, "knobs", []))):
            a = rotor_angle_rad + k * math.pi / 2          # the turret turns with the rotor
            pb.resetBasePositionAndOrientation(arm, (0.035 * math.cos(a), 0.035 * math.sin(a), self.turret_z),
                                               pb.getQuaternionFromEuler((0, 0, a)), physicsClientId=c)
            pb.resetBasePositionAndOrientation(knob, (0.07 * math.cos(a), 0.07 * math.sin(a), self.turret_z),
                                               (0, 0, 0, 1), physicsClientId=c)
        pb.resetBasePositionAndOrientation(self.ball, ball_xyz if ball_xyz is not None else (0, 0, -1),
                                           (0, 0, 0, 1), physicsClientId=c)
        return self.render(camera, variation)


def _diamond(half_l: float, half_w: float, height: float) -> Mesh:
    """A deflector: a diamond prism, tips along x, its top a little narrower."""
    from twin.camera.meshes import prism
    return prism([(half_l, 0), (0, half_w), (-half_l, 0), (0, -half_w)], height)
