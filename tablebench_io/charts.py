"""Charts for the reports, drawn with matplotlib and returned as SVG text.

matplotlib rather than Pillow primitives: axis titles with units, ticks at
round numbers, legends built from what is actually drawn, polar axes for a
rose of angles. No pyplot: each chart is its own ``Figure`` (no global state,
safe in any thread, no display needed); SVG keeps text as text, so a chart
stays sharp when printed and is small. The output is deterministic (no date,
fixed ids), so the same data gives the same bytes.

Colours: observed data blue, or red when the check it shows fails; expected
values black; bands of what chance allows grey.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import matplotlib
from matplotlib.artist import Artist
from matplotlib.container import Container
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.projections.polar import PolarAxes
from matplotlib.ticker import FuncFormatter, MaxNLocator

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

OK, BAD, EXPECT, BAND, SHADE = "#3f6fb5", "#c8392f", "#111111", "#d0d0d0", "#f6d3c6"
_RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "svg.hashsalt": "tablebench", "font.size": 9.5,
                             "axes.titlesize": 10.5, "axes.labelsize": 9.5, "legend.fontsize": 8.5,
                             "font.family": "DejaVu Sans"}


def _figure(width_in: float, height_in: float, **kwargs) -> Figure:
    with matplotlib.rc_context(_RC):
        return Figure(figsize=(width_in, height_in), layout="constrained", **kwargs)


def svg_of(fig: Figure) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


def _count_axis(ax, label: str) -> None:
    ax.set_ylabel(label)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, steps=[1, 2, 2.5, 5, 10]))
    ax.grid(axis="y", color="#e4e4e4", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)


def counts_against_expected(observed: Sequence[int], expected: Sequence[float] | float | None,
                            labels: Sequence[str], *, title: str, xlabel: str, ylabel: str,
                            failed: bool = False, width_in: float = 6.4, height_in: float = 2.9,
                            label_every: int = 1) -> str:
    """Bars of observed counts; each bar's expected count as a black tick and,
    behind the bars, the band of +-2 standard deviations a fair process allows
    (binomial), so a bar outside its band stands out."""
    fig = _figure(width_in, height_in)
    handles = _bars_on(fig.add_subplot(), observed, expected, labels, title, xlabel, ylabel, failed, label_every)
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), framealpha=0.92)
    return svg_of(fig)


def _bars_on(ax, observed, expected, labels, title, xlabel, ylabel, failed, label_every=1):
    n = len(observed)
    total = sum(observed)
    xs = list(range(n))
    handles = []
    if expected is not None:
        exp = [float(expected)] * n if isinstance(expected, (int, float)) else [float(e) for e in expected]
        sd = [math.sqrt(max(e * (1 - e / total), 0.0)) if total else 0.0 for e in exp]
        ax.bar(xs, [4 * s for s in sd], bottom=[e - 2 * s for e, s in zip(exp, sd)], width=0.86, color=BAND,
               zorder=1, linewidth=0)
        handles.append(Patch(color=BAND, label="fair: expected ± 2 sd"))
    bars = ax.bar(xs, observed, width=0.56, color=BAD if failed else OK, zorder=2, label="observed")
    handles.insert(0, bars)
    if expected is not None:
        line = ax.hlines(exp, [x - 0.43 for x in xs], [x + 0.43 for x in xs], colors=EXPECT, linewidth=1.6, zorder=3,
                         label="expected")
        handles.insert(1, line)
    ax.set_xticks(xs, [lab if i % label_every == 0 else "" for i, lab in enumerate(labels)])
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel(xlabel)
    _count_axis(ax, ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title, loc="left")
    return handles


def counts_small_multiples(panels: Sequence[tuple[str, Sequence[int], float, bool]], labels: Sequence[str], *,
                           xlabel: str, ylabel: str, width_in: float = 7.6, height_in: float = 2.6) -> str:
    """Several count charts side by side on one y scale (e.g. the three dice):
    each panel (title, observed, expected, failed)."""
    fig = _figure(width_in, height_in)
    # squeeze=False: one panel (a design with one die) is a row of one, not a bare Axes.
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    handles = None
    for k, (ax, (title, observed, expected, failed)) in enumerate(zip(axes, panels)):
        handles = _bars_on(ax, observed, expected, labels, title, xlabel, ylabel if k == 0 else "", failed)
    if handles is None:
        # Not reached today: fig.subplots refuses a figure of no panels first.
        raise ValueError("counts_small_multiples needs at least one panel")
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), framealpha=0.92)
    return svg_of(fig)


def share_grid(table: Sequence[Sequence[int]], *, title: str, row_label: str, col_label: str,
               row_names: Sequence[str], col_names: Sequence[str], failed: bool = False,
               expected_share: float | None = None) -> str:
    """A contingency table as a heat map of each row's shares, every cell's
    count written in a colour that reads on its shade; the diagonal outlined."""
    shares = [[v / max(1, sum(row)) for v in row] for row in table]
    fig = _figure(4.9, 4.1)
    ax = fig.add_subplot()
    top = max(0.5, max(max(r) for r in shares))
    image = ax.imshow(shares, cmap="Reds" if failed else "Blues", vmin=0, vmax=top, aspect="equal")
    for i, row in enumerate(table):
        for j, v in enumerate(row):
            dark = shares[i][j] > 0.55 * top
            ax.text(j, i, str(v), ha="center", va="center", fontsize=9, color="white" if dark else "#111111")
    for k in range(min(len(table), len(table[0]))):
        ax.add_patch(Rectangle((k - 0.5, k - 0.5), 1, 1, fill=False, edgecolor=EXPECT,
                                                  linewidth=1.4))
    ax.set_xticks(range(len(col_names)), col_names)
    ax.set_yticks(range(len(row_names)), row_names)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    ax.set_title(title, loc="left")
    bar = fig.colorbar(image, ax=ax, shrink=0.85,
                       format=FuncFormatter(lambda v, _: f"{100 * v:.0f}%"))
    bar.set_label("share of the row" + (f" (fair: {100 * expected_share:.1f}%)" if expected_share else ""))
    if expected_share is not None:
        bar.ax.axhline(expected_share, color=EXPECT, linewidth=1.2)
    return svg_of(fig)


def intervals(rows: Sequence[tuple[str, float, float | None, float | None]], *, title: str, xlabel: str,
              reference: float | None = None, reference_label: str = "", failed: bool = False,
              percent: bool = True, width_in: float = 6.4) -> str:
    """Rates or ratios as dots with their confidence intervals, one row each
    (label, value, low, high; low/high None: a dot alone), against a
    reference line (a ceiling, or an exact figure)."""
    fig = _figure(width_in, 0.75 + 0.42 * len(rows))
    ax = fig.add_subplot()
    handles: list[Artist] = []
    for k, (_label, value, low, high) in enumerate(rows):
        y = len(rows) - 1 - k
        if low is not None and high is not None:
            line = ax.hlines(y, low, high, colors=BAD if failed else OK, linewidth=5, zorder=2,
                             label="confidence interval")
            if k == 0 or not any(h.get_label() == "confidence interval" for h in handles):
                handles.append(line)
        dot = ax.plot([value], [y], "o", color=EXPECT, markersize=6, zorder=3, label="observed")[0]
        if not any(h.get_label() == "observed" for h in handles):
            handles.append(dot)
    if reference is not None:
        handles.append(ax.axvline(reference, color=BAD, linewidth=1.6, linestyle="--", label=reference_label,
                                  zorder=1))
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    values = [v for r in rows for v in r[1:] if v is not None] + ([reference] if reference is not None else [])
    low, high = min(values + [0.0]), max(values)
    pad = 0.08 * (high - low or 1.0)
    ax.set_xlim(low - pad if low < 0 else 0.0, high + pad)
    if percent:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:.3g}%" if abs(v) < 10 else f"{100 * v:,.0f}%"))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color="#e4e4e4")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, loc="left")
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), framealpha=0.92)
    return svg_of(fig)


def _nice_at_least(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``x``."""
    if x <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(x))
    for step in (1, 2, 5, 10):
        if step * power >= x - 1e-9:
            return float(step * power)
    return 10.0 * power


