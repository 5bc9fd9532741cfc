"""A studio's picture from the renderer's: what PyBullet's TinyRenderer
cannot draw, done on the rendered picture and its segmentation mask
together, so that the labels stay the truth of what the camera shows.

In the order light meets them: the felt's weave and the table's grain;
translucent dice (the felt and the light through their bodies); a dealer's
hand or scraper over part of the frame (its pixels are ``OCCLUDER`` in the
mask: what it hides is not visible); a show light's coloured pool and a
strobe's band; the tower's glass in front of the tray (a softbox's
reflection and the tray's ghost, smudges, refraction); the lens's barrel
distortion and vignetting. ``Warp`` moves the picture and the mask alike
and carries the projected points of the labels (outlines, the ball's
centre) to where the distorted picture shows them. A video codec's flat
blocks come last, after the sensor's noise, with the rest of what the camera
delivers (``variation.blocky``, from ``variation.finish``).

Every random choice comes from the frame's ``StudioDraw`` (its seed), the
fixed patterns from fixed seeds: the same frame, the same bytes.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

from twin.camera.variation import StudioDraw, Variation

OCCLUDER = -2                  # the mask's value where the dealer's hand or scraper is
SKIN = ((224, 182, 150), (198, 148, 112), (150, 102, 70), (105, 70, 48))
SLEEVE = ((25, 25, 30), (235, 235, 235), (110, 20, 30))


@lru_cache(maxsize=4)
def _weave(height: int, width: int) -> np.ndarray:
    """A felt's weave and fibres, mean 0, about -1..1, twice the frame (a frame takes a window)."""
    rng = np.random.default_rng(3801)
    h, w = 2 * height, 2 * width
    fine = ndimage.gaussian_filter(rng.normal(0, 1, (h, w)), 0.7)
    fibres = ndimage.gaussian_filter(rng.normal(0, 1, (h, w)), (0.6, 3.0))      # short fibres, mostly along x
    blotch = ndimage.gaussian_filter(rng.normal(0, 1, (h, w)), 14)
    y, x = np.mgrid[0:h, 0:w]
    grid = np.sin(x * 2.1) * np.sin(y * 2.1)
    out = fine / fine.std() + 0.8 * fibres / fibres.std() + 0.5 * grid + 1.2 * blotch / blotch.std()
    return (out / np.abs(out).max()).astype(np.float32)


def _window(pattern: np.ndarray, shape, offset) -> np.ndarray:
    oy, ox = offset[0] % (pattern.shape[0] - shape[0]), offset[1] % (pattern.shape[1] - shape[1])
    return pattern[oy:oy + shape[0], ox:ox + shape[1]]


def textured(rgb: np.ndarray, mask: np.ndarray, bodies: dict[int, float], offset) -> np.ndarray:
    """The weave on the pixels of each body (id -> contrast): felt, the table."""
    pattern = _window(_weave(*rgb.shape[:2]), rgb.shape[:2], offset)
    gain = np.ones(rgb.shape[:2], np.float32)
    for body, amount in bodies.items():
        on = mask == body
        gain[on] += amount * pattern[on]
    return rgb * gain[..., None]


def translucent(rgb: np.ndarray, mask: np.ndarray, dice: list[int], felt_rgb, body_rgb, amount: float):
    """Translucent dice: the light through the body evens its shading and
    softens its pips a little; near its outline the felt shows through,
    tinted by the body."""
    on = np.isin(mask, dice)
    if amount <= 0 or not on.any():
        return rgb
    ys, xs = np.nonzero(on)
    y0, y1 = max(0, ys.min() - 8), min(rgb.shape[0], ys.max() + 9)
    x0, x1 = max(0, xs.min() - 8), min(rgb.shape[1], xs.max() + 9)
    m = on[y0:y1, x0:x1].astype(np.float32)
    part = rgb[y0:y1, x0:x1]
    weight = ndimage.gaussian_filter(m, 5) + 1e-6
    glow = np.stack([ndimage.gaussian_filter(part[..., c] * m, 5) / weight for c in range(3)], -1)
    inside = ndimage.distance_transform_edt(m)
    edge = (0.25 + 0.75 * np.exp(-inside / 7.0))[..., None]
    body = np.asarray(body_rgb, np.float32) / 255
    through = np.asarray(felt_rgb, np.float32) * (0.4 + 0.8 * body) + 40 * body
    mixed = part * (1 - 0.5 * amount) + 0.5 * amount * glow * (0.7 + 0.4 * body)
    mixed = mixed * (1 - amount * edge) + amount * edge * through
    out = rgb.copy()
    out[y0:y1, x0:x1] = np.where(m[..., None] > 0, mixed, part)
    return out


