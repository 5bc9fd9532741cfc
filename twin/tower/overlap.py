"""How far a die at rest sits inside what it touches, from the design's
geometry and the dice's poses alone (not from the engine's contacts).

A rest the engine reports may be held by penetration recovery instead of by
contact: a die sunk 0.7 mm into a glass wall is pushed back by the solver
with a force nothing real gives (issue 39). ``deepest`` measures every die of
a rest against the tray's floor, walls and lid, the shaft and the obstacles
(``twin.tower.world.layout``) and against the other dice, with the geometry
of ``twin.tower.statics.Scene`` (a die is its inner box swept by a ball of
the corner radius), sampled finer than the rest check needs: 41 points an
edge of the inner box (0.5 mm apart on a 25 mm die), so that two dice's
edges crossing each other are measured within a few micrometres.

The depth is the overlap of the two true surfaces: positive when a die is
inside the other body, 0 (or less) when they touch or stand apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from twin.tower.design import TowerDesign
from twin.tower.statics import Scene, _box_edge_points

FINE_EDGE_SAMPLES = 41


@dataclass(frozen=True)
class Overlap:
    """The deepest overlap of one die of a rest."""
    die: int                       # 0-based
    other: str                     # "floor", "wall", "obstacle" or "die 2" (1-based, as reports name dice)
    depth_m: float                 # how far the die's surface is inside the other's (<= 0: not inside)


def deepest(design: TowerDesign, poses: Sequence[tuple[Sequence[float], Sequence[float]]]) -> list[Overlap]:
    """Per die of a rest at ``poses`` (position, orientation xyzw): its deepest
    overlap with anything it touches (depth 0 and other "" when it touches
    nothing within the rest check's contact gap)."""
    scene = Scene(design, poses)
    scene.samples = _box_edge_points(scene.inner, FINE_EDGE_SAMPLES)
    out = []
    for i in range(len(scene.dice)):
        worst = Overlap(i, "", 0.0)
        found = [(c.other, c.gap_m) for c in scene.static_contacts(i)]
        for j in range(len(scene.dice)):
            if j != i:
                found += [(f"die {j + 1}", c.gap_m) for c in scene.pair_contacts(i, j)]
        for other, gap in found:
            if -gap > worst.depth_m:
                worst = Overlap(i, other, -gap)
        out.append(worst)
    return out


def deepest_of_result(design: TowerDesign, result) -> list[Overlap]:
    """``deepest`` of a ``DropResult``'s dice as they rest."""
    return deepest(design, [(d.position_m, d.orientation_xyzw) for d in result.dice])
