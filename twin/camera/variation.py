"""What changes from frame to frame that a recogniser must survive, drawn
from a seed, within the ranges a **variation file** states.

A variation file (YAML, ``twin/camera/variations/NAME.yaml`` for the shipped
ones, or a lab's own path) gives each factor's range: the light (direction,
colour, ambient, glare, shadows), a show's coloured lights and strobes, the
camera's jitter and zoom, the lens (blur, distortion, vignetting), the
sensor's noise, the encoding (JPEG quality, a video codec's blockiness), the
felt (colours, brightness, weave), the dice sets (body, pips, the single
pip of face 1, translucency), the tower's glass in front of the tray
(reflection, refraction, smudges), the dealer's hand or scraper, the
shutter for dice still moving, and the scene around the tray or wheel (the
table, the wheel's ball track and deflectors). A factor a file leaves out is
off. ``load_level`` reads one (``DesignError`` naming the file and field);
``LEVELS`` holds the shipped ones: ``none`` (a clean studio), ``default`` (a
working studio), ``studio`` (a show studio: glass, translucent dice, show
lights, the dealer's hand, lens and codec) and ``hard`` (all of it, wider).

Every draw comes from ``numpy.random.default_rng([seed, 31])`` (the
factors of ``none`` and ``default``) and ``default_rng([seed, 37])`` (the
studio's factors, drawn only when the file has any): the same seed and file
give the same frame, byte for byte.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

from tablebench_io.fields import Fields
from tablebench_io.yamlfile import read_yaml
from twin.errors import DesignError

SHIPPED = Path(__file__).resolve().parent / "variations"
OCCLUDERS = ("hand", "scraper")
RGB = tuple[int, int, int]


@dataclass(frozen=True)
class DiceSet:
    body: RGB
    pips: RGB
    one: RGB                      # the single pip of face 1 (red on many casino dice)
    translucency: float = 0.0     # 0 opaque .. 0.8: how much of the light goes through the body


@dataclass(frozen=True)
class Level:
    """How far each thing may vary: spans (low, high), maxima, chances."""
    name: str
    light_tilt_deg: float         # the light's direction from straight above, at most
    ambient: tuple[float, float]
    diffuse: tuple[float, float]
    specular: tuple[float, float]
    warmth: float                 # light colour: blue and green channels down by up to this
    shadows: float                # the chance the light casts shadows
    jitter_m: float               # the camera's position and aim, each axis, at most
    fov_share: float              # the zoom, relative, at most
    felts: dict[str, RGB]
    shade: float                  # felt brightness, relative, at most
    dice: dict[str, DiceSet]
    blur_px: tuple[float, float]  # Gaussian blur radius
    noise: tuple[float, float]    # sensor noise, standard deviation in 8-bit levels
    jpeg: tuple[int, int] | None  # JPEG quality (None: PNG, lossless)
    # the studio's factors (zero: off)
    felt_texture: tuple[float, float] = (0.0, 0.0)      # the weave's contrast, relative
    surround: bool = False                              # the table and tower base beyond the tray or wheel
    wheel_dressing: bool = False                        # the wheel's ball track, deflectors and turret
    show_light: float = 0.0                             # the chance of a coloured show light on the table
    show_strength: tuple[float, float] = (0.0, 0.0)
    strobe: float = 0.0                                 # the chance a strobe fires during the exposure
    glass_reflection: tuple[float, float] = (0.0, 0.0)  # a light's and the tray's reflection in the glass
    glass_refraction_px: tuple[float, float] = (0.0, 0.0)
    glass_smudges: tuple[int, int] = (0, 0)
    occluder: float = 0.0                               # the chance of a dealer's hand or scraper in view
    occluder_kinds: tuple[str, ...] = OCCLUDERS
    distortion: tuple[float, float] = (0.0, 0.0)        # radial k1 at the image's corner (<0: barrel)
    vignetting: tuple[float, float] = (0.0, 0.0)        # light lost at the corners, relative
    blockiness: tuple[float, float] = (0.0, 0.0)        # a codec's flattening of 8 x 8 blocks
    shutter_s: tuple[float, float] = (0.0, 0.0)         # exposure of a frame of moving dice (motion blur)
    source: str = field(default="", compare=False)

    @property
    def studio(self) -> bool:
        """Whether any of the studio's factors is on."""
        return any((self.felt_texture[1], self.surround, self.wheel_dressing, self.show_light, self.strobe,
                    self.glass_reflection[1], self.glass_refraction_px[1], self.glass_smudges[1], self.occluder,
                    self.distortion[0], self.distortion[1], self.vignetting[1], self.blockiness[1],
                    self.shutter_s[1], any(d.translucency for d in self.dice.values())))


