"""Staged outcomes for scenarios: find a real drop that shows what a test needs.

A Gherkin step such as "die 2 comes to rest against the tray wall" must be
physics, not a fabricated result. ``stage`` therefore searches seeds (one
simulated drop each, in order from ``start_seed``) until a drop shows the
asked faces or the asked cocked die, and returns that seed and load: anyone
can replay it with ``drop(design, seed, loaded)`` and get the same result.
"""

from __future__ import annotations

from typing import Sequence

from tablebench_io.progress import bar as progress_bar

from twin.errors import TwinError
from twin.tower.design import TowerDesign
from twin.tower.dropping import DropResult, drop

REASONS = ("wall", "die")          # what can hold a cocked die ("edge": nothing but the floor touches it)


class StagingError(TwinError):
    """No drop within the search budget shows the asked outcome."""


def _wanted(result: DropResult, faces: tuple[int, ...] | None, in_order: bool,
            cocked_die: int | None, against: str | None) -> bool:
    if not result.settled:
        return False
    if faces is not None:
        shown = result.faces if in_order else tuple(sorted(result.faces))
        if shown != (faces if in_order else tuple(sorted(faces))):
            return False
    if cocked_die is None:
        return not result.no_roll
    return shows_cocked(result, cocked_die, against)


def shows_cocked(result: DropResult, die: int | None = None, against: str | None = None) -> bool:
    """A settled drop with die ``die`` (any die when None) not flat and
    held (``against``: by a "wall" or a "die"; None: either), and every die
    not flat resting where it stood gravity tilted every way
    (``DieRest.supported``, twin.tower.resting)."""
    if not result.settled or any(not d.flat and not d.supported for d in result.dice):
        return False
    dice = result.dice if die is None else (result.dice[die],)
    return any(not d.flat and (against is None or d.reason == against) for d in dice)


def stage_no_roll(design: TowerDesign, *, start_seed: int = 0, max_drops: int = 20000,
                  progress: bool = False) -> tuple[int, tuple[int, ...], DropResult]:
    """The first seed from ``start_seed`` whose drop rests with any die
    cocked and truly held (``shows_cocked``): a "no roll", 625b.2(d)(5).
    On the standard tower about one drop in 300 to 500."""
    bar = progress_bar(range(start_seed, start_seed + max_drops), desc=f"staging a no roll on {design.name}",
                       unit="drop", disable=not progress, leave=False)
    for seed in bar:
        result = drop(design, seed)
        if shows_cocked(result):
            bar.close()
            return seed, result.loaded, result
    bar.close()
    raise StagingError(f"{design.source}: no drop with a die cocked in seeds {start_seed} to "
                       f"{start_seed + max_drops - 1}")


def stage(design: TowerDesign, faces: Sequence[int] | None = None, cocked_die: int | None = None,
          *, against: str | None = "wall", in_order: bool = False, loaded: Sequence[int] | None = None,
          start_seed: int = 0, max_drops: int = 5000,
          progress: bool = False) -> tuple[int, tuple[int, ...], DropResult]:
    """Search seeds for a settled drop that shows ``faces`` (as a set of
    three unless ``in_order``; all dice flat unless a die is cocked) and/or
    has die ``cocked_die`` (0-based) not flat for ``against`` ("wall",
    "die" or None for either). Returns ``(seed, loaded, result)``
    with ``drop(design, seed, loaded) == result``.

    The expected cost is one drop divided by the outcome's chance: about 36
    drops for a given set of faces, 216 for a triple; a die against the wall
    on the standard tray is rare (use a narrow tray to stage it cheaply)."""
    if faces is not None:
        faces = tuple(int(f) for f in faces)
        if len(faces) != design.dice.count or not all(1 <= f <= 6 for f in faces):
            raise ValueError(f"faces must be {design.dice.count} values from 1 to 6, got {faces}")
    if cocked_die is not None and not 0 <= cocked_die < design.dice.count:
        raise ValueError(f"cocked_die must be 0 to {design.dice.count - 1}, got {cocked_die}")
    if against is not None and against not in REASONS:
        raise ValueError(f"against must be one of {REASONS} or None, got {against!r}")
    if faces is None and cocked_die is None:
        raise ValueError("give faces, cocked_die or both")
    seeds = range(start_seed, start_seed + max_drops)
    bar = progress_bar(seeds, desc=f"staging on {design.name}", unit="drop", disable=not progress, leave=False)
    for seed in bar:
        result = drop(design, seed, loaded)
        if _wanted(result, faces, in_order, cocked_die, against):
            bar.close()
            return seed, result.loaded, result
    bar.close()
    want = []
    if faces is not None:
        want.append(f"faces {faces}")
    if cocked_die is not None:
        want.append(f"die {cocked_die} cocked" + (f" against the {against}" if against == "wall" else
                                                  f" on a {against}" if against else ""))
    raise StagingError(f"{design.source}: no drop with {' and '.join(want)} in seeds "
                       f"{start_seed} to {start_seed + max_drops - 1}")
