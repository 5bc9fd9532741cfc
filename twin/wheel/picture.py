"""Pictures of a spin (Pillow): the wheel at rest from above, and a GIF of the spin.

Seen from above, counter-clockwise is the stator's positive angle, as in the
physics; the winning pocket is ringed in yellow and its number written in
the middle of the wheel.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from twin.wheel.design import POCKET_COUNT, RED_NUMBERS, WheelDesign
from twin.wheel.spin import Trace, rotor_at
from twin.wheel.world import pocket_angle, rim_radius

WOOD, TRACK, RED, BLACK, GREEN = (120, 72, 36), (150, 96, 52), (180, 20, 30), (25, 25, 25), (0, 120, 50)
MARK, BALL, CONE = (255, 215, 0), (250, 250, 250), (160, 120, 60)
TRACK_FRAME_S = 0.25         # GIF: a frame every quarter second while the ball is on the track
TRACK_FRAME_MS = 60          # ...shown about four times faster than life
DESCENT_FRAME_MS = 67        # the descent is recorded at 15 frames a second, shown in real time


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:   # Pillow < 10.1 has one fixed size
        return ImageFont.load_default()


def draw_wheel(design: WheelDesign, rotor_angle: float, ball_xyz: tuple[float, float, float] | None,
               pocket_index: int | None = None, size: int = 480, caption: str | None = None) -> Image.Image:
    """The wheel from above with the rotor at ``rotor_angle`` and the ball at ``ball_xyz``."""
    image = Image.new("RGB", (size, size), (40, 60, 40))
    draw = ImageDraw.Draw(image)
    outer = rim_radius(design) + 0.03
    scale = (size / 2 - 4) / outer
    cx = cy = size / 2

    def px(x: float, y: float) -> tuple[float, float]:
        return cx + x * scale, cy - y * scale

    def disc(radius: float, fill, outline=None, width=1) -> None:
        draw.ellipse([cx - radius * scale, cy - radius * scale, cx + radius * scale, cy + radius * scale],
                     fill=fill, outline=outline, width=width)

    disc(outer, WOOD)
    disc(rim_radius(design), TRACK)
    r_in, r_out = design.rotor.pocket_inner_radius_m, design.rotor.pocket_outer_radius_m
    disc(r_out * 1.02, WOOD)
    bowl = design.bowl
    for deflector in bowl.deflectors:
        a = math.radians(deflector.angle_deg)
        along = a + math.pi / 2 if deflector.along_track else a
        half_l, half_w = bowl.deflector_length_m / 2, bowl.deflector_width_m / 2
        x0, y0 = bowl.deflector_radius_m * math.cos(a), bowl.deflector_radius_m * math.sin(a)
        tips = [(half_l, 0), (0, half_w), (-half_l, 0), (0, -half_w)]
        draw.polygon([px(x0 + u * math.cos(along) - v * math.sin(along),
                         y0 + u * math.sin(along) + v * math.cos(along)) for u, v in tips],
                     fill=(210, 190, 120))
    pitch = 2 * math.pi / POCKET_COUNT
    font = ImageFont.load_default()
    for k, number in enumerate(design.pockets):
        centre = rotor_angle + pocket_angle(k)
        arc = [centre - pitch / 2 + pitch * i / 6 for i in range(7)]
        points = [px(r_out * math.cos(a), r_out * math.sin(a)) for a in arc]
        points += [px(r_in * math.cos(a), r_in * math.sin(a)) for a in reversed(arc)]
        colour = GREEN if number == 0 else RED if number in RED_NUMBERS else BLACK
        draw.polygon(points, fill=colour, outline=(200, 200, 200))
        if size >= 400:
            label_r = r_out + (r_out - r_in) * 0.0 - 0.012
            lx, ly = px(label_r * math.cos(centre), label_r * math.sin(centre))
            draw.text((lx, ly), str(number), fill=(255, 255, 255), font=font, anchor="mm")
    disc(r_in, CONE)
    disc(design.rotor.cone_top_radius_m, (200, 170, 90))
    if pocket_index is not None:
        centre = rotor_angle + pocket_angle(pocket_index)
        arc = [centre - pitch / 2 + pitch * i / 6 for i in range(7)]
        points = [px(r_out * math.cos(a), r_out * math.sin(a)) for a in arc]
        points += [px(r_in * math.cos(a), r_in * math.sin(a)) for a in reversed(arc)]
        draw.polygon(points, outline=MARK, width=max(2, size // 160))
        draw.text((cx, cy), str(design.pockets[pocket_index]), fill=(0, 0, 0), font=_font(max(10, size // 20)),
                  anchor="mm")
    if ball_xyz is not None:
        x, y, _ = ball_xyz
        radius = max(2.0, design.ball.radius_m * scale)
        bx, by = px(x, y)
        draw.ellipse([bx - radius, by - radius, bx + radius, by + radius], fill=BALL, outline=(0, 0, 0))
    if pocket_index is not None:
        # The ball sits on its pocket's number: write it again just outside
        # the pocket ring, on a yellow tag drawn last, so nothing covers it.
        centre = rotor_angle + pocket_angle(pocket_index)
        tag_r = r_out * 1.02 + 0.025
        tx, ty = px(tag_r * math.cos(centre), tag_r * math.sin(centre))
        half = max(8, size // 40)
        draw.line([px(r_out * math.cos(centre), r_out * math.sin(centre)), (tx, ty)], fill=MARK, width=2)
        draw.ellipse([tx - half, ty - half, tx + half, ty + half], fill=MARK, outline=(0, 0, 0))
        draw.text((tx, ty), str(design.pockets[pocket_index]), fill=(0, 0, 0), font=_font(max(10, size // 34)),
                  anchor="mm")
    if caption:
        draw.text((6, 6), caption, fill=(255, 255, 255), font=font)
    return image


def _final_pocket(design: WheelDesign, trace: Trace) -> int | None:
    if trace.result.number is None:
        return None
    return design.pockets.index(trace.result.number)


def save_png(design: WheelDesign, trace: Trace, path: str | Path, size: int = 480) -> None:
    """The wheel at rest, from above, with the ball's pocket marked."""
    result = trace.result
    if trace.frames:
        last = trace.frames[-1]
        ball, rotor_angle = last.ball, last.rotor_angle
    else:
        ball, rotor_angle = None, rotor_at(design, trace.launch, result.spin_time_s)[0]
    caption = (f"seed {result.seed}: {result.number}" if result.valid
               else f"seed {result.seed}: invalid ({result.invalid_reason})")
    draw_wheel(design, rotor_angle, ball, _final_pocket(design, trace), size, caption).save(path)


