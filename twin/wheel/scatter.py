"""The descent's scatter, from a campaign's spin records: how far the ball comes to
rest from the pocket it left the track over, and from the pocket it first hit.

Offsets are counted in pockets on the rotor, in the direction the ball runs
relative to the rotor (counter-clockwise on the stator, while the rotor turns
clockwise): "10 pockets past" is where practitioners' scatter charts put most
balls, counted from the point the ball first hits the rotor. How much a
leaving pocket tells of the resting pocket is the *concentration* of the
offsets: the mean resultant length of the offsets as angles round the wheel,
0 for offsets spread evenly, 1 for one offset always (what a player who knew
the leaving pocket exactly could work with). Its interval comes from a
bootstrap of the spins (seeded).

Spins are grouped by the rotor's period (seconds a turn, as practitioners
quote it) and by where among the deflectors the ball left the track.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twin import fixed_arithmetic as fx

POCKETS = 37
BOOTSTRAP = 400
SEED = 25


def _past(a: int, b: int) -> int:
    """Pockets from rotor position a to b in the ball's direction (indices run clockwise,
    the ball runs counter-clockwise on the rotor: its index falls)."""
    return (a - b) % POCKETS


def offsets(records: list[dict], pockets: tuple[int, ...], start: str) -> list[tuple[dict, int]]:
    """(record, pockets past) for every valid spin: from the leaving pocket
    (``start="leave"``) or from the pocket first hit (``start="hit"``) to the resting one."""
    index_of = {n: i for i, n in enumerate(pockets)}
    key = {"leave": "leave_pocket", "hit": "hit_pocket"}[start]
    return [(r, _past(r[key], index_of[r["number"]])) for r in records
            if r.get("valid") and r.get(key) is not None]


def concentration(values: list[int]) -> float:
    if not values:
        return float("nan")
    angles = 2 * np.pi * np.asarray(values) / POCKETS
    return math.hypot(float(fx.cos(angles).mean()), float(fx.sin(angles).mean()))


def signed(value: int, behind: int = 9) -> int:
    """Pockets past, from -behind to 36 - behind (a ball bounced back a few pockets is behind, not 30 past)."""
    return value - POCKETS if value > POCKETS - 1 - behind else value


@dataclass(frozen=True)
class Group:
    label: str
    spins: int
    concentration: float
    low: float                   # 95% bootstrap interval of the concentration
    high: float
    median_past: float           # median pockets past (signed: a few behind count as behind)
    quartiles: tuple[float, float]
    counts: tuple[int, ...]      # spins per offset 0..36

    def to_json(self) -> dict:
        return {"group": self.label, "spins": self.spins, "concentration": round(self.concentration, 4),
                "interval": [round(self.low, 4), round(self.high, 4)], "median_pockets_past": self.median_past,
                "quartiles": list(self.quartiles), "counts": list(self.counts)}


def group(label: str, values: list[int], seed: int = SEED) -> Group:
    n = len(values)
    if n == 0:
        nan = float("nan")
        return Group(label, 0, nan, nan, nan, nan, (nan, nan), (0,) * POCKETS)
    rng = np.random.default_rng([seed, n])
    arr = np.asarray(values)
    boots = [concentration(list(arr[rng.integers(0, n, n)])) for _ in range(BOOTSTRAP)]
    past = np.asarray([signed(v) for v in values])
    q1, med, q3 = (float(x) for x in np.percentile(past, [25, 50, 75]))
    return Group(label, n, concentration(values), float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5)),
                 med, (q1, q3), tuple(int(c) for c in np.bincount(arr, minlength=POCKETS)))


def period_bins(records: list[dict], edges_s: tuple[float, ...]) -> list[tuple[str, list[dict]]]:
    """Spins grouped by the rotor's period when the ball left the track (seconds a turn)."""
    out = []
    bounds = (0.0,) + tuple(edges_s) + (math.inf,)
    for lo, hi in zip(bounds, bounds[1:]):
        label = (f"rotor under {hi:g} s a turn" if lo == 0 else f"rotor over {lo:g} s a turn" if hi == math.inf
                 else f"rotor {lo:g}-{hi:g} s a turn")
        chosen = [r for r in records if r.get("rotor_speed_rev_s") and lo <= 1 / r["rotor_speed_rev_s"] < hi]
        out.append((label, chosen))
    return out


def place_bins(records: list[dict], design, bins: int = 3) -> list[tuple[str, list[dict]]]:
    """Spins grouped by where the ball left the track, within the deflectors' spacing
    (0 at a deflector, in the ball's direction)."""
    bowl = design.bowl
    count = max(1, len(bowl.deflectors))
    first = bowl.deflectors[0].angle_deg if bowl.deflectors else 0.0
    spacing = 360.0 / count
    out = []
    for b in range(bins):
        lo, hi = spacing * b / bins, spacing * (b + 1) / bins
        chosen = [r for r in records if lo <= (r["leave_angle_deg"] - first) % spacing < hi]
        out.append((f"left {lo:g}-{hi:g} deg past a deflector", chosen))
    return out


def scatter_groups(records: list[dict], design, start: str, by: str,
                   period_edges_s: tuple[float, ...] = (2.5, 3.5)) -> list[Group]:
    """The scatter from ``start`` ("leave" or "hit") to rest, over all spins and by
    ``by`` ("rotor" or "place")."""
    valid = [r for r in records if r.get("valid")]
    groups = period_bins(valid, period_edges_s) if by == "rotor" else place_bins(valid, design)
    out = [group("all spins", [o for _, o in offsets(valid, design.pockets, start)])]
    for label, chosen in groups:
        out.append(group(label, [o for _, o in offsets(chosen, design.pockets, start)]))
    return out


def chart(groups: list[Group], what: str) -> str:
    """SVG: the spins per pocket past (``what``: from where), one panel per group but the first (all spins)."""
    from tablebench_io import charts
    order = list(range(-9, POCKETS - 9))
    panels = []
    for g in groups[1:]:
        by_signed = {signed(o): c for o, c in enumerate(g.counts)}
        panels.append((f"{g.label}: {g.spins} spins, concentration {g.concentration:.2f}",
                       [by_signed.get(o, 0) for o in order], g.spins / POCKETS, False))
    return charts.counts_small_multiples(panels, [str(o) if o % 5 == 0 else "" for o in order],
                                         xlabel=f"pockets past, {what}", ylabel="spins", width_in=10.0)
