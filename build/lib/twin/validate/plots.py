"""Charts for the validation report, drawn with Pillow (no plotting library:
the twin already draws its pictures with Pillow, and these charts are bars,
a rose and a grid). Each function returns a PIL image; expected values are
drawn as black ticks over the bars, a failing chart's bars are red."""

from __future__ import annotations

import math
from typing import Sequence

from PIL import Image, ImageDraw, ImageFont

BG, INK, GRID = (255, 255, 255), (30, 30, 30), (225, 225, 225)
OK, BAD, EXPECT, SHADE = (70, 120, 200), (205, 60, 50), (0, 0, 0), (255, 215, 200)


def _font(size: int = 12):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:     # Pillow < 10.1 has one fixed size
        return ImageFont.load_default()


def bars(values: Sequence[float], expected: Sequence[float] | float | None, labels: Sequence[str],
         title: str, failed: bool = False, size: tuple[int, int] = (560, 260),
         highlight: Sequence[int] = ()) -> Image.Image:
    """Bars with the expected value of each as a tick (and a band of +-2
    standard deviations of a count, for counts)."""
    w, h = size
    image = Image.new("RGB", size, BG)
    draw = ImageDraw.Draw(image)
    font, small = _font(13), _font(10)
    left, right, top, bottom = 44, 10, 26, 34
    draw.text((left, 6), title, fill=INK, font=font)
    n = len(values)
    exp = [expected] * n if isinstance(expected, (int, float)) else list(expected or [0] * n)
    high = max(list(values) + [e + 2 * math.sqrt(max(e, 0)) for e in exp] + [1e-9]) * 1.08
    y = lambda v: h - bottom - (h - top - bottom) * v / high     # noqa: E731 (a scale, read as one)
    for k in range(5):
        v = high * k / 4
        draw.line([(left, y(v)), (w - right, y(v))], fill=GRID)
        draw.text((2, y(v) - 6), f"{v:.0f}" if high >= 40 else f"{v:.1f}" if high >= 4 else f"{v:.2f}", fill=INK, font=small)
    slot = (w - left - right) / max(1, n)
    for i, v in enumerate(values):
        x0, x1 = left + i * slot + slot * 0.15, left + (i + 1) * slot - slot * 0.15
        colour = BAD if (failed and (not highlight or i in highlight)) else OK
        draw.rectangle([x0, y(v), x1, y(0)], fill=colour)
        e = exp[i]
        if expected is not None:
            band = 2 * math.sqrt(max(e, 0))
            draw.rectangle([x0 - 1, y(e + band), x1 + 1, y(max(0, e - band))], outline=(150, 150, 150))
            draw.line([(x0 - 3, y(e)), (x1 + 3, y(e))], fill=EXPECT, width=2)
        if n <= 40:
            label = labels[i]
            tw = draw.textlength(label, font=small)
            draw.text((left + (i + 0.5) * slot - tw / 2, h - bottom + 4), label, fill=INK, font=small)
    if expected is not None:
        draw.text((left, h - 14), "bars: observed   black tick: expected   grey box: expected +- 2 sd",
                  fill=(110, 110, 110), font=small)
    return image


def rose(angles_deg: Sequence[float], title: str, empty_from: float | None = None,
         empty_to: float | None = None, failed: bool = False, petals: int = 36, size: int = 360) -> Image.Image:
    """A rose of the leaving angles on the stator (counter-clockwise from +x,
    as in the physics; +x to the right). The circle is what a uniform wheel
    would give per petal; the widest empty arc is shaded."""
    image = Image.new("RGB", (size, size + 24), BG)
    draw = ImageDraw.Draw(image)
    draw.text((8, 4), title, fill=INK, font=_font(13))
    cx, cy, radius = size / 2, size / 2 + 24, size / 2 - 22
    counts = [0] * petals
    for a in angles_deg:
        counts[int((a % 360.0) // (360.0 / petals)) % petals] += 1
    expected = len(angles_deg) / petals
    top = max(counts + [expected * 1.5, 1e-9])
    # Areas, not radii, proportional to counts: a rose that does not lie.
    r_of = lambda c: radius * math.sqrt(c / top)     # noqa: E731
    if empty_from is not None and empty_to is not None:
        start, extent = empty_from, (empty_to - empty_from) % 360.0
        draw.pieslice([cx - radius, cy - radius, cx + radius, cy + radius], -(start + extent), -start, fill=SHADE)
    for k in (0.25, 0.5, 0.75, 1.0):
        rr = radius * math.sqrt(k)
        draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], outline=GRID)
    for i, c in enumerate(counts):
        a0, a1 = i * 360.0 / petals, (i + 1) * 360.0 / petals
        rr = r_of(c)
        if rr > 0:
            draw.pieslice([cx - rr, cy - rr, cx + rr, cy + rr], -a1, -a0, fill=BAD if failed else OK,
                          outline=BG)
    re = r_of(expected)
    draw.ellipse([cx - re, cy - re, cx + re, cy + re], outline=EXPECT, width=2)
    small = _font(10)
    for deg in (0, 90, 180, 270):
        x = cx + (radius + 10) * math.cos(math.radians(deg))
        y = cy - (radius + 10) * math.sin(math.radians(deg))
        draw.text((x - 8, y - 6), f"{deg}", fill=INK, font=small)
    return image


