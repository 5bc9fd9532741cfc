"""One run of a campaign: a drop or a spin, as a small JSON-able record.

A run is a pure function of (design file, kind, seed): that is what makes a
campaign's result independent of how many workers share it and lets an
interrupted campaign resume from its file. Designs are loaded once per
process and cached by path.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

TOWER, WHEEL = "tower", "wheel"
KINDS = (TOWER, WHEEL)


@lru_cache(maxsize=8)
def _design(kind: str, path: str, text: str | None):
    """The design at ``path``; with ``text`` (a task sent to another machine)
    the file's contents are used, written to a private temporary file under
    the same name, so that the design need not exist on that machine."""
    if kind == TOWER:
        from twin.tower import load_design
    else:
        from twin.wheel import load_design
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
            "track_time_s": result.track_time_s, "spin_time_s": result.spin_time_s}


def run_chunk(kind: str, path: str, seeds: list[int], text: str | None = None) -> list[dict]:
    """What a worker does: the runs for ``seeds``, in order."""
    design = _design(kind, path, text)
    one = tower_run if kind == TOWER else wheel_run
    return [one(design, seed) for seed in seeds]