def save_gif(design: WheelDesign, trace: Trace, path: str | Path, size: int = 320) -> None:
    """The spin: the ball on the track (sped up), then its descent in real time."""
    images, durations = [], []
    r = design.bowl.track_radius_m
    solution = trace.track_solution
    t = 0.0
    while t < trace.track_time_s and solution is not None and getattr(solution, "sol", None) is not None:
        theta = float(solution.sol(t)[0])
        rotor_angle = rotor_at(design, trace.launch, t)[0]
        ball = (r * math.cos(theta), r * math.sin(theta), 0.0)
        images.append(draw_wheel(design, rotor_angle, ball, None, size, f"track {t:4.1f} s"))
        durations.append(TRACK_FRAME_MS)
        t += TRACK_FRAME_S
    pocket = _final_pocket(design, trace)
    for i, frame in enumerate(trace.frames):
        last = i == len(trace.frames) - 1
        images.append(draw_wheel(design, frame.rotor_angle, frame.ball, pocket if last else None, size,
                                 f"{trace.track_time_s + frame.t:4.1f} s"))
        durations.append(2000 if last else DESCENT_FRAME_MS)
    if not images:
        images, durations = [draw_wheel(design, trace.launch.rotor_angle_rad, None, None, size)], [1000]
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0,
                   optimize=False)
