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


@dataclass
class Rendered:
    rgb: np.ndarray            # height x width x 3, uint8
    mask: np.ndarray           # height x width, the body id seen at each pixel (-1: none)


class _Scene:
    """A PyBullet client holding visual bodies, for rendering only."""

    def __init__(self):
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

    def box_body(self, half, position, rgb, orientation=(0, 0, 0, 1)) -> int:
        shape = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=(*rgb, 1),
                                     specularColor=(0.1, 0.1, 0.1), physicsClientId=self.client)
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

    def __init__(self, design):
        super().__init__()
        self.design = design
        t, d = design.tray, design.dice
        wall_h = design.body.bottom_z_m
        self.felt = self.box_body((t.width_m / 2, t.depth_m / 2, 0.005), (0, 0, -0.005), (1, 1, 1))
        tt = t.wall_thickness_m
        for sx in (-1, 1):
            self.box_body((tt / 2, t.depth_m / 2 + tt, wall_h / 2), (sx * (t.width_m + tt) / 2, 0, wall_h / 2),
                          WALL_RGB)
        for sy in (-1, 1):
            self.box_body((t.width_m / 2, tt / 2, wall_h / 2), (0, sy * (t.depth_m + tt) / 2, wall_h / 2), WALL_RGB)
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

    def __init__(self, design):
        super().__init__()
        self.design = design
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
        shape = pb.createVisualShape(pb.GEOM_SPHERE, radius=design.ball.radius_m, rgbaColor=(*BALL_RGB, 1),
                                     specularColor=(0.8, 0.8, 0.8), physicsClientId=self.client)
        self.ball = pb.createMultiBody(0, -1, shape, (0, 0, -1), physicsClientId=self.client)

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
        pb.resetBasePositionAndOrientation(self.ball, ball_xyz if ball_xyz is not None else (0, 0, -1),
                                           (0, 0, 0, 1), physicsClientId=c)
        return self.render(camera, variation)