def resolution_of(values: Sequence[float]) -> float:
    """The step between the values a measurement can take, estimated from the
    data: each gap between neighbouring distinct values counted in units of
    the smallest gap, and the span shared out over those units (so that
    values rounded in their last digit do not skew the step)."""
    xs = sorted(set(values))
    gaps = [b - a for a, b in zip(xs, xs[1:]) if b - a > 1e-12]
    if not gaps:
        return 1.0
    smallest = min(gaps)
    units = sum(max(1, round(g / smallest)) for g in gaps)
    return (xs[-1] - xs[0]) / units


def bin_edges(values: Sequence[float], resolution: float | None = None, target: int = 30) -> list[float]:
    """Bin edges for a histogram of ``values``: each bin a whole number
    (1, 2 or 5 times a power of ten) of the data's resolution wide, edges
    half a step off the values, so that no bin is empty only because no
    value can fall in it."""
    step = resolution or resolution_of(values)
    low, high = min(values), max(values)
    per_bin = _nice_at_least((high - low) / step / target) if high > low else 1.0
    width = per_bin * step
    start = math.floor(low / width) * width - step / 2
    count = max(1, math.ceil((high + step / 2 - start) / width))
    return [start + k * width for k in range(count + 1)]


def histogram(values: Sequence[float], *, title: str, xlabel: str, ylabel: str = "count",
              resolution: float | None = None, scale: float = 1.0, width_in: float = 6.4,
              height_in: float = 2.8) -> str:
    """A histogram binned to the data's resolution (``bin_edges``); ``scale``
    multiplies the values for display (1000: seconds shown as ms)."""
    fig = _figure(width_in, height_in)
    ax = fig.add_subplot()
    _histogram_on(ax, values, title, xlabel, ylabel, resolution, scale)
    return svg_of(fig)


