"""Pictures of a drop with Pillow: the tray from above, the drop from the side.

The tray PNG shows each die as it lies (its outline projected from its
pose, its up face with the pips), and marks a die that is not flat in red
with what holds it and where (an orange ring), so that a disputed "no roll"
(58 Pa. Code 625b.2(d)(5)) can be looked at. The GIF puts two orthographic
views side by side at each recorded frame: the tower from the front (x
across, z up) and the tray from above (x across, y back), with the same die
colours and the same "die 1/2/3" legend as the PNG, the phase of the drop
in its header and the verdict on its last frame.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from twin.physics_engine import pybullet as pb
from PIL import Image, ImageDraw, ImageFont

from twin import fixed_arithmetic as fx
from twin.tower.design import TowerDesign
from twin.tower.dropping import DropResult, Trace
from twin.tower.statics import convex_hull
from twin.tower.world import layout

# Pip places on a face, in units of a quarter of the edge from its centre.
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
# Die 1, 2, 3 in every picture (red is kept for a die that is not flat).
DIE_COLOURS = [(235, 150, 20), (40, 150, 70), (60, 90, 220)]
ALERT = (220, 0, 0)
HOLDER = (255, 120, 0)
AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:   # Pillow < 10.1 has one fixed size
        return ImageFont.load_default()


def _rotation(orientation) -> np.ndarray:
    return np.array(pb.getMatrixFromQuaternion(orientation)).reshape(3, 3)


def _box_corners(half, position, orientation) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    return fx.matmul(signs * np.array(half), _rotation(orientation).T) + np.array(position)


def _legend(draw: ImageDraw.ImageDraw, x: float, y: float, font) -> float:
    """The "die 1/2/3" key with each die's colour, from (x, y); returns its right end."""
    for i, colour in enumerate(DIE_COLOURS):
        draw.rectangle([x, y + 2, x + 12, y + 14], fill=colour, outline=(0, 0, 0))
        label = f"die {i + 1}"
        draw.text((x + 16, y), label, fill=(0, 0, 0), font=font)
        x += 16 + draw.textlength(label, font=font) + 12
    return x


def _fitted(draw: ImageDraw.ImageDraw, text: str, width: float, size: int):
    """The largest font, ``size`` down to 9, in which ``text`` fits ``width`` pixels."""
    for s in range(size, 8, -1):
        font = _font(s)
        if draw.textlength(text, font=font) <= width:
            return font
    return _font(9)


def verdict_of(result: DropResult) -> str:
    """One line: the faces, or why the drop is a no roll (625b.2(d)(5))."""
    if not result.settled:
        return "NO ROLL (625b.2(d)(5)): the dice did not come to rest"
    if result.no_roll:
        cocked = [f"die {i + 1} not flat ({r.reason}, {r.tilt_deg:.0f} deg)"
                  for i, r in enumerate(result.dice) if not r.flat]
        return "NO ROLL (625b.2(d)(5)): " + "; ".join(cocked)
    return "faces " + " ".join(map(str, result.faces))


def _place_labels(anchors: list[tuple[float, float]], avoid: list[tuple[float, float, float, float]],
                  bounds: tuple[float, float, float, float], radius: float) -> list[tuple[float, float]]:
    """A spot for each label near its anchor (a die's outline top) that
    covers no die's box and no other label, inside ``bounds``."""
    placed: list[tuple[float, float]] = []
    x0, y0, x1, y1 = bounds

    def clash(x, y):
        box = (x - radius, y - radius, x + radius, y + radius)
        hits = sum(1 for a in avoid if not (box[2] < a[0] or box[0] > a[2] or box[3] < a[1] or box[1] > a[3]))
        hits += sum(1 for px, py in placed if abs(px - x) < 2 * radius + 2 and abs(py - y) < 2 * radius + 2)
        return hits

    for ax, ay in anchors:
        candidates = [(ax + dx, ay + dy) for dist in (radius + 2, 2 * radius + 6, 3 * radius + 10)
                      for dx, dy in ((0, -dist), (dist, 0), (-dist, 0), (0, dist), (dist, -dist), (-dist, -dist))]
        candidates = [(min(max(x, x0 + radius), x1 - radius), min(max(y, y0 + radius), y1 - radius))
                      for x, y in candidates]
        placed.append(min(candidates, key=lambda c: (clash(*c), abs(c[0] - ax) + abs(c[1] - ay))))
    return placed


def _die_label(draw, x, y, i: int, cocked: bool, font) -> None:
    draw.ellipse([x - 11, y - 11, x + 11, y + 11], fill=DIE_COLOURS[i % len(DIE_COLOURS)],
                 outline=ALERT if cocked else (0, 0, 0), width=3 if cocked else 1)
    draw.text((x, y), str(i + 1), fill=(255, 255, 255), font=font, anchor="mm")