def _rgb(f: Fields, key: str) -> RGB:
    value = f.raw(key)
    if not isinstance(value, list) or len(value) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in value):
        raise f.error(key, f"must be three whole numbers [r, g, b] from 0 to 255, got {value!r:.100}")
    return (value[0], value[1], value[2])


def _chance(f: Fields, key: str) -> float:
    return f.number(key, 0.0, low=0.0, high=1.0)


def _span(f: Fields, key: str, low: float, high: float) -> tuple[float, float]:
    return f.span(key, [0.0, 0.0], low=low, high=high)


def level_from_mapping(data: Any, file: str, name: str) -> Level:
    """A level from a variation file's fields (``load_level``)."""
    top = Fields(data, "", file, error=DesignError)
    name = top.text("name", name) or name
    top.integer("schema", 1, low=1, high=1)

    def section(key: str) -> Fields:
        return top.sub(key, {})

    light = section("light")
    values: dict[str, Any] = dict(
        light_tilt_deg=light.number("tilt_deg", 0.0, low=0.0, high=80.0),
        ambient=light.span("ambient", [0.55, 0.55], low=0.0, high=1.0),
        diffuse=light.span("diffuse", [0.55, 0.55], low=0.0, high=1.0),
        specular=_span(light, "specular", 0.0, 1.0),
        warmth=light.number("warmth", 0.0, low=0.0, high=0.6), shadows=_chance(light, "shadows"))
    light.done()
    show = section("show_light")
    values.update(show_light=_chance(show, "chance"), show_strength=_span(show, "strength", 0.0, 0.8),
                  strobe=_chance(show, "strobe"))
    show.done()
    camera = section("camera")
    values.update(jitter_m=camera.number("jitter_m", 0.0, low=0.0, high=0.05),
                  fov_share=camera.number("zoom", 0.0, low=0.0, high=0.2))
    camera.done()
    lens = section("lens")
    values.update(blur_px=_span(lens, "blur_px", 0.0, 6.0), distortion=_span(lens, "distortion", -0.3, 0.3),
                  vignetting=_span(lens, "vignetting", 0.0, 0.8))
    lens.done()
    sensor = section("sensor")
    values.update(noise=_span(sensor, "noise", 0.0, 30.0))
    sensor.done()
    encoding = section("encoding")
    quality = encoding.raw("jpeg_quality", None)
    if quality is not None:
        low, high = encoding.span("jpeg_quality", low=5, high=100)
        if low != int(low) or high != int(high):
            raise encoding.error("jpeg_quality", f"must be whole numbers, got {quality!r}")
        quality = (int(low), int(high))
    values.update(jpeg=quality, blockiness=_span(encoding, "blockiness", 0.0, 1.0))
    encoding.done()
    felt = section("felt")
    colours = felt.sub("colours", {"green": [28, 105, 58]})
    felts = {str(k): _rgb(colours, k) for k in list(colours.data)}
    if not felts:
        raise felt.error("colours", "must name at least one felt")
    values.update(felts=felts, shade=felt.number("brightness", 0.0, low=0.0, high=0.6),
                  felt_texture=_span(felt, "texture", 0.0, 0.5))
    felt.done()
    dice = section("dice")
    sets = dice.sub("sets", {"white": {"body": [236, 234, 228], "pips": [20, 20, 20], "one": [190, 20, 30]}})
    values["dice"] = {}
    for key in list(sets.data):
        one = sets.sub(key)
        values["dice"][str(key)] = DiceSet(_rgb(one, "body"), _rgb(one, "pips"),
                                           _rgb(one, "one") if one.has("one") else _rgb(one, "pips"),
                                           one.number("translucency", 0.0, low=0.0, high=0.8))
        one.done()
    if not values["dice"]:
        raise dice.error("sets", "must name at least one set of dice")
    dice.done()
    glass = section("glass")
    smudges = _span(glass, "smudges", 0, 20)
    values.update(glass_reflection=_span(glass, "reflection", 0.0, 0.6),
                  glass_refraction_px=_span(glass, "refraction_px", 0.0, 6.0),
                  glass_smudges=(int(smudges[0]), int(smudges[1])))
    glass.done()
    dealer = section("dealer")
    kinds = dealer.raw("kinds", list(OCCLUDERS))
    if not isinstance(kinds, list) or not kinds or not all(k in OCCLUDERS for k in kinds):
        raise dealer.error("kinds", f"must be a list of {', '.join(OCCLUDERS)}, got {kinds!r:.100}")
    values.update(occluder=_chance(dealer, "chance"), occluder_kinds=tuple(kinds))
    dealer.done()
    moving = section("moving")
    values.update(shutter_s=_span(moving, "shutter_s", 0.0, 0.1))
    moving.done()
    scene = section("scene")
    for key in ("surround", "wheel_dressing"):
        flag = scene.raw(key, False)
        if not isinstance(flag, bool):
            raise scene.error(key, f"must be true or false, got {flag!r:.100}")
        values[key] = flag
    scene.done()
    top.done()
    return Level(name=name, source=file, **values)