def _capsule(draw: ImageDraw.ImageDraw, a, b, width: float, fill) -> None:
    draw.line([tuple(a), tuple(b)], fill=fill, width=int(round(width)))
    for p in (a, b):
        draw.ellipse([p[0] - width / 2, p[1] - width / 2, p[0] + width / 2, p[1] + width / 2], fill=fill)


def occlude(rgb: np.ndarray, mask: np.ndarray, s: StudioDraw, die_px: float | None = None
            ) -> tuple[np.ndarray, np.ndarray, dict]:
    """A dealer's hand (an arm in its sleeve, the palm, the fingers) or a
    scraper (a rod and its paddle) reaching in from a frame edge, with its
    soft shadow on the table. Returns the picture, the mask with
    ``OCCLUDER`` where it is, and its label."""
    h, w = rgb.shape[:2]
    rng = np.random.default_rng([s.seed, 1])
    edge, along, reach, turn = s.occluder_place
    # a hand is about 3.6 dice across: sized by the dice the camera sees (else by the frame)
    size = min(24 * die_px, 2.2 * min(h, w)) if die_px else 0.8 * min(h, w)
    # the entry point and the direction into the frame
    inward = {0: (0.0, 1.0), 1: (-1.0, 0.0), 2: (0.0, -1.0), 3: (1.0, 0.0)}[int(edge)]
    start = {0: (along * w, -0.05 * h), 1: (1.05 * w, along * h), 2: (along * w, 1.05 * h),
             3: (-0.05 * w, along * h)}[int(edge)]
    angle = math.atan2(inward[1], inward[0]) + turn
    direction = np.array([math.cos(angle), math.sin(angle)])
    side = np.array([-direction[1], direction[0]])
    tip = np.asarray(start) + direction * (reach * (h if inward[0] == 0 else w) + 0.06 * size)
    scale = 2                                           # drawn twice as large, shrunk: smooth edges
    alpha = Image.new("L", (w * scale, h * scale), 0)
    colour = Image.new("RGB", (w * scale, h * scale), 0)
    da, dc = ImageDraw.Draw(alpha), ImageDraw.Draw(colour)
    S = lambda p: tuple(float(v) * scale for v in p)    # noqa: E731
    if s.occluder == "hand":
        skin = np.asarray(SKIN[int(rng.integers(len(SKIN)))])
        sleeve = SLEEVE[int(rng.integers(len(SLEEVE)))]
        wrist = tip - direction * 0.16 * size
        for d, fill in ((da, 255), (dc, sleeve)):
            _capsule(d, S(np.asarray(start) - direction * 0.2 * size), S(wrist - direction * 0.04 * size),
                     0.16 * size * scale, fill)
        palm = tip - direction * 0.08 * size
        r = 0.075 * size * scale
        skin_fill: Any = tuple(int(v) for v in skin)
        for d, fill in ((da, 255), (dc, skin_fill)):
            cx, cy = S(palm)
            d.ellipse([cx - r, cy - r * 1.1, cx + r, cy + r * 1.1], fill=fill)
            for spread in (-0.75, -0.25, 0.25, 0.75):
                base = palm + direction * 0.04 * size + side * spread * 0.045 * size
                bend = 0.09 * size * (0.85 + 0.15 * (1 - abs(spread)))
                end = base + direction * bend + side * spread * 0.02 * size
                _capsule(d, S(base), S(end), 0.028 * size * scale, fill)
            thumb = palm + side * 0.07 * size
            _capsule(d, S(thumb), S(thumb + direction * 0.05 * size + side * 0.04 * size), 0.032 * size * scale,
                     fill)
    else:
        wood = (int(rng.integers(60, 140)), int(rng.integers(35, 80)), int(rng.integers(15, 40)))
        for d, fill in ((da, 255), (dc, wood)):
            _capsule(d, S(np.asarray(start) - direction * 0.2 * size), S(tip), 0.022 * size * scale, fill)
            a, b = tip + side * 0.12 * size, tip - side * 0.12 * size
            _capsule(d, S(a), S(b), 0.03 * size * scale, fill)
    a = np.asarray(alpha.resize((w, h), Image.Resampling.BILINEAR), np.float32) / 255
    col: np.ndarray = np.asarray(colour.resize((w, h), Image.Resampling.BILINEAR), np.float32)
    col = col / np.maximum(a[..., None], 1e-3)
    # rounded: darker towards its sides, as a lit cylinder
    core = ndimage.distance_transform_edt(a > 0.5)
    col *= (0.55 + 0.45 * np.clip(core / (0.03 * size), 0, 1))[..., None]
    shadow = ndimage.shift(ndimage.gaussian_filter(a, 0.02 * size), (0.03 * size, 0.03 * size), order=1)
    out = rgb * (1 - 0.45 * shadow[..., None])
    out = out * (1 - a[..., None]) + np.clip(col, 0, 255) * a[..., None]
    mask = np.where(a > 0.5, OCCLUDER, mask)
    ys, xs = np.nonzero(a > 0.5)
    box = None if len(xs) == 0 else [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                                     int(ys.max() - ys.min() + 1)]
    return out, mask, {"kind": s.occluder, "box_px": box, "visible_px": int(len(xs))}