def tray_png(design: TowerDesign, result: DropResult, path: str | Path, px_per_m: float | None = None) -> Path:
    """The tray from above with the dice at rest; dice not flat marked red,
    their holder ringed in orange. The scale makes the tray about 720 pixels
    across unless given."""
    t, d = design.tray, design.dice
    if px_per_m is None:
        px_per_m = 720 / t.width_m
    margin, header, line = 20, 84, 24
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
    boxes, anchors = [], []
    for i, rest in enumerate(result.dice):
        rot = _rotation(rest.orientation_xyzw)
        corners = _box_corners((h, h, h), rest.position_m, rest.orientation_xyzw)
        cocked = not rest.flat
        outline_px = [to_px(x, y) for x, y in convex_hull((float(x), float(y)) for x, y, _ in corners)]
        tint = tuple(int(255 - (255 - c) * 0.35) for c in DIE_COLOURS[i % len(DIE_COLOURS)])
        draw.polygon(outline_px, fill=(255, 205, 205) if cocked else tint,
                     outline=ALERT if cocked else DIE_COLOURS[i % len(DIE_COLOURS)], width=5 if cocked else 3)
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
        xs, ys = [p[0] for p in outline_px], [p[1] for p in outline_px]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
        anchors.append(min(outline_px, key=lambda p: p[1]))
        state = (f"NOT FLAT, {rest.tilt_deg:.0f} deg ({rest.face} nearest up): {rest.describe_hold()}"
                 if cocked else f"{rest.face}, flat")
        footer_y = height - footer + i * line
        draw.rectangle([margin, footer_y + 3, margin + 12, footer_y + 15], fill=DIE_COLOURS[i % len(DIE_COLOURS)],
                       outline=(0, 0, 0))
        draw.text((margin + 18, footer_y), f"die {i + 1}: {state}", fill=ALERT if cocked else (0, 0, 0),
                  font=_fitted(draw, f"die {i + 1}: {state}", width - 2 * margin - 18, 16))
    # The holders, then the labels last: nothing is drawn over a label.
    for rest in result.dice:
        if not rest.flat and rest.held_at_m is not None:
            x, y = to_px(rest.held_at_m[0], rest.held_at_m[1])
            draw.ellipse([x - 9, y - 9, x + 9, y + 9], outline=HOLDER, width=4)
    spots = _place_labels(anchors, boxes, (0, header, width, height - footer), 11)
    small = _font(14)
    for i, (rest, (x, y)) in enumerate(zip(result.dice, spots)):
        _die_label(draw, x, y, i, not rest.flat, small)

    title = f"{design.name}  seed {result.seed}  loaded {list(result.loaded)}"
    draw.text((margin, 8), title, fill=(0, 0, 0), font=_fitted(draw, title, width - 2 * margin, 16))
    verdict = verdict_of(result)
    draw.text((margin, 30), verdict, fill=ALERT if result.no_roll else (0, 0, 0),
              font=_fitted(draw, verdict, width - 2 * margin, 18))
    _legend(draw, margin, 56, _font(14))
    if any(not r.flat for r in result.dice):
        draw.ellipse([width - 200, 58, width - 186, 72], outline=HOLDER, width=3)
        draw.text((width - 180, 56), "where it is held", fill=(0, 0, 0), font=_font(14))
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
    return convex_hull((float(x), float(z)) for x, _, z in corners)


def _phase(time_s: float, trace: Trace, result: DropResult) -> str:
    if time_s < trace.release_s:
        return "in the compartment"
    if result.settled and time_s >= trace.release_s + result.settle_time_s:
        return "at rest"
    return "released, falling" if time_s < trace.release_s + 0.05 else "tumbling"