def load_level(given: "str | Path | Level") -> Level:
    """A variation level: a shipped one by name (``default``), or a variation
    file (YAML). A bad file raises ``DesignError`` as ``FILE: FIELD: MESSAGE``."""
    if isinstance(given, Level):
        return given
    text = str(given)
    shipped = SHIPPED / f"{text}.yaml"
    if "/" not in text and not text.endswith((".yaml", ".yml")) and shipped.is_file():
        path = shipped
    else:
        path = Path(text)
        if not path.is_file():
            raise DesignError(f"no such variation file, nor a shipped level ({', '.join(shipped_names())})",
                              file=text)
    return level_from_mapping(read_yaml(path, error=DesignError), str(path), path.stem)


def shipped_names() -> list[str]:
    return sorted(p.stem for p in SHIPPED.glob("*.yaml"))


LEVELS: dict[str, Level] = {name: load_level(name) for name in shipped_names()}


@dataclass(frozen=True)
class StudioDraw:
    """One frame's draw of the studio's factors (``Level.studio``)."""
    felt_texture: float
    felt_offset: tuple[int, int]
    translucency: float
    show_light: tuple[float, float, float, float, float, float] | None   # x, y (share), radius share, r, g, b
    show_strength: float
    strobe: tuple[float, float, float] | None    # gain, band start and end (share of the rows)
    glass_reflection: float
    reflection_place: tuple[float, float, float]  # x, y (share), angle (rad) of the light's window
    glass_refraction_px: float
    glass_smudges: int
    occluder: str | None
    occluder_place: tuple[float, float, float, float]   # edge (0..4), along (share), reach (share), turn
    distortion: float
    vignetting: float
    blockiness: float
    shutter_s: float
    seed: int


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
    dice_set: DiceSet | None = None
    studio: StudioDraw | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("dice_set")
        if d["studio"] is None:
            d.pop("studio")          # the levels without studio factors label as they always did
        return _rounded(d)

    @property
    def dice_colours(self) -> tuple[RGB, RGB, RGB]:
        s = self.dice_set
        assert s is not None
        return s.body, s.pips, s.one

    @property
    def extension(self) -> str:
        return "png" if self.jpeg_quality is None else "jpg"


def _rounded(value):
    if isinstance(value, float):
        return round(value, 5)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _pick(rng: np.random.Generator, names: list[str]) -> str:
    # One name: no draw, so that a level of one felt draws as the old "no palette" did.
    return names[int(rng.integers(len(names)))] if len(names) > 1 else names[0]


def draw(level: "str | Level", seed: int) -> Variation:
    """The variation of the frame of ``seed`` at ``level`` (a name of ``LEVELS``, a file, or a ``Level``)."""
    lv = LEVELS[level] if isinstance(level, str) and level in LEVELS else load_level(level)
    rng = np.random.default_rng([int(seed), 31])
    tilt = math.radians(lv.light_tilt_deg) * math.sqrt(rng.uniform())   # even over the cap of directions
    azimuth = rng.uniform(0, 2 * math.pi)
    direction = (math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), math.cos(tilt))
    warm = rng.uniform(0, lv.warmth)
    colour = (1.0, 1.0 - warm / 2, 1.0 - warm)
    ambient, diffuse, specular = (rng.uniform(*lv.ambient), rng.uniform(*lv.diffuse), rng.uniform(*lv.specular))
    shadows = bool(rng.uniform() < lv.shadows)
    camera_shift = tuple(rng.uniform(-lv.jitter_m, lv.jitter_m, 3))
    target_shift = tuple(rng.uniform(-lv.jitter_m, lv.jitter_m, 3))
    fov_scale = 1.0 + rng.uniform(-lv.fov_share, lv.fov_share)
    felt = _pick(rng, sorted(lv.felts))
    shade = 1.0 + rng.uniform(-lv.shade, lv.shade)
    felt_rgb = tuple(int(min(255, round(c * shade))) for c in lv.felts[felt])
    die = _pick(rng, sorted(lv.dice))
    blur = rng.uniform(*lv.blur_px)
    noise = rng.uniform(*lv.noise)
    noise_seed = int(rng.integers(2**31))
    quality = int(rng.integers(lv.jpeg[0], lv.jpeg[1] + 1)) if lv.jpeg else None
    studio = _draw_studio(lv, seed, lv.dice[die]) if lv.studio else None
    return Variation(lv.name, direction, colour, ambient, diffuse, specular, shadows, camera_shift,
                     target_shift, fov_scale, felt, felt_rgb, die, blur, noise, noise_seed, quality,  # type: ignore[arg-type]
                     lv.dice[die], studio)


