"""One run of a campaign: a drop or a spin, as a small JSON-able record.

A run is a function of (design file, kind, seed) alone: each drop and spin
starts from an empty physics world (``resetSimulation``), so it does not
depend on the runs before it, nor on how many workers share a campaign. Runs
are handed out in fixed blocks of seeds (``block_of``), the unit of work and
of resuming an interrupted campaign from its file. Designs are loaded once
per process and cached by path.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from twin.kinds import KINDS, TOWER, WHEEL, plant_kind

__all__ = ["BLOCK", "KINDS", "TOWER", "WHEEL", "block_of", "design_for", "run_chunk", "tower_run", "wheel_run"]
# Runs per block, the unit of work handed to a worker (and the unit of resuming).
BLOCK = {TOWER: 20, WHEEL: 4}


@lru_cache(maxsize=8)
def design_for(kind: str, path: str, text: str | None):
    """The design at ``path``; with ``text`` (a task sent to another machine)
    the file's contents are used, written to a private temporary file under
    the same name, so that the design need not exist on that machine."""
    load_design = plant_kind(kind).part("loader")
    if text is None:
        return load_design(path)
    folder = Path(tempfile.mkdtemp(prefix="twin-validate-"))
    copy = folder / Path(path).name
    copy.write_text(text, encoding="utf-8")
    try:
        return load_design(copy)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tower_load(design, seed: int) -> tuple[int, ...] | None:
    """The faces the dealer sets on top for this run. A design with random
    loading draws them from the drop's own seed (``None``: ``twin drop --seed``
    then repeats the run exactly). A design that fixes the load would leave the
    loaded-face test without power, so the campaign draws random faces from
    the seed instead: the validator tests the tower, not one way of loading it."""
    if design.loading.mode == "random":
        return None
    rng = np.random.default_rng([seed, 625])
    return tuple(int(f) for f in rng.integers(1, 7, design.dice.count))


def tower_run(design, seed: int) -> dict:
    from twin.tower import drop
    result = drop(design, seed, tower_load(design, seed))
    return {"seed": seed, "faces": list(result.faces), "loaded": list(result.loaded),
            "no_roll": result.no_roll, "settled": result.settled,
            "settle_time_s": round(result.settle_time_s, 4),
            "not_flat": [d.reason for d in result.dice if not d.flat]}


def wheel_run(design, seed: int) -> dict:
    from twin.wheel import spin
    result = spin(design, seed)
    return {"seed": seed, "valid": result.valid, "number": result.number,
            "invalid_reason": result.invalid_reason, "leave_angle_deg": result.leave_angle_deg,
            "track_time_s": result.track_time_s, "spin_time_s": result.spin_time_s,
            "rotor_speed_rev_s": result.rotor_speed_rev_s, "leave_pocket": result.leave_pocket,
            "hit_pocket": result.hit_pocket, "hit_time_s": result.hit_time_s}


def block_of(kind: str, seed: int) -> int:
    """The block a seed belongs to: seeds B*k ... B*k + B-1, whatever the campaign."""
    return seed // BLOCK[kind]


def run_chunk(kind: str, path: str, seeds: list[int], text: str | None = None) -> list[dict]:
    """What a worker does: the runs for ``seeds`` (one block, or the part of
    it inside the campaign), in order. Each drop and spin builds its own
    physics world, so a run does not depend on the runs before it."""
    design = design_for(kind, path, text)
    one = plant_kind(kind).part("one_run")
    return [one(design, seed) for seed in seeds]