def drop_gif(design: TowerDesign, result: DropResult, trace: Trace, path: str | Path,
             px_per_m: float = 900, frame_ms: int | None = None, hold_last_ms: int = 3000) -> Path:
    """An animated view of a traced drop (``drop_traced``): the tower from
    the front and the tray from above, the phase in the header and the
    verdict on the last frame (held for ``hold_last_ms``)."""
    b, t, c, d = design.body, design.tray, design.compartment, design.dice
    margin, header, gap = 12, 66, 16
    top = b.top_z_m + c.height_m
    half_w = max(t.width_m / 2 + t.wall_thickness_m, b.width_m / 2 + b.wall_thickness_m)
    side_w = int(2 * half_w * px_per_m)
    top_scale = max(px_per_m, 420 / (t.width_m + 2 * t.wall_thickness_m))   # the tray view at least 420 px
    top_w = int((t.width_m + 2 * t.wall_thickness_m) * top_scale)
    top_h = int((t.depth_m + 2 * t.wall_thickness_m) * top_scale)
    width = side_w + top_w + 2 * margin + gap
    height = max(int((top + t.wall_thickness_m) * px_per_m), top_h + 40) + 2 * margin + header
    cx, base = margin + side_w / 2, height - margin - t.wall_thickness_m * px_per_m
    tx, ty = margin + side_w + gap + top_w / 2, header + margin + 24 + top_h / 2

    def to_px(x, z):
        return (cx + x * px_per_m, base - z * px_per_m)

    def to_top(x, y):
        return (tx + x * top_scale, ty - y * top_scale)

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
    # The tray from above: its walls, the felt, the shaft's opening.
    tw, td, tt = t.width_m / 2, t.depth_m / 2, t.wall_thickness_m
    draw.rectangle([to_top(-tw - tt, td + tt), to_top(tw + tt, -td - tt)], fill=(190, 215, 235))
    draw.rectangle([to_top(-tw, td), to_top(tw, -td)], fill=(30, 110, 60))
    draw.rectangle([to_top(-b.width_m / 2, b.depth_m / 2), to_top(b.width_m / 2, -b.depth_m / 2)],
                   outline=(200, 230, 210), width=1)
    small = _font(12)
    draw.text(to_top(0, td + tt), "back", fill=(60, 60, 60), font=small, anchor="md")
    draw.text(to_top(0, -td - tt), "front (the side view looks from here)", fill=(60, 60, 60), font=small,
              anchor="ma")
    draw.text((margin, header - 2), "front view", fill=(60, 60, 60), font=small)
    draw.text((tx - top_w / 2, header + margin), "the tray from above", fill=(60, 60, 60), font=small)
    door = next(p for p in parts if p.role == "door")
    door_side = _side_outline(door)
    if door_side is None:
        # Not reached: the door is a box across the shaft, in the side view's plane (world.layout).
        raise AssertionError("the tower's door has no outline in the side view")
    door_outline = [to_px(x, z) for x, z in door_side]

    frames = []
    h = d.edge_m / 2
    verdict = verdict_of(result)
    last = len(trace.times_s) - 1
    title = f"{design.name}  seed {result.seed}  loaded {list(result.loaded)}"
    for k, (time_s, poses) in enumerate(zip(trace.times_s, trace.poses)):
        frame = background.copy()
        fd = ImageDraw.Draw(frame)
        if time_s < trace.release_s:
            fd.polygon(door_outline, fill=(150, 120, 90))
        final = k == last
        for view, project, _scale in ((0, to_px, px_per_m), (1, to_top, top_scale)):
            boxes, anchors = [], []
            # From the front, nearer dice over farther ones; from above, higher over lower.
            order = sorted(range(len(poses)), key=lambda i: poses[i][0][2] if view else -poses[i][0][1])
            for i in order:
                pos, orn = poses[i]
                corners = _box_corners((h, h, h), pos, orn)
                flat_2d = [(float(x), float(z)) for x, _, z in corners] if view == 0 else \
                          [(float(x), float(y)) for x, y, _ in corners]
                outline = [project(*p) for p in convex_hull(flat_2d)]
                cocked = final and not result.dice[i].flat
                fd.polygon(outline, fill=DIE_COLOURS[i % len(DIE_COLOURS)], outline=ALERT if cocked else (0, 0, 0),
                           width=4 if cocked else 1)
                xs, ys = [p[0] for p in outline], [p[1] for p in outline]
                boxes.append((min(xs), min(ys), max(xs), max(ys)))
                anchors.append((min(xs) + (max(xs) - min(xs)) / 2, min(ys)))
            if final:
                for rest in result.dice:
                    if not rest.flat and rest.held_at_m is not None:
                        hx, hy, hz = rest.held_at_m
                        x, y = project(hx, hz) if view == 0 else project(hx, hy)
                        fd.ellipse([x - 8, y - 8, x + 8, y + 8], outline=HOLDER, width=3)
            if view == 1 or final:
                bounds = (0, header, width, height) if view == 0 else \
                         (tx - top_w / 2, ty - top_h / 2, tx + top_w / 2, ty + top_h / 2)
                spots = _place_labels(anchors, boxes, bounds, 9)
                for j, i in enumerate(order):
                    x, y = spots[j]
                    _die_label(fd, x, y, i, final and not result.dice[i].flat, small)
        fd.text((margin, 4), title, fill=(0, 0, 0), font=_fitted(fd, title, width - 2 * margin, 14))
        status = verdict if final else f"t = {time_s:5.2f} s   {_phase(time_s, trace, result)}"
        fd.text((margin, 22), status, fill=ALERT if final and result.no_roll else (0, 0, 0),
                font=_fitted(fd, status, width - 2 * margin, 15 if final else 14))
        right = _legend(fd, margin, 42, small)
        if final and any(not r.flat for r in result.dice):
            fd.ellipse([right + 4, 44, right + 16, 56], outline=HOLDER, width=3)
            fd.text((right + 20, 42), "where it is held", fill=(0, 0, 0), font=small)
        frames.append(frame)
    if frame_ms is None:
        step = (trace.times_s[1] - trace.times_s[0]) if len(trace.times_s) > 1 else 0.04
        frame_ms = max(20, int(round(step * 1000)))
    durations = [frame_ms] * (len(frames) - 1) + [max(frame_ms, hold_last_ms)]
    path = Path(path)
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
    return path