def grid(table: Sequence[Sequence[int]], title: str, row_label: str, col_label: str,
         failed: bool = False, cell: int = 40) -> Image.Image:
    """A contingency table as shaded cells (share of each row), numbers written in."""
    rows, cols = len(table), len(table[0])
    left, top = 40, 56
    image = Image.new("RGB", (left + cols * cell + 20, top + rows * cell + 30), BG)
    draw = ImageDraw.Draw(image)
    font, small = _font(13), _font(11)
    draw.text((8, 4), title, fill=INK, font=font)
    draw.text((left + cols * cell - 110, 24), f"columns: {col_label}", fill=INK, font=small)
    draw.text((4, top + rows * cell + 8), f"rows: {row_label}", fill=INK, font=small)
    base = BAD if failed else OK
    for i, row in enumerate(table):
        total = max(1, sum(row))
        draw.text((left - 16, top + i * cell + cell / 2 - 6), str(i + 1), fill=INK, font=small)
        for j, v in enumerate(row):
            share = v / total
            strength = min(1.0, share / 0.5)          # a share of 1/2 or more is full colour
            colour = tuple(int(255 - (255 - c) * strength) for c in base)
            x0, y0 = left + j * cell, top + i * cell
            draw.rectangle([x0, y0, x0 + cell - 2, y0 + cell - 2], fill=colour,
                           outline=EXPECT if i == j else GRID)
            draw.text((x0 + 4, y0 + cell / 2 - 6), str(v), fill=INK, font=small)
    for j in range(cols):
        draw.text((left + j * cell + cell / 2 - 3, top - 14), str(j + 1), fill=INK, font=small)
    return image


def rate(name: str, rate_value: float, low: float, high: float, ceiling: float, failed: bool,
         size: tuple[int, int] = (560, 90)) -> Image.Image:
    """A rate as a dot with its confidence interval, against the ceiling."""
    w, h = size
    image = Image.new("RGB", size, BG)
    draw = ImageDraw.Draw(image)
    small = _font(11)
    draw.text((10, 4), name, fill=INK, font=_font(13))
    scale_max = max(ceiling * 2, high * 1.2, 1e-6)
    left, right, y = 20, w - 20, 54
    x = lambda v: left + (right - left) * v / scale_max     # noqa: E731
    draw.line([(left, y), (right, y)], fill=GRID, width=2)
    for k in range(5):
        v = scale_max * k / 4
        draw.line([(x(v), y - 4), (x(v), y + 4)], fill=INK)
        draw.text((x(v) - 12, y + 8), f"{100 * v:.1f}%", fill=INK, font=small)
    draw.line([(x(ceiling), y - 18), (x(ceiling), y + 6)], fill=BAD, width=2)
    draw.text((x(ceiling) + 4, y - 24), "ceiling", fill=BAD, font=small)
    colour = BAD if failed else OK
    draw.line([(x(low), y), (x(high), y)], fill=colour, width=6)
    draw.ellipse([x(rate_value) - 5, y - 5, x(rate_value) + 5, y + 5], fill=EXPECT)
    return image


def histogram(values: Sequence[float], title: str, unit: str, bins: int = 30,
              size: tuple[int, int] = (560, 220)) -> Image.Image:
    if not values:
        return bars([0], None, ["-"], title + " (no data)", size=size)
    lo, hi = min(values), max(values)
    width = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / width))] += 1
    labels = [f"{lo + i * width:.2f}" if i % 5 == 0 else "" for i in range(bins)]
    image = bars(counts, None, labels, f"{title} ({unit}, {lo:.2f}-{hi:.2f})", size=size)
    return image