SHOW_COLOURS = ((0.95, 0.25, 0.85), (0.25, 0.55, 1.0), (1.0, 0.65, 0.2), (0.35, 1.0, 0.85), (1.0, 0.3, 0.3))


def _draw_studio(lv: Level, seed: int, dice: DiceSet) -> StudioDraw:
    rng = np.random.default_rng([int(seed), 37])
    u = rng.uniform
    show = None
    if u() < lv.show_light:
        r, g, b = SHOW_COLOURS[int(rng.integers(len(SHOW_COLOURS)))]
        show = (u(0.1, 0.9), u(0.1, 0.9), u(0.35, 0.8), r, g, b)
    strength = u(*lv.show_strength)
    strobe = None
    if u() < lv.strobe:
        start = u(-0.3, 0.8)
        strobe = (u(1.25, 1.7), start, start + u(0.25, 0.9))      # a rolling shutter: a band of rows lit
    reflection, place = u(*lv.glass_reflection), (u(0.1, 0.9), u(0.1, 0.9), u(0, math.pi))
    refraction = u(*lv.glass_refraction_px)
    smudges = int(rng.integers(lv.glass_smudges[0], lv.glass_smudges[1] + 1))
    occluder = lv.occluder_kinds[int(rng.integers(len(lv.occluder_kinds)))] if u() < lv.occluder else None
    occluder_place = (float(rng.integers(4)), u(0.15, 0.85), u(0.15, 0.45), u(-0.5, 0.5))
    return StudioDraw(u(*lv.felt_texture), (int(rng.integers(512)), int(rng.integers(512))), dice.translucency,
                      show, strength, strobe, reflection, place, refraction, smudges, occluder, occluder_place,
                      u(*lv.distortion), u(*lv.vignetting), u(*lv.blockiness), u(*lv.shutter_s),
                      int(rng.integers(2**31)))


def blocky(rgb: np.ndarray, amount: float, block: int = 8) -> np.ndarray:
    """A video codec's loss: where an 8 x 8 block is smooth, it is flattened
    towards its mean (the DC term kept, the rest quantised away)."""
    h, w = (rgb.shape[0] // block) * block, (rgb.shape[1] // block) * block
    part = rgb[:h, :w].astype(np.float32).reshape(h // block, block, w // block, block, 3)
    mean = part.mean(axis=(1, 3), keepdims=True)
    luma = part.mean(axis=-1, keepdims=True)
    spread = np.abs(luma - luma.mean(axis=(1, 3), keepdims=True)).mean(axis=(1, 3), keepdims=True) * 1.25
    weight = amount * np.clip(1.3 - spread / 14, 0, 1)
    flat = part * (1 - weight) + mean * weight
    out = rgb.copy()
    out[:h, :w] = np.clip(flat.reshape(h, w, 3), 0, 255).round().astype(np.uint8)
    return out


def finish(rgb: np.ndarray, variation: Variation) -> bytes:
    """The rendered picture as the camera delivers it: blurred by the lens,
    with the sensor's noise, a codec's blocks, encoded (JPEG at the drawn
    quality, or PNG)."""
    image = Image.fromarray(rgb, "RGB")
    if variation.blur_px > 0.05:
        image = image.filter(ImageFilter.GaussianBlur(variation.blur_px))
    if variation.noise > 0:
        # In place, in the draw's own array: the same sums, clip and rounding
        # (rint is round-half-even, as round is) without three more
        # 921,600-float temporaries (18.4 -> 13.8 ms a frame, the same bytes).
        noisy = np.random.default_rng(variation.noise_seed).normal(0, variation.noise, rgb.shape)
        noisy += np.asarray(image)
        np.clip(noisy, 0, 255, out=noisy)
        np.rint(noisy, out=noisy)
        image = Image.fromarray(noisy.astype(np.uint8), "RGB")
    if variation.studio is not None and variation.studio.blockiness > 0:
        image = Image.fromarray(blocky(np.asarray(image), variation.studio.blockiness), "RGB")
    out = io.BytesIO()
    if variation.jpeg_quality is None:
        image.save(out, format="PNG", optimize=False)
    else:
        image.save(out, format="JPEG", quality=variation.jpeg_quality)
    return out.getvalue()