@lru_cache(maxsize=4)
def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """The pixel coordinates (y, x) of a frame: the same every frame, made once (read only)."""
    y, x = np.mgrid[0:h, 0:w]
    y, x = y.astype(np.float32), x.astype(np.float32)
    y.flags.writeable = x.flags.writeable = False
    return y, x


@lru_cache(maxsize=4)
def _corner_falloff(h: int, w: int) -> np.ndarray:
    y, x = _grid(h, w)
    r2 = ((x - (w - 1) / 2) ** 2 + (y - (h - 1) / 2) ** 2) / (((w - 1) / 2) ** 2 + ((h - 1) / 2) ** 2)
    out = (r2 ** 1.5).astype(np.float32)
    out.flags.writeable = False
    return out


def lit(rgb: np.ndarray, s: StudioDraw) -> np.ndarray:
    """A show light's coloured pool (the rest a little darker) and a strobe's band of rows."""
    h, w = rgb.shape[:2]
    out = rgb
    if s.show_light is not None:
        x0, y0, radius, *colour = s.show_light
        y, x = _grid(h, w)
        pool = np.exp(-((x - x0 * w) ** 2 + (y - y0 * h) ** 2) / (2 * (radius * w) ** 2))
        tint = 1 + s.show_strength * pool[..., None] * (2 * np.asarray(colour, np.float32) - 1)
        out = out * tint * (1 - 0.35 * s.show_strength * (1 - pool))[..., None]
    if s.strobe is not None:
        gain, start, end = s.strobe
        rows = np.arange(h, dtype=np.float32) / h
        band = np.clip(np.minimum(rows - start, end - rows) / 0.04 + 0.5, 0, 1)
        out = out * (1 + (gain - 1) * band)[:, None, None] + (30 * (gain - 1) * band)[:, None, None]
    return out