def _histogram_on(ax, values, title, xlabel, ylabel, resolution, scale):
    if values:
        shown = [v * scale for v in values]
        edges = bin_edges(shown, resolution * scale if resolution else None)
        ax.hist(shown, bins=edges, color=OK, edgecolor="white", linewidth=0.5, zorder=2)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    else:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xlabel(xlabel)
    _count_axis(ax, ylabel)
    ax.set_title(title, loc="left")


def histograms(panels: Mapping[str, Sequence[float]], *, xlabel: str, ylabel: str = "count",
               scale: float = 1.0, columns: int = 3) -> str:
    """Small multiples: one histogram a panel, each binned to its own data."""
    names = list(panels)
    rows = max(1, math.ceil(len(names) / columns))
    cols = min(columns, max(1, len(names)))
    fig = _figure(2.6 * cols + 0.4, 2.2 * rows + 0.2)
    axes = fig.subplots(rows, cols, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.set_visible(False)
            continue
        values = panels[names[k]]
        _histogram_on(ax, values, f"{names[k]} ({len(values)})", xlabel, ylabel if k % cols == 0 else "",
                      None, scale)
    return svg_of(fig)


def rose(angles_deg: Sequence[float], *, title: str, empty_from: float | None = None,
         empty_to: float | None = None, failed: bool = False, petals: int = 36) -> str:
    """A polar rose of angles (degrees, counter-clockwise from +x): petal AREA
    proportional to the count (radius as its square root, so a rose does not
    exaggerate), the circle a uniform spread gives, the widest empty arc shaded."""
    fig = _figure(4.6, 4.5)
    # The projection picks the class at run time; the stubs only know add_subplot returns an Axes.
    ax = cast(PolarAxes, fig.add_subplot(projection="polar"))
    width = 360.0 / petals
    counts = [0] * petals
    for a in angles_deg:
        counts[int((a % 360.0) // width) % petals] += 1
    expected = len(angles_deg) / petals if angles_deg else 0.0
    top = math.sqrt(max(counts + [expected * 1.4, 1]))
    handles: list[Artist | Container] = []
    if empty_from is not None and empty_to is not None:
        extent = (empty_to - empty_from) % 360.0
        ax.bar([math.radians(empty_from + extent / 2)], [top], width=math.radians(extent), color=SHADE,
               zorder=0, linewidth=0)
        handles.append(Patch(color=SHADE, label=f"widest empty arc ({extent:.0f}°)"))
    centres = [math.radians((k + 0.5) * width) for k in range(petals)]
    bars = ax.bar(centres, [math.sqrt(c) for c in counts], width=math.radians(width) * 0.95,
                  color=BAD if failed else OK, edgecolor="white", linewidth=0.4, zorder=2,
                  label=f"spins per {width:g}° (area ∝ count)")
    handles.insert(0, bars)
    theta = [math.radians(d) for d in range(0, 361, 3)]
    circle = ax.plot(theta, [math.sqrt(expected)] * len(theta), color=EXPECT, linewidth=1.4, zorder=3,
                     label=f"uniform: {expected:.1f} per petal")[0]
    handles.insert(1, circle)
    ax.set_ylim(0, top)
    ticks = [t for t in MaxNLocator(nbins=4, integer=True).tick_values(0, top ** 2) if 0 < t <= top ** 2]
    ax.set_yticks([math.sqrt(t) for t in ticks], [f"{t:g}" for t in ticks], fontsize=7.5, color="#555")
    ax.set_xticks([math.radians(d) for d in range(0, 360, 45)], [f"{d}°" for d in range(0, 360, 45)])
    ax.set_rlabel_position(100)
    ax.set_title(title, loc="left")
    fig.legend(handles=handles, loc="outside lower center", ncols=1, framealpha=0.92)
    return svg_of(fig)


# Colours of several series on one chart (e.g. payout tables): distinct, and
# readable by most colour-blind readers (blue, vermilion, bluish green, purple).
SERIES = ("#3f6fb5", "#c8392f", "#2a8c6a", "#7b4fa0")


def curves_with_intervals(series: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float],
                                                 Sequence[float], float | None]],
                          *, title: str, xlabel: str, ylabel: str, zero: str = "",
                          marks: Sequence[tuple[float, str, str]] = (), percent: bool = True,
                          width_in: float = 7.2, height_in: float = 3.6, on_top: int = 0) -> str:
    """Each series (label, xs, values, lows, highs, reference) as a line of
    dots with its interval as a band, and its reference level (e.g. the house
    edge of the same bets) as a dashed line of the same colour; a black line
    at zero (``zero``: its legend label); vertical marks (x, label, colour)
    for the moments a verdict names (a latest safe call, a call time judged;
    a mark whose label starts with "_" is drawn and not listed). The series
    ``on_top`` is drawn over the others (the one the verdict is about: two
    series that agree would hide it). A series' reference goes into its own
    legend entry, not one of its own: a legend of more than five entries is
    not read."""
    fig = _figure(width_in, height_in)
    ax = fig.add_subplot()
    for k, (label, xs, values, lows, highs, reference) in enumerate(series):
        colour = SERIES[k % len(SERIES)]
        above = 2 if k == on_top else 0
        ax.fill_between(xs, lows, highs, color=colour, alpha=0.16, linewidth=0, zorder=1)
        if reference is not None:
            label += (f"; dashed: the house edge of the same bets, {100 * reference:.1f}%" if percent
                      else "; dashed: its reference")
            ax.axhline(reference, color=colour, linestyle="--", linewidth=1.0, zorder=2 + above)
        ax.plot(xs, values, "o-", color=colour, markersize=3.8, linewidth=1.4, zorder=3 + above, label=label)
    if zero:      # said on the line itself: one legend entry fewer
        ax.axhline(0.0, color=EXPECT, linewidth=1.1, zorder=2)
        ax.annotate(zero, (0.0, 0.0), xycoords=("axes fraction", "data"), xytext=(4, 3),
                    textcoords="offset points", fontsize=8, color=EXPECT)
    for x, label, colour in marks:
        ax.axvline(x, color=colour, linestyle=":", linewidth=1.6, zorder=2, label=label)
    if percent:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:+.0f}%"))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(color="#e4e4e4")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, loc="left")
    fig.legend(loc="outside lower center", ncols=1, framealpha=0.92)
    return svg_of(fig)
