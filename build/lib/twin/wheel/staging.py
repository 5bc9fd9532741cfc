"""Staged spins: find a real spin that ends in a given pocket.

As for the tower (``twin.tower.staging``), a staged outcome is a seed search,
never a fabricated result: ``spin(design, seed)`` gives the same pocket again.
Each pocket comes up about once in 37 spins.
"""

from __future__ import annotations

from typing import Sequence

from twin.errors import TwinError
from twin.wheel.design import WheelDesign
from twin.wheel.spin import SpinResult, spin


class StagingError(TwinError):
    """No spin within the search budget ends in the asked pocket."""


def stage_pocket(design: WheelDesign, numbers: Sequence[int], *, start_seed: int = 0,
                 max_spins: int = 2000) -> tuple[int, SpinResult]:
    """The first seed from ``start_seed`` whose valid spin ends in one of ``numbers``."""
    wanted = set(numbers)
    if not wanted or not wanted <= set(range(37)):
        raise ValueError(f"numbers must be pockets 0-36, got {sorted(wanted)}")
    for seed in range(start_seed, start_seed + max_spins):
        result = spin(design, seed)
        if result.valid and result.number in wanted:
            return seed, result
    raise StagingError(f"{design.source}: no spin ending in {sorted(wanted)} in seeds "
                       f"{start_seed} to {start_seed + max_spins - 1}")
