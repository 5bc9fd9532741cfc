"""What a checked reading calls, for the round: the dice's faces and
flatness left to right (``dice_call``) or the pocket (``pocket_call``), or
why the reading gives no result (the bench re-reads, then voids).

Apart from the recogniser's plumbing (``bench.vision.recognizer``): the
camera loop (``bench.play.camera``), the scoring (``bench.vision.scoring``)
and the benchmarks call a reading the same way, whoever made it.
"""

from __future__ import annotations


# -- what a reading calls, for the round ------------------------------------------
def dice_call(reading: dict, count: int) -> tuple[tuple[int, ...], tuple[bool, ...], str | None]:
    """``(faces, flat, unread)``: the dice a checked reading gives, left to
    right in the image. A reading that calls a no roll (its ``no_roll``, else
    any die not flat) gives each die's flatness as read when it read the
    round's dice, else every die not flat; ``unread`` says why a reading
    gives no result (an error; not ``count`` dice; a flat die with no face;
    ``no_roll: false`` beside a die not flat), None when it does."""
    if "error" in reading:
        return (1,) * count, (False,) * count, str(reading["error"])
    found = list(reading.get("dice") or [])

    def x_of(die: dict) -> float:
        place = die.get("centre_px") or die.get("box_px")
        return float(place[0]) if place else 0.0

    found.sort(key=x_of)
    faces = [d.get("face") for d in found]
    said = reading.get("no_roll")
    cocked = any(d.get("flat") is False for d in found)
    shown = tuple((faces + [1] * count)[:count])
    shown = tuple(f if isinstance(f, int) else 1 for f in shown)
    if said is False and cocked:
        return shown, (False,) * count, "no_roll false, yet a die read not flat"
    if cocked and len(found) == count:          # a no roll, each die as read
        return shown, tuple(d.get("flat") is not False for d in found), None
    if said or cocked:
        return shown, (False,) * count, None
    if len(found) != count:
        return shown, (False,) * count, f"{len(found)} dice read, {count} in the tray"
    if any(f is None for f in faces):
        return shown, (False,) * count, "a die's face not read"
    return tuple(faces), (True,) * count, None


def pocket_call(reading: dict) -> tuple[int | None, str | None]:
    """``(pocket, unread)`` of a checked wheel reading."""
    if "error" in reading:
        return None, str(reading["error"])
    pocket = reading.get("pocket")
    return (pocket, None) if pocket is not None else (None, "no pocket read")
