"""The textures the camera sees, drawn with Pillow: a die's six faces with
their pips in one atlas, and the wheel's pocket ring with its numbers.

PyBullet's renderer takes a texture from a file, so each is written once
to a PNG in a scratch folder and loaded by path; the picture depends only
on its colours and geometry (the file name carries their digest).
"""

from __future__ import annotations

import hashlib
import math
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from twin.tower.picture import PIPS     # pip places on a face, in quarters of the edge from its centre

PIP_RADIUS = 0.09            # of the edge: a 25 mm die's pips are about 4.5 mm across
ATLAS_CELL = 128             # pixels a face; the atlas is 3 x 3 cells, the ninth cell plain (the rounded edges)
FACE_SHARE = 0.8             # the flat part of a face: the rest of the edge is its rounding

_SCRATCH: Path | None = None


def _scratch() -> Path:
    global _SCRATCH
    if _SCRATCH is None or not _SCRATCH.is_dir():
        _SCRATCH = Path(tempfile.mkdtemp(prefix="tablebench-textures-"))
    return _SCRATCH


def _saved(image: Image.Image, kind: str) -> str:
    digest = hashlib.sha256(image.tobytes()).hexdigest()[:16]
    path = _scratch() / f"{kind}-{digest}.png"
    if not path.exists():
        image.save(path)
    return str(path)


def atlas_cell(face: int) -> tuple[int, int]:
    """The (column, row) of ``face`` in the die atlas; (2, 2) is the plain cell."""
    return (face - 1) % 3, (face - 1) // 3


_ATLASES: dict[tuple, str] = {}     # die_atlas's arguments -> the file drawn for them in this process


def die_atlas(body: tuple[int, int, int], pips: tuple[int, int, int], one: tuple[int, int, int] | None = None,
              cell: int = ATLAS_CELL) -> str:
    """The six faces of a die in a 3 x 3 atlas (file path). A face's cell
    holds only its flat part (``FACE_SHARE`` of the edge), so pip places,
    at a quarter of the edge, sit at 0.25 / 0.8 of the cell's half width.
    ``one`` colours the single pip of face 1 (red on many casino dice).

    Drawn once a process for each set of colours: the scene asks for the
    atlas every frame, and drawing it was 24 ms of a 117 ms frame (issue 42);
    the file is the same bytes whenever it is drawn."""
    key = (tuple(body), tuple(pips), None if one is None else tuple(one), cell)
    known = _ATLASES.get(key)
    if known is not None and Path(known).exists():
        return known
    _ATLASES[key] = path = _draw_die_atlas(body, pips, one, cell)
    return path


def _draw_die_atlas(body: tuple[int, int, int], pips: tuple[int, int, int], one: tuple[int, int, int] | None,
                    cell: int) -> str:
    # Drawn four times larger and shrunk: smooth pip edges, as a lens sees them.
    big = cell * 4
    image = Image.new("RGB", (3 * big, 3 * big), body)
    draw = ImageDraw.Draw(image)
    scale = big / FACE_SHARE              # pixels per edge
    r = PIP_RADIUS * scale
    for face, places in PIPS.items():
        col, row = atlas_cell(face)
        cx, cy = (col + 0.5) * big, (row + 0.5) * big
        for u, v in places:
            x, y = cx + u * scale / 4, cy + v * scale / 4
            draw.ellipse([x - r, y - r, x + r, y + r], fill=one if face == 1 and one else pips)
    return _saved(image.resize((3 * cell, 3 * cell), Image.Resampling.LANCZOS), "die")


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:      # Pillow < 10.1 has one fixed size
        return ImageFont.load_default()


def pocket_ring(numbers: tuple[int, ...], reds: frozenset[int], inner_share: float, size: int = 1024,
                colours: dict[str, tuple[int, int, int]] | None = None) -> str:
    """The rotor seen from above as a square texture (file path): the pocket
    ring between ``inner_share`` of the radius and 0.86 of it, each pocket red,
    black or green, the number ring outside it with each number upright
    towards the centre. Pocket k (of ``numbers``, clockwise) is centred on
    the texture's angle -k x 360/37 degrees from +u (the rotor's frame)."""
    c = colours or {}
    red, black, green = c.get("red", (180, 20, 30)), c.get("black", (25, 25, 25)), c.get("green", (0, 120, 50))
    wood, number_ring, fret = c.get("wood", (120, 72, 36)), c.get("ring", (40, 30, 25)), c.get("fret", (200, 190, 160))
    big = size * 2
    image = Image.new("RGB", (big, big), wood)
    draw = ImageDraw.Draw(image)
    centre, radius = big / 2, big / 2
    pocket_outer, text_outer = 0.86 * radius, 0.995 * radius
    pitch = 360 / len(numbers)
    draw.ellipse([centre - text_outer, centre - text_outer, centre + text_outer, centre + text_outer],
                 fill=number_ring)
    for k, number in enumerate(numbers):
        # Image angles run clockwise (y down): a rotor angle -k*pitch is +k*pitch here.
        start, end = k * pitch - pitch / 2, k * pitch + pitch / 2
        colour = green if number == 0 else red if number in reds else black
        draw.pieslice([centre - text_outer, centre - text_outer, centre + text_outer, centre + text_outer],
                      start, end, fill=colour)
        draw.pieslice([centre - pocket_outer, centre - pocket_outer, centre + pocket_outer, centre + pocket_outer],
                      start, end, fill=colour, outline=fret, width=max(2, big // 300))
    inner = inner_share * radius
    draw.ellipse([centre - inner, centre - inner, centre + inner, centre + inner], fill=wood)
    # The numbers: each drawn upright on its own tile, turned to face the centre, pasted on the ring.
    font = _font(max(10, int(big * 0.045)))
    text_r = (pocket_outer + text_outer) / 2
    for k, number in enumerate(numbers):
        tile = Image.new("RGBA", (int(big * 0.08), int(big * 0.08)), (0, 0, 0, 0))
        ImageDraw.Draw(tile).text((tile.width / 2, tile.height / 2), str(number), fill=(245, 240, 225),
                                  font=font, anchor="mm")
        angle = k * pitch                                     # clockwise in the image
        tile = tile.rotate(-angle - 90, resample=Image.Resampling.BICUBIC)  # its top towards the rim
        x = centre + text_r * math.cos(math.radians(angle)) - tile.width / 2
        y = centre + text_r * math.sin(math.radians(angle)) - tile.height / 2
        image.paste(tile, (int(round(x)), int(round(y))), tile)
    for k in range(len(numbers)):      # frets between the numbers too
        a = math.radians(k * pitch - pitch / 2)
        draw.line([(centre + pocket_outer * math.cos(a), centre + pocket_outer * math.sin(a)),
                   (centre + text_outer * math.cos(a), centre + text_outer * math.sin(a))],
                  fill=fret, width=max(2, big // 400))
    return _saved(image.resize((size, size), Image.Resampling.LANCZOS), "rotor")


def plain(colour: tuple[int, int, int]) -> str:
    """A one-colour texture (file path): PyBullet's renderer otherwise keeps a shape's last texture."""
    return _saved(Image.new("RGB", (8, 8), colour), "plain")
