"""What changes from frame to frame that a recogniser must survive, drawn
from a seed: the light (direction, colour, how much is ambient, glare), the
camera's jitter on its mount, the felt's and the dice's colours, the lens's
blur, the sensor's noise and the JPEG compression.

``LEVELS`` names three amounts: ``none`` (a clean studio), ``default`` (a
working studio: lights on dimmers and moved, a fixed camera whose mount a
door slam shakes by a millimetre, a change of felt and dice now and then, a
compressed stream) and
``hard`` (a tilted light, a loose mount and a drifting zoom, grey felt
that a die's shaded side nearly matches, more glare, heavier compression). Every draw
comes from ``numpy.random.default_rng([seed, 31])``: the same seed and
level give the same frame, byte for byte.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass

import numpy as np
from PIL import Image, ImageFilter

# Felt a studio lays (RGB), and dice sets: (body, pips, the single pip of face 1).
FELTS = {"green": (28, 105, 58), "blue": (24, 64, 120), "red": (120, 24, 32), "teal": (18, 96, 100)}
GREY_FELT = {"grey": (70, 74, 78)}      # close to a die's side in shade: only the hard level lays it
DICE = {"white": ((236, 234, 228), (20, 20, 20), (190, 20, 30)),
        "ivory": ((232, 220, 190), (30, 25, 20), (30, 25, 20)),
        "yellow": ((236, 200, 60), (20, 20, 20), (20, 20, 20)),
        "pink": ((240, 190, 200), (30, 20, 30), (30, 20, 30))}


@dataclass(frozen=True)
class Level:
    """How far each thing may vary (each a half spread about its middle, or a maximum)."""
    light_tilt_deg: float         # the light's direction from straight above, at most
    ambient: tuple[float, float]
    diffuse: tuple[float, float]
    specular: tuple[float, float]
    warmth: float                 # light colour: blue and green channels down by up to this
    jitter_m: float               # the camera's position and aim, each axis, at most
    fov_share: float              # the zoom, relative, at most
    palette: bool                 # felt and dice drawn from the palettes (else green felt, white dice)
    grey_felt: bool               # grey felt among them
    shade: float                  # felt brightness, relative, at most
    blur_px: tuple[float, float]  # Gaussian blur radius
    noise: tuple[float, float]    # sensor noise, standard deviation in 8-bit levels
    jpeg: tuple[int, int] | None  # JPEG quality (None: PNG, lossless)
    shadows: float                # the chance the light casts shadows


LEVELS = {
    "none": Level(0.0, (0.55, 0.55), (0.55, 0.55), (0.0, 0.0), 0.0, 0.0, 0.0, False, False, 0.0, (0.0, 0.0),
                  (0.0, 0.0), None, 0.0),
    "default": Level(35.0, (0.4, 0.65), (0.4, 0.65), (0.0, 0.25), 0.12, 0.001, 0.005, True, False, 0.15,
                     (0.0, 1.0), (0.0, 3.0), (70, 95), 0.5),
    "hard": Level(60.0, (0.3, 0.75), (0.3, 0.75), (0.1, 0.6), 0.25, 0.004, 0.03, True, True, 0.3,
                  (0.5, 1.8), (2.0, 6.0), (45, 80), 0.8),
}


@dataclass(frozen=True)
class Variation:
    """One frame's draw."""
    level: str
    light_direction: tuple[float, float, float]
    light_colour: tuple[float, float, float]
    ambient: float
    diffuse: float
    specular: float
    shadows: bool
    camera_shift_m: tuple[float, float, float]
    target_shift_m: tuple[float, float, float]
    fov_scale: float
    felt: str
    felt_rgb: tuple[int, int, int]
    dice: str
    blur_px: float
    noise: float
    noise_seed: int
    jpeg_quality: int | None

    def to_dict(self) -> dict:
        d = asdict(self)
        for key, value in d.items():
            if isinstance(value, float):
                d[key] = round(value, 5)
            elif isinstance(value, (list, tuple)) and value and isinstance(value[0], float):
                d[key] = [round(v, 5) for v in value]
        return d

    @property
    def dice_colours(self) -> tuple[tuple[int, int, int], ...]:
        return DICE[self.dice]

    @property
    def extension(self) -> str:
        return "png" if self.jpeg_quality is None else "jpg"


def draw(level_name: str, seed: int) -> Variation:
    """The variation of the frame of ``seed`` at ``level_name`` (a key of ``LEVELS``)."""
    level = LEVELS[level_name]
    rng = np.random.default_rng([int(seed), 31])
    tilt = math.radians(level.light_tilt_deg) * math.sqrt(rng.uniform())   # even over the cap of directions
    azimuth = rng.uniform(0, 2 * math.pi)
    direction = (math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), math.cos(tilt))
    warm = rng.uniform(0, level.warmth)
    colour = (1.0, 1.0 - warm / 2, 1.0 - warm)
    ambient, diffuse, specular = (rng.uniform(*level.ambient), rng.uniform(*level.diffuse),
                                  rng.uniform(*level.specular))
    shadows = bool(rng.uniform() < level.shadows)
    camera_shift = tuple(rng.uniform(-level.jitter_m, level.jitter_m, 3))
    target_shift = tuple(rng.uniform(-level.jitter_m, level.jitter_m, 3))
    fov_scale = 1.0 + rng.uniform(-level.fov_share, level.fov_share)
    laid = FELTS | (GREY_FELT if level.grey_felt else {})
    felts, dice = sorted(laid), sorted(DICE)
    felt = felts[rng.integers(len(felts))] if level.palette else "green"
    shade = 1.0 + rng.uniform(-level.shade, level.shade)
    felt_rgb = tuple(int(min(255, round(c * shade))) for c in laid[felt])
    die = dice[rng.integers(len(dice))] if level.palette else "white"
    blur = rng.uniform(*level.blur_px)
    noise = rng.uniform(*level.noise)
    noise_seed = int(rng.integers(2**31))
    quality = int(rng.integers(level.jpeg[0], level.jpeg[1] + 1)) if level.jpeg else None
    return Variation(level_name, direction, colour, ambient, diffuse, specular, shadows, camera_shift,
                     target_shift, fov_scale, felt, felt_rgb, die, blur, noise, noise_seed, quality)


def finish(rgb: np.ndarray, variation: Variation) -> bytes:
    """The rendered picture as the camera delivers it: blurred by the lens,
    with the sensor's noise, encoded (JPEG at the drawn quality, or PNG)."""
    image = Image.fromarray(rgb, "RGB")
    if variation.blur_px > 0.05:
        image = image.filter(ImageFilter.GaussianBlur(variation.blur_px))
    if variation.noise > 0:
        noise = np.random.default_rng(variation.noise_seed).normal(0, variation.noise, rgb.shape)
        image = Image.fromarray(np.clip(np.asarray(image, float) + noise, 0, 255).round().astype(np.uint8), "RGB")
    out = io.BytesIO()
    if variation.jpeg_quality is None:
        image.save(out, format="PNG", optimize=False)
    else:
        image.save(out, format="JPEG", quality=variation.jpeg_quality)
    return out.getvalue()
