"""Pictures of a drop with Pillow: the tray from above, the drop from the side.

The tray PNG shows each die as it lies (its outline projected from its
pose, its up face with the pips), and marks a die that is not flat in red
with the reason, so that a disputed "no roll" (58 Pa. Code 625b.2(d)(5)) can
be looked at. The GIF is a simple orthographic side view (x across, z up)
of the tower's parts and the dice at each recorded frame.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from twin.physics_engine import pybullet as pb
from PIL import Image, ImageDraw, ImageFont

from twin.tower.design import TowerDesign
from twin.tower.dropping import DropResult, Trace
from twin.tower.world import layout

# Pip places on a face, in units of a quarter of the edge from its centre.
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
DIE_COLOURS = [(230, 60, 60), (60, 160, 60), (60, 90, 220)]
AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:   # Pillow < 10.1 has one fixed size
        return ImageFont.load_default()


def _hull(points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (monotone chain) of 2-D points, counter-clockwise."""
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
    return lower[:-1] + upper[:-1]


def _rotation(orientation) -> np.ndarray:
    return np.array(pb.getMatrixFromQuaternion(orientation)).reshape(3, 3)


def _box_corners(half, position, orientation) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    return (signs * np.array(half)) @ _rotation(orientation).T + np.array(position)


def tray_png(design: TowerDesign, result: DropResult, path: str | Path, px_per_m: float | None = None) -> Path:
    """The tray from above with the dice at rest; dice not flat marked red.
    The scale makes the tray about 720 pixels across unless given."""
    t, d = design.tray, design.dice
    if px_per_m is None:
        px_per_m = 720 / t.width_m
    margin, header, line = 20, 60, 24
    footer = line * len(result.dice) + 10
    width = int(t.width_m * px_per_m) + 2 * margin
    height = int(t.depth_m * px_per_m) + 2 * margin + header + footer
    img = Image.new("RGB", (width, height), (250, 250, 250))
    draw = ImageDraw.Draw(img)
    cx, cy = width / 2, header + margin + t.depth_m * px_per_m / 2

    def to_px(x, y):
        return (cx + x * px_per_m, cy - y * px_per_m)

    # The felt, and the shaft's opening above it.
    draw.rectangle([to_px(-t.width_m / 2, t.depth_m / 2), to_px(t.width_m / 2, -t.depth_m / 2)],
                   fill=(30, 110, 60), outline=(20, 20, 20), width=3)
    b = design.body
    draw.rectangle([to_px(-b.width_m / 2, b.depth_m / 2), to_px(b.width_m / 2, -b.depth_m / 2)],
                   outline=(200, 230, 210), width=1)

    h = d.edge_m / 2
    pips = dict(d.pips)
    small = _font(14)
    for i, rest in enumerate(result.dice):
        rot = _rotation(rest.orientation_xyzw)
        corners = _box_corners((h, h, h), rest.position_m, rest.orientation_xyzw)
        cocked = not rest.flat
        draw.polygon([to_px(x, y) for x, y in _hull((float(x), float(y)) for x, y, _ in corners)],
                     fill=(255, 205, 205) if cocked else (245, 240, 225),
                     outline=(220, 0, 0) if cocked else (60, 60, 60), width=4 if cocked else 1)
        # The up face: the body axis pointing most upwards.
        axis = max(((s, a) for a in range(3) for s in (1, -1)), key=lambda sa: sa[0] * rot[2, sa[1]])
        sign, a = axis
        normal = rot[:, a] * sign
        u, v = rot[:, (a + 1) % 3], rot[:, (a + 2) % 3]
        centre = np.array(rest.position_m) + normal * h
        face = [centre + (su * u + sv * v) * h for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        draw.polygon([to_px(p[0], p[1]) for p in face], fill=(255, 255, 255), outline=(90, 90, 90))
        r = max(2.0, d.edge_m * 0.08 * px_per_m)
        face_value = pips[("+" if sign > 0 else "-") + "xyz"[a]]
        for pu, pv in PIPS[face_value]:
            p = centre + (pu * u + pv * v) * h * 0.5
            x, y = to_px(p[0], p[1])
            draw.ellipse([x - r, y - r, x + r, y + r], fill=(200, 0, 0) if face_value == 1 else (20, 20, 20))
        # The die's number just outside its outline's highest point (in the picture).
        outline_px = [to_px(x, y) for x, y, _ in corners]
        top_x, top_y = min(outline_px, key=lambda p: p[1])
        nx, ny = min(max(top_x, 12), width - 12), max(top_y - 12, header + 12)
        draw.ellipse([nx - 10, ny - 10, nx + 10, ny + 10], fill=(255, 255, 255),
                     outline=(220, 0, 0) if cocked else (40, 40, 40), width=2)
        draw.text((nx, ny), str(i + 1), fill=(220, 0, 0) if cocked else (0, 0, 0), font=small, anchor="mm")
        state = (f"NOT FLAT: {rest.reason}, tilted {rest.tilt_deg:.0f} deg ({rest.face} nearest up)" if cocked
                 else f"{rest.face}, flat")
        footer_y = height - footer + i * line
        draw.text((margin, footer_y), f"die {i + 1}: {state}", fill=(200, 0, 0) if cocked else (0, 0, 0),
                  font=_font(16))

    verdict = ("NO ROLL (625b.2(d)(5))" if result.no_roll else
               "faces " + " ".join(map(str, result.faces)))
    if not result.settled:
        verdict += " - not settled"
    draw.text((margin, 10), f"{design.name}  seed {result.seed}  loaded {list(result.loaded)}", fill=(0, 0, 0),
              font=_font(16))
    draw.text((margin, 32), verdict, fill=(200, 0, 0) if result.no_roll else (0, 0, 0), font=_font(18))
    path = Path(path)
    img.save(path, format="PNG")
    return path


def _side_outline(part) -> list[tuple[float, float]] | None:
    """A part's outline in the side view (x, z), or None for a part that
    would only hide the inside (the front and back glass)."""
    if part.shape == "cylinder":
        return None
    half, pos = part.size, part.position
    if abs(pos[1]) > 1e-9:        # front/back walls and lid strips
        return None
    corners = _box_corners(half, pos, part.orientation)
    return _hull((float(x), float(z)) for x, _, z in corners)


def drop_gif(design: TowerDesign, result: DropResult, trace: Trace, path: str | Path,
             px_per_m: float = 900, frame_ms: int | None = None) -> Path:
    """An animated side view of a traced drop (``drop_traced``)."""
    b, t, c, d = design.body, design.tray, design.compartment, design.dice
    margin, header = 12, 26
    top = b.top_z_m + c.height_m
    half_w = max(t.width_m / 2 + t.wall_thickness_m, b.width_m / 2 + b.wall_thickness_m)
    width = int(2 * half_w * px_per_m) + 2 * margin
    height = int((top + t.wall_thickness_m) * px_per_m) + 2 * margin + header
    cx, base = width / 2, height - margin - t.wall_thickness_m * px_per_m

    def to_px(x, z):
        return (cx + x * px_per_m, base - z * px_per_m)

    parts = layout(design)
    background = Image.new("RGB", (width, height), (245, 248, 252))
    draw = ImageDraw.Draw(background)
    for part in parts:
        if part.role == "door":
            continue
        if part.shape == "cylinder":
            x, z = to_px(part.position[0], part.position[2])
            r = part.size[0] * px_per_m
            draw.ellipse([x - r, z - r, x + r, z + r], fill=(120, 140, 170))
            continue
        outline = _side_outline(part)
        if outline:
            fill = {"wall": (190, 215, 235), "floor": (30, 110, 60), "obstacle": (120, 140, 170)}[part.role]
            draw.polygon([to_px(x, z) for x, z in outline], fill=fill)
    door = next(p for p in parts if p.role == "door")
    door_outline = [to_px(x, z) for x, z in _side_outline(door)]

    frames = []
    font = _font(14)
    h = d.edge_m / 2
    for time_s, poses in zip(trace.times_s, trace.poses):
        frame = background.copy()
        fd = ImageDraw.Draw(frame)
        if time_s < trace.release_s:
            fd.polygon(door_outline, fill=(150, 120, 90))
        for i, (pos, orn) in enumerate(poses):
            corners = _box_corners((h, h, h), pos, orn)
            fd.polygon([to_px(x, z) for x, z in _hull((float(x), float(z)) for x, _, z in corners)],
                       fill=DIE_COLOURS[i % len(DIE_COLOURS)], outline=(0, 0, 0))
        phase = "in the compartment" if time_s < trace.release_s else "released"
        fd.text((margin, 6), f"{design.name} seed {result.seed}  t={time_s:5.2f} s  {phase}", fill=(0, 0, 0), font=font)
        frames.append(frame)
    if frame_ms is None:
        step = (trace.times_s[1] - trace.times_s[0]) if len(trace.times_s) > 1 else 0.04
        frame_ms = max(20, int(round(step * 1000)))
    path = Path(path)
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:], duration=frame_ms, loop=0)
    return path