def glass(rgb: np.ndarray, s: StudioDraw) -> np.ndarray:
    """The glass in front of the tray: a softbox's window reflected, the
    tray's faint ghost (the glass's second face), smudges (haze and a
    fingerprint's ridges)."""
    h, w = rgb.shape[:2]
    out = rgb
    if s.glass_reflection > 0:
        small = 8                                   # the window is soft: drawn and blurred at 1/8 size
        sw, sh = max(1, w // small), max(1, h // small)
        window = Image.new("L", (sw, sh), 0)
        cx, cy, turn = s.reflection_place[0] * sw, s.reflection_place[1] * sh, s.reflection_place[2]
        half_l, half_w = 0.35 * sw, 0.06 * sw
        c, si = math.cos(turn), math.sin(turn)
        corners = [(cx + a * half_l * c - b * half_w * si, cy + a * half_l * si + b * half_w * c)
                   for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        ImageDraw.Draw(window).polygon(corners, fill=255)
        blurred = ndimage.gaussian_filter(np.asarray(window, np.float32), 0.025 * sw)
        soft = np.asarray(Image.fromarray(blurred, "F").resize((w, h), Image.Resampling.BILINEAR)) / 255
        dy, dx = int(round(0.02 * h)), int(round(0.015 * w))
        ghost = np.empty_like(out)
        ghost[dy:, dx:] = out[:h - dy, :w - dx]
        ghost[:dy, :] = out[:1, :] if dy else ghost[:dy, :]
        ghost[:, :dx] = ghost[:, dx:dx + 1] if dx else ghost[:, :dx]
        r = s.glass_reflection
        out = out * (1 - 0.5 * r) + 0.5 * r * ghost
        out = 255 - (255 - out) * (1 - r * 2.2 * soft[..., None])     # screen: the reflection only brightens
    if s.glass_smudges:
        rng = np.random.default_rng([s.seed, 2])
        y, x = _grid(h, w)
        haze = np.zeros((h, w), np.float32)
        for _ in range(s.glass_smudges):
            x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
            a, b = rng.uniform(0.03, 0.12) * w, rng.uniform(0.02, 0.08) * w
            t = rng.uniform(0, math.pi)
            frequency, strength = rng.uniform(0.9, 1.4), rng.uniform(0.12, 0.3)
            reach = 3 * a                          # beyond three half-lengths a smudge is nothing
            ys = slice(max(0, int(y0 - reach)), min(h, int(y0 + reach) + 1))
            xs = slice(max(0, int(x0 - reach)), min(w, int(x0 + reach) + 1))
            ex, ey = x[ys, xs] - x0, y[ys, xs] - y0
            u, v = ex * math.cos(t) + ey * math.sin(t), -ex * math.sin(t) + ey * math.cos(t)
            blob = np.exp(-((u / a) ** 2 + (v / b) ** 2))
            ridges = 0.6 + 0.4 * np.sin(np.hypot(u, v * 1.3) * frequency)
            haze[ys, xs] += strength * blob * ridges
        haze = np.clip(haze, 0, 0.5)[..., None]
        out = out * (1 - haze) + haze * (0.5 * out + 0.5 * 225)
    return out


class Warp:
    """Where each output pixel takes its colour: the lens's radial
    distortion (k1 at the corner; < 0 barrel) and the glass's refraction
    (a smooth field of a few pixels, and a pane's edge). ``apply`` moves a
    picture and its mask; ``points`` carries projected points (a pinhole's
    pixels) to where the picture shows them."""

    def __init__(self, height: int, width: int, k1: float, refraction_px: float, seed: int):
        self.h, self.w, self.k1, self.refraction_px = height, width, k1, refraction_px
        rng = np.random.default_rng([seed, 3])
        self.waves = [(rng.uniform(0.004, 0.02), rng.uniform(0.004, 0.02), rng.uniform(0, 2 * math.pi),
                       rng.uniform(0, 2 * math.pi)) for _ in range(3)]
        self.seam = (rng.uniform(0.15, 0.85) * width, rng.uniform(-0.3, 0.3), rng.uniform(4, 10))
        self.identity = k1 == 0 and refraction_px == 0

    def source(self, x, y):
        """The pinhole pixel an output pixel (x, y) shows."""
        cx, cy = (self.w - 1) / 2, (self.h - 1) / 2
        radius = math.hypot(cx, cy)
        dx, dy = x - cx, y - cy
        grow = 1 - self.k1 * (dx * dx + dy * dy) / (radius * radius)
        qx, qy = cx + dx * grow, cy + dy * grow
        if self.refraction_px:
            a = self.refraction_px / len(self.waves)
            ox = sum(np.sin(fx * qx + fy * qy + p) for fx, fy, p, _ in self.waves) * a
            oy = sum(np.sin(fy * qx - fx * qy + p) for fx, fy, _, p in self.waves) * a
            x0, slope, width = self.seam
            across = qx - (x0 + slope * qy)
            near = np.clip(1 - np.abs(across) / width, 0, 1)
            ox = ox + 2.0 * self.refraction_px * near * np.sign(across)
            qx, qy = qx + ox, qy + oy
        return qx, qy

    def apply(self, rgb: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.identity:
            return rgb, mask
        y, x = _grid(self.h, self.w)
        qx, qy = self.source(x, y)
        # bilinear, the three channels in one gather; the mask by the nearest pixel (-1 outside:
        # a pixel the lens brings from beyond the rendered picture shows no object's pixel)
        outside = (qx < -0.5) | (qx > self.w - 0.5) | (qy < -0.5) | (qy > self.h - 0.5)
        qx = np.clip(qx, 0, self.w - 1.001)
        qy = np.clip(qy, 0, self.h - 1.001)
        x0, y0 = qx.astype(np.int32), qy.astype(np.int32)
        fx, fy = (qx - x0)[..., None], (qy - y0)[..., None]
        flat = rgb.reshape(-1, 3)
        at = y0 * self.w + x0
        top = flat[at] * (1 - fx) + flat[at + 1] * fx
        bottom = flat[at + self.w] * (1 - fx) + flat[at + self.w + 1] * fx
        out = top * (1 - fy) + bottom * fy
        nearest = np.rint(qy).astype(np.int32) * self.w + np.rint(qx).astype(np.int32)
        return out, np.where(outside, -1, mask.reshape(-1)[nearest])

    def points(self, pixels) -> np.ndarray:
        target = np.asarray(pixels, float).reshape(-1, 2)
        if self.identity:
            return target
        # the radial inverse to first order, then refined where the picture is (far outside
        # it, a moving die near the lens, the iteration would not converge: the first order stands)
        cx, cy = (self.w - 1) / 2, (self.h - 1) / 2
        r2 = ((target[:, 0] - cx) ** 2 + (target[:, 1] - cy) ** 2) / (cx * cx + cy * cy)
        p = np.stack([cx, cy]) + (target - np.stack([cx, cy])) / (1 - self.k1 * r2)[:, None]
        near = r2 < 2.25
        for _ in range(8):
            qx, qy = self.source(p[near, 0], p[near, 1])
            p[near] += target[near] - np.stack([qx, qy], -1)
        return p


def vignette(rgb: np.ndarray, amount: float) -> np.ndarray:
    h, w = rgb.shape[:2]
    return rgb * (1 - amount * _corner_falloff(h, w))[..., None]


def studio_picture(rgb: np.ndarray, mask: np.ndarray, v: Variation, felt: list[int], dice: list[int],
                   glassed: bool) -> tuple[np.ndarray, np.ndarray, Warp | None, dict | None]:
    """The studio's effects on a rendered frame (``v.studio``): the picture
    (uint8), the mask as the picture now shows it, the ``Warp`` for the
    labels' points, and the occluder's label (or None)."""
    s = v.studio
    if s is None:
        return rgb, mask, None, None
    out = rgb.astype(np.float32)
    if s.felt_texture > 0:
        out = textured(out, mask, {body: s.felt_texture for body in felt}, s.felt_offset)
    if dice and s.translucency > 0 and v.dice_set is not None:
        out = translucent(out, mask, dice, v.felt_rgb, v.dice_set.body, s.translucency)
    occluder = None
    if s.occluder is not None:
        sizes = [int((mask == body).sum()) for body in dice]
        die_px = math.sqrt(max(sizes)) if sizes and max(sizes) > 0 else None
        out, mask, occluder = occlude(out, mask, s, die_px)
    out = lit(out, s)
    if glassed:
        out = glass(out, s)
    warp = Warp(rgb.shape[0], rgb.shape[1], s.distortion, s.glass_refraction_px if glassed else 0.0, s.seed)
    out, mask = warp.apply(out, mask)
    if s.vignetting > 0:
        out = vignette(out, s.vignetting)
    return np.clip(out, 0, 255).round().astype(np.uint8), mask, warp, occluder
