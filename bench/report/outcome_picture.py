"""A round's outcome as a picture, drawn from the plant's reading as the
journal recorded it, without simulating anything again: the tray from above
with each die where it came to rest (``twin.tower.picture.tray_png``, from
the recorded poses), or the wheel at rest with the ball in its pocket
(``twin.wheel.picture.draw_wheel``, the rotor's angle from the recorded seed's
launch and the recorded spin time). The design is the one the session used:
the copy its journal carries, or for an older journal the recorded file if
its SHA-256 still matches (``bench.journal.replay.session_file``); otherwise there is
no picture and the reason says why.
"""

from __future__ import annotations

from bench.errors import BenchError
from bench.journal.replay import session_file
from twin.errors import TwinError


_DESIGNS: dict[str, object] = {}      # loaded designs by SHA-256: a report draws many rounds of one design


def _usable_design(header: dict):
    """(the physics plant and its design, None) or (None, why there is no picture)."""
    from bench.play.plant import physics_plant
    kind = header.get("plant")
    plant = physics_plant(kind)
    if plant is None:
        return None, f"the {kind or 'unknown'} plant has no picture of its outcome"
    digest = header.get("design_sha256")
    if digest in _DESIGNS:
        return (plant, _DESIGNS[digest]), None
    try:
        with session_file(header, "design") as path:
            if path is None:
                return None, "the journal names no design"
            design = plant.load_design(path)
    except (BenchError, TwinError, OSError) as err:
        return None, str(err)
    if digest:
        _DESIGNS[digest] = design
    return (plant, design), None


def why_no_picture(header: dict) -> str | None:
    """Why a session's outcomes cannot be drawn (the plant, or its design
    file not here as it was), or None when they can."""
    return _usable_design(header)[1]


def reading_words(reading: dict) -> str:
    """A recorded reading in a few words: faces (and which die was not flat) or the pocket."""
    if reading.get("pocket") is not None:
        return f"pocket {reading['pocket']}"
    dice, flat = reading.get("dice") or [], reading.get("flat") or []
    cocked = [k + 1 for k, f in enumerate(flat) if not f]
    return "-".join(map(str, dice)) + (f" (die {', '.join(map(str, cocked))} not flat)" if cocked else "")


def outcome_picture(header: dict, reading: dict) -> tuple[bytes | None, str]:
    """(PNG bytes or None, what it shows or why there is none) for one reading."""
    usable, why_not = _usable_design(header)
    if usable is None:
        return None, why_not
    plant, design = usable
    try:
        return plant.picture(design, reading)
    except (KeyError, TypeError, ValueError) as err:
        return None, f"the recorded reading cannot be drawn ({err!r})"
