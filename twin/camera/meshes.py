"""Visual meshes with texture coordinates, for PyBullet's renderer: a die
(a cube with bevelled edges and corners, each face mapped to its cell of
the pip atlas) and flat textured squares and rings.

Each flat piece has its own vertices, so the renderer shades it with its own
normal; every triangle is wound counter-clockwise seen from outside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twin.camera.textures import FACE_SHARE, atlas_cell
from twin import fixed_arithmetic as fx


@dataclass(frozen=True)
class Mesh:
    vertices: list[list[float]]
    indices: list[int]
    uvs: list[list[float]]
    normals: list[list[float]]


class _Builder:
    def __init__(self):
        self.vertices, self.indices, self.uvs, self.normals = [], [], [], []

    def polygon(self, points, uvs, outward=None) -> None:
        """A flat convex polygon, fanned into triangles, facing ``outward`` (or its own normal)."""
        pts = np.asarray(points, float)
        normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        normal /= fx.norm(normal)
        if outward is not None and fx.dot(normal, outward) < 0:
            pts, uvs, normal = pts[::-1], list(uvs)[::-1], -normal
        base = len(self.vertices)
        for p, uv in zip(pts, uvs):
            self.vertices.append([float(v) for v in p])
            self.uvs.append([float(v) for v in uv])
            self.normals.append([float(v) for v in normal])
        for k in range(1, len(pts) - 1):
            self.indices += [base, base + k, base + k + 1]

    def mesh(self) -> Mesh:
        return Mesh(self.vertices, self.indices, self.uvs, self.normals)


def _cell_uv(face: int, a: float, b: float) -> list[float]:
    """Atlas coordinates of a face's point at (a, b) in [-1, 1] (the face's flat part)."""
    col, row = atlas_cell(face)
    u = (col + 0.5 + 0.5 * a) / 3
    v = (row + 0.5 + 0.5 * b) / 3
    return [u, 1.0 - v]                 # the renderer's v runs up the image


PLAIN_UV = [(2 + 0.5) / 3, 1.0 - (2 + 0.5) / 3]      # the atlas's plain cell: the bevels


def die_mesh(edge_m: float, pips: dict[str, int]) -> Mesh:
    """A die of ``edge_m``: six faces whose flat parts carry their pips (the
    design's ``pips``: axis name to face), joined by bevelled edges and corners."""
    h = edge_m / 2
    inner = h * FACE_SHARE
    out = _Builder()
    axes = {"x": 0, "y": 1, "z": 2}
    for name, face in pips.items():
        sign = 1.0 if name[0] == "+" else -1.0
        a = axes[name[1]]
        u, v = (a + 1) % 3, (a + 2) % 3
        corners, uvs = [], []
        for cu, cv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            p = np.zeros(3)
            p[a], p[u], p[v] = sign * h, cu * inner, cv * inner
            corners.append(p)
            uvs.append(_cell_uv(face, cu, cv))
        normal = np.zeros(3)
        normal[a] = sign
        out.polygon(corners, uvs, normal)
    # Bevelled edges: a strip between two faces' flat parts.
    for a in range(3):
        u, v = (a + 1) % 3, (a + 2) % 3
        for su in (-1, 1):
            for sv in (-1, 1):
                pts = []
                for sa in (-1, 1):
                    p1, p2 = np.zeros(3), np.zeros(3)
                    p1[a] = p2[a] = sa * inner
                    p1[u], p1[v] = su * h, sv * inner
                    p2[u], p2[v] = su * inner, sv * h
                    pts.append((p1, p2))
                quad = [pts[0][0], pts[1][0], pts[1][1], pts[0][1]]
                outward = np.zeros(3)
                outward[u], outward[v] = su, sv
                out.polygon(quad, [PLAIN_UV] * 4, outward)
    # Bevelled corners: a triangle joining three faces.
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                s = np.array([sx, sy, sz], float)
                tri = []
                for a in range(3):
                    p = s * inner
                    p[a] = s[a] * h
                    tri.append(p)
                out.polygon(tri, [PLAIN_UV] * 3, s)
    return out.mesh()


def textured_square(half_m: float, z_m: float = 0.0) -> Mesh:
    """A horizontal square facing up, the whole texture on it, its top edge towards +y."""
    out = _Builder()
    pts = [(-half_m, -half_m, z_m), (half_m, -half_m, z_m), (half_m, half_m, z_m), (-half_m, half_m, z_m)]
    out.polygon(pts, [(0, 0), (1, 0), (1, 1), (0, 1)], (0, 0, 1))
    return out.mesh()


def ring(inner_m: float, outer_m: float, z_inner: float, z_outer: float, segments: int = 72) -> Mesh:
    """A ring (a cone's band when the heights differ) facing up, untextured."""
    out = _Builder()
    for k in range(segments):
        a0, a1 = 2 * math.pi * k / segments, 2 * math.pi * (k + 1) / segments
        quad = [(inner_m * math.cos(a0), inner_m * math.sin(a0), z_inner),
                (outer_m * math.cos(a0), outer_m * math.sin(a0), z_outer),
                (outer_m * math.cos(a1), outer_m * math.sin(a1), z_outer),
                (inner_m * math.cos(a1), inner_m * math.sin(a1), z_inner)]
        out.polygon(quad, [(0.5, 0.5)] * 4, (0, 0, 1))
    return out.mesh()


def prism(outline, height_m: float, top_share: float = 0.7) -> Mesh:
    """An upright prism over a convex ``outline`` ([(x, y), ...], counter-clockwise),
    from -height/2 to +height/2, its top ``top_share`` as wide (a deflector's bevel)."""
    out = _Builder()
    low = [(x, y, -height_m / 2) for x, y in outline]
    high = [(x * top_share, y * top_share, height_m / 2) for x, y in outline]
    out.polygon(high, [PLAIN_UV] * len(high), (0, 0, 1))
    for k in range(len(outline)):
        j = (k + 1) % len(outline)
        mid = np.add(low[k], low[j])[:2]
        out.polygon([low[k], low[j], high[j], high[k]], [PLAIN_UV] * 4, (mid[0], mid[1], 0.3))
    return out.mesh()
